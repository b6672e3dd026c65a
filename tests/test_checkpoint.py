"""The Hugging Face layout: key names, round trips, the file formats real checkpoints use."""

import json
import subprocess
import sys

import pytest
import torch
from safetensors.torch import load_file, save_file

from helpers import random_batch, small_config
from minibert import (BertConfig, BertForPreTraining, BertModel, CheckpointError, hf_name,
                      minibert_name)
from minibert.checkpoint import PretrainedMixin

transformers = pytest.importorskip("transformers")


def test_every_key_maps_to_a_transformers_key_and_back():
    """The renaming table is complete: our names land on exactly transformers' names."""
    config = small_config()
    ours = BertForPreTraining(config).state_dict()
    theirs = transformers.BertForPreTraining(transformers.BertConfig(**config.to_dict())).state_dict()
    theirs = {k for k in theirs if not k.startswith("cls.predictions.decoder.")}  # tied
    assert {hf_name(k) for k in ours} == theirs
    assert all(minibert_name(hf_name(k)) == k for k in ours)
    assert hf_name("encoder.layers.3.ffn_norm.weight") == "encoder.layer.3.output.LayerNorm.weight"
    assert hf_name("bert.encoder.layers.0.attention.query.bias") == "bert.encoder.layer.0.attention.self.query.bias"


def test_round_trip_is_exact(tmp_path):
    torch.manual_seed(0)
    model = BertForPreTraining(small_config())
    model.save_pretrained(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json", "model.safetensors"]
    assert json.loads((tmp_path / "config.json").read_text())["architectures"] == ["BertForPreTraining"]
    loaded = BertForPreTraining.from_pretrained(tmp_path, strict=True)
    assert not loaded.training
    for (name, p), (_, q) in zip(model.state_dict().items(), loaded.state_dict().items()):
        assert torch.equal(p, q), name


def test_pretraining_checkpoint_into_encoder_drops_the_heads(tmp_path):
    torch.manual_seed(0)
    full = BertForPreTraining(small_config())
    full.save_pretrained(tmp_path)
    encoder = BertModel.from_pretrained(tmp_path)
    batch = random_batch(full.config)
    full.eval()
    torch.testing.assert_close(encoder(batch["input_ids"]).pooler_output,
                               full.bert(batch["input_ids"]).pooler_output, rtol=0, atol=0)
    with pytest.raises(CheckpointError, match="unexpected keys.*mlm.bias"):
        BertModel.from_pretrained(tmp_path, strict=True)


def test_legacy_files_load(tmp_path):
    """Older checkpoints: pytorch_model.bin (read with weights_only=True), LayerNorm gamma/beta
    names, the decoder written out, and a safetensors file split into shards."""
    torch.manual_seed(0)
    model = BertForPreTraining(small_config())
    model.save_pretrained(tmp_path / "new")
    state = load_file(tmp_path / "new" / "model.safetensors")
    legacy = {k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
              for k, v in state.items()}
    legacy["cls.predictions.decoder.weight"] = state["bert.embeddings.word_embeddings.weight"]
    legacy["cls.predictions.decoder.bias"] = state["cls.predictions.bias"]
    legacy["bert.embeddings.position_ids"] = torch.arange(40)[None]
    (tmp_path / "bin").mkdir()
    (tmp_path / "new" / "config.json").rename(tmp_path / "bin" / "config.json")
    torch.save(legacy, tmp_path / "bin" / "pytorch_model.bin")
    loaded = BertForPreTraining.from_pretrained(tmp_path / "bin", strict=True)
    for (name, p), (_, q) in zip(model.state_dict().items(), loaded.state_dict().items()):
        assert torch.equal(p, q), name

    sharded = tmp_path / "sharded"
    sharded.mkdir()
    (tmp_path / "bin" / "config.json").rename(sharded / "config.json")
    keys = sorted(state)
    halves = {"model-00001-of-00002.safetensors": keys[::2], "model-00002-of-00002.safetensors": keys[1::2]}
    for file, part in halves.items():
        save_file({k: state[k] for k in part}, sharded / file)
    weight_map = {k: file for file, part in halves.items() for k in part}
    (sharded / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    loaded = BertForPreTraining.from_pretrained(sharded, strict=True)
    assert torch.equal(loaded.mlm.bias, model.mlm.bias)


def test_pickled_code_is_never_executed(tmp_path):
    """A pytorch_model.bin that carries code is refused by weights_only=True, not run."""
    BertConfig.from_preset("tiny").to_json_file(tmp_path / "config.json")
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    torch.save({"x": Payload()}, tmp_path / "pytorch_model.bin")
    with pytest.raises(Exception, match="[Ww]eights only"):
        BertModel.from_pretrained(tmp_path)
    assert not marker.exists()


def test_shape_mismatch_names_every_key(tmp_path):
    BertForPreTraining(small_config(vocab_size=500)).save_pretrained(tmp_path)
    with pytest.raises(CheckpointError) as info:
        BertForPreTraining.from_pretrained(tmp_path, config=small_config())
    message = str(info.value)
    assert "bert.embeddings.word_embeddings.weight: checkpoint (500, 64) vs model (1000, 64)" in message
    assert "mlm.bias: checkpoint (500,) vs model (1000,)" in message


def test_missing_folder_and_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a checkpoint folder"):
        BertModel.from_pretrained(tmp_path / "nowhere" / "at" / "all")
    with pytest.raises(FileNotFoundError, match="no config file"):
        BertModel.from_pretrained(tmp_path)
    BertConfig.from_preset("tiny").to_json_file(tmp_path / "config.json")
    with pytest.raises(FileNotFoundError, match="has no model.safetensors"):
        BertModel.from_pretrained(tmp_path)


def test_hub_ids_download_through_huggingface_hub(monkeypatch, minilm_dir):
    """Online users pass a Hub id; here the download is replaced by the local copy of the same files."""
    import huggingface_hub
    calls = []

    def fake_snapshot_download(repo_id, allow_patterns):
        calls.append((repo_id, allow_patterns))
        return str(minilm_dir)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    model = BertModel.from_pretrained("sentence-transformers/all-MiniLM-L6-v2")
    assert calls[0][0] == "sentence-transformers/all-MiniLM-L6-v2"
    assert "config.json" in calls[0][1] and "*.safetensors" in calls[0][1]
    assert model.config.hidden_size == 384


def test_hub_id_offline_gives_a_clear_error(tmp_path):
    code = "import minibert; minibert.BertModel.from_pretrained('google-bert/bert-base-uncased')"
    env = {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path), "PATH": ""}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert "is not a local folder, and downloading it from the Hugging Face Hub failed" in last
    assert "pass the path of a checkpoint folder (one holding config.json and model.safetensors)" in last


class ToyHead(torch.nn.Module):
    """The smallest task head: the encoder under `bert`, one matrix of its own named `classifier`
    (what transformers' BertForSequenceClassification names it)."""

    hf_architecture = "BertForSequenceClassification"

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.bert = BertModel(config)
        self.classifier = torch.nn.Linear(config.hidden_size, config.num_labels)


ToyHead = type("ToyHead", (PretrainedMixin, ToyHead), {})


def test_a_head_keeps_its_own_names_both_ways(tmp_path, caplog):
    """A head's keys are not the encoder's: `classifier.weight` must not be saved as
    `bert.classifier.weight` (then reported missing on reload). Saved by minibert, loaded by
    transformers, saved again and loaded back: zero missing or unexpected keys each way."""
    config = BertConfig(**{**small_config().to_dict(), "num_labels": None, "label2id": None,
                           "id2label": {0: "rotten", 1: "fresh", 2: "meh"}, "problem_type": "single_label_classification"})
    ours = ToyHead(config).eval()
    ours.save_pretrained(tmp_path / "ours")
    assert "classifier.weight" in load_file(tmp_path / "ours" / "model.safetensors")
    theirs, info = transformers.BertForSequenceClassification.from_pretrained(tmp_path / "ours", output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"] and not info["mismatched_keys"]
    assert theirs.config.num_labels == 3 and theirs.config.id2label[2] == "meh"
    assert theirs.config.problem_type == "single_label_classification"
    torch.testing.assert_close(theirs.classifier.weight, ours.classifier.weight, rtol=0, atol=0)
    theirs.save_pretrained(tmp_path / "theirs")
    with caplog.at_level("WARNING"):
        back = ToyHead.from_pretrained(tmp_path / "theirs", strict=True)
    assert back.config == config and "newly initialised" not in caplog.text
    for key, value in ours.state_dict().items():
        torch.testing.assert_close(back.state_dict()[key], value, rtol=0, atol=0)


def test_an_encoder_only_checkpoint_fills_a_heads_encoder(minilm_dir, caplog):
    """MiniLM's keys have no `bert.` prefix: into a head they go under `bert.`, and only the head's
    own weights are reported as newly initialised."""
    with caplog.at_level("WARNING"):
        model = ToyHead.from_pretrained(minilm_dir)
    assert "newly initialised (not in the checkpoint): classifier.bias, classifier.weight" in caplog.text
    torch.testing.assert_close(model.bert.embeddings.word_embeddings.weight[:3],
                               load_file(minilm_dir / "model.safetensors")["embeddings.word_embeddings.weight"][:3])
