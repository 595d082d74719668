"""The OpenAPI schema: generated without warnings, valid, every endpoint and
parameter described; the docs page served from the project's own static files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from django.contrib.staticfiles import finders
from django.core.management import call_command

from harvest.filters import PaperFilterSet

pytestmark = pytest.mark.django_db
OPERATIONS = {
    ("/api/v1/papers/", "get"),
    ("/api/v1/papers/{arxiv_id}/", "get"),
    ("/api/v1/papers/{arxiv_id}/similar/", "get"),
    ("/api/v1/stats/", "get"),
    ("/api/v1/briefings/{kind}/", "get"),
    ("/api/v1/sources/", "get"),
    ("/api/v1/me/", "get"),
    ("/api/v1/me/follows/", "get"),
    ("/api/v1/me/follows/", "post"),
    ("/api/v1/me/follows/{follow_id}/", "get"),
    ("/api/v1/me/follows/{follow_id}/", "patch"),
    ("/api/v1/me/follows/{follow_id}/", "delete"),
    ("/api/v1/me/follows/preview/", "get"),
    ("/api/v1/me/records/", "get"),
    ("/api/v1/me/records/", "post"),
    ("/api/v1/me/records/{arxiv_id}/", "get"),
    ("/api/v1/me/records/{arxiv_id}/", "patch"),
    ("/api/v1/me/records/{arxiv_id}/", "delete"),
    ("/api/v1/me/tags/", "get"),
    ("/api/v1/me/ratings/", "get"),
    ("/api/v1/me/ratings/", "post"),
    ("/api/v1/me/ratings/{arxiv_id}/", "get"),
    ("/api/v1/me/ratings/{arxiv_id}/", "delete"),
    ("/api/v1/me/records/export/", "get"),
    ("/api/v1/me/records/import/", "post"),
    ("/api/v1/me/picks/", "get"),
    ("/api/v1/me/picks/", "post"),
    ("/api/v1/me/trail/", "get"),
    ("/api/v1/me/trail/read/", "post"),
    ("/api/v1/me/trail/{item_id}/dismiss/", "post"),
    ("/api/v1/me/trail/{item_id}/undismiss/", "post"),
    ("/api/v1/me/recommendations/", "get"),
    ("/api/v1/me/recommendations/{recommendation_id}/not-interested/", "post"),
    ("/api/v1/ask/", "post"),
    ("/api/v1/me/asks/", "get"),
    ("/api/v1/me/asks/{ask_id}/", "get"),
    ("/api/v1/me/asks/{ask_id}/", "delete"),
    ("/api/v1/groups/", "get"),
    ("/api/v1/groups/", "post"),
    ("/api/v1/groups/join/", "post"),
    ("/api/v1/groups/{group_id}/", "get"),
    ("/api/v1/groups/{group_id}/", "patch"),
    ("/api/v1/groups/{group_id}/", "delete"),
    ("/api/v1/groups/{group_id}/members/", "get"),
    ("/api/v1/groups/{group_id}/members/{member_id}/", "delete"),
    ("/api/v1/groups/{group_id}/invites/", "get"),
    ("/api/v1/groups/{group_id}/invites/", "post"),
    ("/api/v1/groups/{group_id}/invites/{invite_id}/", "delete"),
    ("/api/v1/groups/{group_id}/follows/", "get"),
    ("/api/v1/groups/{group_id}/follows/", "post"),
    ("/api/v1/groups/{group_id}/follows/{group_follow_id}/", "delete"),
    ("/api/v1/groups/{group_id}/trail/", "get"),
    ("/api/v1/groups/{group_id}/trail/read/", "post"),
    ("/api/v1/groups/{group_id}/channels/", "get"),
    ("/api/v1/groups/{group_id}/channels/", "post"),
    ("/api/v1/groups/{group_id}/channels/{group_channel_id}/", "get"),
    ("/api/v1/groups/{group_id}/channels/{group_channel_id}/", "patch"),
    ("/api/v1/groups/{group_id}/channels/{group_channel_id}/", "delete"),
    ("/api/v1/groups/{group_id}/channels/{group_channel_id}/test/", "post"),
    ("/api/v1/me/channels/", "get"),
    ("/api/v1/me/channels/", "post"),
    ("/api/v1/me/channels/{channel_id}/", "get"),
    ("/api/v1/me/channels/{channel_id}/", "patch"),
    ("/api/v1/me/channels/{channel_id}/", "delete"),
    ("/api/v1/me/channels/{channel_id}/test/", "post"),
    ("/api/v1/me/zotero/", "get"),
    ("/api/v1/me/zotero/", "put"),
    ("/api/v1/me/zotero/", "patch"),
    ("/api/v1/me/zotero/", "delete"),
    ("/api/v1/me/zotero/collections/", "get"),
    ("/api/v1/me/zotero/sync/", "post"),
    ("/api/v1/me/zotero/seed/", "post"),
}


@pytest.fixture(scope="module")
def schema(tmp_path_factory) -> dict:
    """The schema as `manage.py spectacular` writes it; a warning or an invalid
    schema fails the command."""
    target = tmp_path_factory.mktemp("schema") / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    return yaml.safe_load(target.read_text())


def test_the_schema_has_every_endpoint_each_described(schema):
    operations = {(path, method): op for path, item in schema["paths"].items() for method, op in item.items()}
    assert set(operations) == OPERATIONS
    for key, operation in operations.items():
        assert operation.get("summary") and len(operation.get("description", "")) > 20, key
        for status, response in operation["responses"].items():
            assert response.get("description"), (key, status)
        assert "429" in operation["responses"] and "Retry-After" in operation["responses"]["429"]["headers"]
        for parameter in operation.get("parameters", []):
            assert len(parameter.get("description", "")) > 10, (key, parameter["name"])


def test_every_property_of_every_response_is_described(schema):
    missing = []
    for name, component in schema["components"]["schemas"].items():
        for prop, definition in component.get("properties", {}).items():
            if not definition.get("description") and not definition.get("allOf"):
                missing.append(f"{name}.{prop}")
    assert not missing


def test_the_papers_parameters_are_exactly_the_library_filters(schema):
    documented = {p["name"] for p in schema["paths"]["/api/v1/papers/"]["get"]["parameters"]}
    assert documented == set(PaperFilterSet.base_filters) | {"cursor", "page_size"}


def test_token_auth_is_a_bearer_scheme(schema):
    assert schema["components"]["securitySchemes"]["tokenAuth"]["scheme"] == "bearer"


def test_the_schema_and_docs_are_served(client_api):
    assert client_api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["openapi"]
    page = client_api.get("/api/docs/").content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert any("swagger-ui-bundle.js" in asset for asset in assets)
    for asset in assets:
        assert not re.match(r"^(https?:)?//", asset), asset  # no outside host
        if asset.startswith("/static/"):
            assert finders.find(asset.removeprefix("/static/").split("?")[0]), asset
    # Swagger UI's start-up script is a file too, so a strict CSP can apply.
    assert "<script>" not in page.replace(" ", "")


def test_the_schema_is_the_published_one_byte_for_byte(tmp_path):
    """The published API (tests/portal/api/openapi.yaml) changes only on purpose:
    regenerate it with `manage.py spectacular --file` and review the diff."""
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(target))
    published = Path(__file__).with_name("openapi.yaml")
    assert target.read_bytes() == published.read_bytes()
