"""The checker of exercise 7.3: several seeds per setting, each setting's mean and sample standard
deviation on dev, and the setting chosen by its mean dev score; the test scores are there, and must
not be looked at (§4.1: "selected the best model on the Dev set")."""

from __future__ import annotations

import copy
import random
import re
import statistics

from ...finetune.sweep import summary
from ..common import ExerciseError, as_float, call, passed


def _pick_ref(dev, test, *, by="mean", source="dev", ddof=1, report="dev"):
    """(best setting, its mean, its sd); the keyword arguments produce the usual mistakes."""
    scores = dev if source == "dev" else test
    shared = min(len(v) for v in scores.values())  # the seeds every setting has
    key = {"mean": statistics.fmean, "max": max, "median": statistics.median,
           "rounded": lambda v: round(statistics.fmean(v), 2), "shared": lambda v: statistics.fmean(v[:shared])}[by]
    best = max(scores, key=lambda s: key(scores[s]))
    values = (dev if report == "dev" else test)[best]
    sd = statistics.stdev(values) if ddof == 1 else statistics.pstdev(values)
    return best, statistics.fmean(values), sd


MISTAKES = [
    ("this setting has the best *test* score: choices are made on dev, the test split is kept for one "
     "final number of the chosen setting (else the test score is no longer an estimate on unseen data)",
     dict(source="test")),
    ("this setting has the best single seed; the exercise asks for the best *mean* over the seeds "
     "(one lucky restart is what the mean guards against)", dict(by="max")),
    ("this is the population sd (divides by n); use the sample sd, which divides by n - 1 "
     "(statistics.stdev, np.std(..., ddof=1), torch.std)", dict(ddof=0)),
    ("the setting is right but the mean and sd are its test scores; report its dev scores here",
     dict(report="test")),
    ("this setting has the best *median* dev score; the exercise asks for the best *mean* over the seeds "
     "(statistics.fmean): with few seeds one bad restart moves the mean, and that is part of the setting's score",
     dict(by="median")),
    ("this setting's mean equals the best one only once rounded to two decimals: compare the means as they "
     "are, and round only what you print (a table's rounding is for reading, not for choosing)",
     dict(by="rounded")),
    ("this setting has the best mean over the first seeds only, as many as the setting with the fewest has: "
     "each setting's mean is over all its seeds (a seed that a setting has and another lacks still counts)",
     dict(by="shared")),
    ("the best single seed, and the population sd", dict(by="max", ddof=0)),
    ("chosen on test, with the population sd", dict(source="test", ddof=0)),
]

HAND_DEV = {"batch_size=16,lr=5e-05": [0.80, 0.70, 0.75],  # the best single seed, a worse mean
            "batch_size=32,lr=3e-05": [0.78, 0.76, 0.77],  # the best mean: 0.77, sd 0.01
            "batch_size=32,lr=2e-05": [0.74, 0.73, 0.75]}
HAND_TEST = {"batch_size=16,lr=5e-05": [0.74, 0.69, 0.72], "batch_size=32,lr=3e-05": [0.75, 0.74, 0.73],
             "batch_size=32,lr=2e-05": [0.79, 0.78, 0.80]}  # the best on test: a trap


def _check(name, fn, dev, test):
    dev_copy, test_copy = copy.deepcopy(dev), copy.deepcopy(test)
    got = call(fn, name, dev_copy, test_copy)
    if (dev_copy, test_copy) != (dev, test):
        raise ExerciseError(f"{name}: your function changed the dicts it was given (sorted a list in place?)")
    if not (isinstance(got, (tuple, list)) and len(got) == 3):
        raise ExerciseError(f"{name}: expected a tuple (setting, mean, sd), received {got!r}")
    setting, mean, sd = got
    numbers = []
    for what, value in (("mean", mean), ("sd", sd)):
        number, problem = as_float(value)
        if problem:
            raise ExerciseError(f"{name}: the {what} {problem}")
        numbers.append(number)
    expected = _pick_ref(dev, test)
    row = next(r for r in summary([{"setting": s, "metrics": {"dev": v}} for s, vs in dev.items() for v in vs], "dev"))
    assert row["setting"] == expected[0] and abs(row["mean"] - expected[1]) < 1e-12  # minibert agrees
    close = lambda x, y: abs(x - y) <= 1e-9 + 1e-7 * abs(y)  # noqa: E731
    if setting == expected[0] and close(numbers[0], expected[1]) and close(numbers[1], row["sd"]):
        return
    hint = next((h for h, kw in MISTAKES if (lambda w: setting == w[0] and close(numbers[0], w[1])
                                              and close(numbers[1], w[2]))(_pick_ref(dev, test, **kw))), "")
    if not hint and setting is None and expected[1] < 0:
        hint = (f"no setting was chosen, yet every mean is below 0 here (the best is {expected[1]:.4g}): a "
                "running best started at 0 is never beaten; start it at -inf, or take max() over the settings")
    if not hint and setting == expected[0] and row["sd"] == 0 and 0 < abs(numbers[1]) < 1e-3:
        hint = (f"every seed of {setting!r} scored the same, so its sd is exactly 0; {numbers[1]:.3g} is rounding "
                "error, which the one-pass form √((Σx² − n·m²) / (n − 1)) magnifies (two large, nearly equal "
                "numbers subtracted): sum the squared deviations from the mean, Σ(x − m)², as statistics.stdev does")
    if not hint and setting != expected[0]:
        hint = "pick the setting whose mean dev score over its seeds is the highest"
    raise ExerciseError(f"{name}:\n  expected {(expected[0], round(expected[1], 6), round(row['sd'], 6))}\n"
                        f"  received {(setting, round(numbers[0], 6), round(numbers[1], 6))}"
                        + (f"\n  hint: {hint}" if hint else ""))


def _random_case(rng: random.Random, settings: int, seeds: int):
    names = [f"batch_size={b},lr={lr},epochs={e}" for b in (16, 32) for lr in ("5e-05", "3e-05", "2e-05")
             for e in (2, 3, 4)]
    chosen = rng.sample(names, settings)
    dev = {s: [round(rng.uniform(0.55, 0.85), 4) for _ in range(seeds)] for s in chosen}
    test = {s: [round(rng.uniform(0.55, 0.85), 4) for _ in range(seeds)] for s in chosen}
    return dev, test


def _whole_numbers(fn):
    """Percentages written as whole numbers: Python ints, which np.asarray and torch.tensor hold in an
    integer array, where an in-place `-=` of the (float) mean has nowhere to go."""
    whole = {"a": [80, 70, 75], "b": [78, 76, 77]}  # the worked example in percent: ("b", 77.0, 1.0)
    try:
        _check(f"hand case: whole-number percentages (ints), dev {whole}, test equal to dev", fn, whole,
               copy.deepcopy(whole))
    except ExerciseError as e:
        if not re.search(r"(?i)cast.*(int|long)", str(e)):
            raise
        raise ExerciseError(f"{e}\n  hint: whole-number scores make an integer array (np.asarray, torch.tensor), "
                            "and an in-place `-=` or `/=` cannot store the float result in it: write "
                            "`x = x - mean`, or ask for floats, np.asarray(scores, dtype=float)") from e


def pick_setting(fn) -> None:
    """fn(dev {setting: [score per seed]}, test {same}) -> (best setting by mean dev, its mean, its sample sd)."""
    _check("hand case: three settings of three seeds, dev " + str(HAND_DEV) + ", test " + str(HAND_TEST), fn,
           HAND_DEV, HAND_TEST)
    two = {"a": [0.6, 0.8], "b": [0.65, 0.66]}  # sd of two seeds: |x1 - x2| / sqrt 2
    _check(f"hand case: two seeds each, dev {two}, test equal to dev", fn, two, copy.deepcopy(two))
    skewed = {"a": [0.90, 0.60, 0.62], "b": [0.70, 0.69, 0.71]}  # a: mean 0.7067, median 0.62; b: 0.70 both
    _check(f"hand case: best mean and best median differ, dev {skewed}, test equal to dev", fn, skewed,
           copy.deepcopy(skewed))
    uneven = {"a": [0.70, 0.70, 0.70, 0.70], "b": [0.80, 0.78]}  # a run killed early: b has 2 seeds, a 4
    _check(f"hand case: settings with 4 and 2 seeds, dev {uneven}, test equal to dev", fn, uneven,
           copy.deepcopy(uneven))
    # Its third seed lifts a above b: a comparison made on the first two seeds alone (the most b has) chooses b.
    later = {"a": [0.70, 0.80, 0.90], "b": [0.76, 0.76]}
    _check(f"hand case: settings with 3 and 2 seeds, the third one deciding, dev {later}, test equal to dev", fn,
           later, copy.deepcopy(later))
    near = {"a": [0.801, 0.803], "b": [0.803, 0.805]}  # means 0.802 and 0.804: both 0.80 to two decimals
    _check(f"hand case: means that agree to two decimals, dev {near}, test equal to dev", fn, near,
           copy.deepcopy(near))
    mcc = {"a": [-0.10, -0.20], "b": [-0.30, -0.20]}  # CoLA's Matthews correlation runs from -1 to 1
    _check(f"hand case: Matthews correlations (CoLA), every mean below 0, dev {mcc}, test equal to dev", fn, mcc,
           copy.deepcopy(mcc))
    # A best mean of exactly 0 (no better than chance), listed first: 0 is a mean like any other, and a search that
    # takes a falsy best (`if not best_mean or ...`) for "nothing chosen yet" drops it for the next, lower one.
    zero = {"a": [-0.10, 0.10], "b": [-0.30, -0.20]}
    _check(f"hand case: Matthews correlations, the best mean exactly 0, dev {zero}, test equal to dev", fn, zero,
           copy.deepcopy(zero))
    # Scores in percent, and a setting whose seeds all scored the same (its sd is exactly 0): Σx² − n·m² is a
    # difference of two numbers near 23,000 that should be equal, and keeps their rounding error.
    same = {"a": [88.1, 88.1, 88.1], "b": [87.0, 88.0]}
    _check(f"hand case: scores in percent, three seeds that scored the same, dev {same}, test equal to dev", fn,
           same, copy.deepcopy(same))
    _whole_numbers(fn)
    rng = random.Random(73)
    cases = [(18, 2), (6, 3), (4, 5), (2, 4)]
    for settings, seeds in cases:
        dev, test = _random_case(rng, settings, seeds)
        _check(f"random case: {settings} settings of {seeds} seeds, compared with minibert.finetune.sweep.summary",
               fn, dev, test)
    passed("pick_setting", f"10 hand-computed cases and {len(cases)} random grids agree with "
                           "minibert.finetune.sweep.summary, chosen on dev")
