"""The committed message catalogs: every Chinese message translated, and the
compiled .mo files say what the .po files say."""

import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale"


def po_entries(path: Path) -> dict[str, str]:
    """msgid -> msgstr (the first form for plurals), from a .po file."""
    entries: dict[str, str] = {}
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        if "#, fuzzy" in block:
            pytest.fail(f"fuzzy entry in {path}: {block[:200]}")
        fields: dict[str, str] = {}
        current = None
        for line in block.splitlines():
            match = re.match(r'^(msgid|msgid_plural|msgstr(?:\[0\])?|msgstr\[\d\]) "(.*)"$', line)
            if match:
                current = match.group(1)
                fields[current] = match.group(2)
            elif line.startswith('"') and current:
                fields[current] += line[1:-1]
        if fields.get("msgid"):
            entries[fields["msgid"]] = fields.get("msgstr", fields.get("msgstr[0]", ""))
    return entries


@pytest.mark.parametrize("language", ["zh_Hans", "en"])
def test_every_message_is_translated_and_compiled(language):
    po = LOCALE / language / "LC_MESSAGES" / "django.po"
    entries = po_entries(po)
    assert len(entries) > 150
    untranslated = [msgid for msgid, msgstr in entries.items() if not msgstr]
    assert untranslated == []
    with (LOCALE / language / "LC_MESSAGES" / "django.mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    for msgid in entries:
        plain = msgid.encode().decode("unicode_escape").encode("latin-1").decode("utf-8")
        assert compiled.gettext(plain) != plain or language == "en" or plain in ("English", "简体中文"), msgid


def test_the_english_catalog_has_every_message_the_chinese_one_has():
    """A message the English catalogue lacks shows its msgid as it stands,
    unreviewed: each new Chinese message gets its English written too."""
    chinese = po_entries(LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.po")
    english = po_entries(LOCALE / "en" / "LC_MESSAGES" / "django.po")
    assert sorted(set(chinese) - set(english)) == []


def test_chinese_catalog_has_the_reference_wording():
    entries = po_entries(LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.po")
    assert entries["Some sources are failing"] == "部分采集异常"
    assert entries["Site-wide update overview"] == "全站更新概况"
    assert entries["Window %(start)s — %(end)s (Beijing time)"] == "统计 %(start)s — %(end)s（北京时间）"


# ASCII punctuation touching a Chinese character, outside placeholders, tags and code.
ASCII_BY_CHINESE = re.compile(r"[\u4e00-\u9fff][,;:?!()]|[,;:?!()][\u4e00-\u9fff]")
NOT_PROSE = re.compile(r"%\(\w+\)[sd]|<[^>]+>|<code>.*?</code>|'[^']*'|`[^`]*`")


def test_chinese_is_written_with_full_width_punctuation_in_one_voice():
    entries = po_entries(LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.po")
    prose = {msgid: NOT_PROSE.sub("", msgstr) for msgid, msgstr in entries.items()}
    assert [msgid for msgid, text in prose.items() if ASCII_BY_CHINESE.search(text)] == []
    assert [msgid for msgid, msgstr in entries.items() if "您" in msgstr or "账户" in msgstr] == []
    # Placeholders, tags and numbers stay as written.
    assert entries["Found more than %(n)s papers"].count("%(n)s") == 1
    assert entries["Too many failed sign-in attempts. Try again in %(seconds)d seconds."] == (
        "登录失败次数过多，请在 %(seconds)d 秒后再试。"
    )
    token_help = next(msgstr for msgid, msgstr in entries.items() if msgid.startswith("Send a token in the"))
    assert (
        "<code>Authorization: Bearer &lt;token&gt;</code>" in token_help and '<a href=\\"/api/docs/\\">' in token_help
    )


def test_allauths_texts_that_reach_readers_say_you_as_the_site_does():
    with (LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    assert compiled.gettext("You have signed out.") == "你已退出登录。"
    assert compiled.gettext("Verify Your Email Address") == "验证你的电子邮件地址"
    assert "您" not in compiled.gettext("The username and/or password you specified are not correct.")
    # The mails' greeting reads as a sentence around the site's name (allauth's said "来自研踪 PaperTrail的 Hello!").
    greeting = compiled.gettext("Hello from %(site_name)s!") % {"site_name": "研踪 PaperTrail"}
    assert greeting == "你好，这里是研踪 PaperTrail！"
