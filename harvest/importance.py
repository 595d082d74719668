"""Importance signals read from a version's own text at ingest: a code link
(the first GitHub, GitLab or Hugging Face URL of the abstract or comments)
and a venue acceptance stated in the comments ("Accepted at NeurIPS 2026",
"ICLR 2026 oral"). Both are plain functions of text, conservative by design: a
venue is only one of VENUES named in a clause that says it accepted the paper
(or that is nothing but the venue, its year and a track), and a clause that
says "submitted" or "under review" never counts. docs/decisions.md
("Popular papers") gives the formats the real recordings showed.
"""

from __future__ import annotations

import math
import re

from django.db.models import Case, F, FloatField, Q, Value, When
from django.db.models.expressions import Combinable
from django.db.models.functions import Cast, Least, Ln

# Longest value each column holds (harvest.models.Paper); longer is no link.
CODE_URL_CHARS = 500
VENUE_CHARS = 64

# --- code links -----------------------------------------------------------------

# The URL runs to whitespace or to a character arXiv text puts around one:
# TeX braces (\url{...}, \href{...}{...}), angle brackets and quotes.
_CODE_URL = re.compile(
    r"(?<![\w.\-/@])(?:https?://)?(?:www\.)?(github\.com|gitlab\.com|huggingface\.co)(/[^\s{}<>\"'\\]+)",
    re.IGNORECASE,
)
_HOSTS = ("github.com", "gitlab.com", "huggingface.co")
_TRAILING = ".,;:!?)]*"
# Site pages, not a project's repository or model.
_NOT_PROJECTS = {
    "github.com": {"about", "features", "topics", "orgs", "sponsors", "marketplace", "settings", "login", "search"},
    "gitlab.com": {"explore", "users", "help", "search"},
    "huggingface.co": {"papers", "blog", "docs", "login", "join", "pricing", "search", "api", "learn", "tasks"},
}


def _trimmed(path: str) -> str:
    while path and path[-1] in _TRAILING:
        if path[-1] == ")" and path.count("(") >= path.count(")"):
            break  # a balanced parenthesis belongs to the URL
        path = path[:-1]
    return path


def code_link(*texts: str) -> str:
    """The first code URL in these texts (abstract, then comments), as
    https://host/path, or "" when none: github.com/<owner>/<repo>,
    gitlab.com/<group>/<project>[/...], huggingface.co/<...> (a model, data
    set or space; not its paper pages)."""
    for text in texts:
        lowered = (text or "").lower()
        # Most texts hold no such host: a substring test is a fiftieth of the regex's scan.
        if not any(host in lowered for host in _HOSTS):
            continue
        for found in _CODE_URL.finditer(text):
            host = found.group(1).lower()
            path = _trimmed(found.group(2))
            segments = [segment for segment in path.split("/") if segment]
            if not segments or segments[0].lower() in _NOT_PROJECTS[host]:
                continue
            if host != "huggingface.co" and len(segments) < 2:
                continue  # an owner's page, not a repository
            if host == "github.com":
                path = "/" + "/".join(segments[:2])
                path = path.removesuffix(".git")
            url = f"https://{host}{path}"
            if len(url) <= CODE_URL_CHARS:
                return url
    return ""


# --- venue acceptances ------------------------------------------------------------

# Canonical short name -> how comments write it (case-sensitive: "chi" and
# "www" are words too). Where a community spells it otherwise, the spellings
# are listed; NIPS is NeurIPS before 2018.
VENUES: dict[str, tuple[str, ...]] = {
    "NeurIPS": ("NeurIPS", "NEURIPS", "Neurips", "NIPS"),
    "ICML": ("ICML",),
    "ICLR": ("ICLR",),
    "CVPR": ("CVPR",),
    "ICCV": ("ICCV",),
    "ECCV": ("ECCV",),
    "WACV": ("WACV",),
    "ACL": ("ACL",),
    "EMNLP": ("EMNLP",),
    "NAACL": ("NAACL",),
    "EACL": ("EACL",),
    "COLING": ("COLING",),
    "COLM": ("COLM",),
    "AAAI": ("AAAI",),
    "IJCAI": ("IJCAI",),
    "AISTATS": ("AISTATS",),
    "UAI": ("UAI",),
    "COLT": ("COLT",),
    "KDD": ("KDD", "SIGKDD"),
    "SIGIR": ("SIGIR",),
    "WWW": ("WWW", "TheWebConf"),
    "WSDM": ("WSDM",),
    "CIKM": ("CIKM",),
    "RecSys": ("RecSys",),
    "SIGMOD": ("SIGMOD",),
    "VLDB": ("VLDB", "PVLDB"),
    "ICDE": ("ICDE",),
    "OSDI": ("OSDI",),
    "SOSP": ("SOSP",),
    "NSDI": ("NSDI",),
    "EuroSys": ("EuroSys",),
    "ASPLOS": ("ASPLOS",),
    "ISCA": ("ISCA",),
    "MICRO": ("MICRO",),
    "SIGCOMM": ("SIGCOMM",),
    "CCS": ("CCS",),
    "USENIX Security": ("USENIX Security",),
    "NDSS": ("NDSS",),
    "CHI": ("CHI",),
    "UIST": ("UIST",),
    "SIGGRAPH": ("SIGGRAPH",),
    "ICRA": ("ICRA",),
    "IROS": ("IROS",),
    "CoRL": ("CoRL",),
    "RSS": ("RSS",),
    "MICCAI": ("MICCAI",),
    "ICASSP": ("ICASSP",),
    "INTERSPEECH": ("INTERSPEECH", "Interspeech"),
    "ICSE": ("ICSE",),
    "FSE": ("FSE", "ESEC/FSE"),
    "ASE": ("ASE",),
    "ISSTA": ("ISSTA",),
    "ICST": ("ICST",),
    "PLDI": ("PLDI",),
    "POPL": ("POPL",),
    "OOPSLA": ("OOPSLA",),
    "STOC": ("STOC",),
    "FOCS": ("FOCS",),
    "SODA": ("SODA",),
    "ICALP": ("ICALP",),
    "CAV": ("CAV",),
}
_SPELLING = {spelling: name for name, spellings in VENUES.items() for spelling in spellings}
# A spelling as a word of its own: not inside a longer name (ICSTW, ACLs), a
# DOI (10.1109/ICST.2017.52) or a URL (icst2021.icmc...).
_VENUE = re.compile(
    r"(?<![\w/.-])("
    + "|".join(re.escape(s) for s in sorted(_SPELLING, key=len, reverse=True))
    + r")(?:(?:\s*(\d{4})|\s?['\u2019](\d{2})|-?(\d{2}))(?!\d)|(?=[\s,;:.()\]'-]|$))(?![\w/]|\.\d)"
)
_YEAR = re.compile(r"(?<![\w./-])(?:19[89]\d|20\d\d)(?![\w/-])")
# What says the paper was accepted (at the start of or inside a clause).
_ACCEPTED = re.compile(
    r"\b(?:accepted|to appear|appearing|appears|to be published|published|presented|camera[- ]ready|"
    r"in (?:the )?proceedings of)\b",
    re.IGNORECASE,
)
# What says it was not (yet), or that another paper was ("Part of this work
# has been presented at ..."): such a clause never counts.
_NOT_ACCEPTED = re.compile(
    r"\b(?:submitted|submission|under review|in review|under consideration|rejected|withdrawn|"
    r"part of this work|(?:preliminary|earlier|shorter|extended|conference) version|extension of)\b",
    re.IGNORECASE,
)
TRACKS = ("oral", "spotlight", "poster", "workshop", "findings")
_TRACK = re.compile(r"\b(" + "|".join(TRACKS) + r")s?\b", re.IGNORECASE)
# A clause ends at a semicolon, a line break, a bar or a sentence's full stop
# (not an abbreviation's: "Proc. of", "Phys. Rev.").
_CLAUSES = re.compile(r"[;\n|]|(?<=[a-z0-9)\]])\.\s+(?=[A-Z])")
# Nothing but the venue, its year and a track: "CVPR 2021", "ICLR 2026 (oral)".
_BARE = re.compile(r"^\W*(?:the\s+)?\S+?\s*'?\d{2,4}\W*(?:\(?\s*(?:" + "|".join(TRACKS) + r")s?\s*\)?)?\W*$", re.I)


def _year(clause: str, match: re.Match) -> str:
    if match.group(2):
        return match.group(2)
    if match.group(3) or match.group(4):
        return f"20{match.group(3) or match.group(4)}"
    # Else the year nearest the name in the clause ("(ICST) 2023", "2025 IEEE ... (ICST)").
    years = [(abs(found.start() - match.start()), found.group()) for found in _YEAR.finditer(clause)]
    return min(years)[1] if years else ""


def venue_acceptance(comments: str) -> str:
    """The venue that the comments say accepted the paper, as "NeurIPS 2026
    oral" (name, year where given, track where given), or ""."""
    if not comments or _VENUE.search(comments) is None:
        return ""  # most comments name no venue: one scan, no clauses
    for clause in _CLAUSES.split(comments):
        if _NOT_ACCEPTED.search(clause):
            continue
        match = _VENUE.search(clause)
        if match is None:
            continue
        accepted = _ACCEPTED.search(clause)
        if not ((accepted and accepted.start() < match.start()) or _BARE.match(clause)):
            continue
        parts = [_SPELLING[match.group(1)], _year(clause, match)]
        track = _TRACK.search(clause)
        if track:
            parts.append(track.group(1).lower())
        venue = " ".join(part for part in parts if part)
        return venue[:VENUE_CHARS]
    return ""


# --- the popularity score ------------------------------------------------------

# Weights of the score (docs/decisions.md, "Popular papers"): upvotes count
# on a log scale, so a hundred upvotes outweigh ten by about twice, not ten
# times; a code link is worth about what two upvotes are, an acceptance three
# and a half, and each revision (at most three) one.
UPVOTE_WEIGHT = 2.0
CODE_WEIGHT = 2.0
VENUE_WEIGHT = 3.0
REVISION_WEIGHT = 1.0
MAX_REVISIONS_COUNTED = 3


def popularity_expression() -> Combinable:
    """The score as a database expression over a paper's own columns (the
    stored, generated column Paper.popularity)."""
    upvotes = Ln(Cast(F("upvotes"), FloatField()) + Value(1.0)) * Value(UPVOTE_WEIGHT)
    code = Case(When(~Q(code_url=""), then=Value(CODE_WEIGHT)), default=Value(0.0), output_field=FloatField())
    venue = Case(When(~Q(venue=""), then=Value(VENUE_WEIGHT)), default=Value(0.0), output_field=FloatField())
    revisions = Cast(Least(F("version_count") - Value(1), Value(MAX_REVISIONS_COUNTED)), FloatField())
    return upvotes + code + venue + revisions * Value(REVISION_WEIGHT)


def popularity(*, upvotes: int, code_url: str, venue: str, version_count: int) -> float:
    """The same score in Python (tests, the benchmark's expectations)."""
    return (
        math.log(upvotes + 1.0) * UPVOTE_WEIGHT
        + (CODE_WEIGHT if code_url else 0.0)
        + (VENUE_WEIGHT if venue else 0.0)
        + min(version_count - 1, MAX_REVISIONS_COUNTED) * REVISION_WEIGHT
    )
