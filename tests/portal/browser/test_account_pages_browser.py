"""The account pages in a real browser, in both languages, at a desktop's and a
phone's width: allauth's pages (sign-up, sign-in, verification, password reset
and its steps, email, password change) and the site's own (/me/, account
deletion, /follows/, the saved paper's panel, the trail's actions) wear the
site's style: they fit the width, their buttons are the site's and not the
browser's grey ones, and nothing logs a console error. Sign-up is photographed
at each width (test-output/screenshots/account-signup-<language>-<width>.png;
docs/screenshots/accounts/ holds the committed before/after pair)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.records.services import record_save
from accounts.trail.matching import match_versions
from harvest.models import Paper
from tests import factories as f
from tests.portal.browser.conftest import browser_page, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIDTHS = {1280: 900, 390: 844}
# The same page's heading in each language: the page is translated, not only framed.
ANONYMOUS_PAGES = {
    "/accounts/signup/": {"zh-hans": "注册", "en": "Sign Up"},
    "/accounts/login/": {"zh-hans": "登录", "en": "Sign In"},
    "/accounts/password/reset/": {"zh-hans": "重置密码", "en": "Password Reset"},
    "/accounts/password/reset/done/": {"zh-hans": "重置密码", "en": "Password Reset"},
    "/accounts/password/reset/key/1-wrong-key/": {"zh-hans": "链接无效", "en": "Bad Token"},
    "/accounts/confirm-email/": {"zh-hans": "验证你的电子邮件地址", "en": "Verify Your Email Address"},
    "/accounts/confirm-email/not-a-key/": {"zh-hans": "确认电子邮件地址", "en": "Confirm Email Address"},
}
SIGNED_IN_PAGES = {
    "/me/": {"zh-hans": "我的账号", "en": "My account"},
    "/me/delete/": {"zh-hans": "删除账号", "en": "Delete account"},
    "/accounts/email/": {"zh-hans": "电子邮件地址", "en": "Email Address"},
    "/accounts/password/change/": {"zh-hans": "修改密码", "en": "Change Password"},
    "/follows/": {"zh-hans": "我的关注", "en": "My follows"},
    "/trail/": {"zh-hans": "我的足迹", "en": "My trail"},
    "/papers/2611.00101/": {
        "zh-hans": "Diffusion policies for legged robots",
        "en": "Diffusion policies for legged robots",
    },
}
# Chromium's own look for a button nobody styled: light grey face, no rounding.
BROWSER_GREY = {"rgb(239, 239, 239)", "rgb(240, 240, 240)", "rgb(221, 221, 221)"}
LOOKS = """() => {
  const doc = document.documentElement;
  const buttons = [...document.querySelectorAll('main button')].filter((b) => b.offsetParent !== null);
  return {
    overflow: doc.scrollWidth - doc.clientWidth,
    heading: (document.querySelector('main h1') || {}).textContent || '',
    buttons: buttons.map((b) => {
      const style = getComputedStyle(b);
      return {text: b.textContent.trim(), face: style.backgroundColor, radius: style.borderTopLeftRadius};
    }),
    wider: [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > doc.clientWidth + 1)
      .map((e) => e.tagName + '.' + e.className).slice(0, 5),
  };
}"""


@pytest.fixture
def reader_session(request) -> str:
    """A reader (of the test's language) with a follow, a trail card and a saved
    paper with a note and tags."""
    language = getattr(request.node, "callspec", None) and request.node.callspec.params.get("language")
    reader = User.objects.create_user(
        "reader", email="reader@example.org", password="x", language=language or "zh-hans"
    )
    follow_create(user=reader, kind="category", value={"code": "cs.RO"}, name="Robotics")
    stored = f.store(
        f.record("2611.00101", title="Diffusion policies for legged robots", categories=["cs.RO"]),
        at=timezone.now(),
    )
    match_versions(version_ids=stored.created_version_ids)
    record_save(
        user=reader,
        paper=Paper.objects.get(arxiv_id="2611.00101"),
        state="reading",
        tags=["robots", "diffusion"],
        note="A note long enough to need its own line in the panel.",
    )
    client = Client()
    client.force_login(reader)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def assert_styled(page, path: str, heading: str, width: int) -> dict:
    looks = page.evaluate(LOOKS)
    assert looks["overflow"] <= 0, (path, width, looks["wider"])
    assert heading in looks["heading"], (path, looks["heading"])
    for button in looks["buttons"]:
        assert button["face"] not in BROWSER_GREY, (path, button)
        assert button["radius"] != "0px", (path, button)
    return looks


@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_account_pages_are_styled_translated_and_fit(live_server, reader_session, language, width):
    base = live_server.url
    with browser_page(viewport={"width": width, "height": WIDTHS[width]}) as (page, watch):
        page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base}])
        for path, headings in ANONYMOUS_PAGES.items():
            page.goto(f"{base}{path}")
            assert_styled(page, path, headings[language], width)
            if path == "/accounts/signup/":
                screenshot(page, f"account-signup-{language}-{width}", full_page=False)
                submit = page.locator("section.account form button[type=submit]").first
                assert submit.bounding_box()["y"] + submit.bounding_box()["height"] < WIDTHS[width] * 1.6
                for name in ("email", "username", "password1", "password2"):
                    field = page.locator(f"input[name={name}]").bounding_box()
                    assert field["width"] >= min(300, width - 80), (name, field)
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": reader_session, "url": base}])
        for path, headings in SIGNED_IN_PAGES.items():
            page.goto(f"{base}{path}")
            assert_styled(page, path, headings[language], width)
        assert page.locator("html").get_attribute("lang") == ("zh-Hans" if language == "zh-hans" else "en")
    watch.assert_clean()


def boxes_overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_me_headings_stand_clear_of_buttons_and_the_record_panel_stacks(live_server, reader_session, width):
    base = live_server.url
    with browser_page(viewport={"width": width, "height": WIDTHS[width]}) as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": reader_session, "url": base}])
        page.goto(f"{base}/me/")
        headings = page.locator("main h1, main h2, main h3")
        buttons = page.locator("main button")
        assert headings.count() >= 4 and buttons.count() >= 4
        for h in range(headings.count()):
            heading = headings.nth(h).bounding_box()
            for b in range(buttons.count()):
                box = buttons.nth(b).bounding_box()
                if box:
                    assert not boxes_overlap(heading, box), (headings.nth(h).inner_text(), buttons.nth(b).inner_text())
                    side_by_side = (
                        box["x"] >= heading["x"] + heading["width"] or box["x"] + box["width"] <= heading["x"]
                    )
                    gap = max(box["y"] - (heading["y"] + heading["height"]), heading["y"] - (box["y"] + box["height"]))
                    # a button under or over a heading keeps its distance instead of touching its text
                    assert side_by_side or gap >= 6, (headings.nth(h).inner_text(), buttons.nth(b).inner_text(), gap)

        page.goto(f"{base}/papers/2611.00101/")
        panel = "#record-{} ".format(page.locator("[data-record=saved]").get_attribute("id").split("-")[1])
        state = page.locator(f"{panel}select[name=state]").bounding_box()
        tags = page.locator(f"{panel}input[name=tags]").bounding_box()
        note = page.locator(f"{panel}textarea[name=note]").bounding_box()
        assert note["y"] >= max(state["y"] + state["height"], tags["y"] + tags["height"])  # the note has its own row
        assert note["width"] >= min(500, width - 80)
        if width < 720:
            assert tags["y"] >= state["y"] + state["height"]  # on a phone each field has its own row
        assert tags["width"] >= 200

        page.goto(f"{base}/trail/")
        actions = page.locator(".trail-actions button")
        assert actions.count() >= 2
        for n in range(actions.count()):
            face = actions.nth(n).evaluate("(b) => getComputedStyle(b).backgroundColor")
            assert face not in BROWSER_GREY
    watch.assert_clean()
