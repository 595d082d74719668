from django.apps import AppConfig


class DigestsConfig(AppConfig):
    name = "digests"
    verbose_name = "Digests"
