"""The trail's reactions to other apps' and domains' signals (connected in
AccountsConfig.ready): a harvest's new versions are matched in a task; a
sign-in brings the reader's trail up to date; a change of a user's follows
changes their cards in the same transaction."""

from __future__ import annotations

from django.contrib.auth.signals import user_logged_in
from django.db import transaction
from django.dispatch import receiver

from accounts.follows import signals as follow_signals
from accounts.follows.facts import is_fulltext, papers_facts
from accounts.follows.matching import DayIndex, ExclusionSpec
from accounts.follows.models import Follow
from accounts.trail import tasks
from accounts.trail.delivery import trail_catch_up
from accounts.trail.lock import lock_trail
from accounts.trail.matching import follow_backfill
from accounts.trail.models import TrailItem
from accounts.trail.writers import drop_follow_matches
from harvest.signals import versions_created, versions_embedded


@receiver(versions_created, dispatch_uid="accounts.versions_created")
def on_versions_created(sender, *, version_ids, **kwargs) -> None:
    """New versions were committed: match them against follows in a task,
    queued once the current transaction (if any) commits."""
    ids = list(version_ids)
    if ids:
        transaction.on_commit(lambda: tasks.match_new_versions.delay(ids))


@receiver(versions_embedded, dispatch_uid="accounts.versions_embedded")
def on_versions_embedded(sender, *, version_ids, **kwargs) -> None:
    """A page's papers have their embeddings: its topic follows are matched
    in a task (queued after the page's other matching, on the same queue)."""
    ids = list(version_ids)
    if ids and Follow.objects.filter(kind=Follow.Kind.TOPIC, muted=False).exists():
        transaction.on_commit(lambda: tasks.match_topic_versions.delay(ids))


@receiver(user_logged_in, dispatch_uid="trail.user_logged_in")
def on_user_logged_in(sender, *, user, **kwargs) -> None:
    """A reader back after longer than PAPERTRAIL_TRAIL_ACTIVE_DAYS was left
    out of the workers' deliveries: signing in (a write) brings their trail
    up to date before their first page."""
    trail_catch_up(user=user, wait=True)


@receiver(follow_signals.follows_changing, dispatch_uid="trail.follows_changing")
def on_follows_changing(sender, *, user, **kwargs) -> None:
    """The matches recorded so far become cards under the follows as they
    still are, never under the new ones. The writers' lock is taken alone
    first: the change's back-fill writes the trail too."""
    lock_trail()
    trail_catch_up(user=user, wait=True)


@receiver(follow_signals.follow_matching_changed, dispatch_uid="trail.follow_matching_changed")
def on_follow_matching_changed(sender, *, follow, created, since, **kwargs) -> None:
    """An edited follow's reasons on unread cards are replaced by a fresh
    back-fill; a new follow's back-fill brings the window's papers at once."""
    if not created:
        drop_follow_matches(follow_id=follow.pk, only_unread=True)
    follow_backfill(follow=follow, since=since)


@receiver(follow_signals.follow_deleting, dispatch_uid="trail.follow_deleting")
def on_follow_deleting(sender, *, follow, **kwargs) -> None:
    """The cards only this follow had brought go (dismissals are kept)."""
    drop_follow_matches(follow_id=follow.pk, only_unread=False)


@receiver(follow_signals.author_variant_rejected, dispatch_uid="trail.author_variant_rejected")
def on_author_variant_rejected(sender, *, follow, paper_id, **kwargs) -> None:
    """The follow's reason leaves the paper's card (and a card left without
    reasons leaves the trail)."""
    drop_follow_matches(follow_id=follow.pk, only_unread=False, paper_id=paper_id)


@receiver(follow_signals.exclusion_created, dispatch_uid="trail.exclusion_created")
def on_exclusion_created(sender, *, user, exclusion, **kwargs) -> None:
    """The unread cards a new exclusion covers leave the trail."""
    items = TrailItem.objects.filter(user=user, unread=True, dismissed=False)
    latest = {
        paper_id: (vid, number, at)
        for paper_id, vid, number, at in items.values_list(
            "paper_id", "latest_version_id", "latest_version_number", "latest_event_at"
        )
    }
    if not latest:
        return
    index = DayIndex(papers_facts(latest, set()), fulltext=is_fulltext())
    excluded = [index.papers[i].paper_id for i in index.excluded([ExclusionSpec(exclusion.kind, exclusion.compiled)])]
    if excluded:
        items.filter(paper_id__in=excluded).delete()
