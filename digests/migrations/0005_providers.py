"""Providers: each reading, answer, batch and day's spend names the provider
that wrote or holds it. Every row before this one is Anthropic's (the only
provider there was), so existing rows get "anthropic" and "$", and the
budget keeps counting across the change."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("digests", "0004_ask"),
    ]

    operations = [
        migrations.AddField(
            model_name="guidedreading",
            name="provider",
            field=models.CharField(
                blank=True,
                default="anthropic",
                help_text="where it was written (anthropic, openai or a named endpoint)",
                max_length=32,
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="guidedreading",
            name="currency",
            field=models.CharField(default="$", help_text="of cost_usd: the provider's ($ or ¥)", max_length=8),
        ),
        migrations.AddField(
            model_name="ask",
            name="provider",
            field=models.CharField(blank=True, default="anthropic", max_length=32),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="ask",
            name="currency",
            field=models.CharField(default="$", help_text="of cost_usd: the provider's ($ or ¥)", max_length=8),
        ),
        migrations.AddField(
            model_name="summarybatch",
            name="provider",
            field=models.CharField(default="anthropic", help_text="whose batch API holds it", max_length=32),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="dailyspend",
            name="provider",
            field=models.CharField(default="anthropic", max_length=32),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="dailyspend",
            name="day",
            field=models.DateField(),
        ),
        migrations.AddField(
            model_name="llmstate",
            name="checks",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text='the last check_llm report per "task provider:model" (digests/quality.py)',
            ),
        ),
        migrations.AddConstraint(
            model_name="dailyspend",
            constraint=models.UniqueConstraint(fields=("day", "provider"), name="dailyspend_once_per_provider"),
        ),
    ]
