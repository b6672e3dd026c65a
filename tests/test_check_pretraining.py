"""The checkers of chapter 05's exercises: the solutions pass, the stubs raise NotImplementedError, and
mistakes learners really make are rejected with a message that names them, while correct code in other
styles (numpy, plain loops, torch's own functions, other names and orders) is accepted."""

import functools
import math

import numpy as np
import pytest
import torch
from helpers import checker_contract

from minibert import check
from minibert.check import ExerciseError

EXERCISES = [("learning_rate", "my_learning_rate"), ("parameter_groups", "my_parameter_groups"),
             ("accumulate", "my_accumulate"), ("clip_grad_norm", "my_clip_grad_norm"),
             ("pretraining_step", "my_pretraining_step")]
SOLUTIONS, STUBS, test_the_solution_passes, test_the_stub_raises_not_implemented = checker_contract(
    "05_pretraining", EXERCISES)


def rejected(checker, fn, message):
    with pytest.raises(ExerciseError, match=message):
        checker(fn)


def accepted(checker, fn, capsys):
    checker(fn)
    assert capsys.readouterr().out.startswith("✓")


# ---- 5.1: the learning rate ----------------------------------------------------------------------------

def lr_hf(step, peak, warmup, total, end_lr=0.0, power=1.0):  # transformers' linear schedule
    if step < warmup:
        return peak * step / warmup
    return (peak - end_lr) * max(0.0, (total - step) / max(1, total - warmup)) ** power + end_lr


def lr_le(step, peak, warmup, total, end_lr=0.0, power=1.0):  # <= ends the warm-up one step late
    if warmup and step <= warmup:
        return peak * step / warmup
    return (peak - end_lr) * (1 - min(step, total) / total) ** power + end_lr


def lr_plus_one(step, peak, warmup, total, end_lr=0.0, power=1.0):
    if warmup and step < warmup:
        return peak * (step + 1) / warmup
    return (peak - end_lr) * (1 - min(step, total) / total) ** power + end_lr


def lr_no_clamp(step, peak, warmup, total, end_lr=0.0, power=1.0):
    if warmup and step < warmup:
        return peak * step / warmup
    return (peak - end_lr) * (1 - step / total) ** power + end_lr  # no min(step, total)


def lr_end_not_subtracted(step, peak, warmup, total, end_lr=0.0, power=1.0):
    if warmup and step < warmup:
        return peak * step / warmup
    return peak * (1 - min(step, total) / total) ** power + end_lr


def lr_multiplier(step, peak, warmup, total, end_lr=0.0, power=1.0):
    if warmup and step < warmup:
        return step / warmup
    return (1 - end_lr / peak) * (1 - min(step, total) / total) ** power + end_lr / peak


def lr_int_division(step, peak, warmup, total, end_lr=0.0, power=1.0):
    if warmup and step < warmup:
        return peak * (step // warmup)
    return (peak - end_lr) * (1 - min(step, total) / total) ** power + end_lr


def lr_power_on_ramp(step, peak, warmup, total, end_lr=0.0, power=1.0):
    if warmup and step < warmup:
        return peak * (step / warmup) ** power
    return (peak - end_lr) * (1 - min(step, total) / total) ** power + end_lr


def lr_zero_warmup_divides(step, peak, warmup, total, end_lr=0.0, power=1.0):
    if step < warmup or warmup == 0 and step == 0:
        return peak * step / warmup
    return (peak - end_lr) * (1 - min(step, total) / total) ** power + end_lr


def lr_ignores_end(step, peak, warmup, total, end_lr=0.0, power=1.0):
    if warmup and step < warmup:
        return peak * step / warmup
    return peak * (1 - min(step, total) / total) ** power


def lr_power_or_one(step, peak, warmup, total, end_lr=0.0, power=1.0):  # power=0.0 taken for a missing value
    power = power or 1.0
    if warmup and step < warmup:
        return peak * step / warmup
    return (peak - end_lr) * (1 - min(step, total) / total) ** power + end_lr


def lr_float32(step, peak, warmup, total, end_lr=0.0, power=1.0):  # torch.tensor of Python numbers: float32
    s, p, e = torch.tensor(step), torch.tensor(peak), torch.tensor(end_lr)
    if warmup and step < warmup:
        return p * s / warmup
    return (p - e) * (1 - torch.clamp(s / total, max=1.0)) ** power + e


def lr_list(step, peak, warmup, total, end_lr=0.0, power=1.0):
    return [SOLUTIONS["my_learning_rate"](step, peak, warmup, total, end_lr, power)]


@pytest.mark.parametrize("fn, message", [
    (lr_hf, "end of the warm-up.*transformers"), (lr_le, "global_step < num_warmup_steps"),
    (lr_plus_one, "off by one"), (lr_no_clamp, "past total_steps"),
    (lr_end_not_subtracted, "peak_lr - end_lr"), (lr_multiplier, "multiplier"), (lr_int_division, "integer division"),
    (lr_power_on_ramp, "warm-up is linear"), (lr_zero_warmup_divides, "ZeroDivisionError"),
    (lr_ignores_end, "end_lr is ignored"), (lr_list, "expected a number"),
    (lr_power_or_one, r"power=0:\n  expected 0.001\n  received 0.00055\n.*`power or 1.0`"),
    (lr_float32, r"step=999999, peak_lr=1, warmup_steps=10000, total_steps=1000000(?s:.*)float32.*Python floats")])
def test_learning_rate_rejects(fn, message):
    rejected(check.learning_rate, fn, message)


def lr_numpy(step, peak, warmup, total, end_lr=0.0, power=1.0):
    ramp = np.float64(peak) * step / max(warmup, 1)
    decay = (peak - end_lr) * np.power(1 - np.minimum(step, total) / total, power) + end_lr
    return np.where(step < warmup, ramp, decay)[()]  # a numpy float64


def lr_torch(step, peak, warmup, total, end_lr=0.0, power=1.0):
    from minibert.training import bert_schedule
    if power == 1.0 and end_lr == 0.0:
        return torch.tensor(peak * bert_schedule(step, warmup, total), dtype=torch.float64)
    s = torch.tensor(float(step), dtype=torch.float64)
    if s < warmup:
        return peak * s / warmup
    return (peak - end_lr) * (1 - torch.clamp(s, max=total) / total) ** power + end_lr


@pytest.mark.parametrize("fn", [lr_numpy, lr_torch])
def test_learning_rate_accepts(fn, capsys):
    accepted(check.learning_rate, fn, capsys)


# ---- 5.2: parameter groups ---------------------------------------------------------------------------

def groups_by_google_names(model, wd):
    decay, no = [], []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (no if any(k in name for k in ("LayerNorm", "layer_norm", "bias")) else decay).append(p)
    return [{"params": decay, "weight_decay": wd}, {"params": no, "weight_decay": 0.0}]


def groups_bias_only(model, wd):
    decay, no = [], []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (no if name.endswith("bias") else decay).append(p)
    return [{"params": decay, "weight_decay": wd}, {"params": no, "weight_decay": 0.0}]


def groups_with_frozen(model, wd):
    return [{"params": [p for p in model.parameters() if p.ndim >= 2], "weight_decay": wd},
            {"params": [p for p in model.parameters() if p.ndim < 2], "weight_decay": 0.0}]


def groups_swapped(model, wd):
    groups = SOLUTIONS["my_parameter_groups"](model, wd)
    return [{"params": groups[0]["params"], "weight_decay": 0.0}, {"params": groups[1]["params"], "weight_decay": wd}]


def groups_duplicates(model, wd):
    ps = [p for _, p in model.named_parameters(remove_duplicate=False) if p.requires_grad]
    return [{"params": [p for p in ps if p.ndim >= 2], "weight_decay": wd},
            {"params": [p for p in ps if p.ndim < 2], "weight_decay": 0.0}]


def groups_names(model, wd):
    ps = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    return [{"params": [n for n, p in ps if p.ndim >= 2], "weight_decay": wd},
            {"params": [n for n, p in ps if p.ndim < 2], "weight_decay": 0.0}]


def groups_copies(model, wd):
    ps = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p.detach().clone().requires_grad_() for p in ps if p.ndim >= 2], "weight_decay": wd},
            {"params": [p.detach().clone().requires_grad_() for p in ps if p.ndim < 2], "weight_decay": 0.0}]


def groups_one(model, wd):
    return [{"params": [p for p in model.parameters() if p.requires_grad], "weight_decay": wd}]


def groups_matrices_only_3d(model, wd):
    ps = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in ps if p.ndim > 2], "weight_decay": wd},
            {"params": [p for p in ps if p.ndim <= 2], "weight_decay": 0.0}]


def groups_exactly_2d(model, wd):  # right on BERT, whose tensors are 1-D or 2-D; spares a 3-D weight
    ps = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in ps if p.ndim == 2], "weight_decay": wd},
            {"params": [p for p in ps if p.ndim != 2], "weight_decay": 0.0}]


def groups_as_float(model, wd):  # right in float32, where .float() is the tensor itself; copies otherwise
    ps = [p.float() for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in ps if p.ndim >= 2], "weight_decay": wd},
            {"params": [p for p in ps if p.ndim < 2], "weight_decay": 0.0}]


def groups_as_sets(model, wd):  # keeps a tied tensor once, but AdamW refuses sets
    ps = [p for p in model.parameters() if p.requires_grad]
    return [{"params": {p for p in ps if p.ndim >= 2}, "weight_decay": wd},
            {"params": {p for p in ps if p.ndim < 2}, "weight_decay": 0.0}]


def groups_one_dimensional(model, wd):  # right on BERT; a 0-D scalar lands in neither group
    ps = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in ps if p.ndim >= 2], "weight_decay": wd},
            {"params": [p for p in ps if p.ndim == 1], "weight_decay": 0.0}]


def groups_squeezed(model, wd):  # right on BERT; a (1, H) matrix looks 1-D once squeezed
    ps = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in ps if p.squeeze().ndim >= 2], "weight_decay": wd},
            {"params": [p for p in ps if p.squeeze().ndim < 2], "weight_decay": 0.0}]


def groups_bias_by_name_too(model, wd):  # "bias" in the name spared whatever its shape
    ps = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    spared = [p for n, p in ps if p.ndim < 2 or "bias" in n]
    return [{"params": [p for n, p in ps if p.ndim >= 2 and "bias" not in n], "weight_decay": wd},
            {"params": spared, "weight_decay": 0.0}]


def groups_decay_none(model, wd):  # AdamW is built, but its step fails on None
    groups = SOLUTIONS["my_parameter_groups"](model, wd)
    return [groups[0], dict(groups[1], weight_decay=None)]


def groups_both_decay(model, wd):
    groups = SOLUTIONS["my_parameter_groups"](model, wd)
    return [dict(g, weight_decay=wd) for g in groups]


def groups_without_the_empty_one(model, wd):  # "AdamW chokes on an empty group": a model without a matrix gets one
    return [g for g in SOLUTIONS["my_parameter_groups"](model, wd) if g["params"]]


def groups_skip_frozen_modules(model, wd):  # a module whose weight is frozen skipped whole: its bias too
    beside = {id(p) for m in model.modules() if isinstance(getattr(m, "weight", None), torch.Tensor)
              and not m.weight.requires_grad for p in m.parameters(recurse=False)}
    return [dict(g, params=[p for p in g["params"] if id(p) not in beside])
            for g in SOLUTIONS["my_parameter_groups"](model, wd)]


@functools.lru_cache(maxsize=None)
def groups_cached(model, wd):  # the groups kept per (model, weight_decay): a later freeze goes unseen
    return SOLUTIONS["my_parameter_groups"](model, wd)


def groups_default_with_or(model, wd):  # "BERT's 0.01 when none is given": an explicit 0.0 becomes 0.01 too
    return SOLUTIONS["my_parameter_groups"](model, wd or 0.01)


@pytest.mark.parametrize("fn, message", [
    (groups_default_with_or, r"Linear\(3, 2\), no decay asked for, weight_decay=0.0: .*\[0.01, 0.0\].*\n.*is a value"),
    (groups_without_the_empty_one, r"torch.nn.LayerNorm\(6\) alone.*received one group; this model has no "
                                   r"trainable matrix(.|\n)*always return both groups"),
    (groups_skip_frozen_modules, r"(?s)one query weight frozen.*in no group \(so never trained\): "
                                 r"\['bert.encoder.layers.0.attention.query.bias'\].*requires_grad belongs to each "
                                 r"parameter"),
    (groups_by_google_names, "decayed, but 1-D.*attention_norm"), (groups_bias_only, "decayed, but 1-D"),
    (groups_with_frozen, "frozen parameters"), (groups_swapped, "not decayed, but matrices"),
    (groups_duplicates, "more than once"), (groups_names, "not its name"), (groups_copies, "clone"),
    (groups_one, "expected two dicts"), (groups_matrices_only_3d, "not decayed, but matrices"),
    (groups_both_decay, "weight_decay values"), (groups_as_sets, r"'params' is a set.*\n.*a list"),
    (groups_one_dimensional, r"(?s)in no group.*\['temperature'\].*0-D parameter.*p.ndim < 2"),
    (groups_squeezed, r"(?s)not decayed, but matrices: \['row'\].*not after\s+p.squeeze\(\)"),
    (groups_bias_by_name_too, r"(?s)not decayed, but matrices: \['relative_attention_bias.weight'\].*shape alone"),
    (groups_decay_none, r"\[0.01, None\].*\n.*weight_decay 0.0"),
    (groups_as_float, r"in bfloat16.*not one of the model's parameters\n.*\.float\(\)"),
    (groups_exactly_2d, r"(?s)3-D weight `mix`.*not decayed, but matrices: \['mix'\].*not exactly 2"),
    (groups_cached, r"(?s)called again after layers\[1\].ffn_norm.weight was frozen.*frozen parameters.*"
                    r"something kept between calls")])
def test_parameter_groups_rejects(fn, message):
    rejected(check.parameter_groups, fn, message)


def groups_reversed_tuples(model, wd):
    no = tuple(p for p in model.parameters() if p.requires_grad and p.dim() < 2)
    decay = tuple(p for p in model.parameters() if p.requires_grad and p.dim() > 1)
    return ({"weight_decay": 0, "params": no}, {"weight_decay": wd, "params": decay})  # other order, int 0, tuples


def groups_from_minibert(model, wd):
    from minibert.training import parameter_groups
    return parameter_groups(model, wd)


def groups_by_named_with_seen(model, wd):
    seen, decay, no = set(), [], []
    for _, p in model.named_parameters(remove_duplicate=False):
        if id(p) in seen or not p.requires_grad:
            continue
        seen.add(id(p))
        (decay if len(p.shape) >= 2 else no).append(p)
    return [{"params": decay, "weight_decay": wd}, {"params": no, "weight_decay": 0.0}]


@pytest.mark.parametrize("fn", [groups_reversed_tuples, groups_from_minibert, groups_by_named_with_seen])
def test_parameter_groups_accepts(fn, capsys):
    accepted(check.parameter_groups, fn, capsys)


# ---- 5.3: exact accumulation ---------------------------------------------------------------------------

def pieces(batch, k):
    size = batch["input_ids"].shape[0] // k
    return [{key: v[i * size:(i + 1) * size] for key, v in batch.items()} for i in range(k)]


def acc_sum(model, batch, k):
    model.zero_grad()
    total = 0.0
    for piece in pieces(batch, k):
        loss = model(**piece).loss
        loss.backward()
        total += loss.item()
    return total


def acc_equal(model, batch, k):  # minibert's loop: close, not exact
    model.zero_grad()
    total = 0.0
    for piece in pieces(batch, k):
        loss = model(**piece).loss / k
        loss.backward()
        total += loss.item()
    return total


def acc_zero_inside(model, batch, k):
    n_all = (batch["labels"] != -100).sum()
    total = 0.0
    for piece in pieces(batch, k):
        model.zero_grad()
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / n_all + out.nsp_loss / k
        loss.backward()
        total += loss.item()
    return total


def acc_no_zero(model, batch, k):
    n_all = (batch["labels"] != -100).sum()
    total = 0.0
    for piece in pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / n_all + out.nsp_loss / k
        loss.backward()
        total += loss.item()
    return total


def acc_trainable_cleared_only(model, batch, k):  # a frozen parameter keeps its stale .grad
    for p in model.parameters():
        if p.requires_grad:
            p.grad = None
    return acc_no_zero(model, batch, k)


def acc_nsp_by_labels(model, batch, k):
    model.zero_grad()
    n_all = (batch["labels"] != -100).sum()
    total = 0.0
    for piece in pieces(batch, k):
        loss = model(**piece).loss * (piece["labels"] != -100).sum() / n_all
        loss.backward()
        total += loss.item()
    return total


def acc_returns_last(model, batch, k):
    SOLUTIONS["my_accumulate"](model, batch, k)
    return model(**pieces(batch, k)[-1]).loss.item()


def acc_pops(model, batch, k):
    labels = batch.pop("labels")
    batch["labels"] = labels
    batch["labels"] = labels.clone()
    batch["labels"][0, 0] = -100 if batch["labels"][0, 0] != -100 else 5
    return SOLUTIONS["my_accumulate"](model, {**batch}, k)


def acc_strided_equal(model, batch, k):  # every k-th row, equal weights
    model.zero_grad()
    for i in range(k):
        (model(**{key: v[i::k] for key, v in batch.items()}).loss / k).backward()
    return model(**batch).loss.item()


def acc_zero_after(model, batch, k):
    loss = SOLUTIONS["my_accumulate"](model, batch, k)
    model.zero_grad()
    return loss


def acc_overlapping(model, batch, k):
    n_all = (batch["labels"] != -100).sum()
    model.zero_grad()
    size = batch["input_ids"].shape[0] // k
    total = 0.0
    for i in range(k):
        piece = {key: v[i:i + size] for key, v in batch.items()}  # start i, not i * size
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / n_all + out.nsp_loss / k
        loss.backward()
        total += loss.item()
    return total


def acc_positive_labels(model, batch, k):  # labels > 0 for "labelled": token id 0 left out
    model.zero_grad(set_to_none=True)
    n_all = (batch["labels"] > 0).sum()
    total = 0.0
    for piece in pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] > 0).sum() / n_all + out.nsp_loss / k
        loss.backward()
        total += loss.item()
    return total


def acc_one_backward(model, batch, k):  # exact weights, one backward() on the sum: every graph kept
    model.zero_grad(set_to_none=True)
    n_all = (batch["labels"] != -100).sum()
    total = 0
    for piece in pieces(batch, k):
        out = model(**piece)
        total = total + out.mlm_loss * (piece["labels"] != -100).sum() / n_all + out.nsp_loss / k
    total.backward()
    return total.item()


def acc_zeroed_by_multiplying(model, batch, k):  # p.grad.mul_(0): 0 × a stale inf is NaN
    for p in model.parameters():
        if p.grad is not None:
            p.grad.mul_(0)
    n_all, rows = (batch["labels"] != -100).sum(), batch["input_ids"].shape[0]
    total = 0.0
    for piece in pieces(batch, k):
        out = model(**piece)
        share = piece["input_ids"].shape[0] / rows
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / n_all + out.nsp_loss * share
        loss.backward()
        total += loss.item()
    return total


@pytest.mark.parametrize("fn, message", [
    (acc_zeroed_by_multiplying, r"stale .grad holding an inf.*hold NaN after the call.*\n.*0 × inf is NaN"),
    (acc_positive_labels, r"token id 0.*\n.*labels > 0 leaves token id 0 out"),
    (acc_one_backward, r"gradients are right, but backward\(\) ran 1 time\(s\) for 4 micro-batches"),
    (acc_sum, "summed"), (acc_equal, "weighted every micro-batch equally"), (acc_zero_inside, "only the last"),
    (acc_no_zero, "still hold what was in .grad"),
    (acc_trainable_cleared_only, r"position embeddings frozen.*stale gradient.*\n.*the frozen ones too"),
    (acc_nsp_by_labels, "NSP loss by the share of labelled"),
    (acc_returns_last, "returned loss"), (acc_pops, "changed the batch"),
    (acc_strided_equal, "weighted every micro-batch equally"), (acc_zero_after, "gradients are zero"),
    (acc_overlapping, "differs from the whole batch")])
def test_accumulate_rejects(fn, message):
    rejected(check.accumulate, fn, message)


def acc_strided_exact(model, batch, k):  # every k-th row, weights by hand, tensor returned
    for p in model.parameters():
        p.grad = None
    n_all = int((batch["labels"] != -100).sum())
    rows = batch["input_ids"].shape[0]
    total = torch.zeros(())
    for i in range(k):
        piece = {key: v[i::k] for key, v in batch.items()}
        out = model(**piece)
        n = int((piece["labels"] != -100).sum())
        loss = out.mlm_loss * n / n_all + out.nsp_loss * piece["input_ids"].shape[0] / rows
        loss.backward()
        total = total + loss.detach()
    return total


def acc_sum_reduction(model, batch, k):  # per-token losses summed, divided by the global count
    import torch.nn.functional as F
    model.zero_grad(set_to_none=True)
    n_all = (batch["labels"] != -100).sum()
    total = 0.0
    for piece in pieces(batch, k):
        out = model(**piece)
        selected = piece["labels"][piece["labels"] != -100]
        mlm = F.cross_entropy(out.mlm_logits, selected, reduction="sum") / n_all
        nsp = F.cross_entropy(out.nsp_logits, piece["next_sentence_label"], reduction="sum") / batch["input_ids"].shape[0]
        (mlm + nsp).backward()
        total += (mlm + nsp).item()
    return np.float64(total)


@pytest.mark.parametrize("fn", [acc_strided_exact, acc_sum_reduction])
def test_accumulate_accepts(fn, capsys):
    accepted(check.accumulate, fn, capsys)


# ---- 5.4: clipping ------------------------------------------------------------------------------------

def clip_per_tensor(params, max_norm):
    params = [p for p in params if p.grad is not None]
    total = math.sqrt(sum(float(p.grad.pow(2).sum()) for p in params))
    for p in params:
        n = float(p.grad.norm())
        if n > max_norm:
            p.grad.mul_(max_norm / n)
    return total


def clip_always(params, max_norm):
    params = [p for p in params if p.grad is not None]
    total = math.sqrt(sum(float(p.grad.pow(2).sum()) for p in params))
    for p in params:
        p.grad.mul_(max_norm / total)
    return total


def clip_returns_after(params, max_norm):
    SOLUTIONS["my_clip_grad_norm"](params, max_norm)
    return 0.0 + min(1e9, 0) or None


def clip_returns_clipped_norm(params, max_norm):
    total = SOLUTIONS["my_clip_grad_norm"](params, max_norm)
    return min(total, max_norm)


def clip_sum_of_norms(params, max_norm):
    params = [p for p in params if p.grad is not None]
    total = sum(float(p.grad.norm()) for p in params)
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / total)
    return total


def clip_l1(params, max_norm):
    params = [p for p in params if p.grad is not None]
    total = sum(float(p.grad.abs().sum()) for p in params)
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / total)
    return total


def clip_scales_weights(params, max_norm):
    params = [p for p in params if p.grad is not None]
    total = math.sqrt(sum(float(p.grad.pow(2).sum()) for p in params))
    if total > max_norm:
        with torch.no_grad():
            for p in params:
                p.mul_(max_norm / total)
    return total


def clip_none_crash(params, max_norm):
    params = list(params)
    total = math.sqrt(sum(float(p.grad.pow(2).sum()) for p in params))
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / total)
    return total


def clip_walks_twice(params, max_norm):
    total = math.sqrt(sum(float(p.grad.pow(2).sum()) for p in params if p.grad is not None))
    if total > max_norm:
        for p in params:
            if p.grad is not None:
                p.grad.mul_(max_norm / total)
    return total


def clip_new_tensor_not_stored(params, max_norm):
    params = [p for p in params if p.grad is not None]
    total = math.sqrt(sum(float(p.grad.pow(2).sum()) for p in params))
    if total > max_norm:
        for p in params:
            g = p.grad * (max_norm / total)  # computed, never stored back
            del g
    return total


def clip_max_norm(params, max_norm):
    params = [p for p in params if p.grad is not None]
    total = max(float(p.grad.abs().max()) for p in params)
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / total)
    return total


def clip_squared_compared(params, max_norm):
    params = [p for p in params if p.grad is not None]
    squares = sum(float(p.grad.pow(2).sum()) for p in params)
    if squares > max_norm:  # the sum of squares compared with max_norm: the root taken for the return only
        for p in params:
            p.grad.mul_(max_norm / math.sqrt(squares))
    return math.sqrt(squares)


def clip_stacked_norms(params, max_norm):
    grads = [p.grad for p in params if p.grad is not None]
    total = torch.stack([g.norm() for g in grads]).norm()  # torch.stack([]) raises when no gradient is there
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / total)
    return total


def clip_max_norm_or_one(params, max_norm):  # max_norm=0 taken for a missing value
    return SOLUTIONS["my_clip_grad_norm"](params, max_norm or 1.0)


def clip_in_the_grads_dtype(params, max_norm):  # one long vector, its norm in float16: inf past 65504
    params = [p for p in params if p.grad is not None]
    if not params:
        return 0.0
    total = torch.cat([p.grad.reshape(-1) for p in params]).norm().item()
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / total)
    return total


def clip_trainable_only(params, max_norm):  # a parameter frozen after its backward still has a gradient
    grads = [p.grad for p in params if p.requires_grad and p.grad is not None]
    total = math.sqrt(sum(float((g.double() ** 2).sum()) for g in grads))
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / total)
    return total


def clip_flattened_with_view(params, max_norm):  # .view(-1) refuses a non-contiguous gradient
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return 0.0
    total = float(torch.cat([g.view(-1).double() for g in grads]).norm())
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / total)
    return total


def clip_squared_in_place(params, max_norm):  # .double() of a float64 gradient is that gradient: pow_ squares it
    grads = [p.grad for p in params if p.grad is not None]
    total = 0.0
    for g in grads:
        total += float(g.double().pow_(2).sum())
    total = math.sqrt(total)
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / total)
    return total


@pytest.mark.parametrize("fn, message", [
    (clip_squared_in_place, r"a float64 gradient \[3, 4\].*\n.*holds its squares: g.double\(\) of a float64"),
    (clip_trainable_only, r"frozen after its backward \(requires_grad=False, \.grad kept\): still clipped"),
    (clip_flattened_with_view, r"a parameter stored transposed, its gradient non-contiguous.*raised RuntimeError"),
    (clip_in_the_grads_dtype, r"a float16 gradient of 5,000 elements.*\n.*the global norm is 70710\.7, beyond 65504, "
                              r"the largest torch.float16 number.*inf = 0 wiped out every gradient"),
    (clip_squared_compared, r"\(norm 1\.5\), max_norm 2: nothing changes.*\n.*below max_norm must be left"),
    (clip_stacked_norms, r"no parameter has a gradient.*raised RuntimeError"),
    (clip_per_tensor, "each tensor to its own norm"), (clip_always, "below max_norm must be left"),
    (clip_returns_after, "returned norm is NoneType"), (clip_returns_clipped_norm, "norm before clipping"),
    (clip_sum_of_norms, "sum of the per-tensor norms"), (clip_l1, "L1 norm"), (clip_scales_weights, "scale p.grad, not p"),
    (clip_none_crash, "raised AttributeError"), (clip_walks_twice, "walked only once"),
    (clip_new_tensor_not_stored, "were not changed"), (clip_max_norm, "largest element"),
    (clip_max_norm_or_one, r"max_norm 0: every gradient becomes 0.*\n.*`max_norm or 1.0`")])
def test_clip_grad_norm_rejects(fn, message):
    rejected(check.clip_grad_norm, fn, message)


def clip_torch(params, max_norm):  # torch's own parts, the norm of float32 copies: torch.nn.utils.clip_grad_norm_
    params = [p for p in params if p.grad is not None]  # itself takes the norm in float16, inf past 65504
    total = torch.nn.utils.get_total_norm([p.grad.float() for p in params])
    torch.nn.utils.clip_grads_with_norm_(params, max_norm, total)
    return total


def clip_numpy(params, max_norm):
    params = [p for p in params if p.grad is not None]
    total = np.sqrt(sum((p.grad.numpy().astype(np.float64) ** 2).sum() for p in params))
    factor = min(1.0, max_norm / (total + 1e-6))
    for p in params:
        p.grad = p.grad * float(factor)  # a new tensor assigned back: fine
    return total


@pytest.mark.parametrize("fn", [clip_torch, clip_numpy])
def test_clip_grad_norm_accepts(fn, capsys):
    accepted(check.clip_grad_norm, fn, capsys)


# ---- 5.5: one pre-training step from the model's parts ---------------------------------------------------

F = torch.nn.functional


def _step(model, batch, optimizer, scheduler, max_grad_norm, *, loss_fn=None, clip=True, clip_after=False,
          zero=True, scheduler_first=False, nsp=True):
    """A learner's step: the parts in the order given, with `loss_fn(model, batch) -> (mlm, nsp)`."""
    mlm_loss, nsp_loss = loss_fn(model, batch)
    (mlm_loss + nsp_loss if nsp else mlm_loss).backward()
    if clip and not clip_after:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    if scheduler_first:
        scheduler.step()
    optimizer.step()
    if clip_after:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    if not scheduler_first:
        scheduler.step()
    if zero:
        optimizer.zero_grad()
    return mlm_loss.item(), nsp_loss.item()


def losses_gathered(model, batch):  # the solution's way, written again
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    return (F.cross_entropy(logits, batch["labels"][selected]),
            F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"]))


def losses_every_position(model, batch):  # the input ids predicted at every real position
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    logits = model.mlm(out.last_hidden_state, model.bert.embeddings.word_embeddings.weight)  # (B, T, V)
    real = batch["attention_mask"].bool()
    return F.cross_entropy(logits[real], batch["input_ids"][real]), losses_gathered(model, batch)[1]


def losses_over_all_positions(model, batch):  # the labelled positions' loss summed, divided by B x T
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    logits = model.mlm(out.last_hidden_state, model.bert.embeddings.word_embeddings.weight)
    total = F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten(), reduction="sum")  # -100 ignored
    return total / batch["labels"].numel(), losses_gathered(model, batch)[1]


def losses_full_decoder(model, batch):  # every position decoded, -100 ignored by the loss: correct
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    logits = model.mlm(out.last_hidden_state, model.bert.embeddings.word_embeddings.weight)  # (B, T, V)
    mlm = F.cross_entropy(logits.transpose(1, 2), batch["labels"], ignore_index=-100)
    return mlm, F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])


def losses_from_the_model(model, batch):  # the package's own loss: another correct style
    out = model(**batch)
    return out.mlm_loss, out.nsp_loss


def losses_without_types(model, batch):  # token_type_ids left out: every token reads as sentence A
    out = model.bert(batch["input_ids"], attention_mask=batch["attention_mask"])
    logits = model.mlm(out.last_hidden_state[batch["labels"] != -100], model.bert.embeddings.word_embeddings.weight)
    return (F.cross_entropy(logits, batch["labels"][batch["labels"] != -100]),
            F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"]))


def losses_google_denominator(model, batch):  # run_pretraining.py: summed loss / (N + 1e-5), 1e-5 off with N = 1
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    total = F.cross_entropy(logits, batch["labels"][selected], reduction="sum")
    return total / (selected.sum() + 1e-5), losses_gathered(model, batch)[1]


def step_clips_to_one(model, batch, optimizer, scheduler, max_grad_norm):
    return _step(model, batch, optimizer, scheduler, 1.0, loss_fn=losses_gathered)  # max_grad_norm ignored


def step_with(**kw):
    def step(model, batch, optimizer, scheduler, max_grad_norm):
        return _step(model, batch, optimizer, scheduler, max_grad_norm, **{"loss_fn": losses_gathered, **kw})
    return step


@pytest.mark.parametrize("fn, message", [
    (step_with(loss_fn=losses_every_position), r"covers every position"),
    (step_with(loss_fn=losses_over_all_positions), r"divided by all B x T"),
    (step_with(nsp=False), r"NSP loss is missing"),
    (step_with(zero=False), r"never cleared"),
    (step_with(clip=False), r"not clipped"),
    (step_with(clip_after=True), r"not clipped.*after the step, clipping changes nothing"),
    (step_with(scheduler_first=True), r"stepped before the optimizer"),
    (step_with(loss_fn=losses_without_types), r"step 1 of 2.*mlm_loss .*\n.*token types are missing"),
    (step_clips_to_one, r"weights are not minibert's.*\n.*clipped to 1\.0: clip to the max_grad_norm given"),
    (step_with(loss_fn=losses_google_denominator), r"single labelled position.*mlm_loss 3\.82\d+, expected 3\.82\d+.*"
                                                   r"\n.*divided by N \+ 1e-5"),
])
@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)` before")  # the mistake's own
def test_pretraining_step_rejects(fn, message):
    rejected(check.pretraining_step, fn, "(?s)" + message)


@pytest.mark.parametrize("fn", [step_with(loss_fn=losses_full_decoder), step_with(loss_fn=losses_from_the_model)])
def test_pretraining_step_accepts(fn, capsys):
    accepted(check.pretraining_step, fn, capsys)
