"""The checkers of exercise 10.2: unpadding a batch (the real tokens of a (B, T, ...) batch packed into
(N, ...), row by row, with their flat positions) and padding it back, as `minibert.model.unpad_input`
and `pad_input` do for the encoder's `unpad=True` path."""

from __future__ import annotations

import torch

from ...model import pad_input as pad_reference
from ...model import unpad_input as unpad_reference
from ..common import ExerciseError, short, call, minilm_tokenizer, passed, valid_lines
from .unpadding_grads import pad_gradient, unpad_gradient


def _grid(B: int, T: int, *trailing: int, dtype=torch.long) -> torch.Tensor:
    """x[b, t] = 10·b + t (and + 0.1·h along a last axis): every position readable in a message."""
    x = (10 * torch.arange(B)[:, None] + torch.arange(T)[None, :]).to(dtype)  # (B, T)
    if trailing:
        x = x[..., None] + 0.1 * torch.arange(trailing[0])  # (B, T, H)
    return x


HAND = [  # (x, attention_mask, lesson)
    (_grid(2, 4), [[1, 1, 1, 0], [1, 1, 0, 0]],
     "row-major: row 0's real tokens, then row 1's; indices are the flat positions b·T + t"),
    (_grid(2, 3, 2, dtype=torch.float), [[1, 1, 1], [1, 0, 0]],
     "a (B, T, H) batch: each real token keeps its whole H vector, (N, H)"),
    (_grid(2, 4), [[0, 0, 1, 1], [1, 1, 1, 0]],
     "the mask decides which tokens are real, not the lengths: here row 0 is padded on the left"),
    (_grid(2, 3), [[1, 1, 1], [1, 1, 1]], "nothing padded: N = B·T, and the indices count 0 .. B·T - 1"),
    (_grid(2, 3, 2, dtype=torch.float), [[0, 1, 0], [0, 0, 0]],
     "one real token in the whole batch: packed is still (N, H) = (1, 2), and indices (1,)"),
    (_grid(1, 5, 2, dtype=torch.float), [[1, 1, 1, 0, 0]],
     "a batch of one row, padded all the same: its padding is dropped too, N = 3"),
]


def _masks_column_major(x, mask):
    """The real tokens column by column (t, then b): the usual wrong order."""
    order = mask.t().flatten().nonzero().squeeze(1)  # positions t·B + b
    b, t = order % mask.shape[0], order // mask.shape[0]
    return x[b, t], b * mask.shape[1] + t


def _by_lengths(x, mask):
    lengths = mask.sum(1).tolist()
    rows = [x[b, :n] for b, n in enumerate(lengths)]
    return torch.cat(rows), torch.cat([b * mask.shape[1] + torch.arange(n) for b, n in enumerate(lengths)])


def _unpad_hint(x, mask, packed, indices) -> str:
    """Name the mistake behind a wrong (packed, indices), if it is a usual one."""
    right_packed, right_indices = unpad_reference(x, mask)
    column_packed, column_indices = _masks_column_major(x, mask)
    length_packed, _ = _by_lengths(x, mask)
    same = lambda a, b: isinstance(a, torch.Tensor) and a.shape == b.shape and torch.equal(a.to(b.dtype), b)  # noqa: E731
    if same(packed, column_packed):
        return ("the tokens are in column-major order (position 0 of every row, then position 1, ...): "
                "unpadding keeps each row together, row 0's real tokens then row 1's (flatten (B, T) to B·T, "
                "then keep the real positions)")
    if same(packed, length_packed) and not torch.equal(length_packed, right_packed):
        return ("the first mask.sum() positions of each row were taken: that assumes every row is padded at its "
                "end. Select with the mask itself (attention_mask.flatten().nonzero())")
    if same(packed, right_packed):
        if same(indices, right_indices % mask.shape[1]):
            return "these indices are the position t within each row: pad_input needs the flat position b·T + t"
        if same(indices, column_indices) or same(indices, (right_indices % mask.shape[1]) * mask.shape[0]
                                                   + right_indices // mask.shape[1]):
            return "these indices are column-major (t·B + b): the flat position of (b, t) in a (B, T) grid is b·T + t"
        if isinstance(indices, torch.Tensor) and indices.dim() == 2:
            return ("these are (b, t) pairs, as mask.nonzero() gives them: flatten the mask first, so that each "
                    "index is one number b·T + t, shape (N,)")
    return ""


def _unpad_case(fn, name, x, mask):
    x0, mask0 = x.clone(), mask.clone()
    got = call(fn, name, x, mask)
    if not (torch.equal(x, x0) and torch.equal(mask, mask0)):
        raise ExerciseError(f"{name}: your function changed x or attention_mask; leave the inputs as they are")
    right_packed, right_indices = unpad_reference(x, mask)
    if not (isinstance(got, tuple | list) and len(got) == 2):
        raise ExerciseError(f"{name}: expected a pair (packed x of shape {tuple(right_packed.shape)}, indices of shape "
                            f"{tuple(right_indices.shape)}), received {short(got)}")
    packed, indices = got
    show = f"{name}:\n  x              {x.tolist()}\n  attention_mask {mask.tolist()}"
    if not isinstance(packed, torch.Tensor) or packed.shape != right_packed.shape:
        shape = tuple(packed.shape) if isinstance(packed, torch.Tensor) else type(packed).__name__
        hint = (" (this keeps every position: multiplying by the mask zeroes [PAD] but keeps its FLOPs; pack the real "
                "tokens into one dimension of N)" if shape == tuple(x.shape) else
                " (the N axis is gone: with one real token N is 1, and .squeeze() drops every axis of size 1; "
                ".squeeze(1) or .flatten() keeps it)" if len(right_packed) == 1 and shape == tuple(x.shape[2:]) else
                f" (N = {len(right_packed)} tokens, each with all of x's trailing axes {tuple(x.shape[2:])}: "
                "x.flatten(0, 1)[indices])" if shape[:1] == (len(right_packed),) else "")
        raise ExerciseError(f"{show}\n  expected packed x of shape {tuple(right_packed.shape)}, received {shape}{hint}")
    if packed.dtype != x.dtype:
        raise ExerciseError(f"{show}\n  packed x has dtype {packed.dtype}; keep x's dtype, {x.dtype}")
    if not isinstance(indices, torch.Tensor) or indices.dtype != torch.long:
        what = indices.dtype if isinstance(indices, torch.Tensor) else type(indices).__name__
        raise ExerciseError(f"{show}\n  indices must be a tensor of int64 positions (torch.long), received {what}")
    if not (torch.equal(packed, right_packed) and torch.equal(indices, right_indices)):
        hint = _unpad_hint(x, mask, packed, indices)
        raise ExerciseError(f"{show}\n  expected packed  {right_packed.tolist()}\n  received packed  {packed.tolist()}"
                            f"\n  expected indices {right_indices.tolist()}\n  received indices {indices.tolist()}"
                            + (f"\n  hint: {hint}" if hint else ""))
    back = pad_reference(packed, indices, *mask.shape)
    assert torch.equal(back, x * mask.view(*mask.shape, *[1] * (x.dim() - 2)).to(x.dtype))  # the round trip


def _pad_case(fn, name, x, mask):
    packed, indices = unpad_reference(x, mask)
    if not x.is_contiguous():  # then packed (N, H) is given as a transposed view too
        packed = packed.t().contiguous().t()
    B, T = mask.shape
    p0, i0 = packed.clone(), indices.clone()
    got = call(fn, name, packed, indices, B, T)
    if not (torch.equal(packed, p0) and torch.equal(indices, i0)):
        raise ExerciseError(f"{name}: your function changed x or indices; leave the inputs as they are")
    expected = pad_reference(packed, indices, B, T)
    show = f"{name}:\n  x (packed) {packed.tolist()}\n  indices    {indices.tolist()}, B={B}, T={T}"
    if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
        shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
        hint = (" (reshape the B·T rows into (B, T, ...))" if shape == (B * T, *expected.shape[2:]) else
                f" (every trailing axis of x, {tuple(packed.shape[1:])}, after (B, T))" if shape[:2] == (B, T) else "")
        raise ExerciseError(f"{show}\n  expected shape {tuple(expected.shape)}, received {shape}{hint}")
    if got.dtype != packed.dtype:
        raise ExerciseError(f"{show}\n  the result has dtype {got.dtype}; keep x's dtype, {packed.dtype}")
    if torch.equal(got, expected):
        return
    real = mask.bool()
    hint = ""
    if torch.equal(got[real], expected[real]):
        hint = ("the real tokens are in place but the padded positions are not 0: start from zeros (x.new_zeros), "
                "not torch.empty, whose memory holds whatever was there; the layers after attention must see 0 at [PAD]")
    elif torch.equal(got, packed.new_zeros(T * B, *packed.shape[1:]).index_copy(0, indices, packed)
                     .view(T, B, *packed.shape[1:]).transpose(0, 1)):
        hint = "the tokens went in column-major order (t·B + b): the flat position b·T + t is row b, column t"
    raise ExerciseError(f"{show}\n  expected {expected.tolist()}\n  received {got.tolist()}"
                        + (f"\n  hint: {hint}" if hint else ""))


def _random_cases(seed: int):
    """(name, x, mask): right-padded batches of random lengths, one with holes, and a real tokenized batch."""
    g = torch.Generator().manual_seed(seed)
    cases = []
    for B, T, H in ((3, 7, 0), (5, 16, 4), (8, 33, 3)):
        lengths = torch.randint(1, T + 1, (B,), generator=g)
        lengths[0] = T
        mask = (torch.arange(T)[None] < lengths[:, None]).long()  # (B, T), real tokens first
        x = torch.randn(B, T, H, generator=g) if H else torch.randint(5, 1000, (B, T), generator=g)
        cases.append((f"random batch (B, T{', H' if H else ''}) = {tuple(x.shape)}, lengths {lengths.tolist()}", x, mask))
    mask = (torch.rand(4, 9, generator=g) < 0.6).long()
    cases.append(("a random mask with holes anywhere (4, 9)", torch.randn(4, 9, 2, generator=g, dtype=torch.float64), mask))
    # Transposed views (as a (T, B, H) layout turned batch-first gives them): .view on them raises, .reshape copies
    mask = (torch.rand(6, 3, generator=g) < 0.7).long().t()
    cases.append(("a non-contiguous batch: x = torch.randn(6, 3, 4).transpose(0, 1) and a transposed mask (3, 6)",
                  torch.randn(6, 3, 4, generator=g).transpose(0, 1), mask))
    tok = minilm_tokenizer()
    enc = tok(list(valid_lines()[:6]), padding=True, return_tensors="pt")
    cases.append((f"six sentences of the course corpus, tokenized and padded to {enc['input_ids'].shape[1]} "
                  "(x = their input_ids)", enc["input_ids"], enc["attention_mask"]))
    return cases


def _four_axes():
    """x (B, T, nh, hs), as attention holds it per head: "any trailing dimensions" is more than one."""
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]])
    return [("a (B, T, nh, hs) = (3, 5, 2, 3) batch, two trailing axes: each real token keeps its (2, 3) block",
             torch.arange(90.0).view(3, 5, 2, 3), mask)]


def unpad_input(fn) -> None:
    """fn(x (B, T, ...), attention_mask (B, T)) -> (x (N, ...) of the real tokens, row-major; indices (N,))."""
    for x, mask, lesson in HAND:
        _unpad_case(fn, f"hand case ({lesson})", x, torch.tensor(mask))
    cases = _random_cases(102)
    for name, x, mask in cases + _four_axes():
        _unpad_case(fn, name, x, mask)
    unpad_gradient(fn)  # after the values: a cut graph leaves them right
    passed("unpad_input", f"{len(HAND) + len(_four_axes())} hand-computed batches (one with two trailing axes) and "
                          f"{len(cases)} random and real ones equal minibert.model.unpad_input, and pad_input puts "
                          "them back")


def pad_input(fn) -> None:
    """fn(x (N, ...), indices (N,), B, T) -> (B, T, ...): each token at its flat position, zeros at [PAD]."""
    for x, mask, lesson in HAND:
        _pad_case(fn, f"hand case ({lesson})", x, torch.tensor(mask))
    cases = _random_cases(103)
    for name, x, mask in cases + _four_axes():
        _pad_case(fn, name, x, mask)
    pad_gradient(fn)  # after the values: a cut graph leaves them right
    passed("pad_input", f"{len(HAND) + len(_four_axes())} hand-computed batches (one with two trailing axes) and "
                        f"{len(cases)} random and real ones equal minibert.model.pad_input: every token back at "
                        "b·T + t, zeros at [PAD]")
