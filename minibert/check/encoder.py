"""Checkers for the exercises of chapter 03, the encoder and real weights.

    check.feed_forward(my_feed_forward)          # GELU(x W1ᵀ + b1) W2ᵀ + b2, nn.Linear layout
    check.encoder_layer(my_encoder_layer)        # one post-LN layer wired from its sub-modules
    check.count_parameters(my_count_parameters)  # BertModel's parameters, from the config alone
    check.load_layer(my_load_layer)              # one layer's real weights, by checkpoint name

Expected values are hand-computed literals or minibert's own modules: `FeedForward`, `EncoderLayer`,
`BertModel` (on the meta device for counting) and `BertModel.from_pretrained` on all-MiniLM-L6-v2.
When a result is wrong, the checker also runs the usual mistakes through minibert's modules (the
tanh GELU, pre-LN wiring, a forgotten pooler, a swapped pair of weights...) and names the one that
matches what it received.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import random
from functools import lru_cache

import torch
from torch import nn

from ..checkpoint import hf_name, minilm_path
from ..config import BertConfig
from ..model import BertModel, EncoderLayer, FeedForward
from .common import ExerciseError, call, expect_close, expect_equal, passed

__all__ = ["feed_forward", "encoder_layer", "count_parameters", "load_layer"]


def _with_hint(error: ExerciseError, hint: str) -> ExerciseError:
    return ExerciseError(f"{error}\n  hint: {hint}")


def _same(a, b, atol: float = 1e-4) -> bool:
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
            and torch.allclose(a.detach().to(b.dtype), b, atol=atol, rtol=1e-4))


@lru_cache(maxsize=1)
def _minilm():
    """all-MiniLM-L6-v2 (loaded once per kernel): the model, its checkpoint read with safetensors,
    and a padded batch of two real sentence pairs with every hidden state."""
    from safetensors.torch import load_file

    from ..tokenizer import Tokenizer

    path = minilm_path()
    model = BertModel.from_pretrained(path)  # eval mode: no dropout
    state = load_file(path / "model.safetensors")
    tokenizer = Tokenizer.from_pretrained(path)
    batch = tokenizer(["Call me Ishmael.", "BERT is conceptually simple and empirically powerful."],
                      ["Some years ago, never mind how long precisely, I thought I would sail about.",
                       "It obtains new results."], padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch, output_hidden_states=True).hidden_states  # L+1 × (B, T, H)
    key_mask = batch["attention_mask"].bool()[:, None, None, :]  # (B, 1, 1, T)
    assert not key_mask.all(), "the batch must need padding"
    return model, state, hidden, key_mask


# --- 3.1 the feed-forward block ----------------------------------------------------------------

# Φ, the standard normal CDF, from a table: Φ(1) = 0.8413447461, Φ(0.5) = 0.6914624613,
# Φ(3) = 0.9986501020, Φ(3.5) = 0.9997673709; GELU(x) = x·Φ(x), GELU(0) = 0, and Φ(−x) = 1 − Φ(x).
# Both hand cases use H = 2, I = 3 (so a weight used the wrong way round cannot multiply):
#   W1 = [[1, 0], [0, 1], [1, 1]], b1 = [0, 0, 0.5]   -> pre-activation (x1, x2, x1 + x2 + 0.5)
#   W2 = [[1, 1, 0], [0, 0, 2]],  b2 = [0, -1]        -> output (g1 + g2, 2·g3 − 1)
_FFN_WEIGHTS = dict(w1=[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], b1=[0.0, 0.0, 0.5],
                    w2=[[1.0, 1.0, 0.0], [0.0, 0.0, 2.0]], b2=[0.0, -1.0])
_FFN_HAND = [
    # x = [1, −1]: pre-activation (1, −1, 0.5);
    # g1 + g2 = Φ(1) − Φ(−1) = 2Φ(1) − 1 = 0.6826894921;  2·GELU(0.5) − 1 = Φ(0.5) − 1 = −0.3085375387
    ("x = [[[1, -1]]] (B=1, T=1, H=2)", [[[1.0, -1.0]]], [[[0.6826894921, -0.3085375387]]]),
    # x = [3, 0]: pre (3, 0, 3.5); 3Φ(3) + 0 = 2.995950306, 7Φ(3.5) − 1 = 5.998371596
    # x = [0, 0]: pre (0, 0, 0.5); 0, Φ(0.5) − 1 = −0.3085375387
    ("x = [[[3, 0]], [[0, 0]]] (B=2, T=1, H=2)", [[[3.0, 0.0]], [[0.0, 0.0]]],
     [[[2.995950306, 5.998371596]], [[0.0, -0.3085375387]]]),
]
_LINEAR_LAYOUT = ("w1 and w2 are stored as nn.Linear stores its weight: (out_features, in_features), so "
                  "w1 is (I, H) and w2 is (H, I); a linear layer computes x @ w.T + b (F.linear(x, w, b))")
_TANH_HINT = ("this matches the tanh approximation 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) "
              "(F.gelu(x, approximate='tanh')); BERT's \"gelu\" is the exact one, "
              "x·Φ(x) = 0.5·x·(1 + erf(x/√2)) (F.gelu(x))")


def _ffn_module(w1, b1, w2, b2, act: str = "gelu") -> FeedForward:
    I, H = w1.shape
    ffn = FeedForward(BertConfig(hidden_size=H, num_attention_heads=1, intermediate_size=I, hidden_act=act))
    with torch.no_grad():
        for linear, w, b in ((ffn.intermediate, w1, b1), (ffn.output, w2, b2)):
            linear.weight.copy_(w)
            linear.bias.copy_(b)
    return ffn.eval()


def _ffn_diagnosis(got, x, w1, b1, w2, b2) -> str:
    """Which usual mistake `got` matches, by running minibert's FeedForward with that mistake."""
    with torch.no_grad():
        if _same(got, _ffn_module(w1, b1, w2, b2, "gelu_pytorch_tanh")(x), atol=1e-6):
            return _TANH_HINT
        if _same(got, _ffn_module(w1, b1, w2, b2, "relu")(x)):
            return "this matches ReLU; BERT uses GELU(x) = x·Φ(x) = 0.5·x·(1 + erf(x/√2)) (paper, appendix A.2)"
        linear = _ffn_module(w1, b1, w2, b2)
        linear.act = nn.Identity()
        if _same(got, linear(x)):
            return "this matches the block without its non-linearity: apply GELU between the two linear maps"
        for name, zero in (("b1", (w1, torch.zeros_like(b1), w2, b2)), ("b2", (w1, b1, w2, torch.zeros_like(b2)))):
            if _same(got, _ffn_module(*zero)(x)):
                return f"this matches the block without {name}: add each linear map's bias"
    return "FFN(x) = GELU(x @ w1.T + b1) @ w2.T + b2, with the exact GELU x·Φ(x)"


def _ffn_case(fn, name, x, w1, b1, w2, b2, expected, atol):
    try:
        got = call(fn, name, x.clone(), w1.clone(), b1.clone(), w2.clone(), b2.clone())
    except ExerciseError as e:
        if isinstance(e.__cause__, RuntimeError) and any(s in str(e.__cause__) for s in ("shape", "size")):
            raise _with_hint(e, _LINEAR_LAYOUT) from None
        raise
    if isinstance(got, torch.Tensor) and got.shape != expected.shape and got.shape[-1] == w1.shape[0]:
        raise ExerciseError(f"{name}: expected shape {tuple(expected.shape)}, received shape {tuple(got.shape)}"
                            f"\n  hint: the block maps H -> I -> H; did you stop after the first linear map?")
    if not _same(got, expected, atol=atol):
        hint = _ffn_diagnosis(got, x, w1, b1, w2, b2) if isinstance(got, torch.Tensor) else ""
        expect_close(name, got, expected, atol=atol, rtol=1e-5, hint=hint)


def feed_forward(fn) -> None:
    """fn(x, w1, b1, w2, b2) -> GELU(x @ w1.T + b1) @ w2.T + b2, x (B, T, H), w1 (I, H), w2 (H, I)."""
    w = {k: torch.tensor(v) for k, v in _FFN_WEIGHTS.items()}
    for name, x, expected in _FFN_HAND:
        _ffn_case(fn, f"hand case {name}, W1 = {_FFN_WEIGHTS['w1']}, b1 = {_FFN_WEIGHTS['b1']}, "
                      f"W2 = {_FFN_WEIGHTS['w2']}, b2 = {_FFN_WEIGHTS['b2']}",
                  torch.tensor(x), w["w1"], w["b1"], w["w2"], w["b2"], torch.tensor(expected), atol=1e-5)
    # Random cases at realistic scales: pre-activations of standard deviation ~1.5, where the exact
    # and the tanh GELU differ by up to 4.7e-4 (chapter 03), so the tolerance must be tighter.
    g = torch.Generator().manual_seed(3_1)
    shapes = [(2, 5, 8, 32), (1, 7, 16, 24), (3, 4, 12, 40), (2, 6, 32, 96), (1, 3, 384, 1536)]
    for B, T, H, I in shapes:
        x = torch.randn(B, T, H, generator=g)
        w1 = torch.randn(I, H, generator=g) * 1.5 / math.sqrt(H)
        b1 = torch.randn(I, generator=g) * 0.5
        w2 = torch.randn(H, I, generator=g) / math.sqrt(I)
        b2 = torch.randn(H, generator=g) * 0.5
        with torch.no_grad():
            expected = _ffn_module(w1, b1, w2, b2)(x)
        _ffn_case(fn, f"random case x {(B, T, H)}, w1 {(I, H)}, w2 {(H, I)}", x, w1, b1, w2, b2, expected,
                  atol=2e-5)
    passed("feed_forward", f"{len(_FFN_HAND)} hand-computed cases and {len(shapes)} random ones agree with "
                           "minibert's FeedForward (exact GELU)")


# --- 3.2 a post-LN encoder layer ----------------------------------------------------------------

class _CalledTheLayer(RuntimeError):
    pass


def _forbid_forward(*args, **kwargs):
    raise _CalledTheLayer("do not call layer(...) itself: wire the residuals and LayerNorms yourself, calling "
                          "layer.attention, layer.attention_norm, layer.ffn and layer.ffn_norm")


def _sealed(layer: EncoderLayer) -> EncoderLayer:
    """A copy of `layer` whose own forward cannot be called (its sub-modules can)."""
    layer = copy.deepcopy(layer).eval()
    layer.forward = _forbid_forward
    return layer


def _wirings(layer: EncoderLayer, x, key_mask) -> dict[str, torch.Tensor]:
    """The usual wrong wirings of a layer, computed with its own sub-modules (eval mode: no dropout)."""
    def attn(h):
        return layer.attention(h, key_mask)[0]

    n1, n2, ffn = layer.attention_norm, layer.ffn_norm, layer.ffn
    h = x + attn(n1(x))
    pre = h + ffn(n2(h))
    h = n1(attn(x)) + x
    ln_first = n2(ffn(h)) + h
    h = n2(x + attn(x))
    swapped = n1(h + ffn(h))
    h = n1(x + attn(x))
    no_ffn_residual = n2(ffn(h))
    ffn_norm_missing = h + ffn(h)
    only_attention = h
    no_attention_residual = n2(n1(attn(x)) + ffn(n1(attn(x))))
    one_norm = n1(h + ffn(h))
    h = n1(x + layer.attention(x, None)[0])
    unmasked = n2(h + ffn(h))
    return {
        "pre-LN: x + sublayer(LayerNorm(x)). That is GPT-2's arrangement; BERT is post-LN, "
        "x = LayerNorm(x + sublayer(x)), the LayerNorm applied after the residual addition": pre,
        "LayerNorm(sublayer(x)) + x: the LayerNorm must come after the residual addition, "
        "x = LayerNorm(x + sublayer(x))": ln_first,
        "the two LayerNorms swapped: layer.attention_norm belongs to the attention sub-layer, "
        "layer.ffn_norm to the feed-forward one": swapped,
        "no residual around the feed-forward block: x = ffn_norm(x + ffn(x)), not ffn_norm(ffn(x))":
            no_ffn_residual,
        "no residual around attention: x = attention_norm(x + attention(x)), not attention_norm(attention(x))":
            no_attention_residual,
        "the feed-forward sub-layer is missing its LayerNorm: x = ffn_norm(x + ffn(x))": ffn_norm_missing,
        "only the attention sub-layer: the feed-forward block comes next, ffn_norm(x + ffn(x))": only_attention,
        "layer.attention_norm used for both sub-layers: the feed-forward one has its own, layer.ffn_norm": one_norm,
        "the right wiring with attention that ignores the padding: pass key_mask on to layer.attention": unmasked,
    }


def _layer_case(fn, name, layer, x, key_mask, expected, atol=1e-5):
    try:
        got = call(fn, name, x.clone(), key_mask, _sealed(layer))
    except ExerciseError as e:
        if isinstance(e.__cause__, _CalledTheLayer):
            raise ExerciseError(f"{name}: {e.__cause__}") from None
        raise
    if isinstance(got, tuple):
        raise ExerciseError(f"{name}: received a tuple of {len(got)}; return only the (B, T, H) tensor\n  hint: "
                            "layer.attention(x, key_mask) returns (output, probabilities): take its first element")
    if _same(got, expected, atol=atol):
        return
    hint = "BERT is post-LN: x = attention_norm(x + attention(x)), then x = ffn_norm(x + ffn(x))"
    if isinstance(got, torch.Tensor) and got.shape == expected.shape:
        with torch.no_grad():
            for mistake, wrong in _wirings(layer, x, key_mask).items():
                if _same(got, wrong):
                    hint = f"this matches {mistake}"
                    break
    expect_close(name, got, expected, atol=atol, rtol=1e-4, hint=hint)


# The hand case: H = 3, one head, I = 4, a batch of one sequence of T = 2 whose second token is padding.
# Query and key weights are 0, so every query attends uniformly to the real keys, here key 0 only;
# value and output projections are the identity, so attention(x) = x0 = [1, 2, 0] at both positions.
#   position 0: x0 + a = [2, 4, 0]  (mean 2, deviations [0, 2, −2], variance 8/3)
#   position 1: x1 + a = [2, 6, −2] (mean 2, deviations [0, 4, −4], variance 32/3)
#   attention_norm (γ = 1, β = 0) makes both [0, s, −s], s = √(3/2) (any [m, m + d, m − d], d > 0).
# The feed-forward block's W2 is 0, so ffn(h) = b2 = [3, −s, s] whatever h is:
#   h + ffn(h) = [3, 0, 0]  (mean 1, deviations [2, −1, −1], variance 2) -> [√2, −1/√2, −1/√2]
#   ffn_norm (γ = [1, 2, 3], β = [0, 0, 1]) -> [√2, −√2, 1 − 3/√2]
#                                            = [1.414213562, −1.414213562, −1.121320344]
_S = math.sqrt(1.5)
_LAYER_HAND_OUT = [[[1.414213562, -1.414213562, -1.121320344]] * 2]


def _hand_layer() -> EncoderLayer:
    layer = EncoderLayer(BertConfig(hidden_size=3, num_attention_heads=1, intermediate_size=4))
    eye = torch.eye(3)
    with torch.no_grad():
        for p in layer.parameters():
            p.zero_()
        layer.attention.value.weight.copy_(eye)
        layer.attention.output.weight.copy_(eye)
        layer.attention_norm.weight.fill_(1.0)
        layer.ffn.output.bias.copy_(torch.tensor([3.0, -_S, _S]))
        layer.ffn_norm.weight.copy_(torch.tensor([1.0, 2.0, 3.0]))
        layer.ffn_norm.bias.copy_(torch.tensor([0.0, 0.0, 1.0]))
    return layer.eval()


def encoder_layer(fn) -> None:
    """fn(x, key_mask, layer) -> (B, T, H): one post-LN layer, wired from layer's sub-modules."""
    x = torch.tensor([[[1.0, 2.0, 0.0], [1.0, 4.0, -2.0]]])
    key_mask = torch.tensor([True, False])[None, None, None, :]  # (1, 1, 1, 2)
    _layer_case(fn, "hand case: H=3, one head, x = [[[1, 2, 0], [1, 4, -2]]], key_mask = [[[[True, False]]]], "
                    "query/key weights 0, value/output weights the identity, ffn(x) = [3, -√1.5, √1.5], "
                    "ffn_norm γ = [1, 2, 3], β = [0, 0, 1]",
                _hand_layer(), x, key_mask, torch.tensor(_LAYER_HAND_OUT))
    model, _, hidden, real_mask = _minilm()
    g = torch.Generator().manual_seed(3_2)
    n = 0
    with torch.no_grad():
        for i, layer in enumerate(model.encoder.layers):
            B, T, H = hidden[i].shape
            lengths = torch.randint(2, T + 1, (B,), generator=g)
            lengths[0] = T
            random_mask = (torch.arange(T)[None, :] < lengths[:, None])[:, None, None, :]
            cases = [(f"layer {i} of all-MiniLM-L6-v2, input: the real hidden states {(B, T, H)} of a padded batch",
                      hidden[i], real_mask),
                     (f"layer {i} of all-MiniLM-L6-v2, input: torch.randn{(B, T, H)}, padded to lengths "
                      f"{lengths.tolist()}", torch.randn(B, T, H, generator=g), random_mask)]
            if i == 0:
                cases.append(("layer 0 of all-MiniLM-L6-v2, no padding (key_mask=None)", hidden[0], None))
            for name, xi, mask in cases:
                _layer_case(fn, name, layer, xi, mask, layer(xi, mask)[0], atol=1e-4)
                n += 1
    passed("encoder_layer", f"1 hand-computed case and {n} random and real ones agree with minibert's "
                            "EncoderLayer (all-MiniLM-L6-v2's 6 layers, with padding)")


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
    model, H = _meta_model(config), config.hidden_size
    expected = _numel(model)
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    norms = [m for m in model.modules() if isinstance(m, nn.LayerNorm)]
    missing = {
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
    }
    for what, n in missing.items():
        if got == expected - n:
            return f"your count is short by {n:,}, exactly the number of {what}"
    variants = {f"max_position_embeddings={P}": dict(max_position_embeddings=P) for P in (512, 128)}
    variants["intermediate_size=4·hidden_size"] = dict(intermediate_size=4 * H)
    variants["one layer"] = dict(num_hidden_layers=1)
    messages = {
        "max_position_embeddings=512": "this is the count with 512 positions: use config.max_position_embeddings "
                                       "(one learned vector per position the model can take)",
        "max_position_embeddings=128": "this is the count with 128 positions: use config.max_position_embeddings, "
                                       "not a sequence length",
        "intermediate_size=4·hidden_size": "this is the count with I = 4H: BERT's ratio, but the config says "
                                           f"intermediate_size={config.intermediate_size}; read it from the config",
        "one layer": "this is the count of a one-layer model: multiply the per-layer count by num_hidden_layers",
    }
    for key, change in variants.items():
        if any(getattr(config, k) != v for k, v in change.items()):
            if got == _numel(_meta_model(dataclasses.replace(config, **change))):
                return messages[key]
    return ("count the embeddings (word, position, segment, LayerNorm), per layer the four attention maps, "
            "the feed-forward H -> I -> H and two LayerNorms, times L, and the pooler")


def _count_case(fn, name, config, expected):
    got = call(fn, name, copy.deepcopy(config))
    if isinstance(got, torch.Tensor) and got.numel() == 1:
        got = got.item()
    if isinstance(got, float) and got.is_integer():
        got = int(got)
    if isinstance(got, bool) or not isinstance(got, int):
        raise ExerciseError(f"{name}: expected an int, received {got!r}")
    if got != expected:
        expect_equal(name, got, expected, hint=_count_diagnosis(config, got))


def count_parameters(fn) -> None:
    """fn(config) -> the number of parameters of minibert.BertModel(config) (pooler included)."""
    from .. import reference

    for name, config, expected in _COUNT_HAND:
        _count_case(fn, name, config, expected)
    for preset, expected in reference.PARAMETER_COUNTS.items():
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


# --- 3.4 loading one layer's real weights ------------------------------------------------------

def _load_diagnosis(name: str, got: torch.Tensor, fresh: torch.Tensor, expected: torch.Tensor, i: int,
                    state: dict) -> str:
    key = hf_name(f"encoder.layers.{i}.{name}")
    where = f"layer.{name} (layer {i}) should hold the checkpoint's {key}"
    if got.shape != expected.shape:
        return f"{where}, shape {tuple(expected.shape)}; it has shape {tuple(got.shape)}"
    if torch.equal(got, fresh):
        return (f"{where}, but it still holds its random initialisation\n  hint: change the layer you receive in "
                "place: param.copy_(tensor) under torch.no_grad(), or layer.load_state_dict({...})")
    if got.dim() == 2 and got.shape[0] == got.shape[1] and torch.equal(got, expected.T):
        return (f"{where}, but it holds that tensor transposed\n  hint: the checkpoint stores a linear map's "
                "weight as nn.Linear does, (out_features, in_features): copy it as it is")
    same = [k for k, v in state.items() if v.shape == got.shape and v.dtype == got.dtype and torch.equal(v, got)]
    if not same:
        diff = (got - expected).abs().max().item()
        return f"{where}; its values differ from that tensor by up to {diff:.3g}"
    other = same[0]
    hint = ""
    if other.startswith("encoder.layer.") and not other.startswith(f"encoder.layer.{i}."):
        j = int(other.split(".")[2])
        hint = (f"that is layer {j}'s tensor, not layer {i}'s: the checkpoint numbers its layers from 0, "
                "as minibert's encoder.layers does")
    elif "LayerNorm" in other:
        hint = ("attention.output.LayerNorm is the norm after the attention sub-layer (layer.attention_norm); "
                "output.LayerNorm is the norm after the feed-forward block (layer.ffn_norm)")
    elif "attention.self." in other:
        hint = "attention.self.query goes to layer.attention.query, .key to .key, .value to .value"
    elif "dense" in other:
        hint = ("attention.output.dense is attention's output projection (layer.attention.output); "
                "intermediate.dense is the first feed-forward map (layer.ffn.intermediate), output.dense "
                "the second (layer.ffn.output)")
    return f"{where}, but it holds {other}" + (f"\n  hint: {hint}" if hint else "")


def load_layer(fn) -> None:
    """fn(state_dict, i, layer) copies encoder layer i of a Hugging Face checkpoint into `layer`, in place."""
    model, state, hidden, key_mask = _minilm()
    config = model.config
    torch.manual_seed(3_4)  # the fresh layers' initialisation (nn.Linear draws from the global generator)
    n_params = 0
    for i, reference_layer in enumerate(model.encoder.layers):
        layer = EncoderLayer(config)
        fresh = {k: v.detach().clone() for k, v in layer.named_parameters()}
        name = f"my_load_layer(state_dict, {i}, layer), state_dict read from all-MiniLM-L6-v2's model.safetensors"
        try:
            call(fn, name, dict(state), i, layer)
        except ExerciseError as e:
            if "in-place" in str(e.__cause__) and "requires grad" in str(e.__cause__):
                raise _with_hint(e, "copy into parameters under `with torch.no_grad():` (autograd forbids "
                                    "writing into a parameter in place otherwise)") from None
            if isinstance(e.__cause__, RuntimeError) and "size" in str(e.__cause__):
                raise _with_hint(e, "a tensor went to a parameter of another shape: give each parameter the "
                                    "checkpoint tensor of the same role, as it is (the checkpoint stores a linear "
                                    "map's weight as nn.Linear does, (out_features, in_features): no transposing)"
                                 ) from None
            if isinstance(e.__cause__, KeyError):
                raise _with_hint(e, f"the checkpoint has no such key: layer i's tensors are named "
                                    f"encoder.layer.{{i}}.<module>.weight and .bias, with i from 0 to "
                                    f"{len(model.encoder.layers) - 1}, as in minibert's encoder.layers "
                                    "(print [k for k in state_dict if k.startswith('encoder.layer.0.')])") from None
            raise
        ours = dict(layer.named_parameters())
        for pname, expected in reference_layer.named_parameters():
            got = ours[pname].detach()
            if got.shape != expected.shape or not torch.equal(got, expected):
                raise ExerciseError(f"{name}:\n  " + _load_diagnosis(pname, got, fresh[pname], expected.detach(),
                                                                      i, state))
            n_params += 1
        with torch.no_grad():
            got = layer.eval()(hidden[i], key_mask)[0]
            expect_close(f"{name}, then layer(x, key_mask) on the real hidden states {tuple(hidden[i].shape)} of "
                         "a padded batch", got, reference_layer(hidden[i], key_mask)[0])
    passed("load_layer", f"{n_params} tensors of {len(model.encoder.layers)} layers equal BertModel.from_pretrained's, "
                         "and so do the layers' outputs on a real padded batch")
