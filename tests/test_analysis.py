"""minibert.analysis: word-level maps, attention statistics, relations from tags, probes, head masking."""

import numpy as np
import pytest
import torch
from helpers import small_config

from minibert import BertModel, analysis


def test_word_attention_sums_keys_and_averages_queries():
    probs = torch.tensor([[0.7, 0.1, 0.1, 0.1], [0.2, 0.2, 0.5, 0.1], [0.0, 0.6, 0.2, 0.2], [0.1, 0.3, 0.3, 0.3]])
    got = analysis.word_attention(probs, torch.tensor([0, 1, 1, 2]))
    assert torch.allclose(got, torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.75, 0.15], [0.1, 0.6, 0.3]]))
    padded = torch.zeros(5, 5)
    padded[:4, :4] = probs
    assert torch.allclose(analysis.word_attention(padded, torch.tensor([0, 1, 1, 2, -1])), got)


def test_statistics_on_a_hand_map():
    A = torch.eye(4)[None, None]  # every group attends to itself: [CLS] w1 w2 [SEP]
    shares = analysis.kind_shares([A], [["NOUN", "."]])
    assert shares["itself"].item() == pytest.approx(1.0) and shares["[CLS]"].item() == pytest.approx(0.25)
    assert shares["punctuation"].item() == pytest.approx(0.25)
    prev = torch.zeros(1, 1, 5, 5)
    prev[..., 2, 1] = prev[..., 3, 2] = 1.0
    assert analysis.offset_scores([prev], -1).item() == pytest.approx(1.0)
    assert analysis.entropies([A]).item() == pytest.approx(0.0)
    uniform = torch.full((1, 1, 4, 4), 0.25)
    assert analysis.entropies([uniform]).item() == pytest.approx(np.log(4)) == analysis.uniform_entropy([uniform])


def test_relations_from_tags():
    tags = ["DET", "ADJ", "NOUN", "NOUN", "VERB", "ADV", "VERB", "ADP", "PRON"]
    assert analysis.relation_pairs(tags, "det → noun") == [(0, 3)]  # the noun ending the phrase
    assert analysis.relation_pairs(tags, "adj → noun") == [(1, 3)]
    assert analysis.relation_pairs(tags, "verb → verb") == [(4, 6)]
    assert analysis.relation_pairs(tags, "adp → object") == [(7, 8)]
    assert analysis.best_offset([tags], "det → noun") == (3, 1.0)
    A = torch.zeros(1, 1, 11, 11)
    A[..., 1, 4] = 1.0  # DET (group 1) attends to its noun (word 3, group 4)
    acc, n = analysis.relation_accuracy([A], [tags], "det → noun")
    assert n == 1 and acc.item() == 1.0


def test_probe_and_baseline():
    g = np.random.default_rng(0)
    x = g.normal(size=(200, 5))
    y = np.where(x[:, 0] > 0, "A", "B")
    assert analysis.probe_accuracy(x[:150], y[:150], x[150:], y[150:]) > 0.9
    assert analysis.majority_baseline(["a", "b", "a"], ["X", "Y", "X"], ["a", "c"], ["X", "X"]) == 1.0


def test_masking_every_head_leaves_only_the_output_bias():
    torch.manual_seed(0)
    model = BertModel(small_config()).eval()
    ids = torch.randint(5, 1000, (2, 6))
    with torch.no_grad():
        intact = model(ids).last_hidden_state
        with analysis.masked_heads(model, {1: [0, 1, 2, 3]}):
            masked = model(ids).last_hidden_state
        attn = model.encoder.layers[1].attention
        handle = attn.register_forward_hook(lambda m, a, out: (attn.output.bias.expand_as(out[0]), out[1]))
        removed = model(ids).last_hidden_state
        handle.remove()
        assert torch.allclose(masked, removed, atol=1e-6) and not torch.allclose(masked, intact, atol=1e-3)
        assert torch.equal(model(ids).last_hidden_state, intact)  # hooks gone after the block
        base, effects = analysis.head_effects(model, lambda m: float(m(ids).last_hidden_state.abs().mean()))
        assert effects.shape == (2, 4) and (effects != 0).all()


def test_value_norms_match_a_head_by_hand():
    torch.manual_seed(0)
    attn = BertModel(small_config()).eval().encoder.layers[0].attention
    x = torch.randn(1, 3, 64)
    with torch.no_grad():
        v = attn.value(x)[0, :, 16:32]  # head 1: (T, hs)
        f = v @ attn.output.weight[:, 16:32].T  # (T, H)
        assert torch.allclose(analysis.value_norms(attn, x)[0, 1], f.norm(dim=-1), atol=1e-5)
