import json

import pytest

from minibert import PRESETS, BertConfig, ConfigError

# Google's released bert_config.json for BERT-BASE, uncased (all eleven fields, nothing else).
GOOGLE_BASE = {
    "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
    "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072,
    "max_position_embeddings": 512, "num_attention_heads": 12, "num_hidden_layers": 12,
    "type_vocab_size": 2, "vocab_size": 30522,
}


def test_google_config_loads_as_keyword_arguments():
    config = BertConfig(**GOOGLE_BASE)
    assert config == BertConfig()  # the defaults are BERT-BASE
    assert config.layer_norm_eps == 1e-12 and config.head_size == 64


def test_real_hugging_face_config_loads_as_is(minilm_dir):
    config = BertConfig.from_json_file(minilm_dir / "config.json")
    assert (config.num_hidden_layers, config.hidden_size, config.num_attention_heads) == (6, 384, 12)
    assert (config.intermediate_size, config.vocab_size) == (1536, 30522)


@pytest.mark.parametrize("name, layers, hidden", [
    ("tiny", 2, 128), ("mini", 4, 256), ("small", 4, 512), ("medium", 8, 512),
    ("base", 12, 768), ("large", 24, 1024)])
def test_presets_follow_turc_et_al(name, layers, hidden):
    config = BertConfig.from_preset(name)
    assert (config.num_hidden_layers, config.hidden_size) == (layers, hidden)
    assert config.num_attention_heads == hidden // 64 and config.intermediate_size == 4 * hidden
    assert config.vocab_size == 30522 and config.max_position_embeddings == 512
    assert set(PRESETS) == {"tiny", "mini", "small", "medium", "base", "large"}


def test_preset_overrides():
    assert BertConfig.from_preset("tiny", vocab_size=8192).vocab_size == 8192
    with pytest.raises(ConfigError, match="did you mean 'vocab_size'"):
        BertConfig.from_preset("tiny", vocab_sise=8192)


def test_unknown_preset():
    with pytest.raises(ConfigError, match="unknown preset 'huge'.*tiny, mini"):
        BertConfig.from_preset("huge")


def test_config_round_trips_through_json(tmp_path):
    config = BertConfig.from_preset("mini", vocab_size=777)
    config.to_json_file(tmp_path / "config.json")
    assert BertConfig.from_json_file(tmp_path / "config.json") == config


@pytest.mark.parametrize("change, message", [
    ({"hidden_szie": 768}, r"unknown config field\(s\): 'hidden_szie' \(did you mean 'hidden_size'\?\)"),
    ({"vocab_size": None}, "config is missing required field"),
    ({"position_embedding_type": "relative_key"}, "position_embedding_type='relative_key' is not plain BERT"),
    ({"add_cross_attention": True}, "add_cross_attention=True is not plain BERT"),
    ({"model_type": "roberta"}, "model_type is 'roberta'"),
    ({"num_attention_heads": 5}, r"hidden_size \(768\) must be divisible by num_attention_heads \(5\)"),
    ({"hidden_act": "swish"}, r"hidden_act must be one of gelu, .* \(got 'swish'\)"),
    ({"num_hidden_layers": 0}, "num_hidden_layers must be a positive integer"),
    ({"hidden_size": 768.0}, "hidden_size must be a positive integer"),
    ({"hidden_dropout_prob": 1.5}, r"hidden_dropout_prob must be in \[0, 1\)"),
])
def test_bad_config_json_is_named(tmp_path, change, message):
    d = {**GOOGLE_BASE, **change}
    d = {k: v for k, v in d.items() if v is not None}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(d))
    with pytest.raises(ConfigError, match=message) as info:
        BertConfig.from_json_file(path)
    assert str(path) in str(info.value)


def test_unreadable_config_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="no config file"):
        BertConfig.from_json_file(tmp_path / "absent.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        BertConfig.from_json_file(tmp_path / "bad.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ConfigError, match="must hold a JSON object"):
        BertConfig.from_json_file(tmp_path / "list.json")
