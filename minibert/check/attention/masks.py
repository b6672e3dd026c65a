"""The checkers of exercises 2.3 and 2.4: the additive padding mask in a given dtype, (B, 1, 1, T),
and the causal (GPT-style) mask combined with padding, (B, 1, T, T)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...config import BertConfig
from ...model import SelfAttention
from ..common import ExerciseError, short, expect_close, passed
from ._shared import _call_pure, _model

# ---------------------------------------------------------------------------------------------------
# Exercise 2.3: the additive padding mask, (B, 1, 1, T), in the scores' dtype

LARGE_NEGATIVE = -1e4  # at or below this, exp(score + mask) underflows to exactly 0 (Google uses -10000.0)


def _check_mask(name: str, got, attention_mask: torch.Tensor, dtype: torch.dtype) -> None:
    B, T = attention_mask.shape
    shape = (B, 1, 1, T)
    if not isinstance(got, torch.Tensor):
        raise ExerciseError(f"{name}: expected a tensor of shape {shape}, received {short(got, 200)}")
    if got.dtype == torch.bool:
        raise ExerciseError(f"{name}: expected a float mask that is added to the scores, received a bool tensor\n"
                            "  hint: 0 keeps a score, a large negative number removes it: return 0.0 where the "
                            "token is real and torch.finfo(dtype).min where it is padding")
    if tuple(got.shape) != shape:
        hints = {(B, 1, T, 1): "(B, 1, T, 1) masks the queries (rows of the scores); the mask must hide keys, the "
                               "last axis: attention_mask[:, None, None, :]",
                 (B, T): "a (B, T) mask does not broadcast against the (B, nh, T, T) scores; add the head and query "
                         "axes: (B, 1, 1, T), e.g. attention_mask[:, None, None, :]",
                 (1, 1, B, T): "m[None, None] puts the batch axis where the queries go; the batch axis stays first: "
                               "attention_mask[:, None, None, :]",
                 (1, 1, 1, B * T): "reshaping to (1, 1, 1, -1) glued the sequences of the batch together; keep B "
                                   "first: attention_mask[:, None, None, :]"}
        raise ExerciseError(f"{name}: expected shape {shape}, received shape {tuple(got.shape)}\n  hint: "
                            + hints.get(tuple(got.shape), "(B, 1, 1, T): one value per key, broadcast over the "
                                                          "heads and the queries"))
    values, real = got.detach().reshape(B, T).double(), attention_mask.bool()
    where = f"\n  attention_mask {attention_mask.tolist()}\n  received {short(got)}"
    if torch.isnan(values).any():
        raise ExerciseError(f"{name}: your mask contains NaN{where}\n  hint: 0 × (-inf) is NaN; build the mask "
                            "with torch.where or masked_fill, and use a finite number, torch.finfo(dtype).min")
    if not (values[real] == 0).all():
        if (values[~real] == 0).all() and (values[real] <= LARGE_NEGATIVE).all():
            hint = "your mask is inverted: 0 where attention_mask is 1 (a real token), large negative where it is 0"
        elif ((values == 0) | (values == 1)).all():
            hint = ("this is the 0/1 mask itself; it is added to the scores, not multiplied: return 0 where the "
                    "token is real and a large negative number where it is padding")
        else:
            hint = "real tokens (attention_mask 1) get 0, so that adding the mask leaves their scores unchanged"
        raise ExerciseError(f"{name}: the mask must be exactly 0 where attention_mask is 1{where}\n  hint: {hint}")
    if (values[~real] == float("inf")).any():  # positive: the mask was computed in integers that wrapped
        hint = "padding needs a large negative number; build the mask in dtype: 1.0 - attention_mask.to(dtype)"
        if attention_mask.dtype == torch.uint8:
            hint = ("on an unsigned uint8 mask, integer arithmetic wraps round: 0 - 1 is 255, and 255 times a large "
                    "number is +inf; convert to dtype first, then subtract: (attention_mask.to(dtype) - 1)")
        raise ExerciseError(f"{name}: your mask holds +inf at padding{where}\n  hint: {hint}")
    if torch.isinf(values).any():
        hint = ("-inf gives NaN for a sequence that is all padding (softmax of a row of -inf is 0/0); use the "
                "most negative finite number of the dtype, torch.finfo(dtype).min")
        if dtype != torch.float32 and torch.finfo(dtype).max < torch.finfo(torch.float32).max:
            hint = (f"torch.finfo(torch.float32).min is beyond the range of {dtype}, so it became -inf; use "
                    "torch.finfo(dtype).min of the dtype asked for")
        raise ExerciseError(f"{name}: your mask holds -inf{where}\n  hint: {hint}")
    # -10000 rounded to the dtype asked for: bfloat16 holds -9984, not -10000, and Google's adder gives that.
    limit = torch.tensor(LARGE_NEGATIVE, dtype=dtype).item() if dtype.is_floating_point else LARGE_NEGATIVE
    if not (values[~real] <= limit).all():
        hint = ("padded keys need a large negative number (at most -10000, e.g. torch.finfo(dtype).min), so that "
                "exp(score + mask) is exactly 0")
        if ((values == 0) | (values == 1)).all():
            hint = "this is a 0/1 mask; it is added to the scores, not multiplied: " + hint
        raise ExerciseError(f"{name}: padded positions (attention_mask 0) must get a large negative value{where}"
                            f"\n  hint: {hint}")
    if got.dtype != dtype:
        hint = ("an integer mask is not added as a float by every kernel (F.scaled_dot_product_attention refuses "
                "it); (1 - m) * -10000 stays integer when m is: use 1.0 - m.to(dtype)" if not got.is_floating_point()
                else "return the dtype asked for, e.g. torch.zeros(..., dtype=dtype): "
                     "F.scaled_dot_product_attention wants a float mask of the query's dtype")
        raise ExerciseError(f"{name}: expected dtype {dtype}, received {got.dtype}\n  hint: {hint}")


def _same_tensor(a, b) -> bool:
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
            and a.dtype == b.dtype and torch.equal(a.detach(), b))


def padding_mask(fn) -> None:
    """Check `fn(attention_mask, dtype=torch.float32) -> additive mask` of shape (B, 1, 1, T)."""
    hand, first = 0, None
    # The mask is 0 for a real token and a large negative finite number (≤ -1e4) for padding, at shape
    # (B, 1, 1, T): for [[1, 1, 0], [1, 0, 0]], [[[[0, 0, -big]]], [[[0, -big, -big]]]].
    for attention_mask, dtype, what in [
            ([[1, 1, 0], [1, 0, 0]], None, "two padded sequences, dtype left at its default, torch.float32"),
            ([[1, 1, 1, 1]], torch.float32, "one sequence without padding: all zeros, shape (1, 1, 1, 4)"),
            ([[0, 0, 1, 1, 1]], torch.float32, "padding on the left: the first two keys are masked"),
            ([[1, 1, 0], [1, 1, 1]], torch.float16, "half precision, whose most negative number is -65504"),
            ([[1, 0, 0, 0]], torch.float64, "double precision"),
            ([[1, 0, 1]], torch.bfloat16, "bfloat16, whose most negative number, -3.3895e38, is above float32's"),
            # An integer mask of another kind: uint8 has no negatives, so 0 - 1 wraps round to 255 in it.
            (torch.tensor([[1, 1, 0]], dtype=torch.uint8), torch.float32, "an integer mask of dtype torch.uint8"),
            # The first case's shape and dtype again, its padding elsewhere: a mask kept from an earlier call
            # (a cache keyed by shape and dtype) shows here.
            ([[1, 0, 0], [1, 1, 0]], torch.float32, "the first case's shape and dtype, the padding elsewhere")]:
        attention_mask = torch.as_tensor(attention_mask)
        name = f"attention_mask {attention_mask.tolist()}" + ("" if dtype is None else f", dtype={dtype}") + \
            f" ({what})"
        got = _call_pure(fn, name, {"without overflow": f"torch.finfo(torch.float32).min does not fit in {dtype} "
                                                        "(it is beyond the range of the dtype); use "
                                                        "torch.finfo(dtype).min"},
                         attention_mask, *(() if dtype is None else (dtype,)))
        if _same_tensor(got, first):  # the first case's mask was right, so for other padding it is wrong
            raise ExerciseError(f"{name}: you returned the mask of the first case, {first.tolist()}, whose shape and "
                                "dtype are the same, not one built from this attention_mask\n  hint: something kept "
                                "between calls (a cache keyed by shape and dtype) ignores where the padding is; "
                                "build the mask from attention_mask at every call")
        _check_mask(name, got, attention_mask, dtype or torch.float32)
        if hand == 0:  # kept to recognise it if a later call of the same shape and dtype returns it again
            first = got.detach().clone()
        hand += 1

    # Random: softmax of random scores plus your mask, against minibert's SelfAttention, which hides
    # the same keys with its boolean mask: padded keys get exactly 0, real ones the same probabilities.
    cases = [(4, 9, [9, 6, 3, 1], torch.float32), (3, 16, [10, 16, 2], torch.float32),
             (2, 7, [7, 4], torch.float64)]
    for seed, (B, T, lengths, dtype) in enumerate(cases):
        config = BertConfig(hidden_size=12, num_attention_heads=3)
        attn = _model(config, SelfAttention, 200 + seed).to(dtype)
        g = torch.Generator().manual_seed(200 + seed)
        x = 2 * torch.randn(B, T, config.hidden_size, generator=g, dtype=dtype)
        attention_mask = (torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]).long()  # (B, T)
        name = f"random case {seed + 1}: attention_mask of shape ({B}, {T}) with real lengths {lengths}, dtype={dtype}"
        got = _call_pure(fn, name, {}, attention_mask, dtype)
        _check_mask(name, got, attention_mask, dtype)
        with torch.no_grad():
            expected = attn(x, attention_mask.bool()[:, None, None, :], need_probs=True)[1]  # (B, nh, T, T)
            q, k = (attn.split_heads(lin(x)) for lin in (attn.query, attn.key))
            eye = torch.eye(T, dtype=dtype).expand(B, config.num_attention_heads, T, T)
            # softmax(q kᵀ / √hs + your mask), read off as SDPA's output for v = the identity
            probs = F.scaled_dot_product_attention(q, k, eye, attn_mask=got.detach())
        padded = ~attention_mask.bool()[:, None, None, :].expand_as(probs)
        if not (probs[padded] == 0).all():
            raise ExerciseError(f"{name}: after softmax(scores + your mask), padded keys get probability up to "
                                f"{probs[padded].max().item():.3g}, expected exactly 0\n  hint: use a more negative "
                                "number, e.g. torch.finfo(dtype).min")
        expect_close(name + ", softmax(scores + your mask) vs minibert's SelfAttention probabilities", probs,
                     expected, atol=1e-6)
    passed("padding_mask", f"{hand} hand-computed cases and {len(cases)} random ones agree with minibert")


# ---------------------------------------------------------------------------------------------------
# Exercise 2.4: the causal (GPT-style) mask with padding, (B, 1, T, T), True = may attend

def _causal(attention_mask: torch.Tensor) -> torch.Tensor:
    """(B, T) of 1/0 -> (B, 1, T, T) bool: key j <= query i and key j real."""
    T = attention_mask.shape[1]
    return torch.ones(T, T, dtype=torch.bool).tril() & attention_mask.bool()[:, None, None, :]  # (B, 1, T, T)


def _causal_mistakes(attention_mask: torch.Tensor):
    """(the (B, 1, T, T) mask a known mistake gives, its message)."""
    B, T = attention_mask.shape
    real = attention_mask.bool()
    ones = torch.ones(T, T, dtype=torch.bool)
    return [
        (ones.triu() & real[:, None, None, :], "your mask lets query i see the keys after it (j ≥ i) and not those "
                                               "before; causal means key j ≤ query i: torch.tril"),
        (ones.tril(-1) & real[:, None, None, :], "a token must see itself: key j ≤ query i includes j = i "
                                                 "(tril(), not tril(-1)); without it row 0 has no key at all"),
        (ones.tril().expand(B, 1, T, T), "padding is ignored: combine the causal mask with the key mask, "
                                         "& attention_mask.bool()[:, None, None, :]"),
        (ones.tril() & real[:, None, :, None], "you hid the padded queries (rows); hide only the padded keys "
                                               "(columns): attention_mask[:, None, None, :]"),
        (ones.tril() & real[:, None, :, None] & real[:, None, None, :],
         "padded queries may still attend (nobody reads them, and a row with no key at all would need care); "
         "hide only the padded keys, the columns"),
        (ones.tril() & real[:1, None, None, :].expand(B, 1, 1, T), "every sequence got the first sequence's "
                                                                    "padding; use each row attention_mask[b]"),
    ]


def causal_mask(fn) -> None:
    """Check `fn(attention_mask) -> (B, 1, T, T)` bool, True where query i may attend key j."""
    hand = 0
    cases = [([[1, 1, 1, 0]], "one sequence, its last token padding: query 3 still sees keys 0-2, never key 3"),
             ([[1, 1, 0], [1, 1, 1]], "two sequences, the first padded at the end"),
             ([[0, 1, 1]], "padding on the left: query 0 has no key it may see (row 0 all False)")]
    for attention_mask, what in cases:
        attention_mask = torch.tensor(attention_mask)
        name = f"attention_mask {attention_mask.tolist()} ({what})"
        _check_causal(name, _call_pure(fn, name, {}, attention_mask), attention_mask)
        hand += 1
    # Random: the reference above, and, without padding, SDPA's own is_causal=True. The last is longer
    # than BERT's 512 positions: nothing in a causal mask depends on a maximum length.
    g = torch.Generator().manual_seed(500)
    shapes = [(3, 8, [8, 5, 1]), (2, 12, [12, 12]), (4, 5, [2, 5, 3, 4]), (1, 600, [550])]
    for i, (B, T, lengths) in enumerate(shapes):
        attention_mask = (torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]).long()
        name = f"random case {i + 1}: attention_mask of shape ({B}, {T}) with real lengths {lengths}"
        got = _call_pure(fn, name, {"size of tensor a (512)": "a triangle of a fixed size, 512, sliced [:T, :T] is "
                                    "too small for a longer sequence; build it from T at every call"},
                         attention_mask)
        _check_causal(name, got, attention_mask)
        if min(lengths) == T:  # no padding: the same attention as SDPA's causal flag
            q, k, v = (torch.randn(B, 2, T, 4, generator=g) for _ in range(3))
            expect_close(name + ", SDPA with your mask vs SDPA(is_causal=True)",
                         F.scaled_dot_product_attention(q, k, v, attn_mask=got.bool()),
                         F.scaled_dot_product_attention(q, k, v, is_causal=True))
    passed("causal_mask", f"{hand} hand-computed cases and {len(shapes)} random ones (T up to 600) agree with "
                          "minibert's reference and SDPA's is_causal")


def _check_causal(name, got, attention_mask):
    """Type, shape, values, then the dtype (bool), each with a hint."""
    B, T = attention_mask.shape
    expected = _causal(attention_mask)
    if not isinstance(got, torch.Tensor):
        raise ExerciseError(f"{name}: expected a bool tensor of shape {(B, 1, T, T)}, received {short(got, 200)}")
    if got.is_floating_point():
        raise ExerciseError(f"{name}: expected a bool tensor (True = may attend), received dtype {got.dtype}\n  hint: "
                            "a float mask is *added* to the scores by F.scaled_dot_product_attention, so 1.0/0.0 "
                            "would hide nothing; return booleans, e.g. torch.tril(...).bool()")
    if tuple(got.shape) != (B, 1, T, T):
        hint = {(T, T): "that is the causal part alone; combine it with the padding of each sequence: "
                        "(B, 1, T, T)",
                (B, T, T): "add the head axis, so that the mask broadcasts over heads: mask[:, None]"}
        raise ExerciseError(f"{name}: expected shape {(B, 1, T, T)}, received shape {tuple(got.shape)}\n  hint: "
                            + hint.get(tuple(got.shape), "(B, 1, T, T): axis 2 the queries, axis 3 the keys"))
    values = got.bool()
    if not torch.equal(values, expected):
        hint = next((m for wrong, m in _causal_mistakes(attention_mask) if torch.equal(values, wrong)),
                    "query i may attend key j when j ≤ i and key j is a real token")
        show = "" if B * T * T > 48 else f"\n  expected {expected.int().tolist()}\n  received {values.int().tolist()}"
        raise ExerciseError(f"{name}: wrong mask{show}\n  hint: {hint}")
    # An integer 0/1 mask is neither kind SDPA takes (it raises), and masked_fill refuses it too.
    if got.dtype != torch.bool:
        raise ExerciseError(f"{name}: the pattern is right, but the mask holds {got.dtype} 0/1, not booleans\n  hint: "
                            "F.scaled_dot_product_attention takes a bool mask (or a float one, added to the scores) "
                            "and masked_fill a bool one; build the triangle with dtype=torch.bool, or end with .bool()")
