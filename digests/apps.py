from importlib import import_module

from django.apps import AppConfig
from django.utils.translation import gettext_lazy

# The reactions to signals, connected once the models are loaded (as accounts does).
RECEIVERS = ("digests.receivers",)


class DigestsConfig(AppConfig):
    name = "digests"
    verbose_name = gettext_lazy("AI guided readings")

    def ready(self) -> None:
        for module in RECEIVERS:
            import_module(module)
