"""The checkers of chapter 09's exercises accept the solutions and other correct styles, let the stubs'
NotImplementedError through, and reject the mistakes learners make with feedback that names them."""

import math
import statistics

import numpy as np
import pytest
import torch
from helpers import checker_contract
from scipy import stats

from minibert import check
from minibert.check import ExerciseError

EXERCISES = [("ltr_labels", "my_ltr_labels"), ("difference_interval", "my_difference_interval"),
             ("concat_last_four", "my_concat_last_four"), ("weighted_sum_last_four", "my_weighted_sum_last_four")]
SOLUTIONS, STUBS, test_the_solution_passes, test_the_stub_raises_not_implemented = checker_contract(
    "09_ablations", EXERCISES)


# --- 9.1 the left-to-right LM's labels -----------------------------------------------------------

def ltr_loop(input_ids, attention_mask):  # row by row, lists: correct
    out = []
    for ids, mask in zip(input_ids.tolist(), attention_mask.tolist()):
        n = sum(mask)
        out.append([ids[t + 1] if t + 1 < n else -100 for t in range(len(ids))])
    return torch.tensor(out)


def ltr_where(input_ids, attention_mask):  # torch.where on a shifted copy: correct
    shifted = torch.cat([input_ids[:, 1:], torch.zeros_like(input_ids[:, :1])], 1)
    real_next = torch.cat([attention_mask[:, 1:], torch.zeros_like(attention_mask[:, :1])], 1)
    return torch.where(real_next.bool(), shifted, torch.tensor(-100))


def ltr_mask_by_current(input_ids, attention_mask):  # -100 where the *current* token is padding
    labels = torch.full_like(input_ids, -100)
    labels[:, :-1] = input_ids[:, 1:]
    return labels.masked_fill(attention_mask == 0, -100)


def ltr_no_ignore(input_ids, attention_mask):
    labels = torch.full_like(input_ids, -100)
    labels[:, :-1] = input_ids[:, 1:]
    return labels


def ltr_roll(input_ids, attention_mask):
    return torch.roll(input_ids, -1, dims=1).masked_fill(attention_mask == 0, -100)


def ltr_copy(input_ids, attention_mask):
    return input_ids.masked_fill(attention_mask == 0, -100)


def ltr_previous(input_ids, attention_mask):
    labels = torch.full_like(input_ids, -100)
    labels[:, 1:] = input_ids[:, :-1]
    return labels.masked_fill(attention_mask == 0, -100)


def ltr_in_place(input_ids, attention_mask):
    input_ids[:, :-1] = input_ids[:, 1:].clone()
    input_ids[:, -1] = -100
    return input_ids


def ltr_short(input_ids, attention_mask):  # (B, T - 1): the last position dropped
    return input_ids[:, 1:].masked_fill(attention_mask[:, 1:] == 0, -100)


def ltr_by_pad_id(input_ids, attention_mask):  # padding told by its id, 0, instead of by the mask
    labels = torch.full_like(input_ids, -100)
    labels[:, :-1] = input_ids[:, 1:].masked_fill(input_ids[:, 1:] == 0, -100)
    return labels


def ltr_lengths(input_ids, attention_mask):  # each row's length, and slices (an empty row skipped): correct
    labels = torch.full_like(input_ids, -100)
    for b, n in enumerate(attention_mask.sum(1).tolist()):
        if n > 0:
            labels[b, :n - 1] = input_ids[b, 1:n]
    return labels


def ltr_lengths_empty_row(input_ids, attention_mask):  # n = 0: labels[b, :-1] is T - 1 wide, input_ids[b, 1:0] empty
    labels = torch.full_like(input_ids, -100)
    for b, n in enumerate(attention_mask.sum(1).tolist()):
        labels[b, :n - 1] = input_ids[b, 1:n]
    return labels


def ltr_zero_ignored(input_ids, attention_mask):
    labels = ltr_where(input_ids, attention_mask)
    return labels.masked_fill(labels == -100, 0)


def ltr_float(input_ids, attention_mask):
    return ltr_where(input_ids, attention_mask).float()


@pytest.mark.parametrize("style", [ltr_loop, ltr_where, ltr_lengths])
def test_ltr_labels_accepts(style, capsys):
    check.ltr_labels(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (ltr_mask_by_current, r"(?s)a padded row.*last real token is \[PAD\]"),
    (ltr_no_ignore, r"(?s)a padded row.*padding is labelled"),
    (ltr_roll, r"(?s)no padding.*torch.roll wraps around"),
    (ltr_copy, r"(?s)no padding.*the inputs themselves"),
    (ltr_previous, r"(?s)no padding.*\*previous\* token"),
    (ltr_in_place, r"changed input_ids"),
    (ltr_short, r"expected shape \(1, 5\), received \(1, 4\).*the inputs' shape"),
    (ltr_zero_ignored, r"hold 0; cross_entropy ignores -100"),
    (ltr_float, r"torch.long"),
    (ltr_by_pad_id, r"(?s)RoBERTa's numbering.*padding was found by its id, 0"),
    (ltr_lengths_empty_row, r"(?s)a row of padding only.*raised RuntimeError"),
])
def test_ltr_labels_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.ltr_labels(bug)


# --- 9.2 a difference of means with Welch's interval --------------------------------------------

def welch_scipy(a, b, confidence=0.95):  # scipy's own Welch test: correct
    ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval(confidence)
    return np.mean(a) - np.mean(b), ci.low, ci.high


def welch_numpy(a, b, confidence=0.95):  # numpy arrays and numpy scalars back: correct
    a, b = np.asarray(a), np.asarray(b)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    half = stats.t.ppf(0.5 + confidence / 2, df) * np.sqrt(va + vb)
    return [a.mean() - b.mean(), a.mean() - b.mean() - half, a.mean() - b.mean() + half]


def _welch(a, b, confidence, *, q=None, ddof=1, df=None, per_n=True):
    na, nb = len(a), len(b)
    va, vb = np.var(a, ddof=ddof), np.var(b, ddof=ddof)
    sa, sb = (va / na, vb / nb) if per_n else (va, vb)
    nu = (sa + sb) ** 2 / (sa ** 2 / (na - 1) + sb ** 2 / (nb - 1)) if df is None else df(na, nb)
    d = statistics.fmean(a) - statistics.fmean(b)
    half = (q(confidence) if q else stats.t.ppf((1 + confidence) / 2, nu)) * math.sqrt(sa + sb)
    return d, d - half, d + half


def welch_torch(a, b, confidence=0.95):  # torch tensors in float32, torch's default: correct to float32's rounding
    A, B = torch.tensor(a, dtype=torch.float32), torch.tensor(b, dtype=torch.float32)  # ints too: a float dtype
    va, vb = A.var() / len(a), B.var() / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    d = A.mean() - B.mean()
    half = stats.t.ppf((1 + confidence) / 2, float(df)) * (va + vb).sqrt()
    return d, d - half, d + half


def ci_df_floored(a, b, confidence=0.95):  # Welch's degrees of freedom rounded down to a whole number
    return _welch(a, b, confidence, df=lambda na, nb: math.floor(_welch_df(a, b)))


def ci_rounded(a, b, confidence=0.95):  # rounded to two decimals, as a table shows them
    return tuple(round(float(x), 2) for x in welch_scipy(a, b, confidence))


def _welch_df(a, b):
    sa, sb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    return (sa + sb) ** 2 / (sa ** 2 / (len(a) - 1) + sb ** 2 / (len(b) - 1))


def ci_normal(a, b, confidence=0.95):
    return _welch(a, b, confidence, q=lambda c: stats.norm.ppf((1 + c) / 2))


def ci_normal_past_30(a, b, confidence=0.95):  # a printed table's rule of thumb: the normal quantile past 30 df
    return ci_normal(a, b, confidence) if _welch_df(a, b) > 30 else welch_scipy(a, b, confidence)


def ci_pooled(a, b, confidence=0.95):
    ci = stats.ttest_ind(a, b, equal_var=True).confidence_interval(confidence)
    return statistics.fmean(a) - statistics.fmean(b), ci.low, ci.high


def ci_df_pooled(a, b, confidence=0.95):
    return _welch(a, b, confidence, df=lambda na, nb: na + nb - 2)


def ci_df_min(a, b, confidence=0.95):
    return _welch(a, b, confidence, df=lambda na, nb: min(na, nb) - 1)


def ci_population_sd(a, b, confidence=0.95):
    return _welch(a, b, confidence, ddof=0)


def ci_sd_not_se(a, b, confidence=0.95):
    return _welch(a, b, confidence, per_n=False)


def ci_one_sided(a, b, confidence=0.95):
    return _welch(a, b, 2 * confidence - 1)  # t at `confidence` itself


def ci_b_minus_a(a, b, confidence=0.95):
    return welch_scipy(b, a, confidence)


def ci_always_95(a, b, confidence=0.95):
    return welch_scipy(a, b, 0.95)


def ci_sorted_in_place(a, b, confidence=0.95):
    a.sort()
    return welch_scipy(a, b, confidence)


def ci_normal_past_120(a, b, confidence=0.95):  # a t table's last row (120 df): the normal quantile beyond it
    return ci_normal(a, b, confidence) if _welch_df(a, b) > 120 else welch_scipy(a, b, confidence)


def ci_df_by_ratio(a, b, confidence=0.95):  # ν rewritten with r = s_b²/n_b ÷ s_a²/n_a: divides by zero at s_a = 0
    sa, sb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    r = sb / sa
    return _welch(a, b, confidence, df=lambda na, nb: (1 + r) ** 2 / (1 / (na - 1) + r ** 2 / (nb - 1)))


def ci_two_values(a, b, confidence=0.95):
    return welch_scipy(a, b, confidence)[1:]


def ci_torch_of_ints(a, b, confidence=0.95):  # torch.tensor of whole-number scores is int64: no var for it
    A, B = torch.tensor(a), torch.tensor(b)
    va, vb = A.var() / len(a), B.var() / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    d = A.mean() - B.mean()
    half = stats.t.ppf((1 + confidence) / 2, float(df)) * (va + vb).sqrt()
    return d, d - half, d + half


def ci_centred_in_place(a, b, confidence=0.95):  # x -= mean on np.asarray of ints: an int64 array
    parts = []
    for x in (a, b):
        x = np.asarray(x)
        mean = x.mean()
        x -= mean
        parts.append((mean, (x * x).sum() / (len(x) - 1) / len(x)))
    (ma, va), (mb, vb) = parts
    return _welch_from(ma - mb, va, vb, len(a), len(b), confidence)


def _welch_from(d, va, vb, na, nb, confidence):
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    half = stats.t.ppf((1 + confidence) / 2, df) * math.sqrt(va + vb)
    return d, d - half, d + half


@pytest.mark.parametrize("style", [welch_scipy, welch_numpy, welch_torch])
def test_difference_interval_accepts(style, capsys):
    check.difference_interval(style)
    assert "✓" in capsys.readouterr().out


def test_difference_interval_accepts_minibert_own():
    from minibert.viz import difference_ci

    check.difference_interval(difference_ci)  # a Difference of five fields: its first three are read


@pytest.mark.parametrize("bug, message", [
    (ci_normal, r"(?s)hand case.*normal quantile"),
    (ci_pooled, r"(?s)hand case.*pooled-variance"),
    (ci_df_pooled, r"(?s)hand case.*n_a \+ n_b − 2"),
    (ci_df_min, r"(?s)hand case.*conservative"),
    (ci_population_sd, r"(?s)hand case.*population sd"),
    (ci_sd_not_se, r"(?s)hand case.*not the standard errors"),
    (ci_one_sided, r"(?s)hand case.*one-sided"),
    (ci_b_minus_a, r"(?s)hand case.*mean\(b\) − mean\(a\)"),
    (ci_always_95, r"(?s)confidence=0.9 .*this is the 95% interval"),
    (ci_sorted_in_place, r"changed the lists"),
    (ci_two_values, r"expected a tuple \(difference, low, high\)"),
    (ci_df_floored, r"(?s)hand case.*expected .*1\.990098, 18\.009902.*received \(10\.0, 1\.560015"),
    (ci_rounded, r"(?s)hand case.*received \(10\.0, 1\.99, 18\.01\)"),
    (ci_normal_past_30, r"(?s)hand case.*20 seeds a side, df 38.*\n.*hint: .*normal quantile.*for every ν.*past 30"),
    (ci_normal_past_120, r"(?s)hand case.*70 seeds a side, df 278.*\n.*hint: .*normal quantile"),
    (ci_df_by_ratio, r"(?s)hand case.*every seed of a scored the same"),
    (ci_torch_of_ints, r"(?s)whole-number scores \(Python ints\).*raised RuntimeError.*\n.*hint: whole-number scores"),
    (ci_centred_in_place, r"(?s)whole-number scores \(Python ints\).*raised UFuncTypeError.*\n.*hint: whole-number"),
])
def test_difference_interval_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.difference_interval(bug)


# --- 9.3 the top four hidden states, concatenated or mixed ---------------------------------------

def concat_list(hidden_states):  # indices counted up: correct
    L = len(hidden_states) - 1
    return torch.cat([hidden_states[i] for i in range(max(0, L - 3), L + 1)], dim=2)


def concat_stack_reshape(hidden_states):  # FeatureTagger's way: stack, then reshape: correct
    states = torch.stack(hidden_states[-4:], dim=2)  # (B, T, n, H)
    return states.reshape(*states.shape[:2], -1)


def concat_reversed(hidden_states):
    return torch.cat(hidden_states[-4:][::-1], dim=-1)


def concat_first_four(hidden_states):
    return torch.cat(hidden_states[:4], dim=-1)


def concat_minilm_only(hidden_states):  # layers 3..6, right for MiniLM alone
    return torch.cat(hidden_states[3:7], dim=-1)


def concat_without_last(hidden_states):
    return torch.cat(hidden_states[-5:-1], dim=-1)


def concat_stacked(hidden_states):
    return torch.stack(hidden_states[-4:], dim=2)


def concat_tokens(hidden_states):
    return torch.cat(hidden_states[-4:], dim=1)


def concat_summed(hidden_states):
    return sum(hidden_states[-4:])


def weighted_einsum(hidden_states, mix, scale):  # einsum: correct
    return scale * torch.einsum("n,nbth->bth", mix.softmax(0), torch.stack(hidden_states[-4:]))


def weighted_loop(hidden_states, mix, scale):  # a loop over the layers, the softmax by hand (stable): correct
    weights = torch.exp(mix - mix.max()) / torch.exp(mix - mix.max()).sum()
    return scale * sum(w * h for w, h in zip(weights, hidden_states[-len(mix):]))


def weighted_hand_softmax(hidden_states, mix, scale):  # exp(mix) overflows when a learned weight grows
    weights = torch.exp(mix) / torch.exp(mix).sum()
    return scale * sum(w * h for w, h in zip(weights, hidden_states[-len(mix):]))


def weighted_tolist(hidden_states, mix, scale):  # right values; Python floats carry no gradient to mix
    weights = mix.softmax(0).tolist()
    return scale.item() * sum(w * h for w, h in zip(weights, hidden_states[-len(mix):]))


def weighted_raw(hidden_states, mix, scale):
    return scale * torch.einsum("n,nbth->bth", mix, torch.stack(hidden_states[-4:]))


def weighted_no_scale(hidden_states, mix, scale):
    return torch.einsum("n,nbth->bth", mix.softmax(0), torch.stack(hidden_states[-4:]))


def weighted_reversed(hidden_states, mix, scale):
    return scale * torch.einsum("n,nbth->bth", mix.softmax(0), torch.stack(hidden_states[-4:][::-1]))


def weighted_first_four(hidden_states, mix, scale):
    return scale * torch.einsum("n,nbth->bth", mix.softmax(0), torch.stack(hidden_states[:len(mix)]))


def concat_layers_one_to_four(hidden_states):  # the first four layers after the embeddings
    return torch.cat(hidden_states[1:5], dim=-1)


def concat_interleaved(hidden_states):  # stacked on the last axis, then flattened: numbers interleaved
    return torch.stack(hidden_states[-4:], dim=-1).flatten(-2)


def concat_into_zeros(hidden_states):  # a buffer from torch.zeros: float32, whatever the states are
    top = hidden_states[-4:]
    B, T, H = top[0].shape
    out = torch.zeros(B, T, len(top) * H)
    for k, h in enumerate(top):
        out[..., k * H:(k + 1) * H] = h
    return out


def concat_through_numpy(hidden_states):  # np.concatenate, then torch.from_numpy: numpy has no bfloat16
    return torch.from_numpy(np.concatenate([h.numpy() for h in hidden_states[-4:]], axis=-1))


def weighted_shifted_by_min(hidden_states, mix, scale):  # exponents ≥ 0: overflows when the weights lie far apart
    e = torch.exp(mix - mix.min())
    return scale * torch.einsum("n,nbth->bth", e / e.sum(), torch.stack(hidden_states[-len(mix):]))


def weighted_centred_on_the_mean(hidden_states, mix, scale):  # a single 90 is safe, a wide spread of weights is not
    e = torch.exp(mix - mix.mean())
    return scale * torch.einsum("n,nbth->bth", e / e.sum(), torch.stack(hidden_states[-len(mix):]))


def weighted_in_place(hidden_states, mix, scale):  # sums into the caller's lowest state
    weights, states = mix.softmax(0), hidden_states[-len(mix):]
    out = states[0]
    out *= weights[0]
    for w, h in zip(weights[1:], states[1:]):
        out += w * h
    return scale * out


@pytest.mark.parametrize("checker, style", [("concat_last_four", concat_list), ("concat_last_four", concat_stack_reshape),
                                            ("weighted_sum_last_four", weighted_einsum),
                                            ("weighted_sum_last_four", weighted_loop)])
def test_layer_features_accept(checker, style, capsys):
    getattr(check, checker)(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("checker, bug, message", [
    ("concat_last_four", concat_reversed, r"L=12.*wrong order"),
    ("concat_last_four", concat_first_four, r"L=12.*\*top\* four"),
    ("concat_last_four", concat_minilm_only, r"(?s)L=12.*counted from the end"),
    ("concat_last_four", concat_without_last, r"L=12.*last layer is missing"),
    ("concat_last_four", concat_stacked, r"stacked on a new axis"),
    ("concat_last_four", concat_tokens, r"along the tokens"),
    ("concat_last_four", concat_summed, r"a sum of the four"),
    ("weighted_sum_last_four", weighted_raw, r"raw mix weights"),
    ("weighted_sum_last_four", weighted_no_scale, r"scale γ is missing"),
    ("weighted_sum_last_four", weighted_reversed, r"reverse order"),
    ("weighted_sum_last_four", weighted_first_four, r"L=12.*\*top\* four"),
    ("concat_last_four", concat_layers_one_to_four, r"L=12.*layers 1 to 4 \(hidden_states\[1:5\]\)"),
    ("concat_last_four", concat_interleaved, r"L=12.*interleaved number by number"),
    ("weighted_sum_last_four", weighted_in_place, r"L=12.*changed the hidden states, mix or scale"),
    ("weighted_sum_last_four", weighted_hand_softmax, r"mix=\[90.0.*NaN or inf\n.*exp\(90\)"),
    ("weighted_sum_last_four", weighted_tolist, r"large raw weights.*no gradient reaches mix or scale"),
    ("concat_last_four", concat_into_zeros, r"L=4.*in float64.*your result is torch.float32.*keep their dtype"),
    ("concat_last_four", concat_through_numpy, r"L=4.*in bfloat16.*raised TypeError.*\n.*hint: numpy has no bfloat16"),
    ("weighted_sum_last_four", weighted_shifted_by_min,
     r"mix=\[90.0, 88.0, 89.0, -300.0\].*NaN or inf\n.*the \*largest\*"),
    ("weighted_sum_last_four", weighted_centred_on_the_mean,
     r"mix=\[90.0, 88.0, 89.0, -300.0\].*NaN or inf\n.*the \*largest\*.*or the mean"),
])
def test_layer_features_reject(checker, bug, message):
    with pytest.raises(ExerciseError, match=message):
        getattr(check, checker)(bug)
