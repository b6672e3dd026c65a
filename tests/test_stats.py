"""minibert.stats, the statistics the chapters quote, each against scipy (or the standard library) on
random cases and at its edges."""

import math
import statistics

import numpy as np
import pytest
from scipy import stats as scipy_stats

from minibert import viz
from minibert.stats import Z_999, binomial_halfwidth, difference_ci, mean_sd, paired_difference_ci


@pytest.mark.parametrize("seed", range(6))
def test_difference_ci_is_welchs_interval(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(60, rng.uniform(0.5, 3), rng.integers(2, 7)), rng.normal(58, rng.uniform(0.5, 3), rng.integers(2, 7))
    for confidence in (0.9, 0.95, 0.99):
        ours = difference_ci(a, b, confidence)
        scipy = scipy_stats.ttest_ind(a, b, equal_var=False).confidence_interval(confidence)
        assert ours.difference == pytest.approx(a.mean() - b.mean())
        assert (ours.low, ours.high) == (pytest.approx(scipy.low), pytest.approx(scipy.high))
        assert isinstance(ours.low, float) and ours.df == pytest.approx(ours.df)


def test_difference_ci_edges():
    assert difference_ci([1.0, 1.0], [0.5, 0.5]) == (0.5, 0.5, 0.5, 0.0, 2.0)  # no spread: a point
    with pytest.raises(ValueError, match="at least 2"):
        difference_ci([1.0], [0.5, 0.6])
    with pytest.raises(ValueError, match="between 0 and 1"):
        difference_ci([1.0, 2.0], [0.5, 0.6], confidence=95)


@pytest.mark.parametrize("seed", range(6))
def test_paired_difference_ci_is_the_paired_t_interval(seed):
    rng = np.random.default_rng(seed)
    shared = rng.normal(60, 3, rng.integers(2, 7))  # each seed's model: luck both arms share
    a, b = shared + rng.normal(1, 0.5, len(shared)), shared + rng.normal(0, 0.5, len(shared))
    for confidence in (0.9, 0.95, 0.99):
        ours = paired_difference_ci(a, b, confidence)
        scipy = scipy_stats.ttest_rel(a, b).confidence_interval(confidence)
        assert ours.difference == pytest.approx((a - b).mean()) and ours.df == len(a) - 1
        assert (ours.low, ours.high) == (pytest.approx(scipy.low), pytest.approx(scipy.high))
    assert ours.high - ours.low < difference_ci(a, b, 0.99).high - difference_ci(a, b, 0.99).low  # the luck is removed


def test_paired_difference_ci_edges():
    assert paired_difference_ci([1.0, 2.0], [0.5, 1.5]) == (0.5, 0.5, 0.5, 0.0, 1.0)  # every pair 0.5 apart
    with pytest.raises(ValueError, match="the same number"):
        paired_difference_ci([1.0, 2.0, 3.0], [0.5, 0.6])
    with pytest.raises(ValueError, match="2 at least"):
        paired_difference_ci([1.0], [0.5])


@pytest.mark.parametrize("seed", range(4))
def test_mean_sd_is_the_sample_mean_and_sd(seed):
    values = list(np.random.default_rng(seed).normal(70, 2, 2 + seed))
    mean, sd = mean_sd(values)
    assert mean == pytest.approx(statistics.fmean(values)) and sd == pytest.approx(statistics.stdev(values))
    assert sd == pytest.approx(scipy_stats.tstd(values))  # scipy's sample sd: n - 1 as well


def test_mean_sd_edges():
    mean, sd = mean_sd([0.7])
    assert mean == 0.7 and math.isnan(sd)  # one value shows no spread, not a spread of 0
    with pytest.raises(ValueError, match="no values"):
        mean_sd([])


@pytest.mark.parametrize("p, n", [(0.15, 1000), (0.5, 37), (0.01, 200_000)])
def test_binomial_halfwidth_is_z_standard_errors_of_a_proportion(p, n):
    assert binomial_halfwidth(p, n) == pytest.approx(Z_999 * scipy_stats.binom.std(n, p) / n)
    assert binomial_halfwidth(p, n, z=1.96) == pytest.approx(1.96 * math.sqrt(p * (1 - p) / n))
    with pytest.raises(ValueError, match="at least one draw"):
        binomial_halfwidth(p, 0)


def test_z_999_is_the_normals_two_sided_quantile():
    assert Z_999 == pytest.approx(scipy_stats.norm.ppf(1 - 0.001 / 2), abs=1e-3)


def test_the_chapters_reach_them_through_viz_too():
    """Chapters 04 and 09 and exercise 9.2 call viz.difference_ci, viz.binomial_halfwidth and viz.Z_999:
    the same functions, not copies."""
    assert (viz.difference_ci, viz.binomial_halfwidth, viz.Z_999) == (difference_ci, binomial_halfwidth, Z_999)
