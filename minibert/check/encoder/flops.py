"""The checker of exercise 3.5: the floating-point operations of one forward pass, from the config."""

from __future__ import annotations

import copy
import random

import torch

from ...config import BertConfig
from ...model import BertModel
from ..common import ExerciseError, call, expect_equal, passed
from .parameter_count import as_count, as_scalar

# Only matrix products count, 2 FLOPs per multiply-add, as torch.utils.flop_counter counts them.
# The hand case: H = 4, I = 6, L = 1, T = 3 tokens (V, P, S and the heads do not matter):
#   Q, K, V, output projections: 4 · 2·T·H·H = 4 · 96 = 384
#   scores QKᵀ and probabilities × V: 2 · 2·T·T·H = 2 · 72 = 144 (summed over heads: nh · T·T·hs = T·T·H)
#   feed-forward H -> I -> H: 2 · 2·T·H·I = 2 · 144 = 288
#   one layer: 384 + 144 + 288 = 816; the pooler, on [CLS] only: 2·H·H = 32
#   L = 1: 816 + 32 = 848;  L = 2, T = 5: 2 · (4·2·5·16 + 2·2·25·4 + 2·2·5·24) + 32 = 2 · 1520 + 32 = 3072
_TINY = dict(vocab_size=10, hidden_size=4, num_hidden_layers=1, num_attention_heads=2, intermediate_size=6,
             max_position_embeddings=8, type_vocab_size=2)
_FLOPS_HAND = [("tiny config H=4, I=6, L=1, A=2, T=3", BertConfig(**_TINY), 3, 848),
               ("tiny config H=4, I=6, L=2, A=2, T=5", BertConfig(**{**_TINY, "num_hidden_layers": 2}), 5, 3072)]


def measured_flops(config: BertConfig, T: int) -> int:
    """FLOPs of BertModel(config) on one sequence of T tokens, counted by torch.utils.flop_counter on
    the explicit attention path (output_attentions=True: two matrix products per head, as written)."""
    from torch.utils.flop_counter import FlopCounterMode

    with torch.device("meta"):  # shapes only: BERT-BASE costs no memory and no time
        model = BertModel(config).eval()
        x = torch.zeros(1, T, config.hidden_size)  # (1, T, H): the embeddings (a lookup: no FLOPs)
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        last, _, _ = model.encoder(x, None, output_attentions=True)
        model.pooler(last)
    return counter.get_total_flops()


GENERAL = ("per layer: Q, K, V and output projections 4·2·T·H·H, attention's two products 2·2·T·T·H, the "
           "feed-forward block 2·2·T·H·I; times L; plus the pooler 2·H·H")


def _flops_mistakes(config: BertConfig, T: int, got: int) -> set[str]:
    """The known mistakes whose count on (config, T) is `got`."""
    H, I, L, nh = config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.num_attention_heads
    proj, scores, ffn, pooler = 8 * T * H * H, 4 * T * T * H, 4 * T * H * I, 2 * H * H
    right = L * (proj + scores + ffn) + pooler
    guesses = [
        (right // 2, "this is the count of multiply-adds: a multiply-add is 2 FLOPs (a multiplication and an "
                     "addition), so a product of (m, n) and (n, p) costs 2·m·n·p"),
        (L * (proj + ffn) + pooler, "the attention products are missing: QKᵀ and probabilities × V cost "
                                    "2·T·T·H FLOPs each per layer (summed over the heads)"),
        (L * (proj + scores // 2 + ffn) + pooler, "only one of attention's two products is counted: QKᵀ (T×T "
                                                  "scores) and probabilities × V, 2·T·T·H each"),
        (L * (proj + nh * scores + ffn) + pooler, "the attention products counted once per head on the full H: "
                                                  "each head works on hs = H/nh features, so the heads together "
                                                  "cost 2·T·T·H per product, not nh times that"),
        (L * (proj + scores + ffn // 2) + pooler, "the feed-forward block is counted once: it has two products, "
                                                  "H -> I and I -> H, 2·T·H·I FLOPs each"),
        (L * (proj + scores + ffn), "the pooler is missing: one H×H map on [CLS], 2·H·H FLOPs"),
        (L * (proj + scores + ffn) + T * pooler, "the pooler counted for every token: it reads [CLS] only, 2·H·H"),
        (proj + scores + ffn + pooler, "this is one layer: multiply by num_hidden_layers"),
        (L * (proj + scores + 16 * T * H * H) + pooler, "this is the count with I = 4H: read intermediate_size "
                                                       f"({I}) from the config"),
        (right + 2 * T * config.vocab_size * H,
         "the embedding lookup counted as a matrix product (one-hot ids times the table, as Google's TPU code "
         "did with use_one_hot_embeddings): a lookup is indexing, 0 FLOPs here"),
        (right // T, "this is per token: the question asks for the whole sequence"),
    ]
    return {hint for value, hint in guesses if value == got and value != right}


def forward_flops(fn) -> None:
    """fn(config, T) -> the FLOPs of BertModel(config) on one sequence of T tokens (matrix products only,
    2 per multiply-add, pooler included)."""
    cases = list(_FLOPS_HAND)
    base = BertConfig.from_preset("base")
    cases += [(f"BERT-BASE, T={T}", base, T, measured_flops(base, T)) for T in (128, 512)]
    rng = random.Random(35)
    n = 6
    for _ in range(n):
        heads = rng.choice([1, 2, 4, 8])
        H = heads * rng.choice([8, 16, 24])
        I = H * rng.choice([1, 2, 3, 5]) + rng.choice([0, 8])
        config = BertConfig(vocab_size=rng.randrange(100, 5000), hidden_size=H, num_attention_heads=heads,
                            num_hidden_layers=rng.randint(2, 5), intermediate_size=I,
                            max_position_embeddings=64, type_vocab_size=2)
        T = rng.randint(2, 64)
        short = (f"BertConfig(hidden_size={H}, num_hidden_layers={config.num_hidden_layers}, "
                 f"num_attention_heads={heads}, intermediate_size={I}, vocab_size={config.vocab_size}), T={T}")
        cases.append((short, config, T, measured_flops(config, T)))
    for k, (name, config, T, expected) in enumerate(cases):
        count = _count(fn, name, config, T)
        if count == expected:
            continue
        # The mistake named is the one that gives this count here and the learner's count on every later
        # case: with I = 2T (the first hand case) no attention products and one FFN product coincide.
        alive = _flops_mistakes(config, T, count)
        for later_name, later_config, later_T, _ in cases[k + 1:]:
            if len(alive) <= 1:
                break
            alive &= _flops_mistakes(later_config, later_T, _count(fn, later_name, later_config, later_T))
        expect_equal(name, count, expected, hint=alive.pop() if len(alive) == 1 else GENERAL)
    passed("forward_flops", f"{len(_FLOPS_HAND)} hand-computed cases, BERT-BASE at T=128 and 512, and {n} random "
                            "configs agree with torch.utils.flop_counter on minibert.BertModel")


def _count(fn, name, config, T) -> int:
    got = call(fn, name, copy.deepcopy(config), T)
    count = as_count(got)
    if count is None:
        raise ExerciseError(f"{name}: expected an integer number of FLOPs, received {got!r} ({type(got).__name__})")
    # The right number as a float: the exercise asks for an int, and a float count stops being exact past 2**53.
    if isinstance(as_scalar(got), float):  # a Python, numpy or torch float, whatever its value
        raise ExerciseError(f"{name}: expected an int, received {got!r} ({type(got).__name__}), a whole number held "
                            "as a float\n  hint: / always gives a float in Python, even when it divides exactly "
                            "(H / nh is 16.0 for H = 64, nh = 4): use // (nh divides H), or count the heads "
                            "together, nh · hs = H")
    return count
