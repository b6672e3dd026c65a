"""The checkers of chapter 07's exercises accept the solutions and other correct styles, let the stubs'
NotImplementedError through, and reject the mistakes learners make with feedback that names them."""

import statistics

import numpy as np
import pytest
import torch
from helpers import checker_contract

from minibert import check
from minibert.check import ExerciseError

EXERCISES = [("encode_pair", "my_encode_pair"), ("sequence_loss", "my_sequence_loss"),
             ("pick_setting", "my_pick_setting"), ("freeze_encoder", "my_freeze_encoder")]
SOLUTIONS, STUBS, test_the_solution_passes, test_the_stub_raises_not_implemented = checker_contract(
    "07_sentences_and_pairs", EXERCISES)


# --- 7.1 a pair, packed and cut --------------------------------------------------------------------

def pair_loop(a, b, max_length, cls, sep):  # Google's truncate_seq_pair on copies: correct
    a, b = list(a), list(b)
    while len(a) + len(b) > max_length - 3:
        (a if len(a) > len(b) else b).pop()
    return [cls, *a, sep, *b, sep], [0] * (len(a) + 2) + [1] * (len(b) + 1)


def pair_numpy(a, b, max_length, cls, sep):  # closed form, numpy arrays back: correct
    keep_a, keep_b = len(a), len(b)
    excess = keep_a + keep_b - (max_length - 3)
    for _ in range(max(0, excess)):
        if keep_a > keep_b:
            keep_a -= 1
        else:
            keep_b -= 1
    ids = np.array([cls, *a[:keep_a], sep, *b[:keep_b], sep])
    return ids, np.concatenate([np.zeros(keep_a + 2, int), np.ones(keep_b + 1, int)])


def pair_only_b(a, b, max_length, cls, sep):
    b = b[:max(0, max_length - 3 - len(a))]
    return [cls, *a, sep, *b, sep], [0] * (len(a) + 2) + [1] * (len(b) + 1)


def pair_from_front(a, b, max_length, cls, sep):
    a, b = list(a), list(b)
    while len(a) + len(b) > max_length - 3:
        (a if len(a) > len(b) else b).pop(0)
    return [cls, *a, sep, *b, sep], [0] * (len(a) + 2) + [1] * (len(b) + 1)


def pair_first_sep_type_1(a, b, max_length, cls, sep):
    ids, _ = pair_loop(a, b, max_length, cls, sep)
    first_sep = ids.index(sep)
    return ids, [0] * first_sep + [1] * (len(ids) - first_sep)


def pair_last_sep_type_0(a, b, max_length, cls, sep):
    ids, types = pair_loop(a, b, max_length, cls, sep)
    return ids, types[:-1] + [0]


def pair_budget_without_seps(a, b, max_length, cls, sep):  # only [CLS] counted
    a, b = list(a), list(b)
    while len(a) + len(b) > max_length - 1:
        (a if len(a) > len(b) else b).pop()
    return [cls, *a, sep, *b, sep], [0] * (len(a) + 2) + [1] * (len(b) + 1)


def pair_ties_from_a(a, b, max_length, cls, sep):
    a, b = list(a), list(b)
    while len(a) + len(b) > max_length - 3:
        (b if len(b) > len(a) else a).pop()
    return [cls, *a, sep, *b, sep], [0] * (len(a) + 2) + [1] * (len(b) + 1)


def pair_padded(a, b, max_length, cls, sep):
    ids, types = pair_loop(a, b, max_length, cls, sep)
    return ids + [0] * (max_length - len(ids)), types + [0] * (max_length - len(types))


def pair_in_place(a, b, max_length, cls, sep):
    while len(a) + len(b) > max_length - 3:
        (a if len(a) > len(b) else b).pop()
    return [cls, *a, sep, *b, sep], [0] * (len(a) + 2) + [1] * (len(b) + 1)


@pytest.mark.parametrize("style", [pair_loop, pair_numpy])
def test_encode_pair_accepts(style, capsys):
    check.encode_pair(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (pair_only_b, r"(?s)A longer.*only B was cut"),
    (pair_from_front, r"(?s)hand case.*cut from the front"),
    (pair_first_sep_type_1, r"(?s)hand case.*first \[SEP\] ends A"),
    (pair_last_sep_type_0, r"(?s)hand case.*last \[SEP\] ends B"),
    (pair_budget_without_seps, r"(?s)hand case.*the two \[SEP\]s count too"),
    (pair_ties_from_a, r"(?s)equal lengths.*removes from B"),
    (pair_padded, r"(?s)do not pad"),
    (pair_in_place, r"changed the lists"),
])
def test_encode_pair_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.encode_pair(bug)


# --- 7.2 the head by hand, and its loss for each kind of label ----------------------------------------

F = torch.nn.functional


def head_linear(hidden, Wp, bp, W, b):  # torch.nn.functional: correct
    return F.linear(torch.tanh(F.linear(hidden[:, 0, :], Wp, bp)), W, b)


def head_einsum(hidden, Wp, bp, W, b):  # einsum, float32: correct
    pooled = torch.tanh(torch.einsum("bh,oh->bo", hidden[:, 0].float(), Wp.float()) + bp.float())
    return torch.einsum("bh,kh->bk", pooled, W.float()) + b.float()


def loss_functional(logits, labels):  # torch.nn.functional, as transformers: correct
    if logits.shape[-1] == 1:
        return F.mse_loss(logits.view(-1), labels.to(logits.dtype))
    if labels.dtype.is_floating_point:
        return F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    return F.cross_entropy(logits, labels)


def loss_by_hand(logits, labels):  # the formulas written out, nn.Module for the MSE: correct
    if logits.shape[1] == 1:
        return torch.nn.MSELoss()(logits[:, 0], labels.to(logits.dtype))
    if labels.dtype in (torch.int64, torch.int32):
        return -logits.log_softmax(-1).gather(1, labels[:, None]).mean()
    y = labels.to(logits.dtype)
    return -(y * F.logsigmoid(logits) + (1 - y) * F.logsigmoid(-logits)).mean()


def with_loss(head, loss=loss_functional):
    """A learner's exercise from a head and a loss: (logits, loss)."""
    def fn(hidden, Wp, bp, W, b, labels):
        logits = head(hidden, Wp, bp, W, b)
        return logits, loss(logits, labels)
    return fn


def head_no_tanh(hidden, Wp, bp, W, b):
    return (hidden[:, 0] @ Wp.T + bp) @ W.T + b


def head_mean(hidden, Wp, bp, W, b):
    return torch.tanh(hidden.mean(1) @ Wp.T + bp) @ W.T + b


def head_last(hidden, Wp, bp, W, b):
    return torch.tanh(hidden[:, -1] @ Wp.T + bp) @ W.T + b


def head_W_transposed(hidden, Wp, bp, W, b):
    return torch.tanh(hidden[:, 0] @ Wp.T + bp) @ W + b


def head_Wp_transposed(hidden, Wp, bp, W, b):
    return torch.tanh(hidden[:, 0] @ Wp + bp) @ W.T + b


def head_softmax(hidden, Wp, bp, W, b):
    return head_linear(hidden, Wp, bp, W, b).softmax(-1)


def head_no_pooler(hidden, Wp, bp, W, b):
    return hidden[:, 0] @ W.T + b


def one_kind(kind, wrong):  # right for the other kinds of labels, `wrong` for this one
    def loss(logits, labels):
        is_kind = {"regression": logits.shape[-1] == 1,
                   "single": logits.shape[-1] > 1 and not labels.dtype.is_floating_point,
                   "multi": logits.shape[-1] > 1 and labels.dtype.is_floating_point}[kind]
        return wrong(logits, labels) if is_kind else loss_functional(logits, labels)
    return with_loss(head_linear, loss)


def mse_unsqueezed(z, y):
    return F.mse_loss(z, y.to(z.dtype))  # (B, 1) against (B,): torch warns, and broadcasts


def in_place(hidden, Wp, bp, W, b, labels):
    logits = head_linear(hidden, Wp, bp, W, b)
    if logits.shape[-1] == 1:  # the shapes now agree, and the caller's labels have changed
        return logits, F.mse_loss(logits, labels.unsqueeze_(-1).to(logits.dtype))
    return logits, loss_functional(logits, labels)


@pytest.mark.parametrize("style", [with_loss(head_linear), with_loss(head_einsum, loss_by_hand),
                                   with_loss(head_linear, loss_by_hand)])
def test_sequence_loss_accepts(style, capsys):
    check.sequence_loss(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("bug, message", [
    (with_loss(head_no_tanh), r"small case, K = 2.*no tanh"),
    (with_loss(head_mean), r"small case.*mean of all the tokens"),
    (with_loss(head_last), r"small case.*last position"),
    (with_loss(head_W_transposed), r"small case.*W is used transposed"),
    (with_loss(head_Wp_transposed), r"small case.*pooler's weight is used transposed"),
    (with_loss(head_softmax), r"small case.*probabilities"),
    (with_loss(head_no_pooler), r"small case.*pooler is skipped"),
    (one_kind("regression", mse_unsqueezed), r"K = 1.*broadcasts to a \(B, B\) grid"),
    (one_kind("regression", lambda z, y: (z.view(-1) - y).abs().mean()), r"K = 1.*mean absolute error"),
    (one_kind("regression", lambda z, y: F.mse_loss(z.view(-1), y.to(z.dtype)).sqrt()), r"root of the mean squared"),
    (one_kind("regression", lambda z, y: F.mse_loss(z.view(-1), y.to(z.dtype), reduction="sum")), r"K = 1.*sums over the batch"),
    (one_kind("regression", lambda z, y: F.cross_entropy(z, torch.zeros(len(y), dtype=torch.long))), r"regression: a cross-entropy over one class"),
    (one_kind("single", lambda z, y: F.cross_entropy(z.softmax(-1), y)), r"one class each.*softmax was applied twice"),
    (one_kind("single", lambda z, y: F.nll_loss(z, y)), r"nll_loss takes log-probabilities"),
    (one_kind("single", lambda z, y: F.cross_entropy(z, y, reduction="sum")), r"one class each.*sums over the batch"),
    (one_kind("single", lambda z, y: F.binary_cross_entropy_with_logits(z, F.one_hot(y, z.shape[-1]).to(z.dtype))),
     r"not a binary cross-entropy on one-hot"),
    (one_kind("multi", lambda z, y: F.cross_entropy(z, y.to(z.dtype))), r"multi-hot.*not a softmax across the classes"),
    (one_kind("multi", lambda z, y: F.binary_cross_entropy_with_logits(z, y.to(z.dtype), reduction="none").sum(-1).mean()),
     r"averages over all B x K entries"),
    (one_kind("multi", lambda z, y: F.binary_cross_entropy_with_logits(z.sigmoid(), y.to(z.dtype))), r"sigmoid applied twice"),
    (one_kind("single", lambda z, y: F.cross_entropy(z, y, reduction="none")), r"0-dim tensor.*reduction='none'"),
    (one_kind("single", lambda z, y: F.cross_entropy(z, y).item()), r"the loss must be a tensor"),
    (lambda hidden, Wp, bp, W, b, labels: head_linear(hidden, Wp, bp, W, b), r"return a pair \(logits, loss\)"),
    (in_place, r"changed the labels in place"),
])
def test_sequence_loss_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.sequence_loss(bug)


def test_sequence_loss_names_a_shape_error():
    def square_only(hidden, Wp, bp, W, b):  # right where K == H, a shape error elsewhere
        return torch.tanh(hidden[:, 0] @ Wp.T + bp) @ W.T + b if W.shape[0] == W.shape[1] else (
            torch.tanh(hidden[:, 0] @ Wp.T + bp) @ W + b)
    with pytest.raises(ExerciseError, match=r"small case.*RuntimeError.*\(out, in\)"):
        check.sequence_loss(with_loss(square_only))


# --- 7.3 seeds, mean ± sd, the choice on dev -----------------------------------------------------

def pick_numpy(dev, test):  # numpy, ddof=1: correct
    names = list(dev)
    means = [np.mean(dev[n]) for n in names]
    best = names[int(np.argmax(means))]
    return best, np.mean(dev[best]), np.std(dev[best], ddof=1)


def pick_torch(dev, test):  # torch's std is the sample sd: correct
    best = max(dev, key=lambda s: sum(dev[s]) / len(dev[s]))
    values = torch.tensor(dev[best], dtype=torch.float64)
    return best, values.mean(), values.std()


def pick_by_test(dev, test):
    best = max(test, key=lambda s: statistics.fmean(test[s]))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


def pick_by_max(dev, test):
    best = max(dev, key=lambda s: max(dev[s]))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


def pick_population_sd(dev, test):
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    return best, statistics.fmean(dev[best]), float(np.std(dev[best]))


def pick_reports_test(dev, test):
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    return best, statistics.fmean(test[best]), statistics.stdev(test[best])


def pick_by_median(dev, test):  # "more robust", but the exercise asks for the mean
    best = max(dev, key=lambda s: statistics.median(dev[s]))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


def pick_sorts_in_place(dev, test):
    for values in dev.values():
        values.sort()
    return pick_numpy(dev, test)


@pytest.mark.parametrize("style", [pick_numpy, pick_torch])
def test_pick_setting_accepts(style, capsys):
    check.pick_setting(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (pick_by_test, r"(?s)hand case.*best \*test\* score"),
    (pick_by_max, r"(?s)hand case.*best single seed"),
    (pick_population_sd, r"(?s)hand case.*population sd"),
    (pick_reports_test, r"(?s)hand case.*its test scores"),
    (pick_sorts_in_place, r"changed the dicts"),
    (pick_by_median, r"(?s)best mean and best median differ.*best \*median\* dev score"),
])
def test_pick_setting_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.pick_setting(bug)


# --- 7.4 freezing the encoder but its top layers ----------------------------------------------------

def freeze_requires_grad_(model, top_layers=0):  # the module method: correct
    model.bert.requires_grad_(False)
    if top_layers:
        model.bert.encoder.layers[-top_layers:].requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def freeze_by_name(model, top_layers=0):  # by parameter names and layer numbers: correct
    L = model.config.num_hidden_layers
    for name, p in model.named_parameters():
        layer = int(name.split(".")[3]) if name.startswith("bert.encoder.layers.") else None
        p.requires_grad = (name.startswith("classifier") or (top_layers > 0 and name.startswith("bert.pooler"))
                           or (layer is not None and layer >= L - top_layers))
    return sum(p.numel() for p in filter(lambda p: p.requires_grad, model.parameters()))


def freeze_eval_only(model, top_layers=0):
    model.eval()
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def freeze_everything(model, top_layers=0):
    model.requires_grad_(False)
    return 0


def freeze_keeps_pooler(model, top_layers=0):
    freeze_requires_grad_(model, top_layers)
    model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def freeze_layers_only(model, top_layers=0):
    freeze_requires_grad_(model, top_layers)
    model.bert.embeddings.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def freeze_counts_tensors(model, top_layers=0):
    freeze_requires_grad_(model, top_layers)
    return len([p for p in model.parameters() if p.requires_grad])


def freeze_counts_all(model, top_layers=0):
    freeze_requires_grad_(model, top_layers)
    return sum(p.numel() for p in model.parameters())


def freeze_bottom_layers(model, top_layers=0):  # layers[:k]: the bottom, next to the embeddings
    model.bert.requires_grad_(False)
    if top_layers:
        model.bert.encoder.layers[:top_layers].requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def freeze_pooler_stays_frozen(model, top_layers=0):
    model.bert.requires_grad_(False)
    if top_layers:
        model.bert.encoder.layers[-top_layers:].requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def freeze_one_too_many(model, top_layers=0):  # layers[-top_layers - 1:]: k + 1 layers
    model.bert.requires_grad_(False)
    if top_layers:
        model.bert.encoder.layers[-top_layers - 1:].requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def freeze_one_argument(model):  # the old exercise's signature
    return freeze_requires_grad_(model)


@pytest.mark.parametrize("style", [freeze_requires_grad_, freeze_by_name])
def test_freeze_encoder_accepts(style, capsys):
    check.freeze_encoder(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (freeze_eval_only, r"model\.eval\(\) only switches dropout off"),
    (freeze_everything, r"classifier \(model\.classifier\) must stay trainable"),
    (freeze_keeps_pooler, r"pooler is still trainable"),
    (freeze_layers_only, r"embeddings are still trainable"),
    (freeze_counts_tensors, r"counts parameter tensors"),
    (freeze_counts_all, r"count of all the parameters"),
    (freeze_bottom_layers, r"top_layers=1.*a bottom layer is trainable"),
    (freeze_pooler_stays_frozen, r"top_layers=1.*the pooler is frozen"),
    (freeze_one_too_many, r"top_layers=1.*2 layers are trainable, not 1"),
    (freeze_one_argument, r"raised TypeError"),
])
def test_freeze_encoder_rejects(bug, message):
    with pytest.raises(ExerciseError, match="(?s)" + message):
        check.freeze_encoder(bug)
