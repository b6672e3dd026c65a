"""What the checker of exercise 7.2 asks besides the values: the loss is for training, so its gradient must reach
every input that BertForSequenceClassification's reaches (a `.detach()`, `.item()` or a tensor rebuilt from
numbers cuts it off with the values still right). A head computed in float32 is allowed, so the tolerances are
float32's."""

from __future__ import annotations

import torch

from ...heads.classification import classification_loss
from ..common import ExerciseError, call

NAMES = ("hidden", "pooler_weight", "pooler_bias", "weight", "bias")


def _inputs(kind, K, seed):
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(2, 3, 4, generator=g, dtype=torch.float64)
    Wp, bp = torch.randn(4, 4, generator=g, dtype=torch.float64), torch.randn(4, generator=g, dtype=torch.float64)
    W, b = torch.randn(K, 4, generator=g, dtype=torch.float64), torch.randn(K, generator=g, dtype=torch.float64)
    if kind == "regression":
        labels = torch.rand(2, generator=g, dtype=torch.float64) * 5
    elif kind == "single_label_classification":
        labels = torch.tensor([1, 0])
    else:
        labels = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]], dtype=torch.float64)
    return [h, Wp, bp, W, b], labels


def _reference(inputs, labels, kind):
    leaves = [x.clone().requires_grad_(True) for x in inputs]
    h, Wp, bp, W, b = leaves
    logits = torch.tanh(h[:, 0] @ Wp.T + bp) @ W.T + b
    classification_loss(logits, labels, kind).backward()
    return logits.detach(), [x.grad for x in leaves]


def _check_one(fn, kind, K, seed):
    inputs, labels = _inputs(kind, K, seed)
    logits, grads = _reference(inputs, labels, kind)
    name = f"gradient case, K = {K}, labels {labels.tolist()}, every input requiring grad ({kind.replace('_', ' ')})"
    leaves = [x.clone().requires_grad_(True) for x in inputs]
    got = call(fn, name, *leaves, labels.clone())
    got_logits, loss = got if isinstance(got, (tuple, list)) and len(got) == 2 else (None, None)
    if not isinstance(got_logits, torch.Tensor) or not isinstance(loss, torch.Tensor):
        return  # the value checks have named that already
    if not torch.allclose(got_logits.detach().double(), logits, atol=1e-5, rtol=1e-4):
        raise ExerciseError(f"{name}: expected logits {logits.tolist()}, received {got_logits.detach().tolist()}")
    if not loss.requires_grad:
        raise ExerciseError(f"{name}: the loss does not require grad, so loss.backward() cannot train the head: "
                            "a .detach(), .item(), torch.no_grad() or a tensor rebuilt from numbers cut the graph")
    loss.backward()
    for x_name, leaf, wanted in zip(NAMES, leaves, grads):
        if leaf.grad is None:
            raise ExerciseError(f"{name}: the loss's gradient does not reach `{x_name}` (its .grad is None after "
                                "loss.backward()): a .detach(), .item() or a tensor rebuilt from numbers cut it off")
        if not torch.allclose(leaf.grad, wanted, atol=1e-5, rtol=1e-4):
            raise ExerciseError(f"{name}: the gradient of the loss with respect to `{x_name}` is "
                                f"{leaf.grad.tolist()}, expected {wanted.tolist()}")


def gradients(fn) -> int:
    """One case of each kind of labels, every input a leaf requiring grad. Returns how many it checked."""
    kinds = (("single_label_classification", 2), ("regression", 1), ("multi_label_classification", 3))
    for seed, (kind, K) in enumerate(kinds):
        _check_one(fn, kind, K, 170 + seed)
    return len(kinds)
