"""The text of a paper that its embedding reads: the title and the first
words of the abstract. Measured on the real-paper collection (docs/search.md):
title with the abstract's first 60 words ranks as well as the whole abstract
in English and better in Chinese, at a third of the time; the title alone
loses a fifth."""

from __future__ import annotations

import hashlib

LEAD_WORDS = 60


def passage_text(title: str, abstract: str) -> str:
    title = " ".join((title or "").split())
    lead = " ".join((abstract or "").split()[:LEAD_WORDS])
    return f"{title}. {lead}" if lead else title


def text_hash(text: str) -> str:
    """A short fingerprint of the embedded text: a paper whose new version
    changed neither its title nor its abstract's lead keeps its vector."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
