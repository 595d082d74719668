"""Recommendations ("more like what I saved", accounts/recommend/): when a
model is trained, which papers the tab shows, and the email alerts' section."""

from __future__ import annotations

from papertrail.settings.env import env_bool, env_int, env_renamed

# Below this many saved papers no model is trained; the tab says what to do.
RECOMMEND_MIN_SAVES = env_int("PAPERTRAIL_RECOMMEND_MIN_SAVES", 3, minimum=1)
# The tab shows papers whose latest version arrived within this many days.
RECOMMEND_WINDOW_DAYS = env_int("PAPERTRAIL_RECOMMEND_WINDOW_DAYS", 14, minimum=1)
# A change to the record, a thumb or a pick retrains this many seconds later,
# once for every change in between (saves clicked in a row train once), so
# the trail's "for you" follows within seconds (docs/decisions.md).
RECOMMEND_RETRAIN_DELAY_SECONDS = env_int("PAPERTRAIL_RECOMMEND_RETRAIN_DELAY", 3, minimum=0)
# The email alerts' "recommended for you" section, off unless asked for. The
# former name PAPERTRAIL_RECOMMEND_IN_DIGEST is still read while the new one is unset.
RECOMMEND_IN_ALERTS = env_bool(env_renamed("PAPERTRAIL_RECOMMEND_IN_ALERTS", "PAPERTRAIL_RECOMMEND_IN_DIGEST"), False)
