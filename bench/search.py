"""`make bench-search SCALE=1000000`: the semantic side of the library at scale.

    python -m bench search --scale 1000000 [--runs 30] [--rebuild-vectors]

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
import json
import subprocess
import sys
from pathlib import Path

from bench import common
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
    parser.add_argument("--results", default=str(common.RESULTS))
    args = parser.parse_args(argv)
    report = run(args)
    print(json.dumps(report, indent=2))
    common.write_report(report, args.results, f"search-scale{args.scale}")
