"""Notes: Markdown rendered with raw HTML off and sanitised to a small
allow-list; TeX survives untouched for KaTeX; hostile input stays text."""

import lxml.html
import pytest

from accounts.records.notes import ALLOWED_TAGS, render_note

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    '<a href="javascript:alert(3)">x</a>',
    "[click](javascript:alert(4))",
    "[click](data:text/html;base64,PHNjcmlwdD4=)",
    '<svg onload="alert(5)"></svg>',
    "<iframe src=//evil></iframe>",
    '"><b onmouseover=alert(6)>hover</b>',
    "$\\href{javascript:alert(7)}{x}$",
    "<style>body{display:none}</style>",
    "![x](https://evil.example/p.png)",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_notes_stay_inert(text):
    """Parsed back by a real HTML parser: only allowed elements, no event
    attributes, links only to http(s) or mail."""
    html = str(render_note(text))
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    for element in root.iter():
        assert element.tag == "div" or element.tag in ALLOWED_TAGS, (text, html)
        assert not [name for name in element.attrib if name.lower().startswith("on")], (text, html)
        href = element.get("href")
        assert href is None or href.startswith(("https:", "http:", "mailto:")), (text, html)


def test_markdown_renders_and_tex_is_left_for_katex():
    html = str(render_note("# Idea\n\n*see* $a_1 < b_2$ and \\(x^2\\)\n\n$$\\frac{a}{b}$$\n\n[ref](https://arxiv.org)"))
    assert "<h1>Idea</h1>" in html and "<em>see</em>" in html
    assert "$a_1 &lt; b_2$" in html and "\\(x^2\\)" in html and "$$\\frac{a}{b}$$" in html
    assert '<a href="https://arxiv.org" rel="noopener noreferrer nofollow">ref</a>' in html


def test_an_empty_note_renders_nothing():
    assert render_note("  \n") == ""
