"""Simplified Chinese by default on pages, English only by the reader's
choice; the API speaks what its client asks for, English otherwise."""

import pytest

pytestmark = pytest.mark.django_db


def test_chinese_is_the_default_whatever_the_browser_says(client):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert response.status_code == 200
    assert response.headers["Content-Language"] == "zh-hans"
    assert "全站更新概况" in response.content.decode()


def test_the_language_switch_chooses_english(client):
    switched = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert switched.status_code == 302
    response = client.get("/")
    assert response.headers["Content-Language"] == "en"
    assert "Site-wide update overview" in response.content.decode()


def test_api_clients_get_the_language_they_ask_for_and_english_otherwise(client):
    chinese = client.get("/api/v1/papers/?ai=banana", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    unstated = client.get("/api/v1/papers/?ai=banana")
    assert chinese.status_code == unstated.status_code == 400
    assert chinese.headers["Content-Language"] == "zh-hans"
    # A script or curl that states no language reads the API's own language, English.
    assert unstated.headers["Content-Language"] == "en"
