"""/api/v1/…, included by papertrail/urls.py under "api/v1/". Anything else
under it is a JSON 404, never an HTML page."""

from django.urls import path, re_path

from portal.api import views
from portal.api.errors import json_not_found

app_name = "api"
urlpatterns = [
    path("papers/", views.PaperListView.as_view(), name="paper_list"),
    # <path:> so that old-style ids (hep-th/9901001) and malformed ids reach the
    # view, which answers with a JSON error naming arxiv_id.
    path("papers/<path:arxiv_id>/", views.PaperDetailView.as_view(), name="paper_detail"),
    path("stats/", views.StatsView.as_view(), name="stats"),
    path("briefings/<str:kind>/", views.BriefingView.as_view(), name="briefing"),
    path("sources/", views.SourcesView.as_view(), name="sources"),
    path("me/", views.MeView.as_view(), name="me"),
    # [\s\S], not ".": a path holding a newline (%0A) must not slip past to the HTML 404.
    re_path(r"^[\s\S]*$", json_not_found, name="not_found"),
]
