"""The harvest benchmark's storage floor (bench/measure.py) rewrites exactly
the rows an ingest stored, so the time it reports is for those rows and the
benchmark can go on with the same library."""

from __future__ import annotations

import pytest
from django.db import connection

from bench import inputs, measure
from harvest import services
from harvest.models import Authorship, Paper, PaperCategory, Version
from harvest.sources.oai import parse_list_records
from tests.harvest.test_stores import library

pytestmark = pytest.mark.django_db(transaction=True)


def first_records():
    """The benchmark's own synthetic records: 300 papers over two pages."""
    pages = inputs.oai_pages(papers=300, page_size=150, series_month=3, seed=5)
    return [record for page in pages for record in parse_list_records(page).records]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the floor is measured on PostgreSQL only")
def test_the_floor_writes_back_every_row_the_ingest_stored():
    services.paper_upsert_many(records=first_records())
    before = library()
    ids = sorted(Paper.objects.values_list("pk", flat=True))

    floor = measure.storage_floor()

    assert library() == before
    assert sorted(Paper.objects.values_list("pk", flat=True)) == ids
    assert floor["rows"] == {
        "harvest_author": len(before["authors"]),
        "harvest_paper": 300,
        "harvest_version": Version.objects.count(),
        "harvest_authorship": Authorship.objects.count(),
        "harvest_papercategory": PaperCategory.objects.count(),
    }
    assert floor["rows"]["harvest_authorship"] > 300
    assert floor["seconds"] > 0 and floor["bytes"] > 0


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the server's CPU is read on PostgreSQL only")
def test_the_server_cpu_counts_the_work_of_this_connection():
    pages = inputs.oai_pages(papers=2000, page_size=1000, series_month=4, seed=3)
    records = [record for page in pages for record in parse_list_records(page).records]
    before = measure._database_cpu()
    services.paper_upsert_many(records=records)  # about a quarter of a second of the server's CPU

    assert before is not None
    assert measure._cpu_since(before) > 0
