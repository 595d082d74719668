"""The trail's fields leave the User (which keeps identity): each account's
trail order and version move, values kept, to its TrailProfile; going back
copies them onto the user again."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


BATCH = 2000


def copy_to_profiles(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    TrailProfile = apps.get_model("accounts", "TrailProfile")
    batch = []
    for user_id, order, version in User.objects.values_list("pk", "trail_order", "trail_version").iterator(BATCH):
        batch.append(TrailProfile(user_id=user_id, order=order, version=version))
        if len(batch) >= BATCH:
            TrailProfile.objects.bulk_create(batch)
            batch = []
    TrailProfile.objects.bulk_create(batch)


def copy_to_users(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    TrailProfile = apps.get_model("accounts", "TrailProfile")
    for user_id, order, version in TrailProfile.objects.values_list("user_id", "order", "version").iterator(BATCH):
        User.objects.filter(pk=user_id).update(trail_order=order, trail_version=version)


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0020_rating_source'),
    ]

    operations = [
        migrations.CreateModel(
            name='TrailProfile',
            fields=[
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='trail_profile', serialize=False, to=settings.AUTH_USER_MODEL)),
                ('order', models.CharField(choices=[('for_you', "For you: each day's cards by how well they fit your record"), ('newest', 'Newest first')], db_default='for_you', default='for_you', max_length=8)),
                ('version', models.BigIntegerField(db_default=0, default=0, editable=False)),
            ],
            options={
                'verbose_name': 'trail profile',
                'verbose_name_plural': 'trail profiles',
            },
        ),
        migrations.RunPython(copy_to_profiles, copy_to_users),
        migrations.RemoveField(
            model_name='user',
            name='trail_order',
        ),
        migrations.RemoveField(
            model_name='user',
            name='trail_version',
        ),
    ]
