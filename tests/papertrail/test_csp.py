"""Every response carries the site's Content-Security-Policy header: pages,
the API, its docs, the admin, and errors."""

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    ["/", "/papers/", "/papers/2611.99999/", "/api/v1/papers/", "/api/v1/nothing/", "/api/docs/", "/admin/login/"],
)
def test_every_response_carries_the_policy(client, path):
    response = client.get(path, follow=False)
    policy = response.headers["Content-Security-Policy"]
    assert policy == settings.PAPERTRAIL_CONTENT_SECURITY_POLICY
    assert "script-src 'self';" in policy and "frame-ancestors 'none'" in policy and "*" not in policy
