from importlib import import_module

from django.apps import AppConfig
from django.utils.translation import gettext_lazy

# Each domain's reactions to signals, connected once the models are loaded.
RECEIVERS = (
    "accounts.trail.receivers",
    "accounts.records.receivers",
    "accounts.recommend.receivers",
    "accounts.alerts.receivers",
    "accounts.groups.receivers",
)


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = gettext_lazy("Readers: accounts, follows, trails and records")

    def ready(self) -> None:
        for module in RECEIVERS:
            import_module(module)
