"""Full-text search against arxiv-sanity-lite's method on the same papers.

The baseline: a TF-IDF matrix over title + abstract (scikit-learn's
TfidfVectorizer with the settings arxiv-sanity-lite's compute.py uses:
unigrams and bigrams, English stop words, sublinear tf, l2 norm, min_df 5,
max_df 0.1, at most 20,000 features), searched by a linear scan per query:
the query's vector, its cosine with every paper (a sparse dot product, the
rows being unit vectors) and the top 20.

The library: harvest.filters.PaperFilterSet with `q`, its first page of 20
as /papers/ takes it (portal.pagination.keyset_page, ranked by relevance).

Known-item queries come from real recorded papers (the Kaggle sample and the
arXiv API fixtures), stored into the measured library inside a transaction
that is rolled back at the end, so the library is left as it was. Each
query is the paper's rarest title words; precision is the share of queries
whose paper is in the top 10.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import numpy as np
from django.db import connection, transaction
from django.http import QueryDict
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer, TfidfVectorizer

from bench.common import percentile
from harvest.filters import PaperFilterSet
from harvest.models import Paper
from harvest.search_index import SEARCH_VECTOR_SQL
from harvest.services import paper_upsert_many
from harvest.source_records import MalformedRecord
from harvest.sources.arxiv_api import records_from_atom
from harvest.sources.http import PermanentError
from harvest.sources.snapshot import parse_snapshot_line
from portal.pagination import keyset_page

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
KAGGLE = FIXTURES / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"
TOKEN = r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b"  # noqa: S105 (a word pattern, not a secret)
_TOKEN = re.compile(TOKEN)
QUERY_WORDS = 3
TOP = 20
PRECISION_AT = 10
TARGET_SPEEDUP = 100
# The comparison is defined at 100,000 papers; the TF-IDF matrix (bigrams) of a
# million took more than 19 GB of this machine's 23 before it was stopped.
MAX_PAPERS = 150_000


def vectorizer(**overrides):
    """arxiv-sanity-lite's settings; `overrides` only for a corpus too small for min_df and max_df."""
    settings = {
        "input": "content",
        "encoding": "utf-8",
        "decode_error": "replace",
        "strip_accents": "unicode",
        "lowercase": True,
        "analyzer": "word",
        "stop_words": "english",
        "token_pattern": TOKEN,
        "ngram_range": (1, 2),
        "max_features": 20_000,
        "norm": "l2",
        "use_idf": True,
        "smooth_idf": True,
        "sublinear_tf": True,
        "max_df": 0.1,
        "min_df": 5,
    }
    return TfidfVectorizer(**{**settings, **overrides})


def real_records() -> list:
    """Every real paper the fixtures record, once each (the Kaggle sample first)."""
    found = {}
    for line in KAGGLE.read_text().splitlines():
        try:
            record = parse_snapshot_line(line)
        except MalformedRecord:
            continue
        found.setdefault(record.arxiv_id, record)
    for path in sorted((FIXTURES / "arxiv_api").glob("*.json")):
        try:
            records = records_from_atom(json.loads(path.read_text())["body"].encode())
        except PermanentError:
            continue
        for record in records:
            found.setdefault(record.arxiv_id, record)
    return [record for record in found.values() if record.title.strip()]


def title_words(title: str) -> list[str]:
    words = [w.lower() for w in _TOKEN.findall(title)]
    return list(dict.fromkeys(w for w in words if len(w) > 2 and w not in ENGLISH_STOP_WORDS and not w.isdigit()))


def known_item_query(title: str, document_frequency: dict[str, int], words: int = QUERY_WORDS) -> str:
    """The title's `words` rarest words in the library (ties: the longer word
    first), in the title's order: what someone who remembers a paper types."""
    candidates = title_words(title)
    rarest = sorted(candidates, key=lambda w: (document_frequency.get(w, 0), -len(w)))[:words]
    return " ".join(w for w in candidates if w in rarest)


def precision(ranked: dict[str, list[str]], at: int = PRECISION_AT) -> float:
    """Share of known items (arXiv id → the ids a search returned, best first)
    found among the first `at` results."""
    if not ranked:
        return 0.0
    return sum(known in found[:at] for known, found in ranked.items()) / len(ranked)


class TfidfIndex:
    """arxiv-sanity-lite's search: one matrix, scanned whole per query."""

    def __init__(self, ids: list[str], texts: list[str], **overrides) -> None:
        self.ids = ids
        self.vectorizer = vectorizer(**overrides)
        self.matrix = self.vectorizer.fit_transform(texts).tocsr()

    def search(self, query: str, top: int = TOP) -> list[str]:
        scores = (self.matrix @ self.vectorizer.transform([query]).T).toarray().ravel()
        if not scores.any():
            return []
        best = np.argpartition(-scores, min(top, len(scores) - 1))[:top]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [self.ids[i] for i in best if scores[i] > 0]


def library_search(query: str) -> list[str]:
    """The first page of /papers/?q=…, as the page takes it."""
    params = QueryDict(mutable=True)
    params["q"] = query
    filterset = PaperFilterSet(params)
    assert filterset.is_valid(), filterset.errors
    page = keyset_page(filterset.qs, sort=filterset.chosen_sort, cursor=None, size=TOP)
    return [paper.arxiv_id for paper in page.papers]


def document_frequencies(texts: list[str]) -> dict[str, int]:
    counter = CountVectorizer(token_pattern=TOKEN, lowercase=True, strip_accents="unicode", binary=True)
    counts = counter.fit_transform(texts)
    totals = counts.sum(axis=0).A1
    return {word: int(totals[column]) for word, column in counter.vocabulary_.items()}


def _store_real_papers(records: list) -> None:
    """Into the open transaction, indexed for full-text search as the index pass does."""
    paper_upsert_many(records=records, durable=False)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE harvest_paper SET search_vector = {SEARCH_VECTOR_SQL}, search_pending = false "  # noqa: S608
            "WHERE search_pending"
        )


def measure(max_queries: int = 400) -> dict:
    library_size = Paper.objects.count()
    if library_size > MAX_PAPERS:
        return {"not_measured": f"{library_size:,} papers: the comparison runs on libraries of {MAX_PAPERS:,} or fewer"}
    records = real_records()
    with transaction.atomic():
        _store_real_papers(records)
        rows = list(Paper.objects.order_by("id").values_list("arxiv_id", "title", "abstract"))
        ids = [row[0] for row in rows]
        texts = [f"{title} {abstract}" for _, title, abstract in rows]
        del rows
        started = time.perf_counter()
        index = TfidfIndex(ids, texts)
        fit_seconds = time.perf_counter() - started
        frequencies = document_frequencies(texts)
        del texts
        queries = {}
        for record in records[:max_queries]:
            query = known_item_query(record.title, frequencies)
            if query:
                queries[record.arxiv_id] = query
        print(f"  search baseline: {len(ids):,} papers, {len(queries)} known-item queries", file=sys.stderr)
        found = {"library": {}, "tfidf": {}}
        timings = {"library": [], "tfidf": []}
        for method, search in (("library", library_search), ("tfidf", index.search)):
            search(next(iter(queries.values())))  # warm
            for arxiv_id, query in queries.items():
                started = time.perf_counter()
                found[method][arxiv_id] = search(query)
                timings[method].append((time.perf_counter() - started) * 1000)
        transaction.set_rollback(True)
    figures = {
        method: {
            "p50_ms": percentile(values, 0.5),
            "p95_ms": percentile(values, 0.95),
            "precision_at_10": precision(found[method]),
        }
        for method, values in timings.items()
    }
    speedup = figures["tfidf"]["p50_ms"] / figures["library"]["p50_ms"]
    return {
        "papers": len(ids),
        "real_papers": len(records),
        "queries": len(queries),
        "query_examples": dict(list(queries.items())[:5]),
        "tfidf_features": index.matrix.shape[1],
        "tfidf_nonzeros": int(index.matrix.nnz),
        "tfidf_fit_seconds": round(fit_seconds, 1),
        "library": figures["library"],
        "tfidf": figures["tfidf"],
        "speedup_p50": speedup,
        "speedup_p95": figures["tfidf"]["p95_ms"] / figures["library"]["p95_ms"],
        "meets_speed_target": speedup >= TARGET_SPEEDUP,
        "meets_precision_target": figures["library"]["precision_at_10"] >= figures["tfidf"]["precision_at_10"],
    }


def lines(report: dict) -> list[str]:
    if "not_measured" in report:
        return ["", f"full-text search vs TF-IDF linear scan: not measured ({report['not_measured']})"]
    lib, tfidf = report["library"], report["tfidf"]
    return [
        "",
        f"full-text search vs TF-IDF linear scan (arxiv-sanity-lite's method) over {report['papers']:,} papers, "
        f"{report['queries']} known-item queries from real papers ({report['tfidf_features']:,} features, "
        f"fit {report['tfidf_fit_seconds']} s)",
        f"  library:  p50 {lib['p50_ms']:.2f} ms, p95 {lib['p95_ms']:.2f} ms, "
        f"precision@10 {lib['precision_at_10']:.3f}",
        f"  TF-IDF:   p50 {tfidf['p50_ms']:.2f} ms, p95 {tfidf['p95_ms']:.2f} ms, "
        f"precision@10 {tfidf['precision_at_10']:.3f}",
        f"  library faster by {report['speedup_p50']:.1f}x at p50, {report['speedup_p95']:.1f}x at p95 "
        f"(target ≥ {TARGET_SPEEDUP}x: {'yes' if report['meets_speed_target'] else 'NO'}); precision equal or better: "
        f"{'yes' if report['meets_precision_target'] else 'NO'}",
    ]
