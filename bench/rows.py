"""Rows of the synthetic library, one chunk of papers at a time, in the column
order of the tables bench/data.py copies them into.

Ids are fixed by position so that chunks can be drawn in any order and in
parallel and still give the same library: paper id = index + 1, version id =
paper id * 16 + number, authorship id = paper id * 512 + position, category
row id = paper id * 8 + index, pick id = paper id, reading id = version id.
Each chunk draws from its own generator seeded by (seed, chunk number).
"""

from __future__ import annotations

import bisect
import json
import random
from array import array
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from functools import cached_property

from bench import library
from bench.library import Timeline
from harvest.importance import code_link, venue_acceptance


def columns(names: str) -> tuple[str, ...]:
    """A table's columns in COPY order, written as names separated by white space."""
    return tuple(names.split())


PAPER_COLUMNS = columns(
    """
    id arxiv_id title abstract authors categories primary_category comments journal_ref doi license submitter
    published updated included_at ai_related latest_version version_count code_url venue upvotes
    """
)
VERSION_COLUMNS = columns(
    """
    id paper_id number submitted size source_type title abstract authors comments discovered_at
    """
)
AUTHORSHIP_COLUMNS = ("id", "paper_id", "author_id", "position")
CATEGORY_COLUMNS = ("id", "paper_id", "category", "is_primary")
PICK_COLUMNS = ("id", "paper_id", "source_id", "featured_on", "upvotes", "url", "first_seen_at", "last_seen_at")
READING_COLUMNS = columns(
    """
    id version_id prompt_version status provider model content input_tokens output_tokens cost_usd currency
    created_at written_at error attempts claimed_at
    """
)
PICK_RATE = 0.017  # of AI-related papers since HF_START: about ten a day today
# Papers whose comments link their code (arXiv's CS listing: roughly a fifth of
# AI-related papers, fewer elsewhere), drawn from a generator of their own so
# that every other value stays what the seed gave before.
CODE_RATE_AI = 0.22
CODE_RATE_OTHER = 0.08
BACKFILL_RATE = 0.003  # old papers included after the bootstrap (found through HF or a look-up)
_MINUTE = timedelta(minutes=1)
WORD_SLOTS = 2**22
_WORD_SHIFT = 32 - 22


@dataclass
class World:
    """Everything a chunk needs, built once per process (deterministic)."""

    papers: int
    seed: int
    now: datetime
    daily: float
    ai_categories: frozenset[str]
    hf_source_id: int
    prompt_version: str
    model: str

    @cached_property
    def timeline(self) -> Timeline:
        return Timeline(self.papers, self.now, self.daily)

    @cached_property
    def words(self) -> list[str]:
        return library.vocabulary(self.seed)

    @cached_property
    def word_table(self) -> list[str]:
        """2**22 slots, each word holding slots in proportion to its Zipf
        probability (at least six for the rarest), so that a draw is one
        random index instead of a search of the cumulative weights."""
        cumulative = library.zipf_cumulative(len(self.words))
        total, table, filled = cumulative[-1], [], 0
        for word, mass in zip(self.words, cumulative, strict=True):
            boundary = round(mass / total * WORD_SLOTS)
            table.extend([word] * (boundary - filled))
            filled = boundary
        return table

    @cached_property
    def authors(self) -> list[str]:
        return library.author_names(self.author_count, self.seed)

    @property
    def author_count(self) -> int:
        return max(200, int(self.papers * library.AUTHORS_PER_PAPER_POOL))

    @cached_property
    def author_weights(self) -> list[float]:
        return library.zipf_cumulative(
            self.author_count, offset=max(1.0, self.author_count * library.AUTHOR_OFFSET_SHARE)
        )

    @cached_property
    def bootstrapped(self) -> int:
        """Papers listed before the bootstrap import (they share its inclusion time)."""
        return bisect.bisect_left(range(self.papers), self.timeline.bootstrap, key=self.timeline.inclusion_grid)

    @cached_property
    def month_first_index(self) -> dict[tuple[int, int], int]:
        """First paper index of each month (by listing time), for arXiv id sequence numbers."""
        grid = self.timeline.inclusion_grid
        first: dict[tuple[int, int], int] = {}
        moment = grid(0).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        while moment <= self.now:
            first[(moment.year, moment.month)] = bisect.bisect_left(range(self.papers), moment, key=grid)
            moment = (moment + timedelta(days=32)).replace(day=1)
        return first

    def arxiv_id(self, index: int, listed: datetime, primary: str) -> str:
        month = (listed.year, listed.month)
        sequence = index - self.month_first_index[month] + 1
        yymm = f"{listed.year % 100:02d}{listed.month:02d}"
        if month < (2007, 4) and sequence <= 999:
            return f"{primary.split('.')[0]}/{yymm}{sequence:03d}"
        width = 5 if month >= (2015, 1) else 4
        if sequence >= 10**width:
            raise ValueError(f"more than {10**width - 1} papers in {yymm}: lower --daily or the scale")
        return f"{yymm}.{sequence:0{width}d}"


@dataclass
class Chunk:
    papers: list[tuple] = field(default_factory=list)
    versions: list[tuple] = field(default_factory=list)
    authorships: list[tuple] = field(default_factory=list)
    categories: list[tuple] = field(default_factory=list)
    picks: list[tuple] = field(default_factory=list)
    readings: list[tuple] = field(default_factory=list)
    shape: Counter = field(default_factory=Counter)


_CS_CROSS = {code: weight for code, weight in library.GENERAL_CROSS.items() if code.startswith("cs.")}
_WEIGHTED: dict[int, tuple[list, list[float]]] = {}


def _draw(rng: random.Random, table: dict):
    """A value of one of the constant weight tables (cached by identity)."""
    pair = _WEIGHTED.get(id(table))
    if pair is None:
        pair = _WEIGHTED[id(table)] = library.weighted(table)
    return rng.choices(pair[0], cum_weights=pair[1])[0]


def _author_count(rng: random.Random) -> int:
    keys = list(library.AUTHOR_COUNTS)
    key = _draw(rng, library.AUTHOR_COUNTS)
    previous = keys[keys.index(key) - 1] if keys.index(key) else 0
    return rng.randint(previous + 1, key)


def _categories(rng: random.Random) -> list[str]:
    primary = _draw(rng, library.PRIMARY)
    codes = [primary]
    neighbours = library.NEIGHBOURS.get(primary, library.GENERAL_CROSS)
    for _ in range(_draw(rng, library.CROSS_COUNTS)):
        table = neighbours if rng.random() < 0.8 else library.GENERAL_CROSS
        code = _draw(rng, table)
        if code not in codes:
            codes.append(code)
    if not any(code.startswith("cs.") for code in codes):
        codes.append(_draw(rng, _CS_CROSS))
    return codes


def _sentences(words: list[str]) -> str:
    parts = []
    for start in range(0, len(words), 19):
        sentence = " ".join(words[start : start + 19])
        parts.append(sentence[:1].upper() + sentence[1:] + ".")
    return " ".join(parts)


class ChunkWriter:
    def __init__(self, world: World, number: int, start: int, stop: int) -> None:
        self.world, self.start, self.stop = world, start, stop
        self.rng = random.Random(f"{world.seed}:chunk:{number}")
        self.signals = random.Random(f"{world.seed}:signals:{number}")

    def words(self, count: int) -> list[str]:
        table = self.world.word_table
        return [table[draw >> _WORD_SHIFT] for draw in array("I", self.rng.randbytes(4 * count))]

    def rows(self) -> Chunk:
        chunk = Chunk()
        for index in range(self.start, self.stop):
            self.paper(index, chunk)
        return chunk

    def paper(self, index: int, chunk: Chunk) -> None:
        world, rng = self.world, self.rng
        timeline = world.timeline
        paper_id = index + 1
        listed = timeline.inclusion_grid(index)
        published = listed - timedelta(seconds=rng.uniform(600, 6 * 3600))
        if index < world.bootstrapped:
            included = timeline.bootstrap + timedelta(hours=3) * (index / max(world.bootstrapped, 1))
            if rng.random() < BACKFILL_RATE:
                included = timeline.bootstrap + (world.now - timeline.bootstrap) * rng.random()
                chunk.shape["backfilled"] += 1
        else:
            included = listed
        categories = _categories(rng)
        ai = not world.ai_categories.isdisjoint(categories)
        arxiv_id = world.arxiv_id(index, listed, categories[0])
        names = self.author_names()
        title_words = self.words(min(30, max(3, int(rng.gauss(10, 3.5)))))
        title = " ".join(title_words)
        title = title[:1].upper() + title[1:]
        abstract = _sentences(self.words(min(320, max(30, int(rng.gauss(165, 55))))))
        comments = self.code_comment(self.comments(), ai)
        versions = self.version_dates(published, included)
        for number, (submitted, discovered) in enumerate(versions, start=1):
            latest = number == len(versions)
            if latest:
                text = (title, abstract, ", ".join(names), comments)
            elif discovered > timeline.bootstrap:
                text = self.earlier_text(title, abstract, names, comments)
            else:
                text = ("", "", "", "")
            version_id = paper_id * 16 + number
            size = f"{rng.randint(60, 6000)}kb"
            chunk.versions.append((version_id, paper_id, number, submitted, size, "D", *text, discovered))
            if ai and discovered >= world.now - timedelta(days=library.READINGS_DAYS):
                self.reading(version_id, discovered, chunk)
        row = (
            paper_id,
            arxiv_id,
            title,
            abstract,
            json.dumps(names),
            json.dumps(categories),
            categories[0],
            comments,
            self.journal_ref(),
            self.doi(arxiv_id),
            _draw(rng, library.LICENSES),
            names[0],
            published,
            versions[-1][0],
            included,
            ai,
            len(versions),
            len(versions),
        )
        for position, author in enumerate(self._author_ids):
            chunk.authorships.append((paper_id * 512 + position, paper_id, author + 1, position))
        for position, code in enumerate(categories):
            chunk.categories.append((paper_id * 8 + position, paper_id, code, position == 0))
        upvotes = 0
        if ai and published >= library.HF_START and rng.random() < PICK_RATE:
            upvotes = self.pick(paper_id, arxiv_id, published, included, chunk)
        # The signals as ingest stores them (harvest/importance.py reads the same text).
        chunk.papers.append((*row, code_link(abstract, comments), venue_acceptance(comments), upvotes))
        chunk.shape["code_links"] += bool(chunk.papers[-1][-3])
        chunk.shape["venues"] += bool(chunk.papers[-1][-2])
        shape = chunk.shape
        shape[f"versions:{len(versions)}"] += 1
        shape[f"cross_lists:{len(categories) - 1}"] += 1
        shape["ai_related"] += ai
        shape["revised"] += len(versions) > 1
        shape["cs_primary"] += categories[0].startswith("cs.")
        for code in categories:
            shape[f"category:{code}"] += 1
            shape[f"category_cs_primary:{code}"] += categories[0].startswith("cs.")

    def author_names(self) -> list[str]:
        world, rng = self.world, self.rng
        wanted = min(_author_count(rng), world.author_count)
        chosen: dict[int, None] = {}
        total = world.author_weights[-1]
        while len(chosen) < wanted:
            chosen.setdefault(bisect.bisect_left(world.author_weights, rng.random() * total), None)
        self._author_ids = list(chosen)
        return [world.authors[i] for i in chosen]

    def version_dates(self, published: datetime, included: datetime) -> list[tuple[datetime, datetime]]:
        """(submitted, discovered_at) of each version that exists by now."""
        rng, now = self.rng, self.world.now
        dates = [(published, included)]
        submitted = published
        for number in range(2, _draw(rng, library.VERSIONS) + 1):
            submitted = submitted + timedelta(days=max(1.0, rng.expovariate(1 / (20 + 25 * number))))
            discovered = included if submitted <= included else submitted + timedelta(seconds=rng.uniform(600, 21_600))
            if discovered >= now:
                break
            dates.append((submitted, discovered))
        return dates

    def earlier_text(self, title: str, abstract: str, names: list[str], comments: str) -> tuple:
        rng = self.rng
        words = abstract.split(" ")
        for _ in range(3):
            words[rng.randrange(len(words))] = self.words(1)[0]
        if rng.random() < 0.3:
            title = f"{title} {self.words(1)[0]}"
        authors = names[:-1] if len(names) > 1 and rng.random() < 0.1 else names
        return title, " ".join(words), ", ".join(authors), comments.replace("pages", "pages (draft)")

    def comments(self) -> str:
        rng, draw = self.rng, self.rng.random()
        if draw < 0.6:
            return f"{rng.randint(4, 40)} pages, {rng.randint(1, 15)} figures"
        if draw < 0.75:
            return f"Accepted at {rng.choice(library.VENUES)} {rng.randint(2008, 2026)}"
        return ""

    def code_comment(self, comments: str, ai: bool) -> str:
        """The comments with a GitHub link added, for some papers (as arXiv's
        real comments give one: "Code: https://github.com/<owner>/<repo>")."""
        signals = self.signals
        if signals.random() >= (CODE_RATE_AI if ai else CODE_RATE_OTHER):
            return comments
        owner = signals.choice(self.world.authors).split()[-1].lower()
        link = f"Code: https://github.com/{owner}/{signals.choice(self.world.words)}"
        return f"{comments}. {link}" if comments else link

    def journal_ref(self) -> str:
        rng = self.rng
        return f"{rng.choice(library.VENUES)} {rng.randint(2008, 2026)}" if rng.random() < 0.12 else ""

    def doi(self, arxiv_id: str) -> str:
        if self.rng.random() >= 0.18:
            return ""
        return f"10.{self.rng.randint(1000, 99999)}/{arxiv_id.replace('/', '.')}"

    def pick(self, paper_id: int, arxiv_id: str, published: datetime, included: datetime, chunk: Chunk) -> int:
        """A Hugging Face pick of the paper; its upvotes (0 when none is made)."""
        rng, now = self.rng, self.world.now
        featured = (published + timedelta(days=rng.randint(1, 3))).date()
        if featured > now.date():
            return 0
        seen = max(included, datetime.combine(featured, time(6), tzinfo=UTC) + timedelta(hours=rng.uniform(0, 12)))
        seen = min(seen, now - _MINUTE)
        last = min(now - _MINUTE, seen + timedelta(hours=rng.uniform(0, 48)))
        upvotes = int(rng.lognormvariate(2.3, 1.1))
        url = f"https://huggingface.co/papers/{arxiv_id}"
        chunk.picks.append((paper_id, paper_id, self.world.hf_source_id, featured, upvotes, url, seen, last))
        chunk.shape["picks"] += 1
        return upvotes

    def reading(self, version_id: int, discovered: datetime, chunk: Chunk) -> None:
        rng, world = self.rng, self.world
        draw = rng.random()
        written = discovered + timedelta(minutes=rng.uniform(2, 90))
        if draw < 0.05 or written >= world.now:
            row = ("pending", "", {}, 0, 0, Decimal(0), None, "", 0, None)
        elif draw < 0.08:
            row = ("failed", world.model, {}, 0, 0, Decimal(0), None, "overloaded_error: retries exhausted", 3, written)
        else:
            content = {lang: self.reading_text(lang) for lang in ("zh", "en")}
            tokens_in, tokens_out = rng.randint(500, 1600), rng.randint(350, 900)
            cost = Decimal(tokens_in * 3 + tokens_out * 15) / Decimal(1_000_000)
            row = ("done", world.model, content, tokens_in, tokens_out, cost, written, "", 1, written - _MINUTE)
        status, model, content, tokens_in, tokens_out, cost, written_at, error, attempts, claimed = row
        chunk.readings.append(
            (
                version_id,
                version_id,
                world.prompt_version,
                status,
                "anthropic" if model else "",
                model,
                json.dumps(content),
                tokens_in,
                tokens_out,
                cost,
                "$",
                discovered,
                written_at,
                error,
                attempts,
                claimed,
            )
        )
        chunk.shape[f"readings:{status}"] += 1

    def reading_text(self, lang: str) -> dict[str, str]:
        prefix = "本文" if lang == "zh" else ""
        sections = {"takeaway": 14, "problem": 30, "method": 35, "results": 30, "limitations": 20, "changes": 0}
        return {name: (prefix + _sentences(self.words(n)) if n else "") for name, n in sections.items()}
