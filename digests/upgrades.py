"""Readings written from the abstract, written again once from the full text
when it arrives (harvest's `full_text_stored` signal, digests/receivers.py).

The abstract reading stays on the pages while its upgrade waits and runs:
the upgrade is claimed on its own column (wanted -> running, one
conditional UPDATE) and replaces the content only when the new reading has
passed every check. Paid once: an upgrade that fails (two invalid replies)
is not tried again; one that waits for budget or a provider keeps its place
for the backlog run.

A full-text reading whose version's text is read again and now differs
from the text it was sent (its `text_hash`) is marked stale and written
again the same way, once: a second change only marks it stale.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from digests.models import GuidedReading
from digests.providers import registry
from digests.providers.base import Provider
from digests.selectors import current_prompt_version, is_configured, pause_state
from digests.services import (
    Outcome,
    Stop,
    compose_reading,
    reading_input,
    readings_provider,
    stale_before,
    stored_fields,
)
from digests.signals import reading_stored, upgrades_pending
from harvest.fulltext.models import FullText
from harvest.models import Version

logger = logging.getLogger(__name__)

Upgrade = GuidedReading.Upgrade


def versions_ready(version_ids: Iterable[int]) -> list[int]:
    """The versions whose full text just arrived and the revisions after
    them that have theirs, but for a revision whose previous version's text
    is still on its way: its upgrade waits for it, so what changed is a diff."""
    arrived = list(Version.objects.filter(id__in=list(version_ids)).values_list("paper_id", "number"))
    if not arrived:
        return []
    same_or_next = Q()
    for paper_id, number in arrived:
        same_or_next |= Q(paper_id=paper_id, number__in=(number, number + 1))
    candidates = list(
        Version.objects.filter(same_or_next, full_text__status=FullText.Status.DONE).values_list(
            "id", "paper_id", "number"
        )
    )
    on_the_way = {FullText.Status.WAITING, FullText.Status.FETCHING}
    waiting = set(
        FullText.objects.filter(
            version__paper_id__in={p for _id, p, _n in candidates}, status__in=on_the_way
        ).values_list("version__paper_id", "version__number")
    )
    return [vid for vid, paper_id, number in candidates if (paper_id, number - 1) not in waiting]


@transaction.atomic
def readings_upgrade_for_versions(*, version_ids: Iterable[int]) -> list[int]:
    """The done abstract readings (current prompt) of these versions, marked
    for an upgrade and, after commit, sent to the queue."""
    if not is_configured():
        return []
    wanted = GuidedReading.objects.filter(
        version_id__in=list(version_ids),
        prompt_version=current_prompt_version(),
        status=GuidedReading.Status.DONE,
        source=GuidedReading.Source.ABSTRACT,
        upgrade=Upgrade.NONE,
    )
    ids = list(wanted.values_list("id", flat=True))
    if ids:
        GuidedReading.objects.filter(id__in=ids, upgrade=Upgrade.NONE).update(upgrade=Upgrade.WANTED)
        transaction.on_commit(lambda: upgrades_pending.send(sender=GuidedReading, reading_ids=ids))
    return ids


@transaction.atomic
def readings_mark_stale(*, version_ids: Iterable[int]) -> list[int]:
    """The done full-text readings (current prompt) of these versions whose
    text to send now differs from the one they were sent: marked stale, and
    those not re-read before marked for an upgrade and, after commit, queued."""
    readings = GuidedReading.objects.select_related("version__paper").filter(
        version_id__in=list(version_ids),
        prompt_version=current_prompt_version(),
        status=GuidedReading.Status.DONE,
        source=GuidedReading.Source.FULL_TEXT,
        stale=False,
    )
    stale = []
    for reading in readings.exclude(text_hash=""):
        prepared = reading_input(reading.version)
        if prepared is None or prepared.text_hash != reading.text_hash:
            stale.append(reading.pk)
    if not stale:
        return []
    GuidedReading.objects.filter(id__in=stale).update(stale=True)
    again = GuidedReading.objects.filter(id__in=stale, reread=False, upgrade__in=(Upgrade.NONE, Upgrade.DONE))
    ids = list(again.values_list("id", flat=True))
    if ids and is_configured():
        again.update(upgrade=Upgrade.WANTED)
        transaction.on_commit(lambda: upgrades_pending.send(sender=GuidedReading, reading_ids=ids))
    return stale


def upgrade_backlog() -> list[int]:
    """Upgrades left running by a vanished worker go back to wanted; the wanted ones."""
    GuidedReading.objects.filter(upgrade=Upgrade.RUNNING, claimed_at__lt=stale_before()).update(
        upgrade=Upgrade.WANTED, claimed_at=None
    )
    wanted = GuidedReading.objects.filter(upgrade=Upgrade.WANTED, status=GuidedReading.Status.DONE)
    return list(wanted.order_by("id").values_list("id", flat=True))


def _claim(reading_id: int) -> bool:
    return (
        GuidedReading.objects.filter(Q(upgrade=Upgrade.WANTED), pk=reading_id, status=GuidedReading.Status.DONE).update(
            upgrade=Upgrade.RUNNING, claimed_at=timezone.now()
        )
        == 1
    )


def _set(reading_id: int, upgrade: str, **fields) -> None:
    GuidedReading.objects.filter(pk=reading_id, upgrade=Upgrade.RUNNING).update(
        upgrade=upgrade, claimed_at=None, **fields
    )


def reading_upgrade(*, reading_id: int, provider: Provider | None = None) -> Outcome:
    """Write the wanted upgrade of one reading if this worker wins its claim."""
    if not is_configured():
        return Outcome.NOT_CONFIGURED
    if pause_state()[0]:
        return Outcome.PAUSED
    if not _claim(reading_id):
        return Outcome.SKIPPED
    reading = GuidedReading.objects.select_related("version__paper").get(pk=reading_id)
    prepared = reading_input(reading.version)
    if prepared is None or prepared.source != GuidedReading.Source.FULL_TEXT:
        _set(reading_id, Upgrade.NONE)  # no full text after all: a later arrival may ask again
        return Outcome.SKIPPED
    provider = provider or readings_provider()
    try:
        written = compose_reading(reading, prepared, provider)
    except Stop as stop:
        _set(reading_id, Upgrade.FAILED if stop.outcome == Outcome.FAILED else Upgrade.WANTED)
        logger.warning("upgrade of reading %s: %s (%s)", reading_id, stop.outcome, stop.detail)
        return stop.outcome
    except Exception:
        _set(reading_id, Upgrade.WANTED)
        raise
    name, reply = provider.config.name, written.reply
    fields = stored_fields(
        content=written.content,
        checked=written.checked,
        numbers_removed=written.numbers_removed,
        language_removed=written.language_removed,
        text_hash=prepared.text_hash,
    )
    _set(
        reading_id,
        Upgrade.DONE,
        **fields,
        reread=reading.reread or reading.source == GuidedReading.Source.FULL_TEXT,
        provider=name,
        model=reply.model,
        currency=registry.provider_config(name).currency,
        input_tokens=F("input_tokens") + reply.input_tokens,
        output_tokens=F("output_tokens") + reply.output_tokens,
        cost_usd=F("cost_usd") + written.cost,
        written_at=timezone.now(),
    )
    transaction.on_commit(lambda: reading_stored.send(sender=GuidedReading, reading_id=reading_id))
    return Outcome.DONE
