"""The old sign-in and sign-out addresses (leading to allauth's pages) and the
profile page. Included at the site root."""

from django.urls import path

from portal.views import accounts as views
from portal.views import alerts, channels, zotero

app_name = "accounts"
urlpatterns = [
    path("login/", views.login_redirect, name="login"),
    path("logout/", views.logout_redirect, name="logout"),
    path("me/", views.me, name="me"),
    path("me/preferences/", views.preferences_update, name="preferences"),
    path("me/delete/", views.account_delete, name="delete"),
    path("me/tokens/", views.token_create, name="token_create"),
    path("me/tokens/<int:token_id>/revoke/", views.token_revoke, name="token_revoke"),
    path("me/feeds/rotate/", alerts.feed_rotate, name="feed_rotate"),
    path("me/channels/", channels.channel_add, name="channel_add"),
    path("me/channels/<int:channel_id>/test/", channels.channel_test, name="channel_test"),
    path("me/channels/<int:channel_id>/pause/", channels.channel_pause_view, name="channel_pause"),
    path("me/channels/<int:channel_id>/resume/", channels.channel_resume_view, name="channel_resume"),
    path("me/channels/<int:channel_id>/delete/", channels.channel_delete_view, name="channel_delete"),
    path("me/alerts/resubscribe/", alerts.resubscribe, name="alerts_resubscribe"),
    path("me/alerts/address/", alerts.address_retry, name="alerts_address_retry"),
    path("me/alerts/weekly-day/", alerts.weekly_day, name="alerts_weekly_day"),
    path("me/zotero/", zotero.link, name="zotero_link"),
    path("me/zotero/collection/", zotero.collection, name="zotero_collection"),
    path("me/zotero/sync/", zotero.sync, name="zotero_sync"),
    path("me/zotero/seed/", zotero.seed, name="zotero_seed"),
    path("me/zotero/unlink/", zotero.unlink, name="zotero_unlink"),
]
