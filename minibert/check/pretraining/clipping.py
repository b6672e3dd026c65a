"""The checker of exercise 5.4: clipping by the global norm (Google's tf.clip_by_global_norm, torch's
clip_grad_norm_): one norm over every gradient, every gradient scaled by the same factor, in place."""

from __future__ import annotations

import math

import torch

from ..common import ExerciseError, as_float, call, passed


def _params(shapes, scale: float, seed: int, none_at=()) -> list[torch.nn.Parameter]:
    g = torch.Generator().manual_seed(seed)
    params = []
    for i, shape in enumerate(shapes):
        p = torch.nn.Parameter(torch.randn(shape, generator=g))
        if i not in none_at:
            p.grad = torch.randn(shape, generator=g) * scale
        params.append(p)
    return params


def _global_norm(grads) -> float:
    """The global norm of the gradients there are, in float64: a float16 norm can overflow."""
    return float(torch.stack([g.double().norm() for g in grads if g is not None]).norm())


def _overflow_hint(got_norm, grads, total: float) -> str | None:
    """The hint when the returned norm is inf because it was computed in a half dtype, or None: the true norm
    (in float64) is finite and beyond the largest number of a gradient's dtype, float16's 65504."""
    if got_norm is None or not math.isinf(got_norm):
        return None
    for dtype in sorted({g.dtype for g in grads if g is not None}, key=str):
        if dtype.is_floating_point and total > torch.finfo(dtype).max:
            return (f"the global norm is {total:.6g}, beyond {torch.finfo(dtype).max:g}, the largest {dtype} "
                    f"number: computed in the gradients' own dtype it came back as inf, and the factor max_norm / "
                    "inf = 0 wiped out every gradient; add the squares up in float64 (g.double()) or float32")
    return None


def _norm_hint(got_norm, grads, max_norm) -> str:
    """What the learner's returned norm is, if it is a known wrong one."""
    norms = [g.double().norm() for g in grads if g is not None]
    if not norms:
        return "with no gradient at all there is nothing to scale, and the global norm is 0"
    total = _global_norm(grads)
    overflow = _overflow_hint(got_norm, grads, total)
    if overflow:
        return overflow
    flat = torch.cat([g.double().flatten() for g in grads if g is not None])
    guesses = [(sum(float(n) for n in norms), "the global norm is sqrt(sum of squares) over every element, not the "
                                              "sum of the per-tensor norms"),
               (float(flat.abs().sum()), "that is the L1 norm: use the L2 norm, sqrt(sum(g**2))"),
               (float(flat.abs().max()), "that is the largest element: use the L2 norm over every element")]
    if total > max_norm:
        guesses.append((max_norm, "return the norm before clipping (what the loop logs as grad_norm)"))
    for value, text in guesses:
        if math.isclose(got_norm, value, rel_tol=1e-4):
            return text
    return "norm = sqrt(sum over all p with a grad of (p.grad**2).sum()), computed before any scaling"


def _grad_hint(got_norm, got_grads, grads, max_norm) -> str:
    """Which known mistake gives the learner's clipped gradients."""
    total = _global_norm(grads)
    overflow = _overflow_hint(got_norm, grads, total)
    if overflow:
        return overflow
    same = lambda xs: all((a is None and b is None) or (a is not None and b is not None and  # noqa: E731
                                                         torch.allclose(a, b, rtol=_rtol(a), atol=1e-7))
                          for a, b in zip(got_grads, xs, strict=True))
    if max_norm == 0 and total > 0 and not same([None if g is None else torch.zeros_like(g) for g in grads]):
        return ("max_norm=0 is a limit like any other: every gradient becomes 0 (factor 0 / norm); a test such as "
                "`if max_norm:` or `max_norm or 1.0` takes this valid 0 for a missing value")
    if total > max_norm and same(grads):
        return (f"the gradients were not changed, although the global norm {total:.3g} exceeds {max_norm}: scale "
                "p.grad in place (p.grad.mul_(factor)) or assign p.grad = p.grad * factor")
    if any(g is not None and g.numel() and g.abs().max() > 1 for g in grads) and same(
            [None if g is None else g * g * min(1.0, max_norm / total) for g in grads]):
        return ("each gradient now holds its squares: g.double() of a float64 gradient is g itself, not a copy, so an "
                "in-place pow_ (or mul_) on it squared the gradient; square out of place: g.double().pow(2)")
    if total <= max_norm:
        return ("gradients below max_norm must be left as they are: scale only when the global norm exceeds "
                "max_norm (factor min(1, max_norm / norm))")
    if same([g * min(1.0, max_norm / float(g.double().norm())) if g is not None else None for g in grads]):
        return ("you clipped each tensor to its own norm: one factor, max_norm / global norm, must scale every "
                "gradient, so the direction of the whole gradient is kept")
    return _norm_hint(got_norm, grads, max_norm) if got_norm is not None else "scale every gradient by max_norm / norm"


def _rtol(t: torch.Tensor) -> float:
    """How far a clipped gradient may be from the float64 reference: 1e-4, or 3 steps of a half dtype (two
    right ways to scale, a float factor or one rounded to float16 first, differ by one step)."""
    return max(1e-4, 3 * torch.finfo(t.dtype).eps) if t.is_floating_point() else 1e-4


CASES = [  # (name, the gradients: [3, 4] (None), a vector written out, or (shapes, scale, seed, frozen), max_norm)
    ("one vector [3, 4] (norm 5), max_norm 1", None, 1.0),
    ("three tensors with a large gradient", ([(4, 3), (3,), (2, 2, 2)], 2.0, 0, ()), 1.0),
    ("a gradient already small: nothing changes", ([(5, 4), (4,)], 0.01, 1, ()), 1.0),
    ("one parameter without a gradient (frozen)", ([(6,), (3, 3), (2,)], 1.5, 2, (1,)), 0.5),
    ("one tensor far larger than the others", ([(50,), (2,)], 1.0, 3, ()), 2.0),
    ("a generator, as model.parameters() is: walk it once", ([(7, 2), (2,), (3,)], 3.0, 4, ()), 1.0),
    # norm 1.5 < max_norm 2 < 1.5² = 2.25: comparing the sum of squares with max_norm would clip here.
    ("one vector [1, 1, 0.5] (norm 1.5), max_norm 2: nothing changes", [1.0, 1.0, 0.5], 2.0),
    # torch.stack of no norms raises: clip_grad_norm_ returns 0 before a backward, or for a frozen model.
    ("no parameter has a gradient (all frozen): the norm is 0", ([(3, 2), (2,)], 1.0, 5, (0, 1)), 1.0),
    # 0 is falsy but a valid limit: `max_norm or 1.0` replaces it (as `weight_decay or 0.01` replaces 0.0).
    ("max_norm 0: every gradient becomes 0", ([(3, 2), (2,)], 1.0, 6, ()), 0.0),
    # float16 holds numbers up to 65504: every element fits, the norm 1000·√5000 = 70711 does not.
    ("a float16 gradient of 5,000 elements, all 1000 (norm 70,711), max_norm 1",
     torch.full((5000,), 1000.0, dtype=torch.float16), 1.0),
    # Frozen after its backward (requires_grad off, .grad kept): it has a gradient, so torch counts and scales it.
    ("one parameter frozen after its backward (requires_grad=False, .grad kept): still clipped",
     lambda: _frozen_after_backward(), 1.0),
    # A weight kept transposed (tied to another's .T) has a gradient with its strides: .view(-1) refuses it.
    ("a parameter stored transposed, its gradient non-contiguous", lambda: _transposed(), 1.0),
    # float64 gradients: g.double() is then g itself, not a copy, so an in-place op on it changes the gradient.
    ("a float64 gradient [3, 4] (norm 5), max_norm 10: nothing changes", torch.tensor([3.0, 4.0], dtype=torch.float64),
     10.0),
]


def _frozen_after_backward() -> list[torch.nn.Parameter]:
    params = _params([(4, 3), (3,)], 2.0, 7)
    params[0].requires_grad_(False)
    return params


def _transposed() -> list[torch.nn.Parameter]:
    g = torch.Generator().manual_seed(8)
    weight = torch.nn.Parameter(torch.randn(5, 3, generator=g).T)  # (3, 5), strides (1, 3)
    weight.grad = 4.0 * torch.randn(5, 3, generator=g).T
    bias = torch.nn.Parameter(torch.randn(3, generator=g))
    bias.grad = torch.randn(3, generator=g)
    return [weight, bias]


def _case_params(spec) -> list[torch.nn.Parameter]:
    if callable(spec):  # a case built by its own function
        return spec()
    if spec is None or isinstance(spec, torch.Tensor) or isinstance(spec[0], float):  # one vector written out
        grad = spec.clone() if isinstance(spec, torch.Tensor) else torch.tensor(spec or [3.0, 4.0])
        params = [torch.nn.Parameter(torch.linspace(1.0, -2.0, len(grad)).to(grad.dtype))]
        params[0].grad = grad
        return params
    return _params(*spec)


def clip_grad_norm(fn) -> None:
    """`fn(parameters, max_norm) -> total_norm`: the gradients of `parameters` (an iterable; some may have
    no gradient) scaled in place so that their global L2 norm is at most max_norm; returns the norm before."""
    for name, spec, max_norm in CASES:
        params = _case_params(spec)
        weights = [p.detach().clone() for p in params]
        grads = [p.grad.clone() if p.grad is not None else None for p in params]
        # The reference runs in float64: in float16, torch's own clip_grad_norm_ returns inf past 65504.
        expected = [p.detach().double().requires_grad_() for p in params]
        for e, g in zip(expected, grads, strict=True):
            e.grad = None if g is None else g.double()
        expected_norm = float(torch.nn.utils.clip_grad_norm_(expected, max_norm))
        given = (p for p in params) if "generator" in name else params
        case = f"{name}: gradient shapes {[tuple(p.shape) for p in params]}, max_norm={max_norm}"
        got = call(fn, case, given, max_norm)
        got_grads = [p.grad for p in params]
        if any(not torch.equal(p.detach(), w) for p, w in zip(params, weights, strict=True)):
            raise ExerciseError(f"{case}: the parameters themselves changed\n  hint: scale p.grad, not p (or p.data)")
        if any((a is None) != (b is None) for a, b in zip(got_grads, grads, strict=True)):
            raise ExerciseError(f"{case}: a parameter without a gradient got one, or lost its gradient\n  hint: skip "
                                "parameters whose .grad is None")
        norm, problem = as_float(got)
        if problem:
            raise ExerciseError(f"{case}: the returned norm {problem}\n  hint: return the global norm before clipping")
        if "generator" in name and norm == 0.0 and expected_norm > 0:
            raise ExerciseError(f"{case}: returned norm 0, expected {expected_norm:.6g}\n  hint: a generator can be "
                                "walked only once; make a list of it first (params = list(parameters))")
        for a, e in zip(got_grads, expected, strict=True):
            if a is not None and not torch.allclose(a.double(), e.grad, rtol=_rtol(a), atol=1e-6):
                hint = ("a generator can be walked only once; make a list of it first (params = list(parameters))"
                        if "generator" in name else _grad_hint(norm, got_grads, grads, max_norm))
                raise ExerciseError(f"{case}: the clipped gradients differ from torch.nn.utils.clip_grad_norm_'s "
                                    f"(run in float64)\n  hint: {hint}")
        if not math.isclose(norm, expected_norm, rel_tol=1e-4):
            raise ExerciseError(f"{case}: returned norm {norm:.6g}, expected {expected_norm:.6g}\n  hint: "
                                f"{_norm_hint(norm, grads, max_norm)}")
    passed("clip_grad_norm", f"{len(CASES)} cases (frozen parameters, small and large gradients, a generator, "
                             "float16 and float64): the norm and the clipped gradients equal "
                             "torch.nn.utils.clip_grad_norm_'s, run in float64")
