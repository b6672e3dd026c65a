"""The checkers of exercises 2.4 and 2.5: (B, T, H) <-> (B, nh, T, hs)."""

from __future__ import annotations

import torch

from ...config import BertConfig
from ...model import SelfAttention
from ..common import ExerciseError, expect_close, passed
from ._shared import _call_with_hints, _expect, _model, _t

# ---------------------------------------------------------------------------------------------------
# Exercises 2.4 and 2.5: (B, T, H) <-> (B, nh, T, hs)

def _call_reshaping(fn, name, *args):
    return _call_with_hints(fn, name, {"view size is not compatible": (
        "after a transpose the tensor is not contiguous in memory, so .view cannot flatten it; use .reshape "
        "(or .contiguous().view)")}, *args)


def split_heads(fn) -> None:
    """Check `fn(x, num_heads)`: (B, T, H) -> (B, nh, T, hs)."""
    hand = 0
    # x = arange(24) as (B, T, H) = (1, 2, 12): token 0 holds 0..11, token 1 holds 12..23. With nh = 3
    # heads of hs = 4, head h owns features 4h..4h+3 of every token: head h, token t = 12t + 4h + [0..3].
    x = torch.arange(24.0).view(1, 2, 12)
    name = "x = torch.arange(24.).view(1, 2, 12) (B = 1, T = 2, H = 12), num_heads = 3 (hs = 4)"
    got = _call_reshaping(fn, name, x.clone(), 3)
    shape_hints = {(1, 2, 3, 4): "this is (B, T, nh, hs): the head axis must come before the token axis, "
                                 "transpose(1, 2)",
                   (1, 4, 2, 3): "this is (B, hs, T, nh): split H as (nh, hs), heads first, then move the head axis"}
    if isinstance(got, torch.Tensor) and tuple(got.shape) in shape_hints:
        raise ExerciseError(f"{name}: expected shape (1, 3, 2, 4) = (B, nh, T, hs), received shape "
                            f"{tuple(got.shape)}\n  hint: {shape_hints[tuple(got.shape)]}")
    expected = _t([[[[0, 1, 2, 3], [12, 13, 14, 15]],
                    [[4, 5, 6, 7], [16, 17, 18, 19]],
                    [[8, 9, 10, 11], [20, 21, 22, 23]]]])
    _expect(name, got, expected, bugs=[
        # view(B, nh, T, hs) reads memory in order: head 0 gets token 0's features 0..7
        (torch.arange(24.0).view(1, 3, 2, 4),
         "view(B, nh, T, hs) just re-reads memory, so head 0 got features 0..7 of token 0 instead of "
         "features 0..3 of each token; view as (B, T, nh, hs), then transpose(1, 2)"),
        # H split as (hs, nh): head h takes every third feature, h, h + 3, h + 6, h + 9
        (_t([[[[0, 3, 6, 9], [12, 15, 18, 21]], [[1, 4, 7, 10], [13, 16, 19, 22]], [[2, 5, 8, 11], [14, 17, 20, 23]]]]),
         "your heads take every nh-th feature; head h owns a contiguous slice, features h·hs .. (h+1)·hs - 1: "
         "split H as (nh, hs), not (hs, nh)")],
        hint="head h, token t must hold x[b, t, h·hs:(h+1)·hs]")
    hand += 1

    cases = [(2, 5, 64, 4), (3, 7, 24, 6), (1, 9, 30, 5), (2, 1, 8, 8)]
    for seed, (B, T, H, nh) in enumerate(cases):
        attn = _model(BertConfig(hidden_size=H, num_attention_heads=nh), SelfAttention, 300 + seed)
        x = torch.randn(B, T, H, generator=torch.Generator().manual_seed(300 + seed))
        name = (f"random case {seed + 1}: x of shape ({B}, {T}, {H}), num_heads = {nh}, compared with "
                "SelfAttention.split_heads")
        got = _call_reshaping(fn, name, x.clone(), nh)
        expect_close(name, got, attn.split_heads(x), atol=0, rtol=0)
    passed("split_heads", f"{hand} hand-computed case and {len(cases)} random ones agree with minibert")


def merge_heads(fn) -> None:
    """Check `fn(x)`: (B, nh, T, hs) -> (B, T, H), the inverse of split_heads."""
    hand = 0
    # x = arange(24) as (B, nh, T, hs) = (1, 3, 2, 4): head h, token t holds 8h + 4t + [0..3]. Token t
    # of the result is the concatenation, over heads h = 0, 1, 2, of x[0, h, t].
    x = torch.arange(24.0).view(1, 3, 2, 4)
    name = "x = torch.arange(24.).view(1, 3, 2, 4) (B = 1, nh = 3, T = 2, hs = 4)"
    got = _call_reshaping(fn, name, x.clone())
    expected = _t([[[0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19],
                    [4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23]]])
    _expect(name, got, expected, bugs=[
        (torch.arange(24.0).view(1, 2, 12),
         "a reshape without the transpose glues together numbers of different tokens (token 0 got head 0's "
         "two tokens); transpose(1, 2) back to (B, T, nh, hs) first, then reshape to (B, T, H)"),
        (_t([[[0, 8, 16, 1, 9, 17, 2, 10, 18, 3, 11, 19], [4, 12, 20, 5, 13, 21, 6, 14, 22, 7, 15, 23]]]),
         "your features are interleaved across heads; each head's hs features go back to one contiguous slice: "
         "flatten (nh, hs), not (hs, nh)")],
        hint="token t of the result is the concatenation, over heads h = 0 .. nh-1, of x[b, h, t]")
    hand += 1

    cases = [(2, 5, 64, 4), (3, 7, 24, 6), (1, 9, 30, 5), (2, 1, 8, 8)]
    for seed, (B, T, H, nh) in enumerate(cases):
        attn = _model(BertConfig(hidden_size=H, num_attention_heads=nh), SelfAttention, 400 + seed)
        x = torch.randn(B, T, H, generator=torch.Generator().manual_seed(400 + seed))
        name = (f"random case {seed + 1}: x of shape ({B}, {T}, {H}) split into {nh} heads by "
                "SelfAttention.split_heads; merging must give x back")
        got = _call_reshaping(fn, name, attn.split_heads(x).clone())
        expect_close(name, got, x, atol=0, rtol=0)
    passed("merge_heads", f"{hand} hand-computed case and {len(cases)} random ones agree with minibert")
