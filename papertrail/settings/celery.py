"""Celery: the broker, task defaults, queues and the whole beat schedule, in
one dictionary. Each entry's `expires` is shorter than its interval, so a run
that waited too long is dropped instead of stacked; the next one catches up."""

from __future__ import annotations

from papertrail.libraries import file_broker_options
from papertrail.schedules import ZonedCron, crontab_from, expires_for
from papertrail.settings.base import DATABASES, REDIS_URL, VAR_DIR
from papertrail.settings.env import env_cron, env_cron_list, env_float, env_int, env_zone

BROKER_POLL_SECONDS = env_float("PAPERTRAIL_BROKER_POLL_SECONDS", 0.1, minimum=0.01)

if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 4 * 3600}
else:
    # Embedded default for one machine: kombu's file-system transport passes
    # messages through folders, so worker and beat need no broker server. The
    # folders are the library's own (named after its database, as its vector
    # index is), so a worker never takes a task queued for another library.
    CELERY_BROKER_URL = "filesystem://"
    # kombu's transport, writing each message whole (papertrail/file_broker.py).
    CELERY_BROKER_TRANSPORT = "papertrail.file_broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = file_broker_options(
        VAR_DIR, DATABASES["default"]["NAME"], poll_seconds=BROKER_POLL_SECONDS
    )
    CELERY_RESULT_BACKEND = None

CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 15 * 60, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 16 * 60, minimum=1)
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    # Embeddings keep a CPU busy for minutes: a queue of their own (an exact
    # name is matched before the patterns).
    "harvest.embed_papers": {"queue": "embed"},
    "harvest.embed_passages": {"queue": "embed"},
    # Full text is read from arXiv one request every ARXIV_REQUEST_DELAY
    # seconds: one worker on its own queue (concurrency 1) keeps that pace.
    "harvest.fetch_full_texts": {"queue": "fulltext"},
    "harvest.select_full_texts": {"queue": "fulltext"},
    "digests.embed_readings": {"queue": "embed"},
    "harvest.*": {"queue": "harvest"},
    # Chat channels wait on outside webhooks and their rate limits: a queue of their own.
    "accounts.send_channels": {"queue": "channels"},
    "accounts.retry_channels": {"queue": "channels"},
    "accounts.channel_test": {"queue": "channels"},
    "digests.*": {"queue": "llm"},
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# A harvest may page through thousands of records at arXiv's pace; it
# checkpoints after every page, so hitting this limit only pauses the run and
# the next scheduled run resumes it.
HARVEST_SOFT_TIME_LIMIT = env_int("HARVEST_SOFT_TIME_LIMIT", 2 * 3600, minimum=1)
HARVEST_TIME_LIMIT = HARVEST_SOFT_TIME_LIMIT + 300
# A source's lease outlives a stalled page; a live holder renews it after each
# page, and a holder whose process is gone loses it at once (harvest/locks.py).
HARVEST_LEASE_SECONDS = env_int("HARVEST_LEASE_SECONDS", 15 * 60, minimum=10)

# --- Intervals of the beat entries -------------------------------------------------
# Cron entries are five-field expressions in UTC, each overridable by environment.
HARVEST_SCHEDULES = {
    # arXiv OAI-PMH refreshes once a day after the announcement (about 00:00
    # UTC, Sunday to Thursday); checking every two hours catches it early and
    # costs a single empty request otherwise.
    "arxiv": env_cron("PAPERTRAIL_CRON_ARXIV", "17 */2 * * *"),
    # Hugging Face Daily Papers grows through the day; hourly keeps the
    # community signal fresh at one small JSON request.
    "hf_daily": env_cron("PAPERTRAIL_CRON_HF_DAILY", "43 * * * *"),
}
# arXiv announces Sunday to Thursday at 20:00 US Eastern: the feed is polled
# every five minutes from then to 21:30 and hourly otherwise (a 304 costs one
# request). Several expressions are separated by ";", read in PAPERTRAIL_CRON_ZONE.
PAPERTRAIL_CRON_ZONE = env_zone("PAPERTRAIL_CRON_ZONE", "America/New_York")
PAPERTRAIL_CRON_ARXIV_RSS = env_cron_list("PAPERTRAIL_CRON_ARXIV_RSS", "*/5 20 * * 0-4; 0-30/5 21 * * 0-4; 35 * * * *")
# OAI-PMH serves the day's announcement from about 22:00 US Eastern; this run
# brings its version dates and sizes the same evening (beside the UTC entry).
PAPERTRAIL_CRON_ARXIV_AFTER_ANNOUNCEMENT = env_cron_list("PAPERTRAIL_CRON_ARXIV_AFTER_ANNOUNCEMENT", "25 22 * * 0-4")
# Email alerts (accounts/alerts.py): after the announcement's harvest and
# matching (the feed is polled until 21:30), again later for a late harvest;
# a run on a day without an announcement sends nothing, and a second run of a
# day sends only what the first did not (one mail per user and day).
PAPERTRAIL_CRON_ALERTS = env_cron_list("PAPERTRAIL_CRON_ALERTS", "0 22 * * 0-4; 30 23 * * 0-4; 0 9 * * 1-5")
PAPERTRAIL_CRON_ALERTS_ZONE = env_zone("PAPERTRAIL_CRON_ALERTS_ZONE", "America/New_York")
ALERTS_SCHEDULE = ZonedCron(PAPERTRAIL_CRON_ALERTS, PAPERTRAIL_CRON_ALERTS_ZONE)
ZONED_HARVEST_SCHEDULES = {
    "harvest-arxiv_rss": ("arxiv_rss", ZonedCron(PAPERTRAIL_CRON_ARXIV_RSS, PAPERTRAIL_CRON_ZONE)),
    "harvest-arxiv-after-announcement": (
        "arxiv",
        ZonedCron(PAPERTRAIL_CRON_ARXIV_AFTER_ANNOUNCEMENT, PAPERTRAIL_CRON_ZONE),
    ),
}
# Each run that stores papers queues the full-text indexing itself; this entry
# catches papers stored by hand or by a run whose queued pass was lost.
SEARCH_INDEX_CRON = env_cron("PAPERTRAIL_CRON_SEARCH_INDEX", "*/5 * * * *")
# Each harvest page queues its papers' embeddings; this entry works through the
# backlog (a new library, a change of model) a batch at a time, newest first.
EMBED_CRON = env_cron("PAPERTRAIL_CRON_EMBED", "*/10 * * * *")
_DIGESTS_COLLECT_SECONDS = env_int("PAPERTRAIL_SUMMARY_COLLECT_SECONDS", 600, minimum=60)
_DIGESTS_DRAIN_SECONDS = env_int("PAPERTRAIL_SUMMARY_DRAIN_SECONDS", 3600, minimum=60)
# The overview's numbers are computed by a task every minute and stored in the
# cache, so no page request computes them; a request does only when the stored
# numbers are older than PORTAL_STATS_MAX_AGE_SECONDS (no worker or beat, an
# emptied cache). The pages show when the numbers were computed (the window end).
PORTAL_STATS_REFRESH_SECONDS = env_int("PAPERTRAIL_STATS_REFRESH_SECONDS", 60, minimum=10)
PORTAL_STATS_MAX_AGE_SECONDS = env_int(
    "PAPERTRAIL_STATS_MAX_AGE_SECONDS", PORTAL_STATS_REFRESH_SECONDS + 30, minimum=PORTAL_STATS_REFRESH_SECONDS
)

# Full text (harvest/fulltext/): a fetching run every ten minutes and the day's
# selection (saved, "for you", popular) once a day after the evening's matching.
FULLTEXT_CRON = env_cron("PAPERTRAIL_CRON_FULLTEXT", "*/10 * * * *")
FULLTEXT_SELECT_CRON = "50 3 * * *"
FULLTEXT_SOFT_TIME_LIMIT = 45 * 60
# Minutes between two syncs of each linked Zotero collection (pull, then push).
ZOTERO_SYNC_MINUTES = env_int("PAPERTRAIL_ZOTERO_SYNC_MINUTES", 15, minimum=1)

CELERY_BEAT_SCHEDULE = {
    # One check of each source on its own schedule.
    **{
        f"harvest-{slug}": {
            "task": "harvest.run_source",
            "schedule": crontab_from(cron),
            "args": [slug],
            "options": {"expires": expires_for(cron), "queue": "harvest"},
        }
        for slug, cron in HARVEST_SCHEDULES.items()
    },
    # The announcement feed and the evening OAI-PMH run, on US Eastern time.
    **{
        entry: {
            "task": "harvest.run_source",
            "schedule": schedule,
            "args": [slug],
            "options": {"expires": schedule.expires(), "queue": "harvest"},
        }
        for entry, (slug, schedule) in ZONED_HARVEST_SCHEDULES.items()
    },
    # Chat channels' due messages (accounts/channels/sending.py): each run claims
    # what is due, so a quarter-hour step bounds the delay after an announcement.
    "accounts-send-channels": {
        "task": "accounts.send_channels",
        "schedule": crontab_from("*/15 * * * *"),
        "options": {"expires": 600, "queue": "channels"},
    },
    "accounts-send-alerts": {
        "task": "accounts.send_alerts",
        "schedule": ALERTS_SCHEDULE,
        "options": {"expires": ALERTS_SCHEDULE.expires(), "queue": "default"},
    },
    # Follow definitions' matches past their retention (accounts.definition_matches).
    "accounts-prune-definition-matches": {
        "task": "accounts.prune_definition_matches",
        "schedule": crontab_from("40 3 * * *"),
        "options": {"expires": 3600, "queue": "default"},
    },
    "harvest-search-index": {
        "task": "harvest.index_search",
        "schedule": crontab_from(SEARCH_INDEX_CRON),
        "options": {"expires": expires_for(SEARCH_INDEX_CRON), "queue": "harvest"},
    },
    "harvest-embed-backlog": {
        "task": "harvest.embed_papers",
        "schedule": crontab_from(EMBED_CRON),
        "options": {"expires": expires_for(EMBED_CRON), "queue": "embed"},
    },
    # The guided readings that wait for their vector (a new library, a change
    # of model); each reading written queues its own.
    "digests-embed-readings": {
        "task": "digests.embed_readings",
        "schedule": crontab_from(EMBED_CRON),
        "options": {"expires": expires_for(EMBED_CRON), "queue": "embed"},
    },
    # Collects finished Message Batches results and submits a batch when the
    # backlog is above the threshold.
    "digests-collect-batches": {
        "task": "digests.collect_batches",
        "schedule": _DIGESTS_COLLECT_SECONDS,
        "options": {"expires": _DIGESTS_COLLECT_SECONDS * 9 // 10},
    },
    # Works through a backlog left by pauses, budget stops or lost messages.
    "digests-drain-backlog": {
        "task": "digests.drain_backlog",
        "schedule": _DIGESTS_DRAIN_SECONDS,
        "options": {"expires": _DIGESTS_DRAIN_SECONDS * 9 // 10},
    },
    "harvest-fetch-full-texts": {
        "task": "harvest.fetch_full_texts",
        "schedule": crontab_from(FULLTEXT_CRON),
        "options": {"expires": expires_for(FULLTEXT_CRON), "queue": "fulltext"},
    },
    "harvest-select-full-texts": {
        "task": "harvest.select_full_texts",
        "schedule": crontab_from(FULLTEXT_SELECT_CRON),
        "options": {"expires": 3600, "queue": "fulltext"},
    },
    # Research records kept in step with their Zotero collections (accounts.zotero).
    "accounts-zotero-sync": {
        "task": "accounts.zotero_sync_all",
        "schedule": float(ZOTERO_SYNC_MINUTES * 60),
        "options": {"expires": ZOTERO_SYNC_MINUTES * 48, "queue": "default"},
    },
    "portal-overview-stats": {
        "task": "portal.refresh_overview_stats",
        "schedule": float(PORTAL_STATS_REFRESH_SECONDS),
        "options": {"expires": PORTAL_STATS_REFRESH_SECONDS * 0.8, "queue": "default"},
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
