from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from portal.views import health

# The admin signs in through allauth's page, with its rate limits, not its own form.
admin.site.login = secure_admin_login(admin.site.login)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", health.healthz, name="healthz"),
    # Pages name their icon; the admin and the API docs do not, so browsers ask here.
    path("favicon.ico", RedirectView.as_view(url=static("portal/favicon.svg"), permanent=True)),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("allauth.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/v1/", include("portal.urls.api")),
    path("", include("portal.urls.accounts")),
    path("", include("portal.urls")),
]
