"""Author follows whose name variants were typed in TeX ("Pi\\v{z}urica")
compiled again: the normalised form now reads TeX first
(accounts/follows/names.py), as the library's decoded names do."""

from django.db import migrations

from accounts.follows.names import normalise_name


def recompile(apps, schema_editor):
    Follow = apps.get_model("accounts", "Follow")
    for follow in Follow.objects.filter(kind="author").only("value", "compiled"):
        variants = (follow.value or {}).get("variants") or []
        if not any("\\" in str(variant) for variant in variants):
            continue
        follow.compiled = {"variants": sorted({normalise_name(str(v)) for v in variants} - {""})}
        follow.save(update_fields=["compiled"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0013_follow_kind_topic"), ("harvest", "0015_readable_text")]

    operations = [migrations.RunPython(recompile, migrations.RunPython.noop, elidable=True)]
