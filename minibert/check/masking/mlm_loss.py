"""The checker of exercise 4.5: the masked-LM loss, decoded with the tied word embeddings at the
labelled positions only, and the accuracy at each kind of labelled position: shown as [MASK], as
another piece, or kept as it was (`minibert.masking.selected_kinds`; chapter 05's headline is the
first, where the piece can only be read from its context)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...masking import selected_kinds
from ..common import ExerciseError, call, expect_close, passed

# ---- 4.5 the MLM loss at the labelled positions, and the accuracy by kind -------------------------

IGNORE = -100
KINDS = ("mask", "random", "kept")


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
        labels[b, where] = torch.randint(V - 1, (n,), generator=g)  # V - 1 is [MASK], never an original piece
    return hidden, emb, bias, labels


def _shown(hidden, emb, labels, kinds=None):
    """input_ids (B, T) as the 80/10/10 rule leaves them, [MASK] being id V - 1: the i-th labelled
    position (in row order) shows `kinds[i]` (by default mask, random, kept in turn), every other
    position an ordinary piece. Hidden states are planted so that the model is right at every kept
    position, at two [MASK]s in three and at no random one: the accuracies differ, so a kind counted
    as another shows."""
    V = emb.shape[0]
    ids = (labels.clamp(min=0) + 1) % (V - 1)  # an ordinary piece other than the label
    hidden = hidden.clone()
    for i, (b, t) in enumerate((labels != IGNORE).nonzero().tolist()):
        kind = kinds[i] if kinds else KINDS[i % 3]
        ids[b, t] = {"mask": V - 1, "random": ids[b, t], "kept": labels[b, t]}[kind]
        right = kind == "kept" or (kind == "mask" and i // 3 % 3 != 2)  # [MASK]: two in three
        hidden[b, t] = emb[labels[b, t]] * 10 if right else -emb[labels[b, t]] * 10
    return hidden, ids


def _accuracies(hidden, emb, bias, ids, labels):
    hit = F.linear(hidden, emb, bias).argmax(-1) == labels  # (B, T)
    return {kind: (hit[where].double().mean().item() if where.any() else None)
            for kind, where in selected_kinds(ids, labels, emb.shape[0] - 1).items()}


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


def _accuracy_hint(got, hidden, emb, bias, ids, labels, kind) -> str:
    hit = F.linear(hidden, emb, bias).argmax(-1) == labels
    sel, mask = labels != IGNORE, ids == emb.shape[0] - 1
    guesses = [
        (hit[sel].double().mean().item(), "this is the accuracy over every labelled position; split them by "
                                          "what the input shows there: [MASK], another piece, or the piece itself"),
        (hit[sel & ~mask].double().mean().item() if kind == "random" else None,
         "a labelled position whose input is its own label is kept, even when a random draw put it there; "
         "random positions show another piece"),
        (hit[sel & (ids != labels) & ~mask].double().mean().item() if kind == "kept" else None,
         "kept and random are swapped: kept positions show the label itself (input_ids == labels)"),
        (hit[sel & (ids == labels)].double().mean().item() if kind == "random" else None,
         "kept and random are swapped: random positions show another piece (neither [MASK] nor the label)"),
    ]
    for value, hint in guesses:
        if value is not None and abs(got - value) < 1e-6:
            return hint
    return "the share of the positions of that kind whose highest logit is the label"


def _check_accuracies(case, result, hidden, emb, bias, ids, labels):
    expected = _accuracies(hidden, emb, bias, ids, labels)
    for kind in KINDS:
        if kind not in result:
            raise ExerciseError(f"{case}: the result has no {kind!r}; return a dict with 'loss', 'mask', 'random' "
                                "and 'kept'")
        got, want = result[kind], expected[kind]
        if want is None:
            if got is not None:
                number = isinstance(got, (int, float, torch.Tensor)) and float(got) != 0
                overall = _accuracy_hint(float(got), hidden, emb, bias, ids, labels, kind) if number else ""
                hint = overall if overall.startswith("this is the accuracy over every") else (
                    "a 0 would read as 'always wrong'; an empty mean is no number at all")
                raise ExerciseError(f"{case}: no labelled position is {kind} here, so its accuracy is None; "
                                    f"received {got!r}\n  hint: {hint}")
            continue
        try:
            value = float(got)
        except (TypeError, ValueError):
            raise ExerciseError(f"{case}: the accuracy at {kind} positions should be a number, received "
                                f"{got!r}") from None
        if abs(value - want) > 1e-6:
            raise ExerciseError(f"{case}: expected the accuracy at {kind} positions {want:.4f}, received "
                                f"{value:.4f}\n  hint: {_accuracy_hint(value, hidden, emb, bias, ids, labels, kind)}")


def masked_lm_metrics(fn) -> None:
    """`fn(hidden, word_embeddings, bias, input_ids, labels, mask_id) -> {"loss", "mask", "random",
    "kept"}`: the loss a scalar tensor, the mean cross-entropy over the positions whose label is not
    -100 with logits h @ E.T + bias; each accuracy the share of that kind's positions whose highest
    logit is the label, None when there is none."""
    cases = [("one row, one label", (1, 5, 4, 11, 0, [1])), ("every position labelled", (2, 3, 4, 11, 1, [3, 3])),
             ("rows with 1, 6 and 2 labels (one mean over all 9)", (3, 6, 8, 13, 2, [1, 6, 2])),
             ("a row without labels", (3, 7, 8, 13, 3, [2, 0, 5])), ("random", (4, 16, 32, 97, 4, None)),
             ("H = V would let a transposed decoder through", (2, 9, 12, 12, 5, [4, 3])),
             ("no kept position", (2, 6, 8, 13, 6, [3, 2]), ["mask", "random", "mask", "random", "random"])]
    for name, (B, T, H, V, seed, counts), *kinds in cases:
        hidden, emb, bias, labels = _case(B, T, H, V, seed, counts)
        hidden, ids = _shown(hidden, emb, labels, *kinds)
        case = (f"{name}: hidden ({B}, {T}, {H}), word_embeddings ({V}, {H}), bias ({V},), [MASK] id {V - 1}, "
                + (f"input_ids {ids.tolist()}, labels {labels.tolist()}" if B * T <= 24 else f"labels ({B}, {T})"))
        given = [t.clone().requires_grad_(t.is_floating_point()) for t in (hidden, emb, bias)] + [ids.clone(),
                                                                                                  labels.clone()]
        result = call(fn, case, *given, V - 1)
        if not isinstance(result, dict):
            raise ExerciseError(f"{case}: expected a dict with 'loss', 'mask', 'random' and 'kept', received "
                                f"{type(result).__name__}")
        if not (torch.equal(given[3], ids) and torch.equal(given[4], labels)):
            raise ExerciseError(f"{case}: your function changed input_ids or labels in place\n  hint: select with "
                                "a mask (labels != -100) instead of overwriting the -100s")
        got = result.get("loss")
        if not isinstance(got, torch.Tensor):
            raise ExerciseError(f"{case}: expected the loss as a tensor (so that backward() can run), received "
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
        _check_accuracies(case, result, hidden, emb, bias, ids, labels)
    _float64_case(fn)
    passed("masked_lm_metrics", f"{len(cases) + 1} cases: the loss and its gradients equal cross_entropy over the "
                                "labelled positions of the tied decoder's logits, and the accuracy at [MASK], "
                                "random and kept positions is selected_kinds'")


def _float64_case(fn) -> None:
    """hidden, word_embeddings and bias in float64: the loss stays float64, exact to 1e-10 (a model run in
    double precision, as for a gradient check, must not lose it to float32 on the way); hidden, input_ids and
    labels come in a non-contiguous layout."""
    hidden, emb, bias, labels = (t.double() if t.is_floating_point() else t for t in _case(2, 6, 8, 13, 7, [3, 2]))
    hidden, ids = _shown(hidden, emb, labels)
    case = ("float64: hidden (2, 6, 8), word_embeddings (13, 8) and bias (13,) in torch.float64, hidden, input_ids "
            f"and labels non-contiguous (transposed (T, B) layouts), [MASK] id 12, input_ids {ids.tolist()}, labels "
            f"{labels.tolist()}")
    # A model's hidden states are often a view (a slice, a transpose): `.view(-1, H)` refuses them, reshape copes.
    given = [t.transpose(0, 1).contiguous().transpose(0, 1) for t in (hidden, ids, labels)]
    result = call(fn, case, given[0], emb.clone(), bias.clone(), given[1], given[2], 12)
    got = result.get("loss") if isinstance(result, dict) else None
    expected = _expected(hidden, emb, bias, labels)
    if isinstance(got, torch.Tensor) and got.dtype != torch.float64:
        raise ExerciseError(f"{case}: expected the loss in torch.float64, received {got.dtype}\n  hint: compute in "
                            "the dtype you are given; .float() casts float64 down to float32")
    expect_close(case + ", the loss", got.reshape(()) if isinstance(got, torch.Tensor) else got, expected,
                 atol=1e-10, rtol=1e-10, hint="in float64 the loss must agree to 1e-10: did a step pass through "
                                              "float32?")
    _check_accuracies(case, result, hidden, emb, bias, ids, labels)
