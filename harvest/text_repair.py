"""Text as arXiv and the recordings give it, made readable at ingest.

Two things real records carry that no reader should see:
- TeX for accented and special letters, as arXiv's metadata writes names and
  words ("Pi\\v{z}urica", "Koll\\'ar", "G{\\"o}del", "\\ss"): decoded to
  Unicode by pylatexenc, one macro at a time, outside math (`$…$`, `\\(…\\)`,
  `\\[…\\]` stay as written, for KaTeX). Only accent and letter macros are
  decoded (and the escapes `\\&`, `\\%`, `\\#`, `\\_`); any other command is
  left alone, so an abstract's `\\cite` or `\\textbf` never loses its text.
- UTF-8 decoded as Latin-1 or Windows-1252 once too often ("BetÃ¼l
  KaragÃ¶z", "$Ï\\x84$"): repaired by ftfy's `fix_encoding`, which changes
  a text only when the repair is unambiguous (a text that merely holds
  accents is left as it is).

And one thing that is never text: an ASCII control character other than a
tab or a line break, such as the DEL that arXiv's 2016 OAI records hold before
a TeX accent ("Pl\\x7f\\"ucker"), is dropped.

Both are cheap on the common case: pure ASCII skips the encoding repair,
a text without a backslash skips the TeX decoding.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import ftfy
from pylatexenc.latex2text import LatexNodes2Text

_MATH = re.compile(r"\$\$.+?\$\$|(?<!\\)\$[^$]+?(?<!\\)\$|\\\(.+?\\\)|\\\[.+?\\\]", re.DOTALL)
# \'e \'{e} \' e \v{z} \v z \'{\i} \c{c}; letter-named accents (\u \v \H \c \k \r \d \b) only when no
# letter follows the command's name, so \cite, \varepsilon or \delta are never read as accents.
_ACCENT = (
    r"\\(?:['`^\"~=.]|[uvHckrdb](?![A-Za-z]))\s*"
    r"(?:\{\s*(?:\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|\\[ij](?![A-Za-z])|[A-Za-z])"
)
_LETTER = r"\\(?:ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])(?:\{\}|\s(?=[A-Za-z]))?"
_ESCAPE = r"\\[&%#_]"
_TEX = re.compile(rf"\{{(?:{_ACCENT}|{_LETTER})\}}|{_ACCENT}|{_LETTER}|{_ESCAPE}")
_latex = LatexNodes2Text()
# C0 controls but tab, line feed and carriage return, and DEL. C1 controls stay:
# mis-decoded UTF-8 is made of them and ftfy needs them to repair it.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def readable(text: str) -> str:
    """The text with control characters dropped, mis-decoded UTF-8 repaired
    and TeX letters decoded."""
    if not text:
        return text
    text = _CONTROL.sub("", text)
    if not text.isascii():
        text = ftfy.fix_encoding(text)
    if "\\" in text:
        text = decode_tex(text)
    return text


def decode_tex(text: str) -> str:
    """TeX accent and letter macros as Unicode, outside math."""
    parts = _MATH.split(text)
    maths = _MATH.findall(text)
    out = [_TEX.sub(_decoded, parts[0])]
    for math, part in zip(maths, parts[1:], strict=True):
        out += [math, _TEX.sub(_decoded, part)]
    return "".join(out)


def _decoded(match: re.Match) -> str:
    return _letter(match.group(0))


@lru_cache(maxsize=4096)
def _letter(tex: str) -> str:
    decoded = unicodedata.normalize("NFC", _latex.latex_to_text(tex.strip()))
    # A macro pylatexenc does not know comes back as itself or empty: keep what was written.
    return decoded if decoded and "\\" not in decoded and len(decoded) <= 2 else tex
