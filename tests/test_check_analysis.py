"""The checkers of chapter 06's exercises accept the solutions and other correct styles, let the stubs'
NotImplementedError through, and reject the mistakes learners make with feedback that names them."""


import numpy as np
import pytest
import torch
from helpers import checker_contract

from minibert import check
from minibert.check import ExerciseError

EXERCISES = [("offset_score", "my_offset_score"), ("attention_entropy", "my_attention_entropy"),
             ("head_mask_hook", "my_head_mask_hook"), ("probe", "my_probe_accuracy")]
SOLUTIONS, STUBS, test_the_solution_passes, test_the_stub_raises_not_implemented = checker_contract(
    "06_what_attention_learns", EXERCISES)


# --- 6.1 offset score ---------------------------------------------------------------------------

def _pairs(T, offset):
    return [(i, i + offset) for i in range(T) if 0 <= i + offset < T]


def offset_loops(probs, mask, offset):  # plain Python loops, a list back: correct
    B, nh, T, _ = probs.shape
    out = []
    for h in range(nh):
        vals = [probs[b, h, i, j].item() for b in range(B) for i, j in _pairs(T, offset) if mask[b, i] and mask[b, j]]
        out.append(sum(vals) / len(vals))
    return out


def offset_numpy(probs, mask, offset):  # numpy, float32: correct
    p, m = probs.numpy().astype(np.float32), mask.numpy().astype(bool)
    d = np.diagonal(p, offset=offset, axis1=-2, axis2=-1)  # (B, nh, P)
    i = np.arange(d.shape[-1]) + max(0, -offset)
    valid = m[:, i] & m[:, i + offset]
    return (d * valid[:, None]).sum((0, 2)) / valid.sum()


def offset_pair_grid(probs, mask, offset):  # a (T, T) 0/1 matrix of the pairs (i, i + offset), any mask: correct
    T = probs.shape[-1]
    pairs = torch.from_numpy(np.eye(T, k=offset)).bool()  # row i, column i + offset
    real = mask.bool()
    valid = (real[:, :, None] & real[:, None, :] & pairs).to(probs.dtype)  # (B, T, T)
    return torch.einsum("bhij,bij->h", probs, valid) / valid.sum()


def offset_by_sign(probs, mask, offset):  # slices chosen by the sign of offset: mask[:, :-0] is empty at offset 0
    d = torch.diagonal(probs, offset=offset, dim1=-2, dim2=-1)
    m = mask.bool()
    valid = (m[:, :-offset] & m[:, offset:]) if offset >= 0 else (m[:, -offset:] & m[:, :offset])
    return (d * valid[:, None]).sum((0, 2)) / valid.sum()


def offset_by_lengths(probs, mask, offset):  # each row's first mask.sum() tokens taken as the real ones
    lengths = mask.sum(1)
    return offset_loops(probs, (torch.arange(mask.shape[1])[None] < lengths[:, None]).long(), offset)


def offset_wrong_direction(probs, mask, offset):
    return offset_loops(probs, mask, -offset)


def offset_transposed(probs, mask, offset):  # probs[i + offset, i]: from the other token to i
    return offset_loops(probs.transpose(-1, -2), mask, offset)


def offset_ignores_mask(probs, mask, offset):
    return offset_loops(probs, torch.ones_like(mask), offset)


def offset_query_mask_only(probs, mask, offset):
    B, nh, T, _ = probs.shape
    return [np.mean([probs[b, h, i, j].item() for b in range(B) for i, j in _pairs(T, offset) if mask[b, i]])
            for h in range(nh)]


def offset_per_sentence(probs, mask, offset):
    return np.mean([offset_loops(probs[b:b + 1], mask[b:b + 1], offset) for b in range(len(probs))], axis=0)


def offset_roll(probs, mask, offset):  # wraps around the ends
    B, nh, T, _ = probs.shape
    j = (torch.arange(T) + offset) % T
    vals = probs[:, :, torch.arange(T), j]
    valid = (mask.bool() & mask.bool()[:, j]).double()
    return (vals * valid[:, None]).sum((0, 2)) / valid.sum()


def offset_mean_over_heads(probs, mask, offset):
    return torch.tensor(offset_loops(probs, mask, offset)).mean()


def offset_pairs_from_lengths(probs, mask, offset):  # L - |offset| pairs a sentence, not clamped at 0
    B, nh, T, _ = probs.shape
    total = sum(probs[b, :, i, j] for b in range(B) for i, j in _pairs(T, offset) if mask[b, i] and mask[b, j])
    return total / (mask.sum(1) - abs(offset)).sum()


def offset_one_sentence_unmasked(probs, mask, offset):  # mask.squeeze(): a batch of one taken as unpadded
    if mask.squeeze().dim() == 1:
        return torch.diagonal(probs, offset=offset, dim1=-2, dim2=-1).mean(dim=(0, 2))
    return offset_loops(probs, mask, offset)


def offset_in_place(probs, mask, offset):
    probs.masked_fill_(~mask.bool()[:, None, :, None], 0.0)  # clears padded queries' rows in the caller's tensor
    return offset_loops(probs, mask, offset)


@pytest.mark.parametrize("style", [offset_loops, offset_numpy, offset_pair_grid])
def test_offset_score_accepts(style, capsys):
    check.offset_score(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (offset_wrong_direction, r"(?s)hand case .*offset -1.*opposite offset"),
    (offset_transposed, r"(?s)hand case .*opposite offset.*rows are queries"),
    (offset_ignores_mask, r"(?s)random case .*lengths.*counts padded positions"),
    (offset_query_mask_only, r"(?s)random case .*key is padding"),
    (offset_per_sentence, r"(?s)random case .*per-sentence means"),
    (offset_roll, r"hand case .*offset -1"),
    (offset_mean_over_heads, r"one number per head.*\n.*not over the heads"),
    (offset_in_place, r"changed its input"),
    (offset_by_sign, r"hand case .*offset 0: your function raised"),
    (offset_by_lengths, r"(?s)padded on the LEFT.*first mask.sum\(\) positions"),
    (offset_pairs_from_lengths, r"(?s)real lengths \[6, 2, 5\], offset 3.*\n.*shorter than \|offset\|.*not a negative"),
    (offset_one_sentence_unmasked,
     r"(?s)random case \(B, nh, T\) = \(1, 3, 8\), real lengths \[5\], offset -1.*expected"),
])
def test_offset_score_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.offset_score(bug)


# --- 6.2 attention entropy ----------------------------------------------------------------------

def entropy_loops(probs, mask):  # loops over rows, math.log: correct
    B, nh, T, _ = probs.shape
    out = []
    for h in range(nh):
        rows = [-sum(p * np.log(p) for p in probs[b, h, i].tolist() if p > 0)
                for b in range(B) for i in range(T) if mask[b, i]]
        out.append(float(np.mean(rows)))
    return np.array(out)


def entropy_eps(probs, mask):  # an epsilon inside the log: correct to 1e-9
    h = -(probs * torch.log(probs + 1e-12)).sum(-1).float()
    return h[mask.bool()[:, None].expand_as(h)].view(-1).new_tensor(
        [h[:, k][mask.bool()].mean().item() for k in range(h.shape[1])])


def entropy_selected_rows(probs, mask):  # the real queries' rows picked by a boolean index: correct
    rows = probs.permute(0, 2, 1, 3)[mask.bool()]  # (N, nh, T): every real query of the batch
    return -torch.special.xlogy(rows, rows).sum(-1).mean(0)


def entropy_by_lengths(probs, mask):  # each row's first mask.sum() queries taken as the real ones
    h = -torch.special.xlogy(probs, probs).sum(-1)
    return torch.cat([h[b, :, :int(mask[b].sum())] for b in range(len(h))], dim=-1).mean(-1)


def entropy_eps_in_log(probs, mask):  # ln(p + 1e-4): a one-hot row's entropy comes out below 0
    h = -(probs * torch.log(probs + 1e-4)).sum(-1)
    return (h * mask[:, None]).sum((0, 2)) / mask.sum()


def entropy_over_all_positions(probs, mask):  # real queries summed, divided by every position B·T
    h = -torch.special.xlogy(probs, probs).sum(-1)
    return (h * mask[:, None]).sum((0, 2)) / mask.numel()


def entropy_log2(probs, mask):
    return entropy_loops(probs, mask) / np.log(2)


def entropy_nan(probs, mask):
    h = -(probs * probs.log()).sum(-1)
    return (h * mask[:, None]).sum((0, 2)) / mask.sum()


def entropy_padded_queries(probs, mask):
    return entropy_loops(probs, torch.ones_like(mask))


def entropy_no_minus(probs, mask):
    return -entropy_loops(probs, mask)


def entropy_wrong_axis(probs, mask):
    h = -torch.special.xlogy(probs, probs).sum(-2)
    return (h * mask[:, None]).sum((0, 2)) / mask.sum()


def entropy_per_sentence(probs, mask):
    return np.mean([entropy_loops(probs[b:b + 1], mask[b:b + 1]) for b in range(len(probs))], axis=0)


def entropy_mean_over_keys(probs, mask):
    h = -torch.special.xlogy(probs, probs).mean(-1)
    return (h * mask[:, None]).sum((0, 2)) / mask.sum()


def entropy_normalised(probs, mask):  # divided by ln(number of real keys): 1 = uniform
    h = -torch.special.xlogy(probs, probs).sum(-1) / torch.log(mask.sum(1).double())[:, None, None]
    return (h * mask[:, None]).sum((0, 2)) / mask.sum()


@pytest.mark.parametrize("style", [entropy_loops, entropy_eps, entropy_selected_rows])
def test_attention_entropy_accepts(style, capsys):
    check.attention_entropy(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (entropy_log2, r"(?s)hand case.*bits"),
    (entropy_normalised, r"(?s)hand case.*normalised"),  # not "bits": over 2 keys the two look alike
    (entropy_nan, r"NaN.*0 · log 0"),
    (entropy_padded_queries, r"(?s)padded query.*padded queries"),
    (entropy_no_minus, r"negative\n.*minus sign"),
    (entropy_wrong_axis, r"(?s)random case .*dim -2"),
    (entropy_per_sentence, r"(?s)random case .*per-sentence means"),
    (entropy_mean_over_keys, r"(?s)hand case.*expected \[1\.386294, 0\.0\].*received \[0\.346574"),
    (entropy_by_lengths, r"(?s)padded on the LEFT.*first mask.sum\(\) positions"),
    # Equal to "padded queries counted" on the hand case only (its padded row has entropy 0): no hint.
    (entropy_over_all_positions, r"padded query:\n  expected \[1\.386294\]\n  received \[1\.109035\]$"),
    (entropy_eps_in_log, r"hand case.*\n  expected \[1\.386294, 0\.0\]\n  received \[1\.385894, -0\.0001\]$"),
])
def test_attention_entropy_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.attention_entropy(bug)


# --- 6.3 the head-mask hook ---------------------------------------------------------------------

def hook_in_place(head, head_size):  # zeroing in place: right forward, but autograd saved that tensor
    def hook(module, args):
        args[0][..., head * head_size:(head + 1) * head_size] = 0
    return hook


def hook_multiply(head, head_size):  # a 0/1 vector, a bare tensor returned: correct
    def hook(module, args):
        keep = torch.ones(args[0].shape[-1])
        keep[head * head_size:(head + 1) * head_size] = 0
        return args[0] * keep
    return hook


def hook_concatenated(head, head_size):  # a new context from three pieces, args passed through: correct
    def hook(module, args):
        c = args[0]
        a, b = head * head_size, (head + 1) * head_size
        return (torch.cat([c[..., :a], torch.zeros_like(c[..., a:b]), c[..., b:]], dim=-1), *args[1:])
    return hook


def hook_on_the_weights(head, head_size):  # zeroes W_O's columns: right once, and the head stays silenced
    def hook(module, args):
        with torch.no_grad():
            module.weight[:, head * head_size:(head + 1) * head_size] = 0
    return hook


def hook_keep_cached(head, head_size):  # the 0/1 tensor built at the first call, shaped like that batch
    keep = []
    def hook(module, args):
        if not keep:
            keep.append(torch.ones_like(args[0]))
            keep[0][..., head * head_size:(head + 1) * head_size] = 0
        return (args[0] * keep[0],)
    return hook


def hook_end_one_short(head, head_size):  # "columns h·hs to (h + 1)·hs − 1" taken as the slice's end
    def hook(module, args):
        c = args[0].clone()
        c[..., head * head_size:(head + 1) * head_size - 1] = 0
        return (c,)
    return hook


def hook_heads_from_one(head, head_size):
    def hook(module, args):
        c = args[0].clone()
        c[..., (head - 1) * head_size:head * head_size] = 0
        return (c,)
    return hook


def hook_next_head(head, head_size):
    return hook_multiply(head + 1, head_size)


def hook_keeps_only_head(head, head_size):
    def hook(module, args):
        out = torch.zeros_like(args[0])
        out[..., head * head_size:(head + 1) * head_size] = args[0][..., head * head_size:(head + 1) * head_size]
        return (out,)
    return hook


def hook_rows(head, head_size):  # zeroes token positions instead of columns
    def hook(module, args):
        c = args[0].clone()
        c[:, head * head_size:(head + 1) * head_size] = 0
        return (c,)
    return hook


def hook_no_return(head, head_size):
    def hook(module, args):
        c = args[0].clone()
        c[..., head * head_size:(head + 1) * head_size] = 0
    return hook


def hook_wrong_slice(head, head_size):
    def hook(module, args):
        c = args[0].clone()
        c[..., head:head + head_size] = 0
        return (c,)
    return hook


def hook_fixed_size(head, head_size):
    def hook(module, args):
        c = args[0].clone()
        c[..., head * 32:(head + 1) * 32] = 0  # MiniLM's head size, hard-coded
        return (c,)
    return hook


def hook_detached_copy(head, head_size):  # the copy made off the graph: right forward, no gradient
    def hook(module, args):
        c = args[0].detach().clone()
        c[..., head * head_size:(head + 1) * head_size] = 0
        return (c,)
    return hook


def hook_zeros_under_no_grad(head, head_size):  # the right forward, the zeros unseen by autograd
    def hook(module, args):
        c = args[0].clone()
        with torch.no_grad():
            c[..., head * head_size:(head + 1) * head_size] = 0
        return (c,)
    return hook


def hook_not_a_function(head, head_size):
    return head * head_size


@pytest.mark.parametrize("style", [hook_multiply, hook_concatenated])
def test_head_mask_hook_accepts(style, capsys):
    check.head_mask_hook(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (hook_next_head, r"head \+ 1"),
    (hook_keeps_only_head, r"kept only that head"),
    (hook_rows, r"leave the tokens"),
    (hook_no_return, r"nothing changed"),
    (hook_wrong_slice, r"random 4-head layer.*head 3"),
    (hook_fixed_size, r"random 4-head layer"),
    (hook_not_a_function, r"expected a function"),
    (hook_on_the_weights, r"changed the output projection itself"),
    (hook_keep_cached, r"(?s)run again on a batch.*raised.*first batch was right"),
    (hook_end_one_short, r"zeroed the columns 0 to 4; head 0 \(head_size 6\) owns the columns 0 to 5"),
    (hook_heads_from_one, r"zeroed the columns \(none\); head 0"),
    (hook_in_place, r"(?s)backpropagated.*the backward raised.*\n  hint: your hook changed args\[0\] in place"),
    (hook_detached_copy, r"(?s)backpropagated.*gets no gradient.*\n  hint: .*cut off from the graph"),
    (hook_zeros_under_no_grad, r"(?s)backpropagated.*a gradient other than masked_heads.*\n  hint: .*torch.no_grad"),
])
def test_head_mask_hook_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.head_mask_hook(bug)


# --- 6.4 a linear probe ----------------------------------------------------------------------------

PROBE = SOLUTIONS["my_probe_accuracy"]
F = torch.nn.functional


def no_bias(train_x, train_y, test_x, test_y):
    A = train_x.double(); T = F.one_hot(train_y).double()
    W = torch.linalg.lstsq(A, T).solution
    return ((test_x.double() @ W).argmax(-1) == test_y).double().mean().item()

def fit_on_test(train_x, train_y, test_x, test_y):
    return PROBE(test_x, test_y, test_x, test_y)

def score_train(train_x, train_y, test_x, test_y):
    return PROBE(train_x, train_y, train_x, train_y)

def fit_on_both(train_x, train_y, test_x, test_y):
    return PROBE(torch.cat([train_x, test_x]), torch.cat([train_y, test_y]), test_x, test_y)

def in_place(train_x, train_y, test_x, test_y):
    m, s = train_x.mean(0), train_x.std(0)
    train_x -= m; train_x /= s; test_x -= m; test_x /= s
    return PROBE(train_x, train_y, test_x, test_y)

def double_in_place(train_x, train_y, test_x, test_y):  # .double() copies float32 inputs, not float64 ones
    x, t = train_x.double(), test_x.double()
    m, s = x.mean(0), x.std(0).clamp_min(1e-6)
    x -= m; x /= s; t -= m; t /= s
    return PROBE(x, train_y, t, test_y)

def alpha_tuned_on_test(train_x, train_y, test_x, test_y):  # the best of six ridge penalties, by test accuracy
    from minibert.analysis import probe_accuracy
    return max(probe_accuracy(train_x, train_y, test_x, test_y, alpha=a) for a in (0.01, 0.1, 1.0, 10.0, 100.0, 1e3))

def count(train_x, train_y, test_x, test_y):
    return PROBE(train_x, train_y, test_x, test_y) * len(test_y)

def classes_from_test(train_x, train_y, test_x, test_y):
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    A = torch.cat([(train_x - mean) / std, torch.ones(len(train_x), 1)], 1).double()
    T = F.one_hot(train_y, int(test_y.max()) + 1).double()
    W = torch.linalg.lstsq(A, T).solution
    B = torch.cat([(test_x - mean) / std, torch.ones(len(test_x), 1)], 1).double()
    return ((B @ W).argmax(-1) == test_y).double().mean().item()

def _standardised_probe(train_x, train_y, test_x, test_y, *, centre, scale, classes):
    """A ridge probe whose standardisation and class count are the caller's (the usual slips)."""
    m, s = centre(train_x, test_x), scale(train_x, test_x)
    A = torch.cat([(train_x - m[0]) / s[0], torch.ones(len(train_x), 1)], 1).double()
    T = torch.zeros(len(train_y), classes(train_y), dtype=torch.float64)
    T[torch.arange(len(train_y)), train_y.clamp_max(classes(train_y) - 1)] = 1.0
    W = torch.linalg.solve(A.T @ A + torch.eye(A.shape[1], dtype=A.dtype), A.T @ T)
    B = torch.cat([(test_x - m[1]) / s[1], torch.ones(len(test_x), 1)], 1).double()
    return ((B @ W).argmax(-1) == test_y).double().mean().item()

def each_set_by_its_own_statistics(train_x, train_y, test_x, test_y):
    return _standardised_probe(train_x, train_y, test_x, test_y, centre=lambda a, b: (a.mean(0), b.mean(0)),
                               scale=lambda a, b: (a.std(0), b.std(0).clamp_min(1e-6)),
                               classes=lambda y: int(y.max()) + 1)

def one_std_for_all_features(train_x, train_y, test_x, test_y):
    return _standardised_probe(train_x, train_y, test_x, test_y, centre=lambda a, b: (a.mean(),) * 2,
                               scale=lambda a, b: (a.std(),) * 2, classes=lambda y: int(y.max()) + 1)

def as_many_classes_as_distinct_tags(train_x, train_y, test_x, test_y):
    return _standardised_probe(train_x, train_y, test_x, test_y, centre=lambda a, b: (a.mean(0),) * 2,
                               scale=lambda a, b: (a.std(0).clamp_min(1e-6),) * 2,
                               classes=lambda y: len(torch.unique(y)))

def std_as_it_is(train_x, train_y, test_x, test_y):  # 0 / 0 on a feature constant over the training words
    return _standardised_probe(train_x, train_y, test_x, test_y, centre=lambda a, b: (a.mean(0),) * 2,
                               scale=lambda a, b: (a.std(0),) * 2, classes=lambda y: int(y.max()) + 1)

def standardised_with_all_words(train_x, train_y, test_x, test_y):  # training and test words' statistics together
    both = torch.cat([train_x, test_x])
    return _standardised_probe(train_x, train_y, test_x, test_y, centre=lambda a, b: (both.mean(0),) * 2,
                               scale=lambda a, b: (both.std(0).clamp_min(1e-6),) * 2,
                               classes=lambda y: int(y.max()) + 1)

def unseen_tags_left_out(train_x, train_y, test_x, test_y):  # test words of a tag no training word has, dropped
    known = torch.isin(test_y, train_y)
    return PROBE(train_x, train_y, test_x[known], test_y[known])

def ones_standardised_too(train_x, train_y, test_x, test_y):  # the bias column becomes (1 - 1) / std = 0
    A = torch.cat([train_x, torch.ones(len(train_x), 1)], 1).double()
    B = torch.cat([test_x, torch.ones(len(test_x), 1)], 1).double()
    mean, std = A.mean(0), A.std(0).clamp_min(1e-6)
    A, B = (A - mean) / std, (B - mean) / std
    W = torch.linalg.solve(A.T @ A + torch.eye(A.shape[1], dtype=A.dtype), A.T @ F.one_hot(train_y).double())
    return ((B @ W).argmax(-1) == test_y).double().mean().item()

def clipped_features(train_x, train_y, test_x, test_y):  # standardised features clipped to [-3, 3]: not linear
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    A = torch.cat([((train_x - mean) / std).clamp(-3, 3), torch.ones(len(train_x), 1)], 1).double()
    B = torch.cat([((test_x - mean) / std).clamp(-3, 3), torch.ones(len(test_x), 1)], 1).double()
    W = torch.linalg.solve(A.T @ A + torch.eye(A.shape[1], dtype=A.dtype), A.T @ F.one_hot(train_y).double())
    return ((B @ W).argmax(-1) == test_y).double().mean().item()

def score_nearest_one(train_x, train_y, test_x, test_y):  # the tag whose score is nearest its one-hot 1
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    A = torch.cat([(train_x - mean) / std, torch.ones(len(train_x), 1)], 1).double()
    W = torch.linalg.lstsq(A, F.one_hot(train_y).double()).solution
    B = torch.cat([(test_x - mean) / std, torch.ones(len(test_x), 1)], 1).double()
    return ((B @ W - 1).abs().argmin(-1) == test_y).double().mean().item()

def argmax_wrong_axis(train_x, train_y, test_x, test_y):
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    A = torch.cat([(train_x - mean) / std, torch.ones(len(train_x), 1)], 1).double()
    T = F.one_hot(train_y).double()
    W = torch.linalg.lstsq(A, T).solution
    B = torch.cat([(test_x - mean) / std, torch.ones(len(test_x), 1)], 1).double()
    scores = B @ W
    pred = scores.argmax(0)  # over the words
    return float((pred[:len(test_y)] == test_y[:len(pred)]).double().mean()) if len(pred) else 0.0

def sklearn_logistic(train_x, train_y, test_x, test_y):
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler
    sc = StandardScaler().fit(train_x.numpy())
    clf = LogisticRegression(max_iter=2000).fit(sc.transform(train_x.numpy()), train_y.numpy())
    return np.mean(clf.predict(sc.transform(test_x.numpy())) == test_y.numpy())

def torch_softmax_regression(train_x, train_y, test_x, test_y):
    torch.manual_seed(0)
    mean, std = train_x.mean(0), train_x.std(0) + 1e-6
    x = (train_x - mean) / std
    lin = torch.nn.Linear(x.shape[1], int(train_y.max()) + 1)
    opt = torch.optim.Adam(lin.parameters(), lr=0.05)
    for _ in range(300):
        opt.zero_grad(); loss = F.cross_entropy(lin(x), train_y) + 1e-3 * lin.weight.pow(2).sum(); loss.backward(); opt.step()
    with torch.no_grad():
        return (lin((test_x - mean) / std).argmax(-1) == test_y).float().mean()

def numpy_lstsq(train_x, train_y, test_x, test_y):
    X, Y = np.asarray(train_x, dtype=np.float64), np.asarray(train_y)
    mu = X.mean(0)
    A = np.hstack([X - mu, np.ones((len(X), 1))])
    T = np.eye(Y.max() + 1)[Y]
    W = np.linalg.solve(A.T @ A + 1.0 * np.eye(A.shape[1]), A.T @ T)
    B = np.hstack([np.asarray(test_x, dtype=np.float64) - mu, np.ones((len(test_x), 1))])
    return np.mean((B @ W).argmax(1) == np.asarray(test_y))


def hidden_layer(train_x, train_y, test_x, test_y):  # a small MLP: it reads more than a linear map can
    g = torch.Generator().manual_seed(0)
    mean, std = train_x.double().mean(0), train_x.double().std(0).clamp_min(1e-6)
    x = ((train_x.double() - mean) / std).float()
    W1 = (torch.randn(x.shape[1], 64, generator=g) / x.shape[1] ** 0.5).requires_grad_()
    b1 = torch.zeros(64, requires_grad=True)
    W2 = (torch.randn(64, int(train_y.max()) + 1, generator=g) / 8).requires_grad_()
    opt = torch.optim.Adam([W1, b1, W2], lr=0.01)
    for _ in range(500):
        opt.zero_grad()
        F.cross_entropy(torch.relu(x @ W1 + b1) @ W2, train_y).backward()
        opt.step()
    with torch.no_grad():
        t = ((test_x.double() - mean) / std).float()
        return ((torch.relu(t @ W1 + b1) @ W2).argmax(-1) == test_y).float().mean().item()


@pytest.mark.parametrize("style", [sklearn_logistic, torch_softmax_regression, numpy_lstsq])
def test_probe_accepts(style, capsys):
    check.probe(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (no_bias, r"add a bias"),
    (fit_on_test, r"random labels.*near chance"),
    (score_train, r"random labels.*near chance"),
    (fit_on_both, r"random labels.*near chance"),
    (in_place, r"changed its input train_x in place"),
    (alpha_tuned_on_test, r"relabelled.*sum to.*\n.*predictions depend on test_y"),
    (double_in_place, r"in float64: your function changed its input train_x in place.*\n.*`.double\(\)`.*itself"),
    (count, r"not a count"),
    (classes_from_test, r"12 classes.*raised"),
    (argmax_wrong_axis, r"expected 1.0"),
    (each_set_by_its_own_statistics, r"(?s)tag 1 only.*expected 1.0.*which statistics did yours use"),
    (one_std_for_all_features, r"(?s)100 times smaller.*each feature with its own training mean and std"),
    (as_many_classes_as_distinct_tags, r"(?s)no word of tag 2.*how many distinct tags there are is not K"),
    (std_as_it_is, r"(?s)feature 4 equal to 0 on every word.*0 / 0 = nan.*clamp_min"),
    (ones_standardised_too, r"(?s)38 training words of tag 0 and 2 of tag 1.*expected 1.0.*standardised is"),
    (score_nearest_one, r"(?s)6 times as far from the middle.*expected 1.0.*the largest score, however far past 1"),
    (clipped_features, r"(?s)slanted line.*accuracy 0.000, expected 1.0.*not linear \(clipping"),
    (standardised_with_all_words, r"(?s)100 times as far out.*expected 1.0.*statistics that take in the test words"),
    (hidden_layer, r"(?s)tag 1 at both ends.*no linear probe gets more than 2 of the 3.*\n.*hint: .*hidden layer"),
    (unseen_tags_left_out, r"(?s)a tag that no training word has.*accuracy 1.000, expected 0.8.*\n.*hint: "
                           r"1.0 is what leaving the 5 words of tag 2 out gives"),
])
def test_probe_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.probe(bug)


def alpha_on_every_entry(train_x, train_y, test_x, test_y):  # A.T @ A + alpha: α 11ᵀ, not α I
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    design = lambda x: torch.cat([((x - mean) / std).double(), torch.ones(len(x), 1, dtype=torch.float64)], 1)
    W = torch.linalg.solve(design(train_x).T @ design(train_x) + 1.0, design(train_x).T @ F.one_hot(train_y).double())
    return ((design(test_x) @ W).argmax(-1) == test_y).double().mean().item()


def test_probe_rejects_alpha_on_every_entry():
    with pytest.raises(ExerciseError,
                       match=r"(?s)fewer words than features.*expected 1.0.*\n  hint: .*α on the diagonal"):
        check.probe(alpha_on_every_entry)
