"""The masking pictures and the binomial tables of chapter 04 draw and count what they are given."""

import math

import matplotlib
import pytest
import torch

from minibert import viz
from minibert.masking import mask_tokens

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_masking_rule_draws_the_three_fates():
    ax = viz.masking_rule(token="cat", random_token="apple")
    shown = _texts(ax)
    assert {"80%", "10%", "15% selected", "85%", "[MASK]", "apple"} <= set(shown) and shown.count("cat") == 3
    plt.close(ax.figure)


def test_masked_by_hand_has_three_rows_and_labels_only_where_selected():
    tokens = ["[CLS]", "the", "cat", "sat", "[SEP]"]
    seen = ["[CLS]", "[MASK]", "cat", "dog", "[SEP]"]
    kinds = ["special", "mask", "kept", "random", "special"]
    ax = viz.masked_by_hand(tokens, seen, kinds)
    shown = _texts(ax)
    assert shown[:1] == ["original"] and "input" in shown and "label" in shown
    labels = shown[shown.index("label") + 1:]
    assert labels == ["-100", "the", "cat", "sat", "-100"]  # the original where selected, -100 elsewhere
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="one entry per position"):
        viz.masked_by_hand(tokens, seen[:-1], kinds)
    with pytest.raises(ValueError, match="unknown kinds"):
        viz.masked_by_hand(tokens, seen, ["masked"] * 5)


def test_nsp_cut_draws_is_next_and_not_next():
    ax = viz.nsp_cut([5, 8, 4, 6], 2, is_next=True)
    assert [t for t in _texts(ax) if t.startswith("s")] == ["s0", "s1", "s2", "s3"]
    assert any("IsNext" in t for t in _texts(ax)) and len(ax.patches) == 4
    plt.close(ax.figure)
    ax = viz.nsp_cut([5, 8, 4, 6], 1, is_next=False, other_lengths=[7, 3, 9], other_start=1, b_sentences=2)
    assert len(ax.patches) == 7 and any("NotNext" in t for t in _texts(ax)) and "not used: put back" in _texts(ax)
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="a_end=4"):
        viz.nsp_cut([5, 8, 4, 6], 4, is_next=True)
    with pytest.raises(ValueError, match="NotNext B needs"):
        viz.nsp_cut([5, 8], 1, is_next=False)


def test_fate_counts_agree_with_mask_tokens():
    ids = torch.randint(5, 200, (8, 40), generator=torch.Generator().manual_seed(0))  # (B, T)
    special = torch.zeros_like(ids, dtype=torch.bool)
    special[:, 0] = special[:, -1] = True
    masked, labels = mask_tokens(ids, special_tokens_mask=special, mask_token_id=4, vocab_size=200,
                                 special_token_ids=[0, 1, 2, 3, 4], generator=torch.Generator().manual_seed(1),
                                 mlm_probability=0.5)
    counts = viz.fate_counts(ids, masked, labels, mask_token_id=4, candidates=~special)
    assert counts["candidates"] == 8 * 38 and counts["selected"] == 8 * 19
    assert counts["mask"] + counts["random"] + counts["kept"] == counts["selected"]
    assert counts["mask"] == int(((labels != -100) & (masked == 4)).sum())
    kinds = [k for b in range(8) for k in viz.masking_kinds(ids[b].tolist(), masked[b].tolist(), labels[b].tolist(),
                                                             mask_token_id=4)]
    assert counts["random"] == kinds.count("random") and counts["kept"] == kinds.count("kept")


def test_binomial_halfwidth():
    assert viz.binomial_halfwidth(0.5, 100, z=2) == pytest.approx(0.1)
    assert viz.binomial_halfwidth(0.1, 10_000) == pytest.approx(3.29 * 0.003)
    with pytest.raises(ValueError, match="at least one draw"):
        viz.binomial_halfwidth(0.5, 0)


def test_rates_table_flags_what_falls_outside():
    df = viz.rates_table({"in": (505, 1000), "out": (600, 1000), "rule": (152, 1000, "exact")},
                         {"in": 0.5, "out": 0.5, "rule": 0.15}, name="rate", source="§3.1")
    assert list(df.columns) == ["measured", "expected", "difference", "±", "within"]
    assert df.loc["in", "within"] is True or df.loc["in", "within"] == True  # noqa: E712
    assert not df.loc["out", "within"] and df.loc["rule", "within"] is None and math.isnan(df.loc["rule", "±"])
    assert df.loc["in", "±"] == pytest.approx(round(3.29 * math.sqrt(0.25 / 1000), 4))
    assert df.attrs["source"] == "§3.1" and df.index.name == "rate"
    with pytest.raises(ValueError, match="no counts"):
        viz.rates_table({}, {"a": 0.5})
