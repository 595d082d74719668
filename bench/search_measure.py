"""The search bench's measurements (bench/search.py says what each is), on
the bench database that `python -m bench search` configures."""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

import numpy as np
from django.db import connection
from django.test import Client

from bench import common
from harvest.embeddings.encoders import get_encoder
from harvest.embeddings.index import VectorIndex, build_index, index_directory
from harvest.embeddings.passages import passage_text
from harvest.models import Paper

ROOT = Path(__file__).resolve().parent.parent
QUERIES = (
    "federated learning privacy",
    "how can a robot pick up objects it has never seen?",
    "大语言模型 推理 加速",
    "graph neural networks for molecules",
    "扩散模型 图像生成",
    "testing of machine learning systems",
    "efficient attention for long documents",
    "如何检测分布外样本",
)
DIMENSION = 384
COPY_CHUNK = 50_000


def private_mib() -> float:
    """The process's own memory (RssAnon): the index file's pages it reads are
    the page cache's, shared by every process that maps the file."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fill_vectors(model: str, *, rebuild: bool) -> dict:
    """One synthetic unit vector per paper without one, by COPY."""
    with connection.cursor() as cursor:
        if rebuild:
            cursor.execute("TRUNCATE harvest_paperembedding")
        cursor.execute(
            "SELECT id FROM harvest_paper p WHERE NOT EXISTS "
            "(SELECT 1 FROM harvest_paperembedding e WHERE e.paper_id = p.id) ORDER BY id"
        )
        missing = [row[0] for row in cursor.fetchall()]
    rng = np.random.default_rng(7)
    started = time.monotonic()
    for start in range(0, len(missing), COPY_CHUNK):
        ids = missing[start : start + COPY_CHUNK]
        vectors = rng.standard_normal((len(ids), DIMENSION)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        lines = io.StringIO()
        for paper_id, vector in zip(ids, vectors.astype("<f2"), strict=True):
            lines.write(f"{paper_id}\t{model}\t\\\\x{vector.tobytes().hex()}\tsynthetic\t2026-12-01 00:00:00+00\n")
        lines.seek(0)
        with (
            connection.cursor() as cursor,
            cursor.copy(
                "COPY harvest_paperembedding (paper_id, model, vector, text_hash, embedded_at) FROM STDIN"
            ) as copy,
        ):
            copy.write(lines.getvalue())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE harvest_paperembedding")
    return {"vectors_written": len(missing), "seconds": round(time.monotonic() - started, 1)}


def timed(fn, runs: int) -> dict:
    fn(0)  # untimed first run
    timings = []
    for run in range(runs):
        started = time.perf_counter()
        fn(run)
        timings.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": round(common.percentile(timings, 0.5), 1), "p95_ms": round(common.percentile(timings, 0.95), 1)}


def throughput(encoder) -> dict:
    collection = ROOT / "tests" / "fixtures" / "search_eval" / "papers.jsonl"
    with collection.open(encoding="utf-8") as lines:
        papers = [json.loads(line) for _, line in zip(range(256), lines, strict=False)]
    texts = [passage_text(paper["title"], paper["abstract"]) for paper in papers]
    started = time.monotonic()
    for start in range(0, len(texts), 32):
        encoder.embed_passages(texts[start : start + 32])
    rate = len(texts) / (time.monotonic() - started)
    return {
        "papers_per_second": round(rate, 1),
        "day_of_2600_versions_minutes": round(2600 / rate / 60, 1),
        "backfill_of_1m_hours": round(1_000_000 / rate / 3600, 1),
    }


def measure(args: argparse.Namespace) -> dict:
    encoder = get_encoder()
    report: dict = {"scale": args.scale, "machine": common.machine(connection), "model": encoder.name}
    print("writing synthetic vectors", file=sys.stderr)
    report["vectors"] = fill_vectors(encoder.name, rebuild=args.rebuild_vectors)
    print("building the index", file=sys.stderr)
    started = time.monotonic()
    size = build_index(model=encoder.name, dimension=encoder.dimension, force=args.rebuild_index)
    path = index_directory() / f"{encoder.name.replace('/', '_')}.usearch"
    report["index"] = {
        "papers": size if size >= 0 else "current, not rebuilt",
        "build_seconds": round(time.monotonic() - started, 1),
        "file_mib": round(path.stat().st_size / 2**20, 1),
    }
    before = private_mib()
    index = VectorIndex(encoder.name, encoder.dimension)
    vectors = [encoder.embed_query(text) for text in QUERIES]
    index.search(vectors[0], 400)
    report["speed"] = {
        "query_embedding": timed(lambda run: encoder.embed_query(QUERIES[run % len(QUERIES)]), args.runs),
        "index_search_k400": timed(lambda run: index.search(vectors[run % len(vectors)], 400), args.runs),
    }
    private = private_mib() - before
    report["memory"] = {
        "index_file_mib_shared": report["index"]["file_mib"],
        "process_private_mib": round(private, 1),
        "machine_with_4_web_workers_mib": round(report["index"]["file_mib"] + 4 * private, 1),
    }
    client = Client()
    papers = list(Paper.objects.order_by("-id").values_list("arxiv_id", flat=True)[: args.runs + 1])
    report["speed"]["similar_papers_api"] = timed(
        lambda run: client.get(f"/api/v1/papers/{papers[run]}/similar/"), args.runs
    )
    for name, path_of in (
        ("hybrid_page", lambda q: f"/papers/?q={q}"),
        ("hybrid_api", lambda q: f"/api/v1/papers/?q={q}"),
        ("keyword_api", lambda q: f"/api/v1/papers/?q={q}&mode=keyword"),
    ):
        report["speed"][name] = timed(
            lambda run, path_of=path_of: client.get(path_of(QUERIES[run % len(QUERIES)])), args.runs
        )
    report["throughput"] = throughput(encoder)
    return report
