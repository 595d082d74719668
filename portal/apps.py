from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class PortalConfig(AppConfig):
    name = "portal"
    verbose_name = gettext_lazy("Portal")
