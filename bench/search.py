"""`make bench-search SCALE=1000000`: the semantic side of the library at scale.

    python -m bench.search --scale 1000000 [--runs 30] [--rebuild-vectors]

On the bench library (bench/data.py builds it first when needed):

- embeddings: one synthetic unit vector per paper (float16, the model's 384
  dimensions) written by COPY, since embedding a million papers with the real
  model takes a day on two cores (the throughput below says how long); quality
  is measured on real papers only (`manage.py evaluate_search`);
- the index: `build_index` from the database (its time, the file's size);
- speed: the real model's query embedding, the index search, "similar
  papers" through the API, and the hybrid search through the page and the API
  (Django's test client in process, as bench/portal.py), p50/p95 over `--runs`
  real-text queries after one untimed run each;
- memory: the index file (shared by every web worker through the page cache)
  and the private memory a process adds when it opens and searches it; the
  machine's total for four web workers;
- throughput: the real model on real passages (title and the abstract's
  lead) from the evaluation collection, papers a second, and what a day's
  2,600 versions and a million-paper backfill take on one worker.
"""

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

from bench import common
from bench.portal import BENCH_ENV, library_meta

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
    from django.db import connection

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
    from harvest.embeddings.passages import passage_text

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


def run(args: argparse.Namespace) -> dict:
    url = common.database_url()
    meta = library_meta(url)
    if not meta or meta["parameters"]["scale"] != args.scale:
        print(f"building the library of {args.scale:,} papers first", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "bench.data", "--scale", str(args.scale)], cwd=ROOT, check=True)
    common.use_database(url)
    os.environ.update(BENCH_ENV)
    import django

    django.setup()
    from django.db import connection
    from django.test import Client

    from harvest.embeddings.encoders import get_encoder
    from harvest.embeddings.index import VectorIndex, build_index, index_directory
    from harvest.models import Paper

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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--rebuild-vectors", action="store_true", help="write every synthetic vector again")
    parser.add_argument("--rebuild-index", action="store_true", help="build the index file even if it is current")
    parser.add_argument("--results", default=str(common.RESULTS))
    args = parser.parse_args(argv)
    report = run(args)
    print(json.dumps(report, indent=2))
    common.write_report(report, args.results, f"search-scale{args.scale}")


if __name__ == "__main__":
    main()
