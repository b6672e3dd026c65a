"""Where a model's heads look, measured on word-level maps (see `words`), the statistics of Clark et
al. (2019, "What does BERT look at?", §3): the share of attention on [CLS], on [SEP], on punctuation
and on the word itself; how much each head attends to the previous and the next word; and the
entropy of each head's attention (broad or focused).

Every function takes a list of word-level maps, one per sentence, each (L, nh, G, G) with group 0 =
[CLS], 1..W the words, W + 1 = [SEP], and returns one number per head, (L, nh): a mean over the
sentence's queries first, then over sentences (each sentence counts the same).
"""

from __future__ import annotations

import math

import torch

PUNCTUATION_TAG = "."  # the universal tag of punctuation marks


def kind_shares(maps: list[torch.Tensor], tags: list[list[str]], *, punctuation: str = PUNCTUATION_TAG
                ) -> dict[str, torch.Tensor]:
    """The share of each head's attention, averaged over every query of the sentence (the specials'
    rows included, as Clark et al. average over all tokens), that lands on [CLS], on [SEP], on
    punctuation (words tagged `punctuation`) and on the query itself (diagonal). {kind: (L, nh)}."""
    totals: dict[str, torch.Tensor] = {}
    for A, sentence_tags in zip(maps, tags, strict=True):
        G = A.shape[-1]
        if G != len(sentence_tags) + 2:
            raise ValueError(f"a map of {G} groups needs {G - 2} tags, got {len(sentence_tags)}")
        punct = torch.tensor([False] + [t == punctuation for t in sentence_tags] + [False])
        shares = {"[CLS]": A[..., 0], "[SEP]": A[..., G - 1], "punctuation": A[..., punct].sum(-1),
                  "itself": A.diagonal(dim1=-2, dim2=-1)}  # each (L, nh, G): per query
        for kind, s in shares.items():
            totals[kind] = totals.get(kind, 0) + s.mean(-1)
    return {kind: total / len(maps) for kind, total in totals.items()}


def offset_scores(maps: list[torch.Tensor], offset: int) -> torch.Tensor:
    """Mean attention from word i to word i + offset (offset -1: the previous word, +1: the next),
    over the words i for which word i + offset exists (specials excluded): (L, nh)."""
    if offset == 0:
        raise ValueError("offset 0 is the word itself: use kind_shares(...)['itself']")
    total = 0
    for A in maps:
        W = A.shape[-1] - 2
        queries = torch.arange(1, W + 1)
        queries = queries[(queries + offset >= 1) & (queries + offset <= W)]
        if len(queries) == 0:
            raise ValueError(f"a sentence of {W} words has no word at offset {offset}")
        total = total + A[..., queries, queries + offset].mean(-1)
    return total / len(maps)


def entropies(maps: list[torch.Tensor]) -> torch.Tensor:
    """Mean entropy (nats) of each head's attention rows, over every query and sentence: (L, nh).
    Low: focused on a few words; high: spread out (at most ln G for a row over G groups)."""
    total = 0
    for A in maps:
        plogp = torch.where(A > 0, A * A.clamp_min(1e-30).log(), torch.zeros(()))  # 0 · ln 0 = 0
        total = total + (-plogp.sum(-1)).mean(-1)
    return total / len(maps)


def uniform_entropy(maps: list[torch.Tensor]) -> float:
    """The entropy of uniform attention over each sentence's G groups, ln G, averaged over sentences:
    the ceiling `entropies` would reach if every head spread its attention evenly."""
    return sum(math.log(A.shape[-1]) for A in maps) / len(maps)
