"""The checker of exercise 4.5: the masked-LM loss, decoded with the tied word embeddings at the
labelled positions only."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..common import ExerciseError, call, expect_close, passed

# ---- 4.5 the MLM loss at the labelled positions --------------------------------------------------

IGNORE = -100


def _case(B, T, H, V, seed, counts=None):
    """hidden (B, T, H), word_embeddings (V, H), bias (V,), labels (B, T) with `counts[b]` labels in row b."""
    g = torch.Generator().manual_seed(seed)
    hidden = torch.randn(B, T, H, generator=g)
    emb = torch.randn(V, H, generator=g) * 0.5
    bias = torch.randn(V, generator=g)
    labels = torch.full((B, T), IGNORE)
    for b in range(B):
        n = counts[b] if counts else int(torch.randint(1, T + 1, (), generator=g))
        where = torch.randperm(T, generator=g)[:n]
        labels[b, where] = torch.randint(V, (n,), generator=g)
    return hidden, emb, bias, labels


def _expected(hidden, emb, bias, labels):
    logits = F.linear(hidden, emb, bias)  # (B, T, V): every position, then the loss ignores -100
    return F.cross_entropy(logits.reshape(-1, emb.shape[0]), labels.reshape(-1), ignore_index=IGNORE)


def _hint(got, hidden, emb, bias, labels) -> str:
    sel = labels != IGNORE
    logits = F.linear(hidden, emb, bias)
    per_token = F.cross_entropy(logits[sel], labels[sel], reduction="none")
    guesses = [
        (per_token.sum(), "you summed the losses; BERT takes their mean over the labelled positions"),
        (F.cross_entropy(F.linear(hidden, emb)[sel], labels[sel]), "the decoder has an output bias of its own "
                                                                   "(V values): logits = h @ E.T + bias"),
        (torch.stack([F.cross_entropy(logits[b][sel[b]], labels[b][sel[b]]) for b in range(len(labels))
                      if sel[b].any()]).mean(), "you averaged each row, then the rows: a row with more labels "
                                                "must weigh more; average over all labelled positions at once"),
        (F.cross_entropy(logits.reshape(-1, emb.shape[0]), labels.clamp(min=0).reshape(-1)),
         "you counted the positions labelled -100 (as id 0): only the labelled positions enter the loss"),
        (F.cross_entropy(logits[sel].softmax(-1), labels[sel]), "cross_entropy applies log-softmax itself: "
                                                                "pass it the logits, not probabilities"),
    ]
    for value, hint in guesses:
        if torch.allclose(torch.as_tensor(got, dtype=value.dtype), value, atol=1e-5, rtol=1e-4):
            return hint
    return "logits = hidden[labels != -100] @ word_embeddings.T + bias, then the mean cross-entropy"


def masked_lm_loss(fn) -> None:
    """`fn(hidden, word_embeddings, bias, labels) -> loss`: a scalar tensor, the mean cross-entropy over
    the positions whose label is not -100, with logits h @ E.T + bias."""
    cases = [("one row, one label", (1, 5, 4, 11, 0, [1])), ("every position labelled", (2, 3, 4, 11, 1, [3, 3])),
             ("rows with 1, 6 and 2 labels (one mean over all 9)", (3, 6, 8, 13, 2, [1, 6, 2])),
             ("a row without labels", (3, 7, 8, 13, 3, [2, 0, 5])), ("random", (4, 16, 32, 97, 4, None)),
             ("H = V would let a transposed decoder through", (2, 9, 12, 12, 5, [4, 3]))]
    for name, (B, T, H, V, seed, counts) in cases:
        hidden, emb, bias, labels = _case(B, T, H, V, seed, counts)
        case = (f"{name}: hidden ({B}, {T}, {H}), word_embeddings ({V}, {H}), bias ({V},), labels "
                f"{labels.tolist() if B * T <= 24 else f'({B}, {T})'}")
        given = [t.clone().requires_grad_(t.is_floating_point()) for t in (hidden, emb, bias)] + [labels.clone()]
        got = call(fn, case, *given)
        if not torch.equal(given[3], labels):
            raise ExerciseError(f"{case}: your function changed labels in place\n  hint: select with a mask "
                                "(labels != -100) instead of overwriting the -100s")
        if not isinstance(got, torch.Tensor):
            raise ExerciseError(f"{case}: expected a tensor (so that backward() can run), received "
                                f"{type(got).__name__} {got!r}\n  hint: do not call .item() or float()")
        if got.numel() != 1:
            raise ExerciseError(f"{case}: expected one number (the mean loss), received shape {tuple(got.shape)}")
        expected = _expected(hidden, emb, bias, labels)
        if not torch.allclose(got.detach().reshape(()).double(), expected.double(), atol=1e-5, rtol=1e-4):
            raise ExerciseError(f"{case}: expected the loss {expected.item():.6f}, received "
                                f"{got.detach().reshape(()).item():.6f}\n  hint: "
                                f"{_hint(got.detach().reshape(()), hidden, emb, bias, labels)}")
        if not got.requires_grad:
            raise ExerciseError(f"{case}: the loss does not depend on the parameters (requires_grad is False)\n"
                                "  hint: no torch.no_grad() and no .detach(): training needs the gradient")
        got.reshape(()).backward()
        reference = [t.detach().clone().requires_grad_() for t in (hidden, emb, bias)]
        _expected(*reference, labels).backward()
        for tensor, ref, label in zip(given[:3], reference, ("hidden", "word_embeddings", "bias")):
            if tensor.grad is None:
                raise ExerciseError(f"{case}: no gradient reached {label}\n  hint: compute the loss from the "
                                    "tensors you are given, without .detach() or copying them into new ones")
            expect_close(f"{case}: the gradient of the loss with respect to {label}", tensor.grad, ref.grad)
    passed("masked_lm_loss", f"{len(cases)} cases: the loss and its gradients equal cross_entropy over the "
                             "labelled positions of the tied decoder's logits")
