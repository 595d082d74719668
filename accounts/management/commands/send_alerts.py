"""`python manage.py send_alerts [--frequency daily|weekly] [--user NAME]
[--day YYYY-MM-DD] [--dry-run]`: what the beat does after an announcement,
by hand: each due alert built and sent once (an alert already sent for the
period is not sent again), with progress on stderr."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.alerts.sending import FREQUENCIES, preview_alerts, retry_due_alerts, send_alerts
from accounts.models import User
from harvest.completeness import is_listing_day


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"--day: {text!r} is not a date (YYYY-MM-DD)") from None


class Command(BaseCommand):
    help = "Send the due email alerts of the trail (daily, weekly or both), each once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--frequency", choices=list(FREQUENCIES), help="only this frequency (default: both)")
        parser.add_argument("--user", action="append", dest="users", metavar="NAME", help="only this user (repeatable)")
        parser.add_argument("--day", help="the listing day (YYYY-MM-DD) of an announcement; default: the one due now")
        parser.add_argument("--dry-run", action="store_true", help="show what would be sent; claim and send nothing")

    def handle(self, *args, frequency: str | None, users: list[str] | None, day: str | None, dry_run: bool, **options):
        if users:
            unknown = set(users) - set(User.objects.filter(username__in=users).values_list("username", flat=True))
            if unknown:
                raise CommandError(f"--user: no user named {', '.join(sorted(unknown))}")
        listing = _day(day) if day else None
        if listing is not None and not is_listing_day(listing):
            raise CommandError(f"--day: arXiv makes no announcement dated {listing} (a weekend or a holiday)")
        for each in [frequency] if frequency else FREQUENCIES:
            if dry_run:
                run, rows = preview_alerts(frequency=each, day=listing, usernames=users)
                self.stdout.write(run.reason or f"{each} alerts for {run.day} (dry run):")
                for username, count in rows:
                    self.stdout.write(f"  {username}: {count} papers" if count else f"  {username}: nothing new")
                continue
            run = send_alerts(frequency=each, day=listing, usernames=users, progress=self._progress(each))
            self.stdout.write(run.summary())
        if not dry_run and not users:
            retried = retry_due_alerts()
            if retried.sent or retried.failed or retried.retry:
                self.stdout.write(retried.summary())

    def _progress(self, frequency: str):
        def report(done: int, total: int) -> None:
            self.stderr.write(f"{frequency}: {done}/{total} users")

        return report
