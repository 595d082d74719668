"""Every model has a readable name in the admin, translated in Chinese: the
names are the ones written in each model's Meta (never Django's derived
"summary batchs"), and the admin's index in Chinese lists them in Chinese."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.contrib import admin
from django.utils import translation
from django.utils.text import capfirst

from accounts.models import User

pytestmark = pytest.mark.django_db
OURS = ("harvest", "digests", "accounts")
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def our_models():
    return [model for model in apps.get_models() if model._meta.app_label in OURS]


@pytest.mark.parametrize("model", our_models(), ids=lambda model: model.__name__)
def test_every_model_names_itself_in_both_languages(model):
    meta = model._meta
    # Written, not derived: Django's derived plural is the name plus "s".
    assert "verbose_name" in meta.original_attrs and "verbose_name_plural" in meta.original_attrs
    with translation.override("en"):
        singular, plural = str(meta.verbose_name), str(meta.verbose_name_plural)
    assert not re.search(r"(ch|sh|s|x)s\b|ys\b", plural), plural
    assert singular.lower() != model.__name__.lower() or " " not in singular
    with translation.override("zh-hans"):
        assert CHINESE.search(str(meta.verbose_name)), (model.__name__, str(meta.verbose_name))
        assert CHINESE.search(str(meta.verbose_name_plural)), (model.__name__, str(meta.verbose_name_plural))


def test_the_admin_index_in_chinese_lists_the_models_in_chinese(client):
    operator = User.objects.create_superuser("operator", "operator@example.org", "a long admin passphrase")
    client.force_login(operator)
    client.cookies["django_language"] = "zh-hans"
    page = client.get("/admin/").content.decode()
    for name in ("导读批次", "采集检查", "足迹卡片", "论文库与采集", "AI 导读"):
        assert name in page, name
    assert "batchs" not in page.lower() and "Summary batch" not in page
    registered = [model for model in admin.site._registry if model._meta.app_label in OURS]
    assert len(registered) >= 10
    with translation.override("zh-hans"):
        for model in registered:
            assert capfirst(str(model._meta.verbose_name_plural)) in page, model.__name__
