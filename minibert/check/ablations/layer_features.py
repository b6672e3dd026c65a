"""The checkers of exercise 9.3: Table 7's feature extractors from a frozen BERT's hidden states
(the embeddings, then each of the L layers): the last four concatenated ("Concat Last Four Hidden",
the paper's best) and their weighted sum (ELMo's scalar mix). Compared with what minibert's
feature-based tagger reads: `chosen_layers`, then `FeatureTagger`'s join."""

from __future__ import annotations

from functools import lru_cache

import torch

from ...config import BertConfig
from ...heads.bilstm import chosen_layers
from ...model import BertModel
from ..common import (ExerciseError, call, expect_close, expect_same_gradients, minilm_model, minilm_tokenizer,
                      passed, valid_lines)


def _chosen(hidden_states, layers=None):
    L = len(hidden_states) - 1
    return [hidden_states[i] for i in (chosen_layers("concat-last-four", L) if layers is None else layers(L))]


def _concat_ref(hidden_states, *, order=1, layers=None, join="cat"):
    states = _chosen(hidden_states, layers)[::order]
    if join == "cat":
        return torch.cat(states, dim=-1)  # (B, T, n·H): as FeatureTagger reshapes (B, T, n, H)
    return {"stack": lambda: torch.stack(states, 2), "interleave": lambda: torch.stack(states, -1).flatten(-2),
            "sum": lambda: sum(states), "tokens": lambda: torch.cat(states, 1),
            "mean": lambda: sum(states) / len(states)}[join]()


def _weighted_ref(hidden_states, mix, scale, *, softmax=True, use_scale=True, order=1, layers=None):
    states = torch.stack(_chosen(hidden_states, layers)[::order], dim=2)  # (B, T, n, H)
    w = mix.softmax(0) if softmax else mix
    return (scale if use_scale else 1) * (states * w[:, None]).sum(2)  # FeatureTagger's "weighted" join


FIRST_FOUR = lambda L: list(range(min(4, L + 1)))  # noqa: E731
LAYERS_1_TO_4 = lambda L: list(range(1, min(5, L + 1)))  # noqa: E731  hidden_states[1:5]
BELOW_TOP = lambda L: list(range(max(0, L - 4), L))  # noqa: E731  one too low: the last layer left out
EVERY = lambda L: list(range(L + 1))  # noqa: E731
CONCAT_MISTAKES = [
    ("the right layers, in the wrong order: lower layer first (L−3, L−2, L−1, L), as chosen_layers lists them",
     dict(order=-1)),
    ("these are the embeddings and the first layers; the paper concatenates the *top* four (hidden_states[-4:])",
     dict(layers=FIRST_FOUR)),
    ("these are layers 1 to 4 (hidden_states[1:5]), the bottom of the encoder; the paper concatenates the *top* "
     "four (hidden_states[-4:])", dict(layers=LAYERS_1_TO_4)),
    ("the last layer is missing: hidden_states[-1] is the last layer's output, and it is one of the four",
     dict(layers=BELOW_TOP)),
    ("this concatenates every hidden state, the embeddings included; take the last four", dict(layers=EVERY)),
    ("these are stacked on a new axis (B, T, 4, H); concatenate along the hidden axis: torch.cat(..., dim=-1)",
     dict(join="stack")),
    ("the four are interleaved number by number (stacked on the last axis, then reshaped); torch.cat(..., dim=-1) "
     "puts each layer's H numbers side by side", dict(join="interleave")),
    ("these are concatenated along the tokens; concatenate along the hidden axis (dim=-1)", dict(join="tokens")),
    ("this is a sum of the four; concatenation keeps each layer's vector side by side", dict(join="sum")),
    ("this is a mean of the four; concatenation keeps each layer's vector side by side", dict(join="mean")),
]
WEIGHTED_MISTAKES = [
    ("the raw mix weights are used; ELMo's scalar mix (and FeatureTagger) normalises them with a softmax first",
     dict(softmax=False)),
    ("the scale γ is missing: the sum of the softmax-weighted states is multiplied by `scale`", dict(use_scale=False)),
    ("the weights meet the layers in reverse order: mix[0] weighs the lowest of the four (layer L−3)",
     dict(order=-1)),
    ("this weighs the embeddings and the first layers; the paper's sum is over the *top* four", dict(layers=FIRST_FOUR)),
    ("the raw weights and no scale", dict(softmax=False, use_scale=False)),
]


def _states(model: BertModel, seed: int) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, model.config.vocab_size, (2, 7), generator=g)
    with torch.no_grad():
        return model(ids, output_hidden_states=True).hidden_states


@lru_cache(maxsize=1)
def _cases():
    """(name, hidden_states): small random BERTs of 12, 4 and 2 layers, then MiniLM on a real sentence."""
    out = []
    for seed, L, H in ((93, 12, 8), (94, 4, 16), (95, 2, 12)):
        torch.manual_seed(seed)
        model = BertModel(BertConfig(vocab_size=40, hidden_size=H, num_hidden_layers=L, num_attention_heads=2,
                                     intermediate_size=2 * H, max_position_embeddings=16)).eval()
        out.append((f"a random BERT with L={L} layers, H={H}: {L + 1} hidden states of (2, 7, {H})", _states(model, seed)))
    batch = minilm_tokenizer()([valid_lines()[0]], truncation=True, max_length=24, return_tensors="pt")
    with torch.no_grad():
        states = minilm_model()(**batch, output_hidden_states=True).hidden_states
    out.append((f"all-MiniLM-L6-v2 on a real sentence: 7 hidden states of {tuple(states[0].shape)}", states))
    return out


def _diagnose(name, got, expected, mistakes, ref, hidden_states, *args):
    """Name the mistake that reproduces `got`, if one does; else compare (shape first, then values)."""
    def same(x, y):
        return x.shape == y.shape and torch.allclose(x.detach().to(y.dtype), y, atol=1e-5, rtol=1e-4)

    if isinstance(got, torch.Tensor) and not same(got, expected):
        for hint, kw in mistakes:
            if same(got, ref(hidden_states, *args, **kw)):
                raise ExerciseError(f"{name}: {hint}")
    expect_close(name, got, expected, hint="the top n = min(4, L + 1) states of *this* model, counted from the end "
                 "(hidden_states[-4:]; the models here have 12, 4, 2 and 6 layers), and for the sum n weights in mix")


def _in_float64():
    """The L=4 model's states as a model run in double precision gives them: the features keep that dtype."""
    name, states = _cases()[1]
    return f"{name}, in float64 (a model run in double precision)", tuple(s.double() for s in states)


def _in_bfloat16():
    """The L=4 model's states in bfloat16, as a model run in mixed precision on a GPU gives them."""
    name, states = _cases()[1]
    return f"{name}, in bfloat16 (a model run in mixed precision)", tuple(s.bfloat16() for s in states)


def _call_concat(fn, name, given):
    try:
        return call(fn, name, given)
    except ExerciseError as e:  # numpy has no bfloat16: .numpy() refuses such states
        if "BFloat16" not in str(e) or "ScalarType" not in str(e):
            raise
        raise ExerciseError(f"{e}\n  hint: numpy has no bfloat16, so .numpy() (or np.asarray) refuses these "
                            "states; join them in torch, torch.cat(hidden_states[-4:], dim=-1), which keeps "
                            "their dtype") from e


def concat_last_four(fn) -> None:
    """fn(hidden_states: a tuple of L+1 tensors (B, T, H)) -> (B, T, n·H): the last n = min(4, L+1) concatenated."""
    for name, states in [*_cases(), _in_float64(), _in_bfloat16()]:
        given = tuple(s.clone() for s in states)
        got = _call_concat(fn, name, given)
        if not all(torch.equal(a, b) for a, b in zip(given, states)):
            raise ExerciseError(f"{name}: your function changed the hidden states it was given")
        _diagnose(name, got, _concat_ref(states), CONCAT_MISTAKES, _concat_ref, states)
        if got.dtype != states[0].dtype:  # _diagnose compares values only, and float32 is close enough to them
            raise ExerciseError(f"{name}: your result is {got.dtype}, the states {states[0].dtype}: keep their dtype "
                                "(torch.cat does; a buffer from torch.zeros(...) is float32 unless given dtype=)")
    passed("concat_last_four", f"{len(_cases())} models (12, 4, 2 layers and MiniLM's 6, the 4-layer one in float32, "
                               "float64 and bfloat16) give the concatenation of the top four hidden states minibert's "
                               "feature tagger reads")


def weighted_sum_last_four(fn) -> None:
    """fn(hidden_states, mix (n,), scale ()) -> (B, T, H): scale · Σ_j softmax(mix)_j · h_j over the last n."""
    for k, (name, states) in enumerate(_cases()):
        n = len(chosen_layers("weighted-sum-last-four", len(states) - 1))
        mix = torch.linspace(-1.0, 1.5, n) * (1 if k % 2 else -1)  # unequal weights, so order and softmax show
        scale = torch.tensor(0.5 + k)
        case = f"{name}, mix={[round(x, 3) for x in mix.tolist()]}, scale={scale.item()}"
        given = (tuple(s.clone() for s in states), mix.clone(), scale.clone())
        got = call(fn, case, *given)
        if not (all(torch.equal(a, b) for a, b in zip(given[0], states)) and torch.equal(given[1], mix)
                and torch.equal(given[2], scale)):
            raise ExerciseError(f"{case}: your function changed the hidden states, mix or scale it was given "
                                "(out = states[0]; out *= w changes states[0] itself); build a new tensor")
        _diagnose(case, got, _weighted_ref(states, mix, scale), WEIGHTED_MISTAKES, _weighted_ref, states, mix, scale)
    _learned_mix(fn)
    passed("weighted_sum_last_four", f"{len(_cases())} models give FeatureTagger's weighted sum of the top four "
                                     "hidden states (softmax of the mix, times the scale); with large learned "
                                     "weights it stays finite, and the gradients reach mix and scale")


def _learned_mix(fn) -> None:
    """MiniLM's states with mix and scale as the tagger holds them, parameters that learn: large raw weights
    (exp(90) is past float32's largest number, 3.4e38), one of them 390 below the largest (so only the largest
    can be subtracted safely: the smallest is 390 below it, the mean 98), and the gradients of a loss must reach
    both."""
    name, states = _cases()[-1]
    raw = [90.0, 88.0, 89.0, -300.0]  # a weight learned far below the others: the mean is -8.25, 98 below the top
    mix, scale = torch.tensor(raw, requires_grad=True), torch.tensor(1.5, requires_grad=True)
    case = f"{name}, mix={raw} (large raw weights, as a learned mix may grow), scale=1.5, both requiring grad"
    got = call(fn, case, tuple(s.clone() for s in states), mix, scale)
    if isinstance(got, torch.Tensor) and got.shape == states[0].shape and not torch.isfinite(got).all():
        raise ExerciseError(f"{case}: your result holds NaN or inf\n  hint: exp(90), as exp of any number past "
                            "about 88.7, is past float32's largest number (about 3.4e38), so exp(mix) / "
                            "exp(mix).sum() is inf / inf = NaN; subtract the *largest* weight first (mix.softmax(0) "
                            "does), which changes nothing else and leaves every exponent ≤ 0: subtracting another "
                            "number, such as the smallest weight or the mean, can still overflow")
    expected = _weighted_ref(states, mix.detach(), scale.detach())
    _diagnose(case, got, expected, WEIGHTED_MISTAKES, _weighted_ref, states, mix.detach(), scale.detach())
    if not got.requires_grad:
        raise ExerciseError(f"{case}: the values are right, but no gradient reaches mix or scale (your result does not "
                            "require grad)\n  hint: the tagger learns both by backpropagation; .tolist(), .item(), "
                            "float() or torch.no_grad() take them out of autograd's graph: keep the arithmetic on "
                            "the tensors themselves")
    mix_ref, scale_ref = mix.detach().clone().requires_grad_(), scale.detach().clone().requires_grad_()
    expect_same_gradients(case, got, _weighted_ref(states, mix_ref, scale_ref),
                          [("mix", mix, mix_ref), ("scale", scale, scale_ref)], against="FeatureTagger's weighted sum",
                          seed=93, atol=1e-4, rtol=1e-3,
                          hint="every step from mix and scale to the result must stay in autograd's graph")
