from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from accounts import receivers  # noqa: F401 - connects the signal receivers
        from accounts.recommend import receivers as recommend_receivers  # noqa: F401
