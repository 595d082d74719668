"""Simplified Chinese by default, English only by the reader's choice."""

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


def test_api_clients_get_the_language_they_ask_for_and_chinese_otherwise(client):
    english = client.get("/api/v1/papers/?ai=banana", HTTP_ACCEPT_LANGUAGE="en")
    chinese = client.get("/api/v1/papers/?ai=banana")
    assert english.status_code == chinese.status_code == 400
    assert english.headers["Content-Language"] == "en"
    assert chinese.headers["Content-Language"] == "zh-hans"
