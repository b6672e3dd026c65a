"""The checkers of chapter 07's exercises accept the solutions and other correct styles, let the stubs'
NotImplementedError through, and reject the mistakes learners make with feedback that names them."""

import statistics

import numpy as np
import pytest
import torch
from helpers import checker_contract

from minibert import check
from minibert.check import ExerciseError

EXERCISES = [("encode_pair", "my_encode_pair"), ("sequence_logits", "my_sequence_logits"),
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


# --- 7.2 the head by hand ------------------------------------------------------------------------

def head_linear(hidden, Wp, bp, W, b):  # torch.nn.functional: correct
    return torch.nn.functional.linear(torch.tanh(torch.nn.functional.linear(hidden[:, 0, :], Wp, bp)), W, b)


def head_einsum(hidden, Wp, bp, W, b):  # einsum, float32: correct
    pooled = torch.tanh(torch.einsum("bh,oh->bo", hidden[:, 0].float(), Wp.float()) + bp.float())
    return torch.einsum("bh,kh->bk", pooled, W.float()) + b.float()


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


@pytest.mark.parametrize("style", [head_linear, head_einsum])
def test_sequence_logits_accepts(style, capsys):
    check.sequence_logits(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (head_no_tanh, r"hand case.*no tanh"),
    (head_mean, r"hand case.*mean of all the tokens"),
    (head_last, r"hand case.*last position"),
    (head_W_transposed, r"hand case.*W is used transposed"),
    (head_Wp_transposed, r"hand case.*pooler's weight is used transposed"),
    (head_softmax, r"hand case.*probabilities"),
    (head_no_pooler, r"hand case.*pooler is skipped"),
])
def test_sequence_logits_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.sequence_logits(bug)


def test_sequence_logits_names_a_shape_error():
    def square_only(hidden, Wp, bp, W, b):  # right on the square hand case, a shape error on K != H
        return torch.tanh(hidden[:, 0] @ Wp.T + bp) @ W.T + b if W.shape[0] == W.shape[1] else (
            torch.tanh(hidden[:, 0] @ Wp.T + bp) @ W + b)
    with pytest.raises(ExerciseError, match=r"random .*RuntimeError.*\(out, in\)"):
        check.sequence_logits(square_only)


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
