"""`python manage.py evaluate_topics`: how well topic follows match on the
real-paper collection (docs/search.md, "Topic follows"), printed as a
Markdown table. Nothing it stores outlives the run."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from accounts.follows.topic_evaluation import evaluate_topics


class Command(BaseCommand):
    help = "Evaluate topic follows on the real-paper collection (precision, recall, F1 by threshold)."

    def handle(self, *args, **options) -> None:
        self.stdout.write(evaluate_topics(progress=self.stderr.write).table())
