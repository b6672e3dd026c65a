"""BERT's masking rule, measured on over a million positions of real text.

Every proportion is checked against a 99.9% binomial interval (z = 3.29), so a correct rule fails
by chance once in a thousand runs of one check; the seeds are fixed, so it does not flake."""

import math

import pytest
import torch

from benchmarks.real_text import real_lines
from minibert import Tokenizer
from minibert.masking import IGNORE_INDEX, mask_tokens, num_to_predict, word_starts

Z = 3.29  # two-sided 99.9%


def within(count, n, p):
    """Is count / n within the 99.9% interval of a binomial(n, p)?"""
    return abs(count - n * p) <= Z * math.sqrt(n * p * (1 - p))


@pytest.fixture(scope="module")
def tok(minilm_dir):
    return Tokenizer.from_vocab(minilm_dir)


@pytest.fixture(scope="module")
def batch(tok):
    """Real text packed into rows of 128 ([CLS] 126 tokens [SEP]), a quarter of them shorter and
    padded: over a million positions."""
    ids = [i for row in tok(real_lines(), add_special_tokens=False)["input_ids"] for i in row]
    # The text twice, the second time packed from half a row further on, for > 10^6 positions.
    rows = [ids[i:i + 126] for start in (0, 63) for i in range(start, len(ids) - 126, 126)]
    g = torch.Generator().manual_seed(0)
    cut = torch.randint(10, 126, (len(rows),), generator=g)
    rows = [row if r % 4 else row[:int(cut[r])] for r, row in enumerate(rows)]
    input_ids = torch.zeros(len(rows), 128, dtype=torch.long)
    special = torch.ones(len(rows), 128, dtype=torch.long)
    for r, row in enumerate(rows):
        input_ids[r, :len(row) + 2] = torch.tensor([tok.cls_token_id, *row, tok.sep_token_id])
        special[r, 1:len(row) + 1] = 0
    assert input_ids.numel() > 1_000_000
    return input_ids, special


def corrupt(tok, batch, seed=0, **kwargs):
    input_ids, special = batch
    return mask_tokens(input_ids, special_tokens_mask=special, mask_token_id=tok.mask_token_id,
                       vocab_size=len(tok), generator=torch.Generator().manual_seed(seed),
                       special_token_ids=tok.all_special_ids, **kwargs)


def test_fifteen_percent_then_80_10_10(tok, batch, report):
    input_ids, special = batch
    masked, labels = corrupt(tok, batch)
    selected = labels != IGNORE_INDEX
    candidates = special == 0
    expected = sum(num_to_predict(int(n), 0.15, None) for n in candidates.sum(1))
    assert int(selected.sum()) == expected  # exactly round(15%) of each row
    assert abs(int(selected.sum()) / int(candidates.sum()) - 0.15) < 0.002
    assert not (selected & ~candidates).any()  # never [CLS], [SEP] or padding
    assert torch.equal(labels[selected], input_ids[selected])
    assert torch.equal(masked[~selected], input_ids[~selected])  # nothing else changes

    n = int(selected.sum())
    as_mask = int((masked[selected] == tok.mask_token_id).sum())
    changed = int(((masked != input_ids) & (masked != tok.mask_token_id))[selected].sum())
    kept = n - as_mask - changed
    assert within(as_mask, n, 0.8) and within(changed, n, 0.1) and within(kept, n, 0.1), (as_mask, changed, kept)
    replacements = masked[selected & (masked != input_ids) & (masked != tok.mask_token_id)]
    assert not torch.isin(replacements, torch.tensor(tok.all_special_ids)).any()
    assert len(replacements.unique()) > 10_000  # drawn from the whole vocabulary
    report(f"masking: {input_ids.numel():,} positions, {n:,} selected; [MASK] {as_mask / n:.4f}, "
           f"random {changed / n:.4f}, kept {kept / n:.4f}")


def test_every_position_is_equally_likely(tok, batch):
    """A rule that prefers early positions (taking the first k) passes the totals but not this."""
    input_ids, special = batch
    full = special[:, 1:127].sum(1) == 0  # rows with all 126 positions real
    _, labels = corrupt(tok, batch, seed=1)
    per_position = (labels[full][:, 1:127] != IGNORE_INDEX).sum(0)  # (126,)
    rows = int(full.sum())
    p = num_to_predict(126, 0.15, None) / 126
    assert all(within(int(c), rows, p) for c in per_position), per_position


def test_the_cap_and_the_proportions_are_options(tok, batch):
    input_ids, special = batch
    _, labels = corrupt(tok, batch, max_predictions=5)
    assert int((labels != IGNORE_INDEX).sum(1).max()) == 5
    masked, labels = corrupt(tok, batch, proportions=(1.0, 0.0, 0.0))
    selected = labels != IGNORE_INDEX
    assert bool((masked[selected] == tok.mask_token_id).all())
    masked, labels = corrupt(tok, batch, proportions=(0.0, 0.0, 1.0))
    assert torch.equal(masked, input_ids)


def test_whole_word_masking_never_splits_a_word(tok, batch):
    input_ids, special = batch
    starts = word_starts(input_ids, tok.ids_to_tokens)
    masked, labels = corrupt(tok, batch, word_starts=starts)
    selected = labels != IGNORE_INDEX
    candidates = special == 0
    # A "##" piece is selected exactly when the token before it is (unless the row starts with an
    # orphan piece, cut from its word: then it is a word of its own).
    piece = (candidates & ~starts)[:, 1:] & candidates[:, :-1]  # (B, T - 1), position t + 1
    assert torch.equal(selected[:, 1:][piece], selected[:, :-1][piece])
    assert int(selected[:, 1:][piece].sum()) > 1000  # words in pieces were selected too
    k = torch.tensor([num_to_predict(int(n), 0.15, None) for n in candidates.sum(1)])
    assert bool((selected.sum(1) <= k).all()) and float(selected.sum() / k.sum()) > 0.97


def test_same_seed_same_masks(tok, batch):
    first = corrupt(tok, batch, seed=7)
    assert all(torch.equal(a, b) for a, b in zip(first, corrupt(tok, batch, seed=7)))
    assert not torch.equal(first[1], corrupt(tok, batch, seed=8)[1])


def test_random_replacements_are_never_special_even_when_not_listed(tok, batch):
    """Called with the special-tokens mask alone (no special_token_ids), the ids standing under the
    mask ([CLS], [SEP], [PAD]) must still never be drawn as a random replacement."""
    input_ids, special = batch
    masked, labels = mask_tokens(input_ids, special_tokens_mask=special, mask_token_id=tok.mask_token_id,
                                 vocab_size=len(tok), generator=torch.Generator().manual_seed(0),
                                 proportions=(0.0, 1.0, 0.0))  # every selected token replaced at random
    replaced = masked[labels != IGNORE_INDEX]
    assert replaced.numel() > 100_000
    for name in ("[CLS]", "[SEP]", "[PAD]", "[MASK]"):
        assert not (replaced == tok.convert_tokens_to_ids(name)).any(), f"{name} drawn as a random replacement"


def test_bad_arguments_are_named(tok, batch):
    input_ids, special = batch
    with pytest.raises(ValueError, match="proportions=.* sum to 1"):
        corrupt(tok, batch, proportions=(0.8, 0.1, 0.2))
    with pytest.raises(ValueError, match="mlm_probability=0 must be in"):
        corrupt(tok, batch, mlm_probability=0)
    with pytest.raises(ValueError, match="special_tokens_mask has shape"):
        corrupt(tok, (input_ids, special[:, :10]))
    with pytest.raises(ValueError, match="for one sequence use input_ids\\[None\\]"):
        corrupt(tok, (input_ids[0], special[0]))
