"""What the chapter-05 checkers accept as one number: a Python int or float, a numpy scalar or a 0-d
(or one-element) tensor."""

from __future__ import annotations

import numbers

import torch


def as_float(value) -> tuple[float | None, str | None]:
    """(value as a float, None), or (None, what is wrong with it)."""
    if isinstance(value, bool):
        return None, "is a bool, expected a number"
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            return None, f"is a tensor of shape {tuple(value.shape)}, expected one number"
        return float(value.detach().reshape(())), None
    if isinstance(value, numbers.Real):  # int, float, numpy scalars
        return float(value), None
    try:
        import numpy as np

        if isinstance(value, np.ndarray) and value.size == 1:
            return float(value.reshape(())), None
    except ImportError:  # pragma: no cover
        pass
    return None, f"is {type(value).__name__} {value!r}, expected a number"
