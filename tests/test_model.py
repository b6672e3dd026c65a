"""Properties of the model that hold whatever the weights: counts, initialisation, attention paths,
padding, and that it can learn."""

import math

import pytest
import torch

from helpers import random_batch, small_config
from minibert import BertConfig, BertForPreTraining, BertModel


def count(model):
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("preset, expected", [("base", 109_482_240), ("large", 335_141_888)])
def test_parameter_counts_match_the_paper(preset, expected):
    """110M and 340M in the paper (section 3); exact counts of BertModel with pooler on the meta
    device (no memory is allocated)."""
    with torch.device("meta"):
        assert count(BertModel(BertConfig.from_preset(preset))) == expected


def test_tied_decoder_adds_only_its_bias_and_the_heads():
    with torch.device("meta"):
        config = BertConfig.from_preset("base")
        extra = count(BertForPreTraining(config)) - count(BertModel(config))
    H, V = config.hidden_size, config.vocab_size
    assert extra == (H * H + H) + 2 * H + V + (2 * H + 2)  # transform, LayerNorm, decoder bias, NSP


def test_initialisation_is_berts():
    torch.manual_seed(0)
    config = BertConfig.from_preset("mini")
    model = BertForPreTraining(config)
    for name, p in model.named_parameters():
        if "norm" in name:
            expected = 1.0 if name.endswith("weight") else 0.0
            assert torch.all(p == expected), name
        elif name.endswith("bias"):
            assert torch.all(p == 0), name
        else:
            assert abs(p.std().item() - config.initializer_range) < 0.002, name
            assert abs(p.mean().item()) < 0.002, name
    assert all(m.eps == 1e-12 for m in model.modules() if isinstance(m, torch.nn.LayerNorm))


def test_outputs_have_transformers_names_and_shapes():
    config = small_config()
    batch = random_batch(config, B=3, T=12)
    out = BertModel(config).eval()(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"],
                                  output_hidden_states=True, output_attentions=True)
    assert out.last_hidden_state.shape == (3, 12, 64) and out["pooler_output"].shape == (3, 64)
    assert len(out.hidden_states) == config.num_hidden_layers + 1
    assert len(out.attentions) == config.num_hidden_layers
    assert out.attentions[0].shape == (3, 4, 12, 12)
    probs = out.attentions[-1]
    torch.testing.assert_close(probs.sum(-1), torch.ones(3, 4, 12))
    keys_masked = probs * (1 - batch["attention_mask"][:, None, None, :])
    assert keys_masked.abs().max() == 0  # padding keys get exactly zero attention
    plain = BertModel(config)(batch["input_ids"])
    assert plain.hidden_states is None and plain.attentions is None


def test_explicit_attention_equals_sdpa():
    """Asking for attentions switches to the explicit softmax(QKᵀ/√d)V path; nothing else changes."""
    torch.manual_seed(0)
    config = small_config()
    model = BertModel(config).eval()
    batch = random_batch(config, B=4, T=16)
    args = (batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    explicit = model(*args, output_attentions=True, output_hidden_states=True)
    fused = model(*args, output_hidden_states=True)
    assert fused.attentions is None
    for a, b in zip(explicit.hidden_states, fused.hidden_states):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(explicit.pooler_output, fused.pooler_output, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("output_attentions", [False, True])
def test_padding_changes_nothing(output_attentions):
    """Appending padding to a sequence leaves every output of its real tokens unchanged."""
    torch.manual_seed(0)
    config = small_config()
    model = BertModel(config).eval()
    ids = torch.randint(5, config.vocab_size, (1, 9))
    types = torch.tensor([[0] * 5 + [1] * 4])
    alone = model(ids, types, output_attentions=output_attentions)
    pad = 7
    padded_ids = torch.cat([ids, torch.zeros(1, pad, dtype=torch.long)], 1)
    padded_types = torch.cat([types, torch.zeros(1, pad, dtype=torch.long)], 1)
    mask = torch.cat([torch.ones(1, 9), torch.zeros(1, pad)], 1).long()
    padded = model(padded_ids, padded_types, mask, output_attentions=output_attentions)
    torch.testing.assert_close(padded.last_hidden_state[:, :9], alone.last_hidden_state, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(padded.pooler_output, alone.pooler_output, atol=1e-5, rtol=1e-5)
    if output_attentions:
        torch.testing.assert_close(padded.attentions[0][..., :9, :9], alone.attentions[0], atol=1e-6, rtol=1e-5)


def test_dropout_only_in_training_mode():
    config = small_config()
    model = BertModel(config)
    batch = random_batch(config)
    train = [model.train()(batch["input_ids"]).last_hidden_state for _ in range(2)]
    assert not torch.allclose(*train)
    evals = [model.eval()(batch["input_ids"]).last_hidden_state for _ in range(2)]
    torch.testing.assert_close(*evals, rtol=0, atol=0)


def test_initial_mlm_loss_is_log_vocab():
    """At initialisation the MLM head is close to uniform over the vocabulary: loss ≈ ln V."""
    torch.manual_seed(0)
    config = BertConfig.from_preset("tiny")
    batch = random_batch(config, B=8, T=64, seed=1)
    with torch.no_grad():
        out = BertForPreTraining(config).eval()(**batch)
    assert abs(out.mlm_loss.item() - math.log(config.vocab_size)) < 0.1
    assert abs(out.nsp_loss.item() - math.log(2)) < 0.1
    torch.testing.assert_close(out.loss, out.mlm_loss + out.nsp_loss)


def test_mlm_logits_only_at_labelled_positions_give_the_same_loss():
    torch.manual_seed(0)
    config = small_config()
    model = BertForPreTraining(config).eval()
    batch = random_batch(config, B=3, T=12)
    sparse = model(**batch)
    dense = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    assert sparse.mlm_logits.shape == (selected.sum().item(), config.vocab_size)
    assert dense.mlm_logits.shape == (3, 12, config.vocab_size) and dense.loss is None
    torch.testing.assert_close(sparse.mlm_logits, dense.mlm_logits[selected], atol=1e-5, rtol=1e-5)
    full_loss = torch.nn.functional.cross_entropy(dense.mlm_logits.flatten(0, 1), batch["labels"].flatten())
    torch.testing.assert_close(sparse.mlm_loss, full_loss, atol=1e-5, rtol=1e-5)


def test_mlm_only_batch_has_no_nsp_loss():
    config = small_config()
    batch = random_batch(config)
    batch.pop("next_sentence_label")
    out = BertForPreTraining(config)(**batch)
    assert out.nsp_loss is None and out.loss is out.mlm_loss


def test_decoder_is_tied_to_the_word_embeddings():
    config = small_config()
    model = BertForPreTraining(config)
    out = model(**random_batch(config))
    out.mlm_loss.backward()
    embedding = model.bert.embeddings.word_embeddings.weight
    assert embedding.grad is not None and embedding.grad.abs().sum() > 0
    names = [n for n, _ in model.named_parameters()]
    assert not any("decoder" in n for n in names)  # one matrix, used twice


def test_overfits_one_batch():
    """The whole stack learns: a small model memorises one batch (MLM and NSP) in 100 steps."""
    torch.manual_seed(0)
    config = small_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    model = BertForPreTraining(config)
    batch = random_batch(config, B=4, T=16, mask_prob=0.3)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    first = model(**batch).loss.item()
    for _ in range(100):
        optimizer.zero_grad()
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
    assert first > 7 and loss.item() < 0.05, (first, loss.item())


@pytest.mark.parametrize("output_attentions", [False, True])
def test_bf16_autocast_runs_both_attention_paths(output_attentions):
    """Mixed precision (what GPUs train in) works with padding masks on both paths."""
    torch.manual_seed(0)
    config = small_config()
    model = BertForPreTraining(config).eval()
    batch = random_batch(config)
    reference = model(**batch)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(**batch, output_attentions=output_attentions)
    assert out.mlm_logits.dtype == torch.bfloat16 and out.loss.dtype == torch.float32
    assert abs(out.loss.item() - reference.loss.item()) < 0.05


def test_torch_compile_gives_the_same_loss():
    """torch.compile traces the model in one graph (input checks are skipped while compiling)."""
    torch.manual_seed(0)
    config = small_config(num_hidden_layers=1)
    model = BertForPreTraining(config).eval()
    batch = random_batch(config)
    compiled = torch.compile(model, fullgraph=False)
    torch.testing.assert_close(compiled(**batch).loss, model(**batch).loss, atol=1e-5, rtol=1e-5)


def test_both_attention_paths_give_the_same_gradients():
    torch.manual_seed(0)
    config = small_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    model = BertForPreTraining(config)
    batch = random_batch(config)
    grads = []
    for output_attentions in (True, False):
        model.zero_grad()
        model(**batch, output_attentions=output_attentions).loss.backward()
        grads.append({n: p.grad.clone() for n, p in model.named_parameters()})
    for name in grads[0]:
        torch.testing.assert_close(grads[0][name], grads[1][name], atol=1e-6, rtol=1e-4, msg=name)
