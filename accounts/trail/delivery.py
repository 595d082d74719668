"""A user's cards made from the follow definitions' matches
(accounts.trail.definition_matches) recorded since the user's trail was last
brought up to date. Reads never do this: a worker does it after each matching
task for every reader who may read soon (signed in or used the API within
PAPERTRAIL_TRAIL_ACTIVE_DAYS, or gets email alerts), and so do the reader's
own writes (signing in, a mark, a change of follows). The matches go through
the same trail writers and card rules as any other hits, so a card is the
same whichever way it came.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Subquery

from accounts.activity import recently_active
from accounts.follows.definition import FollowDefinition
from accounts.follows.matching import NEW, REVISION, FollowRules, Hit
from accounts.follows.models import Exclusion, Follow
from accounts.models import User
from accounts.trail.lock import TrailWriteResult, lock_trail
from accounts.trail.models import DefinitionMatch
from accounts.trail.writers import trail_record_hits

_USER_LOCK_CLASS = 0x5054  # "PT": the two-key advisory locks of one user's delivery
DELIVERY_CHUNK = 200  # readers per task: about 40 s of a worker's time


def newest_match_id() -> int:
    return DefinitionMatch.objects.order_by("-id").values_list("id", flat=True).first() or 0


def trail_catch_up(*, user: User, wait: bool = False) -> TrailWriteResult:
    """Make the user's cards from the matches recorded since the last call.
    Cheap when there is nothing new (one query of two indexed reads). Not
    `wait`ing while another trail writer holds the lock (a harvest's matches
    being written), it leaves the trail as it is: the matching task that
    holds the lock queues this user's delivery when it is done."""
    newest_id = DefinitionMatch.objects.order_by("-id").values("id")[:1]
    found = (
        User.objects.filter(pk=user.pk)
        .annotate(newest=Subquery(newest_id))
        .values_list("trail_through", "newest")
        .first()
    )
    if found is None or found[1] is None or found[0] >= found[1]:
        return TrailWriteResult()
    with transaction.atomic():
        # Shared: users are brought up to date side by side; the matches'
        # writer and the other trail writers (back-fills) take it alone.
        if not lock_trail(shared=True, wait=wait):
            return TrailWriteResult()
        _lock_user(user.pk)
        through = User.objects.filter(pk=user.pk).values_list("trail_through", flat=True).get()
        newest = newest_match_id()
        if through >= newest:
            return TrailWriteResult()
        result = trail_record_hits(hits=_hits(user.pk, through, newest), shared=True)
        User.objects.filter(pk=user.pk).update(trail_through=newest)
    user.trail_through = newest
    return result


def trail_catch_up_users(*, user_ids: Iterable[int] | None = None, wait: bool = True) -> TrailWriteResult:
    """Bring these users' trails (every user with a follow) up to date."""
    if user_ids is None:
        user_ids = Follow.objects.order_by("user_id").values_list("user_id", flat=True).distinct()
    total = TrailWriteResult()
    for user in User.objects.filter(pk__in=list(user_ids)).order_by("pk").only("pk", "trail_through"):
        total.add(trail_catch_up(user=user, wait=wait))
    return total


def reader_chunks(*, size: int = DELIVERY_CHUNK) -> Iterator[list[int]]:
    """Users with an unmuted follow who may read their trail soon, `size` at a
    time: those delivered by email, and those who joined, signed in or used an
    API token within PAPERTRAIL_TRAIL_ACTIVE_DAYS. Others' cards are made when
    they sign in again (or at their token's next use, by the next matching)."""
    following = Follow.objects.filter(user=OuterRef("pk"), muted=False)
    readers = (
        User.objects.filter(Exists(following))
        .filter(recently_active() | Exists(following.exclude(delivery=Follow.Delivery.TRAIL)))
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    chunk: list[int] = []
    for user_id in readers.iterator(chunk_size=5000):
        chunk.append(user_id)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _lock_user(user_id: int) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_USER_LOCK_CLASS, user_id])


def _hits(user_id: int, through: int, newest: int) -> list[Hit]:
    """The user's hits among matches (through, newest], under the per-follow
    rules (cross-lists, revisions, "not this person") and the user's
    exclusions; each paper at its newest event of the range, `new` when its
    first version is among them."""
    follows: dict[int, list[tuple[int, FollowRules]]] = defaultdict(list)
    rows = Follow.objects.filter(user_id=user_id, muted=False).values_list(
        "id", "kind", "compiled", "include_cross_lists", "include_revisions", "rejected_paper_ids"
    )
    for follow_id, kind, compiled, cross, revisions, rejected in rows:
        key = FollowDefinition.stored(kind, compiled).key
        follows[key].append((follow_id, FollowRules.of(cross, revisions, rejected)))
    if not follows:
        return []
    excluding = {
        FollowDefinition.of_exclusion(kind, compiled).key
        for kind, compiled in Exclusion.objects.filter(user_id=user_id).values_list("kind", "compiled")
    }
    matches = (
        DefinitionMatch.objects.filter(definition__in=[*follows, *excluding], id__gt=through, id__lte=newest)
        .order_by("id")
        .values_list(
            "definition", "paper_id", "version_id", "version_number", "kind", "event_at", "is_primary", "reason"
        )
    )
    excluded: set[int] = set()
    events: dict[int, tuple] = {}
    arrived: set[int] = set()
    found: list[tuple[int, int, dict]] = []
    for key, paper_id, version_id, number, kind, at, primary, reason in matches:
        if key in excluding:
            excluded.add(paper_id)
        if kind == NEW:
            arrived.add(paper_id)
        known = events.get(paper_id)
        if known is None or (number, at) > (known[1], known[2]):
            events[paper_id] = (version_id, number, at)
        for follow_id, rules in follows.get(key, ()):
            if rules.admits(paper_id=paper_id, event_kind=kind, primary=primary):
                found.append((follow_id, paper_id, reason))
    if excluding and events:
        # An exclusion matched before the range still holds: a topic's matches
        # come after the batch's others, once its papers are embedded.
        earlier = DefinitionMatch.objects.filter(definition__in=excluding, paper_id__in=list(events), id__lte=through)
        excluded.update(earlier.values_list("paper_id", flat=True))
    hits = []
    for follow_id, paper_id, reason in found:
        if paper_id in excluded:
            continue
        version_id, number, at = events[paper_id]
        kind = NEW if paper_id in arrived else REVISION
        hits.append(Hit(user_id, follow_id, paper_id, version_id, number, kind, at, reason))
    # One reason per follow and paper (the newest match's), as the writers expect.
    unique: dict[tuple[int, int], Hit] = {}
    for hit in hits:
        unique[(hit.follow_id, hit.paper_id)] = hit
    return sorted(unique.values(), key=lambda hit: (hit.follow_id, hit.paper_id))
