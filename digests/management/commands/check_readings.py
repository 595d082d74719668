"""`python manage.py check_readings`: the faithfulness of every stored reading
written from a full text — numbers found in the text, cited sections that
exist, each field in its language (digests/faithfulness.py)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from digests.faithfulness import check_readings, table


class Command(BaseCommand):
    help = (
        "Check every stored reading written from a full text: its numbers in the version's text, its cited "
        "sections in the version's document, and each field in its language. Calls no provider."
    )

    def handle(self, *args, **options) -> None:
        checks = check_readings()
        for line in table(checks):
            self.stdout.write(line)
        unfaithful = sum(not c.faithful for c in checks)
        summary = f"{len(checks)} readings checked, {unfaithful} with something not found"
        self.stdout.write(self.style.WARNING(summary) if unfaithful else self.style.SUCCESS(summary))
