"""all-mpnet-base-v2 as an ONNX graph, built from its safetensors file with
onnx.helper (the usual export needs PyTorch, which this project does not
install), and an independent numpy forward pass to check the graph against.
MPNet as transformers' modeling_mpnet computes it: word + position
embeddings (positions counted from the padding id + 1), twelve post-norm
layers whose attention adds a relative position bias (32 buckets, 128 the
largest distance told apart, shared by every layer), then sentence-
transformers' mean pooling and L2 normalisation. Needs the `onnx` package,
which is not one of PaperTrail's requirements (docs/search.md, "A stronger
English model, third round")."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from scipy.special import erf

OPSET = 17
HEADS = 12
HIDDEN = 768
PAD_ID = 1
BUCKETS = 32
MAX_DISTANCE = 128
LAYER_NORM_EPS = 1e-5
MASKED = -1e9


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file (an 8-byte header length, a JSON
    header, the raw little-endian data), without the safetensors package."""
    dtypes = {"F32": np.float32, "I64": np.int64}
    with path.open("rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(length))
        data = handle.read()
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(data[start:end], dtype=dtypes[entry["dtype"]]).reshape(entry["shape"])
    return tensors


def check_config(config: dict) -> None:
    """The graph below hard-codes base MPNet's shape: refuse any other."""
    expected = {
        "model_type": "mpnet",
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "relative_attention_num_buckets": BUCKETS,
        "pad_token_id": PAD_ID,
        "layer_norm_eps": LAYER_NORM_EPS,
        "hidden_act": "gelu",
    }
    wrong = {key: config.get(key) for key, value in expected.items() if config.get(key) != value}
    if wrong:
        raise ValueError(f"not the MPNet this graph builds: {wrong}")


def bucket(relative: np.ndarray) -> np.ndarray:
    """transformers' MPNetEncoder.relative_position_bucket, in float32 as torch
    computes it: 16 buckets each way, exact below 8, logarithmic up to 128."""
    half = BUCKETS // 2
    n = -relative
    result = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    # The logarithm only matters from `exact` on; 1 keeps log(0) out of the arithmetic.
    scaled = np.log(np.maximum(n, 1).astype(np.float32) / np.float32(exact)) / np.float32(
        math.log(MAX_DISTANCE / exact)
    )
    large = exact + (scaled * np.float32(half - exact)).astype(np.int64)
    large = np.minimum(large, half - 1)
    return result + np.where(n < exact, n, large)


class _Graph:
    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._count = 0

    def constant(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, kind: str, inputs: list[str], **attributes) -> str:
        self._count += 1
        output = f"{kind.lower()}_{self._count}"
        self.nodes.append(helper.make_node(kind, inputs, [output], name=output, **attributes))
        return output

    def linear(self, x: str, weights: dict[str, np.ndarray], prefix: str) -> str:
        # Stored as [out, in]; MatMul wants [in, out], which quantize_dynamic quantises.
        weight = self.constant(f"{prefix}.weight_t", weights[f"{prefix}.weight"].T)
        return self.op(
            "Add", [self.op("MatMul", [x, weight]), self.constant(f"{prefix}.bias", weights[f"{prefix}.bias"])]
        )

    def layer_norm(self, x: str, weights: dict[str, np.ndarray], prefix: str) -> str:
        gamma = self.constant(f"{prefix}.weight", weights[f"{prefix}.weight"])
        beta = self.constant(f"{prefix}.bias", weights[f"{prefix}.bias"])
        return self.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=LAYER_NORM_EPS)


def build_graph(weights: dict[str, np.ndarray], layers: int) -> onnx.ModelProto:
    """Inputs input_ids and attention_mask (int64, batch by tokens); output
    sentence_embedding (float32, batch by 768, unit length)."""
    g = _Graph()
    ints = {name: g.constant(f"int_{name}", np.array(value, dtype=np.int64)) for name, value in _INTS.items()}
    floats = {name: g.constant(f"float_{name}", np.array(value, dtype=np.float32)) for name, value in _FLOATS.items()}
    # Positions as create_position_ids_from_input_ids: 2, 3, … for tokens, 1 for padding.
    real = g.op("Cast", [g.op("Not", [g.op("Equal", ["input_ids", ints["pad"]])])], to=TensorProto.INT64)
    positions = g.op("Add", [g.op("Mul", [g.op("CumSum", [real, ints["one"]]), real]), ints["pad"]])
    words = g.op("Gather", [g.constant("word_embeddings", weights["embeddings.word_embeddings.weight"]), "input_ids"])
    placed = g.op(
        "Gather", [g.constant("position_embeddings", weights["embeddings.position_embeddings.weight"]), positions]
    )
    x = g.layer_norm(g.op("Add", [words, placed]), weights, "embeddings.LayerNorm")
    # The bias for every pair (query i, key j) from the bucket of j - i, shared by the layers.
    length = g.op("Gather", [g.op("Shape", ["input_ids"]), ints["one"]], axis=0)
    steps = g.op("Range", [ints["zero"], length, ints["one"]])
    relative = g.op("Sub", [g.op("Unsqueeze", [steps, ints["zero"]]), g.op("Unsqueeze", [steps, ints["one"]])])
    offset = weights["embeddings.position_embeddings.weight"].shape[0]
    table = g.constant("bucket_of_distance", bucket(np.arange(-offset, offset + 1)))
    buckets = g.op("Gather", [table, g.op("Add", [relative, g.constant("distance_offset", np.array(offset))])])
    bias = g.op(
        "Gather", [g.constant("relative_attention_bias", weights["encoder.relative_attention_bias.weight"]), buckets]
    )
    bias = g.op("Unsqueeze", [g.op("Transpose", [bias], perm=[2, 0, 1]), ints["zero"]])
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    padding = g.op("Mul", [g.op("Sub", [floats["one"], mask]), floats["masked"]])
    bias = g.op("Add", [bias, g.op("Unsqueeze", [padding, ints["heads_axes"]])])
    for number in range(layers):
        x = _layer(g, x, bias, weights, f"encoder.layer.{number}", ints, floats)
    # Mean pooling over the real tokens, then unit length.
    weights_of_tokens = g.op("Unsqueeze", [mask, ints["minus_one"]])
    summed = g.op("ReduceSum", [g.op("Mul", [x, weights_of_tokens]), ints["one"]], keepdims=0)
    counts = g.op("Max", [g.op("ReduceSum", [weights_of_tokens, ints["one"]], keepdims=0), floats["tiny"]])
    pooled = g.op("Div", [summed, counts])
    norm = g.op("Max", [g.op("ReduceL2", [pooled], axes=[-1], keepdims=1), floats["tiny"]])
    g.nodes.append(helper.make_node("Div", [pooled, norm], ["sentence_embedding"], name="normalised"))
    graph = helper.make_graph(
        g.nodes,
        "all-mpnet-base-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", HIDDEN])],
        g.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="papertrail-bench")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


_INTS = {
    "zero": [0],
    "one": [1],
    "minus_one": [-1],
    "pad": PAD_ID,
    "heads_axes": [1, 2],
    "split_heads": [0, 0, HEADS, HIDDEN // HEADS],
    "join_heads": [0, 0, HIDDEN],
}
_FLOATS = {"one": 1.0, "masked": MASKED, "tiny": 1e-9, "scale": 1 / math.sqrt(HIDDEN // HEADS), "half": 0.5}
_FLOATS["root_half"] = 1 / math.sqrt(2)


def _layer(g: _Graph, x: str, bias: str, weights: dict, prefix: str, ints: dict, floats: dict) -> str:
    def heads(name: str, perm: list[int]) -> str:
        projected = g.linear(x, weights, f"{prefix}.attention.attn.{name}")
        return g.op("Transpose", [g.op("Reshape", [projected, ints["split_heads"]])], perm=perm)

    query, key, value = heads("q", [0, 2, 1, 3]), heads("k", [0, 2, 3, 1]), heads("v", [0, 2, 1, 3])
    scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [query, key]), floats["scale"]]), bias])
    context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), value])
    context = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), ints["join_heads"]])
    attended = g.layer_norm(
        g.op("Add", [g.linear(context, weights, f"{prefix}.attention.attn.o"), x]),
        weights,
        f"{prefix}.attention.LayerNorm",
    )
    inner = g.linear(attended, weights, f"{prefix}.intermediate.dense")
    # GELU as transformers' "gelu": exact, by the error function.
    erf = g.op("Erf", [g.op("Mul", [inner, floats["root_half"]])])
    activated = g.op("Mul", [g.op("Mul", [inner, floats["half"]]), g.op("Add", [erf, floats["one"]])])
    out = g.linear(activated, weights, f"{prefix}.output.dense")
    return g.layer_norm(g.op("Add", [out, attended]), weights, f"{prefix}.output.LayerNorm")


def reference_forward(weights: dict[str, np.ndarray], ids: np.ndarray, mask: np.ndarray, layers: int) -> np.ndarray:
    """The same model in plain numpy (float64), written from transformers'
    modeling_mpnet independently of the graph: the check the graph must pass."""
    w = {name: value.astype(np.float64) for name, value in weights.items() if value.dtype == np.float32}

    def norm(x: np.ndarray, prefix: str) -> np.ndarray:
        centred = x - x.mean(-1, keepdims=True)
        scaled = centred / np.sqrt((centred**2).mean(-1, keepdims=True) + LAYER_NORM_EPS)
        return scaled * w[f"{prefix}.weight"] + w[f"{prefix}.bias"]

    def dense(x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ w[f"{prefix}.weight"].T + w[f"{prefix}.bias"]

    batch, length = ids.shape
    real = (ids != PAD_ID).astype(np.int64)
    positions = np.cumsum(real, axis=1) * real + PAD_ID
    x = norm(
        w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions],
        "embeddings.LayerNorm",
    )
    steps = np.arange(length)
    relative = steps[None, :] - steps[:, None]
    bias = w["encoder.relative_attention_bias.weight"][bucket(relative)].transpose(2, 0, 1)[None]
    bias = bias + ((1.0 - mask) * MASKED)[:, None, None, :]
    size = HIDDEN // HEADS
    for number in range(layers):
        prefix = f"encoder.layer.{number}"

        def split(name: str, x: np.ndarray = x, prefix: str = prefix) -> np.ndarray:
            return dense(x, f"{prefix}.attention.attn.{name}").reshape(batch, length, HEADS, size).transpose(0, 2, 1, 3)

        scores = split("q") @ split("k").transpose(0, 1, 3, 2) / math.sqrt(size) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        probabilities = scores / scores.sum(-1, keepdims=True)
        context = (probabilities @ split("v")).transpose(0, 2, 1, 3).reshape(batch, length, HIDDEN)
        attended = norm(dense(context, f"{prefix}.attention.attn.o") + x, f"{prefix}.attention.LayerNorm")
        inner = dense(attended, f"{prefix}.intermediate.dense")
        activated = 0.5 * inner * (1.0 + erf(inner / math.sqrt(2)))
        x = norm(dense(activated, f"{prefix}.output.dense") + attended, f"{prefix}.output.LayerNorm")
    pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
