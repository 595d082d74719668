"""The PostgreSQL store finds a page's authors by probing the name index once
per name, whatever the planner believes of the author table's size
(harvest/stores/postgres.py AUTHOR_IDS_SQL)."""

import pytest
from django.db import connection

from harvest.models import Author
from harvest.stores.postgres import AUTHOR_IDS_SQL, PostgresStore, _text_list

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the PostgreSQL store's statement"),
]


def plan_of_lookup(names: list[str]) -> str:
    wanted, params = _text_list(names)
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + AUTHOR_IDS_SQL.format(names=wanted), params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.parametrize("analysed", [False, True], ids=["statistics of an empty table", "fresh statistics"])
def test_a_pages_worth_of_names_is_looked_up_through_the_index(analysed):
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE harvest_author")  # taken while the table is empty, as after a deployment
    Author.objects.bulk_create(Author(name=f"Author Number {i}") for i in range(20_000))
    if analysed:
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE harvest_author")
    names = [f"Author Number {i}" for i in range(0, 20_000, 5)] + [f"New Author {i}" for i in range(1_000)]
    plan = plan_of_lookup(names)
    assert "Index Scan using author_name_unique on harvest_author" in plan, plan
    assert "Seq Scan on harvest_author" not in plan and "Hash" not in plan, plan


def test_the_lookup_finds_stored_names_exactly_and_adds_the_missing_ones():
    stored = Author.objects.bulk_create([Author(name="Ada Lovelace"), Author(name="ada lovelace")])
    ids = PostgresStore()._author_ids(["Ada Lovelace", "ada lovelace", "Alan Turing"])
    assert ids["Ada Lovelace"] == stored[0].pk and ids["ada lovelace"] == stored[1].pk
    assert Author.objects.get(name="Alan Turing").pk == ids["Alan Turing"]
    assert Author.objects.count() == 3
