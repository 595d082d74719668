"""The alerts bench's readers: `users` users with 20 follows each (10 daily,
5 weekly, 5 trail only) and one announcement day's trail, written by COPY
(not through the matcher: bench/follows.py measures that) and ANALYZEd.

Each follow matches a number of the day's papers drawn from a seed: a
category follow 5 to 25 (daily ones four per reader), an author follow one
paper three times in ten, a query follow 0 to 10; so a daily alert holds
about 70 papers and the day's trail about 170 matches per reader. The day
is the library's newest `pool` versions; a card's event time is within
the three hours before the run. Users are named `USER_PREFIX` + number
(address USER_PREFIX + number @example.org), 70 % Chinese, 30 % English."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

USER_PREFIX = "bench-alerts-"
TIME_ZONES = ("Asia/Shanghai", "Asia/Shanghai", "Asia/Shanghai", "Europe/Berlin", "America/New_York")
# (delivery, kind, how many, matches drawn as (low, high) or a probability of one)
PLAN = (
    ("daily", "category", 4, (5, 25)),
    ("daily", "author", 3, 0.3),
    ("daily", "query", 3, (0, 10)),
    ("weekly", "category", 2, (5, 25)),
    ("weekly", "query", 3, (0, 10)),
    ("trail", "category", 2, (5, 25)),
    ("trail", "query", 3, (0, 10)),
)


@dataclass
class Built:
    users: int = 0
    follows: int = 0
    items: int = 0
    matches: int = 0
    daily_matches: int = 0


def _day_pool(size: int) -> list[tuple[int, int, int]]:
    """(version id, paper id, number) of the library's newest versions, one per paper."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, paper_id, number FROM harvest_version ORDER BY discovered_at DESC, id DESC LIMIT %s", [2 * size]
        )
        newest: dict[int, tuple[int, int, int]] = {}
        for row in cursor.fetchall():
            newest.setdefault(row[1], row)
    return list(newest.values())[:size]


def _matches(rng: random.Random, drawn: tuple[int, int] | float) -> int:
    if isinstance(drawn, float):
        return 1 if rng.random() < drawn else 0
    return rng.randint(*drawn)


def _next_id(cursor, table: str) -> int:
    cursor.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}")  # noqa: S608
    return cursor.fetchone()[0]


def build_readers(*, users: int, seed: int, pool: int = 3000) -> Built:
    rng = random.Random(f"{seed}:alerts")
    day = _day_pool(pool)
    now = timezone.now()
    built = Built(users=users)
    with transaction.atomic(), connection.cursor() as cursor:
        first_user = _next_id(cursor, "accounts_user")
        first_follow = _next_id(cursor, "accounts_follow")
        with cursor.copy(
            "COPY accounts_user (id, password, is_superuser, username, first_name, last_name, email, is_staff, "
            "is_active, date_joined, language, time_zone) FROM STDIN"
        ) as copy:
            for number in range(users):
                name = f"{USER_PREFIX}{number:06d}"
                language = "zh-hans" if rng.random() < 0.7 else "en"
                copy.write_row(
                    (
                        first_user + number,
                        "!",
                        False,
                        name,
                        "",
                        "",
                        f"{name}@example.org",
                        False,
                        True,
                        now,
                        language,
                        rng.choice(TIME_ZONES),
                    )
                )
        follows: list[tuple[int, int, str, str, str]] = []  # (id, user, kind, name, delivery)
        draws: list[list[int]] = []
        for number in range(users):
            for delivery, kind, count, matches in PLAN:
                for _ in range(count):
                    follows.append(
                        (first_follow + len(follows), first_user + number, kind, f"{kind} {len(follows)}", delivery)
                    )
                    draws.append(rng.sample(range(len(day)), min(len(day), _matches(rng, matches))))
        with cursor.copy(
            "COPY accounts_follow (id, user_id, kind, name, value, compiled, rejected_paper_ids, include_cross_lists, "
            "include_revisions, muted, delivery, created_at, updated_at) FROM STDIN"
        ) as copy:
            for follow_id, user_id, kind, name, delivery in follows:
                copy.write_row(
                    (
                        follow_id,
                        user_id,
                        kind,
                        name,
                        json.dumps({"bench": name}),
                        "{}",
                        "[]",
                        True,
                        True,
                        False,
                        delivery,
                        now,
                        now,
                    )
                )
        built.follows = len(follows)
        # Cards: one per (user, paper) with the follows that matched it.
        cards: dict[tuple[int, int], list[int]] = {}
        for (follow_id, user_id, *_), picked in zip(follows, draws, strict=True):
            for index in picked:
                cards.setdefault((user_id, index), []).append(follow_id)
        delivery_of = {follow[0]: follow[4] for follow in follows}
        events = {key: now - timedelta(seconds=rng.randint(60, 3 * 3600)) for key in cards}
        # The day as each reader's own matches (what the alerts read is the
        # composed trail; ReaderMatch rows stand in for matched definitions).
        with cursor.copy(
            "COPY accounts_readermatch (user_id, follow_id, paper_id, version_id, version_number, kind, event_at, "
            "reason, created_at) FROM STDIN"
        ) as copy:
            for (user_id, index), follow_ids in cards.items():
                version_id, paper_id, number = day[index]
                for follow_id in follow_ids:
                    copy.write_row(
                        (
                            user_id,
                            follow_id,
                            paper_id,
                            version_id,
                            number,
                            "new" if number == 1 else "revision",
                            events[(user_id, index)],
                            "{}",
                            now,
                        )
                    )
                    built.matches += 1
                    built.daily_matches += delivery_of[follow_id] == "daily"
        built.items = len(cards)
        for table in ("accounts_user", "accounts_follow"):
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"  # noqa: S608
            )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_user, accounts_follow, accounts_readermatch")
    return built


def remove_readers() -> dict[str, int]:
    """Remove the bench's users and everything of theirs, by id range."""
    pattern = USER_PREFIX.replace("-", "\\-") + "%"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT min(id), max(id), count(*) FROM accounts_user WHERE username LIKE %s", [pattern])
        low, high, count = cursor.fetchone()
        if not count:
            return {"users": 0}
        for table in (
            "accounts_alertmailitem",
            "accounts_alertmail",
            "accounts_alertunsubscribe",
            "accounts_alertsettings",
            "accounts_readermatch",
            "accounts_trailstate",
            "accounts_trailprofile",
            "accounts_trailreadmark",
            "accounts_follow",
        ):
            cursor.execute(f"DELETE FROM {table} WHERE user_id BETWEEN %s AND %s", [low, high])  # noqa: S608
        cursor.execute("DELETE FROM accounts_user WHERE id BETWEEN %s AND %s", [low, high])
    return {"users": count}
