"""The follows bench's readers: `users` users with 10 category, 10 author and
10 query follows each, drawn from a seed against the bench library (run after
django.setup(), on its database).

- categories: a home category drawn by arXiv's popularity (bench.library
  PRIMARY, the listing's own weights), then the rest drawn from the home's
  neighbours and, less often, the whole listing by popularity: most readers
  follow a cluster of fine categories around their field; 2 % swap one code
  for a whole archive (eess, stat, math, or rarely cs); 15 % of category
  follows leave out cross-lists, 20 % of all follows leave out revisions;
- authors: drawn from the library's authorships (so an author is followed in
  proportion to their papers), under the name the library stores;
- queries: one to three words of the library's own vocabulary, drawn with its
  Zipf law among words longer than three letters that are not function words,
  5 % each a phrase, an OR of two words, or a word with another excluded;
- 3 % of the users exclude one category.

Follows are compiled by the services' own compile_value (queries by
PostgreSQL's websearch_to_tsquery) and written by COPY; the users are named
`USER_PREFIX` + number so that the bench can find and remove them.
"""

from __future__ import annotations

import bisect
import json
import random
from dataclasses import dataclass, field
from itertools import accumulate

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from accounts.follows.definition import compile_value
from accounts.models import User
from bench import library

USER_PREFIX = "bench-follows-"
CATEGORIES, AUTHORS, QUERIES = 10, 10, 10
ARCHIVES = {"eess": 4, "stat": 4, "math": 2, "cs": 1}
SHARE_ARCHIVE = 0.02
SHARE_NO_CROSS_LISTS = 0.15
SHARE_NO_REVISIONS = 0.20
SHARE_EXCLUDING = 0.03
QUERY_FORMS = ((0.05, "phrase"), (0.10, "or"), (0.15, "not"))  # cumulative shares; the rest plain words


@dataclass
class Drawn:
    users: int = 0
    follows: dict[str, int] = field(default_factory=dict)
    exclusions: int = 0
    distinct_definitions: dict[str, int] = field(default_factory=dict)


class _Weighted:
    def __init__(self, values: list, weights: list[float]) -> None:
        self.values, self.cumulative = values, list(accumulate(weights))

    def draw(self, rng: random.Random):
        return self.values[bisect.bisect_left(self.cumulative, rng.random() * self.cumulative[-1])]


def _categories(rng: random.Random, popular: _Weighted) -> list[str]:
    home = popular.draw(rng)
    near = library.NEIGHBOURS.get(home, library.GENERAL_CROSS)
    around = _Weighted(list(near), list(near.values()))
    chosen = [home]
    while len(chosen) < CATEGORIES:
        code = around.draw(rng) if rng.random() < 0.5 else popular.draw(rng)
        if code not in chosen:
            chosen.append(code)
    if rng.random() < SHARE_ARCHIVE:
        archives = _Weighted(list(ARCHIVES), list(ARCHIVES.values()))
        archive = archives.draw(rng)
        if archive not in chosen:
            chosen[-1] = archive
    return chosen


def _query(rng: random.Random, words: _Weighted) -> str:
    picked = [words.draw(rng) for _ in range(rng.choice((1, 1, 1, 2, 2, 3)))]
    form = rng.random()
    if form < QUERY_FORMS[0][0]:
        return f'"{words.draw(rng)} {words.draw(rng)}"'
    if form < QUERY_FORMS[1][0]:
        return f"{words.draw(rng)} or {words.draw(rng)}"
    if form < QUERY_FORMS[2][0]:
        return f"{words.draw(rng)} -{words.draw(rng)}"
    return " ".join(dict.fromkeys(picked))


def _vocabulary(seed: int) -> _Weighted:
    ranked = library.vocabulary(seed)
    skip = set(library.FUNCTION_WORDS)
    chosen = [(word, 1.0 / rank) for rank, word in enumerate(ranked, start=1) if word not in skip and len(word) > 3]
    return _Weighted([w for w, _ in chosen], [p for _, p in chosen])


def _authors() -> _Weighted:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.name, s.n FROM (SELECT author_id, count(*) AS n FROM harvest_authorship GROUP BY author_id) s "
            "JOIN harvest_author a ON a.id = s.author_id ORDER BY a.id"
        )
        rows = cursor.fetchall()
    return _Weighted([name for name, _ in rows], [n for _, n in rows])


def build_follows(*, users: int, seed: int, library_seed: int) -> Drawn:
    """Draw and store the users, their follows and exclusions (reproducible
    from `seed`, against the library's own authors and vocabulary)."""
    rng = random.Random(f"{seed}:follows")
    popular = _Weighted(list(library.PRIMARY), list(library.PRIMARY.values()))
    words, authors = _vocabulary(library_seed), _authors()
    compiled: dict[tuple[str, str], tuple[dict, dict] | None] = {}

    def compile_once(kind: str, key: str, value: dict) -> tuple[dict, dict] | None:
        if (kind, key) not in compiled:
            try:
                compiled[(kind, key)] = compile_value(kind, value)
            except ValidationError:  # a drawn query with no searchable word is drawn again
                compiled[(kind, key)] = None
        return compiled[(kind, key)]

    now = timezone.now()
    drawn = Drawn(users=users, follows={"category": 0, "author": 0, "query": 0})
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(max(id), 0) FROM accounts_user")
        first_id = cursor.fetchone()[0] + 1
        with cursor.copy(
            "COPY accounts_user (id, password, is_superuser, username, first_name, last_name, email, is_staff, "
            "is_active, date_joined, language, time_zone) FROM STDIN"
        ) as copy:
            for number in range(users):
                copy.write_row(
                    (
                        first_id + number,
                        "!",
                        False,
                        f"{USER_PREFIX}{number:06d}",
                        "",
                        "",
                        "",
                        False,
                        True,
                        now,
                        User._meta.get_field("language").default,
                        User._meta.get_field("time_zone").default,
                    )
                )
        follow_rows, exclusion_rows = [], []
        for number in range(users):
            user_id = first_id + number
            codes = _categories(rng, popular)
            for position, code in enumerate(codes):
                # A code the library holds no paper of is not followable: drawn again.
                while (found := compile_once("category", code, {"code": code})) is None or code in codes[:position]:
                    code = codes[position] = popular.draw(rng)
                value, spec = found
                cross = rng.random() >= SHARE_NO_CROSS_LISTS
                follow_rows.append((user_id, "category", code, value, spec, cross, rng.random() >= SHARE_NO_REVISIONS))
            names: list[str] = []
            while len(names) < AUTHORS:
                name = authors.draw(rng)
                if name not in names:
                    names.append(name)
            for name in names:
                value, spec = compile_once("author", name, {"author": name})
                follow_rows.append((user_id, "author", name, value, spec, True, rng.random() >= SHARE_NO_REVISIONS))
            queries = 0
            while queries < QUERIES:
                text = _query(rng, words)
                found = compile_once("query", text, {"q": text})
                if found is None:
                    continue
                queries += 1
                follow_rows.append((user_id, "query", text, *found, True, rng.random() >= SHARE_NO_REVISIONS))
            if rng.random() < SHARE_EXCLUDING:
                code = popular.draw(rng)
                found = compile_once("category", code, {"code": code})
                if found is not None:
                    exclusion_rows.append((user_id, "category", code, json.dumps(found[1]), now))
        with cursor.copy(
            "COPY accounts_follow (user_id, kind, name, value, compiled, rejected_paper_ids, include_cross_lists, "
            "include_revisions, muted, delivery, created_at, updated_at) FROM STDIN"
        ) as copy:
            for user_id, kind, name, value, spec, cross, revisions in follow_rows:
                drawn.follows[kind] += 1
                copy.write_row(
                    (
                        user_id,
                        kind,
                        name,
                        json.dumps(value),
                        json.dumps(spec),
                        "[]",
                        cross,
                        revisions,
                        False,
                        "trail",
                        now,
                        now,
                    )
                )
        with cursor.copy("COPY accounts_exclusion (user_id, kind, value, compiled, created_at) FROM STDIN") as copy:
            for row in exclusion_rows:
                copy.write_row(row)
        drawn.exclusions = len(exclusion_rows)
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('accounts_user', 'id'), (SELECT max(id) FROM accounts_user))"
        )
        cursor.execute("ANALYZE accounts_user, accounts_follow, accounts_exclusion")
    for kind in ("category", "author", "query"):
        drawn.distinct_definitions[kind] = len({row[2] for row in follow_rows if row[1] == kind})
    return drawn


def remove_bench_users() -> dict[str, int]:
    """Remove the bench's users and everything of theirs: TRUNCATE when no one
    else holds trail rows (instant), else DELETE by user."""
    pattern = USER_PREFIX.replace("-", "\\-") + "%"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT min(id), max(id), count(*) FROM accounts_user WHERE username LIKE %s", [pattern])
        low, high, count = cursor.fetchone()
        if not count:
            return {"users": 0}
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM accounts_trailstate WHERE user_id NOT BETWEEN %s AND %s) "
            "OR EXISTS (SELECT 1 FROM accounts_follow WHERE user_id IS NULL OR user_id NOT BETWEEN %s AND %s) "
            "OR EXISTS (SELECT 1 FROM accounts_readermatch WHERE user_id IS NULL) "
            "OR EXISTS (SELECT 1 FROM accounts_channel WHERE user_id IS NULL OR user_id NOT BETWEEN %s AND %s) "
            "OR (SELECT count(*) FROM accounts_user WHERE id BETWEEN %s AND %s) <> %s",
            [low, high, low, high, low, high, low, high, count],
        )
        (shared,) = cursor.fetchone()
        if shared:
            # A group's follows and channels have no user (their rows stay); a bench user's channel goes.
            cursor.execute(
                "DELETE FROM accounts_channelsend WHERE channel_id IN "
                "(SELECT id FROM accounts_channel WHERE user_id BETWEEN %s AND %s)",
                [low, high],
            )
            for table in (
                "accounts_channel",
                "accounts_readermatch",
                "accounts_trailstate",
                "accounts_trailprofile",
                "accounts_trailreadmark",
                "accounts_alertunsubscribe",
                "accounts_follow",
                "accounts_exclusion",
            ):
                cursor.execute(f"DELETE FROM {table} WHERE user_id BETWEEN %s AND %s", [low, high])  # noqa: S608
        else:
            # Foreign-key checks still pending in this transaction would refuse the TRUNCATE.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(
                "TRUNCATE accounts_readermatch, accounts_trailstate, accounts_trailprofile, accounts_trailreadmark, "
                "accounts_alertunsubscribe, accounts_channelsend, accounts_channel, accounts_follow, accounts_exclusion"
            )
        cursor.execute("DELETE FROM accounts_user WHERE id BETWEEN %s AND %s", [low, high])
    return {"users": count}
