"""Our BERT is BERT: real pre-trained weights and random heads give what transformers gives."""

import logging

import pytest
import torch

from helpers import random_batch, small_config
from minibert import BertForPreTraining, BertModel, hf_name

transformers = pytest.importorskip("transformers")
ATOL = 1e-5


@pytest.fixture(scope="module")
def minilm_pair(minilm_dir):
    ours = BertModel.from_pretrained(minilm_dir)
    theirs = transformers.BertModel.from_pretrained(str(minilm_dir), attn_implementation="eager").eval()
    return ours, theirs


def test_real_weights_every_hidden_state_attention_and_pooler(minilm_pair, real_batch):
    ours, theirs = minilm_pair
    with torch.no_grad():
        a = ours(**real_batch, output_hidden_states=True, output_attentions=True)
        b = theirs(**real_batch, output_hidden_states=True, output_attentions=True)
    assert len(a.hidden_states) == len(b.hidden_states) == 7
    for i, (x, y) in enumerate(zip(a.hidden_states, b.hidden_states)):
        torch.testing.assert_close(x, y, atol=ATOL, rtol=0, msg=f"hidden state {i}")
    for i, (x, y) in enumerate(zip(a.attentions, b.attentions)):
        torch.testing.assert_close(x, y, atol=ATOL, rtol=0, msg=f"attention probabilities of layer {i}")
    torch.testing.assert_close(a.pooler_output, b.pooler_output, atol=ATOL, rtol=0)
    torch.testing.assert_close(a.last_hidden_state, b.last_hidden_state, atol=ATOL, rtol=0)


def test_real_weights_fast_attention_path(minilm_pair, minilm_dir, real_batch):
    """Without attentions we run SDPA; so does transformers' default implementation."""
    ours = minilm_pair[0]
    theirs = transformers.BertModel.from_pretrained(str(minilm_dir), attn_implementation="sdpa").eval()
    with torch.no_grad():
        a = ours(**real_batch)
        b = theirs(**real_batch)
    torch.testing.assert_close(a.last_hidden_state, b.last_hidden_state, atol=ATOL, rtol=0)
    torch.testing.assert_close(a.pooler_output, b.pooler_output, atol=ATOL, rtol=0)


def test_encoder_only_checkpoint_into_pretraining_model(minilm_dir, real_batch, caplog):
    """MiniLM ships no MLM/NSP heads: they are reported as newly initialised, the encoder is real."""
    with caplog.at_level(logging.WARNING, logger="minibert.checkpoint"):
        model = BertForPreTraining.from_pretrained(minilm_dir)
    assert "newly initialised" in caplog.text and "mlm.bias" in caplog.text and "nsp.weight" in caplog.text
    reference = BertModel.from_pretrained(minilm_dir)
    for (name, p), (_, q) in zip(model.bert.named_parameters(), reference.named_parameters()):
        assert torch.equal(p, q), name


@pytest.fixture(scope="module")
def hf_pretraining(tmp_path_factory):
    """A seeded random transformers.BertForPreTraining, saved in the Hugging Face layout."""
    torch.manual_seed(1234)
    config = small_config()
    hf_config = transformers.BertConfig(**config.to_dict())
    hf_config._attn_implementation = "eager"
    model = transformers.BertForPreTraining(hf_config).eval()
    folder = tmp_path_factory.mktemp("hf_pretraining")
    model.save_pretrained(folder)
    return model, folder


def assert_same_pretraining_outputs(ours, theirs, batch):
    with torch.no_grad():
        a = ours(**batch)
        b = theirs(**batch)
        a_dense = ours(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    torch.testing.assert_close(a_dense.mlm_logits, b.prediction_logits, atol=ATOL, rtol=0)
    torch.testing.assert_close(a.mlm_logits, b.prediction_logits[selected], atol=ATOL, rtol=0)
    torch.testing.assert_close(a.nsp_logits, b.seq_relationship_logits, atol=ATOL, rtol=0)
    torch.testing.assert_close(a.loss, b.loss, atol=ATOL, rtol=0)


def test_heads_match_transformers(hf_pretraining):
    theirs, folder = hf_pretraining
    ours = BertForPreTraining.from_pretrained(folder, strict=True)
    assert_same_pretraining_outputs(ours, theirs, random_batch(ours.config, B=4, T=20))


def test_what_we_save_loads_in_transformers(tmp_path):
    torch.manual_seed(99)
    ours = BertForPreTraining(small_config()).eval()
    ours.save_pretrained(tmp_path)
    theirs, info = transformers.BertForPreTraining.from_pretrained(
        tmp_path, attn_implementation="eager", output_loading_info=True)
    tied = "cls.predictions.decoder.weight"
    assert set(info["missing_keys"]) <= {tied}
    assert not info["unexpected_keys"] and not info["mismatched_keys"]
    assert theirs.cls.predictions.decoder.weight is theirs.bert.embeddings.word_embeddings.weight
    assert_same_pretraining_outputs(ours, theirs.eval(), random_batch(ours.config, B=4, T=20, seed=5))
    ours.bert.save_pretrained(tmp_path / "encoder")  # BertModel: Hugging Face keys without `bert.`
    encoder, info = transformers.BertModel.from_pretrained(
        tmp_path / "encoder", attn_implementation="eager", output_loading_info=True)
    assert not any(info[k] for k in ("missing_keys", "unexpected_keys", "mismatched_keys"))
    batch = random_batch(ours.config, seed=6)
    with torch.no_grad():
        torch.testing.assert_close(encoder.eval()(batch["input_ids"]).last_hidden_state,
                                   ours.bert(batch["input_ids"]).last_hidden_state, atol=ATOL, rtol=0)


def test_gradients_match_transformers(hf_pretraining):
    """Training is BERT's too: with the decoder run at labelled positions only, every parameter's
    gradient equals transformers' (which decodes every position)."""
    theirs, folder = hf_pretraining
    ours = BertForPreTraining.from_pretrained(folder, strict=True)
    batch = random_batch(ours.config, B=4, T=20, seed=3)
    theirs.zero_grad()
    ours(**batch).loss.backward()
    theirs(**batch).loss.backward()
    their_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        q = their_params[hf_name(name)]
        torch.testing.assert_close(p.grad, q.grad, atol=1e-6, rtol=1e-4, msg=name)


def test_real_weights_on_longer_text_up_to_512_positions(minilm_pair, minilm_dir, hf_tokenizer):
    """The model card shipped with the weights is real English of varied length: as one padded
    batch, and as one sequence of the full 512 positions (every position embedding used)."""
    lines = [line for line in (minilm_dir / "README.md").read_text(encoding="utf-8").splitlines()
             if len(line) > 60 and not line.lstrip().startswith(("#", "|", "-", "`", "["))]
    assert len(lines) >= 8
    batch = hf_tokenizer(lines, padding=True, return_tensors="pt")
    long = hf_tokenizer(" ".join(lines * 10), truncation=True, max_length=512, return_tensors="pt")
    assert long["input_ids"].shape == (1, 512)
    ours, theirs = minilm_pair
    for enc in (batch, long):
        enc = {k: enc[k] for k in ("input_ids", "token_type_ids", "attention_mask")}
        with torch.no_grad():
            a = ours(**enc, output_attentions=True)
            b = theirs(**enc, output_attentions=True)
        torch.testing.assert_close(a.last_hidden_state, b.last_hidden_state, atol=ATOL, rtol=0)
        torch.testing.assert_close(a.attentions[-1], b.attentions[-1], atol=ATOL, rtol=0)
        torch.testing.assert_close(a.pooler_output, b.pooler_output, atol=ATOL, rtol=0)
