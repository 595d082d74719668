"""The site's own error pages under DEBUG (papertrail/error_pages.py): a
missing address, a missing paper, a refusal, a bad request and a crash each
get the site's page with the right status, in the reader's language; without
DEBUG the middleware leaves them to Django's handlers."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.test import RequestFactory
from django.utils import translation

from papertrail.error_pages import SiteErrorPagesMiddleware

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/papers/2611.99999/", "/no-such-page/"])
def test_a_missing_page_under_debug_is_the_sites_own_404(client, settings, path):
    settings.DEBUG = True
    response = client.get(path)
    body = response.content.decode()
    assert response.status_code == 404
    assert "<h1>未找到</h1>" in body and "URLconf" not in body
    with translation.override("zh-hans"):  # the English request's language ends with it
        english = client.get(path, headers={"cookie": f"{settings.LANGUAGE_COOKIE_NAME}=en"})
    assert "<h1>Not found</h1>" in english.content.decode()


def test_an_address_without_its_slash_is_still_redirected_under_debug(client, settings):
    settings.DEBUG = True
    assert client.get("/papers").status_code == 301


@pytest.mark.parametrize(
    ("raised", "status", "heading"),
    [(PermissionDenied(), 403, "Not allowed"), (SuspiciousOperation("bad"), 400, "Bad request")],
)
def test_refusals_and_bad_requests_under_debug_are_the_sites_pages(settings, raised, status, heading):
    settings.DEBUG = True
    request = RequestFactory().get("/")
    with translation.override("en"):
        response = SiteErrorPagesMiddleware(lambda request: None).process_exception(request, raised)
    assert response.status_code == status
    assert heading in response.content.decode()


def test_a_crash_under_debug_is_the_sites_500_and_is_logged(settings, caplog):
    settings.DEBUG = True
    request = RequestFactory().get("/papers/")
    response = SiteErrorPagesMiddleware(lambda request: None).process_exception(request, RuntimeError("boom"))
    assert response.status_code == 500
    assert "出错了 · Server error" in response.content.decode()
    assert "boom" not in response.content.decode()
    assert any(record.exc_info and "boom" in str(record.exc_info[1]) for record in caplog.records)


def test_without_debug_the_middleware_leaves_errors_to_django(settings):
    settings.DEBUG = False
    request = RequestFactory().get("/")
    assert SiteErrorPagesMiddleware(lambda request: None).process_exception(request, RuntimeError()) is None
