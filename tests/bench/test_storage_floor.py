"""The harvest benchmark's storage floor (bench/measure.py) rewrites exactly
the rows an ingest stored, so the time it reports is for those rows and the
benchmark can go on with the same library."""

from __future__ import annotations

import pytest
from django.db import connection

from bench import measure
from harvest import services
from harvest.models import Authorship, Paper, PaperCategory, Version
from tests.bench.test_stores import first_records, library

pytestmark = pytest.mark.django_db(transaction=True)


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
