"""The checker of exercise 10.1: the training FLOPs per token of a config, as
`minibert.pretrain.flops_per_token` counts them (3 × the forward's matrix multiplies; the MLM head at
the labelled fraction of positions; the pooler once per sequence)."""

from __future__ import annotations

import copy
import math
import random

from ...config import BertConfig
from ...pretrain.metrics import flops_per_token as reference
from ..common import ExerciseError, as_float, call, passed


def _formula(config: BertConfig, T: int, f: float, *, passes: float = 3, mlm_at: str = "labelled",
             transform: bool = True, attention: float = 4, pooler: str = "once", ffn: str = "config",
             layers: str = "all", per: str = "token", flops_per_mac: float = 2) -> float:
    """The count, and (through the keyword arguments) the usual mistakes."""
    H, L, V = config.hidden_size, config.num_hidden_layers, config.vocab_size
    F = config.intermediate_size if ffn == "config" else 4 * H
    m = flops_per_mac / 2  # 1 for FLOPs, 1/2 for multiply-adds
    scores = {4: 4 * T * H, 2: 2 * T * H, 0: 0, "T2": 4 * T * T * H}[attention]
    per_layer = 8 * H * H + 4 * H * F + scores
    share = {"labelled": f, "every": 1.0, "none": 0.0}[mlm_at]
    head = share * ((2 * H * H if transform else 0) + 2 * H * V)
    pool = {"once": 2 * H * H / T, "every": 2 * H * H, "none": 0.0}[pooler]
    forward = (L if layers == "all" else 1) * per_layer + head + pool
    total = passes * forward * m
    return total * T if per == "sequence" else total


MISTAKES = [  # (hint, keyword arguments of _formula)
    (dict(passes=1), "this is the forward pass alone: training also runs the backward, which costs about twice "
                     "the forward (a gradient for the inputs and one for the weights of every matrix multiply): "
                     "multiply by 3"),
    (dict(passes=2), "forward and backward counted as one pass each: the backward computes two products per "
                     "matrix multiply (the gradient of the input and of the weight), so training is 3 × the forward"),
    (dict(mlm_at="every"), "the MLM head is counted at every position: minibert gathers the labelled positions "
                           "before the decoder, so it runs at `predicted_fraction` of them (20 of 128 in BERT's "
                           "recipe)"),
    (dict(mlm_at="none"), "the MLM head is missing: its transform (2H²) and the tied decoder (2HV) run at the "
                          "labelled positions"),
    (dict(transform=False), "the MLM head's transform is missing: before the decoder (2HV) comes a dense H -> H "
                            "layer (2H²), at the same labelled positions"),
    (dict(attention=0), "attention's own products are missing: per layer and token, the scores QKᵀ and the "
                        "weighted sum over the T positions cost 2·T·H each, 4·T·H in all; this is the only term "
                        "that grows with the sequence length"),
    (dict(attention=2), "only one of attention's two products is counted: the scores QKᵀ and the weighted sum "
                        "of the values cost 2·T·H per token each"),
    (dict(attention="T2"), "attention is counted per sequence (4·T²·H) but everything else per token: per token "
                           "it is 4·T·H"),
    (dict(pooler="every"), "the pooler is counted at every token: it reads [CLS] only, once per sequence, so per "
                           "token it is 2H² / T"),
    (dict(pooler="none"), "the pooler is missing: a dense H -> H on [CLS], 2H² per sequence, 2H² / T per token"),
    (dict(ffn="4H"), "the feed-forward is counted with 4H: read intermediate_size from the config"),
    (dict(layers="one"), "this is one layer: multiply the per-layer terms by num_hidden_layers"),
    (dict(per="sequence"), "this is per sequence: the question asks per token (divide by seq_len)"),
    (dict(flops_per_mac=1), "this counts multiply-adds: a multiply-add is 2 FLOPs"),
]

_TINY = dict(vocab_size=10, hidden_size=4, num_hidden_layers=1, num_attention_heads=2, intermediate_size=6,
             max_position_embeddings=16, type_vocab_size=2)
# (name, config, seq_len, predicted_fraction, FLOPs), worked by hand with H = 4, F = 6, V = 10:
#   per layer 8·16 + 4·4·6 + 4·T·4 = 128 + 96 + 16T; MLM head f·(2·16 + 2·4·10) = 112f; pooler 32 / T
#   L = 1, T = 3, f = 2/3: 272 + 74.67 + 10.67 = 357.33, × 3 = 1072
#   L = 2, T = 4, f = 1/2: 2·288 + 56 + 8 = 640, × 3 = 1920
#   L = 1, T = 3, f = 0: 272 + 0 + 10.67 = 282.67, × 3 = 848
HAND = [
    ("H=4, intermediate_size=6, L=1, V=10, seq_len=3, predicted_fraction=2/3", BertConfig(**_TINY), 3, 2 / 3, 1072.0),
    ("H=4, intermediate_size=6, L=2, V=10, seq_len=4, predicted_fraction=1/2",
     BertConfig(**{**_TINY, "num_hidden_layers": 2}), 4, 0.5, 1920.0),
    # 0.0 is a fraction too (no position labelled: the MLM head never runs); `f or 0.15` would replace it.
    ("H=4, intermediate_size=6, L=1, V=10, seq_len=3, predicted_fraction=0.0: no labelled position",
     BertConfig(**_TINY), 3, 0.0, 848.0),
]


def _diagnosis(config, T, f, got) -> str:
    for kwargs, hint in MISTAKES:
        if math.isclose(got, _formula(config, T, f, **kwargs), rel_tol=1e-9):
            return hint
    return ("per layer and token: the projections 8H², the feed-forward 4H·intermediate_size, attention 4TH; times "
            "num_hidden_layers; plus the MLM head predicted_fraction·(2H² + 2HV) and the pooler 2H²/T; all times 3")


def _case(fn, name, config, T, f, expected):
    got = call(fn, name, copy.deepcopy(config), T, f)
    value, problem = as_float(got)
    if problem:
        raise ExerciseError(f"{name}: your function's result {problem}")
    assert math.isclose(expected, _formula(config, T, f), rel_tol=1e-12)  # the formula is minibert's
    if not math.isclose(value, expected, rel_tol=1e-6):
        raise ExerciseError(f"{name}:\n  expected {expected:,.6g} FLOPs per token\n  received {value:,.6g} "
                            f"({value / expected:.3g} × the right count)\n  hint: {_diagnosis(config, T, f, value)}")


def flops_per_token(fn) -> None:
    """fn(config, seq_len, predicted_fraction) -> the training FLOPs per input token."""
    for name, config, T, f, expected in HAND:
        _case(fn, f"hand case ({name})", config, T, f, expected)
    for preset, T, k in (("base", 128, 20), ("base", 512, 80), ("large", 128, 20), ("large", 512, 80)):
        config = BertConfig.from_preset(preset)
        _case(fn, f"BERT-{preset.upper()}, seq_len={T}, {k} predictions per sequence (predicted_fraction={k}/{T})",
              config, T, k / T, reference(config, T, k / T))
    rng = random.Random(101)
    n = 6
    for _ in range(n):
        heads = rng.choice([1, 2, 4, 8])
        H = heads * rng.choice([8, 16, 32])
        config = BertConfig(vocab_size=rng.randrange(100, 40_000), hidden_size=H, num_attention_heads=heads,
                            num_hidden_layers=rng.randint(2, 6), intermediate_size=H * rng.choice([2, 3, 4]) + rng.choice([0, 8]),
                            max_position_embeddings=1024, type_vocab_size=2)
        T = rng.choice([32, 64, 128, 256, 512])
        f = round(rng.uniform(0.05, 0.2), 3)
        name = (f"BertConfig(hidden_size={H}, num_hidden_layers={config.num_hidden_layers}, intermediate_size="
                f"{config.intermediate_size}, vocab_size={config.vocab_size}), seq_len={T}, predicted_fraction={f}")
        _case(fn, name, config, T, f, reference(config, T, f))
    passed("flops_per_token", f"{len(HAND)} hand-computed cases, BERT-BASE and LARGE at 128 and 512 tokens, and {n} "
                              "random configs equal minibert.pretrain.flops_per_token")
