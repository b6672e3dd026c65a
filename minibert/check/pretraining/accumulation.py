"""The checker of exercise 5.3: gradient accumulation that is exact, k micro-batches leaving the
gradient of the whole batch's loss (the mean MLM loss over all its labelled positions plus the mean
NSP loss over all its pairs)."""

from __future__ import annotations

import math

import torch

from ..common import ExerciseError, as_float, call, passed

IGNORE = -100


def _model(seed: int = 0):
    from ...config import BertConfig
    from ...heads import BertForPreTraining

    torch.manual_seed(seed)
    config = BertConfig(vocab_size=40, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=24, max_position_embeddings=16, hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0)
    return BertForPreTraining(config).train()  # no dropout: the same function of the weights on every call


def _batch(B: int, T: int, counts: list[int], seed: int, zeros: bool = False) -> dict:
    """B rows of T tokens, row b with counts[b] labelled positions and a padded tail; with `zeros`, the
    first label of every other row is token id 0 (a real token: only -100 means "no label")."""
    g = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(5, 40, (B, T), generator=g)
    lengths = [max(3, T - int(torch.randint(0, T // 2, (), generator=g))) for _ in range(B)]
    attention_mask = (torch.arange(T)[None] < torch.tensor(lengths)[:, None]).long()
    input_ids = input_ids * attention_mask
    labels = torch.full((B, T), IGNORE)
    for b, n in enumerate(counts):
        where = 1 + torch.randperm(lengths[b] - 2, generator=g)[:n]
        labels[b, where] = torch.randint(5, 40, (len(where),), generator=g)
        if zeros and b % 2 == 0:
            labels[b, where[0]] = 0
    return dict(input_ids=input_ids, token_type_ids=torch.zeros_like(input_ids), attention_mask=attention_mask,
                labels=labels, next_sentence_label=torch.randint(0, 2, (B,), generator=g))


def _grads(model) -> list[torch.Tensor]:
    return [p.grad.detach().clone() if p.grad is not None else torch.zeros_like(p) for p in model.parameters()]


def _relative(a: list[torch.Tensor], b: list[torch.Tensor]) -> float:
    num = math.sqrt(sum(float((x - y).pow(2).sum()) for x, y in zip(a, b, strict=True)))
    return num / max(1e-12, math.sqrt(sum(float(y.pow(2).sum()) for y in b)))


def _simulate(model, batch, k, *, strided=False, mlm="share", nsp="rows", only_last=False) -> list[torch.Tensor]:
    """The gradients a mistaken accumulation leaves: micro-batches contiguous or strided, each loss
    weighted by `mlm`/`nsp` ("share": labelled positions, "rows": rows, "k": 1/k, "one": 1)."""
    rows = batch["input_ids"].shape[0] // k
    n_all = int((batch["labels"] != IGNORE).sum())
    pieces = [{key: v[i::k] if strided else v[i * rows:(i + 1) * rows] for key, v in batch.items()} for i in range(k)]
    weight = {"share": lambda piece: int((piece["labels"] != IGNORE).sum()) / n_all, "rows": lambda piece: 1 / k,
              "k": lambda piece: 1 / k, "one": lambda piece: 1.0}
    model.zero_grad(set_to_none=True)
    for piece in pieces[-1:] if only_last else pieces:
        out = model(**piece)
        (out.mlm_loss * weight[mlm](piece) + out.nsp_loss * weight[nsp](piece)).backward()
    grads = _grads(model)
    model.zero_grad(set_to_none=True)
    return grads


def _hint(model, batch, k, got_grads, full_grads) -> str:
    """Which known mistake gives the learner's gradients."""
    equal = ("you weighted every micro-batch equally (loss / k), as minibert's loop does: close, not exact. The "
             "MLM loss is a mean over labelled positions, so weigh each micro-batch's mlm_loss by its share of the "
             "batch's labelled positions, and its nsp_loss by its share of the pairs")
    last = "only the last micro-batch's gradient is left: zero the gradients once, before the loop, not inside it"
    guesses = [
        (dict(mlm="one", nsp="one"), "you summed the micro-batches' losses: each must be scaled by its share of "
                                     "the batch, or the gradient is about k times too large"),
        (dict(mlm="k", nsp="k"), equal), (dict(mlm="k", nsp="k", strided=True), equal),
        (dict(mlm="share", nsp="share"), "you weighted the NSP loss by the share of labelled positions too: NSP is "
                                         "a mean over pairs, so its weight is the micro-batch's share of the rows"),
        (dict(only_last=True), last), (dict(mlm="k", nsp="k", only_last=True), last),
        (dict(mlm="one", nsp="one", only_last=True), last),
    ]
    if _relative(got_grads, [torch.zeros_like(g) for g in full_grads]) < 1e-6:
        return ("the gradients are zero: did you zero them after the last backward(), or compute the loss under "
                "torch.no_grad()?")
    for settings, text in guesses:
        if _relative(got_grads, _simulate(model, batch, k, **settings)) < 1e-4:
            return text
    return ("mlm share = labelled positions in the micro-batch / labelled positions in the batch; nsp share = rows "
            "in the micro-batch / rows in the batch; backward() on mlm_loss * mlm share + nsp_loss * nsp share; "
            "every row in exactly one micro-batch")


def _models_as_handed_over(fn) -> None:
    """Two models as a loop may hand them over: a fresh one, whose .grad are all None (nothing to zero in
    place), and one in eval mode with dropout 0.1 (the gradient is the loss's in that mode, and the mode is
    the caller's to choose)."""
    batch = _batch(6, 12, [2, 5, 1, 3, 3, 4], seed=7)
    for what in ("fresh", "eval"):
        model = _model(7)
        if what == "eval":
            for m in model.modules():
                if isinstance(m, torch.nn.Dropout):
                    m.p = 0.1
            model.eval()
        model.zero_grad(set_to_none=True)
        model(**batch).loss.backward()
        full_grads = _grads(model)
        model.zero_grad(set_to_none=True)  # every .grad None, as in a model no backward() has reached
        case = ("6 rows in 2 micro-batches, k=2, " + ("a freshly built model: every .grad is None" if what == "fresh"
                else "a model in eval mode with dropout 0.1 (the caller's choice of mode)"))
        got = call(fn, case, model, batch, 2)
        if what == "eval" and model.training:
            raise ExerciseError(f"{case}: your function switched the model to training mode\n  hint: the caller "
                                "chose the mode (model.train() or model.eval()); accumulation changes the gradients, "
                                "not the mode: dropout would run where the caller switched it off")
        if (error := _relative(_grads(model), full_grads)) > 1e-4:
            raise ExerciseError(f"{case}: the accumulated gradient differs from the whole batch's by {error:.2%} "
                                "(relative norm)")
        value, _ = as_float(got)
        if value is None or not math.isclose(value, float(model(**batch).loss.detach()), rel_tol=1e-4):
            raise ExerciseError(f"{case}: returned loss {got!r}, expected the whole batch's")


def accumulate(fn) -> None:
    """`fn(model, batch, k) -> loss`: after it, every parameter's .grad is the gradient of
    model(**batch).loss; the returned number is that loss."""
    # (name, B, labels per row, k, whether some labels are token id 0, whether the position table is frozen)
    cases = [("8 rows in 4 micro-batches with 1+2, 6+5, 1+1 and 3+4 labelled positions", 8, [1, 2, 6, 5, 1, 1, 3, 4],
              4, False, False),
             ("6 rows in 2 micro-batches of 3 (2+2+2 and 7+1+6 labels)", 6, [2, 2, 2, 7, 1, 6], 2, False, False),
             ("4 rows, k = 4: one row per micro-batch (1, 8, 3, 2 labels)", 4, [1, 8, 3, 2], 4, False, False),
             ("5 rows, k = 1: the whole batch at once", 5, [3, 1, 4, 1, 5], 1, False, False),
             ("6 rows in 3 micro-batches (4+1, 2+6, 3+3 labels), the first label of rows 0, 2 and 4 token id 0 "
              "(only -100 marks a position with nothing to predict)", 6, [4, 1, 2, 6, 3, 3], 3, True, False),
             ("6 rows in 2 micro-batches (2+5+1 and 3+3+4 labels), the position embeddings frozen "
              "(requires_grad=False) and holding a stale .grad like the rest", 6, [2, 5, 1, 3, 3, 4], 2, False, True)]
    for n, (name, B, counts, k, zeros, frozen) in enumerate(cases):
        batch = _batch(B, 12, counts, seed=n, zeros=zeros)
        kept = {key: v.clone() for key, v in batch.items()}
        model = _model(n)
        table = model.bert.embeddings.position_embeddings.weight
        table.requires_grad_(not frozen)
        model.zero_grad(set_to_none=True)
        full = model(**batch).loss
        full.backward()
        full_grads = _grads(model)
        overflowed = n == 1  # a step that overflowed (float16) leaves inf in .grad: zeroing must not keep it
        for p in model.parameters():  # stale gradients from an earlier step, as a loop leaves them
            p.grad = torch.full_like(p, 0.5)
            if overflowed:
                p.grad.view(-1)[0] = float("inf")
        case = f"{name}, k={k}" + (", the stale .grad holding an inf (left by a step that overflowed)"
                                   if overflowed else "")
        backwards = []  # one entry per backward() that reaches the word embeddings, which every row uses
        hook = model.bert.embeddings.word_embeddings.weight.register_post_accumulate_grad_hook(backwards.append)
        try:
            got = call(fn, case, model, batch, k)
        finally:
            hook.remove()
        if set(batch) != set(kept) or any(not torch.equal(batch[key], kept[key]) for key in kept):
            raise ExerciseError(f"{case}: your function changed the batch it was given\n  hint: slice it into new "
                                "dicts (batch[key][i:j]); do not pop or overwrite its entries")
        if frozen and table.grad is not None and table.grad.abs().max() > 0:
            raise ExerciseError(f"{case}: the frozen position embeddings still hold the stale gradient that was in "
                                "their .grad before the call\n  hint: clear every parameter's gradient "
                                "(model.zero_grad(set_to_none=True)), the frozen ones too: an optimizer that holds "
                                "them would step on a gradient no backward() made")
        got_grads = _grads(model)
        if overflowed and not all(torch.isfinite(g).all() for g in got_grads):
            nan = any(torch.isnan(g).any() for g in got_grads)
            hint = ("0 × inf is NaN, so multiplying a stale gradient by 0 does not clear it" if nan else
                    "the stale inf is still there: clear the gradients once, before the first micro-batch")
            raise ExerciseError(f"{case}: the gradients hold {'NaN' if nan else 'inf'} after the call, where the "
                                f"stale .grad held inf\n  hint: {hint}; set them to None "
                                "(model.zero_grad(set_to_none=True)) or fill them with p.grad.zero_()")
        error = _relative(got_grads, full_grads)
        if error > 1e-4:
            if _relative(got_grads, [g + 0.5 for g in full_grads]) < 1e-4:
                raise ExerciseError(f"{case}: the gradients still hold what was in .grad before the call (0.5 was "
                                    "added to each)\n  hint: zero the gradients once, before the first micro-batch")
            hint = _hint(model, batch, k, got_grads, full_grads)
            if zeros:  # the cases before it, alike but for the zeros, passed
                hint = ("the batches before this one passed, and only this one has labels equal to 0: a labelled "
                        "position is one whose label is not -100 (labels > 0 leaves token id 0 out)")
            raise ExerciseError(f"{case}: the accumulated gradient differs from the whole batch's by "
                                f"{error:.2%} (relative norm)\n  hint: {hint}")
        if len(backwards) < k:
            raise ExerciseError(f"{case}: the gradients are right, but backward() ran {len(backwards)} time(s) for {k} "
                                "micro-batches, so every micro-batch's graph (its activations) was kept until then: "
                                "the memory of the whole batch, which accumulation exists to avoid\n  hint: call "
                                "backward() on each micro-batch's weighted loss inside the loop")
        value, problem = as_float(got)
        if problem:
            raise ExerciseError(f"{case}: the returned loss {problem}\n  hint: return the whole batch's loss, e.g. "
                                "the sum of the weighted micro-batch losses")
        if not math.isclose(value, float(full.detach()), rel_tol=1e-4, abs_tol=1e-6):
            raise ExerciseError(f"{case}: returned loss {value:.6f}, expected the whole batch's {float(full.detach()):.6f}\n  "
                                "hint: add up each micro-batch's weighted loss (not the last one, nor the mean of "
                                "their unweighted losses)")
    _models_as_handed_over(fn)
    passed("accumulate", f"{len(cases)} batches split in 1 to 4 micro-batches with unequal numbers of labelled "
                         "positions (token id 0 among the labels, a frozen table): the gradients and the loss of the "
                         "whole batch, from stale gradients, one backward() per micro-batch")
