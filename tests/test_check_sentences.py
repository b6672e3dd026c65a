"""The checkers of chapter 07's exercises accept the solutions and other correct styles, let the stubs'
NotImplementedError through, and reject the mistakes learners make with feedback that names them."""

import math
import statistics

import numpy as np
import pytest
import torch
from helpers import checker_contract

from minibert import check
from minibert.check import ExerciseError

EXERCISES = [("head_tail", "my_head_tail"), ("sequence_loss", "my_sequence_loss"),
             ("pick_setting", "my_pick_setting"), ("freeze_encoder", "my_freeze_encoder")]
SOLUTIONS, STUBS, test_the_solution_passes, test_the_stub_raises_not_implemented = checker_contract(
    "07_sentences_and_pairs", EXERCISES)


# --- 7.1 a text too long for the window: its head and its tail -----------------------------------

def _checked(max_length, head):  # the arguments refused, as the exercise asks
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: need max_length >= 2 and 0 <= head <= max_length - 2")


def ht_loop(ids, max_length, head, cls, sep):  # one token at a time: correct
    if max_length < 2:
        raise ValueError(f"max_length={max_length} < 2")
    if head < 0 or head > max_length - 2:
        raise ValueError(f"head={head} outside 0..{max_length - 2}")
    n, out = len(ids), [cls]
    for i, token in enumerate(ids):
        if n + 2 <= max_length or i < head or i >= n - (max_length - 2 - head):
            out.append(token)
    return out + [sep]


def ht_indices(ids, max_length, head, cls, sep):  # the positions kept, written out: correct
    _checked(max_length, head)
    n = len(ids)
    if n > max_length - 2:
        keep = [*range(head), *range(n - (max_length - 2 - head), n)]
    else:
        keep = range(n)
    return tuple([cls] + [int(ids[i]) for i in keep] + [sep])


def ht_numpy(ids, max_length, head, cls, sep):  # numpy, an int64 array back: correct
    _checked(max_length, head)
    a = np.asarray(ids, dtype=np.int64)
    if a.size + 2 > max_length:
        tail = max_length - 2 - head
        a = np.concatenate([a[:head], a[a.size - tail:]])
    return np.concatenate([[cls], a, [sep]]).astype(np.int64)


def ht_minus_zero(ids, max_length, head, cls, sep):  # ids[-tail:] with tail == 0 is the whole text
    _checked(max_length, head)
    if len(ids) + 2 <= max_length:
        return [cls, *ids, sep]
    return [cls, *ids[:head], *ids[-(max_length - 2 - head):], sep]


def ht_specials_not_counted(ids, max_length, head, cls, sep):  # max_length places for the text alone
    _checked(max_length, head)
    if len(ids) <= max_length:
        return [cls, *ids, sep]
    return [cls, *ids[:head], *ids[len(ids) - (max_length - head):], sep]


def ht_fits_without_specials(ids, max_length, head, cls, sep):  # the cut is right, the fit test forgets 2
    _checked(max_length, head)
    n, tail = len(ids), max_length - 2 - head
    return [cls, *ids, sep] if n <= max_length else [cls, *ids[:head], *ids[n - tail:], sep]


def ht_swapped(ids, max_length, head, cls, sep):  # the first `tail` and the last `head`
    _checked(max_length, head)
    n, tail = len(ids), max_length - 2 - head
    return [cls, *ids, sep] if n + 2 <= max_length else [cls, *ids[:tail], *ids[n - head:], sep]


def ht_tail_first(ids, max_length, head, cls, sep):
    _checked(max_length, head)
    n, tail = len(ids), max_length - 2 - head
    return [cls, *ids, sep] if n + 2 <= max_length else [cls, *ids[n - tail:], *ids[:head], sep]


def ht_tail_one_long(ids, max_length, head, cls, sep):
    _checked(max_length, head)
    n, tail = len(ids), max_length - 2 - head
    return [cls, *ids, sep] if n + 2 <= max_length else [cls, *ids[:head], *ids[n - tail - 1:], sep]


def ht_tail_one_short(ids, max_length, head, cls, sep):
    _checked(max_length, head)
    n, tail = len(ids), max_length - 2 - head
    return [cls, *ids, sep] if n + 2 <= max_length else [cls, *ids[:head], *ids[n - tail + 1:], sep]


def ht_always_cut(ids, max_length, head, cls, sep):  # no test whether the text fits
    _checked(max_length, head)
    return [cls, *ids[:head], *ids[len(ids) - (max_length - 2 - head):], sep]


def ht_no_sep(ids, max_length, head, cls, sep):
    _checked(max_length, head)
    n, tail = len(ids), max_length - 2 - head
    return [cls, *ids] if n + 2 <= max_length else [cls, *ids[:head], *ids[n - tail:]]


def ht_in_place(ids, max_length, head, cls, sep):  # cuts the caller's list
    _checked(max_length, head)
    if len(ids) + 2 > max_length:
        del ids[head:len(ids) - (max_length - 2 - head)]
    return [cls, *ids, sep]


def ht_padded(ids, max_length, head, cls, sep):
    out = ht_loop(ids, max_length, head, cls, sep)
    return out + [0] * (max_length - len(out))


def ht_never_refuses(ids, max_length, head, cls, sep):  # no ValueError: a bad head gives a silent cut
    n, tail = len(ids), max_length - 2 - head
    return [cls, *ids, sep] if n + 2 <= max_length else [cls, *ids[:head], *ids[n - tail:], sep]


def ht_refuses_only_long_texts(ids, max_length, head, cls, sep):  # checks head where it cuts, too late
    if len(ids) + 2 <= max_length:
        return [cls, *ids, sep]
    _checked(max_length, head)
    return ht_never_refuses(ids, max_length, head, cls, sep)


def ht_mute_error(ids, max_length, head, cls, sep):  # a ValueError that names nothing
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError("bad arguments")
    return ht_never_refuses(ids, max_length, head, cls, sep)


def ht_bert_ids(ids, max_length, head, cls, sep):  # BERT's [CLS] and [SEP] written in, not the arguments
    return ht_loop(ids, max_length, head, 101, 102)


def ht_python_ints_only(ids, max_length, head, cls, sep):  # rejects np.int64 arguments
    if not isinstance(max_length, int) or not isinstance(head, int):
        raise TypeError("max_length and head must be int")
    return ht_loop(ids, max_length, head, cls, sep)


@pytest.mark.parametrize("style", [ht_loop, ht_indices, ht_numpy])
def test_head_tail_accepts(style, capsys):
    check.head_tail(style)
    assert "✓ head_tail:" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (ht_minus_zero, r"(?s)head=max_length-2.*tail=0.*what does ids\[-0:\] return\?"),
    (ht_specials_not_counted, r"(?s)the worked example.*\[CLS\] and \[SEP\] take 2 of the max_length=7 places"),
    (ht_fits_without_specials, r"(?s)one token too many.*\[CLS\] and \[SEP\] take 2"),
    (ht_swapped, r"(?s)the worked example.*yours kept the first 3 and the last 2 tokens"),
    (ht_tail_first, r"(?s)the worked example.*tail before the head"),
    (ht_tail_one_long, r"(?s)the worked example.*yours kept 4 tokens from the end"),
    (ht_tail_one_short, r"(?s)the worked example.*yours kept 2 tokens from the end"),
    (ht_always_cut, r"(?s)room to spare.*the text fits here.*nothing appears twice"),
    (ht_no_sep, r"(?s)the worked example.*no \[SEP\] at the end"),
    (ht_in_place, r"changed the list it was given"),
    (ht_padded, r"(?s)room to spare.*do not pad"),
    (ht_never_refuses, r"max_length=1.*expected a ValueError, your function returned"),
    (ht_refuses_only_long_texts, r"(?s)ids=\[1, 2\].*whatever the text.*expected a ValueError"),
    (ht_mute_error, r"(?s)your ValueError says 'bad arguments'.*name the values"),
    (ht_python_ints_only, r"numpy ints.*raised TypeError"),
    (ht_bert_ids, r"(?s)cls_id=2, sep_id=3.*expected \[2, 11, 12, 18, 19, 20, 3\].*yours wrote BERT's 101"),
])
def test_head_tail_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.head_tail(bug)


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


def loss_logsumexp(logits, labels):  # the stable formulas by hand (logsumexp, softplus), reshape for K = 1: correct
    if logits.shape[-1] == 1:
        return ((logits.reshape(-1) - labels) ** 2).mean()
    if not labels.dtype.is_floating_point:
        return (torch.logsumexp(logits, -1) - logits.gather(1, labels[:, None])[:, 0]).mean()
    return (F.softplus(logits) - logits * labels.to(logits.dtype)).mean()


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
                                   with_loss(head_linear, loss_by_hand), with_loss(head_linear, loss_logsumexp)])
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
    (one_kind("multi", lambda z, y: -(y * z.sigmoid().log() + (1 - y) * (1 - z.sigmoid()).log()).mean()),
     r"(?s)large logits.*the loss is (inf|nan).*log of those is −inf"),
    (one_kind("multi", lambda z, y: F.binary_cross_entropy(z.sigmoid(), y.to(z.dtype))),
     r"(?s)large logits.*expected 63.9555, received 69.3796.*wrong on these large ones"),
    (one_kind("single", lambda z, y: -z.softmax(-1)[torch.arange(len(y)), y].log().mean()),
     r"(?s)large logits.*one class each.*the loss is inf.*log of those is −inf"),
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


def pick_by_total(dev, test):  # the same ranking as the mean only when every setting has as many seeds
    best = max(dev, key=lambda s: sum(dev[s]))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


def pick_sorts_in_place(dev, test):
    for values in dev.values():
        values.sort()
    return pick_numpy(dev, test)


def pick_rounded_means(dev, test):  # the table's rounding used to choose: near-ties go to the first setting
    best = max(dev, key=lambda s: round(float(np.mean(dev[s])), 2))
    return best, float(np.mean(dev[best])), float(np.std(dev[best], ddof=1))


def pick_best_from_zero(dev, test):  # a running best started at 0, never beaten when every mean is below 0
    best, top = None, 0.0
    for setting, scores in dev.items():
        if statistics.fmean(scores) > top:
            best, top = setting, statistics.fmean(scores)
    return best, top, statistics.stdev(dev[best]) if best else 0.0


def pick_one_pass_sd(dev, test):  # √((Σx² − n·m²) / (n − 1)): two nearly equal sums subtracted
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    xs, n = dev[best], len(dev[best])
    m = sum(xs) / n
    return best, m, math.sqrt(max(sum(x * x for x in xs) - n * m * m, 0.0) / (n - 1))


def pick_centred_in_place(dev, test):  # x -= mean on np.asarray of whole numbers: an int64 array
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    x = np.asarray(dev[best])
    m = x.mean()
    x -= m
    return best, float(m), float(np.sqrt((x * x).sum() / (len(x) - 1)))


def pick_falsy_best(dev, test):  # `not best_mean` taken for "nothing chosen yet": a best mean of 0.0 is dropped
    best, best_mean = None, None
    for setting, scores in dev.items():
        mean = statistics.fmean(scores)
        if not best_mean or mean > best_mean:
            best, best_mean = setting, mean
    return best, best_mean, statistics.stdev(dev[best])


def pick_on_shared_seeds(dev, test):  # compared on the first k seeds, k the fewest any setting has
    k = min(len(v) for v in dev.values())
    best = max(dev, key=lambda s: statistics.fmean(dev[s][:k]))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


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
    (pick_rounded_means, r"(?s)agree to two decimals.*received \('a'.*once rounded to two decimals"),
    (pick_by_total, r"(?s)4 and 2 seeds.*received \('a'.*mean dev score over its seeds is the highest"),
    (pick_best_from_zero, r"(?s)every mean below 0.*received \(None.*\n.*hint: no setting was chosen.*started at 0"),
    (pick_one_pass_sd, r"(?s)scores in percent.*\n.*hint: every seed of 'a' scored the same.*one-pass form"),
    (pick_falsy_best, r"(?s)the best mean exactly 0.*expected \('a', 0\.0, 0\.1414.*received \('b'"),
    (pick_on_shared_seeds, r"(?s)3 and 2 seeds, the third one deciding.*received \('b'.*first seeds only"),
    (pick_centred_in_place, r"(?s)whole-number percentages.*raised.*\n.*hint: whole-number scores make an integer "
                            r"array.*in-place `-=`"),
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


def freeze_names_as_substrings(model, top_layers=0):  # "layers.1" in "...layers.10.": right below 11 layers
    L = model.config.num_hidden_layers
    for name, p in model.named_parameters():
        frozen = name.startswith("bert.embeddings") or any(f"layers.{i}" in name for i in range(L - top_layers))
        p.requires_grad = not frozen and (top_layers > 0 or not name.startswith("bert."))
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def freeze_encoder_in_eval_mode(model, top_layers=0):  # right requires_grad, but model.bert's dropout is off
    freeze_requires_grad_(model, top_layers)
    model.bert.eval()
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


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


def freeze_never_unfreezing(model, top_layers=0):  # right on a fresh model; one frozen before stays frozen
    frozen = [model.bert.embeddings, *model.bert.encoder.layers[:len(model.bert.encoder.layers) - top_layers]]
    for module in frozen + ([] if top_layers else [model.bert.pooler]):
        for p in module.parameters():
            p.requires_grad = False
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def freeze_counts_bytes(model, top_layers=0):  # four bytes a number: true of float32 only
    freeze_requires_grad_(model, top_layers)
    return sum(p.element_size() * p.numel() // 4 for p in model.parameters() if p.requires_grad)


def freeze_one_argument(model):  # the old exercise's signature
    return freeze_requires_grad_(model)


@pytest.mark.parametrize("style", [freeze_requires_grad_, freeze_by_name])
def test_freeze_encoder_accepts(style, capsys):
    check.freeze_encoder(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (freeze_eval_only, r"model\.eval\(\) only switches dropout off"),
    (freeze_names_as_substrings, r"12 layers, top_layers=2.*\n.*layer 10 is one of the top 2, yet frozen.*layers.1"),
    (freeze_encoder_in_eval_mode, r"switched model.bert to eval mode"),
    (freeze_everything, r"classifier \(model\.classifier\) must stay trainable"),
    (freeze_keeps_pooler, r"pooler is still trainable"),
    (freeze_layers_only, r"embeddings are still trainable"),
    (freeze_counts_tensors, r"counts parameter tensors"),
    (freeze_counts_all, r"count of all the parameters"),
    (freeze_bottom_layers, r"top_layers=1.*a bottom layer is trainable"),
    (freeze_pooler_stays_frozen, r"top_layers=1.*the pooler is frozen"),
    (freeze_one_too_many, r"top_layers=1.*2 layers are trainable, not 1"),
    (freeze_one_argument, r"raised TypeError"),
    (freeze_counts_bytes, r"held in bfloat16, top_layers=2: expected 18210.*received 9105.*\n.*bytes over 4"),
    (freeze_never_unfreezing, r"given top_layers=0, then 2:.*stays frozen from the call with top_layers=0"),
])
def test_freeze_encoder_rejects(bug, message):
    with pytest.raises(ExerciseError, match="(?s)" + message):
        check.freeze_encoder(bug)


def loss_one_hot_without_k(hidden, pooler_weight, pooler_bias, weight, bias, labels):  # one_hot: max + 1 columns
    logits = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias) @ weight.T + bias
    if logits.shape[-1] == 1:
        return logits, F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype))
    if labels.dtype.is_floating_point:
        return logits, F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    return logits, F.cross_entropy(logits, F.one_hot(labels).to(logits.dtype))


def test_sequence_loss_rejects_classes_counted_from_the_labels():
    with pytest.raises(ExerciseError, match=r"(?s)no example of class 2.*raised.*\n  hint: .*weight.shape\[0\]"):
        check.sequence_loss(loss_one_hot_without_k)


def head_pooled_detached(hidden, Wp, bp, W, b):  # the values right, the pooler and hidden cut off the graph
    return torch.tanh(hidden[:, 0] @ Wp.T + bp).detach() @ W.T + b


def loss_from_floats(logits, labels):  # the loss's value right, rebuilt from a Python float: no graph at all
    return torch.tensor(loss_functional(logits, labels).item(), dtype=logits.dtype)


@pytest.mark.parametrize("bug, message", [
    (with_loss(head_pooled_detached), r"gradient case, K = 2.*gradient does not reach `hidden`"),
    (with_loss(head_linear, loss_from_floats), r"gradient case, K = 2.*the loss does not require grad"),
])
def test_sequence_loss_rejects_a_cut_gradient(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.sequence_loss(bug)
