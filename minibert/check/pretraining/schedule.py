"""The checker of exercise 5.1: the learning rate of Google's `create_optimizer` in general form,
`polynomial_decay(peak, step, total, end_learning_rate, power)` with the linear warm-up laid over it."""

from __future__ import annotations

import math

from ..common import ExerciseError, as_float, call, passed


def reference(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0) -> float:
    """Google's optimization.py: polynomial_decay(cycle=False) counted from step 0; while
    step < warmup_steps, peak_lr * step / warmup_steps instead."""
    if warmup_steps and step < warmup_steps:
        return peak_lr * step / warmup_steps
    done = min(step, total_steps) / total_steps
    return (peak_lr - end_lr) * (1 - done) ** power + end_lr


def _ramp_or(decay):
    """A schedule with the right warm-up and the given (wrong) decay."""
    return lambda s, p, w, t, e, k: p * s / w if w and s < w else decay(s, p, w, t, e, k)


# Mistakes learners make, each as a schedule, with what to say when a function behaves like it.
MISTAKES = [
    (_ramp_or(lambda s, p, w, t, e, k: (p - e) * max(0.0, (t - s) / max(1, t - w)) ** k + e),
     "you start the decay at the end of the warm-up (transformers' get_linear_schedule_with_warmup); Google's "
     "polynomial_decay counts from step 0, so right after the warm-up the rate is already 1 - warmup/total of the peak"),
    (lambda s, p, w, t, e, k: p * s / w if w and s <= w else reference(s, p, w, t, e, k),
     "at step == warmup_steps the warm-up is over: Google's test is `global_step < num_warmup_steps`"),
    (lambda s, p, w, t, e, k: p * (s + 1) / w if w and s < w else reference(s, p, w, t, e, k),
     "off by one in the warm-up: the rate at step s is peak_lr * s / warmup_steps (0 at step 0)"),
    (lambda s, p, w, t, e, k: p * (s // w) if w and s < w else reference(s, p, w, t, e, k),
     "integer division: step // warmup_steps is 0 during the whole warm-up; use /"),
    (_ramp_or(lambda s, p, w, t, e, k: (p - e) * (1 - s / t) ** k + e if (1 - s / t) >= 0 or k == int(k) else math.nan),
     "past total_steps the decay must stop at end_lr (Google: min(step, total_steps))"),
    (_ramp_or(lambda s, p, w, t, e, k: p * (1 - min(s, t) / t) ** k + e),
     "the decay goes from peak_lr down to end_lr: (peak_lr - end_lr) * (1 - step/total)**power + end_lr"),
    (_ramp_or(lambda s, p, w, t, e, k: p * (1 - min(s, t) / t) ** k),
     "end_lr is ignored: the rate must end at end_lr, not at 0"),
    (lambda s, p, w, t, e, k: reference(s, p, w, t, e, k) / p,
     "you returned the multiplier of the peak; return the learning rate itself (times peak_lr)"),
    (lambda s, p, w, t, e, k: p * (s / w) ** k if w and s < w else reference(s, p, w, t, e, k),
     "the power shapes the decay only; the warm-up is linear"),
    (_ramp_or(lambda s, p, w, t, e, k: (p - e) * (1 - min(s, t) / t * k) + e),
     "power is an exponent: (1 - step/total) ** power"),
    (_ramp_or(lambda s, p, w, t, e, k: reference(s, p, 0, t, e, k or 1.0)),
     "power=0 is a valid exponent (x ** 0 = 1: a constant peak_lr after the warm-up); a test such as "
     "`power or 1.0` takes it for a missing value"),
]


def _close(a, b) -> bool:
    return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def _hint(fn, cases) -> str:
    """The mistake whose schedule agrees with the learner's on every case tried (or on most of them)."""
    got = []
    for case in cases:
        try:
            got.append(as_float(fn(*case[:4], end_lr=case[4], power=case[5]))[0])
        except Exception:  # noqa: BLE001 - a crash is reported elsewhere; here only the values count
            got.append(None)
    best, hint = 0, None
    for mistake, text in MISTAKES:
        agree = sum(_close(g, mistake(*case)) for g, case in zip(got, cases, strict=True))
        if agree > best:
            best, hint = agree, text
    if hint is not None and best >= len(cases) - 1:
        return hint
    return ("while step < warmup_steps: peak_lr * step / warmup_steps; else (peak_lr - end_lr) * "
            "(1 - min(step, total_steps) / total_steps) ** power + end_lr")


_FLOAT32_HINT = ("near the end of a long run 1 - step / total_steps is a tiny difference of two numbers near 1: "
                 "float32 (torch.tensor(...) or np.float32 of a Python number) keeps about 7 digits, too few for it; "
                 "compute with Python floats (float64)")


def _float32_near_the_end(step, total, got, expected) -> bool:
    """Off by a little (under 10%) where only a few float32 digits are left, after every earlier case agreed."""
    return total >= 1e5 and 0 < total - step < total * 1e-4 and abs(got - expected) < 0.1 * expected


def learning_rate(fn) -> None:
    """`fn(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0) -> float`."""
    hand = [  # (step, peak, warmup, total, end, power)
        (0, 1e-3, 400, 8000, 0.0, 1.0), (200, 1e-3, 400, 8000, 0.0, 1.0), (399, 1e-3, 400, 8000, 0.0, 1.0),
        (400, 1e-3, 400, 8000, 0.0, 1.0), (4000, 1e-3, 400, 8000, 0.0, 1.0), (8000, 1e-3, 400, 8000, 0.0, 1.0),
        (9000, 1e-3, 400, 8000, 0.0, 1.0), (0, 1e-4, 0, 100, 0.0, 1.0), (50, 1e-4, 0, 100, 0.0, 2.0),
        (150, 1e-4, 0, 100, 0.0, 2.0), (100, 2e-5, 10, 100, 1e-6, 1.0), (5, 2e-5, 10, 100, 1e-6, 1.0),
        (60, 1e-3, 10, 100, 1e-4, 0.5), (130, 1e-3, 10, 100, 1e-4, 1.0), (40, 1e-3, 10, 100, 1e-4, 1.0),
        # power 0 is falsy but valid: a constant peak_lr after the warm-up (`power or 1.0` makes it linear).
        (50, 1e-3, 10, 100, 1e-4, 0.0), (100, 1e-3, 10, 100, 1e-4, 0.0),
        # The multiplier (peak 1.0, as LambdaLR takes it) one step before the end of BERT's million steps:
        # 1 - step / total is 1e-6, the difference of two numbers near 1, where float32 keeps only ~1% of it.
        (999_999, 1.0, 10_000, 1_000_000, 0.0, 1.0),
    ]
    grid = [(s, 5e-4, w, t, e, p) for w, t in ((0, 50), (7, 60), (25, 40)) for e in (0.0, 5e-5) for p in (1.0, 2.0, 0.5)
            for s in range(0, t + 15, 3)]
    for step, peak, warmup, total, end, power in hand + grid:
        name = (f"step={step}, peak_lr={peak:g}, warmup_steps={warmup}, total_steps={total}, end_lr={end:g}, "
                f"power={power:g}")
        got, problem = as_float(call(fn, name, step, peak, warmup, total, end_lr=end, power=power))
        if problem:
            raise ExerciseError(f"{name}: the result {problem}\n  hint: return the learning rate as a float")
        expected = reference(step, peak, warmup, total, end, power)
        if not _close(got, expected):
            hint = _FLOAT32_HINT if _float32_near_the_end(step, total, got, expected) else _hint(fn, hand)
            raise ExerciseError(f"{name}:\n  expected {expected:.6g}\n  received {got:.6g}\n  hint: {hint}")
    passed("learning_rate", f"{len(hand)} hand cases and {len(grid)} steps of 18 schedules agree with Google's "
                            "polynomial decay and linear warm-up")
