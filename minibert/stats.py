"""The statistics the chapters quote, in one place, each checked against scipy (tests/test_stats.py).

    mean_sd(values)                 the mean and the sample standard deviation (n - 1) of seeds' scores
    difference_ci(a, b)             mean(a) - mean(b) with Welch's t interval: two arms, unequal variances
    paired_difference_ci(a, b)      mean(a - b) with a paired t interval: two arms that share a model
    binomial_halfwidth(p, n)        half the width of a proportion's normal interval (Z_999: 99.9%)

Welch rather than a paired test: a seed shared by two arms does not make their runs share noise (it
gives a 1-layer and a 4-layer model other weights, two masking mixes other inputs, and every step
diverges from there), so the runs are not matched pairs. Chapter 09's questions work it through.
Where two arms fine-tune the same pre-trained model at each seed (Table 5's BiLSTM on the LTR
model), that model's luck is shared, and the paired interval removes it.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

Z_999 = 3.29  # a two-sided 99.9% interval is ±3.29 standard deviations of a normal


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the sample standard deviation (n − 1 in the denominator) of `values`: NaN for a
    single value, which shows no spread (not a spread of 0)."""
    v = np.asarray(values, dtype=float)
    if len(v) == 0:
        raise ValueError("mean_sd of no values: give at least one")
    return float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else math.nan


class Difference(NamedTuple):
    """mean(a) − mean(b), its interval [low, high], standard error √(s_a²/n_a + s_b²/n_b) and Welch's df."""
    difference: float; low: float; high: float; se: float; df: float  # noqa: E702


def difference_ci(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> Difference:
    """mean(a) − mean(b) with Welch's t interval: unequal variances, sample sd (n − 1), df by
    Welch–Satterthwaite, the two-sided quantile t_{(1+confidence)/2, df}. Two seeds a side at least."""
    from scipy import stats  # imported only when an interval is asked for

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"{len(a)} and {len(b)} values: a sample sd needs at least 2 on each side")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence}: give a level between 0 and 1, such as 0.95")
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)  # squared standard errors of the two means
    d, se = a.mean() - b.mean(), math.sqrt(va + vb)
    if se == 0:  # every seed equal on both sides: nothing to widen
        return Difference(*map(float, (d, d, d, 0.0, len(a) + len(b) - 2)))
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    half = stats.t.ppf((1 + confidence) / 2, df) * se
    return Difference(*map(float, (d, d - half, d + half, se, df)))


def paired_difference_ci(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> Difference:
    """mean(a − b) over matched pairs (a[i] and b[i] share seed i's pre-trained model), with the
    paired t interval: sample sd of the differences, df = n − 1. Two pairs at least."""
    from scipy import stats

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) != len(b) or len(a) < 2:
        raise ValueError(f"{len(a)} and {len(b)} values: a paired interval needs the same number, 2 at least")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence}: give a level between 0 and 1, such as 0.95")
    d = a - b
    se = float(d.std(ddof=1) / math.sqrt(len(d)))
    half = stats.t.ppf((1 + confidence) / 2, len(d) - 1) * se if se else 0.0
    return Difference(*map(float, (d.mean(), d.mean() - half, d.mean() + half, se, len(d) - 1)))


def binomial_halfwidth(p: float, n: int, z: float = Z_999) -> float:
    """Half the width of the z-interval of a proportion measured on n Bernoulli(p) draws: z·√(p(1-p)/n)."""
    if n <= 0:
        raise ValueError(f"n={n}: a proportion needs at least one draw")
    return z * math.sqrt(p * (1 - p) / n)
