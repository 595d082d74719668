"""The trail's reactions to other apps' and domains' signals (connected in
AccountsConfig.ready): a harvest's new versions are matched in a task; a
change of what a follow matches starts it anew with a back-fill, in the same
transaction: one signal from follows, one call back
(follows.services.follow_matching_start), whose hits the trail stores."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.follows import signals as follow_signals
from accounts.follows.selectors import excluded_paper_ids, topic_follows_exist
from accounts.follows.services import follow_matching_start
from accounts.models import User
from accounts.trail import tasks
from accounts.trail.composition import CardFilter
from accounts.trail.definition_matches import newest_match_id
from accounts.trail.lock import lock_trail
from accounts.trail.models import TrailProfile, TrailState
from accounts.trail.readers import Reader, forget_readers
from accounts.trail.services import reader_matches_add, reader_matches_drop
from accounts.trail.windows import all_cards
from harvest.signals import versions_created, versions_embedded


@receiver(post_save, sender=User, dispatch_uid="trail.user_created")
def on_user_created(sender, instance: User, created: bool, raw: bool = False, **kwargs) -> None:
    """Every account has its trail profile from the start, so that pages only read it."""
    if created and not raw:
        TrailProfile.objects.get_or_create(user=instance)


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
    if ids and topic_follows_exist():
        transaction.on_commit(lambda: tasks.match_topic_versions.delay(ids))


@receiver(follow_signals.follows_changing, dispatch_uid="trail.follows_changing")
def on_follows_changing(sender, *, user, **kwargs) -> None:
    """An exclusion's change is made under the writers' lock, never halfway
    through a batch's matching."""
    lock_trail()
    forget_readers(user.pk)


@receiver(follow_signals.follow_matching_changed, dispatch_uid="trail.follow_matching_changed")
def on_follow_matching_changed(sender, *, follow, created, since, **kwargs) -> None:
    """A new or edited follow shows the definition matches recorded from now
    on, and its back-fill what it would have matched since `since` (an edited
    follow's earlier back-fill goes), both decided under the writers' lock,
    never halfway through a batch's matching."""
    lock_trail()
    forget_readers(follow.user_id)
    if not created:
        reader_matches_drop(follow_id=follow.pk)
    reader_matches_add(hits=follow_matching_start(follow=follow, after_match_id=newest_match_id(), since=since))


@receiver(follow_signals.author_variant_rejected, dispatch_uid="trail.author_variant_rejected")
def on_author_variant_rejected(sender, *, follow, paper_id, **kwargs) -> None:
    """The follow's back-filled match of the paper goes (its rules take the
    definition's matches out; a card left without reasons leaves the trail)."""
    forget_readers(follow.user_id)
    reader_matches_drop(follow_id=follow.pk, paper_id=paper_id)


@receiver(follow_signals.exclusion_created, dispatch_uid="trail.exclusion_created")
def on_exclusion_created(sender, *, user, exclusion, **kwargs) -> None:
    """The unread cards a new exclusion covers leave the trail (the matches
    recorded from now on are excluded as they come)."""
    forget_readers(user.pk)
    cards = {card.paper_id: card for card in all_cards(Reader.of(user.pk), CardFilter(unread_only=True))}
    if not cards:
        return
    latest = {card.paper_id: (card.version_id, card.version_number, card.event_at) for card in cards.values()}
    for paper_id in excluded_paper_ids(exclusion=exclusion, latest=latest):
        TrailState.objects.update_or_create(user=user, paper_id=paper_id, defaults={"excluded": True})
