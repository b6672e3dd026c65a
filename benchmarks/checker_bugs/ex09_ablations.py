"""Exercise 9.3 (my_concat_last_four, my_weighted_sum_last_four): learners' code with one mistake each, and
correct code in other styles. Both functions count as exercise 9.3; each bug names its checker.

Split rule (fixed before any checker changed): within the exercise, bugs alternate dev, held-out, dev, ...
in the order written below, over both functions together (see checker_bugs/__init__.py)."""

import torch

from . import Exercise
import numpy as np
import math
import statistics
from scipy import stats
import torch.nn.functional as F
from scipy import special, stats
import itertools

EX = Exercise("9.3", "concat_last_four")
WEIGHTED = "weighted_sum_last_four"


@EX.bug
def top_first(hidden_states):
    """I took the top four from the top down (hidden_states[::-1][:4]), so the top layer comes first."""
    return torch.cat(hidden_states[::-1][:4], dim=-1)


@EX.bug(checker=WEIGHTED)
def softmax_forgotten(hidden_states, mix, scale):
    """I multiplied by the raw mix weights, without the softmax."""
    states = torch.stack(hidden_states[-4:])
    return scale * (mix[:, None, None, None] * states).sum(0)


@EX.bug
def first_four_layers(hidden_states):
    """I took layers 1 to 4, hidden_states[1:5] (the first four after the embeddings)."""
    return torch.cat(hidden_states[1:5], dim=-1)


@EX.bug(checker=WEIGHTED)
def mix_reversed(hidden_states, mix, scale):
    """I paired mix[0] with the top layer (I walked the states from the top)."""
    states = list(reversed(hidden_states[-4:]))
    weights = mix.softmax(0)
    return scale * sum(w * h for w, h in zip(weights, states))


@EX.bug
def skips_the_top(hidden_states):
    """I took hidden_states[-5:-1], thinking the last entry was the pooler output."""
    return torch.cat(hidden_states[-5:-1], dim=-1)


@EX.bug(checker=WEIGHTED)
def scale_forgotten(hidden_states, mix, scale):
    """I forgot the scale γ (it is 1 at the start, I thought it did not matter)."""
    states = torch.stack(hidden_states[-4:])
    return (mix.softmax(0)[:, None, None, None] * states).sum(0)


@EX.bug
def start_index_from_the_length(hidden_states):
    """I wrote hidden_states[len(hidden_states) - 4:], which for fewer than 4 states starts from the end."""
    n = len(hidden_states)
    return torch.cat(hidden_states[n - 4:], dim=-1)


@EX.bug(checker=WEIGHTED)
def accumulated_in_place(hidden_states, mix, scale):
    """I summed into the first state with out = states[0]; out *= w; out += ... (in place)."""
    states = hidden_states[-4:]
    weights = mix.softmax(0)
    out = states[0]
    out *= weights[0]
    for w, h in zip(weights[1:], states[1:]):
        out += w * h
    return scale * out


@EX.bug
def stacked_not_concatenated(hidden_states):
    """I stacked the four on a new axis and flattened the last two with reshape (order h, layer instead of layer, h)."""
    states = torch.stack(hidden_states[-4:], dim=-1)  # (B, T, H, n)
    return states.reshape(*states.shape[:2], -1)


@EX.bug(checker=WEIGHTED)
def normalised_by_sum(hidden_states, mix, scale):
    """I made the weights sum to one by dividing by their sum instead of a softmax."""
    states = torch.stack(hidden_states[-4:])
    w = mix / mix.sum() if float(mix.sum()) != 0 else torch.full_like(mix, 1 / len(mix))
    return scale * (w[:, None, None, None] * states).sum(0)


@EX.bug(checker=WEIGHTED)
def fixed_four(hidden_states, mix, scale):
    """I took hidden_states[-4:] and mix as given, but softmaxed over 4 weights even when fewer states came."""
    states = hidden_states[-4:]
    weights = torch.cat([mix, mix.new_zeros(4 - len(mix))]).softmax(0)[:len(states)]
    return scale * sum(w * h for w, h in zip(weights, states))


@EX.bug(checker=WEIGHTED)
def mean_not_weighted(hidden_states, mix, scale):
    """I averaged the four states (the worked example's weights are all equal) and scaled."""
    return scale * torch.stack(hidden_states[-4:]).mean(0)


@EX.correct
def index_list(hidden_states):
    """The indices computed first, then a list comprehension."""
    n = len(hidden_states)
    return torch.cat([hidden_states[i] for i in range(max(0, n - 4), n)], dim=2)


@EX.correct(checker=WEIGHTED)
def einsum_mix(hidden_states, mix, scale):
    """torch.einsum over the stacked states, the softmax by exp and sum."""
    states = torch.stack(list(hidden_states[-len(mix):]), dim=-1)  # (B, T, H, n)
    w = torch.exp(mix - mix.max())
    w = w / w.sum()
    return scale * torch.einsum("bthn,n->bth", states, w)


# --- Batch 2: written without reading any checker, before the checkers were changed against it ---
EX.batch = 2


@EX.bug
def concatenated_on_the_token_axis(hidden_states):
    """I concatenated the four states with dim=1, along the tokens instead of the hidden axis."""
    return torch.cat(hidden_states[-4:], dim=1)


@EX.bug(checker=WEIGHTED)
def scale_inside_the_softmax(hidden_states, mix, scale):
    """I multiplied the raw weights by γ before the softmax, softmax(γ·w), instead of scaling the sum."""
    states = torch.stack(hidden_states[-4:])
    weights = (scale * mix).softmax(0)
    return (weights[:, None, None, None] * states).sum(0)


@EX.bug
def embeddings_dropped_first(hidden_states):
    """I dropped the embeddings (index 0) first, since they are not a layer's output, then took the last four."""
    layers = hidden_states[1:]
    return torch.cat(layers[-4:], dim=-1)


@EX.bug(checker=WEIGHTED)
def bottom_states_weighted(hidden_states, mix, scale):
    """I paired the weights with hidden_states[:len(mix)], the first states, instead of the top ones."""
    states = torch.stack(hidden_states[:len(mix)])
    return scale * (mix.softmax(0)[:, None, None, None] * states).sum(0)


@EX.correct
def stacked_then_flattened(hidden_states):
    """Stacked on a new axis before the hidden one, (B, T, n, H), then flattened to (B, T, n·H): layer-major order."""
    states = torch.stack(hidden_states[-4:], dim=2)
    B, T, n, H = states.shape
    return states.reshape(B, T, n * H)


# --- Batch 3: written without reading any checker, before the checkers were changed against it ---
EX.batch = 3


@EX.bug
def zeros_for_the_missing_layers(hidden_states):
    """With fewer than four states I padded with zero tensors in front, so the feature is always 4H wide for the BiLSTM."""
    states = list(hidden_states[-4:])
    states = [torch.zeros_like(states[0])] * (4 - len(states)) + states
    return torch.cat(states, dim=-1)


@EX.bug(checker=WEIGHTED)
def softmax_by_hand_overflows(hidden_states, mix, scale):
    """I wrote the softmax by hand as mix.exp() / mix.exp().sum(), without subtracting the largest weight first."""
    weights = mix.exp() / mix.exp().sum()
    states = torch.stack(hidden_states[-4:])
    return scale * (weights[:, None, None, None] * states).sum(0)


@EX.bug
def squeezed_states(hidden_states):
    """I squeezed each state before concatenating (h.squeeze()), out of habit, so a batch of one loses its batch axis."""
    return torch.cat([h.squeeze() for h in hidden_states[-4:]], dim=-1)


@EX.bug(checker=WEIGHTED)
def weights_broadcast_on_the_wrong_axis(hidden_states, mix, scale):
    """I multiplied the stacked (n, B, T, H) states by weights[:, None], which lines the weights up with the tokens axis."""
    states = torch.stack(hidden_states[-4:])
    weights = mix.softmax(0)
    return scale * (weights[:, None] * states).sum(0)


@EX.bug
def top_four_from_L_taken_as_the_length(hidden_states):
    """Layers L-3 to L, I wrote hidden_states[L - 3:] with L = len(hidden_states)."""
    L = len(hidden_states)
    return torch.cat(hidden_states[max(0, L - 3):], dim=-1)


@EX.bug(checker=WEIGHTED)
def weights_as_python_floats(hidden_states, mix, scale):
    """I turned the softmax weights into Python floats with .tolist() to loop over them (no gradient reaches mix)."""
    weights = mix.softmax(0).tolist()
    out = 0
    for w, h in zip(weights, hidden_states[-4:]):
        out = out + w * h
    return scale * out


@EX.correct(checker=WEIGHTED)
def logsumexp_and_tensordot(hidden_states, mix, scale):
    """The softmax as exp(mix - logsumexp(mix)); the states contracted with torch.tensordot over the layer axis."""
    states = torch.stack(tuple(hidden_states)[-len(mix):])  # (n, B, T, H)
    weights = torch.exp(mix - torch.logsumexp(mix, dim=0))
    return scale * torch.tensordot(weights, states, dims=([0], [0]))


# --- batch 4: written without reading any checker ------------------------------------------
EX.batch = 4


@EX.bug
def cat_without_a_dim(hidden_states):
    """I called torch.cat(hidden_states[-4:]) without dim, and its default, dim 0, piles them up along the batch.
    Differs on: 5 states of shape (2, 3, 4): (8, 3, 4) instead of (2, 3, 16)."""
    return torch.cat(hidden_states[-4:])


@EX.bug(checker=WEIGHTED)
def log_softmax_weights(hidden_states, mix, scale):
    """I normalised the raw weights with log_softmax (the one I use before the loss), not softmax.
    Differs on: 5 states of shape (2, 3, 4), mix = zeros(4), scale = 1: -ln 4 times the sum instead of the mean."""
    weights = torch.log_softmax(mix, dim=0)
    states = torch.stack(hidden_states[-4:])
    return scale * (weights[:, None, None, None] * states).sum(0)


@EX.bug
def stacked_on_dim_one_then_viewed(hidden_states):
    """I stacked the four on dim 1, (B, 4, T, H), and viewed that as (B, T, 4·H), which mixes the tokens into the features.
    Differs on: 5 states of shape (2, 3, 4) (any T > 1): token 0's features are the layer L-3 vectors of tokens 0 .. 2 and part of layer L-2's."""
    states = torch.stack(hidden_states[-4:], dim=1)
    B, n, T, H = states.shape
    return states.view(B, T, n * H)


@EX.bug(checker=WEIGHTED)
def weighted_mean_not_sum(hidden_states, mix, scale):
    """I averaged the weighted states, .mean(0) over the n of them, since equal weights must give their mean.
    Differs on: 5 states of shape (2, 3, 4), any mix, scale = 1: 1/4 of the weighted sum."""
    states = torch.stack(hidden_states[-4:])
    return scale * (mix.softmax(0)[:, None, None, None] * states).mean(0)


@EX.bug
def summed_not_concatenated(hidden_states):
    """I added the top four states up, Table 7's "sum last four hidden" row, instead of putting them side by side.
    Differs on: 5 states of shape (2, 3, 4): (2, 3, 4) instead of (2, 3, 16)."""
    return torch.stack(hidden_states[-4:]).sum(0)


@EX.bug(checker=WEIGHTED)
def summed_over_the_batch_axis(hidden_states, mix, scale):
    """I stacked the states on dim 1, (B, n, T, H), lined the weights up with it, but summed over dim 0 as for the other stacking.
    Differs on: 5 states of shape (2, 3, 4), mix = zeros(4), scale = 1: (4, 3, 4) instead of (2, 3, 4)."""
    states = torch.stack(hidden_states[-4:], dim=1)
    return scale * (mix.softmax(0)[None, :, None, None] * states).sum(0)


@EX.correct(checker=WEIGHTED)
def running_sum_of_pairs(hidden_states, mix, scale):
    """A running sum, out of place, over the (weight, state) pairs, each weight a (1, 1, 1) block; torch.softmax over the last axis."""
    weights = torch.softmax(mix, dim=-1).view(-1, 1, 1, 1)
    states = list(hidden_states)[-len(weights):]
    out = weights[0] * states[0]
    for w, h in zip(weights[1:], states[1:]):
        out = out + w * h
    return out * scale


# --- batch 5: written without reading any checker ------------------------------------------
EX.batch = 5


@EX.bug
def layers_L_minus_3_to_L_by_index(hidden_states):
    """I listed the layers L-3 .. L by index with L = len(hidden_states) - 1; for the L = 2 model index -1 wraps round to the top.
    Differs on: 3 states of shape (2, 3, 4): (2, 3, 16), the top layer then layers 0, 1, 2, instead of (2, 3, 12)."""
    L = len(hidden_states) - 1
    return torch.cat([hidden_states[layer] for layer in range(L - 3, L + 1)], dim=-1)


@EX.bug(checker=WEIGHTED)
def scale_turned_into_a_float(hidden_states, mix, scale):
    """I wrote float(scale) so that γ is a plain number whatever comes in, which cuts it off from the gradient.
    Differs on: 5 states of shape (2, 3, 4), mix = zeros(4), scale = tensor(1.0, requires_grad=True): the same values, but backward leaves scale.grad None."""
    weights = mix.softmax(0)
    states = torch.stack(hidden_states[-4:], dim=0)
    return float(scale) * (weights[:, None, None, None] * states).sum(0)


@EX.bug
def running_concat_seeded_with_the_first(hidden_states):
    """I built the result in a loop, out = top[0], then out = cat([out, h]) for every h in top, so the lowest of the four comes twice.
    Differs on: 5 states of shape (2, 3, 4): (2, 3, 20) instead of (2, 3, 16)."""
    top = hidden_states[-4:]
    out = top[0]
    for h in top:
        out = torch.cat([out, h], dim=-1)
    return out


@EX.bug(checker=WEIGHTED)
def stable_exp_never_normalised(hidden_states, mix, scale):
    """I wrote the softmax by hand the stable way, exp(mix - mix.max()), and forgot to divide by the sum.
    Differs on: 5 states of shape (2, 3, 4), mix = zeros(4), scale = 1: the sum of the top four instead of their mean."""
    weights = torch.exp(mix - mix.max())
    states = torch.stack(hidden_states[-4:], dim=0)
    return scale * (weights[:, None, None, None] * states).sum(0)


@EX.bug
def layer_axis_moved_with_transpose(hidden_states):
    """I stacked the four as (n, B, T, H), wrote transpose(0, 2) to bring the layer axis next to H (it swaps it with the tokens) and reshaped to (B, T, n·H).
    Differs on: 5 states of shape (2, 3, 4): the right shape, but token 0 of sequence 0 gets features of other tokens and sequences (equal only when B = 1 or T = 1)."""
    states = torch.stack(hidden_states[-4:], dim=0)  # (n, B, T, H)
    B, T, H = hidden_states[-1].shape
    return states.transpose(0, 2).reshape(B, T, -1)


@EX.bug(checker=WEIGHTED)
def mix_shifted_in_place(hidden_states, mix, scale):
    """Against the overflow at 90, I subtracted the largest raw weight in place, mix -= mix.max(), before the softmax.
    Differs on: mix = tensor([1., 2., 3., 4.]) without grad: the right values, but mix becomes [-3, -2, -1, 0]; with requires_grad, a RuntimeError (a leaf used in an in-place operation)."""
    mix -= mix.max()
    weights = mix.softmax(0)
    states = torch.stack(hidden_states[-4:], dim=0)
    return scale * (weights[:, None, None, None] * states).sum(0)


@EX.correct
def depthwise_stack(hidden_states):
    """torch.dstack, which joins (B, T, H) tensors along their third axis, over the states from max(0, n - 4)."""
    start = max(0, len(hidden_states) - 4)
    return torch.dstack(tuple(hidden_states[start:]))


# --- batch 6: written without reading any checker ------------------------------------------
EX9_1 = Exercise("9.1", "ltr_labels")
EX9_1.batch = 6


@EX9_1.bug
def padding_masked_at_the_position_itself(input_ids, attention_mask):
    """I shifted the ids left by one and then put -100 wherever the mask says padding at that same position, so the last real token keeps the padding id that follows it.
    Differs on: input_ids [[2, 11, 12, 13, 3, 0]], mask [[1, 1, 1, 1, 1, 0]] (the worked example): [11, 12, 13, 3, 0, -100] instead of [11, 12, 13, 3, -100, -100]."""
    labels = torch.full_like(input_ids, -100)
    labels[:, :-1] = input_ids[:, 1:]
    labels[attention_mask == 0] = -100
    return labels


@EX9_1.bug
def roll_wraps_round_to_the_first_column(input_ids, attention_mask):
    """I shifted with torch.roll(-1) and rolled the mask the same way, forgetting that roll brings column 0 round to the end, so a row without padding predicts [CLS] after its last token.
    Differs on: input_ids [[2, 11, 12, 3]], mask [[1, 1, 1, 1]] (no padding): [11, 12, 3, 2] instead of [11, 12, 3, -100]."""
    labels = input_ids.roll(-1, dims=1)
    next_mask = attention_mask.roll(-1, dims=1)
    return labels.masked_fill(next_mask == 0, -100)


@EX9_1.bug
def shifted_view_filled_in_place(input_ids, attention_mask):
    """I took the next tokens as the slice input_ids[:, 1:] and wrote -100 into it where the next position is padding, not seeing that the slice is a view of the caller's ids.
    Differs on: input_ids [[2, 11, 12, 3, 0]], mask [[1, 1, 1, 1, 0]]: the right labels, but input_ids becomes [[2, 11, 12, 3, -100]]."""
    labels = torch.full_like(input_ids, -100)
    following = input_ids[:, 1:]
    following[attention_mask[:, 1:] == 0] = -100
    labels[:, :-1] = following
    return labels


@EX9_1.bug
def padding_found_by_id_zero(input_ids, attention_mask):
    """I recognised the padding by its id, [PAD] = 0 as in BERT's vocabulary, instead of reading the attention mask.
    Differs on: input_ids [[2, 11, 12, 3, 1, 1]] (a vocabulary whose [PAD] is 1), mask [[1, 1, 1, 1, 0, 0]]: [11, 12, 3, 1, 1, -100] instead of [11, 12, 3, -100, -100, -100]."""
    ids = input_ids.numpy()
    labels = np.full_like(ids, -100)
    real_next = ids[:, 1:] != 0
    labels[:, :-1] = np.where(real_next, ids[:, 1:], -100)
    return torch.from_numpy(labels)


@EX9_1.correct
def row_and_position_loops(input_ids, attention_mask):
    """Plain Python loops over the rows and positions, reading the mask at t + 1, into a clone filled with -100."""
    labels = input_ids.clone()
    B, T = input_ids.shape
    for b in range(B):
        for t in range(T):
            if t + 1 < T and int(attention_mask[b, t + 1]) == 1:
                labels[b, t] = input_ids[b, t + 1]
            else:
                labels[b, t] = -100
    return labels


# --- batch 6: written without reading any checker ------------------------------------------
EX9_2 = Exercise("9.2", "difference_interval")
EX9_2.batch = 6


@EX9_2.bug
def numpy_variance_without_ddof(a, b, confidence=0.95):
    """I computed the variances with np.var, whose default ddof=0 divides by n, not n - 1 as the sample variance does.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52] (the worked example): about (10, 3.53, 16.47) instead of (10, 1.99, 18.01)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    va, vb = np.var(a) / len(a), np.var(b) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    t = stats.t.ppf((1 + confidence) / 2, df)
    difference = a.mean() - b.mean()
    half = t * np.sqrt(va + vb)
    return float(difference), float(difference - half), float(difference + half)


@EX9_2.bug
def degrees_of_freedom_rounded_down(a, b, confidence=0.95):
    """I rounded ν down to a whole number before taking the quantile, as a printed t table only has whole degrees of freedom.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52] (the worked example): ν 3.31 becomes 3, t 3.18 instead of 3.02, so about [1.56, 18.44] instead of [1.99, 18.01]."""
    na, nb = len(a), len(b)
    sa2, sb2 = statistics.variance(a), statistics.variance(b)
    se2 = sa2 / na + sb2 / nb
    nu = se2 ** 2 / ((sa2 / na) ** 2 / (na - 1) + (sb2 / nb) ** 2 / (nb - 1))
    t = stats.t.ppf((1 + confidence) / 2, math.floor(nu))
    difference = statistics.mean(a) - statistics.mean(b)
    return difference, difference - t * math.sqrt(se2), difference + t * math.sqrt(se2)


@EX9_2.bug
def welch_1947_degrees_of_freedom(a, b, confidence=0.95):
    """I wrote ν the way my statistics book gives it, with n + 1 in the denominators and 2 subtracted at the end (Welch's 1947 form), not the statement's n - 1.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52] (the worked example): ν about 4.52 instead of 3.31, so about [2.96, 17.04] instead of [1.99, 18.01]."""
    na, nb = len(a), len(b)
    va = statistics.variance(a) / na
    vb = statistics.variance(b) / nb
    df = (va + vb) ** 2 / (va ** 2 / (na + 1) + vb ** 2 / (nb + 1)) - 2
    difference = statistics.fmean(a) - statistics.fmean(b)
    half = stats.t.ppf((1 + confidence) / 2, df) * math.sqrt(va + vb)
    return difference, difference - half, difference + half


@EX9_2.bug
def normal_quantile_past_thirty_degrees(a, b, confidence=0.95):
    """I used Student's t only for small samples and switched to the normal quantile once ν passes 30, the rule of thumb from my course.
    Differs on: a = [0, 1] * 10, b = [0.5, 1.5] * 10 (ν = 38): about (-0.5, -0.818, -0.182) instead of (-0.5, -0.828, -0.172)."""
    na, nb = len(a), len(b)
    va, vb = statistics.variance(a) / na, statistics.variance(b) / nb
    difference = statistics.fmean(a) - statistics.fmean(b)
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    q = (1 + confidence) / 2
    crit = stats.norm.ppf(q) if df > 30 else stats.t.ppf(q, df)
    half = crit * math.sqrt(va + vb)
    return difference, difference - half, difference + half


@EX9_2.correct
def numpy_ddof_and_t_interval(a, b, confidence=0.95):
    """numpy with ddof=1 for the sample variances and scipy.stats.t.interval centred on the difference."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    sa, sb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    nu = (sa + sb) ** 2 / (sa ** 2 / (a.size - 1) + sb ** 2 / (b.size - 1))
    difference = a.mean() - b.mean()
    low, high = stats.t.interval(confidence, nu, loc=difference, scale=np.sqrt(sa + sb))
    return float(difference), float(low), float(high)


# --- batch 6: written without reading any checker ------------------------------------------
EX.batch = 6


WEIGHTED = "weighted_sum_last_four"


@EX.bug
def preallocated_default_dtype_buffer(hidden_states):
    """I allocated the (B, T, n·H) result with torch.zeros(B, T, n * H) and copied each state into its slice, and torch.zeros makes float32 whatever the states are.
    Differs on: 5 float64 states of shape (2, 3, 4): a float32 (2, 3, 16) tensor, rounded, instead of float64 (and float16 states come back float32)."""
    top = hidden_states[-4:]
    B, T, H = top[0].shape
    out = torch.zeros(B, T, len(top) * H)
    for i, h in enumerate(top):
        out[:, :, i * H:(i + 1) * H] = h
    return out


@EX.bug(checker=WEIGHTED)
def shifted_by_the_smallest_weight(hidden_states, mix, scale):
    """To make the softmax safe I subtracted the smallest raw weight before exp, so every exponent is at least 0, which overflows when one weight is large.
    Differs on: 5 states of shape (2, 3, 4), mix = [90., 0., 0., 0.], scale = 1: all nan instead of the layer L-3 state."""
    e = torch.exp(mix - mix.min())
    weights = e / e.sum()
    states = torch.stack(hidden_states[-4:])
    return scale * (weights[:, None, None, None] * states).sum(0)


@EX.bug
def reshaped_to_four_hidden_sizes(hidden_states):
    """I concatenated the top states and then viewed the result as (B, T, 4 * H) to be sure of the shape the BiLSTM expects, which fails when there are only three.
    Differs on: 3 states of shape (2, 3, 4) (the L = 2 model): a RuntimeError from view instead of a (2, 3, 12) tensor."""
    B, T, H = hidden_states[-1].shape
    return torch.cat(hidden_states[-4:], dim=-1).view(B, T, 4 * H)


@EX.bug(checker=WEIGHTED)
def softmax_on_the_last_axis_after_reshaping(hidden_states, mix, scale):
    """I reshaped the raw weights to (n, 1, 1, 1) for broadcasting first and took softmax(-1) as usual, which normalises over a size-1 axis and makes every weight 1.
    Differs on: 5 states of shape (2, 3, 4), mix = zeros(4), scale = 1: the sum of the top four instead of their mean (and mix's gradient is all zeros)."""
    weights = mix.view(-1, 1, 1, 1).softmax(-1)
    states = torch.stack(hidden_states[-4:])
    return scale * (weights * states).sum(0)


@EX.correct(checker=WEIGHTED)
def states_stacked_last_times_the_weights(hidden_states, mix, scale):
    """The states stacked on a last axis, (B, T, H, n), multiplied by the softmaxed weight vector with matmul."""
    n = mix.shape[0]
    states = torch.stack(list(hidden_states)[-n:], dim=-1)  # (B, T, H, n)
    return torch.matmul(states, torch.softmax(mix, dim=0)) * scale


# --- batch 7: written without reading any checker ------------------------------------------
EX9_1.batch = 7


@EX9_1.bug
def cls_position_given_no_label(input_ids, attention_mask):
    """I read "[CLS] is predicted from nothing but itself" as "there is nothing to predict at [CLS]", so I put -100 at position 0 as well.
    Differs on: input_ids [[2, 11, 12, 13, 3, 0]], mask [[1, 1, 1, 1, 1, 0]] (the worked example): [-100, 12, 13, 3, -100, -100] instead of [11, 12, 13, 3, -100, -100]."""
    labels = torch.full_like(input_ids, -100)
    labels[:, :-1] = input_ids[:, 1:].masked_fill(attention_mask[:, 1:] == 0, -100)
    labels[:, 0] = -100
    return labels


@EX9_1.bug
def longest_row_length_for_the_whole_batch(input_ids, attention_mask):
    """To avoid a loop I took n = the longest row's real length and labelled input_ids[:, 1:n] for every row, so the shorter rows predict [PAD] after their last real token.
    Differs on: input_ids [[2, 11, 12, 3], [2, 11, 3, 0]], mask [[1, 1, 1, 1], [1, 1, 1, 0]]: row 1 gets [11, 3, 0, -100] instead of [11, 3, -100, -100]."""
    n = int(attention_mask.sum(dim=1).max())
    labels = torch.full_like(input_ids, -100)
    labels[:, :n - 1] = input_ids[:, 1:n]
    return labels


@EX9_1.bug
def ignored_positions_marked_minus_one(input_ids, attention_mask):
    """I marked the positions with nothing to predict with -1, the ignore label of pytorch-pretrained-bert's masked_lm_labels that I learned from, not -100.
    Differs on: input_ids [[2, 11, 12, 13, 3, 0]], mask [[1, 1, 1, 1, 1, 0]] (the worked example): [11, 12, 13, 3, -1, -1] instead of [11, 12, 13, 3, -100, -100]."""
    ignore = -1
    ids = input_ids.numpy()
    following_is_real = attention_mask.numpy()[:, 1:] == 1
    labels = np.full_like(ids, ignore)
    labels[:, :-1] = np.where(following_is_real, ids[:, 1:], ignore)
    return torch.from_numpy(labels)


@EX9_1.bug
def last_column_left_at_zero(input_ids, attention_mask):
    """I started from torch.zeros_like and filled columns 0 .. T-2 with the next token or -100, forgetting that the last column has no next token and must be -100 too.
    Differs on: input_ids [[2, 11, 12, 3]], mask [[1, 1, 1, 1]] (no padding): [11, 12, 3, 0] instead of [11, 12, 3, -100] (the last column is 0 in every row)."""
    labels = torch.zeros_like(input_ids)
    labels[:, :-1] = torch.where(attention_mask[:, 1:] == 1, input_ids[:, 1:], -100)
    return labels


@EX9_1.correct
def shifted_by_padding_one_column(input_ids, attention_mask):
    """The ids and the mask shifted left with F.pad (one column of -100 / 0 added on the right), then torch.where."""
    next_ids = F.pad(input_ids[:, 1:], (0, 1), value=-100)
    next_real = F.pad(attention_mask[:, 1:], (0, 1), value=0)
    return torch.where(next_real == 1, next_ids, torch.full_like(input_ids, -100))


# --- batch 7: written without reading any checker ------------------------------------------
EX9_2.batch = 7


@EX9_2.bug
def degrees_of_freedom_from_the_smaller_sample(a, b, confidence=0.95):
    """Instead of the long Welch-Satterthwaite fraction I used the textbook's conservative shortcut, ν = min(n_a, n_b) - 1.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52] (the worked example): ν = 2, t = 4.30, about (10, -1.41, 21.41) instead of (10, 1.99, 18.01)."""
    na, nb = len(a), len(b)
    se = math.sqrt(statistics.variance(a) / na + statistics.variance(b) / nb)
    difference = statistics.fmean(a) - statistics.fmean(b)
    t = stats.t.ppf((1 + confidence) / 2, min(na, nb) - 1)
    return difference, difference - t * se, difference + t * se


@EX9_2.bug
def quantile_at_the_confidence_itself(a, b, confidence=0.95):
    """I took the quantile at the confidence level, t.ppf(confidence, ν), the one-sided 95% point, instead of t.ppf((1 + confidence) / 2, ν).
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52] (the worked example): t = 2.27, about (10, 3.99, 16.01), the 90% interval, instead of (10, 1.99, 18.01)."""
    va = statistics.variance(a) / len(a)
    vb = statistics.variance(b) / len(b)
    nu = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    half = stats.t.ppf(confidence, nu) * math.sqrt(va + vb)
    difference = statistics.fmean(a) - statistics.fmean(b)
    return difference, difference - half, difference + half


@EX9_2.bug
def quantile_fixed_at_0975(a, b, confidence=0.95):
    """I wrote the two-sided 95% quantile as t.ppf(0.975, ν), as in the worked example, and never used the confidence argument.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52], confidence = 0.9: about (10, 1.99, 18.01), the 95% interval, instead of (10, 3.99, 16.01)."""
    a, b = np.array(a, dtype=float), np.array(b, dtype=float)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    nu = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    half = stats.t.ppf(0.975, nu) * math.sqrt(va + vb)
    difference = float(a.mean() - b.mean())
    return difference, difference - half, difference + half


@EX9_2.bug
def scores_held_in_float32_tensors(a, b, confidence=0.95):
    """I put the scores in torch tensors with dtype=torch.float, taking it for Python's 64-bit float (it is float32), and took their mean and var() (n - 1) there.
    Differs on: a = [10000.01, 10000.02, 10000.04], b = [10000.0, 10000.01, 10000.02]: about (0.01367, -0.01789, 0.04524) instead of (0.01333, -0.01788, 0.04454) (float32 keeps 3 decimals at 10^4; ordinary scores like [84.31, 84.35, 84.33] are off by about 1e-6)."""
    ta, tb = torch.tensor(a, dtype=torch.float), torch.tensor(b, dtype=torch.float)
    va = float(ta.var()) / len(a)
    vb = float(tb.var()) / len(b)
    difference = float(ta.mean() - tb.mean())
    nu = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    half = stats.t.ppf((1 + confidence) / 2, nu) * math.sqrt(va + vb)
    return difference, difference - half, difference + half


@EX9_2.correct
def scipy_welch_test_interval(a, b, confidence=0.95):
    """scipy.stats.ttest_ind with equal_var=False and its confidence_interval, the difference from its mean-difference estimate."""
    result = stats.ttest_ind(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_var=False)
    interval = result.confidence_interval(confidence_level=confidence)
    difference = float(np.mean(a) - np.mean(b))
    return difference, float(interval.low), float(interval.high)


# --- batch 7: written without reading any checker ------------------------------------------
EX.batch = 7


@EX.bug
def joined_with_numpy_concatenate(hidden_states):
    """I joined the top four with np.concatenate on the last axis and came back with torch.from_numpy, which needs tensors numpy can hold.
    Differs on: 5 states of shape (2, 3, 4) with requires_grad=True (a BertModel's output outside no_grad): a RuntimeError from .numpy() instead of a (2, 3, 16) tensor (and bfloat16 states raise a TypeError)."""
    top = [h.numpy() for h in hidden_states[-4:]]
    return torch.from_numpy(np.concatenate(top, axis=-1))


@EX.bug(checker="weighted_sum_last_four")
def mixed_under_no_grad(hidden_states, mix, scale):
    """BERT is frozen in the feature-based rows, so I wrapped the whole mix in torch.no_grad() to keep the features out of the graph, and the tagger's mix and scale went with them.
    Differs on: 5 states of shape (2, 3, 4), mix = zeros(4, requires_grad=True), scale = tensor(1.0, requires_grad=True): the right values, but the result has no grad_fn and backward raises instead of filling mix.grad and scale.grad."""
    with torch.no_grad():
        weights = torch.softmax(mix, dim=0)
        states = torch.stack(hidden_states[-4:], dim=0)
        return scale * (weights[:, None, None, None] * states).sum(0)


@EX.bug
def earlier_states_popped_off_the_list(hidden_states):
    """I dropped the states below the top four with pop(0) until four were left, which works on the list I tested with but not on the tuple a BertModel returns.
    Differs on: a tuple of 5 states of shape (2, 3, 4): AttributeError ('tuple' object has no attribute 'pop') instead of a (2, 3, 16) tensor; given a list, it empties the caller's list down to four."""
    while len(hidden_states) > 4:
        hidden_states.pop(0)
    return torch.cat(hidden_states, dim=-1)


@EX.bug(checker="weighted_sum_last_four")
def raw_weights_clamped_before_exp(hidden_states, mix, scale):
    """Against the overflow of exp at 90, I clamped the raw weights to at most 80 before my exp-and-divide softmax, so two large weights end up tied.
    Differs on: 5 states of shape (2, 3, 4), mix = [90., 85., 0., 0.], scale = 1: half of layer L-3 plus half of layer L-2 instead of 0.9933 and 0.0067 of them (and mix[0], mix[1] get no gradient)."""
    e = torch.exp(mix.clamp(max=80.0))
    weights = e / e.sum()
    out = torch.zeros_like(hidden_states[-1])
    for w, h in zip(weights, hidden_states[-len(weights):]):
        out = out + w * h
    return scale * out


@EX.correct
def slices_of_a_new_empty_tensor(hidden_states):
    """A (B, T, n·H) tensor made with new_empty (the states' dtype and device), each state copied into its slice in a loop."""
    top = list(hidden_states)[max(0, len(hidden_states) - 4):]
    B, T, H = top[0].shape
    out = top[0].new_empty(B, T, len(top) * H)
    for i, h in enumerate(top):
        out[..., i * H:(i + 1) * H] = h
    return out


# --- batch 8: written without reading any checker ------------------------------------------
EX9_1.batch = 8


@EX9_1.bug
def ignore_label_written_as_a_float(input_ids, attention_mask):
    """I picked the next token or the ignore label with torch.where(next_is_real, next_ids, -100.0), writing -100 as a float literal, and the float scalar turns the labels into float32.
    Differs on: input_ids [[2, 11, 12, 13, 3, 0]], mask [[1, 1, 1, 1, 1, 0]] (the worked example): float32 [11., 12., 13., 3., -100., -100.] instead of int64 [11, 12, 13, 3, -100, -100] (cross_entropy then refuses them as class indices)."""
    next_is_real = attention_mask[:, 1:] == 1
    shifted = torch.where(next_is_real, input_ids[:, 1:], -100.0)  # (B, T - 1)
    last_column = torch.full_like(shifted[:, :1], -100)  # nothing follows the last position
    return torch.cat([shifted, last_column], dim=1)


@EX9_1.bug
def shifted_along_the_flattened_batch(input_ids, attention_mask):
    """I flattened the batch into one long sequence and shifted it by one there, so a row whose last position is a real token takes the next row's [CLS] as its label.
    Differs on: input_ids [[2, 11, 12, 3], [2, 13, 3, 0]], mask [[1, 1, 1, 1], [1, 1, 1, 0]]: row 0 gets [11, 12, 3, 2] instead of [11, 12, 3, -100] (the last row is right)."""
    B, T = input_ids.shape
    ids = input_ids.reshape(-1)
    mask = attention_mask.reshape(-1)
    labels = torch.full_like(ids, -100)
    labels[:-1] = torch.where(mask[1:] == 1, ids[1:], torch.full_like(ids[1:], -100))
    return labels.view(B, T)


@EX9_1.bug
def row_length_from_the_first_zero_by_argmin(input_ids, attention_mask):
    """I found each row's length as the position of its first padding, attention_mask.argmin(dim=1), which is 0 for a row with no padding at all (every entry is the minimum).
    Differs on: input_ids [[2, 11, 12, 3]], mask [[1, 1, 1, 1]] (no padding): [-100, -100, -100, -100] instead of [11, 12, 3, -100]."""
    lengths = attention_mask.argmin(dim=1)
    labels = torch.full_like(input_ids, -100)
    for b in range(input_ids.shape[0]):
        n = int(lengths[b])
        labels[b, :max(n - 1, 0)] = input_ids[b, 1:n]
    return labels


@EX9_1.bug
def only_the_last_real_token_blanked(input_ids, attention_mask):
    """I shifted the ids left, then put -100 at each row's last real token (length - 1) and in the last column, and forgot the padding positions, which keep the [PAD] id that follows them.
    Differs on: input_ids [[2, 11, 3, 0, 0]], mask [[1, 1, 1, 0, 0]] (two padding positions): [11, 3, -100, 0, -100] instead of [11, 3, -100, -100, -100] (the worked example, with one [PAD], comes out right)."""
    labels = torch.full_like(input_ids, -100)
    labels[:, :-1] = input_ids[:, 1:]
    last_real = attention_mask.sum(dim=1) - 1
    labels[torch.arange(input_ids.shape[0]), last_real] = -100
    return labels


@EX9_1.correct
def numpy_where_on_appended_columns(input_ids, attention_mask):
    """numpy: a column of -100 (and of 0 for the mask) appended on the right of the shifted arrays, np.where, back to torch in the ids' dtype."""
    ids = input_ids.detach().cpu().numpy()
    mask = attention_mask.detach().cpu().numpy()
    next_ids = np.concatenate([ids[:, 1:], np.full((ids.shape[0], 1), -100, dtype=ids.dtype)], axis=1)
    next_real = np.concatenate([mask[:, 1:], np.zeros((mask.shape[0], 1), dtype=mask.dtype)], axis=1) == 1
    labels = np.where(next_real, next_ids, np.array(-100, dtype=ids.dtype))
    return torch.from_numpy(labels.astype(ids.dtype)).to(input_ids.device)


# --- batch 8: written without reading any checker ------------------------------------------
EX9_2.batch = 8


@EX9_2.bug
def pooled_variance_student_interval(a, b, confidence=0.95):
    """I used the two-sample t interval from my statistics course: one pooled variance over both variants and n_a + n_b - 2 degrees of freedom, which is Student's, not Welch's.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52] (the worked example): about (10, 4.07, 15.93) instead of (10, 1.99, 18.01)."""
    na, nb = len(a), len(b)
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    ssa = sum((x - ma) ** 2 for x in a)
    ssb = sum((x - mb) ** 2 for x in b)
    pooled = (ssa + ssb) / (na + nb - 2)
    se = math.sqrt(pooled * (1 / na + 1 / nb))
    t = stats.t.ppf((1 + confidence) / 2, na + nb - 2)
    difference = ma - mb
    return difference, difference - t * se, difference + t * se


@EX9_2.bug
def degrees_of_freedom_with_the_raw_variances_squared(a, b, confidence=0.95):
    """In ν's denominator I squared the sample variances themselves, s_a⁴ / (n_a - 1), forgetting that it is (s_a² / n_a)² that is squared, as in the numerator.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52] (the worked example): ν about 0.34 instead of 3.31, an interval about (10, -5983, 6003) instead of (10, 1.99, 18.01)."""
    na, nb = len(a), len(b)
    sa2, sb2 = statistics.variance(a), statistics.variance(b)
    se2 = sa2 / na + sb2 / nb
    nu = se2 ** 2 / (sa2 ** 2 / (na - 1) + sb2 ** 2 / (nb - 1))
    half = stats.t.ppf((1 + confidence) / 2, nu) * math.sqrt(se2)
    difference = statistics.fmean(a) - statistics.fmean(b)
    return difference, difference - half, difference + half


@EX9_2.bug
def lower_tail_quantile(a, b, confidence=0.95):
    """I took the quantile that leaves (1 - confidence) / 2 in the lower tail, t.ppf((1 - confidence) / 2, ν), which is negative, so my low and high come out swapped.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52] (the worked example): about (10, 18.01, 1.99) instead of (10, 1.99, 18.01)."""
    va = statistics.variance(a) / len(a)
    vb = statistics.variance(b) / len(b)
    nu = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    t = stats.t.ppf((1 - confidence) / 2, nu)
    difference = statistics.fmean(a) - statistics.fmean(b)
    half = t * math.sqrt(va + vb)
    return difference, difference - half, difference + half


@EX9_2.bug
def scores_centred_in_place(a, b, confidence=0.95):
    """To get the sums of squares I subtracted each list's mean from its scores in place (a[i] -= mean), reusing the lists I was given.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52] (the worked example): the right (10, 1.99, 18.01), but the caller's a becomes [-4.0, 0.0, 4.0] and b [-1.0, 1.0, 0.0, 4.0, -4.0] (a second call on them gives a difference of 0)."""
    means = []
    variances = []
    for scores in (a, b):
        mean = sum(scores) / len(scores)
        for i in range(len(scores)):
            scores[i] -= mean
        means.append(mean)
        variances.append(sum(x * x for x in scores) / (len(scores) - 1))
    va, vb = variances[0] / len(a), variances[1] / len(b)
    nu = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    half = stats.t.ppf((1 + confidence) / 2, nu) * math.sqrt(va + vb)
    difference = means[0] - means[1]
    return difference, difference - half, difference + half


@EX9_2.correct
def sums_by_hand_and_stdtrit(a, b, confidence=0.95):
    """Plain Python sums for the means and the (n - 1) variances, math.fsum, and the t quantile from scipy.special.stdtrit."""
    def mean_and_squared_se(xs):
        n = len(xs)
        m = math.fsum(xs) / n
        return m, math.fsum((x - m) ** 2 for x in xs) / (n - 1) / n, n

    ma, va, na = mean_and_squared_se(list(a))
    mb, vb, nb = mean_and_squared_se(list(b))
    nu = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    half = float(special.stdtrit(nu, 0.5 + confidence / 2)) * math.sqrt(va + vb)
    difference = ma - mb
    return difference, difference - half, difference + half


# --- batch 8: written without reading any checker ------------------------------------------
EX.batch = 8


@EX.bug
def each_state_layer_normalised_before_joining(hidden_states):
    """The layers' scales differ, so I layer-normalised each of the top four states (F.layer_norm over H, no weights) before putting them side by side, as ELMo's mix can.
    Differs on: 5 random states of shape (2, 3, 4): every 4-wide block has mean 0 and variance 1 per token instead of holding the states' own values."""
    top = hidden_states[-4:]
    return torch.cat([F.layer_norm(h, h.shape[-1:]) for h in top], dim=-1)


@EX.bug(checker="weighted_sum_last_four")
def scale_only_on_the_first_term(hidden_states, mix, scale):
    """I started the running sum with the scaled first term, out = scale · w_0 · h_0, then added w_j · h_j for the others, so γ multiplies only the lowest state.
    Differs on: 5 random states of shape (2, 3, 4), mix = zeros(4), scale = 2: h_{L-3}/2 + (h_{L-2} + h_{L-1} + h_L)/4 instead of (h_{L-3} + h_{L-2} + h_{L-1} + h_L)/2 (equal when scale = 1)."""
    weights = torch.softmax(mix, dim=0)
    top = hidden_states[-len(weights):]
    out = scale * weights[0] * top[0]
    for w, h in zip(weights[1:], top[1:]):
        out = out + w * h
    return out


@EX.bug
def layer_numbers_clamped_at_one(hidden_states):
    """I listed the layers L-3 .. L with L = len(hidden_states) - 1 and clamped the first at layer 1, as layers are numbered from 1, so a shallow model never gets its embeddings.
    Differs on: 3 states of shape (2, 3, 4) (the L = 2 model): (2, 3, 8), layers 1 and 2, instead of (2, 3, 12) with the embeddings first (and 4 states, L = 3, give 12 wide instead of 16)."""
    L = len(hidden_states) - 1
    first = max(1, L - 3)
    return torch.cat([hidden_states[i] for i in range(first, L + 1)], dim=-1)


@EX.bug(checker="weighted_sum_last_four")
def kept_dimension_squeezed_away(hidden_states, mix, scale):
    """I summed the weighted states with keepdim=True and then called .squeeze() to drop that axis, which also drops the batch axis of a single sentence (and a length-1 axis anywhere).
    Differs on: 5 random states of shape (1, 3, 4), mix = zeros(4), scale = 1: shape (3, 4) instead of (1, 3, 4) (and (2, 1, 4) states give (2, 4))."""
    states = torch.stack(hidden_states[-4:], dim=0)
    weights = mix.softmax(dim=0).view(-1, 1, 1, 1)
    return scale * (weights * states).sum(dim=0, keepdim=True).squeeze()


@EX.correct
def reversed_islice_then_flipped_back(hidden_states):
    """The top states read from the end with itertools.islice(reversed(...), 4), put back in bottom-up order, then torch.concat on axis 2."""
    top = list(itertools.islice(reversed(tuple(hidden_states)), 4))[::-1]
    return torch.concat(top, dim=2)


# --- batch 9: written without reading any checker ------------------------------------------
EX9_1.batch = 9


@EX9_1.bug
def labels_are_the_inputs_for_a_model_that_shifts(input_ids, attention_mask):
    """I followed the Hugging Face convention I know from GPT-2, labels = input_ids with -100 at the padding, thinking the model shifts them by one itself, so every position is labelled with its own token.
    Differs on: input_ids [[2, 11, 12, 3, 0]], mask [[1, 1, 1, 1, 0]]: returns [[2, 11, 12, 3, -100]] instead of [[11, 12, 3, -100, -100]]."""
    return input_ids.masked_fill(attention_mask == 0, -100)


@EX9_1.bug
def last_real_token_found_by_the_sep_id(input_ids, attention_mask):
    """The worked example says [SEP] has no next token, so after shifting I put -100 wherever the token is [SEP] (id 102 in BERT's vocabulary) and at the padding, instead of reading the mask at t + 1.
    Differs on: input_ids [[2, 11, 12, 3, 0]], mask [[1, 1, 1, 1, 0]] (the course vocabulary, [SEP] = 3): returns [[11, 12, 3, 0, -100]] instead of [[11, 12, 3, -100, -100]]."""
    labels = torch.full_like(input_ids, -100)
    labels[:, :-1] = input_ids[:, 1:]
    labels[attention_mask == 0] = -100
    labels[input_ids == 102] = -100
    return labels


@EX9_1.bug
def row_length_slice_breaks_on_an_empty_row(input_ids, attention_mask):
    """I looped over the rows, n = the number of real tokens, and wrote labels[b, :n - 1] = input_ids[b, 1:n]; for a row with no real token at all, :n - 1 becomes :-1 and the shapes no longer match.
    Differs on: input_ids [[2, 11, 3], [0, 0, 0]], mask [[1, 1, 1], [0, 0, 0]]: raises a RuntimeError (shape mismatch) instead of returning [[11, 3, -100], [-100, -100, -100]]."""
    labels = torch.full_like(input_ids, -100)
    for b in range(input_ids.shape[0]):
        n = int(attention_mask[b].sum())
        labels[b, :n - 1] = input_ids[b, 1:n]
    return labels


@EX9_1.bug
def last_column_never_added(input_ids, attention_mask):
    """I built the labels of the positions that have a next position, torch.where(mask[:, 1:] == 1, ids[:, 1:], -100), as GPT's loss pairs logits[:, :-1] with labels[:, 1:], and returned those T - 1 columns without adding the last one back.
    Differs on: input_ids [[2, 11, 12, 3]], mask [[1, 1, 1, 1]]: returns the (1, 3) [[11, 12, 3]] instead of the (1, 4) [[11, 12, 3, -100]]."""
    return torch.where(attention_mask[:, 1:] == 1, input_ids[:, 1:], -100)


@EX9_1.correct
def row_lengths_against_a_position_ramp(input_ids, attention_mask):
    """Row lengths from the mask's sum, a position ramp compared with length - 1, the ids rolled left, torch.where with a -100 scalar."""
    T = input_ids.shape[1]
    lengths = (attention_mask != 0).sum(dim=1)
    has_next = torch.arange(T, device=input_ids.device)[None, :] < (lengths - 1)[:, None]
    return torch.where(has_next, input_ids.roll(-1, dims=1), torch.tensor(-100, dtype=input_ids.dtype))


# --- batch 9: written without reading any checker ------------------------------------------
EX9_2.batch = 9


@EX9_2.bug
def standard_deviations_in_the_standard_error(a, b, confidence=0.95):
    """I had the two standard deviations at hand from statistics.stdev and put them straight into se = sqrt(s_a / n_a + s_b / n_b), forgetting that the formula's s² is the variance.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52]: returns about (10, 6.06, 13.94) instead of (10, 1.99, 18.01)."""
    na, nb = len(a), len(b)
    sa, sb = statistics.stdev(a), statistics.stdev(b)
    va, vb = sa / na, sb / nb
    difference = statistics.fmean(a) - statistics.fmean(b)
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    half = stats.t.ppf((1 + confidence) / 2, df) * math.sqrt(va + vb)
    return difference, difference - half, difference + half


@EX9_2.bug
def degrees_of_freedom_with_the_sizes_crossed(a, b, confidence=0.95):
    """In ν's denominator I divided a's squared term by n_b - 1 and b's by n_a - 1, crossing the two sample sizes, which only shows when the variants have different numbers of seeds.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52]: ν comes out 5.78 instead of 3.31, so the interval is about [3.45, 16.55] instead of [1.99, 18.01]."""
    na, nb = len(a), len(b)
    va, vb = statistics.variance(a) / na, statistics.variance(b) / nb
    difference = statistics.fmean(a) - statistics.fmean(b)
    df = (va + vb) ** 2 / (va ** 2 / (nb - 1) + vb ** 2 / (na - 1))
    half = stats.t.ppf((1 + confidence) / 2, df) * math.sqrt(va + vb)
    return difference, difference - half, difference + half


@EX9_2.bug
def one_sample_size_for_both_variants(a, b, confidence=0.95):
    """I wrote n = len(a) once and used it for both variants (in se and in ν), since the chapter's tables run three seeds a side.
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52]: returns about (10, 1.76, 18.24) instead of (10, 1.99, 18.01)."""
    n = len(a)
    va, vb = statistics.variance(a) / n, statistics.variance(b) / n
    difference = statistics.fmean(a) - statistics.fmean(b)
    df = (va + vb) ** 2 / (va ** 2 / (n - 1) + vb ** 2 / (n - 1))
    half = stats.t.ppf((1 + confidence) / 2, df) * math.sqrt(va + vb)
    return difference, difference - half, difference + half


@EX9_2.bug
def standard_errors_added_not_in_quadrature(a, b, confidence=0.95):
    """I took the standard error of the difference as the sum of the two standard errors, s_a/√n_a + s_b/√n_b, instead of the square root of the sum of their squares (ν as in the statement).
    Differs on: a = [62, 66, 70], b = [55, 57, 56, 60, 52]: returns about (10, -0.91, 20.91) instead of (10, 1.99, 18.01)."""
    na, nb = len(a), len(b)
    va, vb = statistics.variance(a) / na, statistics.variance(b) / nb
    difference = statistics.fmean(a) - statistics.fmean(b)
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    half = stats.t.ppf((1 + confidence) / 2, df) * (math.sqrt(va) + math.sqrt(vb))
    return difference, difference - half, difference + half


@EX9_2.correct
def scipy_sem_and_upper_tail_isf(a, b, confidence=0.95):
    """scipy.stats.sem (ddof=1) for each variant's standard error, numpy means, the quantile from the upper tail with stats.t.isf."""
    import numpy as np
    sa, sb = stats.sem(np.asarray(a, dtype=float)), stats.sem(np.asarray(b, dtype=float))
    ua, ub = sa ** 2, sb ** 2
    nu = (ua + ub) ** 2 / (ua ** 2 / (len(a) - 1) + ub ** 2 / (len(b) - 1))
    d = float(np.mean(a) - np.mean(b))
    half = float(stats.t.isf((1 - confidence) / 2, nu) * np.hypot(sa, sb))
    return d, d - half, d + half


# --- batch 9: written without reading any checker ------------------------------------------
EX.batch = 9


@EX.bug
def top_features_sliced_with_h_from_axis_one(hidden_states):
    """I concatenated all the states and kept the last 4·H features, which also covers a shallow model, but I read H as hidden_states[0].shape[1], which for (B, T, H) states is the number of tokens.
    Differs on: 13 states of shape (2, 5, 8) (a 12-layer model, T = 5, H = 8): returns (2, 5, 20), the last 20 features, instead of (2, 5, 32) from layers 9 to 12."""
    H = hidden_states[0].shape[1]
    return torch.cat(hidden_states, dim=-1)[..., -4 * H:]


@EX.bug(checker="weighted_sum_last_four")
def softmax_centred_on_the_mean_weight(hidden_states, mix, scale):
    """Against the overflow I centred the raw weights before exp, exp(mix - mix.mean()) / sum, which keeps a single 90 safe but not a large spread between the weights.
    Differs on: 4 states (1, 2, 3) with mix [120, 0, 0, 0] (or [90, -90, 0, 0]) and scale 1: returns NaN everywhere instead of the lowest of the four states (its weight is 1)."""
    top = hidden_states[-4:]
    e = torch.exp(mix - mix.mean())
    weights = e / e.sum()
    return scale * sum(w * h for w, h in zip(weights, top))


@EX.bug
def all_states_for_up_to_four_layers(hidden_states):
    """For the shallow case I tested the number of layers, L = len(hidden_states) - 1, with if L <= 4: take every state, an off-by-one for "fewer than four states in all", so a 4-layer model also gets its embeddings.
    Differs on: 5 states of shape (1, 2, 3) (a 4-layer model): returns (1, 2, 15), embeddings included, instead of (1, 2, 12) from layers 1 to 4."""
    L = len(hidden_states) - 1
    if L <= 4:
        return torch.cat(list(hidden_states), dim=-1)
    return torch.cat(list(hidden_states[L - 3:]), dim=-1)


@EX.bug(checker="weighted_sum_last_four")
def offsets_counted_back_from_four(hidden_states, mix, scale):
    """I paired mix[i] with hidden_states[len(hidden_states) - 4 + i], the i-th of the top four; with only three states the first index is -1, which Python reads from the end, so the pairing wraps round.
    Differs on: the L = 2 model's 3 states with mix [2, 0, -2] and scale 1: mix[0] weighs the top state, mix[1] the embeddings and mix[2] layer 1, instead of mix[0] the embeddings, mix[1] layer 1, mix[2] layer 2."""
    weights = torch.softmax(mix, dim=0)
    out = 0
    for i in range(len(mix)):
        out = out + weights[i] * hidden_states[len(hidden_states) - 4 + i]
    return scale * out


@EX.correct
def tail_of_the_full_concatenation(hidden_states):
    """Every state concatenated on the last axis, then the last 4·H features kept (H read from the last axis), which is all of them for a shallow model."""
    H = hidden_states[-1].shape[-1]
    return torch.cat(tuple(hidden_states), dim=-1)[..., -4 * H:]
