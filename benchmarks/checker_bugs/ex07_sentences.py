"""Exercises 7.3 (my_pick_setting) and 7.4 (my_freeze_encoder): learners' code with one mistake each, and
correct code in other styles.

Split rule (fixed before any checker changed): within each exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import math
import statistics

import numpy as np

from . import Exercise
from collections import deque
import torch.nn.functional as F
import itertools
import torch
import heapq
import operator

EX73 = Exercise("7.3", "pick_setting")


@EX73.bug
def population_sd(dev, test):
    """I used statistics.pstdev for the sd (it was the first one I found)."""
    best = max(dev, key=lambda s: statistics.mean(dev[s]))
    return best, statistics.mean(dev[best]), statistics.pstdev(dev[best])


@EX73.bug
def best_single_seed(dev, test):
    """I picked the setting with the best single run, max(dev[s])."""
    best = max(dev, key=lambda s: max(dev[s]))
    return best, statistics.mean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def picked_on_test(dev, test):
    """I picked the setting with the best mean test score (that is what we report in the end)."""
    best = max(test, key=lambda s: statistics.mean(test[s]))
    return best, statistics.mean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def numpy_std(dev, test):
    """I used numpy: np.mean and np.std (whose default ddof is 0)."""
    best = max(dev, key=lambda s: np.mean(dev[s]))
    return best, float(np.mean(dev[best])), float(np.std(dev[best]))


@EX73.bug
def variance_returned(dev, test):
    """I returned statistics.variance as the spread."""
    best = max(dev, key=lambda s: statistics.mean(dev[s]))
    return best, statistics.mean(dev[best]), statistics.variance(dev[best])


@EX73.bug
def dev_replaced_by_means(dev, test):
    """I replaced each list in dev by its mean to find the best, then needed the list back for the sd."""
    lists = {s: list(v) for s, v in dev.items()}
    for s in dev:
        dev[s] = sum(dev[s]) / len(dev[s])
    best = max(dev, key=dev.get)
    return best, dev[best], statistics.stdev(lists[best])


@EX73.bug
def picked_by_median(dev, test):
    """I picked by the median dev score (more robust, I thought)."""
    best = max(dev, key=lambda s: statistics.median(dev[s]))
    return best, statistics.mean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def rounded_for_the_table(dev, test):
    """I rounded the mean and sd to two decimals, as the paper's tables do."""
    best = max(dev, key=lambda s: statistics.mean(dev[s]))
    return best, round(statistics.mean(dev[best]), 2), round(statistics.stdev(dev[best]), 2)


@EX73.bug
def sd_divided_by_n_minus_one_outside(dev, test):
    """I computed the sd by hand as sqrt(sum of squares / n) * (n - 1) / n, mixing up the correction."""
    best = max(dev, key=lambda s: sum(dev[s]) / len(dev[s]))
    xs = dev[best]
    m = sum(xs) / len(xs)
    n = len(xs)
    return best, m, math.sqrt(sum((x - m) ** 2 for x in xs) / n) * n / (n - 1)


@EX73.bug
def sorted_in_place(dev, test):
    """I sorted each setting's scores in place to look at them (dev[s].sort())."""
    for s in dev:
        dev[s].sort()
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def sd_of_the_means(dev, test):
    """I returned the sd across the settings' means (the spread of the grid), not across the best one's seeds."""
    means = {s: statistics.fmean(v) for s, v in dev.items()}
    best = max(means, key=means.get)
    return best, means[best], statistics.stdev(means.values()) if len(means) > 1 else 0.0


@EX73.correct
def numpy_ddof_one(dev, test):
    """numpy with ddof=1, the settings sorted by mean."""
    ranked = sorted(dev, key=lambda s: np.mean(dev[s]), reverse=True)
    best = ranked[0]
    scores = np.asarray(dev[best], dtype=float)
    return best, float(scores.mean()), float(scores.std(ddof=1))


@EX73.correct
def by_hand(dev, test):
    """A loop with sums; the sd from the sum of squares."""
    best, best_mean = None, -math.inf
    for setting, scores in dev.items():
        m = sum(scores) / len(scores)
        if m > best_mean:
            best, best_mean = setting, m
    xs = dev[best]
    return best, best_mean, math.sqrt(sum((x - best_mean) ** 2 for x in xs) / (len(xs) - 1))


EX74 = Exercise("7.4", "freeze_encoder")


@EX74.bug
def bottom_layers_trained(model, top_layers=0):
    """I unfroze layers[:top_layers], the first ones in the list."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[:top_layers]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def pooler_stays_frozen(model, top_layers=0):
    """I unfroze the top layers but left the pooler frozen."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def pooler_always_trained(model, top_layers=0):
    """I froze the embeddings and the layers only, so the pooler always learns."""
    model.bert.embeddings.requires_grad_(False)
    model.bert.encoder.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def eval_mode(model, top_layers=0):
    """I called model.eval() since the frozen part does not train."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    model.eval()
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def counts_tensors(model, top_layers=0):
    """I counted the trainable parameter tensors, not their numbers."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return len([p for p in model.parameters() if p.requires_grad])


@EX74.bug
def minus_zero_slice(model, top_layers=0):
    """I unfroze layers[-top_layers:] and the pooler without an if: for 0 that slice is every layer."""
    model.bert.requires_grad_(False)
    for layer in model.bert.encoder.layers[-top_layers:]:
        layer.requires_grad_(True)
    if top_layers:
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def whole_model_frozen(model, top_layers=0):
    """I froze the whole model with model.requires_grad_(False) and forgot to unfreeze the classifier."""
    model.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def counts_everything(model, top_layers=0):
    """I returned the number of all parameters after freezing."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters())


@EX74.bug
def one_layer_not_k(model, top_layers=0):
    """I unfroze model.bert.encoder.layers[-top_layers], a single layer."""
    model.bert.requires_grad_(False)
    if top_layers:
        model.bert.encoder.layers[-top_layers].requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def one_layer_too_many(model, top_layers=0):
    """I started at index len(layers) - top_layers - 1, one layer too low."""
    model.bert.requires_grad_(False)
    layers = model.bert.encoder.layers
    if top_layers:
        for i in range(max(0, len(layers) - top_layers - 1), len(layers)):
            layers[i].requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def no_grad_flag_on_data(model, top_layers=0):
    """I froze by detaching: p.data = p.data.detach() for the encoder (it still requires grad)."""
    for p in model.bert.parameters():
        p.data = p.data.detach()
    frozen = sum(p.numel() for p in model.bert.parameters())
    if top_layers:
        frozen -= sum(p.numel() for layer in model.bert.encoder.layers[-top_layers:] for p in layer.parameters())
        frozen -= sum(p.numel() for p in model.bert.pooler.parameters())
    return sum(p.numel() for p in model.parameters()) - frozen


@EX74.correct
def parameter_loop_by_name(model, top_layers=0):
    """Set requires_grad parameter by parameter from its name; count with a loop."""
    n_layers = len(model.bert.encoder.layers)
    trained = {f"encoder.layers.{i}." for i in range(n_layers - top_layers, n_layers)}
    for name, p in model.bert.named_parameters():
        p.requires_grad = top_layers > 0 and (name.startswith("pooler.") or any(name.startswith(t) for t in trained))
    total = 0
    for p in model.parameters():
        if p.requires_grad:
            total += p.numel()
    return total


# --- Batch 2: written without reading any checker, before the checkers were changed against it ---
EX73.batch = 2
EX74.batch = 2


@EX73.bug
def dev_and_test_pooled(dev, test):
    """I picked the setting on the mean of its dev and test scores together (more runs, a surer choice)."""
    best = max(dev, key=lambda s: statistics.fmean(list(dev[s]) + list(test[s])))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def test_scores_reported(dev, test):
    """I picked the setting on dev but returned its test mean and sd (that is what a paper reports)."""
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    return best, statistics.fmean(test[best]), statistics.stdev(test[best])


@EX73.bug
def standard_error(dev, test):
    """I returned the standard error of the mean, stdev / √n, as the ± spread."""
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best]) / math.sqrt(len(dev[best]))


@EX73.bug
def sorted_names_with_unsorted_means(dev, test):
    """I took np.argmax over the means in dev's order and looked the index up in sorted(dev)."""
    names = sorted(dev)
    means = [np.mean(scores) for scores in dev.values()]
    best = names[int(np.argmax(means))]
    return best, float(np.mean(dev[best])), float(np.std(dev[best], ddof=1))


@EX73.correct
def welford(dev, test):
    """One pass per setting with Welford's running mean and sum of squares; the best kept with a strict >."""
    best = None
    for setting, scores in dev.items():
        mean, m2 = 0.0, 0.0
        for n, x in enumerate(scores, start=1):
            delta = x - mean
            mean += delta / n
            m2 += delta * (x - mean)
        if best is None or mean > best[1]:
            best = (setting, mean, math.sqrt(m2 / (len(scores) - 1)))
    return best


@EX74.bug
def embeddings_left_trainable(model, top_layers=0):
    """I froze the encoder's layers and the pooler; the embeddings, I thought, are not part of "the encoder"."""
    model.bert.encoder.requires_grad_(False)
    model.bert.pooler.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def only_freezes_never_unfreezes(model, top_layers=0):
    """I only switched off what must be frozen (embeddings, lower layers, the pooler when k = 0), trusting the rest to be trainable already."""
    layers = model.bert.encoder.layers
    model.bert.embeddings.requires_grad_(False)
    for layer in layers[:len(layers) - top_layers]:
        layer.requires_grad_(False)
    if not top_layers:
        model.bert.pooler.requires_grad_(False)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def classifier_not_counted(model, top_layers=0):
    """I counted the trainable numbers of model.bert only, forgetting the classifier's."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.bert.parameters() if p.requires_grad)


@EX74.bug
def slice_from_k(model, top_layers=0):
    """I unfroze layers[top_layers:], which I read as "the last top_layers layers"."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.correct
def slice_from_the_length(model, top_layers=0):
    """Every parameter of model.bert switched off by hand, layers[len - k:] (empty for k = 0) switched back on."""
    for p in model.bert.parameters():
        p.requires_grad = False
    layers = model.bert.encoder.layers
    for layer in layers[len(layers) - top_layers:]:
        for p in layer.parameters():
            p.requires_grad = True
    for p in model.bert.pooler.parameters():
        p.requires_grad = top_layers > 0
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


# --- Batch 3: written without reading any checker, before the checkers were changed against it ---
EX73.batch = 3
EX74.batch = 3


@EX73.bug
def ascending_sort_first(dev, test):
    """I sorted the settings by their mean dev score and took the first one (sorted is ascending)."""
    ranked = sorted(dev, key=lambda s: statistics.fmean(dev[s]))
    best = ranked[0]
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def total_not_mean(dev, test):
    """I picked the setting with the largest total dev score, sum(dev[s]) (the same ranking as the mean, I thought)."""
    best = max(dev, key=lambda s: sum(dev[s]))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def max_by_the_lists(dev, test):
    """I wrote max(dev, key=dev.get), which compares the score lists themselves."""
    best = max(dev, key=dev.get)
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def n_minus_one_in_the_mean_too(dev, test):
    """By hand, I divided by n - 1 in the mean as well as in the variance."""
    def mean(xs):
        return sum(xs) / (len(xs) - 1)
    best = max(dev, key=lambda s: mean(dev[s]))
    xs, m = dev[best], mean(dev[best])
    return best, m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


@EX73.bug
def sd_over_the_whole_grid(dev, test):
    """I returned the sample sd of every dev score in the grid, all settings together."""
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    everything = [x for scores in dev.values() for x in scores]
    return best, statistics.fmean(dev[best]), statistics.stdev(everything)


_MEANS = {}


@EX73.bug
def means_cached_by_name(dev, test):
    """I kept each setting's mean in a dict outside the function, keyed by the setting's name, to compute it once."""
    for s in dev:
        if s not in _MEANS:
            _MEANS[s] = statistics.fmean(dev[s])
    best = max(dev, key=_MEANS.get)
    return best, _MEANS[best], statistics.stdev(dev[best])


@EX73.correct
def torch_float64(dev, test):
    """torch in float64: the means in one tensor, the arg-max over it, Tensor.std (n - 1 by default)."""
    import torch
    names = list(dev)
    means = torch.tensor([torch.tensor(dev[s], dtype=torch.float64).mean().item() for s in names])
    best = names[int(means.argmax())]
    scores = torch.tensor(dev[best], dtype=torch.float64)
    return best, scores.mean().item(), scores.std().item()


@EX74.bug
def layer_names_matched_as_substrings(model, top_layers=0):
    """I froze by name: every parameter whose name contains "layers.i" for a lower layer i ("layers.1" is in "layers.10")."""
    n_layers = len(model.bert.encoder.layers)
    frozen = [f"layers.{i}" for i in range(n_layers - top_layers)]
    for name, p in model.bert.named_parameters():
        if name.startswith("embeddings.") or (name.startswith("pooler.") and not top_layers):
            p.requires_grad = False
        elif name.startswith("pooler."):
            p.requires_grad = True
        else:
            p.requires_grad = not any(f in name for f in frozen)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def word_embeddings_only(model, top_layers=0):
    """I froze the word embeddings (the embedding matrix) but not the position and segment embeddings or their LayerNorm."""
    model.bert.encoder.requires_grad_(False)
    model.bert.pooler.requires_grad_(False)
    model.bert.embeddings.word_embeddings.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def encoder_in_eval_mode(model, top_layers=0):
    """I put model.bert in eval mode (a frozen encoder needs no dropout); the classifier stays in training mode."""
    model.bert.requires_grad_(False)
    model.bert.eval()
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def linear_modules_only(model, top_layers=0):
    """I froze every nn.Linear of model.bert (the weights that matter), leaving the embeddings and LayerNorms alone."""
    import torch.nn as nn
    for module in model.bert.modules():
        if isinstance(module, nn.Linear):
            module.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def range_stops_before_the_top(model, top_layers=0):
    """I unfroze range(n - top_layers, n - 1), thinking the end of a range is included (the top layer stays frozen)."""
    model.bert.requires_grad_(False)
    layers = model.bert.encoder.layers
    n = len(layers)
    if top_layers:
        for i in range(n - top_layers, n - 1):
            layers[i].requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def pooler_left_out_of_the_count(model, top_layers=0):
    """I set the flags right, but computed the count from what I unfroze: the top layers and the classifier (not the pooler)."""
    model.bert.requires_grad_(False)
    count = sum(p.numel() for p in model.classifier.parameters())
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
            count += sum(p.numel() for p in layer.parameters())
        model.bert.pooler.requires_grad_(True)
    return count


@EX74.correct
def frozen_set_by_identity(model, top_layers=0):
    """The parameters to train collected by identity first; then every parameter of model.bert set from that set."""
    layers = model.bert.encoder.layers
    train = set()
    if top_layers > 0:
        for layer in list(layers)[len(layers) - top_layers:]:
            train.update(id(p) for p in layer.parameters())
        train.update(id(p) for p in model.bert.pooler.parameters())
    for p in model.bert.parameters():
        p.requires_grad_(id(p) in train)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


# --- batch 4: written without reading any checker ------------------------------------------
EX73.batch = 4
EX74.batch = 4


@EX73.bug
def mean_and_sd_swapped(dev, test):
    """I returned (setting, sd, mean): I wrote the pair the other way round from "mean ± sd".
    Differs on: the worked example {"a": [0.80, 0.70, 0.75], "b": [0.78, 0.76, 0.77]}: ("b", 0.01, 0.77)."""
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    return best, statistics.stdev(dev[best]), statistics.fmean(dev[best])


@EX73.bug
def sd_on_the_wrong_axis(dev, test):
    """I put the grid in a (settings, seeds) array: the means over axis 1 to choose, but std(axis=0, ddof=1) for the sd, read at the best row.
    Differs on: the worked example: the sd of column 1, (0.70, 0.76), 0.042 instead of 0.01."""
    names = list(dev)
    grid = np.array([dev[s] for s in names], dtype=float)
    means = grid.mean(axis=1)
    k = int(means.argmax())
    return names[k], float(means[k]), float(grid.std(axis=0, ddof=1)[k])


@EX73.bug
def mean_over_the_number_of_settings(dev, test):
    """By hand, my mean divided each sum by len(dev), the number of settings, where I meant the number of seeds.
    Differs on: the worked example (2 settings, 3 seeds): mean 1.155 instead of 0.77."""
    def mean(xs):
        return sum(xs) / len(dev)
    best = max(dev, key=lambda s: mean(dev[s]))
    m = mean(dev[best])
    xs = dev[best]
    return best, m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


@EX73.bug
def position_not_name(dev, test):
    """I returned the position of the best setting, np.argmax over the means, instead of its name.
    Differs on: the worked example: 1 instead of "b"."""
    names = list(dev)
    means = [statistics.fmean(dev[s]) for s in names]
    k = int(np.argmax(means))
    return k, means[k], statistics.stdev(dev[names[k]])


@EX73.bug
def means_rounded_before_choosing(dev, test):
    """I compared the means rounded to two decimals, as the table shows them, so near-ties go to the first setting.
    Differs on: {"a": [0.801, 0.803], "b": [0.803, 0.805]}: "a" (0.802) instead of "b" (0.804)."""
    best = max(dev, key=lambda s: round(statistics.fmean(dev[s]), 2))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def worst_seed_dropped(dev, test):
    """I dropped each setting's worst seed as an outlier before the mean and the sd.
    Differs on: {"a": [0.9, 0.5, 0.6], "b": [0.7, 0.7, 0.71]}: "a" (0.75 over 0.9, 0.6) instead of "b" (0.703)."""
    kept = {s: sorted(v)[1:] for s, v in dev.items()}
    best = max(kept, key=lambda s: statistics.fmean(kept[s]))
    return best, statistics.fmean(kept[best]), statistics.stdev(kept[best])


@EX73.correct
def pandas_series(dev, test):
    """pandas: one Series per setting, their means in a Series, idxmax for the best, Series.std (ddof=1 by default)."""
    import pandas as pd
    names = list(dev)
    scores = [pd.Series(dev[s], dtype="float64") for s in names]
    means = pd.Series([x.mean() for x in scores])
    k = int(means.idxmax())
    return names[k], float(means[k]), float(scores[k].std())


@EX74.bug
def flag_set_on_the_module(model, top_layers=0):
    """I wrote model.bert.requires_grad = False (and = True for the top layers), an attribute on the module, not requires_grad_().
    Differs on: any model, e.g. BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16), top_layers=0: every number counts."""
    model.bert.requires_grad = False
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad = True
        model.bert.pooler.requires_grad = True
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def classifier_bias_left_frozen(model, top_layers=0):
    """I froze the whole model, then switched back on model.classifier.weight, the W of the head, and forgot its bias b.
    Differs on: any model, top_layers=0: 2·H instead of 2·H + 2 with two labels."""
    model.requires_grad_(False)
    model.classifier.weight.requires_grad_(True)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def top_layers_linear_only(model, top_layers=0):
    """I unfroze the nn.Linear modules of the top layers (their weight matrices), so the top layers' LayerNorms stay frozen.
    Differs on: any model with top_layers=1: 4·H fewer numbers (two LayerNorms of the top layer)."""
    import torch.nn as nn
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            for module in layer.modules():
                if isinstance(module, nn.Linear):
                    module.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def embedding_tables_only(model, top_layers=0):
    """I froze the three embedding tables one by one (word, position, segment), forgetting the embeddings' LayerNorm.
    Differs on: any model, top_layers=0: 2·H numbers too many."""
    embeddings = model.bert.embeddings
    for table in (embeddings.word_embeddings, embeddings.position_embeddings, embeddings.token_type_embeddings):
        table.requires_grad_(False)
    model.bert.encoder.requires_grad_(False)
    model.bert.pooler.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def named_parameters_iterated_twice(model, top_layers=0):
    """I kept model.bert.named_parameters() in a variable and looped over it twice, once to freeze and once to unfreeze the top (the second loop sees nothing).
    Differs on: any model with top_layers >= 1: only the classifier trains."""
    params = model.bert.named_parameters()
    for _, p in params:
        p.requires_grad = False
    n = len(model.bert.encoder.layers)
    top = tuple(f"encoder.layers.{i}." for i in range(n - top_layers, n))
    for name, p in params:
        if top_layers and (name.startswith(top) or name.startswith("pooler.")):
            p.requires_grad = True
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def pooler_counted_as_a_top_layer(model, top_layers=0):
    """I counted the pooler as one of the top k, so I unfroze the pooler and the top k - 1 encoder layers.
    Differs on: any model with top_layers=1: the pooler and the classifier only, no encoder layer."""
    model.bert.requires_grad_(False)
    layers = model.bert.encoder.layers
    if top_layers:
        model.bert.pooler.requires_grad_(True)
        for layer in layers[len(layers) - (top_layers - 1):]:
            layer.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.correct
def submodules_by_path(model, top_layers=0):
    """The modules to train listed by their paths; the whole model switched off, then each listed one switched on with get_submodule."""
    n = len(model.bert.encoder.layers)
    paths = ["classifier"]
    if top_layers > 0:
        paths += [f"bert.encoder.layers.{i}" for i in range(n - top_layers, n)] + ["bert.pooler"]
    model.requires_grad_(False)
    for path in paths:
        model.get_submodule(path).requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


# --- batch 5: written without reading any checker ------------------------------------------
EX73.batch = 5
EX74.batch = 5


@EX73.bug
def max_of_the_means_dict(dev, test):
    """I built means = {setting: mean} and took max(means), which compares the names (the last in alphabetical order), not the means.
    Differs on: {"a": [0.78, 0.76, 0.77], "b": [0.80, 0.70, 0.75]}: ("b", 0.75, 0.05) instead of ("a", 0.77, 0.01) (the worked example, names swapped)."""
    means = {setting: statistics.fmean(scores) for setting, scores in dev.items()}
    best = max(means)
    return best, means[best], statistics.stdev(dev[best])


@EX73.bug
def mean_minus_sd_chosen(dev, test):
    """I chose the setting with the highest mean - sd, the most reliable one, and returned its mean and sd.
    Differs on: {"a": [0.90, 0.70], "b": [0.79, 0.79]}: ("b", 0.79, 0.0) instead of ("a", 0.80, 0.141)."""
    def lower(setting):
        return statistics.fmean(dev[setting]) - statistics.stdev(dev[setting])
    best = max(dev, key=lower)
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def grid_as_one_float_array(dev, test):
    """I put the grid in one (settings, seeds) float array, which needs the same number of seeds in every setting.
    Differs on: {"a": [0.80, 0.70, 0.75], "b": [0.78, 0.76]}: ValueError (inhomogeneous shape) instead of ("b", 0.77, 0.0141)."""
    names = list(dev)
    grid = np.array([dev[s] for s in names], dtype=float)
    k = int(grid.mean(axis=1).argmax())
    return names[k], float(grid[k].mean()), float(grid[k].std(ddof=1))


@EX73.bug
def median_reported_as_the_centre(dev, test):
    """I chose by the mean, but reported the median as the centre of the ± (more robust to one bad seed, I thought).
    Differs on: {"a": [0.9, 0.5, 0.6], "b": [0.6, 0.6, 0.61]}: ("a", 0.6, 0.208) instead of ("a", 0.667, 0.208)."""
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    return best, statistics.median(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def most_seeds_won(dev, test):
    """I compared the settings seed by seed (the same seed, a fair comparison) and chose the one that wins the most seeds.
    Differs on: {"a": [0.80, 0.80, 0.50], "b": [0.79, 0.79, 0.79]}: ("a", 0.70, 0.173) instead of ("b", 0.79, 0.0)."""
    names = list(dev)
    wins = dict.fromkeys(names, 0)
    for scores in zip(*(dev[s] for s in names)):
        wins[names[scores.index(max(scores))]] += 1
    best = max(names, key=wins.get)
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def running_mean_halved(dev, test):
    """By hand, I updated a running mean as mean = (mean + x) / 2 for each new seed, which weighs the last seeds most.
    Differs on: {"a": [0.9, 0.5, 0.6], "b": [0.65, 0.66, 0.67]}: ("b", 0.6625, 0.0105) instead of ("a", 0.667, 0.208); the worked example comes out right."""
    def running(scores):
        mean = scores[0]
        for x in scores[1:]:
            mean = (mean + x) / 2
        return mean
    best = max(dev, key=lambda s: running(dev[s]))
    m = running(dev[best])
    xs = dev[best]
    return best, m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


@EX73.correct
def normal_dist_from_samples(dev, test):
    """statistics.NormalDist.from_samples for each setting (its mean, and its stdev with n - 1); the best found by a loop with a strict >."""
    best = None
    for setting, scores in dev.items():
        fit = statistics.NormalDist.from_samples(scores)
        if best is None or fit.mean > best[1]:
            best = (setting, fit.mean, fit.stdev)
    return best


@EX74.bug
def counted_with_len(model, top_layers=0):
    """I counted each trainable parameter's numbers with len(p), which is the size of its first axis only.
    Differs on: any model with two labels, top_layers=0: 4 (2 rows of W and 2 of b) instead of 2·H + 2."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(len(p) for p in model.parameters() if p.requires_grad)


@EX74.bug
def counted_where_a_gradient_is(model, top_layers=0):
    """I counted the parameters whose p.grad is not None, as the ones that get a gradient (before any backward pass, none has one).
    Differs on: a freshly built model, e.g. BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2), top_layers=0: 0 instead of 18."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.grad is not None)


@EX74.bug
def top_layers_switched_on_with_train(model, top_layers=0):
    """I froze model.bert with requires_grad_(False) and switched the top layers and the pooler back on with .train(), which sets the mode, not the gradients.
    Differs on: any model with top_layers=1: only the classifier trains (2·H + 2 with two labels)."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.train()
        model.bert.pooler.train()
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def counted_over_every_module(model, top_layers=0):
    """I counted by walking model.modules() and adding each module's trainable parameters, which counts a parameter once for the module and once for each module around it.
    Differs on: any model with two labels, top_layers=0: 2·(2·H + 2) (the classifier counted for itself and for the model)."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for module in model.modules() for p in module.parameters() if p.requires_grad)


@EX74.bug
def every_layer_means_the_whole_encoder(model, top_layers=0):
    """When top_layers covers every layer, I unfroze all of model.bert (the whole encoder learns, I thought), so the embeddings learn too.
    Differs on: a 2-layer model with top_layers=2: the embeddings' numbers are counted, and they get gradients."""
    layers = model.bert.encoder.layers
    if top_layers >= len(layers):
        model.bert.requires_grad_(True)
    else:
        model.bert.requires_grad_(False)
        if top_layers:
            for layer in layers[-top_layers:]:
                layer.requires_grad_(True)
            model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def froze_a_copy(model, top_layers=0):
    """I froze a deep copy of the model, so as not to change the caller's, and counted on it: the count is right but the model passed in is not frozen.
    Differs on: any model, top_layers=0: the count matches but every parameter of the model still requires a gradient."""
    import copy
    frozen = copy.deepcopy(model)
    frozen.bert.requires_grad_(False)
    if top_layers:
        for layer in frozen.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        frozen.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in frozen.parameters() if p.requires_grad)


@EX74.correct
def modules_chained_by_role(model, top_layers=0):
    """The modules of model.bert split into a frozen and a trained chain (itertools.chain), every parameter's flag set from its chain; the count through parameters_to_vector."""
    import itertools
    import torch
    bert = model.bert
    n = len(bert.encoder.layers)
    lower, upper = list(bert.encoder.layers)[:n - top_layers], list(bert.encoder.layers)[n - top_layers:]
    frozen = itertools.chain([bert.embeddings], lower, [] if top_layers else [bert.pooler])
    trained = itertools.chain(upper, [bert.pooler] if top_layers else [])
    for module in frozen:
        for p in module.parameters():
            p.requires_grad = False
    for module in trained:
        for p in module.parameters():
            p.requires_grad = True
    trainable = [p for p in model.parameters() if p.requires_grad]
    return torch.nn.utils.parameters_to_vector(trainable).numel() if trainable else 0


# --- batch 6: written without reading any checker ------------------------------------------
EX7_1 = Exercise("7.1", "head_tail")
EX7_1.batch = 6


@EX7_1.bug
def fit_tested_without_the_specials(ids, max_length, head, cls_id, sep_id):
    """I tested whether the text fits with len(ids) <= max_length, forgetting that [CLS] and [SEP] take two of the places.
    Differs on: ids = [1, ..., 6], max_length = 7, head = 2, [CLS] = 101, [SEP] = 102: 8 ids [101, 1, 2, 3, 4, 5, 6, 102] instead of [101, 1, 2, 4, 5, 6, 102]."""
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: need 0 <= head <= max_length - 2")
    if len(ids) <= max_length:
        return [cls_id] + list(ids) + [sep_id]
    tail = max_length - 2 - head
    return [cls_id] + list(ids[:head]) + list(ids[len(ids) - tail:]) + [sep_id]


@EX7_1.bug
def arguments_checked_only_when_cutting(ids, max_length, head, cls_id, sep_id):
    """I checked head only in the branch that cuts, since a text that fits never uses it.
    Differs on: ids = [1, 2, 3], max_length = 7, head = 9: [101, 1, 2, 3, 102] instead of a ValueError."""
    n = len(ids)
    if n + 2 <= max_length:
        return [cls_id, *ids, sep_id]
    if max_length < 2 or head < 0 or head > max_length - 2:
        raise ValueError(f"head={head} does not fit in max_length={max_length} (at most {max_length - 2})")
    tail = max_length - 2 - head
    return [cls_id, *ids[:head], *ids[n - tail:], sep_id]


@EX7_1.bug
def middle_deleted_from_the_callers_list(ids, max_length, head, cls_id, sep_id):
    """I cut the middle out with del ids[head:len(ids) - tail], then put [CLS] and [SEP] around what was left.
    Differs on: the worked example (ids = [1, ..., 10], max_length = 7, head = 2): the right [101, 1, 2, 8, 9, 10, 102], but the caller's ids is now [1, 2, 8, 9, 10]."""
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: need 0 <= head <= max_length - 2")
    if len(ids) + 2 > max_length:
        tail = max_length - 2 - head
        del ids[head:len(ids) - tail]
    return [cls_id] + ids + [sep_id]


@EX7_1.bug
def arguments_required_to_be_python_ints(ids, max_length, head, cls_id, sep_id):
    """I checked the types too: max_length and head must be isinstance(..., int), else a TypeError.
    Differs on: the worked example with max_length = np.int64(7), head = np.int64(2): TypeError instead of [101, 1, 2, 8, 9, 10, 102]."""
    if not isinstance(max_length, int) or not isinstance(head, int):
        raise TypeError(f"max_length and head must be ints, got {type(max_length).__name__} and {type(head).__name__}")
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: need 0 <= head <= max_length - 2")
    if len(ids) + 2 <= max_length:
        return [cls_id, *ids, sep_id]
    tail = max_length - 2 - head
    return [cls_id, *ids[:head], *ids[len(ids) - tail:], sep_id]


@EX7_1.correct
def islice_head_and_deque_tail(ids, max_length, head, cls_id, sep_id):
    """itertools.islice for the head and a deque with maxlen for the tail, after checking the arguments."""
    if max_length < 2 or head < 0 or head > max_length - 2:
        raise ValueError(f"need max_length >= 2 and 0 <= head <= max_length - 2, got max_length={max_length}, head={head}")
    budget = int(max_length) - 2
    if len(ids) <= budget:
        kept = list(ids)
    else:
        kept = list(itertools.islice(ids, int(head))) + list(deque(ids, maxlen=budget - int(head)))
    return [cls_id] + kept + [sep_id]


# --- batch 6: written without reading any checker ------------------------------------------
EX7_2 = Exercise("7.2", "sequence_loss")
EX7_2.batch = 6


@EX7_2.bug
def pooler_weight_used_untransposed(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """I multiplied [CLS] by pooler_weight as it is (the shapes fit, (H, H)); only the classifier's (K, H) weight told me it needed a .T.
    Differs on: B = T = 1, H = 2, h_[CLS] = [1, 0], W_p = [[1, 2], [3, 4]], b_p = 0, W = [[0, 1]], b = 0, label 0.0: logit tanh(2) = 0.964 instead of tanh(3) = 0.995."""
    cls = hidden[:, 0]
    pooled = torch.tanh(cls @ pooler_weight + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[1] == 1:
        loss = F.mse_loss(logits[:, 0], labels.to(logits.dtype))
    elif labels.dtype.is_floating_point:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    else:
        loss = F.cross_entropy(logits, labels)
    return logits, loss


@EX7_2.bug
def regression_labels_unsqueezed_in_place(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """For regression I made the labels (B, 1), like the logits, with labels.unsqueeze_(-1), so nothing broadcasts.
    Differs on: the worked example (H = K = 1, label tensor([3.0])): the right logits and loss 0.081, but the caller's labels now have shape (1, 1) instead of (1,)."""
    pooled = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:
        labels.unsqueeze_(-1)
        loss = F.mse_loss(logits, labels.to(logits.dtype))
    elif not labels.dtype.is_floating_point:
        loss = F.cross_entropy(logits, labels)
    else:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    return logits, loss


@EX7_2.bug
def multi_hot_recognised_as_float32_only(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """I told multi-hot labels apart with labels.dtype == torch.float32, so float64 multi-hot labels (from numpy) fell through to the cross-entropy.
    Differs on: torch.manual_seed(0), hidden = randn(2, 4, 3), W_p = randn(3, 3), b_p = randn(3), W = randn(3, 3), b = randn(3) (float32), labels torch.tensor([[0., 1, 0], [1, 1, 0]], dtype=torch.float64): 1.736, the soft-target cross-entropy, instead of 0.370, the mean binary cross-entropy."""
    pooled = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:
        loss = F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype))
    elif labels.dtype == torch.float32:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    else:
        loss = F.cross_entropy(logits, labels)
    return logits, loss


@EX7_2.bug
def sigmoid_then_binary_cross_entropy(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """For multi-label I took each logit's sigmoid and then F.binary_cross_entropy, as the statement words it; float32's sigmoid rounds to 1 for a large logit and the log is clamped at -100.
    Differs on: H = 1, h_[CLS] = 2, W_p = 0.5, b_p = 0, W = [[40], [0]], b = 0, labels [[0., 1.]]: loss 50.35 instead of 15.58."""
    pooled = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:
        loss = F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype))
    elif not labels.dtype.is_floating_point:
        loss = F.cross_entropy(logits, labels)
    else:
        loss = F.binary_cross_entropy(torch.sigmoid(logits), labels.to(logits.dtype))
    return logits, loss


@EX7_2.correct
def einsum_and_losses_written_out(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """einsum for the pooler and the classifier; the three losses written out with logsumexp, gather and the stable softplus form."""
    cls = hidden[:, 0, :]
    pooled = torch.tanh(torch.einsum("bh,oh->bo", cls, pooler_weight) + pooler_bias)
    logits = torch.einsum("bh,kh->bk", pooled, weight) + bias
    if logits.shape[1] == 1:
        diff = logits[:, 0] - labels.to(logits.dtype)
        loss = (diff * diff).mean()
    elif labels.is_floating_point():
        y = labels.to(logits.dtype)
        loss = (logits.clamp(min=0) - logits * y + torch.log1p(torch.exp(-logits.abs()))).mean()
    else:
        shifted = logits - logits.amax(dim=1, keepdim=True)  # the largest at 0, so nothing cancels
        picked = shifted.gather(1, labels.long()[:, None])[:, 0]
        loss = (torch.logsumexp(shifted, dim=1) - picked).mean()
    return logits, loss


# --- batch 6: written without reading any checker ------------------------------------------
EX73.batch = 6


@EX73.bug
def running_best_started_at_zero(dev, test):
    """I kept the best mean in a loop starting from best_mean = 0, scores being accuracies; a Matthews correlation (CoLA) can be negative.
    Differs on: {"a": [-0.10, -0.20], "b": [-0.30, -0.20]}: no mean beats 0, so best stays None and dev[None] raises KeyError, instead of ("a", -0.15, 0.0707)."""
    best, best_mean = None, 0
    for setting, scores in dev.items():
        m = statistics.fmean(scores)
        if m > best_mean:
            best, best_mean = setting, m
    return best, best_mean, statistics.stdev(dev[best])


@EX73.bug
def sd_with_the_last_loop_mean(dev, test):
    """By hand in one loop: I computed each setting's mean m and kept the best name, then wrote the sd after the loop with the m that was left, the last setting's.
    Differs on: the worked example {"a": [0.80, 0.70, 0.75], "b": [0.78, 0.76, 0.77]} with the order swapped ({"b": ..., "a": ...}): sd 0.0265 (deviations from "a"'s mean 0.75) instead of 0.01."""
    best, best_mean = None, -math.inf
    for setting, scores in dev.items():
        m = sum(scores) / len(scores)
        if m > best_mean:
            best, best_mean = setting, m
    xs = dev[best]
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return best, best_mean, sd


@EX73.bug
def one_pass_sum_of_squares(dev, test):
    """I computed the sd in one pass, sqrt((Σx² − n·m²) / (n − 1)), the textbook shortcut, which cancels badly when the scores are close.
    Differs on: {"a": [88.1, 88.1, 88.1], "b": [87.0, 88.0]} (scores in percent): sd 1.35e-06 instead of 0.0; with {"a": [0.1, 0.1, 0.1], "b": [0.0, 0.05]}: ValueError (math domain error) instead of ("a", 0.1, 0.0)."""
    def mean_sd(xs):
        n = len(xs)
        m = sum(xs) / n
        return m, math.sqrt((sum(x * x for x in xs) - n * m * m) / (n - 1))
    best = max(dev, key=lambda s: mean_sd(dev[s])[0])
    m, sd = mean_sd(dev[best])
    return best, m, sd


@EX73.bug
def best_popped_out_of_dev(dev, test):
    """I took the best setting's scores out with dev.pop(best), as I needed them only once.
    Differs on: the worked example: the right ("b", 0.77, 0.01), but the caller's dev has lost its "b"."""
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    scores = dev.pop(best)
    return best, statistics.fmean(scores), statistics.stdev(scores)


@EX73.correct
def pairwise_differences(dev, test):
    """The sample variance as the mean of the squared pairwise differences over two, Σ_{i<j}(x_i − x_j)² / (n(n − 1)); math.fsum for the means."""
    import itertools
    means = [(math.fsum(scores) / len(scores), setting) for setting, scores in dev.items()]
    top = max(m for m, _ in means)
    best = next(setting for m, setting in means if m == top)
    xs = dev[best]
    n = len(xs)
    squares = math.fsum((a - b) ** 2 for a, b in itertools.combinations(xs, 2))
    return best, top, math.sqrt(squares / (n * (n - 1)))


# --- batch 6: written without reading any checker ------------------------------------------
EX74.batch = 6


@EX74.bug
def encoder_frozen_after_the_top_was_unfrozen(model, top_layers=0):
    """I switched on the top layers and the pooler first, then froze the embeddings and the encoder, in that order; freezing model.bert.encoder switched the top layers off again.
    Differs on: BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2), top_layers=1: 90 (the pooler and the classifier) instead of 690, and no gradient reaches layer 1."""
    layers = model.bert.encoder.layers
    if top_layers:
        for layer in layers[-top_layers:]:
            layer.requires_grad_(True)
    model.bert.pooler.requires_grad_(top_layers > 0)
    model.bert.embeddings.requires_grad_(False)
    model.bert.encoder.requires_grad_(False)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def counted_over_the_state_dict(model, top_layers=0):
    """I set the flags right, then counted over model.state_dict().values(), whose tensors come detached (requires_grad False).
    Differs on: any model, e.g. BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2), top_layers=0: 0 instead of 18."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(t.numel() for t in model.state_dict().values() if t.requires_grad)


@EX74.bug
def six_layers_assumed(model, top_layers=0):
    """I unfroze layers[6 - top_layers:], MiniLM's six layers, the model of the chapter.
    Differs on: a 12-layer model (BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=12, num_attention_heads=2, intermediate_size=16, num_labels=2)), top_layers=1: 4290, layers 5 to 11 learning (seven layers), instead of 690, layer 11 alone."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[6 - top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def numbers_counted_from_bytes(model, top_layers=0):
    """I counted the trainable numbers from their memory, p.nbytes // 4, four bytes a float.
    Differs on: BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2) after model.double(), top_layers=0: 36 instead of 18."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.nbytes // 4 for p in model.parameters() if p.requires_grad)


@EX74.correct
def apply_then_index_range(model, top_layers=0):
    """model.bert.apply to switch every module off, the top ones switched back on by index, the count with math.prod over shapes."""
    model.bert.apply(lambda module: module.requires_grad_(False))
    layers = model.bert.encoder.layers
    n = len(layers)
    for index in range(n - top_layers, n):
        for p in layers[index].parameters():
            p.requires_grad_(True)
    if top_layers > 0:
        for p in model.bert.pooler.parameters():
            p.requires_grad_(True)
    total = 0
    for p in model.parameters():
        if p.requires_grad:
            total += math.prod(p.shape)
    return total


# --- batch 7: written without reading any checker ------------------------------------------
EX7_1.batch = 7


@EX7_1.bug
def tail_sliced_from_the_end_with_minus(ids, max_length, head, cls_id, sep_id):
    """I took the tail as ids[-tail:], the usual "last k items" slice; when head = max_length - 2 the tail is 0 and ids[-0:] is the whole text.
    Differs on: ids = [1, ..., 10], max_length = 7, head = 5 (BERT's own cut), [CLS] = 101, [SEP] = 102: [101, 1, 2, 3, 4, 5, 1, 2, ..., 10, 102] (17 ids) instead of [101, 1, 2, 3, 4, 5, 102]."""
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: need max_length >= 2 and 0 <= head <= {max_length - 2}")
    if len(ids) + 2 <= max_length:
        return [cls_id] + list(ids) + [sep_id]
    tail = max_length - 2 - head
    return [cls_id] + list(ids[:head]) + list(ids[-tail:]) + [sep_id]


@EX7_1.bug
def negative_head_let_through(ids, max_length, head, cls_id, sep_id):
    """I only checked that the head is not too long (head > max_length - 2), forgetting that it can be negative.
    Differs on: ids = [1, ..., 10], max_length = 7, head = -1: [101, 1, ..., 9, 5, ..., 10, 102] (17 ids) instead of a ValueError; and ids = [1, 2, 3], max_length = 7, head = -1: [101, 1, 2, 3, 102] instead of a ValueError."""
    if max_length < 2 or head > max_length - 2:
        raise ValueError(f"head={head} is longer than max_length - 2 = {max_length - 2} (max_length={max_length})")
    n = len(ids)
    if n + 2 <= max_length:
        return [cls_id, *ids, sep_id]
    tail = max_length - 2 - head
    return [cls_id, *ids[:head], *ids[n - tail:], sep_id]


@EX7_1.bug
def room_for_one_token_required(ids, max_length, head, cls_id, sep_id):
    """I required room for at least one token of text besides [CLS] and [SEP], so I raised when max_length <= 2.
    Differs on: ids = [1, 2, 3], max_length = 2, head = 0: ValueError instead of [101, 102]."""
    if max_length <= 2:
        raise ValueError(f"max_length={max_length} leaves no room for the text (head={head})")
    if head < 0 or head > max_length - 2:
        raise ValueError(f"head={head} must be in 0 .. {max_length - 2} (max_length={max_length})")
    out = [cls_id]
    if len(ids) + 2 <= max_length:
        out.extend(ids)
    else:
        tail = max_length - 2 - head
        out.extend(ids[:head])
        out.extend(ids[len(ids) - tail:])
    out.append(sep_id)
    return out


@EX7_1.bug
def arguments_checked_with_assert(ids, max_length, head, cls_id, sep_id):
    """I checked the arguments with an assert and a message naming the values, which raises AssertionError, not ValueError.
    Differs on: ids = [1, 2, 3], max_length = 7, head = 9: AssertionError instead of ValueError."""
    assert max_length >= 2 and 0 <= head <= max_length - 2, \
        f"max_length={max_length}, head={head}: need 0 <= head <= max_length - 2"
    n = len(ids)
    if n + 2 <= max_length:
        return [cls_id, *ids, sep_id]
    tail = max_length - 2 - head
    return [cls_id, *ids[:head], *ids[n - tail:], sep_id]


@EX7_1.correct
def positions_kept_by_a_filter(ids, max_length, head, cls_id, sep_id):
    """The kept positions chosen one by one (k < head or k >= n - tail) with enumerate, after converting the arguments to Python ints."""
    max_length, head = int(max_length), int(head)
    if max_length < 2 or head < 0 or head > max_length - 2:
        raise ValueError(f"bad arguments: max_length={max_length}, head={head} (head must lie in 0 .. {max_length - 2})")
    n = len(ids)
    budget = max_length - 2
    if n <= budget:
        kept = [token for token in ids]
    else:
        first_tail = n - (budget - head)
        kept = [token for k, token in enumerate(ids) if k < head or k >= first_tail]
    return [cls_id] + kept + [sep_id]


# --- batch 7: written without reading any checker ------------------------------------------
EX7_2.batch = 7


@EX7_2.bug
def regression_logits_left_two_dimensional(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """For regression I passed the (B, 1) logits and the (B,) labels to F.mse_loss as they are; it broadcasts them to (B, B) (with only a warning) and averages every logit against every label.
    Differs on: hidden = zeros(2, 1, 1) with h_[CLS] = 2 and 0, W_p = 0.5, b_p = 0, W = 3, b = 1, labels [3.0, 1.0]: loss 2.325 (the mean over the (2, 2) grid) instead of 0.041."""
    pooled = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:
        loss = F.mse_loss(logits, labels.to(logits.dtype))
    elif not labels.dtype.is_floating_point:
        loss = F.cross_entropy(logits, labels)
    else:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    return logits, loss


@EX7_2.bug
def log_softmax_over_the_batch(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """I wrote the one-class loss out as nll_loss of log_softmax(logits, dim=0): I took dim 0 for "the classes", but dim 0 runs over the batch.
    Differs on: torch.manual_seed(0), hidden = randn(3, 4, 5), W_p = randn(5, 5), b_p = randn(5), W = randn(2, 5), b = randn(2), labels tensor([0, 1, 1]): a loss normalised over the 3 examples, not over the 2 classes (1.240 instead of 0.707 for this draw)."""
    cls = hidden[:, 0, :]
    pooled = torch.tanh(cls @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[1] == 1:
        loss = F.mse_loss(logits[:, 0], labels.to(logits.dtype))
    elif labels.dtype.is_floating_point:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    else:
        loss = F.nll_loss(torch.log_softmax(logits, dim=0), labels)
    return logits, loss


@EX7_2.bug
def multi_label_summed_over_the_classes(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """For multi-label I summed each example's K binary cross-entropies (one loss per example, as for the other kinds) and then took the mean over the batch.
    Differs on: H = 1, h_[CLS] = 2, W_p = 0.5, b_p = 0, W = [[3], [0]], b = [1, 0], labels [[1., 0.]]: loss 0.730 (0.037 + 0.693) instead of 0.365."""
    pooled = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:
        loss = F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype))
    elif not labels.dtype.is_floating_point:
        loss = F.cross_entropy(logits, labels)
    else:
        per_class = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype), reduction="none")
        loss = per_class.sum(dim=1).mean()
    return logits, loss


@EX7_2.bug
def dropout_before_the_classifier(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """I put the head's dropout (0.1) before W, as BertForSequenceClassification has it, with F.dropout(pooled, 0.1), whose training flag is True by default.
    Differs on: the worked example (H = K = 1, h_[CLS] = 2, W_p = 0.5, b_p = 0, W = 3, b = 1, label 3.0) under torch.manual_seed(0) .. (9): logit 3.539 (0.762 / 0.9 kept) or 1.0 (dropped) instead of 3.285; no seed gives 3.285."""
    pooled = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias)
    logits = F.dropout(pooled, 0.1) @ weight.T + bias
    if logits.shape[-1] == 1:
        loss = F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype))
    elif not labels.dtype.is_floating_point:
        loss = F.cross_entropy(logits, labels)
    else:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    return logits, loss


@EX7_2.correct
def functional_linear_and_loss_modules(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """F.linear for the pooler and the classifier (it takes nn.Linear's (out, in) weights as they are), the kind chosen by torch.is_floating_point, the losses as nn modules."""
    cls = hidden.select(1, 0)  # (B, H), the [CLS] row of each example
    pooled = F.linear(cls, pooler_weight, pooler_bias).tanh()
    logits = F.linear(pooled, weight, bias)  # (B, K)
    K = weight.shape[0]
    if K == 1:
        loss = torch.nn.MSELoss()(logits.reshape(-1), labels.reshape(-1).to(logits.dtype))
    elif torch.is_floating_point(labels):
        loss = torch.nn.BCEWithLogitsLoss()(logits, labels.to(logits.dtype))
    else:
        loss = torch.nn.CrossEntropyLoss()(logits, labels)
    return logits, loss


# --- batch 7: written without reading any checker ------------------------------------------
EX73.batch = 7


@EX73.bug
def square_root_taken_before_dividing(dev, test):
    """By hand, I wrote the sd as math.sqrt(sum of squared deviations) / (n - 1): the division landed outside the square root.
    Differs on: the worked example {"a": [0.80, 0.70, 0.75], "b": [0.78, 0.76, 0.77]}: ("b", 0.77, 0.00707) instead of ("b", 0.77, 0.01) (with two seeds it comes out right)."""
    best = max(dev, key=lambda s: sum(dev[s]) / len(dev[s]))
    xs = dev[best]
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs)) / (len(xs) - 1)
    return best, m, sd


@EX73.bug
def best_mean_never_updated(dev, test):
    """I kept the best in a loop, if m > best_mean: best = setting, but forgot to update best_mean, so every setting beats -inf and the last one wins.
    Differs on: the worked example with its settings in the other order, {"b": [0.78, 0.76, 0.77], "a": [0.80, 0.70, 0.75]}: ("a", 0.75, 0.05) instead of ("b", 0.77, 0.01)."""
    best, best_mean = None, -math.inf
    for setting, scores in dev.items():
        m = statistics.fmean(scores)
        if m > best_mean:
            best = setting
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def deviations_taken_in_place(dev, test):
    """With numpy, I centred the best setting's scores in place, x -= x.mean(), before squaring; for whole-number scores np.asarray makes an int64 array, which cannot hold the float result.
    Differs on: percentages as whole numbers, {"a": [80, 70, 75], "b": [78, 76, 77]}: UFuncTypeError (cannot cast float64 to int64) instead of ("b", 77.0, 1.0)."""
    best = max(dev, key=lambda s: np.mean(dev[s]))
    x = np.asarray(dev[best])
    m = x.mean()
    x -= m
    return best, float(m), float(np.sqrt((x * x).sum() / (len(x) - 1)))


@EX73.bug
def scores_in_a_default_torch_tensor(dev, test):
    """I put each setting's scores in torch.tensor(scores) and used .mean() and .std() (n - 1 by default); the tensor is float32, so close scores lose digits.
    Differs on: {"a": [88.11, 88.12, 88.13], "b": [80.0, 81.0]}: ("a", 88.12000274658203, 0.0099983) instead of ("a", 88.12, 0.0100000)."""
    means = {s: torch.tensor(v).mean().item() for s, v in dev.items()}
    best = max(means, key=means.get)
    return best, means[best], torch.tensor(dev[best]).std().item()


@EX73.correct
def exact_fractions(dev, test):
    """Exact arithmetic with fractions.Fraction for every mean and the variance; floats only at the end (the square root)."""
    from fractions import Fraction
    best, best_mean = None, None
    for setting, scores in dev.items():
        mean = sum(map(Fraction, scores)) / len(scores)
        if best_mean is None or mean > best_mean:
            best, best_mean = setting, mean
    xs = [Fraction(x) for x in dev[best]]
    variance = sum((x - best_mean) ** 2 for x in xs) / (len(xs) - 1)
    return best, float(best_mean), math.sqrt(variance)


# --- batch 7: written without reading any checker ------------------------------------------
EX74.batch = 7


@EX74.bug
def numbers_counted_through_numpy(model, top_layers=0):
    """I counted each trainable tensor's numbers as p.detach().cpu().numpy().size, numpy's count of elements; numpy has no bfloat16, so a model held in bfloat16 cannot be counted.
    Differs on: minibert.BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2)).to(torch.bfloat16), top_layers=0: TypeError (Got unsupported ScalarType BFloat16) instead of 18."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return int(sum(p.detach().cpu().numpy().size for p in model.parameters() if p.requires_grad))


@EX74.bug
def counted_before_the_top_was_unfrozen(model, top_layers=0):
    """I froze model.bert, counted what was left to train right away, and only then switched the top layers and the pooler back on: the flags are right, the count is the classifier's alone.
    Differs on: BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2)), top_layers=1: 18 instead of 690."""
    model.bert.requires_grad_(False)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    if top_layers > 0:
        for layer in model.bert.encoder.layers[len(model.bert.encoder.layers) - top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return trainable


@EX74.bug
def head_counted_as_two_labels(model, top_layers=0):
    """I counted the encoder's trainable numbers and added the head as 2·H + 2, as in the statement's 770 = 2·384 + 2, forgetting that the number of labels varies.
    Differs on: BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=3)), top_layers=0: 18 instead of 27."""
    for p in model.bert.parameters():
        p.requires_grad = False
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            for p in layer.parameters():
                p.requires_grad = True
        for p in model.bert.pooler.parameters():
            p.requires_grad = True
    H = model.config.hidden_size
    return sum(p.numel() for p in model.bert.parameters() if p.requires_grad) + 2 * H + 2


@EX74.bug
def pooler_weight_switched_on_alone(model, top_layers=0):
    """For k > 0 I switched on the pooler's weight matrix, model.bert.pooler.dense.weight, the W_p of C = tanh(W_p h + b_p), and forgot its bias b_p.
    Differs on: BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2)), top_layers=1: 682 instead of 690, and no gradient reaches the pooler's bias."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.dense.weight.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.correct
def layers_walked_from_the_top(model, top_layers=0):
    """The layers walked from the top with enumerate(reversed(...)), each one's flag set from its rank; the count with map(torch.numel) over a filter."""
    model.bert.embeddings.requires_grad_(False)
    for rank, layer in enumerate(reversed(model.bert.encoder.layers)):  # rank 0: the top layer
        layer.requires_grad_(rank < top_layers)
    model.bert.pooler.requires_grad_(top_layers > 0)
    return sum(map(torch.numel, filter(lambda p: p.requires_grad, model.parameters())))


# --- batch 8: written without reading any checker ------------------------------------------
EX7_1.batch = 8


@EX7_1.bug
def head_and_tail_lengths_swapped(ids, max_length, head, cls_id, sep_id):
    """I took `head` for the length of the part kept from the end (in the paper's 128 + 382 the head is the small part, and I pictured the small part as the verdict at the end), so I kept the first max_length - 2 - head tokens and the last head.
    Differs on: the worked example, ids = [1, ..., 10], max_length = 7, head = 2, [CLS] = 101, [SEP] = 102: [101, 1, 2, 3, 9, 10, 102] instead of [101, 1, 2, 8, 9, 10, 102]."""
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: need 0 <= head <= max_length - 2")
    if len(ids) + 2 <= max_length:
        return [cls_id] + list(ids) + [sep_id]
    front = max_length - 2 - head
    back = head
    return [cls_id] + list(ids[:front]) + list(ids[len(ids) - back:]) + [sep_id]


@EX7_1.bug
def tail_taken_from_the_reversed_text(ids, max_length, head, cls_id, sep_id):
    """I took the last `tail` tokens by reversing the text and keeping its first `tail`, and forgot to turn them back, so the tail comes out back to front.
    Differs on: the worked example, ids = [1, ..., 10], max_length = 7, head = 2, [CLS] = 101, [SEP] = 102: [101, 1, 2, 10, 9, 8, 102] instead of [101, 1, 2, 8, 9, 10, 102]."""
    if max_length < 2 or head < 0 or head > max_length - 2:
        raise ValueError(f"bad arguments: max_length={max_length}, head={head}")
    out = [cls_id]
    if len(ids) + 2 <= max_length:
        out.extend(ids)
    else:
        tail = max_length - 2 - head
        out.extend(ids[:head])
        backwards = ids[::-1]
        out.extend(backwards[:tail])
    out.append(sep_id)
    return out


@EX7_1.bug
def pieces_joined_with_np_concatenate(ids, max_length, head, cls_id, sep_id):
    """I glued [CLS], the head, the tail and [SEP] together with np.concatenate(...).tolist(); an empty piece (the head when head = 0, the tail when head = max_length - 2, or an empty text) is a float array to numpy, so every id comes back a float.
    Differs on: ids = [1, ..., 10], max_length = 7, head = 0, [CLS] = 101, [SEP] = 102: [101.0, 6.0, 7.0, 8.0, 9.0, 10.0, 102.0] (floats) instead of the ints [101, 6, 7, 8, 9, 10, 102]; likewise ids = [] gives [101.0, 102.0]."""
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: head must lie in 0 .. {max_length - 2}")
    n = len(ids)
    if n + 2 <= max_length:
        pieces = [[cls_id], ids, [sep_id]]
    else:
        tail = max_length - 2 - head
        pieces = [[cls_id], ids[:head], ids[n - tail:], [sep_id]]
    return np.concatenate(pieces).tolist()


@EX7_1.bug
def head_range_read_as_python_range(ids, max_length, head, cls_id, sep_id):
    """I checked the head with `head not in range(0, max_length - 2)`, reading the statement's "0 .. max_length - 2" as a Python range, whose end is left out; so BERT's own cut, head = max_length - 2, raises.
    Differs on: ids = [1, ..., 10], max_length = 7, head = 5: ValueError instead of [101, 1, 2, 3, 4, 5, 102]; and max_length = 2, head = 0: ValueError instead of [101, 102]."""
    if max_length < 2 or head not in range(0, max_length - 2):
        raise ValueError(f"max_length={max_length}, head={head}: need head in 0 .. {max_length - 2}")
    n = len(ids)
    if n + 2 <= max_length:
        return [cls_id, *ids, sep_id]
    tail = max_length - 2 - head
    return [cls_id, *ids[:head], *ids[n - tail:], sep_id]


@EX7_1.correct
def middle_deleted_from_a_copy(ids, max_length, head, cls_id, sep_id):
    """The arguments made Python ints and checked, then the surplus tokens deleted in one slice (del kept[head:head + surplus]) from a copy of the text."""
    max_length, head = int(max_length), int(head)
    if max_length < 2 or head < 0 or head > max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: head must be in 0 .. max_length - 2 = {max_length - 2}")
    kept = list(ids)  # a copy: the caller's list stays as it is
    surplus = len(kept) - (max_length - 2)
    if surplus > 0:
        del kept[head:head + surplus]
    return [cls_id, *kept, sep_id]


# --- batch 8: written without reading any checker ------------------------------------------
EX7_2.batch = 8


@EX7_2.bug
def mean_of_the_tokens_pooled(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """I fed the pooler the mean of the T hidden states, as sentence-transformers pools MiniLM, instead of the [CLS] row alone.
    Differs on: H = K = 1, T = 2, hidden [[[2.], [0.]]] ([CLS] = 2, one more token 0), W_p = 0.5, b_p = 0, W = 3, b = 1, label 3.0: logit 2.386 and loss 0.377 instead of 3.285 and 0.081."""
    pooled = torch.tanh(hidden.mean(dim=1) @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:
        loss = F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype))
    elif not labels.dtype.is_floating_point:
        loss = F.cross_entropy(logits, labels)
    else:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    return logits, loss


@EX7_2.bug
def pooler_bias_added_after_the_tanh(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """I half-remembered the pooler as tanh(W_p h) + b_p, adding its bias after the squashing.
    Differs on: the worked example with b_p = 0.5 (H = K = 1, h_[CLS] = 2, W_p = 0.5, W = 3, b = 1, label 3.0): logit 4.785 (3·(tanh(1) + 0.5) + 1) instead of 3.715 (3·tanh(1.5) + 1), loss 3.185 instead of 0.511."""
    cls = hidden[:, 0, :]
    pooled = torch.tanh(cls @ pooler_weight.t()) + pooler_bias
    logits = pooled @ weight.t() + bias
    K = logits.shape[1]
    if K == 1:
        loss = F.mse_loss(logits[:, 0], labels.to(logits.dtype))
    elif labels.is_floating_point():
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    else:
        loss = F.cross_entropy(logits, labels)
    return logits, loss


@EX7_2.bug
def cross_entropy_for_every_k_above_one(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """For K > 1 I called F.cross_entropy whatever the labels, since it also accepts float (B, K) targets; with multi-hot labels it then takes them as one class distribution (a softmax over the K classes), not K yes/no questions.
    Differs on: H = 1, h_[CLS] = 2, W_p = 0.5, b_p = 0, W = [[3], [0]], b = [1, 0], labels [[1., 0.]]: loss 0.037 instead of 0.365; and labels [[1., 1.]] gives 3.358 instead of 0.365."""
    pooled = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:  # regression: (B,) against (B,)
        loss = F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype))
    else:
        loss = F.cross_entropy(logits, labels if not labels.is_floating_point() else labels.to(logits.dtype))
    return logits, loss


@EX7_2.bug
def class_ids_made_one_hot_without_k(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """For one class each I made the targets one-hot with F.one_hot(labels).float() and took the cross-entropy against them; without num_classes, one_hot makes only max(labels) + 1 columns.
    Differs on: torch.manual_seed(0), hidden = randn(2, 3, 4), W_p = randn(4, 4), b_p = randn(4), W = randn(3, 4), b = randn(3), labels tensor([0, 1]) (K = 3, class 2 absent from the batch): RuntimeError (its (2, 2) one-hot targets do not fit the (2, 3) logits) instead of the loss 0.774 (with labels [0, 2] it agrees)."""
    pooled = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:
        loss = F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype))
    elif not labels.dtype.is_floating_point:
        targets = F.one_hot(labels).to(logits.dtype)
        loss = F.cross_entropy(logits, targets)
    else:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    return logits, loss


@EX7_2.correct
def addmm_and_log_sigmoid(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """torch.addmm for the pooler and the classifier; MSE as the mean of squared differences, cross-entropy as nll_loss of log_softmax, the binary cross-entropy from F.logsigmoid of z and -z."""
    cls = hidden[:, 0, :]  # (B, H)
    pooled = torch.addmm(pooler_bias, cls, pooler_weight.t()).tanh()
    logits = torch.addmm(bias, pooled, weight.t())  # (B, K)
    if logits.size(1) == 1:
        diff = logits[:, 0] - labels.to(logits.dtype)
        loss = (diff * diff).mean()
    elif labels.is_floating_point():
        y = labels.to(logits.dtype)
        loss = -(y * F.logsigmoid(logits) + (1 - y) * F.logsigmoid(-logits)).mean()
    else:
        loss = F.nll_loss(F.log_softmax(logits, dim=1), labels)
    return logits, loss


# --- batch 8: written without reading any checker ------------------------------------------
EX73.batch = 8


@EX73.bug
def means_by_floor_division(dev, test):
    """I wrote each setting's mean as sum(scores) // len(scores), the // out of habit from counting things, which floors the mean to a whole number.
    Differs on: {"a": [80, 71], "b": [70, 70]}: ("a", 75, 6.364) instead of ("a", 75.5, 6.364); and the worked example: ("a", 0.0, 0.05) (both means floor to 0.0, the first wins) instead of ("b", 0.77, 0.01)."""
    means = {setting: sum(scores) // len(scores) for setting, scores in dev.items()}
    best = max(means, key=means.get)
    return best, means[best], statistics.stdev(dev[best])


@EX73.bug
def bessel_correction_applied_twice(dev, test):
    """I took statistics.stdev and then multiplied it by sqrt(n / (n - 1)) for the sample correction, not knowing stdev already divides by n - 1.
    Differs on: the worked example {"a": [0.80, 0.70, 0.75], "b": [0.78, 0.76, 0.77]}: ("b", 0.77, 0.01225) instead of ("b", 0.77, 0.01)."""
    best = max(dev, key=lambda s: statistics.fmean(dev[s]))
    n = len(dev[best])
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best]) * math.sqrt(n / (n - 1))


@EX73.bug
def n_minus_one_without_parentheses(dev, test):
    """By hand, I wrote the variance as ss / len(xs) - 1, meaning ss / (len(xs) - 1): without the parentheses it subtracts 1 after dividing by n.
    Differs on: the worked example: ValueError (math domain error, a negative variance) instead of ("b", 0.77, 0.01); and {"a": [70, 90], "b": [75, 76]}: ("a", 80.0, 9.95) instead of ("a", 80.0, 14.14)."""
    best, best_mean = None, None
    for setting, scores in dev.items():
        m = sum(scores) / len(scores)
        if best_mean is None or m > best_mean:
            best, best_mean = setting, m
    xs = dev[best]
    ss = sum((x - best_mean) ** 2 for x in xs)
    return best, best_mean, math.sqrt(ss / len(xs) - 1)


@EX73.bug
def compared_on_the_seeds_all_settings_share(dev, test):
    """Some settings had more seeds than others, so for a fair choice I compared the settings on their first k seeds only, k the fewest any setting has, and then reported the chosen one's mean and sd over all its seeds.
    Differs on: {"a": [0.7, 0.7, 0.9], "b": [0.75, 0.75]}: ("b", 0.75, 0.0) instead of ("a", 0.7667, 0.1155)."""
    k = min(len(scores) for scores in dev.values())
    best = max(dev, key=lambda s: statistics.fmean(dev[s][:k]))
    return best, statistics.fmean(dev[best]), statistics.stdev(dev[best])


@EX73.correct
def nlargest_and_euclidean_distance(dev, test):
    """heapq.nlargest(1, ...) on math.fsum means for the choice; the sd as math.dist from the scores to their mean, over sqrt(n - 1)."""
    (best,) = heapq.nlargest(1, dev, key=lambda s: math.fsum(dev[s]) / len(dev[s]))
    xs = [float(x) for x in dev[best]]
    n = len(xs)
    mean = math.fsum(xs) / n
    return best, mean, math.dist(xs, [mean] * n) / math.sqrt(n - 1)


# --- batch 8: written without reading any checker ------------------------------------------
EX74.batch = 8


@EX74.bug
def layer_norms_left_trainable(model, top_layers=0):
    """I froze model.bert but left every LayerNorm of it trainable (they are tiny, and adapter papers train them anyway), the embeddings' and the lower layers' included.
    Differs on: minibert.BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2)), top_layers=0: 98 instead of 18 (the five LayerNorms' 80 numbers still learn)."""
    model.bert.requires_grad_(False)
    for module in model.bert.modules():
        if isinstance(module, torch.nn.LayerNorm):
            module.requires_grad_(True)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def top_layers_chosen_with_a_strict_comparison(model, top_layers=0):
    """I switched each layer on when its index i > n - top_layers, one too strict: the top k are i >= n - k, so the lowest of them stays frozen (and with k = 1 no layer learns).
    Differs on: BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2)), top_layers=1: 90 instead of 690 (the pooler and the head only); top_layers=2: 690 instead of 1290."""
    model.bert.embeddings.requires_grad_(False)
    layers = model.bert.encoder.layers
    n = len(layers)
    for i, layer in enumerate(layers):
        layer.requires_grad_(i > n - top_layers)
    model.bert.pooler.requires_grad_(top_layers > 0)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def lower_layers_frozen_with_minus_k_slice(model, top_layers=0):
    """I froze the lower layers as layers[:-top_layers] and switched the top ones on as layers[len - top_layers:]; for top_layers = 0, layers[:-0] is layers[:0], empty, so no layer gets frozen.
    Differs on: BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2)), fresh, top_layers=0: 1218 instead of 18 (both layers still learn)."""
    model.bert.embeddings.requires_grad_(False)
    layers = model.bert.encoder.layers
    for layer in layers[:-top_layers]:
        layer.requires_grad_(False)
    for layer in layers[len(layers) - top_layers:]:
        layer.requires_grad_(True)
    model.bert.pooler.requires_grad_(top_layers > 0)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def top_layers_unfrozen_through_the_decay_filter(model, top_layers=0):
    """To pick the top layers' parameters I reused the name filter of my optimizer's weight-decay group (names without "bias" or "LayerNorm.weight"), so the top layers' biases stay frozen.
    Differs on: BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2)), top_layers=1: 618 instead of 690 (the layer's 72 bias numbers stay frozen)."""
    no_decay = ("bias", "LayerNorm.weight")
    for p in model.bert.parameters():
        p.requires_grad = False
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            for name, p in layer.named_parameters():
                if not any(nd in name for nd in no_decay):
                    p.requires_grad = True
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.correct
def flags_planned_per_module(model, top_layers=0):
    """A plan of (module, flag) pairs, the layers' flags from [False] * (n - k) + [True] * k zipped with the layers; every parameter of each module set from its flag; the count by a loop."""
    layers = model.bert.encoder.layers
    n = len(layers)
    flags = [False] * (n - top_layers) + [True] * top_layers
    plan = [(model.bert.embeddings, False), *zip(layers, flags), (model.bert.pooler, top_layers > 0)]
    for module, flag in plan:
        for p in module.parameters():
            p.requires_grad = flag
    total = 0
    for p in model.parameters():
        if p.requires_grad:
            total += p.numel()
    return total


# --- batch 9: written without reading any checker ------------------------------------------
EX7_1.batch = 9


@EX7_1.bug
def tail_slice_with_an_inclusive_last_index(ids, max_length, head, cls_id, sep_id):
    """I took the tail as ids[n - 1 - tail:n - 1], thinking of n - 1 as the index of the last token and of the slice as ending on it, so the tail comes one place too early and the text's last token is dropped.
    Differs on: the worked example, ids = [1, ..., 10], max_length = 7, head = 2, [CLS] = 101, [SEP] = 102: [101, 1, 2, 7, 8, 9, 102] instead of [101, 1, 2, 8, 9, 10, 102]."""
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: head must be in 0 .. {max_length - 2}")
    n = len(ids)
    if n + 2 <= max_length:
        return [cls_id] + list(ids) + [sep_id]
    tail = max_length - 2 - head
    last = n - 1
    return [cls_id] + ids[:head] + ids[last - tail:last] + [sep_id]


@EX7_1.bug
def fitting_text_wrapped_in_place(ids, max_length, head, cls_id, sep_id):
    """When the text fits I simply put [CLS] in front of it and [SEP] after it, ids.insert(0, cls_id) and ids.append(sep_id), and returned it: that is the caller's own list.
    Differs on: ids = [1, 2, 3], max_length = 7, head = 2: the result [101, 1, 2, 3, 102] is right, but the caller's ids is now [101, 1, 2, 3, 102] instead of staying [1, 2, 3] (and a second call on it wraps it again)."""
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: head must be in 0 .. {max_length - 2}")
    if len(ids) + 2 <= max_length:
        ids.insert(0, cls_id)
        ids.append(sep_id)
        return ids
    tail = max_length - 2 - head
    return [cls_id, *ids[:head], *ids[len(ids) - tail:], sep_id]


@EX7_1.bug
def head_longer_than_the_text_rejected(ids, max_length, head, cls_id, sep_id):
    """Besides the statement's checks I also raised a ValueError when head is longer than the text itself (a head of 5 tokens out of a 3-token text made no sense to me).
    Differs on: ids = [1, 2, 3], max_length = 7, head = 5 (BERT's own cut for 7): ValueError instead of [101, 1, 2, 3, 102]; likewise ids = [], max_length = 512, head = 128."""
    if max_length < 2 or not 0 <= head <= max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: head must be in 0 .. {max_length - 2}")
    n = len(ids)
    if head > n:
        raise ValueError(f"head={head} is longer than the text ({n} tokens)")
    if n + 2 <= max_length:
        return [cls_id, *ids, sep_id]
    tail = max_length - 2 - head
    return [cls_id, *ids[:head], *ids[n - tail:], sep_id]


@EX7_1.bug
def head_clamped_into_range(ids, max_length, head, cls_id, sep_id):
    """I checked max_length, but a head out of range I clamped into 0 .. max_length - 2 with min and max, to be forgiving, instead of raising.
    Differs on: ids = [1, ..., 10], max_length = 7, head = 9: [101, 1, 2, 3, 4, 5, 102] instead of a ValueError; and head = -1: [101, 6, 7, 8, 9, 10, 102] instead of a ValueError."""
    if max_length < 2:
        raise ValueError(f"max_length={max_length}: need at least 2 for [CLS] and [SEP]")
    head = max(0, min(head, max_length - 2))
    n = len(ids)
    if n + 2 <= max_length:
        return [cls_id, *ids, sep_id]
    tail = max_length - 2 - head
    return [cls_id, *ids[:head], *ids[n - tail:], sep_id]


@EX7_1.correct
def reversed_twice_for_the_tail(ids, max_length, head, cls_id, sep_id):
    """operator.index for the arguments; the tail as the first `tail` ids of the reversed text, reversed back; list concatenation."""
    max_length, head = operator.index(max_length), operator.index(head)
    if max_length < 2 or head < 0 or head > max_length - 2:
        raise ValueError(f"max_length={max_length}, head={head}: need max_length >= 2 and 0 <= head <= {max_length - 2}")
    room = max_length - 2
    if len(ids) <= room:
        return [cls_id] + list(ids) + [sep_id]
    tail = room - head
    end = list(reversed(ids))[:tail]
    end.reverse()
    return [cls_id] + list(ids[:head]) + end + [sep_id]


# --- batch 9: written without reading any checker ------------------------------------------
EX7_2.batch = 9


@EX7_2.bug
def pooler_activation_taken_as_gelu(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """I gave the pooler BERT's activation, GELU (the one every layer of the encoder uses), where the statement's C is a tanh.
    Differs on: the worked example (H = K = 1, h_[CLS] = 2, W_p = 0.5, b_p = 0, W = 3, b = 1, label 3.0): logit 3.524 (3·gelu(1) + 1) and loss 0.275 instead of 3.285 and 0.081."""
    cls = hidden[:, 0, :]
    pooled = F.gelu(cls @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:
        loss = F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype))
    elif not labels.dtype.is_floating_point:
        loss = F.cross_entropy(logits, labels)
    else:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    return logits, loss


@EX7_2.bug
def log_probabilities_indexed_by_the_label_column(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """I wrote the one-class loss out as -log_softmax(logits)[:, labels].mean(), meaning each row's own label; but [:, labels] takes every label's column for every row, a (B, B) block, and averages all of it.
    Differs on: H = 1, hidden [[[2.]], [[-2.]]] (B = 2, T = 1), W_p = 0.5, b_p = 0, W = [[3.], [0.]], b = [1., 0.], labels tensor([0, 1]): loss 1.283 instead of 0.141 (with B = 1, or rows that agree, it comes out right)."""
    cls = hidden[:, 0]
    pooled = torch.tanh(torch.matmul(cls, pooler_weight.t()) + pooler_bias)
    logits = torch.matmul(pooled, weight.t()) + bias
    K = logits.shape[1]
    if K == 1:
        loss = ((logits[:, 0] - labels.to(logits.dtype)) ** 2).mean()
    elif labels.is_floating_point():
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    else:
        loss = -F.log_softmax(logits, dim=-1)[:, labels].mean()
    return logits, loss


@EX7_2.bug
def logits_squeezed_in_place_for_regression(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """For regression I made the (B, 1) logits (B,) with logits.squeeze_(-1), in place, before the MSE, and returned logits afterwards: they are (B,) now, not (B, K).
    Differs on: the worked example (H = K = 1, h_[CLS] = 2, W_p = 0.5, b_p = 0, W = 3, b = 1, label 3.0): logits of shape (1,), tensor([3.285]), instead of (1, 1), tensor([[3.285]]) (the loss 0.081 is right)."""
    pooled = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:
        logits.squeeze_(-1)
        loss = F.mse_loss(logits, labels.to(logits.dtype))
    elif not labels.dtype.is_floating_point:
        loss = F.cross_entropy(logits, labels)
    else:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    return logits, loss


@EX7_2.bug
def root_mean_squared_error(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """For regression I returned the root of the mean squared error, the RMSE I am used to reporting for a score, so the loss is in the labels' units.
    Differs on: the worked example (H = K = 1, h_[CLS] = 2, W_p = 0.5, b_p = 0, W = 3, b = 1, label 3.0): loss 0.285 instead of 0.081 (the logit 3.285 is right)."""
    pooled = torch.tanh(hidden[:, 0] @ pooler_weight.T + pooler_bias)
    logits = pooled @ weight.T + bias
    if logits.shape[-1] == 1:
        loss = torch.sqrt(F.mse_loss(logits.squeeze(-1), labels.to(logits.dtype)))
    elif not labels.dtype.is_floating_point:
        loss = F.cross_entropy(logits, labels)
    else:
        loss = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype))
    return logits, loss


@EX7_2.correct
def one_example_at_a_time(hidden, pooler_weight, pooler_bias, weight, bias, labels):
    """A loop over the batch with matrix-vector products (mv), each example's loss written out (square, logsumexp minus the label's logit, softplus form of the binary cross-entropy), stacked and averaged."""
    B = hidden.shape[0]
    rows, losses = [], []
    K = weight.shape[0]
    for b in range(B):
        pooled = torch.tanh(torch.mv(pooler_weight, hidden[b, 0]) + pooler_bias)  # (H,)
        z = torch.mv(weight, pooled) + bias  # (K,)
        rows.append(z)
        if K == 1:
            losses.append((z[0] - labels[b].to(z.dtype)) ** 2)
        elif labels.dim() == 1:
            losses.append(torch.logsumexp(z, dim=0) - z[labels[b]])
        else:
            y = labels[b].to(z.dtype)
            losses.append((F.softplus(z) - y * z).mean())  # -[y log σ(z) + (1 - y) log σ(-z)]
    logits = torch.stack(rows)
    return logits, torch.stack(losses).mean()


# --- batch 9: written without reading any checker ------------------------------------------
EX73.batch = 9


@EX73.bug
def square_root_written_as_power_one_half(dev, test):
    """By hand, I took the square root of the variance as var ** 1/2, which Python reads as (var ** 1) / 2: half the variance.
    Differs on: the worked example {"a": [0.80, 0.70, 0.75], "b": [0.78, 0.76, 0.77]}: ("b", 0.77, 0.00005) instead of ("b", 0.77, 0.01)."""
    best, best_mean = None, -math.inf
    for setting, scores in dev.items():
        m = sum(scores) / len(scores)
        if m > best_mean:
            best, best_mean = setting, m
    xs = dev[best]
    var = sum((x - best_mean) ** 2 for x in xs) / (len(xs) - 1)
    return best, best_mean, var ** 1/2


@EX73.bug
def centre_as_the_midpoint_of_the_range(dev, test):
    """I computed each setting's mean as the midpoint of its best and worst seed, (min + max) / 2, a shortcut that gave the right means on my two-seed grids.
    Differs on: {"a": [0.9, 0.5, 0.5], "b": [0.65, 0.65, 0.65]}: ("a", 0.7, 0.2309) instead of ("b", 0.65, 0.0) (a's true mean is 0.633)."""
    def centre(scores):
        return (min(scores) + max(scores)) / 2
    best = max(dev, key=lambda s: centre(dev[s]))
    return best, centre(dev[best]), statistics.stdev(dev[best])


@EX73.bug
def best_item_returned_as_the_setting(dev, test):
    """I took the best with max(dev.items(), key=...) to have the name and the scores together, then returned that (name, scores) pair where the setting's name belongs.
    Differs on: the worked example: (("b", [0.78, 0.76, 0.77]), 0.77, 0.01) instead of ("b", 0.77, 0.01)."""
    best = max(dev.items(), key=lambda item: statistics.fmean(item[1]))
    scores = best[1]
    return best, statistics.fmean(scores), statistics.stdev(scores)


@EX73.bug
def seed_count_read_from_the_first_setting(dev, test):
    """I read the number of seeds once, from the first setting, and divided every setting's sums by it, taking the grid to have the same number of seeds everywhere.
    Differs on: {"a": [0.7, 0.7, 0.7], "b": [0.9, 0.9]}: ("a", 0.7, 0.0) instead of ("b", 0.9, 0.0) (b's mean comes out as 1.8 / 3 = 0.6)."""
    n = len(next(iter(dev.values())))
    means = {setting: sum(scores) / n for setting, scores in dev.items()}
    best = max(means, key=means.get)
    m = means[best]
    sd = math.sqrt(sum((x - m) ** 2 for x in dev[best]) / (n - 1))
    return best, m, sd


@EX73.correct
def mean_and_variance_pairs(dev, test):
    """A dict comprehension of (mean, variance) pairs with statistics.fmean and statistics.variance, the best item by max over items, the sd as math.sqrt of the variance."""
    summary = {setting: (statistics.fmean(scores), statistics.variance(scores)) for setting, scores in dev.items()}
    best, (mean, variance) = max(summary.items(), key=lambda item: item[1][0])
    return best, mean, math.sqrt(variance)


# --- batch 9: written without reading any checker ------------------------------------------
EX74.batch = 9


@EX74.bug
def frozen_through_p_data(model, top_layers=0):
    """I froze each parameter of model.bert with p.data.requires_grad_(False), as I had seen .data used to get at a parameter's numbers; .data is a new tensor each time, so the flag lands on it and the parameter itself still requires a gradient.
    Differs on: minibert.BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2)), top_layers=0: 5658 (nothing frozen, every parameter learns) instead of 18."""
    for p in model.bert.parameters():
        p.data.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            for p in layer.parameters():
                p.requires_grad_(True)
        for p in model.bert.pooler.parameters():
            p.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.bug
def counted_as_rows_times_columns(model, top_layers=0):
    """I counted each trainable tensor's numbers as p.size(0) * p.size(-1), rows times columns; for a bias or a LayerNorm vector both are its length, so a vector of n numbers counts n².
    Differs on: minibert.BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2)), top_layers=0: 20 instead of 18 (the classifier's bias of 2 counts 4)."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.size(0) * p.size(-1) for p in model.parameters() if p.requires_grad)


@EX74.bug
def frozen_numbers_returned(model, top_layers=0):
    """I returned the number of parameters I had frozen, reading "count what is left" as what the freezing left out of training.
    Differs on: minibert.BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=16, num_labels=2)), top_layers=0: 5640 (the frozen encoder) instead of 18."""
    model.bert.requires_grad_(False)
    if top_layers:
        for layer in model.bert.encoder.layers[-top_layers:]:
            layer.requires_grad_(True)
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if not p.requires_grad)


@EX74.bug
def top_layers_indexed_from_minus_zero(model, top_layers=0):
    """I switched the top layers on one by one with layers[-i] for i in range(top_layers); for i = 0 that is layers[0], the bottom layer, so the k-th layer from the top stays frozen and the bottom one learns instead.
    Differs on: minibert.BertForSequenceClassification(BertConfig(vocab_size=30, hidden_size=8, num_hidden_layers=3, num_attention_heads=2, intermediate_size=16, num_labels=2)), top_layers=1: the same count, 690, but layers[0] learns where layers[2] should (a backward pass reaches the bottom layer, not the top one); top_layers=2: layers 0 and 2 instead of 1 and 2."""
    model.bert.requires_grad_(False)
    layers = model.bert.encoder.layers
    for i in range(top_layers):
        layers[-i].requires_grad_(True)
    if top_layers:
        model.bert.pooler.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@EX74.correct
def flags_by_enumerate_and_product_count(model, top_layers=0):
    """Each part of model.bert switched with requires_grad_(flag): the embeddings off, each layer on when its index is at least n - k, the pooler on when k > 0; the count as a sum of numel times the flag."""
    bert = model.bert
    bert.embeddings.requires_grad_(False)
    n = len(bert.encoder.layers)
    for index, layer in enumerate(bert.encoder.layers):
        layer.requires_grad_(index >= n - top_layers)
    bert.pooler.requires_grad_(top_layers > 0)
    return sum(p.numel() * int(p.requires_grad) for p in model.parameters())
