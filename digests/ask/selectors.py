"""Reads of questions and answers: always through their owner (a visitor's
answers have no owner and are never read back)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from digests.models import Ask
from harvest.models import Paper


def ask_list(*, user: Any) -> QuerySet[Ask]:
    """The user's questions, newest first."""
    return Ask.objects.filter(user=user, user__isnull=False).select_related("paper").order_by("-created_at", "-id")


def ask_get(*, user: Any, ask_id: int) -> Ask | None:
    """One of the user's questions, or None (another user's is None too)."""
    if not getattr(user, "is_authenticated", False):
        return None
    return Ask.objects.filter(pk=ask_id, user=user).select_related("paper", "thread").first()


def thread_of(ask: Ask) -> list[Ask]:
    """The thread `ask` belongs to, its first question first (one query)."""
    root_id = ask.thread_id or ask.pk
    return list(Ask.objects.filter(Q(pk=root_id) | Q(thread_id=root_id), user_id=ask.user_id).order_by("id"))


def ask_papers(ask: Ask) -> list[Paper]:
    """The papers an answer drew on, in the order they were retrieved (one query)."""
    ids = list(dict.fromkeys(item["arxiv_id"] for item in ask.retrieved))
    papers = Paper.objects.in_bulk(ids, field_name="arxiv_id")
    return [papers[arxiv_id] for arxiv_id in ids if arxiv_id in papers]


def cited_arxiv_ids(ask: Ask) -> list[str]:
    """The arXiv ids the answer cites, in order of first citation."""
    return list(
        dict.fromkeys(citation["arxiv_id"] for point in ask.answer.get("points", []) for citation in point["citations"])
    )
