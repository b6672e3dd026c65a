"""Part of the checker of exercise 4.1: where the random replacements come from. The pool is every id of
[0, vocab_size) outside special_token_ids, built from the call's own list, and a draw may give back the
original token (the statement draws uniformly from ALL the allowed ids)."""

from __future__ import annotations

import torch

from ..common import expect_rate
from .token_masking import IGNORE, P_KEEP, P_RANDOM, _masking_run, _rate, _seeded


def small_pool(fn) -> int:
    """A pool of 3 ids: a random draw gives the original token back 1 time in 3, so 10% + 10%/3 of the
    selected positions keep their token and 10% · 2/3 change; a draw that steps over the original (to
    "really" replace it) keeps only 10%. Returns how many positions were selected."""
    pad, cls, sep, mask, vocab_size = 0, 1, 2, 3, 7
    special_ids, pool = [pad, cls, sep, mask], 3  # ids 4, 5, 6 may replace
    words = torch.randint(mask + 1, vocab_size, (2000, 20), generator=_seeded(41))
    ids = torch.cat([torch.full((2000, 1), cls), words, torch.full((2000, 1), sep)], dim=1)
    special = (ids == cls) | (ids == sep)
    case = (f"2000 rows of [CLS] + 20 ids drawn from 4..6 + [SEP], mask_token_id={mask}, vocab_size={vocab_size}, "
            f"special_token_ids={special_ids} (3 ids a replacement may take), max_predictions=20, generator seed 0")
    masked, labels = _masking_run(fn, case, ids, special, 20, _seeded(0), vocab=(mask, vocab_size, special_ids))
    selected = labels != IGNORE
    n_sel = int(selected.sum())
    kept, changed = selected & (masked == ids), selected & (masked != ids) & (masked != mask)
    never_the_original = ("a random replacement is drawn uniformly from ALL the allowed ids, the original one "
                          "included: with 3 ids the draw gives the original back 1 time in 3 and the token stays "
                          "(a draw that skips the original, or draws again, keeps only 10%)")
    _rate(f"{case}: kept (unchanged) among the selected positions", int(kept.sum()), n_sel,
          P_KEEP + P_RANDOM / pool, never_the_original, "too many kept: 10% kept, plus the random draws that "
                                                        "give the original back (1 in 3 here)")
    expect_rate(f"{case}: changed to another id among the selected positions", int(changed.sum()), n_sel,
                P_RANDOM * (1 - 1 / pool), hint=never_the_original)
    return n_sel
