"""Exercises 5.2 (my_parameter_groups) and 5.3 (my_accumulate): learners' code with one mistake each, and
correct code in other styles.

Split rule (fixed before any checker changed): within each exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import torch

from . import Exercise
import numpy as np
import torch.nn.functional as F
import math
import itertools
from torch import nn
import functools
import copy

EX52 = Exercise("5.2", "parameter_groups")


@EX52.bug
def by_name(model, weight_decay):
    """I excluded by name as Google does: "bias", "LayerNorm" or "layer_norm" in the name."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if any(s in name for s in ("bias", "LayerNorm", "layer_norm")) else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def frozen_kept(model, weight_decay):
    """I put every parameter in a group, frozen or not (AdamW skips those without a gradient anyway)."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def from_the_state_dict(model, weight_decay):
    """I read the tensors from model.state_dict() (they are detached copies' views, not the parameters)."""
    decay, no_decay = [], []
    params = dict(model.named_parameters())
    for name, t in model.state_dict().items():
        if name in params and params[name].requires_grad:
            (decay if t.ndim >= 2 else no_decay).append(t)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def more_than_two_dims(model, weight_decay):
    """I wrote p.ndim > 2 for the matrices (a Linear weight has 2 dims, so none was decayed)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim > 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def decay_hard_coded(model, weight_decay):
    """I wrote BERT's 0.01 into the decayed group instead of the weight_decay argument."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def per_module_parameters(model, weight_decay):
    """I walked model.modules() and took each module's own parameters (a tied weight comes twice)."""
    decay, no_decay = [], []
    for module in model.modules():
        for p in module.parameters(recurse=False):
            if p.requires_grad:
                (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def frozen_only_left_out_of_decay(model, weight_decay):
    """I checked requires_grad for the decayed matrices only; 1-D parameters all went into the other group."""
    decay = [p for p in model.parameters() if p.ndim >= 2 and p.requires_grad]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def names_not_tensors(model, weight_decay):
    """I put the parameter names in the groups."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(name)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def data_tensors(model, weight_decay):
    """I appended p.data (I wanted plain tensors, not Parameters)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p.data)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def embeddings_not_decayed(model, weight_decay):
    """I decayed only the Linear weights (nn.Linear modules); embedding tables went to the no-decay group."""
    linear = {id(m.weight) for m in model.modules() if isinstance(m, torch.nn.Linear)}
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if id(p) in linear else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.correct
def ids_seen(model, weight_decay):
    """named_parameters(remove_duplicate=False) with a set of ids seen, groups in the other order."""
    seen, decay, no_decay = set(), [], []
    for _, p in model.named_parameters(remove_duplicate=False):
        if id(p) in seen or not p.requires_grad:
            continue
        seen.add(id(p))
        if len(p.shape) >= 2:
            decay.append(p)
        else:
            no_decay.append(p)
    return [{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": weight_decay}]


EX53 = Exercise("5.3", "accumulate")


def _pieces(batch, k):
    rows = batch["input_ids"].shape[0]
    size = rows // k
    return [{key: v[i * size:(i + 1) * size] for key, v in batch.items()} for i in range(k)]


@EX53.bug
def divide_by_k(model, batch, k):
    """I divided each micro-batch's loss by k, as the chapter's loop does."""
    model.zero_grad(set_to_none=True)
    total = 0.0
    for piece in _pieces(batch, k):
        loss = model(**piece).loss / k
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def stale_gradients(model, batch, k):
    """I did not clear the gradients first (the loop clears them after the step, I thought)."""
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def zero_grad_inside_the_loop(model, batch, k):
    """I called model.zero_grad() at the top of every micro-batch, so only the last one's gradient stays."""
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    total = 0.0
    for piece in _pieces(batch, k):
        model.zero_grad()
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def one_share_for_both_losses(model, batch, k):
    """I weighed the whole loss (MLM + NSP) by the labelled share n_i / N."""
    model.zero_grad(set_to_none=True)
    labelled = (batch["labels"] != -100).sum()
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.loss * (piece["labels"] != -100).sum() / labelled
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def returns_the_mean_of_pieces(model, batch, k):
    """I returned the average of the micro-batches' weighted losses, total / k."""
    model.zero_grad(set_to_none=True)
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    return total / k


@EX53.bug
def rows_from_len_of_the_dict(model, batch, k):
    """I took the number of rows as len(batch) (that is the number of keys)."""
    model.zero_grad(set_to_none=True)
    rows = len(batch)
    size = max(1, rows // k)
    labelled = (batch["labels"] != -100).sum()
    total = 0.0
    for i in range(k):
        piece = {key: v[i * size:(i + 1) * size] for key, v in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def labels_popped(model, batch, k):
    """I popped the labels out of batch to count them and passed them back per micro-batch."""
    model.zero_grad(set_to_none=True)
    labels = batch.pop("labels")
    labelled = (labels != -100).sum()
    rows = labels.shape[0]
    size = rows // k
    total = 0.0
    for i in range(k):
        piece = {key: v[i * size:(i + 1) * size] for key, v in batch.items()}
        piece["labels"] = labels[i * size:(i + 1) * size]
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def labelled_fraction_not_count(model, batch, k):
    """I weighed the MLM loss by the fraction of labelled positions in the piece over that of the batch."""
    model.zero_grad(set_to_none=True)
    whole = (batch["labels"] != -100).float().mean()
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).float().mean() / whole + out.nsp_loss / k
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def mlm_only_weighted_nsp_summed(model, batch, k):
    """I weighed the MLM loss by n_i / N and added the NSP loss as it is (it is already a mean, I thought)."""
    model.zero_grad(set_to_none=True)
    labelled = (batch["labels"] != -100).sum()
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def last_rows_dropped(model, batch, k):
    """I sliced micro-batches with range(0, rows - size, size), which stops one piece early."""
    model.zero_grad(set_to_none=True)
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    total = 0.0
    for start in range(0, max(rows - size, 1), size):
        piece = {key: v[start:start + size] for key, v in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.correct
def strided_rows(model, batch, k):
    """Micro-batch i holds rows i, i + k, i + 2k, ... (every row once); the loss summed as a tensor."""
    for p in model.parameters():
        p.grad = None
    N = int((batch["labels"] != -100).sum())
    B = batch["input_ids"].shape[0]
    total = torch.zeros(())
    for i in range(k):
        piece = {key: v[i::k] for key, v in batch.items()}
        out = model(**piece)
        n = int((piece["labels"] >= 0).sum())
        loss = out.mlm_loss * n / N + out.nsp_loss * piece["input_ids"].shape[0] / B
        loss.backward()
        total = total + loss.detach()
    return total


@EX53.correct
def chunks(model, batch, k):
    """torch.chunk for the pieces, the two weights computed once as lists."""
    model.zero_grad()
    keys = list(batch)
    parts = list(zip(*(torch.chunk(batch[key], k) for key in keys)))
    N = sum(int((p[keys.index("labels")] != -100).sum()) for p in parts)
    B = sum(len(p[0]) for p in parts)
    total = 0.0
    for p in parts:
        piece = dict(zip(keys, p))
        out = model(**piece)
        w_mlm = (piece["labels"] != -100).sum().item() / N
        w_nsp = len(piece["labels"]) / B
        (w_mlm * out.mlm_loss + w_nsp * out.nsp_loss).backward()
        total += w_mlm * out.mlm_loss.item() + w_nsp * out.nsp_loss.item()
    return total


# --- Batch 2: written without reading any checker, before the checkers were changed against it ---
EX52.batch = 2
EX53.batch = 2


@EX52.bug
def exactly_two_dims(model, weight_decay):
    """I decayed the matrices with p.ndim == 2, so a 3-D or 4-D parameter went to the no-decay group."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim == 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def grad_none_as_frozen(model, weight_decay):
    """I left out the frozen parameters by testing p.grad is None (no gradient means frozen, I thought)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.grad is None:
            continue
        (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def weight_decay_key_left_out(model, weight_decay):
    """I left "weight_decay" out of the second group, thinking a group without it gets none (AdamW's default is 0.01)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay}]


@EX52.bug
def by_module_type(model, weight_decay):
    """I put every LayerNorm module's parameters and every bias in the no-decay group, all the rest in the decay group."""
    seen, decay, no_decay = set(), [], []
    for module in model.modules():
        for name, p in module.named_parameters(recurse=False):
            if id(p) in seen or not p.requires_grad:
                continue
            seen.add(id(p))
            (no_decay if isinstance(module, torch.nn.LayerNorm) or name == "bias" else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.correct
def modules_walked_with_ids(model, weight_decay):
    """Each module's own parameters (recurse=False), a set of ids against ties, the shape rule as len(p.shape)."""
    seen, groups = set(), {True: [], False: []}
    for module in model.modules():
        for p in module.parameters(recurse=False):
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                groups[len(p.shape) > 1].append(p)
    return [{"params": groups[True], "weight_decay": weight_decay}, {"params": groups[False], "weight_decay": 0.0}]


@EX53.bug
def batch_labels_counted_for_each_piece(model, batch, k):
    """I counted n_i on batch["labels"] instead of the micro-batch's labels, so every MLM share came out as 1."""
    model.zero_grad(set_to_none=True)
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (batch["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def weights_swapped(model, batch, k):
    """I swapped the two weights: the MLM loss times B_i / B and the NSP loss times n_i / N."""
    model.zero_grad(set_to_none=True)
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * len(piece["labels"]) / rows + out.nsp_loss * (piece["labels"] != -100).sum() / labelled
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def zero_grad_after_the_loop(model, batch, k):
    """I cleared the gradients after the loop, to hand back a clean model, instead of before it."""
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    model.zero_grad()
    return total


@EX53.bug
def returns_the_equal_weight_mean(model, batch, k):
    """The gradients weighted right, but I returned the plain mean of the micro-batches' losses, sum(out.loss) / k."""
    model.zero_grad(set_to_none=True)
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    reported = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        reported += out.loss.item() / k
    return reported


@EX53.correct
def permuted_rows(model, batch, k):
    """Rows dealt into the k micro-batches by a fixed permutation (every row once); weights in float64."""
    for p in model.parameters():
        p.grad = None
    rows = batch["input_ids"].shape[0]
    order = torch.randperm(rows, generator=torch.Generator().manual_seed(0))
    N = int((batch["labels"] != -100).sum())
    total = 0.0
    for idx in order.view(k, -1):
        piece = {key: v.index_select(0, idx) for key, v in batch.items()}
        out = model(**piece)
        w_mlm = float(int((piece["labels"] != -100).sum())) / N
        w_nsp = len(idx) / rows
        (out.mlm_loss * w_mlm + out.nsp_loss * w_nsp).backward()
        total += w_mlm * out.mlm_loss.item() + w_nsp * out.nsp_loss.item()
    return total


# --- Batch 3: written without reading any checker, before the checkers were changed against it ---
EX52.batch = 3
EX53.batch = 3


@EX52.bug
def lr_in_each_group(model, weight_decay):
    """I also wrote BERT's learning rate, "lr": 1e-4, into each group (a group's lr overrides the one given to AdamW)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay, "lr": 1e-4},
            {"params": no_decay, "weight_decay": 0.0, "lr": 1e-4}]


@EX52.bug
def squeezed_before_counting_dims(model, weight_decay):
    """I counted the dimensions of p.squeeze(), so that a gain stored as (1, H) counts as a vector (a (1, H) table then is not decayed)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.squeeze().ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def parameters_as_float(model, weight_decay):
    """I appended p.float(), as AdamW wants float32, I thought (for a float16 or bfloat16 model those are copies)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p.float())
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def bias_in_the_name_too(model, weight_decay):
    """To be safe I also sent to the no-decay group every parameter with "bias" in its name, whatever its shape."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (no_decay if p.ndim < 2 or "bias" in name else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def one_generator_walked_twice(model, weight_decay):
    """I kept params = model.parameters() and built both lists from it (the generator is spent after the first list)."""
    params = model.parameters()
    decay = [p for p in params if p.requires_grad and p.ndim >= 2]
    no_decay = [p for p in params if p.requires_grad and p.ndim < 2]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def lists_as_default_arguments(model, weight_decay, decay=[], no_decay=[]):
    """I made the two lists default arguments, decay=[] and no_decay=[], which Python creates once: each call adds to the last one's."""
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.correct
def filtered_named_parameters(model, weight_decay):
    """named_parameters() into a list of the trainable ones, then two filter() passes on p.dim()."""
    trainable = [p for _, p in model.named_parameters() if p.requires_grad]
    matrices = list(filter(lambda p: p.dim() > 1, trainable))
    vectors = list(filter(lambda p: p.dim() <= 1, trainable))
    return [dict(params=matrices, weight_decay=weight_decay), dict(params=vectors, weight_decay=0.0)]


@EX53.bug
def labels_counted_above_zero(model, batch, k):
    """I counted the labelled positions with labels > 0 (a label can be token id 0, which I then leave out of n_i and N)."""
    model.zero_grad(set_to_none=True)
    labelled = (batch["labels"] > 0).sum()
    rows = batch["input_ids"].shape[0]
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] > 0).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def torch_split_by_k(model, batch, k):
    """I cut the micro-batches with torch.split(v, k), which makes pieces of k rows (B / k of them), not k pieces."""
    model.zero_grad(set_to_none=True)
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    keys = list(batch)
    total = 0.0
    for parts in zip(*(torch.split(batch[key], k) for key in keys)):
        piece = dict(zip(keys, parts))
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def one_backward_at_the_end(model, batch, k):
    """I added up the k weighted losses and called backward() once on the sum, after the loop (every micro-batch's graph is kept until then)."""
    model.zero_grad(set_to_none=True)
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    total = 0
    for piece in _pieces(batch, k):
        out = model(**piece)
        total = total + out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
    total.backward()
    return total.item()


@EX53.bug
def only_trainable_gradients_cleared(model, batch, k):
    """I cleared the stale gradients of the trainable parameters only (if p.requires_grad: p.grad = None); a frozen one keeps its old .grad."""
    for p in model.parameters():
        if p.requires_grad:
            p.grad = None
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def labelled_count_kept_running(model, batch, k):
    """I counted N as I went, adding each micro-batch's n_i before weighing it, so each piece is weighed by n_i / (labels seen so far)."""
    model.zero_grad(set_to_none=True)
    rows = batch["input_ids"].shape[0]
    seen = 0
    total = 0.0
    for piece in _pieces(batch, k):
        n = int((piece["labels"] != -100).sum())
        seen += n
        out = model(**piece)
        loss = out.mlm_loss * n / seen + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def model_given_only_what_the_losses_need(model, batch, k):
    """I passed each micro-batch's input_ids, labels and next_sentence_label only (attention_mask and token_type_ids have defaults, I thought)."""
    model.zero_grad(set_to_none=True)
    labelled = (batch["labels"] != -100).sum()
    rows = batch["input_ids"].shape[0]
    total = 0.0
    for piece in _pieces(batch, k):
        out = model(input_ids=piece["input_ids"], labels=piece["labels"], next_sentence_label=piece["next_sentence_label"])
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.correct
def index_tensor_split(model, batch, k):
    """Row indices cut by tensor_split; each loss written as (mlm · n_i + nsp · B_i · N / B) / N; a 0-d tensor returned."""
    for p in model.parameters():
        p.grad = None
    N = int(batch["labels"].ne(-100).sum())
    B = len(batch["next_sentence_label"])
    total = 0.0
    for idx in torch.arange(B).tensor_split(k):
        piece = {key: value[idx] for key, value in batch.items()}
        out = model(**piece)
        n = int(piece["labels"].ne(-100).sum())
        loss = (out.mlm_loss * n + out.nsp_loss * len(idx) * N / B) / N
        loss.backward()
        total += loss.item()
    return torch.tensor(total)


# --- batch 4: written without reading any checker ------------------------------------------
EX52.batch = 4
EX53.batch = 4


@EX52.bug
def scalars_in_neither_group(model, weight_decay):
    """I wrote p.ndim >= 2 for the decayed group and p.ndim == 1 for the other, so a 0-d parameter (a learned scalar) is in neither.
    Differs on: a module holding a Linear and torch.nn.Parameter(torch.tensor(1.0)) (the scalar is left out)."""
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.requires_grad and p.ndim == 1]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def len_for_the_dimensions(model, weight_decay):
    """I tested len(p) > 1 for a matrix, which is the size of the first axis: biases and LayerNorm gains of size > 1 are decayed, a (1, H) matrix is not.
    Differs on: torch.nn.Linear(3, 2) (its bias (2,) is decayed); a 0-d parameter raises TypeError."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if len(p) > 1 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def parameters_of_the_children(model, weight_decay):
    """I walked model.children() and took each child's parameters(), which misses the parameters set on the model itself (and lists a weight tied across two children twice).
    Differs on: torch.nn.Linear(3, 2) itself (no children: both groups empty); a module with a Parameter of its own beside a Linear child."""
    decay, no_decay = [], []
    for child in model.children():
        for p in child.parameters():
            if p.requires_grad:
                (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def groups_as_sets(model, weight_decay):
    """I collected each group in a set, to keep a tied weight once; AdamW refuses sets (parameters must be an ordered collection).
    Differs on: any model: torch.optim.AdamW(groups) raises TypeError."""
    decay, no_decay = set(), set()
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).add(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def decided_by_the_module_weight(model, weight_decay):
    """I decided per module: every parameter of a module whose weight is a matrix is decayed, so the biases of the Linear layers are decayed too.
    Differs on: torch.nn.Linear(3, 2) (its bias is in the decayed group)."""
    seen, decay, no_decay = set(), [], []
    for module in model.modules():
        weight = getattr(module, "weight", None)
        matrix = isinstance(weight, torch.Tensor) and weight.ndim >= 2
        for p in module.parameters(recurse=False):
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                (decay if matrix else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def no_decay_group_given_none(model, weight_decay):
    """I gave the second group "weight_decay": None, meaning no decay; AdamW builds fine but its step fails on None.
    Differs on: any model with a 1-D parameter: the group's weight_decay is None, not 0.0 (AdamW(...).step() raises TypeError)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": None}]


@EX52.correct
def ordered_dict_of_parameters(model, weight_decay):
    """Tied tensors dropped with dict.fromkeys over named_parameters(remove_duplicate=False) (tensors hash by identity); the two groups by p.dim()."""
    unique = dict.fromkeys(p for _, p in model.named_parameters(remove_duplicate=False) if p.requires_grad)
    decay = [p for p in unique if p.dim() >= 2]
    no_decay = [p for p in unique if p.dim() < 2]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX53.bug
def nsp_share_floor_divided(model, batch, k):
    """I wrote the NSP share as size // rows, like the rows // k just above it, which is 0 for k > 1: the NSP loss drops out of the gradient and the total.
    Differs on: any batch with k = 2 (right only for k = 1)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * (size // rows)
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def positions_counted_not_labels(model, batch, k):
    """I took N as batch["labels"].numel(), every position of the batch, instead of its labelled positions, so the MLM part is scaled down by N / (B·T).
    Differs on: any batch where not every position is labelled (e.g. 4 rows of 10, 1 or 6 labels per row, k = 2)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    N = batch["labels"].numel()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / N + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def pieces_stepped_by_k(model, batch, k):
    """I stepped through the rows with range(0, rows, k) and took size = rows // k rows from each start, mixing up the step and the size: unless B = k², pieces overlap or rows are left out.
    Differs on: B = 6, k = 2 (three pieces, rows 0:3, 2:5, 4:6; rows 2 and 4 counted twice)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for start in range(0, rows, k):
        piece = {key: value[start:start + size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * len(piece["labels"]) / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def returned_the_last_loss(model, batch, k):
    """I returned loss.item(), the last micro-batch's weighted loss, instead of the running total (the gradients are right).
    Differs on: any batch with k = 2 (right only for k = 1)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return loss.item()


@EX53.bug
def labelled_counted_from_the_attention_mask(model, batch, k):
    """I counted each micro-batch's n_i, and N, as its real tokens, attention_mask.sum(), not as its labelled positions.
    Differs on: 4 rows of 10 real tokens with 1, 6, 6, 6 labels, k = 2 (weights 1/2 and 1/2, not 7/19 and 12/19)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    N = batch["attention_mask"].sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * piece["attention_mask"].sum() / N + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def backward_on_the_unweighted_loss(model, batch, k):
    """I added the weighted losses up for the total but called out.loss.backward(), on the micro-batch's own, unweighted loss (the gradient is a sum of k means).
    Differs on: any batch with k = 2: every gradient (the returned loss is right)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows
        out.loss.backward()
        total += loss.item()
    return total


@EX53.correct
def label_counts_up_front(model, batch, k):
    """Every micro-batch's labelled count from one reshape of the labels, before the loop; the NSP share 1/k (equal pieces); stale gradients zeroed in place."""
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
    B = batch["labels"].shape[0]
    size = B // k
    counts = (batch["labels"] != -100).reshape(k, size, -1).sum(dim=(1, 2))  # n_i of each micro-batch
    N = counts.sum()
    total = 0.0
    for i, n in enumerate(counts):
        out = model(**{key: value[i * size:(i + 1) * size] for key, value in batch.items()})
        loss = out.mlm_loss * (n / N) + out.nsp_loss / k
        loss.backward()
        total += loss.item()
    return total


# --- batch 5: written without reading any checker ------------------------------------------
EX52.batch = 5
EX53.batch = 5


@EX52.bug
def tied_weights_skipped_with_in(model, weight_decay):
    """To put a tied weight in once, I kept a list of the parameters seen and skipped p when p in seen (`in` compares tensors with ==, not by identity).
    Differs on: torch.nn.Linear(3, 2): testing its bias (2,) against the weight (2, 3) raises RuntimeError (the solution returns the two groups)."""
    seen, decay, no_decay = [], [], []
    for p in model.parameters():
        if not p.requires_grad or p in seen:
            continue
        seen.append(p)
        (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def decay_given_to_the_vectors(model, weight_decay):
    """I mixed up my two lists when writing the groups: the 1-D parameters got weight_decay and the matrices 0.0.
    Differs on: torch.nn.Linear(3, 2) with weight_decay=0.01: the weight (2, 3) is in the group with 0.0, the bias in the one with 0.01."""
    matrices, vectors = [], []
    for p in model.parameters():
        if p.requires_grad:
            (matrices if p.ndim >= 2 else vectors).append(p)
    return [{"params": vectors, "weight_decay": weight_decay}, {"params": matrices, "weight_decay": 0.0}]


@EX52.bug
def vectors_only_kept_from_decay(model, weight_decay):
    """I sent the vectors (p.ndim == 1) to the no-decay group and everything else to the decay group, so a 0-d learned scalar is decayed.
    Differs on: torch.nn.ParameterDict({"w": Parameter(torch.ones(2, 3)), "s": Parameter(torch.tensor(1.0))}): the scalar is in the decayed group (the solution: not decayed)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (no_decay if p.ndim == 1 else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def ties_found_by_value(model, weight_decay):
    """To put a tied weight in once, I skipped a parameter equal (torch.equal) to one already taken, so two LayerNorms still at their initial values count as one.
    Differs on: torch.nn.Sequential(torch.nn.LayerNorm(3), torch.nn.LayerNorm(3)): the no-decay group holds 2 tensors instead of 4."""
    taken, decay, no_decay = [], [], []
    for p in model.parameters():
        if not p.requires_grad:
            continue
        if any(q.shape == p.shape and torch.equal(q, p) for q in taken):
            continue
        taken.append(p)
        (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def frozen_put_in_the_no_decay_group(model, weight_decay):
    """I put the frozen parameters in the no-decay group, where nothing pulls them towards 0 (a frozen matrix does not move, I thought, if it is not decayed).
    Differs on: torch.nn.Linear(3, 2) with its weight frozen: the weight is in the no-decay group (the solution leaves it out)."""
    decay, no_decay = [], []
    for p in model.parameters():
        (decay if p.requires_grad and p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def state_dict_with_keep_vars(model, weight_decay):
    """I read the parameters from model.state_dict(keep_vars=True) (the real Parameters, not detached copies), but a state dict lists a tied weight under each of its names.
    Differs on: a Sequential(Linear(3, 3), Linear(3, 3)) with the second weight tied to the first: the decay group holds that weight twice (2 entries instead of 1)."""
    decay, no_decay = [], []
    for t in model.state_dict(keep_vars=True).values():
        if isinstance(t, torch.nn.Parameter) and t.requires_grad:
            (decay if t.ndim >= 2 else no_decay).append(t)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.correct
def compressed_by_a_mask(model, weight_decay):
    """The trainable parameters in a tuple, a list of booleans (is it a matrix?), and itertools.compress for each group."""
    import itertools
    trainable = tuple(p for p in model.parameters() if p.requires_grad)
    is_matrix = [len(p.size()) > 1 for p in trainable]
    return [{"params": list(itertools.compress(trainable, is_matrix)), "weight_decay": weight_decay},
            {"params": list(itertools.compress(trainable, [not m for m in is_matrix])), "weight_decay": 0.0}]


@EX53.bug
def model_switched_to_train_mode(model, batch, k):
    """I called model.train() first, since gradients are computed in training (dropout then runs on a model handed over in eval mode, and it is left in training mode).
    Differs on: a BertForPreTraining with hidden_dropout_prob=0.1 put in eval mode: the returned loss and the gradients differ, and model.training is True afterwards."""
    model.train()
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def stale_gradients_zeroed_in_place(model, batch, k):
    """I cleared the stale gradients with p.grad.zero_() for every parameter, forgetting that a parameter that never had a gradient has p.grad None.
    Differs on: a freshly built model (every .grad None): AttributeError, where the solution accumulates the gradient."""
    for p in model.parameters():
        p.grad.zero_()
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def loss_rebuilt_from_numbers(model, batch, k):
    """I weighed the losses as numbers (.item()) and, when backward() said the result has no grad_fn, made it a tensor with requires_grad=True: no gradient reaches the model.
    Differs on: any batch, e.g. 4 rows of 10 with 1, 6, 6, 6 labels and k = 2: every .grad stays None (the returned loss is right)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = int((batch["labels"] != -100).sum())
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        n = int((piece["labels"] != -100).sum())
        value = out.mlm_loss.item() * n / labelled + out.nsp_loss.item() * size / rows
        loss = torch.tensor(value, requires_grad=True)
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def shares_then_divided_by_k(model, batch, k):
    """I weighed each micro-batch's losses by n_i / N and B_i / B, and then also divided by k, as the chapter's loop does for accumulation.
    Differs on: any batch with k = 2: the gradients and the returned loss are half the solution's (right only for k = 1)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = (out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows) / k
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def only_the_encoder_cleared(model, batch, k):
    """I cleared the stale gradients with model.bert.zero_grad(), the encoder, so the MLM head's and the NSP head's old gradients stay and are added to.
    Differs on: any batch after model.nsp.weight.grad (and model.mlm's) is filled with ones: those gradients are off by the stale values."""
    model.bert.zero_grad(set_to_none=True)
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def labelled_counted_with_count_nonzero(model, batch, k):
    """I counted the labelled positions with labels.count_nonzero(), as if the unlabelled ones held 0 (they hold -100, which counts too).
    Differs on: 4 rows of 10 with 1, 6, 6, 6 labels, k = 2: MLM weights 1/2 and 1/2 instead of 7/19 and 12/19."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = batch["labels"].count_nonzero()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * piece["labels"].count_nonzero() / labelled + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.correct
def unflattened_rows(model, batch, k):
    """Every tensor reshaped to (k, B / k, ...) with unflatten and micro-batch i read as [i]; the loss written as (mlm · n_i + nsp · N / k) / N; a list of the pieces' losses summed."""
    model.zero_grad()
    pieces = {key: value.unflatten(0, (k, -1)) for key, value in batch.items()}
    N = float((batch["labels"] != -100).sum())
    losses = []
    for i in range(k):
        out = model(**{key: value[i] for key, value in pieces.items()})
        n = float((pieces["labels"][i] != -100).sum())
        loss = (out.mlm_loss * n + out.nsp_loss * N / k) / N
        loss.backward()
        losses.append(loss.item())
    return sum(losses)


# --- batch 6: written without reading any checker ------------------------------------------
EX5_1 = Exercise("5.1", "learning_rate")
EX5_1.batch = 6


@EX5_1.bug
def warmup_multiplies_the_decay(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I multiplied the decayed rate by the warm-up factor min(1, step / warmup_steps), as one schedule times the other, instead of replacing it during the warm-up.
    Differs on: step 200, peak 1e-3, 400 warm-up steps of 8,000: 4.875e-4 (= 0.5 * 9.75e-4) instead of 5e-4."""
    done = min(step, total_steps) / total_steps
    decayed = (peak_lr - end_lr) * (1 - done) ** power + end_lr
    if warmup_steps == 0:
        return decayed
    return min(1.0, step / warmup_steps) * decayed


@EX5_1.bug
def power_on_the_progress(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I half-remembered the polynomial decay as (peak - end) * (1 - done ** power) + end, with the power on the progress instead of on what is left.
    Differs on: power 2, no warm-up, peak 1e-4, 100 steps, step 50: 7.5e-5 instead of 2.5e-5 (power 1 is unaffected)."""
    if step < warmup_steps:
        return peak_lr * step / warmup_steps
    done = min(step, total_steps) / total_steps
    return (peak_lr - end_lr) * (1 - done ** power) + end_lr


@EX5_1.bug
def zero_once_training_is_over(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I returned 0.0 for any step past total_steps ("training is over"), forgetting that the rate stays at end_lr there.
    Differs on: end_lr 1e-6, peak 1e-4, no warm-up, 100 steps, step 101: 0.0 instead of 1e-6 (step 100 itself gives 1e-6, right)."""
    if step > total_steps:
        return 0.0
    if warmup_steps > 0 and step < warmup_steps:
        return peak_lr * step / warmup_steps
    return (peak_lr - end_lr) * (1 - step / total_steps) ** power + end_lr


@EX5_1.bug
def warmup_counts_the_current_step(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I ramped with (step + 1) / warmup_steps, so that step 0 already trains, as some training loops do.
    Differs on: step 0, peak 1e-3, 400 warm-up steps of 8,000: 2.5e-6 instead of 0 (and step 200: 5.025e-4 instead of 5e-4)."""
    if warmup_steps and step < warmup_steps:
        return peak_lr * (step + 1) / warmup_steps
    done = min(step, total_steps) / total_steps
    return (peak_lr - end_lr) * (1 - done) ** power + end_lr


@EX5_1.correct
def numpy_clip_then_select(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """numpy: the remaining fraction clipped to [0, 1], the decay computed first, np.where choosing the ramp during the warm-up."""
    left = np.clip(1.0 - np.float64(step) / total_steps, 0.0, 1.0)
    decay = (peak_lr - end_lr) * left ** power + end_lr
    ramp = peak_lr * np.float64(step) / max(warmup_steps, 1)
    return np.float64(np.where(step < warmup_steps, ramp, decay))


# --- batch 6: written without reading any checker ------------------------------------------
EX52.batch = 6


@EX52.bug
def empty_group_left_out(model, weight_decay):
    """I returned only the groups that hold something, thinking AdamW chokes on a group with no parameters, so a model without any matrix gets one group.
    Differs on: torch.nn.LayerNorm(3): one group [{"params": [weight, bias], "weight_decay": 0.0}] instead of the two groups, the decayed one empty."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return [group for group in groups if group["params"]]


@EX52.bug
def matrices_must_also_be_named_weight(model, weight_decay):
    """I decayed a parameter when it has 2 or more dimensions and its name ends in "weight" (to be sure it is a layer's weight), so a matrix with another name is not decayed.
    Differs on: a module with a Linear(3, 2) and a Parameter(torch.randn(4, 3)) named "table": the table goes to the no-decay group (the solution decays it)."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if p.ndim >= 2 and name.endswith("weight"):
            decay.append(p)
        else:
            no_decay.append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def frozen_decided_per_module(model, weight_decay):
    """I walked the modules and skipped every module whose weight is frozen, so when only the weights are frozen (BitFit: train the biases alone) the trainable biases are left out too.
    Differs on: torch.nn.Linear(3, 2) with weight.requires_grad_(False): both groups empty (the solution puts the bias in the no-decay group)."""
    decay, no_decay, seen = [], [], set()
    for module in model.modules():
        weight = getattr(module, "weight", None)
        if isinstance(weight, torch.Tensor) and not weight.requires_grad:
            continue  # a frozen layer
        for p in module.parameters(recurse=False):
            if id(p) in seen or not p.requires_grad:
                continue
            seen.add(id(p))
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def recurse_false_against_ties(model, weight_decay):
    """I called model.parameters(recurse=False), having read that it stops parameters from being listed more than once; it lists only the model's own parameters, none of its submodules'.
    Differs on: torch.nn.Sequential(torch.nn.Linear(3, 2)): both groups empty (the solution: the weight decayed, the bias not)."""
    decay, no_decay = [], []
    for p in model.parameters(recurse=False):
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.correct
def partitioned_with_tee_and_filterfalse(model, weight_decay):
    """functools-style: the trainable parameters taken once by identity from named_parameters(remove_duplicate=False), split with itertools.tee, filter and filterfalse on len(p.size())."""
    unique = {}
    for _, p in model.named_parameters(remove_duplicate=False):
        if p.requires_grad:
            unique.setdefault(id(p), p)
    first, second = itertools.tee(unique.values())
    is_matrix = lambda p: len(p.size()) > 1  # noqa: E731
    return [{"params": list(filter(is_matrix, first)), "weight_decay": weight_decay},
            {"params": list(itertools.filterfalse(is_matrix, second)), "weight_decay": 0.0}]


# --- batch 6: written without reading any checker ------------------------------------------
EX53.batch = 6


@EX53.bug
def nsp_share_from_notnext_counts(model, batch, k):
    """I weighed the NSP loss like the MLM loss, by counting from its labels: the micro-batch's next_sentence_label.sum() over the batch's, which counts the NotNext pairs, not the rows.
    Differs on: the chapter's 4 rows of 10 (1, 6, 6, 6 labels) with next_sentence_label [1, 1, 0, 1], k = 2: NSP weights 2/3 and 1/3 instead of 1/2 and 1/2 (and all-IsNext labels give 0 / 0 = NaN)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    N = (batch["labels"] != -100).sum()
    not_next = batch["next_sentence_label"].sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for start in range(0, rows, size):
        piece = {name: t[start:start + size] for name, t in batch.items()}
        out = model(**piece)
        loss = (out.mlm_loss * (piece["labels"] != -100).sum() / N
                + out.nsp_loss * piece["next_sentence_label"].sum() / not_next)
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def sums_divided_by_n_at_the_end(model, batch, k):
    """I turned each mean back into a sum (mlm_loss · n_i and nsp_loss · B_i), accumulated those, and divided every gradient and the total by N once after the loop, so the NSP part is divided by N instead of B.
    Differs on: the chapter's 4 rows of 10 (1, 6, 6, 6 labels, N = 19, B = 4), k = 2: the NSP part of the loss and of the gradients is 4/19 of the right one."""
    B = batch["input_ids"].shape[0]
    size = B // k
    N = int((batch["labels"] != -100).sum())
    for p in model.parameters():
        p.grad = None
    total = 0.0
    for i in range(k):
        rows = slice(i * size, (i + 1) * size)
        out = model(**{name: t[rows] for name, t in batch.items()})
        n_i = int((batch["labels"][rows] != -100).sum())
        summed = out.mlm_loss * n_i + out.nsp_loss * size
        summed.backward()
        total += summed.item()
    for p in model.parameters():
        if p.grad is not None:
            p.grad /= N
    return total / N


@EX53.bug
def single_piece_taken_as_is(model, batch, k):
    """For k = 1 there is nothing to accumulate, so I returned model(**batch).loss after one backward(); I cleared the stale gradients only in the branch that loops over micro-batches.
    Differs on: k = 1 with every .grad first filled with ones: the gradients come out as the batch's gradient plus 1 (right for k > 1)."""
    if k == 1:
        loss = model(**batch).loss
        loss.backward()
        return loss.item()
    model.zero_grad(set_to_none=True)
    B = batch["input_ids"].shape[0]
    size = B // k
    N = (batch["labels"] != -100).sum()
    total = 0.0
    for i in range(k):
        piece = {name: t[i * size:(i + 1) * size] for name, t in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / N + out.nsp_loss * size / B
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def row_i_labels_for_piece_i(model, batch, k):
    """I counted micro-batch i's labelled positions as (batch["labels"][i] != -100).sum(), indexing the batch by the piece number, which is row i, not the piece's rows.
    Differs on: the chapter's 4 rows of 10 with 1, 6, 6, 6 labels, k = 2: MLM weights 1/19 and 6/19 instead of 7/19 and 12/19 (right only when each piece is one row, k = B)."""
    B = batch["input_ids"].shape[0]
    size = B // k
    N = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {name: t[i * size:(i + 1) * size] for name, t in batch.items()}
        n_i = (batch["labels"][i] != -100).sum()
        out = model(**piece)
        loss = out.mlm_loss * n_i / N + out.nsp_loss * size / B
        loss.backward()
        total += loss.item()
    return total


@EX53.correct
def sums_recomputed_from_the_logits(model, batch, k):
    """Each micro-batch's losses recomputed as sums from out.mlm_logits and out.nsp_logits (reduction="sum") and divided by the whole batch's N and B; pieces from torch.chunk."""
    B = len(batch["next_sentence_label"])
    N = int((batch["labels"] != -100).sum())
    for p in model.parameters():
        p.grad = None
    pieces = zip(*(torch.chunk(t, k) for t in batch.values()))
    total = 0.0
    for values in pieces:
        piece = dict(zip(batch.keys(), values))
        out = model(**piece)
        labels = piece["labels"]
        mlm_sum = F.cross_entropy(out.mlm_logits.float(), labels[labels != -100], reduction="sum")
        nsp_sum = F.cross_entropy(out.nsp_logits.float(), piece["next_sentence_label"], reduction="sum")
        loss = mlm_sum / N + nsp_sum / B
        loss.backward()
        total += loss.item()
    return total


# --- batch 6: written without reading any checker ------------------------------------------
EX5_4 = Exercise("5.4", "clip_grad_norm")
EX5_4.batch = 6


@EX5_4.bug
def parameters_walked_twice(parameters, max_norm):
    """I summed the squares in a first loop over parameters and scaled in a second loop over parameters; given model.parameters(), a generator, the second loop finds nothing, so nothing is clipped.
    Differs on: a Linear(3, 2) whose grads are all 10, passed as model.parameters() with max_norm=1: the grads stay 10 (the solution scales them to norm 1); right when given a list."""
    total = 0.0
    for p in parameters:
        if p.grad is not None:
            total += p.grad.double().pow(2).sum().item()
    norm = math.sqrt(total)
    if norm > max_norm:
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(max_norm / norm)
    return norm


@EX5_4.bug
def squared_norm_against_max_norm(parameters, max_norm):
    """To save a square root I compared the sum of squares with max_norm (it should be max_norm²), and took the root only for the factor and the return value.
    Differs on: one gradient [1.2, 0.9] (norm 1.5) with max_norm=2: it is scaled up by 2/1.5 to norm 2, where the solution leaves it as it is (right for max_norm=1)."""
    grads = [p.grad for p in parameters if p.grad is not None]
    squares = sum(float(torch.sum(g.double() * g.double())) for g in grads)
    if squares > max_norm:
        factor = max_norm / math.sqrt(squares)
        for g in grads:
            g.mul_(factor)
    return math.sqrt(squares)


@EX5_4.bug
def factor_computed_before_the_test(parameters, max_norm):
    """I computed the clip factor min(1, max_norm / norm) first and multiplied every gradient by it, which divides by zero when every gradient is 0 (or none has a gradient).
    Differs on: a Linear(3, 2) with zero gradients (or with p.grad None everywhere): ZeroDivisionError, where the solution returns 0.0."""
    grads = [p.grad for p in parameters if p.grad is not None]
    norm = math.sqrt(sum(g.double().square().sum().item() for g in grads))
    factor = min(1.0, max_norm / norm)
    for g in grads:
        g.mul_(factor)
    return norm


@EX5_4.bug
def one_long_vector_in_the_gradients_dtype(parameters, max_norm):
    """I concatenated the gradients into one long vector and took its .norm(), in the gradients' own dtype; in float16 a norm above 65504 comes back as inf, and the factor max_norm / inf zeroes every gradient.
    Differs on: a float16 parameter of 5000 elements whose gradient is all 1000.0 (norm 70711), max_norm=1: returns inf and the gradient becomes 0, where the solution returns 70710.7 and scales it to norm 1."""
    params = [p for p in parameters if p.grad is not None]
    if not params:
        return 0.0
    flat = torch.cat([p.grad.reshape(-1) for p in params])
    norm = flat.norm().item()
    if norm > max_norm:
        for p in params:
            p.grad.mul_(max_norm / norm)
    return norm


@EX5_4.correct
def norm_of_the_norms_with_a_clamped_factor(parameters, max_norm):
    """Per-tensor norms in float64 stacked and normed again (torch.linalg.vector_norm); every gradient multiplied by the factor clamped at 1, max_norm / (norm + 1e-6) as torch does."""
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return 0.0
    norms = torch.stack([torch.linalg.vector_norm(g.detach().to(torch.float64)) for g in grads])
    norm = torch.linalg.vector_norm(norms)
    factor = torch.clamp(max_norm / (norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(factor.to(g.dtype))
    return norm.item()


# --- batch 6: written without reading any checker ------------------------------------------
EX5_5 = Exercise("5.5", "pretraining_step")
EX5_5.batch = 6


@EX5_5.bug
def scheduler_stepped_before_the_optimizer(model, batch, optimizer, scheduler, max_grad_norm):
    """I advanced the schedule first, so that the step I take is counted, then called optimizer.step(): every update uses the next step's learning rate (the first one not 0 but the rate of step 1).
    Differs on: a small BERT with minibert's build_optimizer(lr=1e-3, warmup_steps=2, total_steps=10), two steps: the first update moves the weights (the solution's, at rate 0, does not) and the second step's losses differ."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    labels = batch["labels"]
    selected = labels != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    mlm_loss = F.cross_entropy(logits, labels[selected])
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    scheduler.step()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def nsp_read_from_the_cls_hidden_state(model, batch, optimizer, scheduler, max_grad_norm):
    """I gave the NSP head the [CLS] token's hidden state, out.last_hidden_state[:, 0], since the pooler's output is "the [CLS] representation" (it is that state through the pooler's dense layer and tanh).
    Differs on: any batch, e.g. a small BERT (H = 16, 2 layers, V = 40), 4 rows of 10: the NSP loss differs from the first step, and the pooler never gets a gradient."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    h = out.last_hidden_state
    where = batch["labels"] != -100
    logits = model.mlm(h[where], model.bert.embeddings.word_embeddings.weight)
    mlm_loss = F.cross_entropy(logits, batch["labels"][where])
    nsp_loss = F.cross_entropy(model.nsp(h[:, 0]), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def decoder_matrix_passed_as_data(model, batch, optimizer, scheduler, max_grad_norm):
    """I handed the MLM head the word-embedding table as word_embeddings.weight.data (a plain tensor, as I thought F.linear wanted), which cuts the tied decoder out of the graph: the table gets no gradient through the output layer.
    Differs on: a small BERT with build_optimizer(lr=1e-3, warmup_steps=0, total_steps=10): after one step the word embeddings (and so the second step's losses) differ; the first step's losses agree."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    decoder = model.bert.embeddings.word_embeddings.weight.data
    selected = batch["labels"].ne(-100)
    logits = model.mlm(out.last_hidden_state[selected], decoder)
    mlm_loss = F.cross_entropy(logits, batch["labels"][selected])
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    loss = mlm_loss + nsp_loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def clipped_after_the_step(model, batch, optimizer, scheduler, max_grad_norm):
    """I wrote the optimizer's step right after backward() and clipped afterwards, before clearing: the update uses the unclipped gradients, and the clip acts on gradients about to be thrown away.
    Differs on: a small BERT with build_optimizer(lr=1e-3, warmup_steps=0, total_steps=10), max_grad_norm=0.1 (the gradient's norm is above it), two steps: the weights after the second step differ by up to 1e-3, while the losses agree to about 1e-5 (Adam's first update hardly depends on the gradient's scale)."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    mlm_loss = F.cross_entropy(logits, batch["labels"][selected])
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    optimizer.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.correct
def every_position_decoded_with_ignore_index(model, batch, optimizer, scheduler, max_grad_norm):
    """The decoder run on all B·T positions and the MLM loss a cross-entropy over the flattened (B·T, V) logits with ignore_index=-100 (the same mean over the N labelled positions); the NSP loss in float32."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    table = model.bert.embeddings.word_embeddings.weight
    logits = model.mlm(out.last_hidden_state, table)  # (B, T, V)
    mlm_loss = F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100)
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output).float(), batch["next_sentence_label"])
    total = mlm_loss + nsp_loss
    total.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return float(mlm_loss.detach()), float(nsp_loss.detach())


# --- batch 7: written without reading any checker ------------------------------------------
EX5_1.batch = 7


@EX5_1.bug
def end_lr_added_on_top(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I wrote the decay as peak_lr * (1 - done) ** power + end_lr, adding the end rate without taking it off the peak first, so the schedule starts at peak_lr + end_lr (it still ends at end_lr).
    Differs on: end_lr 1e-6, peak 1e-4, no warm-up, 100 steps, step 0: 1.01e-4 instead of 1e-4 (step 50: 5.1e-5 instead of 5.05e-5; step 100 gives 1e-6, right)."""
    if warmup_steps and step < warmup_steps:
        return peak_lr * step / warmup_steps
    done = min(step, total_steps) / total_steps
    return peak_lr * (1 - done) ** power + end_lr


@EX5_1.bug
def warmup_includes_its_last_step(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I ramped while step <= warmup_steps, so the warm-up's last step is taken at the full peak instead of the decayed rate, and with no warm-up step 0 divides by zero.
    Differs on: the tiny recipe (peak 1e-3, 400 warm-up steps of 8,000), step 400: 1e-3 instead of 9.5e-4; and warmup_steps 0, step 0: ZeroDivisionError instead of peak_lr."""
    if step <= warmup_steps:
        return peak_lr * step / warmup_steps
    progress = min(step, total_steps) / total_steps
    return (peak_lr - end_lr) * (1 - progress) ** power + end_lr


@EX5_1.bug
def power_applied_to_the_warmup_too(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I thought the power shapes the whole schedule, so I ramped up as peak_lr * (step / warmup_steps) ** power: a curved warm-up whenever power is not 1.
    Differs on: power 2, peak 1e-4, 100 warm-up steps of 1,000, step 50: 2.5e-5 instead of 5e-5 (power 1 is unaffected)."""
    if warmup_steps > 0 and step < warmup_steps:
        return peak_lr * (step / warmup_steps) ** power
    done = min(step, total_steps) / total_steps
    return (peak_lr - end_lr) * (1 - done) ** power + end_lr


@EX5_1.bug
def decay_not_held_after_the_end(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I wrote the decay as (peak_lr - end_lr) * (1 - step / total_steps) ** power + end_lr and forgot the min(step, total_steps), so past total_steps the line keeps going below end_lr (and a fractional power gives a complex number).
    Differs on: the tiny recipe (peak 1e-3, 400 warm-up steps of 8,000), step 9,000: -1.25e-4 instead of 0 (step 8,000 gives 0, right)."""
    if warmup_steps and step < warmup_steps:
        return peak_lr * step / warmup_steps
    return (peak_lr - end_lr) * (1 - step / total_steps) ** power + end_lr


@EX5_1.correct
def torch_float64_tensor_with_where(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """torch, in float64: what is left of the decay clamped at 0, both branches computed and torch.where choosing; a 0-d tensor returned."""
    s = torch.tensor(float(step), dtype=torch.float64)
    left = torch.clamp(1.0 - s / total_steps, min=0.0)
    decay = (peak_lr - end_lr) * left ** power + end_lr
    ramp = peak_lr * s / max(warmup_steps, 1)
    return torch.where(s < warmup_steps, ramp, decay)


# --- batch 7: written without reading any checker ------------------------------------------
EX52.batch = 7


@EX52.bug
def stopped_at_the_first_frozen_parameter(model, weight_decay):
    """I wrote break instead of continue for a frozen parameter, so the walk stops at the first frozen one and every parameter after it, trainable or not, is left out.
    Differs on: nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 2)) with the first Linear frozen: two empty groups instead of [second weight] and [second bias]."""
    decay, no_decay = [], []
    for p in model.parameters():
        if not p.requires_grad:
            break
        if p.ndim >= 2:
            decay.append(p)
        else:
            no_decay.append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def standard_layers_only(model, weight_decay):
    """I walked the model's layers, Linear, Embedding and LayerNorm, and sorted their parameters by shape (a set of ids against ties), so a parameter that belongs to no such layer, like the MLM head's own bias or a bare nn.Parameter on a custom module, is in neither group.
    Differs on: a BertForPreTraining (vocab 40, hidden 16): its mlm.bias (40,) is missing from the no-decay group; also a module holding nn.Linear(3, 2) and a 1-D gain `scale`: `scale` is left out."""
    seen, decay, no_decay = set(), [], []
    for module in model.modules():
        if not isinstance(module, (nn.Linear, nn.Embedding, nn.LayerNorm)):
            continue
        for p in module.parameters(recurse=False):
            if not p.requires_grad or id(p) in seen:
                continue
            seen.add(id(p))
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def vector_told_by_its_first_axis(model, weight_decay):
    """I called a parameter a vector when its first axis holds all its elements (p.shape[0] == p.numel()), which raises IndexError on a 0-d learned scalar and sends an (H, 1) matrix to the no-decay group.
    Differs on: a module with nn.Linear(3, 2) and a learned scalar nn.Parameter(torch.tensor(1.0)): IndexError (the solution puts the scalar in the no-decay group); and nn.Linear(1, 4), weight (4, 1): not decayed."""
    decay, no_decay = [], []
    for _, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if p.shape[0] == p.numel():
            no_decay.append(p)
        else:
            decay.append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def decay_defaulted_with_or(model, weight_decay):
    """I wrote weight_decay = weight_decay or 0.01 to fall back on BERT's value when none is given, so an explicit weight_decay=0.0 (no decay at all) becomes 0.01.
    Differs on: nn.Linear(3, 2) with weight_decay=0.0: the first group's weight_decay is 0.01 instead of 0.0."""
    weight_decay = weight_decay or 0.01
    matrices = [p for p in model.parameters() if p.requires_grad and p.dim() >= 2]
    others = [p for p in model.parameters() if p.requires_grad and p.dim() < 2]
    return [{"params": matrices, "weight_decay": weight_decay}, {"params": others, "weight_decay": 0.0}]


@EX52.correct
def recursive_walk_of_own_parameters(model, weight_decay):
    """A recursive walk over each module's own _parameters dict, then its children, with a set of ids against ties; matrices told by p.dim() > 1."""
    seen = set()
    groups = ([], [])

    def visit(module):
        for p in module._parameters.values():
            if p is None or not p.requires_grad or id(p) in seen:
                continue
            seen.add(id(p))
            groups[0 if p.dim() > 1 else 1].append(p)
        for child in module.children():
            visit(child)

    visit(model)
    return [{"params": groups[0], "weight_decay": weight_decay}, {"params": groups[1], "weight_decay": 0.0}]


# --- batch 7: written without reading any checker ------------------------------------------
EX53.batch = 7


@EX53.bug
def only_replaced_positions_counted(model, batch, k):
    """I counted a micro-batch's labelled positions as those whose input token differs from its label (the ones the masking replaced), forgetting that BERT leaves 10% of the chosen tokens unchanged and those are labelled too.
    Differs on: the chapter's tiny BERT, 4 rows of 10 with 1, 6, 6, 6 labels where the labelled inputs are [MASK] (id 4) except one kept token in row 1, k = 2: MLM weights 6/18 and 12/18 instead of 7/19 and 12/19 (and on the chapter's own batch, whose labels equal the inputs, 0 / 0 = NaN)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    replaced = (batch["labels"] != -100) & (batch["labels"] != batch["input_ids"])
    N = replaced.sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        n_i = replaced[i * size:(i + 1) * size].sum()
        loss = out.mlm_loss * n_i / N + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def model_unfrozen_to_be_sure(model, batch, k):
    """I called model.requires_grad_(True) first, to be sure backward() reaches every parameter, which unfreezes the frozen ones: they get a gradient (and stay trainable afterwards).
    Differs on: the chapter's tiny BERT with model.bert.embeddings frozen, the chapter's batch, k = 2: the embeddings' .grad is filled and requires_grad is True, where the solution leaves .grad None and the embeddings frozen."""
    model.requires_grad_(True)
    rows = batch["input_ids"].shape[0]
    size = rows // k
    N = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for start in range(0, rows, size):
        piece = {key: value[start:start + size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / N + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def counts_by_reshape_pieces_by_stride(model, batch, k):
    """I took the micro-batches' label counts from one reshape of the labels to (k, -1), which groups consecutive rows, but cut the micro-batches as every k-th row (v[i::k]); the counts belong to other rows than the pieces.
    Differs on: the chapter's tiny BERT, 4 rows of 10 with 1, 6, 3, 6 labelled positions, k = 2: MLM weights 7/16 and 9/16 for pieces that hold 4 and 12 labels (the solution's 4/16 and 12/16); right when k = B."""
    B = batch["input_ids"].shape[0]
    counts = (batch["labels"] != -100).reshape(k, -1).sum(dim=1)  # (k,)
    N = counts.sum()
    for p in model.parameters():
        p.grad = None
    total = 0.0
    for i in range(k):
        piece = {key: value[i::k] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * counts[i] / N + out.nsp_loss * piece["input_ids"].shape[0] / B
        loss.backward()
        total += float(loss.detach())
    return total


@EX53.bug
def batch_reshaped_in_its_dict(model, batch, k):
    """I reshaped every tensor of the batch to (k, B / k, ...) by writing batch[key] = batch[key].unflatten(0, (k, -1)) and read micro-batch i as batch[key][i]: the tensors are untouched, but the caller's dict now holds the reshaped ones.
    Differs on: the chapter's batch (4 rows of 10), k = 2: the gradients and the loss are right, but afterwards batch["input_ids"].shape is (2, 2, 10) instead of (4, 10)."""
    N = (batch["labels"] != -100).sum()
    for key in batch:
        batch[key] = batch[key].unflatten(0, (k, -1))
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / N + out.nsp_loss / k
        loss.backward()
        total += loss.item()
    return total


@EX53.correct
def index_select_pieces(model, batch, k):
    """Row indices arange(B).view(k, -1), each micro-batch gathered with index_select; stale gradients set to None in a loop; the two weights as Python floats."""
    B = batch["next_sentence_label"].shape[0]
    device = batch["input_ids"].device
    N = float((batch["labels"] != -100).sum())
    for p in model.parameters():
        p.grad = None
    total = 0.0
    for idx in torch.arange(B, device=device).view(k, -1):
        piece = {key: t.index_select(0, idx) for key, t in batch.items()}
        out = model(**piece)
        w_mlm = float((piece["labels"] != -100).sum()) / N
        w_nsp = len(idx) / B
        loss = w_mlm * out.mlm_loss + w_nsp * out.nsp_loss
        loss.backward()
        total += float(loss.detach())
    return total


# --- batch 7: written without reading any checker ------------------------------------------
EX5_4.batch = 7


@EX5_4.bug
def each_gradient_clipped_on_its_own(parameters, max_norm):
    """I computed the global norm for the return value, but clipped each gradient by its own norm (if that tensor's norm exceeds max_norm, scale that tensor alone), so the direction of the whole gradient changes.
    Differs on: two parameters with gradients [3.0, 4.0] and [0.6, 0.8], max_norm=1: they become [0.6, 0.8] and [0.6, 0.8] instead of [0.588, 0.784] and [0.118, 0.157] (both return 5.099)."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total = math.sqrt(sum(float(g.double().pow(2).sum()) for g in grads))
    for g in grads:
        own = float(g.double().norm())
        if own > max_norm:
            g.mul_(max_norm / own)
    return total


@EX5_4.bug
def norms_added_instead_of_squares(parameters, max_norm):
    """I took the global norm as the sum of the parameters' norms, thinking the norm of the whole is the total of the parts, instead of the square root of the sum of their squares.
    Differs on: two parameters with gradients [3.0, 4.0] and [0.6, 0.8], max_norm=1: returns 6.0 (and scales by 1/6) instead of 5.099 (right with a single gradient)."""
    grads = []
    for p in parameters:
        if p.grad is not None:
            grads.append(p.grad)
    norm = sum(torch.linalg.vector_norm(g.double()).item() for g in grads)
    if norm > max_norm:
        for g in grads:
            g.mul_(max_norm / norm)
    return norm


@EX5_4.bug
def none_gradients_skipped_only_in_the_norm(parameters, max_norm):
    """I kept the parameters in a list and skipped those without a gradient when adding up the squares, but forgot the test in the scaling loop, so p.grad.mul_ fails on a parameter whose grad is None as soon as clipping happens.
    Differs on: nn.Linear(3, 2) with weight.grad all 10.0 and bias.grad None, max_norm=1: AttributeError, where the solution scales the weight's gradient to norm 1 and returns 24.49."""
    params = list(parameters)
    norm = math.sqrt(sum(float(p.grad.double().square().sum()) for p in params if p.grad is not None))
    if norm > max_norm:
        for p in params:
            p.grad.mul_(max_norm / norm)
    return norm


@EX5_4.bug
def scaled_in_float32_and_assigned_back(parameters, max_norm):
    """I did the whole computation in float32 to be safe from float16 overflow, and wrote each clipped gradient back as p.grad = p.grad.float() * factor, which leaves a float32 gradient on a float16 parameter (torch refuses it).
    Differs on: a float16 parameter of 4 elements whose gradient is all 300.0 (norm 600), max_norm=1: RuntimeError (a float gradient assigned to a Half tensor), where the solution scales it to norm 1 and returns 600.0; right for float32."""
    params = [p for p in parameters if p.grad is not None]
    norm = math.sqrt(sum(float(p.grad.float().pow(2).sum()) for p in params))
    if norm > max_norm:
        factor = max_norm / norm
        for p in params:
            p.grad = p.grad.float() * factor
    return norm


@EX5_4.correct
def numpy_squares_in_float64(parameters, max_norm):
    """numpy: each gradient copied to a float64 array, the squares summed with np.square and math.fsum, the factor applied in place through torch only above max_norm."""
    grads = [p.grad for p in parameters if p.grad is not None]
    squares = [float(np.square(g.detach().to(torch.float64).cpu().numpy()).sum()) for g in grads]
    norm = math.sqrt(math.fsum(squares))
    if norm > max_norm:
        factor = max_norm / norm
        for g in grads:
            g.mul_(factor)
    return norm


# --- batch 7: written without reading any checker ------------------------------------------
EX5_5.batch = 7


@EX5_5.bug
def mask_and_token_types_swapped(model, batch, optimizer, scheduler, max_grad_norm):
    """I called model.bert(input_ids, attention_mask, token_type_ids) in the order transformers' BertModel takes them; minibert's order is (input_ids, token_type_ids, attention_mask), so the segment ids act as the mask and the mask as the segment ids.
    Differs on: a small BERT (H = 16, 2 layers, V = 40, T = 10), 4 rows with token types 0 then 1 and the last 2 tokens of rows 2 and 3 padded: both losses differ from the first step."""
    out = model.bert(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"])
    selected = batch["labels"] != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    mlm_loss = F.cross_entropy(logits, batch["labels"][selected])
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def clip_norm_hard_coded_to_bert(model, batch, optimizer, scheduler, max_grad_norm):
    """I clipped with max_norm=1.0, BERT's value as the statement's recipe says, and never used the max_grad_norm argument.
    Differs on: a small BERT (H = 16, 2 layers, V = 40) with minibert's build_optimizer(lr=1e-3, warmup_steps=0, total_steps=10), two steps with max_grad_norm=0.05: the second step's losses and the weights differ (right when max_grad_norm is 1.0)."""
    hidden = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    mask = batch["labels"].ne(-100)
    decoder = model.bert.embeddings.word_embeddings.weight
    mlm_loss = F.cross_entropy(model.mlm(hidden.last_hidden_state[mask], decoder), batch["labels"][mask])
    nsp_loss = F.cross_entropy(model.nsp(hidden.pooler_output), batch["next_sentence_label"])
    loss = mlm_loss + nsp_loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    return float(mlm_loss.detach()), float(nsp_loss.detach())


@EX5_5.bug
def google_denominator_with_epsilon(model, batch, optimizer, scheduler, max_grad_norm):
    """I followed Google's run_pretraining.py for the masked LM: the summed cross-entropy divided by the number of labelled positions plus 1e-5 (their guard against 0 / 0), which is not quite the mean over the N positions.
    Differs on: a small BERT (H = 16, 2 layers, V = 40), 4 rows of 10 with one labelled position in all: the MLM loss is the solution's divided by 1.00001 (about 4e-5 lower), and more so per position as N shrinks."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    numerator = F.cross_entropy(logits, batch["labels"][selected], reduction="sum")
    denominator = selected.sum() + 1e-5
    mlm_loss = numerator / denominator
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def clipped_the_encoder_only(model, batch, optimizer, scheduler, max_grad_norm):
    """I clipped model.bert.parameters(), the encoder, thinking the two small heads do not matter: the global norm leaves out the heads' gradients and they are not scaled.
    Differs on: a small BERT (H = 16, 2 layers, V = 40) with build_optimizer(lr=1e-3, warmup_steps=0, total_steps=10), two steps with max_grad_norm=0.05: the weights and the second step's losses differ."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    mlm_loss = F.cross_entropy(logits, batch["labels"][selected])
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.bert.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.correct
def log_softmax_picked_at_nonzero_positions(model, batch, optimizer, scheduler, max_grad_norm):
    """The labelled positions as (row, column) pairs from nonzero(); both losses written out as log_softmax picked with gather / fancy indexing and averaged by hand; keyword arguments to model.bert."""
    out = model.bert(input_ids=batch["input_ids"], token_type_ids=batch["token_type_ids"],
                     attention_mask=batch["attention_mask"])
    rows, cols = (batch["labels"] != -100).nonzero(as_tuple=True)  # row-major order
    h = out.last_hidden_state[rows, cols]  # (N, H)
    log_p = model.mlm(h, model.bert.embeddings.word_embeddings.weight).log_softmax(dim=-1)  # (N, V)
    targets = batch["labels"][rows, cols]
    mlm_loss = -log_p.gather(1, targets[:, None]).squeeze(1).mean()
    nsp_log_p = model.nsp(out.pooler_output).log_softmax(dim=-1)  # (B, 2)
    nsp_loss = -nsp_log_p[torch.arange(nsp_log_p.shape[0], device=nsp_log_p.device),
                          batch["next_sentence_label"]].mean()
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_grad_norm)
    optimizer.step()
    scheduler.step()
    for p in model.parameters():
        p.grad = None
    return mlm_loss.item(), nsp_loss.item()


# --- batch 8: written without reading any checker ------------------------------------------
EX5_1.batch = 8


@EX5_1.bug
def ramp_to_the_decayed_rate(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I didn't like the jump at the end of the warm-up, so I ramped up to the rate the decay has at warmup_steps instead of to peak_lr, which makes the schedule continuous but lowers every warm-up step.
    Differs on: step 200, peak 1e-3, warm-up 400, total 8000: 4.75e-4 (half of 9.5e-4) instead of 5e-4."""
    def decay(s):
        done = min(s, total_steps) / total_steps
        return (peak_lr - end_lr) * (1 - done) ** power + end_lr

    if warmup_steps and step < warmup_steps:
        return decay(warmup_steps) * step / warmup_steps
    return decay(step)


@EX5_1.bug
def warmup_divisor_at_least_one(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """To avoid dividing by zero when there is no warm-up I wrote warmup = max(1, warmup_steps), so with warmup_steps 0 step 0 is still taken as a warm-up step and gives 0 instead of peak_lr.
    Differs on: step 0, peak 1e-4, warm-up 0, total 100: 0.0 instead of 1e-4."""
    warmup = max(1, warmup_steps)
    if step < warmup:
        return peak_lr * step / warmup
    done = min(step, total_steps) / total_steps
    return (peak_lr - end_lr) * (1 - done) ** power + end_lr


@EX5_1.bug
def ramp_starts_at_end_lr(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I took end_lr for the floor of the whole schedule, so my warm-up ramps from end_lr up to peak_lr rather than from 0.
    Differs on: step 0, peak 1e-3, warm-up 10, total 100, end_lr 1e-4: 1e-4 instead of 0 (and step 5 gives 5.5e-4 instead of 5e-4)."""
    if step < warmup_steps:
        return end_lr + (peak_lr - end_lr) * step / warmup_steps
    done = min(step, total_steps) / total_steps
    return (peak_lr - end_lr) * (1 - done) ** power + end_lr


@EX5_1.bug
def float32_tensor_arithmetic(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I computed the schedule with torch tensors built by torch.tensor(...) from the Python numbers, which are float32 by default, so every rate carries float32's rounding (about 1e-7 relative) instead of the float64 of Python's floats.
    Differs on: step 400, peak 1e-3, warm-up 400, total 8000: tensor(9.500000160187483e-04) instead of 9.5e-04 (relative error 2e-8); step 1, peak 1e-3, warm-up 3, total 10: 3.333333588670939e-04 instead of 3.333333333333333e-04; near the end of a long run (step 999,999 of 1,000,000, peak 2.0, no warm-up) the relative error reaches about 1%."""
    step_t = torch.tensor(step)
    peak = torch.tensor(peak_lr)
    end = torch.tensor(end_lr)
    if warmup_steps and step < warmup_steps:
        return peak * step_t / warmup_steps
    done = torch.clamp(step_t / total_steps, max=1.0)
    return (peak - end) * (1 - done) ** power + end


@EX5_1.correct
def interpolation_between_two_points(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """Written as interpolations: the warm-up between (0, 0) and (warmup_steps, peak_lr), the decay as end_lr plus a weight math.pow((total_steps - s) / total_steps, power) of the gap, with s held at total_steps."""
    if 0 <= step < warmup_steps:
        t = step / warmup_steps
        return (1 - t) * 0.0 + t * peak_lr
    s = total_steps if step > total_steps else step
    weight = math.pow((total_steps - s) / total_steps, power)
    return end_lr + (peak_lr - end_lr) * weight


# --- batch 8: written without reading any checker ------------------------------------------
EX52.batch = 8


@EX52.bug
def two_or_more_entries_for_two_dimensions(model, weight_decay):
    """I read "2 or more dimensions" as 2 or more numbers in the tensor (p.numel() >= 2), so a bias or a LayerNorm gain of size 2 or more is decayed.
    Differs on: torch.nn.Linear(3, 2): the bias (2,) is in the decayed group with the weight (the solution: bias not decayed)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.numel() >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def ties_skipped_by_id_of_data(model, weight_decay):
    """To put a tied tensor in once I kept a set of id(p.data) seen; p.data is a new tensor object at each access, freed at once, so its id is reused and parameters that are not tied look already seen.
    Differs on: torch.nn.Linear(3, 2): the bias is skipped as "seen" (id of the temporary p.data reused), groups [weight] and [] instead of [weight] and [bias]."""
    seen = set()
    decay, no_decay = [], []
    for p in model.parameters():
        if not p.requires_grad or id(p.data) in seen:
            continue
        seen.add(id(p.data))
        (decay if p.dim() >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def decayed_group_holds_everything(model, weight_decay):
    """I put every trainable parameter in the first group and the 1-D ones again in the second, thinking the later group overrides the weight decay of what it lists; AdamW refuses a parameter in two groups.
    Differs on: torch.nn.Linear(3, 2): the decayed group holds the weight and the bias (and torch.optim.AdamW(groups) raises ValueError), the solution's only the weight."""
    trainable = [p for p in model.parameters() if p.requires_grad]
    vectors = [p for p in trainable if p.ndim < 2]
    return [{"params": trainable, "weight_decay": weight_decay}, {"params": vectors, "weight_decay": 0.0}]


@EX52.bug
@functools.lru_cache(maxsize=None)
def groups_cached_per_model(model, weight_decay):
    """The groups depend only on the model, so I cached them with functools.lru_cache; a second call on the same model returns the first call's groups, even after parameters were frozen (or after AdamW filled the dicts with its own keys).
    Differs on: m = torch.nn.Linear(3, 2); groups(m, 0.01); m.weight.requires_grad_(False); groups(m, 0.01): the weight is still in the decayed group (the solution: [] and [bias])."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.correct
def stable_sort_then_groupby(model, weight_decay):
    """The trainable parameters stably sorted by "is it a vector or a scalar?" and split with itertools.groupby; tied tensors dropped by identity."""
    seen, trainable = set(), []
    for _, p in model.named_parameters(remove_duplicate=False):
        if p.requires_grad and id(p) not in seen:
            seen.add(id(p))
            trainable.append(p)
    parts = {False: [], True: []}
    for is_small, group in itertools.groupby(sorted(trainable, key=lambda p: len(p.shape) < 2),
                                             key=lambda p: len(p.shape) < 2):
        parts[is_small].extend(group)
    return [{"params": parts[False], "weight_decay": weight_decay}, {"params": parts[True], "weight_decay": 0.0}]


# --- batch 8: written without reading any checker ------------------------------------------
EX53.batch = 8


@EX53.bug
def rows_sliced_on_the_last_axis(model, batch, k):
    """I cut the micro-batches with value[..., a:b], thinking the ellipsis keeps every other axis as it is; it slices the last axis, the tokens, of every (B, T) tensor, and only the 1-D next_sentence_label by rows.
    Differs on: the chapter's tiny BERT and 4 rows of 10 (1, 6, 6, 6 labels), k = 2: the model is given 4 rows of 2 tokens with 2 NSP labels and raises InputError (the solution returns 4.396 and the gradient)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[..., i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def accumulated_gradient_clipped(model, batch, k):
    """After the k backward passes I clipped the accumulated gradient to a norm of 1.0, as BERT's loop does before every update, so that the gradient I leave is ready for the step.
    Differs on: the chapter's tiny BERT (H = 16, 2 layers, V = 40) and 4 rows of 10 (1, 6, 6, 6 labels), k = 2: the gradient's norm is 1.76, and the bug leaves it scaled to 1.0 (the loss returned is right)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * ((piece["labels"] != -100).sum() / labelled) + out.nsp_loss * (size / rows)
        loss.backward()
        total += loss.item()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    return total


@EX53.bug
def autograd_grad_over_every_parameter(model, batch, k):
    """I took each micro-batch's gradients with torch.autograd.grad(loss, list(model.parameters())), added them up myself and wrote them into .grad at the end (no stale values can remain); autograd.grad refuses a parameter that does not require a gradient.
    Differs on: the chapter's tiny BERT with model.bert.embeddings.requires_grad_(False), 4 rows of 10, k = 2: RuntimeError (the solution accumulates the gradient of the trainable parameters)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    params = list(model.parameters())
    summed = [torch.zeros_like(p) for p in params]
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * ((piece["labels"] != -100).sum() / labelled) + out.nsp_loss * (size / rows)
        for s, g in zip(summed, torch.autograd.grad(loss, params)):
            s += g
        total += loss.item()
    for p, s in zip(params, summed):
        p.grad = s
    return total


@EX53.bug
def micro_batches_under_bfloat16_autocast(model, batch, k):
    """Accumulation is there to save memory, so I ran each micro-batch's forward under torch.autocast("cpu", dtype=torch.bfloat16), as big runs do; the losses and gradients come out with bfloat16 rounding, not those of model(**batch).loss.
    Differs on: the chapter's tiny BERT and 4 rows of 10 (1, 6, 6, 6 labels), k = 2: the gradient differs from the solution's by 0.5% (relative norm of the difference), the loss by 3.5e-5."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(**piece)
        loss = out.mlm_loss.float() * ((piece["labels"] != -100).sum() / labelled) + out.nsp_loss.float() * (size / rows)
        loss.backward()
        total += loss.item()
    return total


@EX53.correct
def reversed_pieces_counted_by_bincount(model, batch, k):
    """Micro-batches taken last first; every piece's labelled count from one torch.bincount of the piece number of each labelled row; the loss put back together from the unweighted parts."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    piece_of_row = torch.arange(rows) // size                      # (B,)
    labelled_rows = (batch["labels"] != -100).nonzero()[:, 0]      # one entry per labelled position
    counts = torch.bincount(piece_of_row[labelled_rows], minlength=k).tolist()
    N = sum(counts)
    for p in model.parameters():
        p.grad = None
    mlm_sum, nsp_sum = 0.0, 0.0
    for i in reversed(range(k)):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        (out.mlm_loss * (counts[i] / N) + out.nsp_loss * (size / rows)).backward()
        mlm_sum += out.mlm_loss.item() * counts[i]
        nsp_sum += out.nsp_loss.item() * size
    return mlm_sum / N + nsp_sum / rows


# --- batch 8: written without reading any checker ------------------------------------------
EX5_4.batch = 8


@EX5_4.bug
def squared_in_float16_then_summed_in_float32(parameters, max_norm):
    """To be safe from float16's range I summed the squares in float32, but I squared first and cast after, (g ** 2).float().sum(): in float16 any element above 256 squares to inf before the cast.
    Differs on: one float16 parameter whose gradient is [300.0, 400.0], max_norm=1: returns inf and zeroes the gradient (the solution: 500.0, gradient [0.6, 0.8])."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total = sum(float((g ** 2).float().sum()) for g in grads)
    norm = math.sqrt(total)
    if norm > max_norm:
        for g in grads:
            g.mul_(max_norm / norm)
    return norm


@EX5_4.bug
def mean_of_squares_per_tensor(parameters, max_norm):
    """I wrote each tensor's part of the norm as g.pow(2).mean(), out of habit from mean-squared losses, instead of the sum of its squares, so every tensor's part is divided by its size.
    Differs on: one gradient [3.0, 4.0] with max_norm=1: returns sqrt(12.5) = 3.54 and scales to [0.85, 1.13] (the solution: 5.0, [0.6, 0.8])."""
    grads = []
    for p in parameters:
        if p.grad is not None:
            grads.append(p.grad)
    norm = math.sqrt(sum(g.double().pow(2).mean().item() for g in grads))
    if norm > max_norm:
        for g in grads:
            g.mul_(max_norm / norm)
    return norm


@EX5_4.bug
def norm_after_clipping_returned(parameters, max_norm):
    """I returned the norm of the gradient as I leave it, min(norm, max_norm), thinking the log should show what the update really used.
    Differs on: one gradient [3.0, 4.0] with max_norm=1: returns 1.0 instead of 5.0 (the gradient becomes [0.6, 0.8], right)."""
    grads = [p.grad for p in parameters if p.grad is not None]
    norm = math.sqrt(sum(float(g.double().square().sum()) for g in grads))
    if norm > max_norm:
        for g in grads:
            g.mul_(max_norm / norm)
        return float(max_norm)
    return norm


@EX5_4.bug
def torch_clip_grad_norm_called(parameters, max_norm):
    """The chapter called torch's clip_grad_norm_, so I did too and returned its norm as a number; torch takes each tensor's norm in the gradient's own dtype, so a float16 norm above 65504 is inf.
    Differs on: a float16 parameter of 5,000 elements whose gradient is all 990.0 (norm 70,004), max_norm=1: returns inf and zeroes the gradient (the solution: 70004, gradient scaled to norm 1)."""
    return float(torch.nn.utils.clip_grad_norm_(parameters, max_norm))


@EX5_4.correct
def float64_vector_and_dot(parameters, max_norm):
    """Every gradient flattened into one float64 vector, the norm from torch.dot of that vector with itself, the gradients scaled in place one by one."""
    grads = [p.grad for p in list(parameters) if p.grad is not None]
    if not grads:
        return 0.0
    flat = torch.cat([g.detach().reshape(-1).to(torch.float64) for g in grads])
    norm = torch.dot(flat, flat).sqrt().item()
    if norm > max_norm:
        factor = max_norm / norm
        for g in grads:
            g.mul_(factor)
    return norm


# --- batch 8: written without reading any checker ------------------------------------------
EX5_5.batch = 8


@EX5_5.bug
def next_sentence_label_one_read_as_is_next(model, batch, optimizer, scheduler, max_grad_norm):
    """I took label 1 for IsNext ("true, B follows A") and wrote the NSP target as 1 - next_sentence_label, so that class 1 of the head means "is next"; minibert's convention is 0 = IsNext, 1 = NotNext, and the head's classes come out swapped.
    Differs on: a small BERT (H = 16, 2 layers, V = 40), 4 rows of 10 with next_sentence_label [0, 1, 1, 1]: the first step's NSP loss is 0.6920 instead of 0.6943 (that of the flipped labels), and the weights after two steps differ by up to 0.004."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    mlm_loss = F.cross_entropy(logits, batch["labels"][selected])
    is_next = 1 - batch["next_sentence_label"]
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), is_next)
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def attention_mask_left_to_its_default(model, batch, optimizer, scheduler, max_grad_norm):
    """I called model.bert(input_ids, token_type_ids) and let the attention mask take its default, thinking padding only matters for the loss (and no label sits on a pad); without the mask every real token also attends to the [PAD] tokens.
    Differs on: a small BERT (H = 16, 2 layers, V = 40), 4 rows of 10 whose last 3 tokens are padding in rows 1 and 3: the losses differ a little (first MLM loss 3.70141 instead of 3.70142, second 3.64237 instead of 3.64233) and the weights after two steps by up to 0.004."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"])
    selected = batch["labels"] != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    mlm_loss = F.cross_entropy(logits, batch["labels"][selected])
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def gradients_never_cleared(model, batch, optimizer, scheduler, max_grad_norm):
    """I left out the clearing at the end, thinking optimizer.step() uses the gradients up; they stay in .grad, and the next step's backward() adds to them, so step 2 updates with the sum of both steps' gradients.
    Differs on: a small BERT (H = 16, 2 layers, V = 40) with build_optimizer(lr=1e-3, warmup_steps=0, total_steps=10), 4 rows of 10, two steps with max_grad_norm=1.0: the weights after the second step differ (and .grad is not None after a step)."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    mlm_loss = F.cross_entropy(logits, batch["labels"][selected])
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def clipped_before_the_backward(model, batch, optimizer, scheduler, max_grad_norm):
    """I clipped first, to have the gradients in bounds before anything uses them, then called backward(); at that point the gradients are the cleared ones of the last step (None), so nothing is ever clipped.
    Differs on: a small BERT (H = 16, 2 layers, V = 40) with build_optimizer(lr=1e-3, warmup_steps=0, total_steps=10), 4 rows of 10, two steps with max_grad_norm=0.01: the second step's losses and the weights differ (the update uses the unclipped gradient)."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    logits = model.mlm(out.last_hidden_state[selected], model.bert.embeddings.word_embeddings.weight)
    mlm_loss = F.cross_entropy(logits, batch["labels"][selected])
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    (mlm_loss + nsp_loss).backward()
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.correct
def rows_looped_and_summed_nll(model, batch, optimizer, scheduler, max_grad_norm):
    """A Python loop over the rows gathers each row's labelled hidden states with index_select; the MLM loss a summed nll_loss of log_softmax divided by N, the NSP loss the same by hand; keyword arguments to model.bert."""
    out = model.bert(input_ids=batch["input_ids"], token_type_ids=batch["token_type_ids"],
                     attention_mask=batch["attention_mask"])
    hidden, targets = [], []
    for b in range(batch["labels"].shape[0]):
        cols = (batch["labels"][b] != -100).nonzero().flatten()
        hidden.append(out.last_hidden_state[b].index_select(0, cols))
        targets.append(batch["labels"][b].index_select(0, cols))
    hidden, targets = torch.cat(hidden), torch.cat(targets)
    logits = model.mlm(hidden, model.bert.embeddings.word_embeddings.weight)
    mlm_loss = F.nll_loss(F.log_softmax(logits, dim=-1), targets, reduction="sum") / len(targets)
    nsp_logp = F.log_softmax(model.nsp(out.pooler_output), dim=-1)
    nsp_loss = F.nll_loss(nsp_logp, batch["next_sentence_label"], reduction="sum") / len(nsp_logp)
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


# --- batch 9: written without reading any checker ------------------------------------------
EX5_1.batch = 9


@EX5_1.bug
def decay_from_the_end_of_warmup(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I let the decay start where the warm-up ends, counting its progress as (step - warmup_steps) / (total_steps - warmup_steps), as transformers' linear schedule does, so the first step after the warm-up is at the full peak.
    Differs on: step 400, peak 1e-3, 400 warm-up steps of 8,000: 1e-3 instead of 9.5e-4 (and 5.26e-4 instead of 5e-4 at step 4,000)."""
    if warmup_steps > 0 and step < warmup_steps:
        return peak_lr * step / warmup_steps
    progress = (min(step, total_steps) - warmup_steps) / (total_steps - warmup_steps)
    return (peak_lr - end_lr) * (1 - progress) ** power + end_lr


@EX5_1.bug
def progress_with_floor_division(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """Steps are integers, so I computed the decay's progress with min(step, total_steps) // total_steps, and floor division gives 0 until the very last step: the rate stays at the peak and drops to end_lr at total_steps.
    Differs on: step 4,000, peak 1e-3, 400 warm-up steps of 8,000: 1e-3 instead of 5e-4."""
    if warmup_steps == 0 or step >= warmup_steps:
        done = min(step, total_steps) // total_steps
        return (peak_lr - end_lr) * (1 - done) ** power + end_lr
    return peak_lr * step / warmup_steps


@EX5_1.bug
def end_lr_never_added_back(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I scaled the gap (peak_lr - end_lr) by what is left of the decay and forgot to add end_lr back at the end, so the schedule runs from peak_lr - end_lr down to 0 instead of from peak_lr down to end_lr.
    Differs on: step 100 of 100, peak 1e-4, no warm-up, end_lr 1e-6: 0.0 instead of 1e-6 (and 9.9e-5 instead of 1e-4 at step 0)."""
    if warmup_steps and step < warmup_steps:
        return peak_lr * step / warmup_steps
    left = 1 - min(step, total_steps) / total_steps
    return (peak_lr - end_lr) * left ** power


@EX5_1.bug
def decay_cycles_past_the_end(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """I copied TensorFlow's polynomial_decay with its cycle branch, stretching the decay to the next multiple of total_steps once the step passes it, where Google calls it with cycle=False and the rate stays at end_lr after total_steps.
    Differs on: step 9,000, peak 1e-3, 400 warm-up steps of 8,000: 4.375e-4 (a decay over 16,000 steps) instead of 0."""
    if warmup_steps and step < warmup_steps:
        return peak_lr * step / warmup_steps
    decay_steps = total_steps
    if step > total_steps:
        decay_steps = total_steps * math.ceil(step / total_steps)
    return (peak_lr - end_lr) * (1 - step / decay_steps) ** power + end_lr


@EX5_1.correct
def interp_ramp_and_pow_of_the_remainder(step, peak_lr, warmup_steps, total_steps, end_lr=0.0, power=1.0):
    """The warm-up by np.interp between (0, 0) and (warmup_steps, peak_lr); the decay as end_lr plus the gap times math.pow of the remaining steps' share, clamped at 0."""
    if warmup_steps > 0 and step < warmup_steps:
        return float(np.interp(step, [0, warmup_steps], [0.0, peak_lr]))
    remaining = max(total_steps - step, 0) / total_steps
    return end_lr + (peak_lr - end_lr) * math.pow(remaining, power)


# --- batch 9: written without reading any checker ------------------------------------------
EX52.batch = 9


@EX52.bug
def grouped_on_a_deep_copy(model, weight_decay):
    """To be sure nothing I did could touch the model, I sorted the parameters of copy.deepcopy(model): the groups hold trainable Parameters of the right shapes, but copies, so AdamW would train a model nobody uses.
    Differs on: torch.nn.Linear(3, 2): the groups hold copies of weight and bias (equal values, other tensors), not the model's own parameters."""
    twin = copy.deepcopy(model)
    decay, no_decay = [], []
    for p in twin.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def both_lists_from_one_assignment(model, weight_decay):
    """I started my two lists with decay = no_decay = [], which makes them one list, so both groups hold every trainable parameter (AdamW then refuses a parameter that is in two groups).
    Differs on: torch.nn.Linear(3, 2): both groups are [weight, bias] (the solution: [weight] and [bias]); torch.optim.AdamW(groups) raises ValueError."""
    decay = no_decay = []
    for p in model.parameters():
        if p.requires_grad:
            if p.dim() >= 2:
                decay.append(p)
            else:
                no_decay.append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def ties_skipped_by_the_decoder_name(model, weight_decay):
    """I listed every name with named_parameters(remove_duplicate=False) and, for BERT's tie, skipped the names holding "decoder" (the statement's example), so a weight tied under other names comes twice.
    Differs on: torch.nn.Sequential(Linear(3, 3), Linear(3, 3)) with the second weight set to the first: the decayed group holds that weight twice (2 entries instead of 1)."""
    decay, no_decay = [], []
    for name, p in model.named_parameters(remove_duplicate=False):
        if "decoder" in name or not p.requires_grad:
            continue
        (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.bug
def seen_marked_on_the_parameters(model, weight_decay):
    """To put a tied tensor in once I marked each parameter as I took it, p._grouped = True, and skipped the marked ones; the mark stays on the model's parameters, so a second call on the same model skips them all.
    Differs on: torch.nn.Linear(3, 2) given twice: the second call returns two empty groups (the solution: [weight] and [bias] again)."""
    decay, no_decay = [], []
    for p in model.parameters():
        if not p.requires_grad or getattr(p, "_grouped", False):
            continue
        p._grouped = True
        (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@EX52.correct
def identity_scan_over_modules(model, weight_decay):
    """Each module's own parameters (recurse=False) from named_modules(remove_duplicate=False), ties dropped by an `is` scan of a list, groups built last with a dict of lists."""
    kept = []
    for _, module in model.named_modules(remove_duplicate=False):
        for p in module.parameters(recurse=False):
            if p.requires_grad and not any(p is q for q in kept):
                kept.append(p)
    groups = {True: [], False: []}
    for p in kept:
        groups[len(p.shape) > 1].append(p)
    return [{"params": groups[True], "weight_decay": weight_decay}, {"params": groups[False], "weight_decay": 0.0}]


# --- batch 9: written without reading any checker ------------------------------------------
EX53.batch = 9


@EX53.bug
def one_backward_per_loss(model, batch, k):
    """I called backward() on each of the two weighted losses of a micro-batch in turn, MLM then NSP, to keep them apart; the first backward frees the encoder's graph that the second one needs.
    Differs on: the chapter's tiny BERT on 4 rows of 10 (1, 6, 6, 6 labels), k = 2: RuntimeError "Trying to backward through the graph a second time" (the solution returns 4.40 for a seed-0 H=16, 2-layer, V=40 BERT, and fills .grad)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for start in range(0, rows, size):
        piece = {key: value[start:start + size] for key, value in batch.items()}
        out = model(**piece)
        mlm = out.mlm_loss * (piece["labels"] != -100).sum() / labelled
        nsp = out.nsp_loss * size / rows
        mlm.backward()
        nsp.backward()
        total += mlm.item() + nsp.item()
    return total


@EX53.bug
def mlm_loss_taken_for_a_sum(model, batch, k):
    """The hint asks over what .mlm_loss is a mean; I decided it was the micro-batch's sum over its labelled positions, so I divided it by the batch's N to make the mean (weight 1 / N instead of n_i / N).
    Differs on: 4 rows of 10 with 1, 6, 6, 6 labels, k = 2: the MLM weights are 1/19 and 1/19 instead of 7/19 and 12/19 (gradients and returned loss)."""
    B = len(batch["next_sentence_label"])
    N = int((batch["labels"] != -100).sum())
    size = B // k
    for p in model.parameters():
        p.grad = None
    total = 0.0
    for i in range(k):
        rows = slice(i * size, (i + 1) * size)
        out = model(**{name: t[rows] for name, t in batch.items()})
        loss = out.mlm_loss / N + out.nsp_loss * size / B
        loss.backward()
        total += float(loss)
    return total


@EX53.bug
def stale_gradients_multiplied_by_zero(model, batch, k):
    """I cleared the stale gradients with p.grad.mul_(0) on those that have one; zero times a stale inf or NaN (left by a step that overflowed) is NaN, so those entries stay NaN.
    Differs on: the tiny BERT batch with k = 2 after model.nsp.weight.grad is filled with float("nan"): the NSP weight's gradient comes out NaN (the solution: the batch's gradient)."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    for p in model.parameters():
        if p.grad is not None:
            p.grad.mul_(0)
    total = 0.0
    for i in range(k):
        piece = {key: value[i * size:(i + 1) * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * ((piece["labels"] != -100).sum() / labelled) + out.nsp_loss * (size / rows)
        loss.backward()
        total += loss.item()
    return total


@EX53.bug
def pieces_sliced_from_the_end(model, batch, k):
    """I took the micro-batches from the last rows back, value[-(i + 1) * size:-i * size]; for i = 0 the end is -0, which is 0, so the first piece is empty and the last rows never run.
    Differs on: 4 rows of 10 with 1, 6, 6, 6 labels, k = 2: the first piece has no rows and minibert raises InputError ("input_ids has no rows"), where the solution returns 4.40; with k = 1 too."""
    rows = batch["input_ids"].shape[0]
    size = rows // k
    labelled = (batch["labels"] != -100).sum()
    model.zero_grad(set_to_none=True)
    total = 0.0
    for i in range(k):
        piece = {key: value[-(i + 1) * size:-i * size] for key, value in batch.items()}
        out = model(**piece)
        loss = out.mlm_loss * (piece["labels"] != -100).sum() / labelled + out.nsp_loss * size / rows
        loss.backward()
        total += loss.item()
    return total


@EX53.correct
def boolean_row_masks_and_one_autograd_call(model, batch, k):
    """Micro-batch i picked by a boolean row mask (arange(B) // size == i); both weighted losses sent to one torch.autograd.backward call as a list; the total added with math.fsum."""
    B = batch["next_sentence_label"].shape[0]
    size = B // k
    piece_of_row = torch.arange(B, device=batch["input_ids"].device) // size
    is_label = batch["labels"].ne(-100)
    N = is_label.sum().item()
    for p in model.parameters():
        if p.grad is not None:
            p.grad = None
    parts = []
    for i in range(k):
        rows = piece_of_row == i
        out = model(**{name: t[rows] for name, t in batch.items()})
        mlm = out.mlm_loss * (is_label[rows].sum().item() / N)
        nsp = out.nsp_loss * (int(rows.sum()) / B)
        torch.autograd.backward([mlm, nsp])
        parts += [mlm.item(), nsp.item()]
    return math.fsum(parts)


# --- batch 9: written without reading any checker ------------------------------------------
EX5_4.batch = 9


@EX5_4.bug
def factor_always_applied_with_epsilon(parameters, max_norm):
    """The statement allows torch's max_norm / (norm + 1e-6), so I multiplied every gradient by that factor without any test, thinking the epsilon version already caps it; below max_norm the factor is above 1 and small gradients are blown up to max_norm.
    Differs on: one gradient [0.3, 0.4] (norm 0.5) with max_norm=1: it becomes about [0.6, 0.8] instead of staying [0.3, 0.4] (both return 0.5)."""
    grads = [p.grad for p in parameters if p.grad is not None]
    norm = math.sqrt(sum(float(g.double().pow(2).sum()) for g in grads))
    factor = max_norm / (norm + 1e-6)
    for g in grads:
        g.mul_(factor)
    return norm


@EX5_4.bug
def frozen_skipped_instead_of_missing_gradients(parameters, max_norm):
    """I read "some may have no gradient" as the frozen ones, so I skipped the parameters with requires_grad False; a trainable parameter that the loss did not reach has p.grad None and then fails.
    Differs on: [Parameter([3., 4.]) with grad [3., 4.], Parameter([1.]) trainable with grad None], max_norm=1: AttributeError on None (the solution returns 5 and clips the first to [0.6, 0.8])."""
    total = 0.0
    grads = []
    for p in parameters:
        if not p.requires_grad:
            continue
        g = p.grad
        total += g.to(torch.float64).square().sum().item()
        grads.append(g)
    norm = total ** 0.5
    if norm > max_norm:
        for g in grads:
            g.mul_(max_norm / norm)
    return norm


@EX5_4.bug
def squares_taken_in_place_on_the_double(parameters, max_norm):
    """I cast each gradient with .double() and squared it with pow_ in place to save memory, sure that .double() makes a copy; for a float64 gradient it returns the gradient itself, which is left holding its squares.
    Differs on: one float64 gradient [3., 4.] with max_norm=10: the norm is right (5) but the gradient becomes [9., 16.] instead of staying [3., 4.]."""
    grads = [p.grad for p in parameters if p.grad is not None]
    total = 0.0
    for g in grads:
        sq = g.double()
        sq.pow_(2)
        total += sq.sum().item()
    norm = math.sqrt(total)
    if norm > max_norm:
        for g in grads:
            g.mul_(max_norm / norm)
    return norm


@EX5_4.bug
def one_concatenated_vector_of_every_gradient(parameters, max_norm):
    """I concatenated every gradient, flattened and in float64, into one vector with torch.cat and took its norm; when no parameter has a gradient the list is empty and torch.cat refuses it.
    Differs on: [Parameter(torch.zeros(2))] without a gradient (or an empty list), max_norm=1: torch.cat raises ("expected a non-empty list of Tensors"; the solution returns 0.0)."""
    params = [p for p in parameters if p.grad is not None]
    flat = torch.cat([p.grad.detach().flatten().double() for p in params])
    norm = flat.norm().item()
    if norm > max_norm:
        for p in params:
            p.grad.mul_(max_norm / norm)
    return norm


@EX5_4.correct
def vector_norm_with_a_float64_dtype_and_clamped_factor(parameters, max_norm):
    """torch.linalg.vector_norm(g, dtype=torch.float64) per gradient, the norms combined with math.hypot, and torch's clamped factor min(1, max_norm / (norm + 1e-6)) applied only when below 1."""
    grads = []
    for p in parameters:
        if p.grad is not None:
            grads.append(p.grad)
    norm = math.hypot(*(torch.linalg.vector_norm(g, dtype=torch.float64).item() for g in grads)) if grads else 0.0
    factor = min(1.0, max_norm / (norm + 1e-6))
    if factor < 1.0:
        for g in grads:
            g.mul_(factor)
    return norm


# --- batch 9: written without reading any checker ------------------------------------------
EX5_5.batch = 9


@EX5_5.bug
def mlm_mean_per_sentence_then_over_sentences(model, batch, optimizer, scheduler, max_grad_norm):
    """I took the masked-LM loss sentence by sentence, the mean over each row's labelled positions, and then the mean of those B means, so a sentence with one label weighs as much as one with six.
    Differs on: a tiny BERT (H=16, 2 layers, V=40) on 4 rows of 10 with 1, 6, 6, 6 labelled positions, max_grad_norm=1: MLM loss 3.737 instead of 3.713 (the solution pools the 19 positions), and other weights after two steps."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    table = model.bert.embeddings.word_embeddings.weight
    row_losses = []
    for b in range(batch["labels"].shape[0]):
        chosen = batch["labels"][b] != -100
        if chosen.any():
            logits = model.mlm(out.last_hidden_state[b][chosen], table)
            row_losses.append(F.cross_entropy(logits, batch["labels"][b][chosen]))
    mlm_loss = torch.stack(row_losses).mean()
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def targets_read_from_the_input_ids(model, batch, optimizer, scheduler, max_grad_norm):
    """I gathered the hidden states at the labelled positions and took the targets from batch["input_ids"] there, as if the input still held the original token; at a masked position it holds [MASK] (or a random token), so the model learns to predict what it was shown.
    Differs on: a tiny BERT (H=16, 2 layers, V=40) on 4 rows of 10 (1, 6, 6, 6 labels) whose input_ids hold 4 ([MASK] in minibert's vocabulary order) at the labelled positions: MLM loss 3.728 instead of 3.687, and other weights after two steps (equal only where every labelled token was left unchanged)."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    word_embeddings = model.bert.embeddings.word_embeddings.weight
    logits = model.mlm(out.last_hidden_state[selected], word_embeddings)
    mlm_loss = F.cross_entropy(logits, batch["input_ids"][selected])
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def nsp_probabilities_into_cross_entropy(model, batch, optimizer, scheduler, max_grad_norm):
    """I turned the NSP head's two scores into probabilities with softmax before F.cross_entropy, to have "the probability of IsNext"; cross_entropy applies its own log-softmax, so the loss is taken on the softmax of a softmax.
    Differs on: any batch, e.g. a tiny BERT (H=16, 2 layers, V=40) on 4 rows of 10: NSP loss 0.6919 instead of 0.6906, and other weights after two steps; however well the head does, this loss never goes below ln(1 + 1/e) ≈ 0.31."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    word_embeddings = model.bert.embeddings.word_embeddings.weight
    logits = model.mlm(out.last_hidden_state[selected], word_embeddings)
    mlm_loss = F.cross_entropy(logits, batch["labels"][selected])
    nsp_probs = model.nsp(out.pooler_output).softmax(dim=-1)
    nsp_loss = F.cross_entropy(nsp_probs, batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.bug
def gradients_clipped_by_value(model, batch, optimizer, scheduler, max_grad_norm):
    """I clipped with torch.nn.utils.clip_grad_value_(model.parameters(), max_grad_norm), the clipping function I found first: it caps each gradient element at ±max_grad_norm instead of scaling the whole gradient to a global norm of max_grad_norm.
    Differs on: a tiny BERT (H=16, 2 layers, V=40) on 4 rows of 10, max_grad_norm=0.1 (global norm 1.94, largest element 0.41): the weights after two steps differ (the returned losses are the same)."""
    out = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    selected = batch["labels"] != -100
    word_embeddings = model.bert.embeddings.word_embeddings.weight
    logits = model.mlm(out.last_hidden_state[selected], word_embeddings)
    mlm_loss = F.cross_entropy(logits, batch["labels"][selected])
    nsp_loss = F.cross_entropy(model.nsp(out.pooler_output), batch["next_sentence_label"])
    (mlm_loss + nsp_loss).backward()
    torch.nn.utils.clip_grad_value_(model.parameters(), max_grad_norm)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return mlm_loss.item(), nsp_loss.item()


@EX5_5.correct
def flat_positions_and_logsumexp(model, batch, optimizer, scheduler, max_grad_norm):
    """The labelled positions as flat indices (nonzero of the flattened labels) read with index_select; both cross-entropies written as logsumexp minus the target's score; keyword arguments; model.zero_grad() at the end."""
    out = model.bert(input_ids=batch["input_ids"], token_type_ids=batch["token_type_ids"],
                     attention_mask=batch["attention_mask"])
    hidden = out.last_hidden_state.flatten(0, 1)  # (B*T, H)
    flat_labels = batch["labels"].reshape(-1)
    where = (flat_labels != -100).nonzero().squeeze(1)  # (N,)
    targets = flat_labels.index_select(0, where)
    scores = model.mlm(hidden.index_select(0, where), model.bert.embeddings.word_embeddings.weight)  # (N, V)
    mlm_loss = (scores.logsumexp(-1) - scores.gather(1, targets[:, None]).squeeze(1)).mean()
    nsp_scores = model.nsp(out.pooler_output)  # (B, 2)
    nsp_target = batch["next_sentence_label"]
    nsp_loss = (nsp_scores.logsumexp(-1) - nsp_scores.gather(1, nsp_target[:, None]).squeeze(1)).mean()
    total = mlm_loss + nsp_loss
    total.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_grad_norm)
    optimizer.step()
    scheduler.step()
    model.zero_grad()
    return float(mlm_loss), float(nsp_loss)
