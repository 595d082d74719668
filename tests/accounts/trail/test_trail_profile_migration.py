"""Migration 0021 moves the trail's fields off the User onto TrailProfile,
values kept both ways."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("accounts", "0020_rating_source")]
AFTER = [("accounts", "0021_trail_profile")]


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return executor.loader.project_state(target).apps


@pytest.mark.django_db(transaction=True)
def test_each_accounts_trail_order_and_version_move_to_its_profile_and_back():
    try:
        apps = migrate(BEFORE)
        User = apps.get_model("accounts", "User")
        newest = User.objects.create(username="newest", trail_order="newest", trail_version=7)
        default = User.objects.create(username="default")

        apps = migrate(AFTER)
        profiles = apps.get_model("accounts", "TrailProfile").objects.order_by("user_id")
        assert list(profiles.values_list("user_id", "order", "version")) == [
            (newest.pk, "newest", 7),
            (default.pk, "for_you", 0),
        ]

        apps = migrate(BEFORE)
        users = apps.get_model("accounts", "User").objects.order_by("pk")
        assert list(users.values_list("username", "trail_order", "trail_version")) == [
            ("newest", "newest", 7),
            ("default", "for_you", 0),
        ]
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
