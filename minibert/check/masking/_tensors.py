"""What the chapter-04 checkers accept as a tensor of ids: a torch tensor or a numpy array of any
integer dtype (or nested lists of ints), compared as torch.long."""

from __future__ import annotations

import torch


def as_ids(value, shape) -> tuple[torch.Tensor | None, str | None]:
    """(value as a long tensor, None), or (None, what is wrong with it)."""
    if not isinstance(value, torch.Tensor):
        try:
            import numpy as np

            if isinstance(value, (np.ndarray, list, tuple)):
                value = torch.as_tensor(np.asarray(value))
        except (TypeError, ValueError):
            pass
    if not isinstance(value, torch.Tensor):
        return None, f"must be a tensor (or a numpy array), received {type(value).__name__}"
    if tuple(value.shape) != tuple(shape):
        return None, f"has shape {tuple(value.shape)}, expected {tuple(shape)} (the shape of input_ids)"
    if value.dtype.is_floating_point or value.dtype.is_complex or value.dtype == torch.bool:
        return None, (f"has dtype {value.dtype}, expected integers (token ids; cross_entropy wants long "
                      "labels)")
    return value.long(), None
