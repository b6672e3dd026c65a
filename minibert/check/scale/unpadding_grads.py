"""What the checkers of exercise 10.2 ask besides the values: unpad and pad sit inside the model's forward pass, so
the loss's gradient must flow back through them to x, as through minibert's (indexing and index assignment keep
the graph; `.detach()`, `.numpy()` or a tensor rebuilt from numbers cut it, with the values still right)."""

from __future__ import annotations

import torch

from ...model import pad_input as pad_reference
from ...model import unpad_input as unpad_reference
from ..common import ExerciseError, call

_MASK = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]])


def _weights(shape):
    """Distinct weights for a weighted sum: each position's gradient is its own weight, so a mix-up shows."""
    return torch.arange(1.0, 1.0 + torch.Size(shape).numel(), dtype=torch.float64).view(shape)


def _backward(result, weights) -> bool:
    """(result · weights).sum().backward(); False when autograd refuses because an input was written in place
    after its use (a no-op write, in the tests' styles): that is not what this check is about."""
    try:
        (result * weights).sum().backward()
    except RuntimeError as e:
        if "modified by an inplace operation" in str(e):
            return False
        raise
    return True


def _compare(name, leaf, wanted, what):
    if leaf.grad is None:
        raise ExerciseError(f"{name}: after (result · w).sum().backward(), {what}.grad is None: the gradient does not "
                            "flow back through your function (a .detach(), .numpy() or a tensor rebuilt from numbers "
                            "cuts the graph); index with torch operations so the model can train through it")
    if not torch.allclose(leaf.grad, wanted, atol=1e-12, rtol=0):
        raise ExerciseError(f"{name}: the gradient reaching {what} is {leaf.grad.tolist()}, expected {wanted.tolist()}")


def unpad_gradient(fn) -> None:
    """x (3, 4, 2) float64 requiring grad: its gradient through the packed tokens equals minibert's."""
    name = "x (3, 4, 2) float64 requiring grad, mask [[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]]"
    x0 = torch.randn(3, 4, 2, generator=torch.Generator().manual_seed(104), dtype=torch.float64)
    reference = x0.clone().requires_grad_(True)
    packed, _ = unpad_reference(reference, _MASK)
    (packed * _weights(packed.shape)).sum().backward()
    leaf = x0.clone().requires_grad_(True)
    got = call(fn, name, leaf.clone(), _MASK.clone())  # a copy in the graph, as the model's x is: not a leaf
    if isinstance(got, tuple | list) and len(got) == 2 and isinstance(got[0], torch.Tensor) \
            and got[0].shape == packed.shape:
        if not got[0].requires_grad:
            _compare(name, leaf, reference.grad, "x")  # None: named there
        if _backward(got[0], _weights(packed.shape)):
            _compare(name, leaf, reference.grad, "x")


def pad_gradient(fn) -> None:
    """packed (N, 2) float64 requiring grad: its gradient through the (B, T, 2) grid equals minibert's."""
    packed0, indices = unpad_reference(torch.randn(3, 4, 2, generator=torch.Generator().manual_seed(105),
                                                   dtype=torch.float64), _MASK)
    name = f"x (packed) ({len(packed0)}, 2) float64 requiring grad, indices {indices.tolist()}, B=3, T=4"
    reference = packed0.clone().requires_grad_(True)
    (pad_reference(reference, indices, 3, 4) * _weights((3, 4, 2))).sum().backward()
    leaf = packed0.clone().requires_grad_(True)
    got = call(fn, name, leaf.clone(), indices.clone(), 3, 4)  # not a leaf, as in the model
    if isinstance(got, torch.Tensor) and got.shape == (3, 4, 2):
        if not got.requires_grad:
            _compare(name, leaf, reference.grad, "x (packed)")
        if _backward(got, _weights((3, 4, 2))):
            _compare(name, leaf, reference.grad, "x (packed)")
