from django.apps import AppConfig


class DigestsConfig(AppConfig):
    name = "digests"
    verbose_name = "Digests"

    def ready(self) -> None:
        from digests import receivers  # noqa: F401 - connects the signal receivers
