"""The checker of exercise 3.3: BertModel's parameters, counted from the config alone."""

from __future__ import annotations

import copy
import dataclasses
import math
import numbers
import random

import torch
from torch import nn

from ...config import BertConfig
from ...model import BertModel
from ..common import ExerciseError, call, expect_equal, passed

# --- 3.3 counting the parameters ----------------------------------------------------------------

# The hand case, V = 10, H = 4, L = 1, A = 2, I = 6, P = 8, S = 2 (a linear map n -> m: n·m + m):
#   embeddings: (V + P + S)·H + LayerNorm 2H = 20·4 + 8                     =  88
#   one layer:  attention 4·(H·H + H) = 80; feed-forward (4·6 + 6) + (6·4 + 4) = 58;
#               two LayerNorms 2·2H = 16                                    = 154
#   pooler:     H·H + H                                                     =  20
#   total with L = 1: 88 + 154 + 20 = 262;  with L = 3: 88 + 3·154 + 20 = 570
_TINY = dict(vocab_size=10, hidden_size=4, num_hidden_layers=1, num_attention_heads=2, intermediate_size=6,
             max_position_embeddings=8, type_vocab_size=2)
_COUNT_HAND = [("tiny config V=10, H=4, L=1, A=2, I=6, P=8, S=2", BertConfig(**_TINY), 262),
               ("tiny config V=10, H=4, L=3, A=2, I=6, P=8, S=2",
                BertConfig(**{**_TINY, "num_hidden_layers": 3}), 570)]


def _meta_model(config: BertConfig) -> BertModel:
    with torch.device("meta"):  # shapes only, no memory
        return BertModel(config)


def _numel(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def _count_diagnosis(config: BertConfig, got: int) -> str:
    """Name the part of BertModel whose parameters `got` leaves out (or counts wrongly)."""
    expected = _numel(_meta_model(config))
    L, I, H = config.num_hidden_layers, config.intermediate_size, config.hidden_size
    # Several parts can have the same size (S·H = 2H when S = 2): name every one that fits.
    fits = [what for what, n in _parts(config).items() if got == expected - n]
    if fits:
        return f"your count is short by {expected - got:,}, exactly the number of " + ", or of ".join(fits)
    fits = [what for what, n in _doubles(config, expected).items() if n and got == expected + n]
    if fits:
        return f"your count is {got - expected:,} too many: " + ", or ".join(fits)
    if got == expected - L * (I - H):
        return "the first feed-forward map's bias has I numbers (one per intermediate feature), not H"
    if got == expected - L * (H - I) and H != I:
        return "the second feed-forward map's bias has H numbers, not I"
    for change, message in _other_configs(config):
        if any(getattr(config, k) != v for k, v in change.items()):
            if got == _numel(_meta_model(dataclasses.replace(config, **change))):
                return message
    return ("count the embeddings (word, position, segment, LayerNorm), per layer the four attention maps, "
            "the feed-forward H -> I -> H and two LayerNorms, times L, and the pooler")


def _parts(config: BertConfig) -> dict[str, int]:
    """What a count can leave out, with its size."""
    model, H = _meta_model(config), config.hidden_size
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    norms = [m for m in model.modules() if isinstance(m, nn.LayerNorm)]
    return {
        "biases of the linear maps (a linear map n -> m has n·m weights and m biases)":
            sum(m.bias.numel() for m in linears),
        "biases, the linear maps' and the LayerNorms' β": sum(m.bias.numel() for m in linears + norms),
        "parameters of the LayerNorms (each has a scale γ and a shift β of H numbers: 2H)":
            sum(_numel(m) for m in norms),
        "parameters of the embeddings' LayerNorm (2H)": _numel(model.embeddings.layer_norm),
        "LayerNorm shifts β (a LayerNorm has 2H parameters, γ and β)": sum(m.bias.numel() for m in norms),
        "parameters of the pooler (one H×H linear map with its bias, on [CLS])": _numel(model.pooler),
        "position embeddings (max_position_embeddings × H)": _numel(model.embeddings.position_embeddings),
        "segment (token type) embeddings (type_vocab_size × H)":
            _numel(model.embeddings.token_type_embeddings),
        "word embeddings (vocab_size × H); BertModel holds them": _numel(model.embeddings.word_embeddings),
        "parameters of the attention output projections (attention has four H×H maps: query, key, value, "
        "output)":
            config.num_hidden_layers * _numel(model.encoder.layers[0].attention.output),
        "parameters of one LayerNorm per layer (each layer has two, after attention and after the "
        "feed-forward block, 2H each)": config.num_hidden_layers * 2 * H,
    }


def _doubles(config: BertConfig, expected: int) -> dict[str, int]:
    """What a count can add too much, with its size."""
    L, H = config.num_hidden_layers, config.hidden_size
    with torch.device("meta"):
        from ...heads import BertForPreTraining
        heads = _numel(BertForPreTraining(config)) - expected
    return {
        "word embeddings counted twice (BertModel has no MLM decoder; BERT's decoder is tied to the word "
        "embeddings, one shared tensor, counted once)": config.vocab_size * H,
        "the pooler counted once per layer (there is one pooler, on top of the last layer)": (L - 1) * (H * H + H),
        "the embeddings' LayerNorm counted twice": 2 * H,
        "the MLM and NSP heads of BertForPreTraining: BertModel is the encoder and its pooler only": heads,
    }


def _other_configs(config: BertConfig) -> list[tuple[dict, str]]:
    """Configurations a count may have used instead of the one given, with what to say."""
    return [
        (dict(max_position_embeddings=512), "this is the count with 512 positions: use config.max_position_embeddings "
                                            "(one learned vector per position the model can take)"),
        (dict(max_position_embeddings=128), "this is the count with 128 positions: use config.max_position_embeddings, "
                                            "not a sequence length"),
        (dict(intermediate_size=4 * config.hidden_size),
         "this is the count with I = 4H: BERT's ratio, but the config says "
         f"intermediate_size={config.intermediate_size}; read it from the config"),
        (dict(num_hidden_layers=1), "this is the count of a one-layer model: multiply the per-layer count by "
                                    "num_hidden_layers"),
        (dict(type_vocab_size=2), "this is the count with type_vocab_size=2 (BERT's two segments): read it from "
                                  "the config"),
    ]


def as_scalar(got):
    """A one-number torch tensor or numpy scalar (or 0-d array) as the Python number it holds; anything else as is."""
    if isinstance(got, torch.Tensor) and got.numel() == 1 and got.dim() <= 1:
        return got.item()
    if type(got).__module__ == "numpy" and getattr(got, "shape", None) in ((), (1,)):
        return got.item()
    return got


def as_count(got):
    """An integer count in any reasonable form (int, numpy or torch integer scalars, a float with no
    fractional part) as an int; None for anything else (bool included)."""
    if isinstance(got, bool):
        return None
    got = as_scalar(got)
    if isinstance(got, bool):
        return None
    if isinstance(got, numbers.Integral):
        return int(got)
    if isinstance(got, numbers.Real) and math.isfinite(got) and float(got).is_integer():
        return int(got)
    return None


def _count_case(fn, name, config, expected, diagnosis=None):
    got = call(fn, name, copy.deepcopy(config))
    count = as_count(got)
    if count is None:
        raise ExerciseError(f"{name}: expected an integer count, received {got!r} ({type(got).__name__})")
    if isinstance(as_scalar(got), float):  # the exercise asks for an int: a count is a whole number
        raise ExerciseError(f"{name}: expected an int, received {got!r} ({type(got).__name__}), a whole number held "
                            "as a float\n  hint: / always gives a float in Python, even when it divides exactly; "
                            "use // or integer arithmetic throughout (the number of heads does not change the count)")
    if count != expected:
        expect_equal(name, count, expected, hint=(diagnosis or _count_diagnosis)(config, count))


def count_parameters(fn) -> None:
    """fn(config) -> the number of parameters of minibert.BertModel(config) (pooler included)."""
    from ... import paper

    for name, config, expected in _COUNT_HAND:
        _count_case(fn, name, config, expected)
    for preset, expected in paper.PARAMETER_COUNTS.items():
        _count_case(fn, f"BERT-{preset.upper()}, BertConfig.from_preset({preset!r}) "
                        f"(the paper's {'110M' if preset == 'base' else '340M'}, exactly)",
                    BertConfig.from_preset(preset), expected)
    rng = random.Random(33)
    n = 8
    for _ in range(n):
        heads = rng.choice([1, 2, 4, 8])
        H = heads * rng.choice([8, 16, 24, 32])
        I = H * rng.choice([1, 2, 3, 5, 6]) + rng.randrange(0, 9, 8)  # never BERT's 4H
        I = I + 8 if I == 4 * H else I
        config = BertConfig(vocab_size=rng.randrange(100, 40_000), hidden_size=H, num_attention_heads=heads,
                            num_hidden_layers=rng.randint(2, 8),
                            intermediate_size=I,
                            max_position_embeddings=rng.choice([64, 128 + 8, 256, 300, 1024]),
                            type_vocab_size=rng.randint(1, 4))
        short = ", ".join(f"{k}={getattr(config, k)}" for k in (
            "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
            "max_position_embeddings", "type_vocab_size"))
        _count_case(fn, f"BertConfig({short})", config, _numel(_meta_model(config)))
    passed("count_parameters", f"{len(_COUNT_HAND)} hand-computed cases, BERT-BASE and BERT-LARGE, and {n} random "
                               "configs agree with minibert.BertModel")
