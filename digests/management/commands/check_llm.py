"""`python manage.py check_llm [--task readings|ask] [--provider NAME] [--model MODEL]`:
the same quality report for every provider, before switching to it (digests/quality.py)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from digests.providers import registry
from digests.quality import llm_check


class Command(BaseCommand):
    help = (
        "Send a fixed set of real recorded papers (and, for ask, two questions) through a provider and report "
        "valid replies, citations, language, latency and cost. Paid from the provider's daily budget."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--task", choices=("readings", "ask"), default="readings")
        parser.add_argument("--provider", help="anthropic, openai or a name in PAPERTRAIL_LLM_ENDPOINTS")
        parser.add_argument("--model", help="default: the task's model when the provider is the task's own")

    def handle(self, *args, task: str, provider: str | None, model: str | None, **options) -> None:
        if provider is not None and provider not in registry.provider_names():
            raise CommandError(f"--provider {provider!r} is not one of {', '.join(registry.provider_names())}")
        chosen, chosen_model = registry.task_choice(task)
        if provider not in (None, chosen) and model is None:
            raise CommandError(f"--model is needed with --provider {provider} (the task's model is {chosen_model})")
        name = provider or chosen
        if not registry.provider_config(name).configured:
            raise CommandError(f"{name} has no API key: {registry.KEY_SETTINGS.get(name, name)} is not set")
        report = llm_check(task=task, provider_name=name, model=model)
        for line in report.lines():
            self.stdout.write(line)
        if report.requests and report.valid == report.requests:
            self.stdout.write(self.style.SUCCESS("all replies valid"))
        else:
            self.stdout.write(self.style.WARNING(f"{report.requests - report.valid} of {report.requests} not valid"))
