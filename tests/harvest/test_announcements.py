"""The completeness report and its command, the next announcement, the beat
entries read in US Eastern time, the first-run window, the sources' rows."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.sql import emit_post_migrate_signal

from harvest.completeness import announcement_completeness, latest_announcement, next_expected_announcement
from harvest.models import Source
from harvest.runs import harvest_source
from harvest.source_rows import configured_slugs
from papertrail.schedules import ZonedCron
from tests.harvest import oai_pages, rss_feeds
from tests.replay_server import Reply

STAT_DAY = date(2024, 3, 26)
ITEMS = rss_feeds.items()


@pytest.fixture
def feeds(settings, replay_server):
    settings.ARXIV_RSS_URL = f"{replay_server.url}/rss"
    settings.ARXIV_RSS_CATEGORIES = ["stat"]
    settings.ARXIV_OAI_URL = f"{replay_server.url}/oai"
    return replay_server


def completeness_command(days: int) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("check_completeness", "--days", str(days), stdout=out, stderr=out)
    except SystemExit as exc:
        return exc.code, out.getvalue()
    return 0, out.getvalue()


@pytest.mark.django_db
@pytest.mark.calendar  # the command's days are counted back from today
def test_a_paper_the_feed_could_not_give_is_missing_until_the_oai_pass_brings_it(feeds):
    template = ITEMS["oai:arXiv.org:2403.15527v1"]
    untitled = rss_feeds.relabelled(template, arxiv_id="0704.0716", version=4, announce_type="replace", title="")
    feeds.queue("/rss/stat", Reply(body=rss_feeds.feed([template, untitled])))
    harvest_source(slug="arxiv_rss")
    today = date(2024, 3, 28)

    [day] = announcement_completeness(days=14, today=today)

    assert (day.day, day.listed, day.held, day.missing, day.behind) == (STAT_DAY, 2, 1, ["0704.0716"], [])
    assert not day.complete
    assert announcement_completeness(days=2, today=today) == []  # 26 March is three days back
    days = (datetime.now(UTC).date() - STAT_DAY).days + 1
    code, output = completeness_command(days)
    assert code == 1 and "2024-03-26" in output and "missing: 0704.0716" in output

    records = oai_pages.recorded_records()
    feeds.queue("/oai", Reply(body=oai_pages.list_records_page([records["0704.0716"]], token=None)))
    harvest_source(slug="arxiv")

    [day] = announcement_completeness(days=14, today=today)
    assert (day.listed, day.held, day.missing, day.complete) == (2, 2, [], True)
    code, output = completeness_command(days)
    assert code == 0 and "Every announced paper is in the library" in output


@pytest.mark.django_db
def test_a_paper_held_at_an_older_version_than_listed_is_behind(feeds):
    template = ITEMS["oai:arXiv.org:2403.14152v2"]
    feeds.queue(
        "/rss/stat",
        Reply(body=rss_feeds.feed([rss_feeds.relabelled(template, version=1, announce_type="new")])),
        Reply(
            body=rss_feeds.feed([rss_feeds.relabelled(template, title="")], pub_date="Wed, 27 Mar 2024 00:00:00 -0400")
        ),
    )
    harvest_source(slug="arxiv_rss")
    harvest_source(slug="arxiv_rss")

    report = announcement_completeness(days=14, today=date(2024, 3, 28))

    assert [(d.day, d.listed, d.held, d.behind) for d in report] == [
        (date(2024, 3, 27), 1, 0, [("2403.14152", 2, 1)]),
        (STAT_DAY, 1, 1, []),
    ]
    assert latest_announcement().announced_on == date(2024, 3, 27)
    assert latest_announcement(feed="cs") is None


def test_the_next_announcement_is_sunday_to_thursday_at_eight_pm_eastern():
    friday_evening = datetime(2026, 2, 27, 23, 0, tzinfo=UTC)  # Fri 18:00 EST
    assert next_expected_announcement(after=friday_evening) == datetime(2026, 3, 2, 1, 0, tzinfo=UTC)  # Sun 20:00 EST
    # Daylight saving time starts on Sunday 8 March: 20:00 EDT is midnight UTC.
    assert next_expected_announcement(after=datetime(2026, 3, 6, 23, 0, tzinfo=UTC)) == datetime(
        2026, 3, 9, 0, 0, tzinfo=UTC
    )
    thursday_night = datetime(2026, 3, 13, 1, 30, tzinfo=UTC)  # Thu 21:30 EDT
    assert next_expected_announcement(after=thursday_night) == datetime(2026, 3, 16, 0, 0, tzinfo=UTC)


def test_the_next_announcement_skips_the_holidays_of_the_setting(settings):
    thursday_afternoon = datetime(2026, 11, 26, 18, 0, tzinfo=UTC)  # Thanksgiving, 13:00 EST
    assert next_expected_announcement(after=thursday_afternoon) == datetime(2026, 11, 27, 1, 0, tzinfo=UTC)
    settings.PAPERTRAIL_ARXIV_HOLIDAYS = frozenset({date(2026, 11, 26)})
    # No announcement that evening: the next is Sunday's.
    assert next_expected_announcement(after=thursday_afternoon) == datetime(2026, 11, 30, 1, 0, tzinfo=UTC)


def test_the_holidays_setting_is_empty_by_default():
    assert not settings.PAPERTRAIL_ARXIV_HOLIDAYS


def test_the_feed_is_polled_every_five_minutes_in_the_announcement_window_and_hourly_otherwise():
    entry = settings.CELERY_BEAT_SCHEDULE["harvest-arxiv_rss"]
    schedule = entry["schedule"]
    assert isinstance(schedule, ZonedCron) and entry["args"] == ["arxiv_rss"]
    assert schedule.zone == "America/New_York"

    # Sunday 1 March 2026, 19:00 EST (00:00 UTC Monday).
    runs = schedule.next_runs(after=datetime(2026, 3, 2, 0, 0, tzinfo=UTC), count=22)
    eastern = [run.astimezone(schedule._zone).strftime("%a %H:%M") for run in runs]
    assert eastern[:3] == ["Sun 19:35", "Sun 20:00", "Sun 20:05"]
    assert eastern[-3:] == ["Sun 21:30", "Sun 21:35", "Sun 22:35"]
    assert len(eastern) == 22  # 19 polls from 20:00 to 21:30, then hourly
    # Friday and Saturday evenings: hourly only.
    friday = schedule.next_runs(after=datetime(2026, 3, 7, 0, 40, tzinfo=UTC), count=3)
    assert [run.astimezone(schedule._zone).strftime("%a %H:%M") for run in friday] == [
        "Fri 20:35",
        "Fri 21:35",
        "Fri 22:35",
    ]
    # Daylight saving time: 20:00 EDT is 00:00 UTC.
    assert schedule.next_run(datetime(2026, 3, 9, 23, 58, tzinfo=UTC)) == datetime(2026, 3, 10, 0, 0, tzinfo=UTC)
    assert entry["options"]["expires"] == 0.8 * 300


def test_a_zoned_entry_is_due_once_its_time_has_come_and_survives_pickling():
    import pickle

    now = [datetime(2026, 3, 10, 0, 2, tzinfo=UTC)]  # Mon 20:02 EDT
    schedule = ZonedCron(["*/5 20 * * 0-4"], "America/New_York", nowfun=lambda: now[0])
    due, wait = schedule.is_due(datetime(2026, 3, 9, 23, 58, tzinfo=UTC))
    assert due is True and wait == 180.0  # the next poll at 20:05
    due, wait = schedule.is_due(datetime(2026, 3, 10, 0, 0, tzinfo=UTC))
    assert due is False and wait == 180.0
    # Beat keeps its entries pickled in its own schedule file.
    stored = pickle.dumps(ZonedCron(["*/5 20 * * 0-4"], "America/New_York"))
    assert pickle.loads(stored) == ZonedCron(["*/5 20 * * 0-4"], "America/New_York")  # noqa: S301 - our own bytes


def test_oai_pmh_runs_soon_after_ten_pm_eastern_on_announcement_evenings():
    entry = settings.CELERY_BEAT_SCHEDULE["harvest-arxiv-after-announcement"]
    assert entry["args"] == ["arxiv"]
    runs = entry["schedule"].next_runs(after=datetime(2026, 1, 4, 12, 0, tzinfo=UTC), count=6)  # Sunday
    assert [run.strftime("%a %H:%M") for run in runs] == [
        "Mon 03:25",  # Sunday 22:25 EST
        "Tue 03:25",
        "Wed 03:25",
        "Thu 03:25",
        "Fri 03:25",  # Thursday evening; none on Friday or Saturday evening
        "Mon 03:25",
    ]


@pytest.mark.django_db
@pytest.mark.calendar  # the first run starts days back from today
def test_a_source_with_no_checkpoint_starts_the_configured_days_back(replay_server, settings):
    settings.ARXIV_OAI_URL = f"{replay_server.url}/oai"
    settings.PAPERTRAIL_FIRST_RUN_DAYS = 3
    replay_server.queue("/oai", Reply(body=oai_pages.error_reply("ErrorResponseNoRecordsMatch.xml")))
    harvest_source(slug="arxiv")
    assert replay_server.requests_to("/oai")[0].param("from") == (datetime.now(UTC).date() - timedelta(3)).isoformat()

    settings.PAPERTRAIL_FIRST_RUN_DAYS = 0  # 0: from arXiv's beginning
    Source.objects.filter(slug="arxiv").update(checkpoint={})
    replay_server.queue("/oai", Reply(body=oai_pages.error_reply("ErrorResponseNoRecordsMatch.xml")))
    harvest_source(slug="arxiv")
    assert replay_server.requests_to("/oai")[1].param("from") is None


@pytest.mark.django_db
def test_every_configured_source_has_an_enabled_row_after_migrate(settings):
    assert Source.objects.count() == 0  # test settings leave them out
    Source.objects.create(slug="hf_daily", name="Hugging Face", enabled=False)
    settings.PAPERTRAIL_CREATE_SOURCES = True

    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")

    rows = dict(Source.objects.values_list("slug", "enabled"))
    assert set(configured_slugs()) == {"arxiv", "hf_daily", "arxiv_rss"}
    assert rows == {"arxiv": True, "arxiv_rss": True, "hf_daily": False}  # a disabled one stays so
    assert Source.objects.get(slug="arxiv_rss").name == "arXiv announcements"
