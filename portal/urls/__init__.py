"""The pages. Included at the site root by papertrail/urls.py."""

from django.urls import path, register_converter
from django.views.generic import RedirectView

from portal.arxiv_ids import ArxivIdConverter
from portal.views import briefings, follows, overview, papers, records, sources, trail

register_converter(ArxivIdConverter, "arxiv_id")

app_name = "portal"
urlpatterns = [
    path("", overview.overview, name="overview"),
    path("overview/numbers/", overview.overview_numbers, name="overview_numbers"),
    path("papers/", papers.paper_list, name="paper_list"),
    path("papers/<arxiv_id:arxiv_id>/", papers.paper_page, name="paper_detail"),
    path("papers/<arxiv_id:arxiv_id>/record/", records.record_save_view, name="record_save"),
    path("briefings/", RedirectView.as_view(url="/briefings/new/", query_string=True), name="briefings"),
    path("briefings/<slug:kind>/", briefings.briefing, name="briefing"),
    path("sources/", sources.sources, name="sources"),
    path("follows/", follows.follow_index, name="follows"),
    path("follows/new/", follows.follow_new, name="follow_new"),
    path("follows/<int:follow_id>/", follows.follow_edit, name="follow_edit"),
    path("follows/<int:follow_id>/delete/", follows.follow_remove, name="follow_delete"),
    path("follows/exclusions/", follows.exclusion_add, name="exclusion_add"),
    path("follows/exclusions/<int:exclusion_id>/delete/", follows.exclusion_remove, name="exclusion_delete"),
    path("trail/", trail.trail, name="trail"),
    path("trail/read/", trail.trail_read_up_to, name="trail_read_up_to"),
    path("trail/<int:item_id>/open/", trail.trail_open, name="trail_open"),
    path("trail/<int:item_id>/read/", trail.trail_read, name="trail_read"),
    path("trail/<int:item_id>/dismiss/", trail.trail_not_interested, name="trail_dismiss"),
    path("trail/<int:item_id>/undismiss/", trail.trail_undo, name="trail_undismiss"),
    path(
        "trail/<int:item_id>/not-this-person/<int:follow_id>/",
        trail.trail_not_this_person,
        name="trail_not_this_person",
    ),
    path("me/strip/", trail.me_strip, name="me_strip"),
    # Export and import pages live under records/export/ and records/import/ (another module).
    path("records/", records.records, name="records"),
    path("records/bulk/", records.records_bulk, name="records_bulk"),
    path("records/tags/", records.tag_edit, name="tag_edit"),
]
