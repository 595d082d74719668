from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class DigestsConfig(AppConfig):
    name = "digests"
    verbose_name = gettext_lazy("AI guided readings")

    def ready(self) -> None:
        from digests import receivers  # noqa: F401 - connects the signal receivers
