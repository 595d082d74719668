"""`python manage.py recommend [--user NAME] [--evaluate [--draws N] [--topics n01,n45]]`: retrain
and rescore by hand (one user, or every user with enough saves), or print the
offline evaluation tables (docs/recommendations.md)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Count

from accounts.models import User
from accounts.recommend.cold_start_evaluation import (
    cold_start_table,
    description_alone,
    descriptions,
    saves_with_description,
)
from accounts.recommend.evaluation import DRAWS, eligible, held_out_topics, table, tuning_topics
from accounts.recommend.evaluation import evaluate as run_evaluation
from accounts.recommend.evaluation_data import load_evaluation_data
from accounts.recommend.evaluation_methods import METHODS
from accounts.recommend.jobs import retrain_and_rescore
from accounts.recommend.picks_evaluation import evaluate_picks, picks_table
from harvest.embeddings.selectors import query_vector
from harvest.search_evaluation import Collection


class Command(BaseCommand):
    help = (
        "Retrain recommendation models from research records and score the window's papers, for one user "
        "(--user) or every user with enough saves; --evaluate prints the offline evaluation on real papers."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="a username: only this user")
        parser.add_argument("--evaluate", action="store_true", help="print the offline evaluation tables instead")
        parser.add_argument("--draws", type=int, default=DRAWS, help="simulated researchers per topic (--evaluate)")
        parser.add_argument("--topics", help="comma-separated need ids, e.g. n01,n45: only these topics (--evaluate)")

    def handle(self, *args, user: str | None, evaluate: bool, draws: int, topics: str | None, **options) -> None:
        if evaluate:
            if draws < 1:
                raise CommandError("--draws: at least 1")
            data = load_evaluation_data()
            chosen = None if topics is None else [topic.strip() for topic in topics.split(",") if topic.strip()]
            if chosen is not None and not {topic.id for topic in data.topics if eligible(topic)} & set(chosen):
                raise CommandError("--topics: no topic of the evaluation among them")
            report = run_evaluation(data, METHODS, draws=draws, topics=chosen)
            splits = {"tuned on": tuning_topics(data), "held out": held_out_topics(data), "all": None}
            self.stdout.write(table(report, splits=splits))
            texts = descriptions(Collection.load())
            embedded: dict[str, object] = {}

            def embed(text: str):
                if text not in embedded:
                    embedded[text] = query_vector(text)
                return embedded[text]

            alone = description_alone(data, texts, embed, topics=chosen)
            beside = saves_with_description(data, texts, embed, draws=draws, topics=chosen)
            self.stdout.write("\n" + cold_start_table(alone, beside))
            self.stdout.write("\n" + picks_table(evaluate_picks(data, draws=draws, topics=chosen)))
            return
        if user is not None:
            found = User.objects.filter(username=user).first()
            if found is None:
                raise CommandError(f"--user: no user named {user!r}")
            users = [found.pk]
        else:
            users = list(
                User.objects.annotate(saves=Count("records"))
                .filter(saves__gte=settings.RECOMMEND_MIN_SAVES)
                .order_by("pk")
                .values_list("pk", flat=True)
            )
        for user_id in users:
            self.stdout.write(retrain_and_rescore(user_id))
        self.stdout.write(f"{len(users)} users done")
