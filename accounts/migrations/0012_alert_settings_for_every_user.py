"""Every account gets its delivery settings (and feed secret) when it is made;
accounts made before that get theirs here, so that the pages showing them
only read."""

import secrets

from django.db import migrations


def create_missing(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    AlertSettings = apps.get_model("accounts", "AlertSettings")
    missing = User.objects.exclude(pk__in=AlertSettings.objects.values("user_id")).values_list("pk", flat=True)
    batch = []
    for user_id in missing.iterator(chunk_size=2000):
        batch.append(AlertSettings(user_id=user_id, feed_secret=secrets.token_urlsafe(32)))
        if len(batch) >= 2000:
            AlertSettings.objects.bulk_create(batch)
            batch = []
    AlertSettings.objects.bulk_create(batch)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0011_alert_wording")]

    operations = [migrations.RunPython(create_missing, migrations.RunPython.noop)]
