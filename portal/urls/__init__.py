"""The pages. Included at the site root by papertrail/urls.py."""

from django.urls import path, register_converter
from django.views.generic import RedirectView

from portal import feeds
from portal.arxiv_ids import ArxivIdConverter
from portal.views import (
    alerts,
    ask,
    briefings,
    follows,
    group_channels,
    group_trail,
    groups,
    overview,
    papers,
    picks,
    ratings,
    recommendations,
    record_files,
    records,
    sources,
    trail,
)

register_converter(ArxivIdConverter, "arxiv_id")

app_name = "portal"
urlpatterns = [
    path("", overview.overview, name="overview"),
    path("overview/numbers/", overview.overview_numbers, name="overview_numbers"),
    path("papers/", papers.paper_list, name="paper_list"),
    path("papers/<arxiv_id:arxiv_id>/", papers.paper_page, name="paper_detail"),
    path("papers/<arxiv_id:arxiv_id>/record/", records.record_save_view, name="record_save"),
    path("papers/<arxiv_id:arxiv_id>/opened/", papers.paper_opened_view, name="paper_opened"),
    path("papers/<arxiv_id:arxiv_id>/cite.bib", papers.paper_cite, {"format": "bibtex"}, name="paper_cite_bibtex"),
    path("papers/<arxiv_id:arxiv_id>/cite.ris", papers.paper_cite, {"format": "ris"}, name="paper_cite_ris"),
    # The alerts' signed links first: "mail/…" is no arXiv id, but the order makes it certain.
    path("ratings/mail/<str:token>/", ratings.rating_link, name="rating_link"),
    path("ratings/<arxiv_id:arxiv_id>/", ratings.rate, name="rating"),
    path("ask/", ask.ask, name="ask"),
    path("ask/<int:ask_id>/", ask.ask_detail, name="ask_detail"),
    path("ask/<int:ask_id>/delete/", ask.ask_delete_view, name="ask_delete"),
    path("ask/<int:ask_id>/save/", ask.ask_save, name="ask_save"),
    path("briefings/", RedirectView.as_view(url="/briefings/new/", query_string=True), name="briefings"),
    path("briefings/<slug:kind>/", briefings.briefing, name="briefing"),
    path("sources/", sources.sources, name="sources"),
    path("sources/operator/", sources.sources_operator, name="sources_operator"),
    path("follows/", follows.follow_index, name="follows"),
    path("follows/new/", follows.follow_new, name="follow_new"),
    path("follows/<int:follow_id>/", follows.follow_edit, name="follow_edit"),
    path("follows/<int:follow_id>/delete/", follows.follow_remove, name="follow_delete"),
    path("follows/exclusions/", follows.exclusion_add, name="exclusion_add"),
    path("follows/exclusions/<int:exclusion_id>/delete/", follows.exclusion_remove, name="exclusion_delete"),
    path("records/export/", record_files.records_export, name="records_export"),
    path("records/import/", record_files.records_import, name="records_import"),
    path("groups/", groups.group_index, name="groups"),
    path("groups/join/<str:token>/", groups.group_join, name="group_join"),
    path("groups/<int:group_id>/", groups.group_detail, name="group_detail"),
    path("groups/<int:group_id>/rename/", groups.group_rename_view, name="group_rename"),
    path("groups/<int:group_id>/delete/", groups.group_delete_view, name="group_delete"),
    path("groups/<int:group_id>/leave/", groups.group_leave_view, name="group_leave"),
    path(
        "groups/<int:group_id>/members/<int:member_id>/remove/", groups.group_member_remove, name="group_member_remove"
    ),
    path("groups/<int:group_id>/members/<int:member_id>/owner/", groups.group_owner_transfer, name="group_owner"),
    path("groups/<int:group_id>/invites/", groups.group_invite_new, name="group_invite_new"),
    path(
        "groups/<int:group_id>/invites/<int:invite_id>/revoke/", groups.group_invite_revoke, name="group_invite_revoke"
    ),
    path("groups/<int:group_id>/follows/", groups.group_follow_new, name="group_follow_new"),
    path(
        "groups/<int:group_id>/follows/<int:group_follow_id>/delete/",
        groups.group_follow_remove,
        name="group_follow_delete",
    ),
    path("groups/<int:group_id>/channels/", group_channels.group_channel_add, name="group_channel_add"),
    path(
        "groups/<int:group_id>/channels/<int:group_channel_id>/test/",
        group_channels.group_channel_test,
        name="group_channel_test",
    ),
    path(
        "groups/<int:group_id>/channels/<int:group_channel_id>/pause/",
        group_channels.group_channel_pause,
        name="group_channel_pause",
    ),
    path(
        "groups/<int:group_id>/channels/<int:group_channel_id>/resume/",
        group_channels.group_channel_resume,
        name="group_channel_resume",
    ),
    path(
        "groups/<int:group_id>/channels/<int:group_channel_id>/delete/",
        group_channels.group_channel_delete,
        name="group_channel_delete",
    ),
    path("groups/<int:group_id>/trail/", group_trail.group_trail, name="group_trail"),
    path("groups/<int:group_id>/trail/read/", group_trail.group_trail_read, name="group_trail_read"),
    path("trail/", trail.trail, name="trail"),
    path("trail/read/", trail.trail_read_up_to, name="trail_read_up_to"),
    path("trail/read/all/", trail.trail_read_all, name="trail_read_all"),
    path("trail/order/", trail.trail_order, name="trail_order"),
    path("trail/<int:item_id>/open/", trail.trail_open, name="trail_open"),
    path("trail/<int:item_id>/read/", trail.trail_read, name="trail_read"),
    path("trail/<int:item_id>/dismiss/", trail.trail_not_interested, name="trail_dismiss"),
    path("trail/<int:item_id>/undismiss/", trail.trail_undo, name="trail_undismiss"),
    path(
        "trail/<int:item_id>/not-this-person/<int:follow_id>/",
        trail.trail_not_this_person,
        name="trail_not_this_person",
    ),
    path("trail/picks/", picks.picks, name="trail_picks"),
    path("trail/recommended/", recommendations.recommended, name="trail_recommended"),
    path("trail/recommended/settings/", recommendations.recommender_settings, name="recommender_settings"),
    path("trail/recommended/interests/", recommendations.recommender_interests, name="recommender_interests"),
    path(
        "trail/recommended/<int:recommendation_id>/open/",
        recommendations.recommendation_open_view,
        name="recommendation_open",
    ),
    path(
        "trail/recommended/<int:recommendation_id>/not-interested/",
        recommendations.recommendation_not_interested_view,
        name="recommendation_not_interested",
    ),
    path(
        "trail/recommended/<int:recommendation_id>/save/",
        recommendations.recommendation_save_view,
        name="recommendation_save",
    ),
    path("me/strip/", trail.me_strip, name="me_strip"),
    # Export and import pages live under records/export/ and records/import/ (another module).
    path("records/", records.records, name="records"),
    path("records/bulk/", records.records_bulk, name="records_bulk"),
    path("records/tags/", records.tag_edit, name="tag_edit"),
    # Private feeds, one-click unsubscribe and the alerts' rating links
    # (ratings/mail/ above): the secret or signed token in the path is the credential.
    path("feeds/<str:secret>/trail.atom", feeds.trail_feed, name="feed_trail"),
    path("feeds/<str:secret>/follows/<int:follow_id>.atom", feeds.follow_feed, name="feed_follow"),
    path("unsubscribe/<str:token>/", alerts.unsubscribe, name="unsubscribe"),
]
