from importlib import import_module

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class HarvestConfig(AppConfig):
    name = "harvest"
    verbose_name = "Harvest"

    def ready(self) -> None:
        from harvest.source_rows import create_configured_sources

        post_migrate.connect(create_configured_sources, sender=self, dispatch_uid="harvest-create-sources")
        import_module("harvest.receivers")
