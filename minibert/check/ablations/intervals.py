"""The checker of exercise 9.2: the difference of two means across seeds, mean(a) − mean(b), with a
Welch t interval (unequal variances, sample sds, Welch–Satterthwaite degrees of freedom, a
two-sided quantile), compared with `minibert.viz.difference_ci`, which chapter 09 uses."""

from __future__ import annotations

import math
import random

from scipy import stats

from ...stats import difference_ci
from ..common import ExerciseError, as_float, call, passed


def _ci_ref(a, b, confidence, *, quantile="t", df="welch", pooled=False, ddof=1, spread="se", sign=1,
            level=None, sided=2):
    """(difference, low, high); the keyword arguments make the usual mistakes."""
    level = confidence if level is None else level
    na, nb = len(a), len(b)
    ma, mb = sum(a) / na, sum(b) / nb
    va = sum((x - ma) ** 2 for x in a) / (na - ddof)
    vb = sum((x - mb) ** 2 for x in b) / (nb - ddof)
    if pooled:  # Student's t: one variance for both
        vp = ((na - 1) * va + (nb - 1) * vb) / (na + nb - 2)
        se, dof = math.sqrt(vp / na + vp / nb), na + nb - 2
    else:
        sa, sb = (va / na, vb / nb) if spread == "se" else (va, vb)  # "sd": the sds, not the means' errors
        se = math.sqrt(sa + sb)
        dof = {"welch": (sa + sb) ** 2 / (sa ** 2 / (na - 1) + sb ** 2 / (nb - 1)), "pooled": na + nb - 2,
               "min": min(na, nb) - 1}[df]
    p = (1 + level) / 2 if sided == 2 else level
    q = stats.norm.ppf(p) if quantile == "z" else stats.t.ppf(p, dof)
    d = sign * (ma - mb)
    return d, d - q * se, d + q * se


MISTAKES = [
    ("this interval uses the normal quantile (1.96 at 95%); use Student's t quantile at Welch's degrees of freedom "
     "(scipy.stats.t.ppf) for every ν: with 2 to 5 seeds it is much wider, and past 30 degrees of freedom (a printed "
     "table's rule of thumb for switching to the normal) it is still wider", dict(quantile="z")),
    ("this is Student's pooled-variance interval (equal variances assumed); Welch's keeps each side's own "
     "variance: se = √(s_a²/n_a + s_b²/n_b)", dict(pooled=True)),
    ("the standard error is Welch's but the degrees of freedom are n_a + n_b − 2; use Welch–Satterthwaite's: "
     "(s_a²/n_a + s_b²/n_b)² / ((s_a²/n_a)²/(n_a − 1) + (s_b²/n_b)²/(n_b − 1))", dict(df="pooled")),
    ("the degrees of freedom are min(n_a, n_b) − 1 (the conservative rule of thumb); use Welch–Satterthwaite's",
     dict(df="min")),
    ("the variances divide by n (population sd); the sample sd divides by n − 1 (np.std(x, ddof=1), "
     "statistics.stdev)", dict(ddof=0)),
    ("this uses the standard deviations, not the standard errors of the means: divide each variance by its "
     "n (s_a²/n_a + s_b²/n_b)", dict(spread="sd")),
    ("the quantile is one-sided (t at the confidence level); a two-sided interval takes t at (1 + confidence) / 2",
     dict(sided=1)),
    ("this is mean(b) − mean(a); the difference asked for is mean(a) − mean(b)", dict(sign=-1)),
]

HAND = [  # (a, b, confidence, lesson)
    ([62.0, 66.0, 70.0], [55.0, 57.0, 56.0, 60.0, 52.0], 0.95,
     "3 seeds against 5, unequal spreads: difference 10, interval [1.99, 18.01] at df 3.31"),
    ([62.0, 66.0, 70.0], [55.0, 57.0, 56.0, 60.0, 52.0], 0.90, "the same at 90%: a narrower interval"),
    ([0.61, 0.63], [0.60, 0.58, 0.65], 0.95, "two seeds on one side: t at few degrees of freedom is wide"),
    ([81.0, 83.0] * 10, [80.5, 82.5] * 10, 0.95,
     "20 seeds a side, df 38: Student's t there is 2.024, not yet the normal 1.96: interval [-0.157, 1.157]"),
    ([81.0, 83.0] * 70, [80.5, 82.5] * 70, 0.95,
     "70 seeds a side, df 278, past a printed t table's last row (120): t is 1.969, still not the normal 1.96"),
    ([60.0, 60.0, 60.0], [55.0, 57.0, 56.0, 60.0, 52.0], 0.95,
     "every seed of a scored the same (s_a = 0): ν is then n_b − 1 = 4, interval [0.38, 7.62]"),
    # Last, so that the mistakes above are named first: whole numbers, as the worked example writes its scores.
    ([62, 66, 70], [55, 57, 56, 60, 52, 59], 0.95,
     "whole-number scores (Python ints), as the worked example writes them: difference 10.5"),
]
WHOLE = ("whole-number scores make an integer array (np.asarray, torch.tensor), which cannot take a float result "
         "in place (`x -= mean`) and has no torch var or mean: ask for floats, np.asarray(scores, dtype=float) "
         "or torch.tensor(scores, dtype=torch.float64)")


def _check(name, fn, a, b, confidence):
    a_copy, b_copy = list(a), list(b)
    got = call(fn, name, a_copy, b_copy, confidence)
    if (a_copy, b_copy) != (list(a), list(b)):
        raise ExerciseError(f"{name}: your function changed the lists it was given (sorted them in place?)")
    if isinstance(got, tuple) and len(got) == 5 and hasattr(got, "_fields"):
        got = tuple(got)[:3]  # minibert's own Difference: its first three fields
    if not (isinstance(got, (tuple, list)) and len(got) == 3):
        raise ExerciseError(f"{name}: expected a tuple (difference, low, high), received {got!r}")
    numbers = []
    for what, value in zip(("difference", "low", "high"), got):
        number, problem = as_float(value)
        if problem:
            raise ExerciseError(f"{name}: the {what} {problem}")
        numbers.append(number)
    ref = difference_ci(a, b, confidence)
    expected = (ref.difference, ref.low, ref.high)
    assert all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) for x, y in zip(expected, _ci_ref(a, b, confidence)))
    # float32 arithmetic (torch's default) errs by about 1e-7 of the scores' size: allowed, a real mistake is larger
    scale = max(1.0, *(abs(x) for x in (*a, *b)))
    close = lambda x, y: math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-6 * scale)  # noqa: E731
    if all(map(close, numbers, expected)):
        return
    hint = next((h for h, kw in MISTAKES if all(map(close, numbers, _ci_ref(a, b, confidence, **kw)))), "")
    if not hint and confidence != 0.95 and all(map(close, numbers, _ci_ref(a, b, confidence, level=0.95))):
        hint = f"this is the 95% interval; use the confidence given ({confidence})"
    if not hint and numbers[1] > numbers[2]:
        hint = "low is above high"
    raise ExerciseError(f"{name}:\n  expected (difference, low, high) = {tuple(round(x, 6) for x in expected)} "
                        f"(Welch df {ref.df:.3f})\n  received {tuple(round(x, 6) for x in numbers)}"
                        + (f"\n  hint: {hint}" if hint else ""))


def difference_interval(fn) -> None:
    """fn(a, b, confidence) -> (mean(a) − mean(b), low, high): Welch's t interval."""
    for a, b, confidence, lesson in HAND:
        try:
            _check(f"hand case a={a}, b={b}, confidence={confidence} ({lesson})", fn, a, b, confidence)
        except ExerciseError as e:  # right on the float cases before, raising on ints: name why
            if not isinstance(a[0], int) or "your function raised" not in str(e):
                raise
            raise ExerciseError(f"{e}\n  hint: {WHOLE}") from e
    rng = random.Random(92)
    cases = [(2, 2, 0.95), (3, 3, 0.95), (5, 3, 0.99), (4, 6, 0.8)]
    for na, nb, confidence in cases:
        a = [round(rng.gauss(60, rng.uniform(0.5, 4)), 2) for _ in range(na)]
        b = [round(rng.gauss(58, rng.uniform(0.5, 4)), 2) for _ in range(nb)]
        _check(f"random case a={a}, b={b}, confidence={confidence}, against minibert.viz.difference_ci",
               fn, a, b, confidence)
    passed("difference_interval", f"{len(HAND)} hand-computed intervals and {len(cases)} random ones equal "
                                  "minibert.viz.difference_ci (Welch's t)")
