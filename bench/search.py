"""`make bench-search SCALE=1000000`: the semantic side of the library at scale.

    python -m bench search --scale 1000000 [--runs 30] [--rebuild-vectors] [--vectors N] [--no-throughput]

On the bench library (bench/data.py builds it first when needed):

- embeddings: one synthetic unit vector per paper (float16, the model's
  dimensions: 768 for the default ensemble) written by COPY (`--vectors N`: for
  the newest N papers only, where the index of all would take too long to
  build), since embedding a million papers with the real models takes days on
  two cores (the throughput below says how long); quality is measured on real
  papers only (`manage.py evaluate_search`);
- the index: `build_index` from the database (its time, the file's size);
- speed: the real model's query embedding, the index search, "similar
  papers" through the API, and the hybrid search through the page and the API
  (Django's test client in process, as bench/portal.py), p50/p95 over `--runs`
  real-text queries after one untimed run each;
- memory (bench/search_memory.py): what the query encoders, the gloss and the
  index add to a process, and the machine's total for four web workers forked
  with the models loaded in each and loaded once before the fork (--preload);
- throughput: each real model on real passages (title and the abstract's
  lead) from the evaluation collection, papers a second on one thread and on
  the worker's threads, and what a day's 2,600 versions and a million-paper
  backfill take the ensemble on one worker.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from bench import common, search_memory
from bench.search_measure import measure

ROOT = Path(__file__).resolve().parent.parent


def run(args: argparse.Namespace) -> dict:
    url = common.database_url()
    meta = common.library_meta(url)
    if not meta or meta["parameters"]["scale"] != args.scale:
        print(f"building the library of {args.scale:,} papers first", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "bench", "data", "--scale", str(args.scale)], cwd=ROOT, check=True)
    return measure(args)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--rebuild-vectors", action="store_true", help="write every synthetic vector again")
    parser.add_argument("--rebuild-index", action="store_true", help="build the index file even if it is current")
    parser.add_argument(
        "--vectors", type=int, help="vectors (and so an index) for the newest N papers only: the rest have none"
    )
    parser.add_argument("--no-throughput", action="store_true", help="skip the models' throughput (minutes)")
    parser.add_argument("--results", default=str(common.RESULTS))
    # One memory measurement in a fresh process (bench/search_memory.py), run by the bench itself.
    parser.add_argument("--memory", choices=("parts", "machine", "machine-preload"), help=argparse.SUPPRESS)
    parser.add_argument("--memory-queries", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory:
        search_memory.main([args.memory, "--queries", args.memory_queries])
        return
    report = run(args)
    print(json.dumps(report, indent=2))
    common.write_report(report, args.results, f"search-scale{args.scale}")
