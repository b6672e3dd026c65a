"""Measured against theory: a table of what a chapter measured beside what the paper or the maths expects."""

from __future__ import annotations

from ..stats import Z_999, binomial_halfwidth


def against_theory(measured: dict, theory: dict, *, name: str = "", digits: int = 4, source: str | None = None):
    """A pandas table of measured values beside the expected ones, with their difference.
    `df.attrs["source"]` keeps where the expected values come from."""
    import pandas as pd

    missing = sorted(set(theory) - set(measured))
    if missing:
        raise ValueError(f"no measured value for {missing}")
    df = pd.DataFrame({"measured": [float(measured[k]) for k in theory],
                       "expected": [float(theory[k]) for k in theory]}, index=list(theory))
    df["difference"] = df["measured"] - df["expected"]
    df.index.name = name or None
    df = df.round(digits)
    if source:
        df.attrs["source"] = source
    return df


def rates_table(counts: dict, theory: dict, *, name: str = "", z: float = Z_999, digits: int = 4,
                source: str | None = None):
    """Measured proportions against the expected ones, each with its binomial interval.

    counts  {row: (k, n)}: k successes in n draws;  theory  {row: p}.
    Columns: measured (k/n), expected (p), difference, "±" (z·√(p(1-p)/n)) and "within" (|difference| ≤ ±).
    A row whose n is fixed in advance but whose k is not random (an exact rule) gets ± = NaN and
    within = None: pass it as (k, n, "exact")."""
    import pandas as pd

    missing = sorted(set(theory) - set(counts))
    if missing:
        raise ValueError(f"no counts for {missing}")
    rows = []
    for key, p in theory.items():
        k, n, *exact = counts[key]
        half = float("nan") if exact else binomial_halfwidth(p, n, z)
        rows.append({"measured": k / n, "expected": float(p), "difference": k / n - p, "±": half,
                     "within": None if exact else bool(abs(k / n - p) <= half)})
    df = pd.DataFrame(rows, index=pd.Index(list(theory), name=name or None))
    df[["measured", "expected", "difference", "±"]] = df[["measured", "expected", "difference", "±"]].round(digits)
    df.attrs["z"] = z
    if source:
        df.attrs["source"] = source
    return df
