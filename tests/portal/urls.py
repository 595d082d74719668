"""The site's URLs as the portal needs them (admin, language switch, portal
pages), for tests until papertrail/urls.py includes harvest.urls."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("harvest.urls")),
]
