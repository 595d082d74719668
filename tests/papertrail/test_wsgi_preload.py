"""papertrail/wsgi.py loads the search's query models when it is imported, so
that gunicorn --preload forks workers that share them (docs/search.md, "Speed
and memory"); PAPERTRAIL_PRELOAD_SEARCH_MODELS off leaves them to the first
search."""

from __future__ import annotations

import importlib

import pytest

from harvest import query_gloss
from harvest.embeddings import encoders


@pytest.fixture
def nothing_loaded(monkeypatch):
    monkeypatch.setattr(encoders, "_encoder", None)
    query_gloss._lexicon.cache_clear()
    query_gloss._segmenter.cache_clear()


def test_importing_the_wsgi_module_loads_the_query_encoders_and_the_gloss(settings, nothing_loaded):
    settings.PAPERTRAIL_PRELOAD_SEARCH_MODELS = True
    importlib.reload(importlib.import_module("papertrail.wsgi"))
    assert encoders._encoder is not None and encoders._encoder.name == encoders.model_name()
    assert query_gloss._lexicon.cache_info().currsize > 0 and query_gloss._segmenter.cache_info().currsize > 0


def test_with_the_setting_off_the_models_wait_for_the_first_search(settings, nothing_loaded):
    settings.PAPERTRAIL_PRELOAD_SEARCH_MODELS = False
    importlib.reload(importlib.import_module("papertrail.wsgi"))
    assert encoders._encoder is None and query_gloss._lexicon.cache_info().currsize == 0
