"""Reads of alerts for portal: the private feeds, the feed links and alert
settings of a reader, what a signed link names, whether mail can be sent,
the signed rating links and the listing day whose delivery is due (which
chat channels share).
Defined where alerts uses them, listed here as alerts' face."""

from accounts.alerts.feeds import feed_entries, feed_state
from accounts.alerts.links import (
    absolute,
    alert_settings_of,
    feed_links,
    rating_link_target,
    rating_url,
    unsubscribe_target,
)
from accounts.alerts.mail import mail_configured
from accounts.alerts.sending import due_day

__all__ = [
    "absolute",
    "alert_settings_of",
    "due_day",
    "feed_entries",
    "feed_links",
    "feed_state",
    "mail_configured",
    "rating_link_target",
    "rating_url",
    "unsubscribe_target",
]
