"""Exercises 5.2 (my_parameter_groups) and 5.3 (my_accumulate): learners' code with one mistake each, and
correct code in other styles.

Split rule (fixed before any checker changed): within each exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import torch

from . import Exercise

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
