"""Under the site's Content-Security-Policy header, the API docs (Swagger UI)
and the admin still work in a real browser, with no blocked resource."""

import pytest

from accounts.models import User
from tests.portal.browser.conftest import browser_page, in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_api_docs_render_their_operations_under_the_policy(live_server):
    with browser_page() as (page, watch):
        response = page.goto(f"{live_server.url}/api/docs/")
        assert "script-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_selector(".opblock-summary-path", timeout=15_000)
        assert page.locator(".opblock-summary-path").count() >= 6
    watch.assert_clean()


def test_the_admin_signs_in_and_lists_papers_under_the_policy(live_server):
    # An operator-made account without an address needs no verification.
    in_thread(lambda: User.objects.create_superuser("root", "", "a long admin password"))
    with browser_page() as (page, watch):
        # The admin signs in through the site's own (throttled) sign-in page.
        page.goto(f"{live_server.url}/admin/harvest/paper/")
        page.fill("input[name=username]", "root")
        page.fill("input[name=password]", "a long admin password")
        page.click("section.account form button[type=submit]")
        page.wait_for_selector("#changelist", timeout=15_000)
        assert "content-security-policy" in page.context.request.get(f"{live_server.url}/admin/").headers
    watch.assert_clean()
