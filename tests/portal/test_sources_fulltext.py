"""/sources/ shows the full-text queue and its failures in words, in Chinese
first and in English; staff also see each failure's exception text, escaped."""

from __future__ import annotations

from django.utils import timezone

from accounts.models import User
from harvest.fulltext.fetching import FetchFailure
from harvest.fulltext.models import FullText
from harvest.fulltext.services import record_failure, request_full_text
from tests import factories as f


def block(page: str) -> str:
    return page.split('data-block="full-text"', 1)[1].split("</section>", 1)[0]


def test_the_queue_and_its_failures_are_told_in_words(client, db):
    now = timezone.now()
    f.store(f.record("2611.00001"), f.record("2611.00002"), f.record("2611.00003"), at=now)
    ids = [f.version(a, 1).id for a in ("2611.00001", "2611.00002", "2611.00003")]
    request_full_text(version_ids=ids, reason=FullText.Reason.SAVED)
    huge = FullText.objects.get(version_id=ids[0])
    record_failure(huge, FetchFailure("too_large", "PDF: reply from x is 524,288,000 bytes <b>", retry=False), now)
    busy = FullText.objects.get(version_id=ids[1])
    record_failure(busy, FetchFailure("unavailable", "HTML: HTTP 502 from arxiv.org", retry=True), now)

    chinese = block(client.get("/sources/").content.decode())
    assert "论文全文" in chinese and "文件超过本站读取的大小上限，未读取。" in chinese
    page = block(client.get("/sources/", headers={"cookie": "django_language=en"}).content.decode())
    assert 'data-waiting="2"' in page and 'data-failed="1"' in page
    assert "The file is larger than the site reads; it was not read." in page
    assert "not tried again" in page
    assert "arXiv could not be reached." in page and "tried again from" in page
    assert 'href="https://arxiv.org/abs/2611.00001v1"' in page
    # Readers get words; the exception text is for staff.
    assert "524,288,000" not in page

    User.objects.create_user("ops", password="x", is_staff=True)
    client.login(username="ops", password="x")
    client.cookies["django_language"] = "en"
    staff = block(client.get("/sources/operator/").content.decode())
    assert "PDF: reply from x is 524,288,000 bytes &lt;b&gt;" in staff
