from importlib import import_module

from django.apps import AppConfig

# Each domain's reactions to signals, connected once the models are loaded.
RECEIVERS = (
    "accounts.trail.receivers",
    "accounts.records.receivers",
    "accounts.recommend.receivers",
    "accounts.alerts.receivers",
)


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        for module in RECEIVERS:
            import_module(module)
