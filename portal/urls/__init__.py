"""The pages. Included at the site root by papertrail/urls.py."""

from django.urls import path, register_converter
from django.views.generic import RedirectView

from portal.arxiv_ids import ArxivIdConverter
from portal.views import briefings, overview, papers, sources

register_converter(ArxivIdConverter, "arxiv_id")

app_name = "portal"
urlpatterns = [
    path("", overview.overview, name="overview"),
    path("overview/numbers/", overview.overview_numbers, name="overview_numbers"),
    path("papers/", papers.paper_list, name="paper_list"),
    path("papers/<arxiv_id:arxiv_id>/", papers.paper_page, name="paper_detail"),
    path("briefings/", RedirectView.as_view(url="/briefings/new/", query_string=True), name="briefings"),
    path("briefings/<slug:kind>/", briefings.briefing, name="briefing"),
    path("sources/", sources.sources, name="sources"),
]
