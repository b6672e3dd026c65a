"""Measured against theory: a table of what a chapter measured beside what the paper or the maths expects."""

from __future__ import annotations


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
