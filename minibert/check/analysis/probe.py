"""The checker of exercise 6.4: a linear probe, fitted on one set of words and scored on another.

A probe's accuracy is not one exact number (least squares, logistic regression, a penalty or none all
give slightly different classifiers), so the cases test what every honest linear probe must do:
1. two classes on a line, away from 0 (x in [1, 2] against [3, 4]): accuracy 1, which needs a bias;
2. twelve well-separated classes in 16 dimensions, one absent from the test words: accuracy ≥ 0.95;
   the line scored on words of one tag only (the threshold may not move with the words scored): 1;
   tags numbered 0, 1, 3 with no tag 2 (a tag is a column number): ≥ 0.95; the tag in one feature
   100 times smaller than the rest (each feature standardised by itself): ≥ 0.9; a feature that is 0 on
   every training word (its std is 0: no 0 / 0): ≥ 0.95; three tags scored on test words 6 times as far
   out as the training words (the largest score wins, not the one nearest the one-hot 1): 1; a line
   with 38 training words of one tag and 2 of the other (a bias, not only centred features): 1, and the
   same scored on words 100 times as far out (a fit that moves with the test words fails): 1; the line's
   test words and 5 of a tag no training word has: exactly 0.8 (those 5 count, as wrong);
3. random labels, more dimensions than words: near chance on the test words (nothing carries over); tag 0 between
   two groups of tag 1 on a line: at most 2/3 (`probe_limits`); 2 tags either side of a slanted line, scored on
   words far out (a probe not linear in x, clipping its features, crosses it): 1; 2 tags, 6 training words in
   20 dimensions: 1;
4. all-MiniLM-L6-v2's layer-3 states of real Brown words: at most 0.08 below `minibert.analysis`'s ridge
   probe, and far above the most frequent tag. The inputs must come back unchanged.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from ...analysis import encode_words, probe_accuracy
from ..common import ExerciseError, as_float, call, minilm_model, minilm_tokenizer, passed
from .probe_limits import fewer_words_than_features, far_out_on_a_slant, linear_ceiling, test_words_far_out

MINILM_LAYER = 3  # a middle layer: where chapter 06 found part of speech read best


def _separable_on_a_line():
    g = torch.Generator().manual_seed(64)
    x = lambda lo, n: lo + torch.rand(n, 1, generator=g)  # noqa: E731  (n, 1) in [lo, lo + 1]
    train_x, test_x = torch.cat([x(1, 20), x(3, 20)]), torch.cat([x(1, 10), x(3, 10)])
    train_y, test_y = torch.tensor([0] * 20 + [1] * 20), torch.tensor([0] * 10 + [1] * 10)
    return train_x, train_y, test_x, test_y


def _line_in_float64():
    """The line in float64, features held as a model run in double precision gives them: `.double()` on a
    float64 tensor is that tensor itself, not a copy."""
    train_x, train_y, test_x, test_y = _separable_on_a_line()
    return train_x.double(), train_y, test_x.double(), test_y


def _twelve_classes():
    g = torch.Generator().manual_seed(65)
    centres = 5.0 * torch.randn(12, 16, generator=g)
    train_y = torch.arange(12).repeat(8)  # 8 words of each class
    test_y = torch.arange(11).repeat(3)  # class 11 never occurs in the test words
    noisy = lambda y: centres[y] + 0.3 * torch.randn(len(y), 16, generator=g)  # noqa: E731
    return noisy(train_y), train_y, noisy(test_y), test_y


def _one_tag_to_score():
    """The line of `_separable_on_a_line`, scored on words of tag 1 only (x in [3, 4])."""
    train_x, train_y, test_x, test_y = _separable_on_a_line()
    return train_x, train_y, test_x[test_y == 1], test_y[test_y == 1]


def _a_tag_never_seen():
    """Four well-separated tags in 8 dimensions, numbered 0, 1 and 3: no word of tag 2 anywhere."""
    g = torch.Generator().manual_seed(69)
    centres = 5.0 * torch.randn(4, 8, generator=g)
    train_y, test_y = torch.tensor([0, 1, 3]).repeat(10), torch.tensor([0, 1, 3]).repeat(5)
    noisy = lambda y: centres[y] + 0.3 * torch.randn(len(y), 8, generator=g)  # noqa: E731
    return noisy(train_y), train_y, noisy(test_y), test_y


def _features_of_unequal_scale():
    """Two tags told apart by feature 0 alone, whose values are 100 times smaller than those of the 7
    noise features beside it (BERT's hidden states have a few dimensions far larger than the rest)."""
    g = torch.Generator().manual_seed(70)
    def words(y):
        x = 100.0 * torch.randn(len(y), 8, generator=g)
        x[:, 0] = (2.0 * y - 1) + 0.2 * torch.randn(len(y), generator=g)  # ±1: the tag
        return x
    train_y, test_y = torch.tensor([0, 1]).repeat(20), torch.tensor([0, 1]).repeat(10)
    return words(train_y), train_y, words(test_y), test_y


def _a_constant_feature():
    """The four tags of `_a_tag_never_seen` (0, 1, 2, 3 this time) with a fifth feature that is 0 on
    every word, as a dimension no word uses: its std over the training words is 0."""
    g = torch.Generator().manual_seed(71)
    centres = 5.0 * torch.randn(4, 8, generator=g)
    train_y, test_y = torch.arange(4).repeat(10), torch.arange(4).repeat(5)
    def words(y):
        x = centres[y] + 0.3 * torch.randn(len(y), 8, generator=g)
        return torch.cat([x[:, :4], torch.zeros(len(y), 1), x[:, 4:]], dim=1)  # (n, 9), feature 4 all 0
    return words(train_y), train_y, words(test_y), test_y


def _unbalanced_line():
    """Two tags on a line, x in [1, 2] against [4, 5], with 38 training words of tag 0 and 2 of tag 1 (the
    test words 20 and 10): centred features without a bias put the threshold at the training mean, 1.65,
    inside tag 0."""
    g = torch.Generator().manual_seed(73)
    x = lambda lo, n: lo + torch.rand(n, 1, generator=g)  # noqa: E731  (n, 1) in [lo, lo + 1]
    train_x, test_x = torch.cat([x(1, 38), x(4, 2)]), torch.cat([x(1, 20), x(4, 10)])
    train_y, test_y = torch.tensor([0] * 38 + [1] * 2), torch.tensor([0] * 20 + [1] * 10)
    return train_x, train_y, test_x, test_y


def _unbalanced_line_scored_far_out():
    """The training words of `_unbalanced_line` (the same 40), scored on words 100 times as far out on either
    side: tag 0 at x in [-101, -100], tag 1 at [100, 101]. A probe fitted on those training words alone that
    got the line's test words right has its threshold between 2 and 4, so it gets these right too; one whose
    fit moves with the words scored (standardised with the test words' statistics too) need not."""
    train_x, train_y, _, _ = _unbalanced_line()
    g = torch.Generator().manual_seed(74)
    test_x = torch.cat([-101 + torch.rand(20, 1, generator=g), 100 + torch.rand(10, 1, generator=g)])
    return train_x, train_y, test_x, torch.tensor([0] * 20 + [1] * 10)


def _a_tag_only_in_the_test_words():
    """The line of `_separable_on_a_line` (tags 0 and 1), scored on its 20 test words and on 5 more of tag 2, a
    tag no training word has (x in [5, 6]): no probe fitted on the training words can name it, so exactly
    20 of the 25 are right."""
    train_x, train_y, test_x, test_y = _separable_on_a_line()
    g = torch.Generator().manual_seed(75)
    return (train_x, train_y, torch.cat([test_x, 5 + torch.rand(5, 1, generator=g)]),
            torch.cat([test_y, torch.full((5,), 2)]))


def _random_labels(seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(50, 64, generator=g), torch.randint(0, 4, (50,), generator=g),
            torch.randn(40, 64, generator=g), torch.randint(0, 4, (40,), generator=g))


@lru_cache(maxsize=1)
def _minilm_words():
    """Layer-3 states of the first token of each word of 90 short Brown sentences (dev split), with
    their gold tags: 60 sentences to fit on, 30 to score."""
    from ...tasks import load_task

    rows = [r for r in load_task("pos", "dev") if len(r["words"]) <= 20][:90]
    batch = encode_words(minilm_tokenizer(), [r["words"] for r in rows])
    with torch.no_grad():
        states = minilm_model()(batch.input_ids, attention_mask=batch.attention_mask,
                       output_hidden_states=True).hidden_states[MINILM_LAYER]  # (B, T, H)
    features = [states[b, batch.first_token[b]] for b in range(len(rows))]  # (W_b, H) each
    tags = [torch.tensor(r["tags"]) for r in rows]
    return (torch.cat(features[:60]), torch.cat(tags[:60]), torch.cat(features[60:]), torch.cat(tags[60:]))


def _unchanged(name, copies, data):
    for before, after, what in zip(copies, data, ("train_x", "train_y", "test_x", "test_y"), strict=True):
        if not torch.equal(before, after):
            hint = "work on a copy, the caller's tensors are not yours"
            if after.dtype == torch.float64:
                hint = ("`.double()` (like `.float()` or `.to(dtype)`) returns the tensor itself when it already "
                        "has that dtype, so an in-place `-=` or `/=` after it changes the caller's tensor: "
                        "`x = x.double() - mean` makes a new one")
            raise ExerciseError(f"{name}: your function changed its input {what} in place (standardising "
                                f"with `-=` or `/=`?)\n  hint: {hint}")


def _leaves_float64_alone(fn):
    """Features in float64 (a model run in double precision) are not the caller's to change either. The
    exercise promises nothing about float64, so only the inputs are checked: an error or any accuracy is
    the learner's own business."""
    data = _line_in_float64()
    copies = [d.clone() for d in data]
    try:
        fn(*data)
    except Exception:  # noqa: BLE001  (a float32-only probe may refuse float64: that breaks no promise)
        pass
    _unchanged("the line again, its features in float64", copies, data)


def _blind_to_test_labels(fn):
    """A probe predicts from the words alone, so relabelling the test words cannot change its predictions.
    Under the K relabellings y -> (y + k) mod K each word's fixed prediction matches exactly one, so the K
    accuracies sum to exactly 1; a probe that chose anything (α, the epochs) by test accuracy sums to more."""
    train_x, train_y, test_x, test_y = _random_labels(66)
    K = int(train_y.max()) + 1
    name = (f"random labels (seed 66), the test words' tags relabelled (tag + k) mod {K} for k = 0..{K - 1}: "
            f"the same words, so the same predictions")
    accuracies = [_accuracy(name, fn, (train_x, train_y, test_x, (test_y + k) % K)) for k in range(K)]
    if abs(sum(accuracies) - 1.0) > 1e-6:
        raise ExerciseError(f"{name}: your accuracies {[round(a, 3) for a in accuracies]} sum to "
                            f"{sum(accuracies):.3f}; fixed predictions would give exactly 1, each word matching one "
                            "relabelling\n  hint: your predictions depend on test_y: choose α (and anything else) on "
                            "the training words alone, e.g. on a slice of them held out; test_y only scores")


def _accuracy(name, fn, data):
    copies = [d.clone() for d in data]
    got = call(fn, name, *data)
    _unchanged(name, copies, data)
    accuracy, problem = as_float(got)
    if problem:
        raise ExerciseError(f"{name}: expected the accuracy as a number between 0 and 1; your result {problem}")
    if not 0.0 <= accuracy <= 1.0:
        raise ExerciseError(f"{name}: received {got!r}; return the fraction of test words tagged right "
                            "(between 0 and 1), not a count")
    return accuracy


# (case, its data, the accuracy any honest linear probe reaches, why, the hint when it does not)
SEPARABLE = [
    ("two classes on a line, x in [1, 2] against [3, 4]", _separable_on_a_line, 1.0,
     "a threshold at 2.5 separates them", "scores w·x through the origin rank the classes the same for every "
     "x > 0: add a bias (a column of ones), or centre the features with the training mean"),
    ("12 classes in 16 dimensions (class 11 absent from the test words)", _twelve_classes, 0.95,
     "the classes are far apart", "predict the class with the largest score for each word (argmax over the "
     "classes, the last axis), with as many classes as the training labels have"),
    ("the line again, scored on test words of tag 1 only (x in [3, 4])", _one_tag_to_score, 1.0,
     "the threshold at 2.5 is the same", "the test words are scored by the probe fitted on the training words, "
     "standardised with the training words' mean and std: which statistics did yours use? A probe must not "
     "move its threshold with the words it scores"),
    ("tags numbered 0, 1 and 3 in 8 dimensions (no word of tag 2 anywhere)", _a_tag_never_seen, 0.95,
     "the tags are far apart", "a tag is a column number: with K = largest tag + 1 columns a tag nobody has "
     "keeps its (empty) column, and tag 3 stays tag 3; how many distinct tags there are is not K"),
    ("8 features, the tag in feature 0 alone, whose values are 100 times smaller than the others'",
     _features_of_unequal_scale, 0.9, "feature 0 separates the tags", "standardise each feature with its own "
     "training mean and std (over the words, dim 0); one mean and std over every number leaves feature 0 100 "
     "times smaller than the others, and the ridge penalty then sets its weight to almost 0"),
    ("4 tags in 9 dimensions, feature 4 equal to 0 on every word", _a_constant_feature, 0.95,
     "the other 8 features separate the tags", "feature 4 is constant on the training words, so its std is 0 and "
     "(x - mean) / std is 0 / 0 = nan, which spreads to every score: keep the std away from 0 "
     "(std.clamp_min(1e-6)), as a feature that never varies carries nothing either way"),
    ("two tags on a line, x in [1, 2] against [4, 5], 38 training words of tag 0 and 2 of tag 1", _unbalanced_line,
     1.0, "a threshold at 3 separates them", "centred features alone put the threshold at the training mean, "
     "about 1.65, inside tag 0; a bias (the column of ones) moves it between the tags. Add the column after "
     "standardising: a column of ones standardised is (1 - 1) / std = 0, no bias at all"),
    ("the line with 38 and 2 training words again, scored on test words 100 times as far out (x near -100 for "
     "tag 0, near 100 for tag 1)", _unbalanced_line_scored_far_out, 1.0,
     "fitted on the same training words, the threshold is the same", "a probe fitted on the training words alone "
     "gets these right, as it did the line's own test words: its threshold cannot move with the words it scores. "
     "Standardise with the training words' mean and std alone, not with statistics that take in the test words"),
    ("3 tags in 2 dimensions, the test words 6 times as far from the middle as the training words",
     test_words_far_out, 1.0, "each test word lies on its tag's side, only farther out",
     "the predicted tag is the one with the largest score, however far past 1 it runs; the tag whose score is "
     "nearest the one-hot target 1 is another rule, which fails on words larger than the training words"),
]


def _every_test_word_counts(fn):
    """Exactly 20 of 25: the 5 test words of a tag no training word has count, as words tagged wrong."""
    name = ("the line, its 20 test words and 5 more of tag 2 (x in [5, 6]), a tag that no training word has "
            "(train_y holds 0 and 1 only)")
    got = _accuracy(name, fn, _a_tag_only_in_the_test_words())
    if abs(got - 0.8) > 1e-6:
        hint = ("\n  hint: 1.0 is what leaving the 5 words of tag 2 out gives; the accuracy is over every test word "
                "(25 here), and a word whose tag the probe never saw is one it tags wrong" if abs(got - 1.0) < 1e-6
                else "")
        raise ExerciseError(f"{name}: accuracy {got:.3f}, expected 0.8 (the 20 words of tags 0 and 1 are right, "
                            f"the 5 of tag 2 cannot be){hint}")


def probe(fn) -> None:
    """fn(train_x (N, H), train_y (N,), test_x (M, H), test_y (M,)) -> held-out accuracy of a linear probe."""
    for name, data, floor, why, hint in SEPARABLE:
        got = _accuracy(name, fn, data())
        if got < floor:
            expected = "1.0" if floor == 1.0 else f"at least {floor}"
            raise ExerciseError(f"{name}: accuracy {got:.3f}, expected {expected} ({why})\n  hint: {hint}")
    _leaves_float64_alone(fn)
    for seed in (66, 67, 68):
        name = f"random labels, 4 classes, 64 dimensions, 50 words to fit and 40 to score (seed {seed})"
        got = _accuracy(name, fn, _random_labels(seed))
        if got > 0.55:
            raise ExerciseError(f"{name}: accuracy {got:.3f}, expected near chance (0.25): labels drawn at random "
                                "carry nothing from the training words to the test words\n"
                                "  hint: fit on train_x, train_y only and score on test_x, test_y only; a probe "
                                "fitted on (or with) the test words, or scored on the training words, learns them "
                                "by heart")
    _blind_to_test_labels(fn)
    _every_test_word_counts(fn)  # after the random labels: fitting on the test words also gives 1.0 there
    linear_ceiling(fn, _accuracy)  # after them too: scoring the training words also passes 2/3 there
    far_out_on_a_slant(fn, _accuracy)  # and here: scoring the 200 training words gets 0.99
    fewer_words_than_features(fn, _accuracy)
    data = _minilm_words()
    name = f"all-MiniLM-L6-v2, layer {MINILM_LAYER}, {len(data[1])} Brown words to fit and {len(data[3])} to score"
    got = _accuracy(name, fn, data)
    reference = probe_accuracy(*data)
    most_frequent = float((data[3] == torch.mode(data[1]).values).double().mean())
    if got < reference - 0.08:
        raise ExerciseError(f"{name}: accuracy {got:.3f}; minibert.analysis.probe_accuracy reaches {reference:.3f} "
                            f"and the most frequent tag alone {most_frequent:.3f}\n  hint: standardise each "
                            "feature with the training mean and standard deviation, and fit to convergence")
    passed("probe", f"separable cases exact, random labels at chance, MiniLM layer {MINILM_LAYER}: {got:.3f} "
                    f"(minibert's ridge probe {reference:.3f}, the most frequent tag {most_frequent:.3f})")
