from importlib import import_module

from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy


class HarvestConfig(AppConfig):
    name = "harvest"
    verbose_name = gettext_lazy("Library and harvest")

    def ready(self) -> None:
        from harvest.source_rows import create_configured_sources

        post_migrate.connect(create_configured_sources, sender=self, dispatch_uid="harvest-create-sources")
        import_module("harvest.receivers")
