"""What the tasks and the `recommend` command run: one user's retraining with
the rescoring of the window, and the scoring of a harvest's new versions."""

from __future__ import annotations

from accounts.models import User
from accounts.recommend.debounce import examples_learnt, retrain_claimed
from accounts.recommend.scoring import prune, rescore_user, score_papers
from accounts.recommend.training import train_user
from harvest.models import Version


def retrain_and_rescore(user_id: int) -> str:
    changes = retrain_claimed(user_id)
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        return f"user {user_id} is gone"
    models = train_user(user)
    if not models:
        examples_learnt(user_id, changes)
        return f"user {user_id}: too few saves, no model"
    written = rescore_user(user_id)
    examples_learnt(user_id, changes)
    return f"user {user_id}: {len(models)} models, {written} recommendations"


def score_new_versions(version_ids: list[int]) -> str:
    paper_ids = set(Version.objects.filter(pk__in=version_ids).values_list("paper_id", flat=True))
    written = score_papers(paper_ids)
    pruned = prune()
    return f"{len(paper_ids)} papers scored: {written} recommendations written, {pruned} out of the window removed"
