"""The checker of exercise 3.2: one post-LN encoder layer wired from its sub-modules."""

from __future__ import annotations

import copy
import math

import torch

from ...config import BertConfig
from ...model import EncoderLayer
from ..common import ExerciseError, call, expect_close, expect_same_gradients, passed
from ._shared import _minilm, _same

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


def _ffn_with(layer: EncoderLayer, act, h):
    """The layer's feed-forward block with another non-linearity (a learner who rewrote it by hand)."""
    return layer.ffn.output(act(layer.ffn.intermediate(h)))


def _plain_norm(h, norm):
    """LayerNorm without its scale γ and shift β (F.layer_norm with no weight and bias)."""
    return torch.nn.functional.layer_norm(h, norm.normalized_shape, eps=norm.eps)


def _no_projection(layer: EncoderLayer, h, key_mask):
    """Attention without its output projection: the heads' context vectors, merged back to (B, T, H)."""
    seen = {}
    hook = layer.attention.output.register_forward_hook(lambda m, args, out: seen.setdefault("in", args[0]))
    try:
        layer.attention(h, key_mask)
    finally:
        hook.remove()
    return seen["in"]


def _wirings(layer: EncoderLayer, x, key_mask) -> dict[str, torch.Tensor]:
    """The usual wrong wirings of a layer, computed with its own sub-modules (eval mode: no dropout)."""
    return {**_misplaced(layer, x, key_mask), **_wrong_parts(layer, x, key_mask)}


def _misplaced(layer: EncoderLayer, x, key_mask) -> dict[str, torch.Tensor]:
    """The right parts in the wrong places: LayerNorms and residuals moved, swapped or left out."""
    def attn(h):
        return layer.attention(h, key_mask)[0]

    n1, n2, ffn = layer.attention_norm, layer.ffn_norm, layer.ffn
    h = x + attn(n1(x))
    pre = h + ffn(n2(h))
    h = n1(attn(x)) + x
    ln_first = n2(ffn(h)) + h
    h = n2(x + attn(x))
    swapped, ffn_norm_twice = n1(h + ffn(h)), n2(h + ffn(h))
    h = n1(x + attn(x))
    return {
        "pre-LN: x + sublayer(LayerNorm(x)). That is GPT-2's arrangement; BERT is post-LN, "
        "x = LayerNorm(x + sublayer(x)), the LayerNorm applied after the residual addition": pre,
        "LayerNorm(sublayer(x)) + x: the residual is added after the LayerNorm; it must come before it, "
        "x = LayerNorm(x + sublayer(x))": ln_first,
        "the two LayerNorms swapped: layer.attention_norm belongs to the attention sub-layer, "
        "layer.ffn_norm to the feed-forward one": swapped,
        "layer.ffn_norm used for both sub-layers: each sub-layer has its own LayerNorm, attention's is "
        "layer.attention_norm": ffn_norm_twice,
        "no residual around the feed-forward block: x = ffn_norm(x + ffn(x)), not ffn_norm(ffn(x))": n2(ffn(h)),
        "no residual around attention: x = attention_norm(x + attention(x)), not attention_norm(attention(x))":
            n2(n1(attn(x)) + ffn(n1(attn(x)))),
        "the feed-forward sub-layer is missing its LayerNorm: x = ffn_norm(x + ffn(x))": h + ffn(h),
        "only the attention sub-layer: the feed-forward block comes next, ffn_norm(x + ffn(x))": h,
        "layer.attention_norm used for both sub-layers: the feed-forward one has its own, layer.ffn_norm":
            n1(h + ffn(h)),
        "the feed-forward residual adding the layer's input: its residual adds the feed-forward block's own "
        "input, h = attention_norm(x + attention(x)), then ffn_norm(h + ffn(h))": n2(x + ffn(h)),
    }


def _wrong_parts(layer: EncoderLayer, x, key_mask) -> dict[str, torch.Tensor]:
    """The right wiring with a wrong part: activation, LayerNorm, projection or mask."""
    n1, n2, ffn = layer.attention_norm, layer.ffn_norm, layer.ffn
    h = n1(x + layer.attention(x, key_mask)[0])
    relu = n2(h + _ffn_with(layer, torch.relu, h))
    tanh = n2(h + _ffn_with(layer, lambda z: torch.nn.functional.gelu(z, approximate="tanh"), h))
    h0 = _plain_norm(x + layer.attention(x, key_mask)[0], n1)
    no_affine = _plain_norm(h0 + ffn(h0), n2)
    h0 = n1(x + _no_projection(layer, x, key_mask))
    no_projection = n2(h0 + ffn(h0))
    inverted = None
    if key_mask is not None and key_mask.any(-1).all() and (~key_mask).any(-1).all():  # every row padded
        h0 = n1(x + layer.attention(x, ~key_mask)[0])
        inverted = n2(h0 + ffn(h0))
    h = n1(x + layer.attention(x, None)[0])
    unmasked = n2(h + ffn(h))
    def eps_default(t, norm):  # F.layer_norm's and nn.LayerNorm's default eps
        return torch.nn.functional.layer_norm(t, norm.normalized_shape, norm.weight, norm.bias)
    h = eps_default(x + layer.attention(x, key_mask)[0], n1)
    default_eps = eps_default(h + ffn(h), n2)
    return {
        "a feed-forward block with ReLU: BERT's is GELU; call layer.ffn, which has the right one": relu,
        "a feed-forward block with the tanh approximation of GELU: BERT's \"gelu\" is the exact erf form "
        "(the difference, up to 5e-4 per activation, shows in the output); call layer.ffn": tanh,
        "LayerNorms without their scale γ and shift β (F.layer_norm without weight and bias): call "
        "layer.attention_norm and layer.ffn_norm, which hold the trained γ and β": no_affine,
        "attention without its output projection: layer.attention(x, key_mask) applies it for you "
        "(layer.attention.output)": no_projection,
        **({} if inverted is None else {
            "attention with the mask inverted: key_mask is True at the real tokens; pass it on as it is":
                inverted}),
        "the right wiring with attention that ignores the padding: pass key_mask on to layer.attention": unmasked,
        "LayerNorms with eps = 1e-5, the default of F.layer_norm and nn.LayerNorm: BERT's is 1e-12 "
        "(config.layer_norm_eps), and it matters when the sums vary little; call layer.attention_norm and "
        "layer.ffn_norm, which hold it": default_eps,
    }


def _expect_layer_kept(name: str, sealed: EncoderLayer, layer: EncoderLayer) -> None:
    """The layer is the caller's (the model goes on using it): Module.double(), .float() or .to(...) on a
    sub-module convert it in place, and the layer's next forward then mixes dtypes."""
    for (pname, got), want in zip(sealed.named_parameters(), layer.parameters(), strict=True):
        if got.dtype != want.dtype:
            raise ExerciseError(f"{name}: after your function the layer's {pname} is {got.dtype}; it was "
                                f"{want.dtype}\n  hint: Module.double(), .float() and .to(dtype) convert the module "
                                "itself, in place, so the caller's layer is left converted: call the sub-modules "
                                "as they are (they compute in the layer's dtype)")


def _layer_case(fn, name, layer, x, key_mask, expected, atol=1e-5, check_twice=False):
    given, sealed = x.clone(), _sealed(layer)
    try:
        got = call(fn, name, given, key_mask, sealed)
        again = call(fn, name, x.clone(), key_mask, sealed) if check_twice else None
    except ExerciseError as e:
        if isinstance(e.__cause__, _CalledTheLayer):
            raise ExerciseError(f"{name}: {e.__cause__}") from None
        raise
    _expect_layer_kept(name, sealed, layer)
    if not torch.equal(given, x):
        raise ExerciseError(f"{name}: your function changed its input x in place (x += ..., x.add_(...))"
                            "\n  hint: the caller still needs x (the residual path reads it); write x = x + a")
    if isinstance(got, torch.Tensor) and isinstance(again, torch.Tensor) and got.shape == again.shape \
            and not torch.equal(got, again):
        raise ExerciseError(f"{name}: two calls on the same input gave different outputs: something random is "
                            "on\n  hint: dropout is the identity in eval mode; F.dropout(a, p) defaults to "
                            "training=True and a new nn.Dropout is in training mode. Leave dropout out, or use "
                            "layer.dropout, which follows the layer's mode")
    if isinstance(got, tuple):
        raise ExerciseError(f"{name}: received a tuple of {len(got)}; return only the (B, T, H) tensor\n  hint: "
                            "layer.attention(x, key_mask) returns (output, probabilities): take its first element")
    if isinstance(got, torch.Tensor) and x.dtype != torch.float32 and got.dtype != expected.dtype:
        raise ExerciseError(f"{name}: received a {got.dtype} tensor from a {x.dtype} input and layer\n  hint: keep "
                            "the input's dtype: no .float() or .to(torch.float32) on the way; the layer's own "
                            "sub-modules already compute in its dtype")
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
                _hand_layer(), x, key_mask, torch.tensor(_LAYER_HAND_OUT), check_twice=True)
    _layer_case(fn, "the hand case with x scaled by 1e-3: LayerNorm does not see the scale, so the output is the "
                    "same (the sums' variance, about 1e-6, is far above eps = 1e-12)",
                _hand_layer(), x * 1e-3, key_mask, torch.tensor(_LAYER_HAND_OUT))
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
                # A batch of one can hold padding too (a sentence padded to a fixed length): the mask still applies.
                r = int((~real_mask).flatten(1).any(1).nonzero()[0])  # a padded row of the real batch
                cases.append((f"layer 0 of all-MiniLM-L6-v2, a batch of one padded sequence (B = 1, "
                              f"{int(real_mask[r].sum())} real tokens of {T})", hidden[0][r:r + 1], real_mask[r:r + 1]))
            for name, xi, mask in cases:
                _layer_case(fn, name, layer, xi, mask, layer(xi, mask)[0], atol=1e-4, check_twice=n == 0)
                n += 1
        layer64 = copy.deepcopy(model.encoder.layers[0]).double()
        _layer_case(fn, "layer 0 of all-MiniLM-L6-v2 in float64 (layer.double()), the real hidden states in float64",
                    layer64, hidden[0].double(), real_mask, layer64(hidden[0].double(), real_mask)[0], atol=1e-9)
    _gradients(fn, model.encoder.layers[1], hidden[1], real_mask)
    passed("encoder_layer", f"2 hand-computed cases, 1 in float64 and {n} random and real ones agree with "
                            "minibert's EncoderLayer (all-MiniLM-L6-v2's 6 layers, with padding), and so do the "
                            "gradients that reach the layer's weights and its input")


def _gradients(fn, layer, x, key_mask) -> None:
    """A layer is trained through this function: a loss's gradients must reach every weight, and the input x
    (the layer below trains through it), as through minibert's forward (eval mode: no dropout, the same
    function of the weights). The loss weighs each output by a random w: LayerNorm's outputs sum to a
    constant, so out.sum() would give near-zero gradients whatever the wiring."""
    name = ("layer 1 of all-MiniLM-L6-v2 on the real hidden states, x and the layer's weights requiring grad, the "
            "loss (out * w).sum()")
    sealed, reference = _sealed(layer), copy.deepcopy(layer).eval()
    mine, theirs = x.clone().requires_grad_(), x.clone().requires_grad_()
    got = call(fn, name, mine, key_mask, sealed)
    if not (isinstance(got, torch.Tensor) and got.requires_grad):
        raise ExerciseError(f"{name}: your output does not require grad, so training would never reach the layer's "
                            "weights\n  hint: eval mode only switches dropout off; torch.no_grad(), .detach() or "
                            ".data take the result out of autograd's graph")
    leaves = [(f"layer.{n}", p, q) for (n, p), q in zip(sealed.named_parameters(), reference.parameters(), strict=True)]
    leaves.append(("the input x", mine, theirs))
    try:
        expect_same_gradients(name, got, reference(theirs, key_mask)[0], leaves, against="minibert's EncoderLayer",
                              seed=3_2, atol=1e-4, rtol=1e-3, hint=_gradient_hint)
    except RuntimeError as e:  # backward() through the learner's graph failed: their error, not the checker's
        hint = ""
        if "modified by an inplace operation" in str(e):
            hint = ("\n  hint: a tensor autograd saved for the backward pass was changed in place afterwards "
                    "(h += ..., h.add_(...) on a tensor a sub-module already read): write h = h + ...")
        raise ExerciseError(f"{name}: backward() through your output raised RuntimeError: "
                            f"{str(e).splitlines()[0]}{hint}") from e


def _gradient_hint(what: str) -> str:
    if what == "the input x":  # every weight's gradient agreed: the path that differs carries x alone
        return ("the weights' gradients agree, so a path from x to the output left autograd's graph: the "
                "residual adds x itself (x.detach(), x.data or a detached copy pass the values without the "
                "gradient, and the layer below would not learn through it)")
    return "every step from the weights to the output must stay in autograd's graph"
