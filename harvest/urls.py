"""The public portal's pages. Included at the site root by papertrail/urls.py."""

from django.urls import path, register_converter
from django.views.generic import RedirectView

from harvest.views import briefings, overview, papers, sources


class ArxivIdConverter:
    """An arXiv identifier with an optional version suffix: `2611.13545`,
    `2611.13545v2`, `hep-th/9901001`, `math.GT/0309136v1`."""

    regex = r"(?:\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


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
