from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from portal.views import health

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", health.healthz, name="healthz"),
    # Pages name their icon; the admin and the API docs do not, so browsers ask here.
    path("favicon.ico", RedirectView.as_view(url=static("portal/favicon.svg"), permanent=True)),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/v1/", include("portal.urls.api")),
    path("", include("portal.urls.accounts")),
    path("", include("portal.urls")),
]
