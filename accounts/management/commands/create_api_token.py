"""`python manage.py create_api_token USERNAME NAME`: a new API token for a
user, its secret printed once (only its hash is stored)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import User
from accounts.services import TokenLimitReached, api_token_create


class Command(BaseCommand):
    help = "Create an API token for USERNAME named NAME and print its secret, which is shown only this once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("name", help="what the token is for, e.g. 'lab notebook'")

    def handle(self, *args, username: str, name: str, **options) -> None:
        if not name.strip():
            raise CommandError("NAME must not be empty")
        try:
            user = User.objects.get(username=username)
        except User.DoesNotExist:
            raise CommandError(f"no user with the username {username!r}") from None
        try:
            token, secret = api_token_create(user=user, name=name)
        except TokenLimitReached as exc:
            raise CommandError(str(exc)) from None
        self.stderr.write(f"Token {token.name!r} (pt_{token.prefix}_…) for {user.username}; copy it now:")
        self.stdout.write(secret)
