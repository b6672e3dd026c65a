"""Exercise 6.4 (my_probe_accuracy): learners' linear probes with one mistake each, and correct ones.

Split rule (fixed before any checker changed): within the exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import torch
import torch.nn.functional as F

from . import Exercise
import math
import numpy as np
import scipy.linalg

EX = Exercise("6.4", "probe")


def _ridge(A, Y, alpha=1.0):
    return torch.linalg.solve(A.T @ A + alpha * torch.eye(A.shape[1], dtype=A.dtype), A.T @ Y)


def _ones(x):
    return torch.cat([x, torch.ones(len(x), 1, dtype=x.dtype)], dim=1)


@EX.bug
def no_bias_column(train_x, train_y, test_x, test_y):
    """I fitted W x without the column of ones (I forgot the bias) and did not standardise either."""
    A = train_x.double()
    W = _ridge(A, F.one_hot(train_y, int(train_y.max()) + 1).double())
    return ((test_x.double() @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def test_standardised_by_its_own_statistics(train_x, train_y, test_x, test_y):
    """I standardised the test words with the test words' mean and std."""
    def standard(x):
        x = x.double()
        return (x - x.mean(0)) / x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(standard(train_x)), F.one_hot(train_y, int(train_y.max()) + 1).double())
    return ((_ones(standard(test_x)) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def fitted_on_train_and_test(train_x, train_y, test_x, test_y):
    """I fitted on all the words I had, training and test together, to have more data."""
    x, y = torch.cat([train_x, test_x]).double(), torch.cat([train_y, test_y])
    mean, std = x.mean(0), x.std(0).clamp_min(1e-6)
    W = _ridge(_ones((x - mean) / std), F.one_hot(y, int(y.max()) + 1).double())
    return ((_ones((test_x.double() - mean) / std) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def standardised_in_place(train_x, train_y, test_x, test_y):
    """I standardised with train_x -= mean and train_x /= std (in place, to save memory)."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    train_x -= mean
    train_x /= std
    test = (test_x - mean) / std
    W = _ridge(_ones(train_x.double()), F.one_hot(train_y, int(train_y.max()) + 1).double())
    return ((_ones(test.double()) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def scored_on_the_training_words(train_x, train_y, test_x, test_y):
    """I returned the accuracy on the training words (I checked the fit on what I fitted)."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    A = _ones(((train_x - mean) / std).double())
    W = _ridge(A, F.one_hot(train_y, int(train_y.max()) + 1).double())
    return ((A @ W).argmax(-1) == train_y).double().mean().item()


@EX.bug
def classes_counted_by_unique(train_x, train_y, test_x, test_y):
    """I took the number of tags as len(train_y.unique()) and mapped nothing (a tag missing in training breaks it)."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    K = len(train_y.unique())
    Y = torch.zeros(len(train_y), K, dtype=torch.float64)
    Y[torch.arange(len(train_y)), train_y.clamp_max(K - 1)] = 1
    W = _ridge(_ones(((train_x - mean) / std).double()), Y)
    return ((_ones(((test_x - mean) / std).double()) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def returns_the_count(train_x, train_y, test_x, test_y):
    """I returned how many test words were right, not the fraction."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double())
    return int(((_ones(((test_x - mean) / std).double()) @ W).argmax(-1) == test_y).sum())


@EX.bug
def regression_on_the_tag_number(train_x, train_y, test_x, test_y):
    """I regressed the tag number itself (one output) and rounded the prediction to the nearest tag."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    w = _ridge(_ones(((train_x - mean) / std).double()), train_y.double()[:, None])
    predicted = (_ones(((test_x - mean) / std).double()) @ w).round().squeeze(1).long()
    return (predicted == test_y).double().mean().item()


@EX.bug
def undertrained_logistic_regression(train_x, train_y, test_x, test_y):
    """Logistic regression with torch.optim.SGD, lr 0.01 for 20 steps, on unstandardised features."""
    torch.manual_seed(0)
    K = int(train_y.max()) + 1
    linear = torch.nn.Linear(train_x.shape[1], K)
    opt = torch.optim.SGD(linear.parameters(), lr=0.01)
    for _ in range(20):
        opt.zero_grad()
        F.cross_entropy(linear(train_x.float()), train_y).backward()
        opt.step()
    with torch.no_grad():
        return (linear(test_x.float()).argmax(-1) == test_y).float().mean().item()


@EX.bug
def std_over_everything(train_x, train_y, test_x, test_y):
    """I standardised with one mean and one std over all the numbers of train_x (not per feature)."""
    mean, std = train_x.mean(), train_x.std()
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double())
    return ((_ones(((test_x - mean) / std).double()) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def argmax_over_words(train_x, train_y, test_x, test_y):
    """I took the arg-max over dim 0 and compared it with the tags through a transpose."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double())
    scores = _ones(((test_x - mean) / std).double()) @ W
    predicted = scores.T.argmax(-1)
    return (predicted[:len(test_y)] == test_y[:len(predicted)]).double().mean().item()


@EX.correct
def lstsq_without_standardising(train_x, train_y, test_x, test_y):
    """Plain least squares with a bias column, via torch.linalg.lstsq, raw features."""
    A = _ones(train_x.double())
    Y = F.one_hot(train_y, int(train_y.max()) + 1).double()
    W = torch.linalg.lstsq(A, Y, driver="gelsd").solution
    return float(((_ones(test_x.double()) @ W).argmax(1) == test_y).double().mean())


@EX.correct
def logistic_regression(train_x, train_y, test_x, test_y):
    """Softmax regression with Adam for 300 full-batch steps on standardised features."""
    g = torch.Generator().manual_seed(0)
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    x, t = ((train_x - mean) / std).float(), ((test_x - mean) / std).float()
    K = int(train_y.max()) + 1
    W = (torch.randn(x.shape[1], K, generator=g) * 0.01).requires_grad_()
    b = torch.zeros(K, requires_grad=True)
    opt = torch.optim.Adam([W, b], lr=0.05)
    for _ in range(300):
        opt.zero_grad()
        (F.cross_entropy(x @ W + b, train_y) + 1e-3 * W.pow(2).sum()).backward()
        opt.step()
    with torch.no_grad():
        return ((t @ W + b).argmax(-1) == test_y).float().mean().item()


# --- Batch 2: written without reading any checker, before the checkers were changed against it ---
EX.batch = 2


@EX.bug
def standardised_per_word(train_x, train_y, test_x, test_y):
    """I standardised each word's vector over its own features (dim=1), as LayerNorm does, not each feature over the words."""
    def standard(x):
        x = x.double()
        return (x - x.mean(1, keepdim=True)) / x.std(1, keepdim=True).clamp_min(1e-6)
    W = _ridge(_ones(standard(train_x)), F.one_hot(train_y, int(train_y.max()) + 1).double())
    return ((_ones(standard(test_x)) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def closest_to_one(train_x, train_y, test_x, test_y):
    """I predicted the tag whose score is closest to 1, the one-hot target, rather than the largest score."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double())
    scores = _ones(((test_x - mean) / std).double()) @ W
    return ((scores - 1).abs().argmin(-1) == test_y).double().mean().item()


@EX.bug
def balanced_accuracy(train_x, train_y, test_x, test_y):
    """I returned the mean over the tags of each tag's accuracy (balanced accuracy), so rare tags count as much as common ones."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double())
    predicted = (_ones(((test_x - mean) / std).double()) @ W).argmax(-1)
    per_tag = [(predicted[test_y == t] == t).double().mean().item() for t in test_y.unique().tolist()]
    return sum(per_tag) / len(per_tag)


@EX.bug
def std_not_clamped(train_x, train_y, test_x, test_y):
    """I divided by train_x.std(0) as it is, so a feature that is constant on the training words gives 0 / 0."""
    mean, std = train_x.double().mean(0), train_x.double().std(0)
    W = _ridge(_ones((train_x.double() - mean) / std), F.one_hot(train_y, int(train_y.max()) + 1).double())
    return ((_ones((test_x.double() - mean) / std) @ W).argmax(-1) == test_y).double().mean().item()


@EX.correct
def cholesky_and_nearest_one_hot(train_x, train_y, test_x, test_y):
    """Ridge solved by Cholesky; each test word gets the tag whose one-hot vector is nearest to its scores."""
    x = train_x.double()
    mean, std = x.mean(0), x.std(0).clamp_min(1e-6)
    A = _ones((x - mean) / std)
    K = int(train_y.max()) + 1
    L = torch.linalg.cholesky(A.T @ A + torch.eye(A.shape[1], dtype=A.dtype))
    W = torch.cholesky_solve(A.T @ F.one_hot(train_y, K).double(), L)
    scores = _ones((test_x.double() - mean) / std) @ W
    distance = ((scores[:, None, :] - torch.eye(K, dtype=scores.dtype)[None]) ** 2).sum(-1)
    return float((distance.argmin(-1) == test_y).double().mean())


# --- Batch 3: written without reading any checker, before the checkers were changed against it ---
EX.batch = 3


@EX.bug
def one_hot_sized_by_the_test_tags(train_x, train_y, test_x, test_y):
    """I sized the one-hot targets with test_y.max() + 1, the tags I am scored on."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(test_y.max()) + 1).double())
    return ((_ones(((test_x - mean) / std).double()) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def ones_column_standardised_too(train_x, train_y, test_x, test_y):
    """I added the column of ones first and then standardised every column of the design matrix, the ones included."""
    A, T = _ones(train_x.double()), _ones(test_x.double())
    mean, std = A.mean(0), A.std(0).clamp_min(1e-6)
    W = _ridge((A - mean) / std, F.one_hot(train_y, int(train_y.max()) + 1).double())
    return ((((T - mean) / std) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def floor_division_for_the_fraction(train_x, train_y, test_x, test_y):
    """I divided the number of right words by the number of test words with //."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double())
    right = int(((_ones(((test_x - mean) / std).double()) @ W).argmax(-1) == test_y).sum())
    return right // len(test_y)


@EX.bug
def tags_renumbered_by_unique(train_x, train_y, test_x, test_y):
    """I renumbered the training tags 0..K-1 with unique(return_inverse=True) and compared the predicted column with test_y."""
    tags, renumbered = torch.unique(train_y, return_inverse=True)
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(renumbered, len(tags)).double())
    return ((_ones(((test_x - mean) / std).double()) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def arg_max_kept_its_dimension(train_x, train_y, test_x, test_y):
    """I took argmax(dim=-1, keepdim=True), so the (M, 1) predictions are compared with the (M,) tags by broadcasting."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double())
    predicted = (_ones(((test_x - mean) / std).double()) @ W).argmax(dim=-1, keepdim=True)
    return (predicted == test_y).double().mean().item()


@EX.bug
def softmax_over_the_words(train_x, train_y, test_x, test_y):
    """I turned the scores into probabilities with softmax(dim=0) before the arg-max over the tags."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double())
    probs = (_ones(((test_x - mean) / std).double()) @ W).softmax(dim=0)
    return (probs.argmax(-1) == test_y).double().mean().item()


@EX.correct
def plus_minus_one_targets_augmented_lstsq(train_x, train_y, test_x, test_y):
    """Targets coded +1 / -1; ridge solved as least squares on the design stacked over √α·I; the prediction is the largest score."""
    x = train_x.double()
    mean, std = x.mean(0), x.std(0).clamp_min(1e-6)
    A = _ones((x - mean) / std)
    K = int(train_y.max()) + 1
    Y = 2 * F.one_hot(train_y, K).double() - 1
    stacked = torch.cat([A, torch.eye(A.shape[1], dtype=A.dtype)])  # α = 1
    W = torch.linalg.lstsq(stacked, torch.cat([Y, torch.zeros(A.shape[1], K, dtype=Y.dtype)]), driver="gelsd").solution
    scores = _ones((test_x.double() - mean) / std) @ W
    return sum(int(p == t) for p, t in zip(scores.argmax(1).tolist(), test_y.tolist())) / len(test_y)


# --- batch 4: written without reading any checker ------------------------------------------
EX.batch = 4


@EX.bug
def double_assumed_to_copy(train_x, train_y, test_x, test_y, alpha=1.0):
    """I converted with .double() and then standardised in place, sure that .double() makes a copy (for float64 inputs it does not).
    Differs on: float64 inputs, e.g. train_x = torch.randn(30, 4, dtype=torch.float64) + 3: train_x and test_x are standardised in place."""
    x, t = train_x.double(), test_x.double()
    mean, std = x.mean(0), x.std(0).clamp_min(1e-6)
    x -= mean
    x /= std
    t -= mean
    t /= std
    W = _ridge(_ones(x), F.one_hot(train_y, int(train_y.max()) + 1).double(), alpha)
    return ((_ones(t) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def test_words_not_standardised(train_x, train_y, test_x, test_y, alpha=1.0):
    """I standardised the training words for the fit, but scored the test words as they came.
    Differs on: the worked line, train x = 1, 1.5, 2 (tag 0) and 3, 3.5, 4 (tag 1), test x = 1.2, 3.8: 0.5 instead of 1.0."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double(), alpha)
    return ((_ones(test_x.double()) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def bias_row_dropped_for_the_test(train_x, train_y, test_x, test_y, alpha=1.0):
    """I fitted with the column of ones, then scored the test words with W[:-1] (they have no column of ones, so I cut the bias row).
    Differs on: torch.manual_seed(0); train_x = randn(20, 3), train_y = 16 zeros then 4 ones, test_x = randn(10, 3), test_y = 8 zeros then 2 ones: 0.5 instead of 0.8."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double(), alpha)
    scores = ((test_x - mean) / std).double() @ W[:-1]
    return (scores.argmax(-1) == test_y).double().mean().item()


@EX.bug
def one_hot_rows_indexed_by_tag(train_x, train_y, test_x, test_y, alpha=1.0):
    """I built the one-hot targets with Y = zeros(N, K); Y[train_y] = 1 (I meant Y[arange(N), train_y] = 1).
    Differs on: the worked line (x = 1, 1.5, 2 tag 0; 3, 3.5, 4 tag 1): rows 0 and 1 of Y become all ones."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    K = int(train_y.max()) + 1
    Y = torch.zeros(len(train_y), K, dtype=torch.float64)
    Y[train_y] = 1
    W = _ridge(_ones(((train_x - mean) / std).double()), Y, alpha)
    return ((_ones(((test_x - mean) / std).double()) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def max_values_taken_as_the_tags(train_x, train_y, test_x, test_y, alpha=1.0):
    """I predicted with scores.max(dim=-1)[0], thinking torch.max returns the indices first.
    Differs on: the worked line (x = 1, 1.5, 2 tag 0; 3, 3.5, 4 tag 1, test 1.2, 3.8): 0.0 instead of 1.0."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double(), alpha)
    predicted = (_ones(((test_x - mean) / std).double()) @ W).max(dim=-1)[0]
    return (predicted == test_y).double().mean().item()


@EX.bug
def alpha_chosen_on_the_test_words(train_x, train_y, test_x, test_y, alpha=1.0):
    """I tried α in 0.01 .. 1000 and kept the probe with the best test accuracy (a fair way to tune, I thought).
    Differs on: random labels, torch.manual_seed(1); train_x = randn(30, 16), train_y = randint(12, (30,)), test_x = randn(60, 16), test_y = randint(12, (60,)): 0.083 instead of 0.067."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    A, T = _ones(((train_x - mean) / std).double()), _ones(((test_x - mean) / std).double())
    Y = F.one_hot(train_y, int(train_y.max()) + 1).double()
    best = 0.0
    for a in (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0):
        best = max(best, ((T @ _ridge(A, Y, a)).argmax(-1) == test_y).double().mean().item())
    return best


@EX.correct
def ridge_by_svd_in_numpy(train_x, train_y, test_x, test_y, alpha=1.0):
    """numpy in float64; the ridge solution read off the SVD of the design, W = V diag(s / (s² + α)) Uᵀ Y."""
    import numpy as np
    x = train_x.detach().cpu().double().numpy()
    mean, std = x.mean(0), np.maximum(x.std(0, ddof=1), 1e-6)
    A = np.hstack([(x - mean) / std, np.ones((len(x), 1))])
    labels = train_y.cpu().numpy()
    Y = np.eye(int(labels.max()) + 1)[labels]
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    W = Vt.T @ ((s / (s ** 2 + alpha))[:, None] * (U.T @ Y))
    t = np.hstack([(test_x.detach().cpu().double().numpy() - mean) / std, np.ones((len(test_x), 1))])
    return float(np.mean((t @ W).argmax(1) == test_y.cpu().numpy()))


# --- batch 5: written without reading any checker ------------------------------------------
EX.batch = 5


@EX.bug
def squares_added_as_features(train_x, train_y, test_x, test_y, alpha=1.0):
    """To help the probe I appended each feature's square to the features before the ridge fit, so the tags' boundaries are no longer linear in x.
    Differs on: on a line, train x = -1, -0.5, 0, 0.5, 1 (tag 0) and -3, -2.5, 2.5, 3 (tag 1), test x = 0.2, -2.8, 2.8 (tags 0, 1, 1): 1.0 instead of the solution's 0.333."""
    def features(x):
        x = x.double()
        return torch.cat([x, x ** 2], dim=1)
    x = features(train_x)
    mean, std = x.mean(0), x.std(0).clamp_min(1e-6)
    W = _ridge(_ones((x - mean) / std), F.one_hot(train_y, int(train_y.max()) + 1).double(), alpha)
    return ((_ones((features(test_x) - mean) / std) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def accuracy_in_percent(train_x, train_y, test_x, test_y, alpha=1.0):
    """I returned the accuracy in percent, as the paper's tables print it.
    Differs on: the worked line (x = 1, 1.5, 2 tag 0; 3, 3.5, 4 tag 1; test 1.2, 3.8): 100.0 instead of 1.0."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double(), alpha)
    predicted = (_ones(((test_x - mean) / std).double()) @ W).argmax(-1)
    return 100.0 * (predicted == test_y).double().mean().item()


@EX.bug
def arg_max_without_a_dimension(train_x, train_y, test_x, test_y, alpha=1.0):
    """I wrote scores.argmax() without dim=-1, which gives one index into the flattened (M, K) scores, compared with every test tag.
    Differs on: the worked line (x = 1, 1.5, 2 tag 0; 3, 3.5, 4 tag 1; test 1.2, 3.8): 0.5 instead of 1.0 (the flat index is 0, right for the first word only)."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    W = _ridge(_ones(((train_x - mean) / std).double()), F.one_hot(train_y, int(train_y.max()) + 1).double(), alpha)
    predicted = (_ones(((test_x - mean) / std).double()) @ W).argmax()
    return (predicted == test_y).double().mean().item()


@EX.bug
def two_tags_thresholded_at_zero(train_x, train_y, test_x, test_y, alpha=1.0):
    """With two tags I fitted one column, the 0/1 target of tag 1, and predicted tag 1 where its score is above 0 (the threshold for 0/1 targets is 0.5).
    Differs on: the worked line (x = 1, 1.5, 2 tag 0; 3, 3.5, 4 tag 1), test x = 1.0, 2.0, 3.8 (tags 0, 0, 1): 0.667 instead of 1.0 (2.0 scores 0.25 > 0)."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    A, T = _ones(((train_x - mean) / std).double()), _ones(((test_x - mean) / std).double())
    K = int(train_y.max()) + 1
    if K == 2:
        w = _ridge(A, train_y.double()[:, None], alpha)
        predicted = ((T @ w).squeeze(1) > 0).long()
    else:
        predicted = (T @ _ridge(A, F.one_hot(train_y, K).double(), alpha)).argmax(-1)
    return (predicted == test_y).double().mean().item()


@EX.bug
def standardised_with_every_word(train_x, train_y, test_x, test_y, alpha=1.0):
    """I standardised with the mean and std of all the words I was given, training and test together (only the features, not the tags, so no leak, I thought).
    Differs on: torch.manual_seed(3); train_x = randn(8, 3) * 3, train_y = randint(3, (8,)), test_x = randn(10, 3) + 5, test_y = randint(3, (10,)): 0.5 instead of 0.4."""
    everything = torch.cat([train_x, test_x]).double()
    mean, std = everything.mean(0), everything.std(0).clamp_min(1e-6)
    W = _ridge(_ones((train_x.double() - mean) / std), F.one_hot(train_y, int(train_y.max()) + 1).double(), alpha)
    return ((_ones((test_x.double() - mean) / std) @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def normal_equations_inverted_without_alpha(train_x, train_y, test_x, test_y, alpha=1.0):
    """I solved plain least squares, W = inv(AᵀA) AᵀY, leaving out α I (the ridge term only shrinks W, I thought), so a feature constant on the training words makes AᵀA singular.
    Differs on: the worked line with a second feature that is 0 for every word: torch.linalg.inv raises (the solution gives 1.0)."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    A = _ones(((train_x - mean) / std).double())
    W = torch.linalg.inv(A.T @ A) @ A.T @ F.one_hot(train_y, int(train_y.max()) + 1).double()
    return ((_ones(((test_x - mean) / std).double()) @ W).argmax(-1) == test_y).double().mean().item()


@EX.correct
def ridge_through_the_eigenvectors(train_x, train_y, test_x, test_y, alpha=1.0):
    """The same ridge solved through the eigen-decomposition of the Gram matrix AᵀA = V diag(λ) Vᵀ, W = V diag(1 / (λ + α)) Vᵀ AᵀY; features standardised with torch.std_mean."""
    std, mean = torch.std_mean(train_x, dim=0)
    std, mean = std.clamp_min(1e-6).double(), mean.double()
    def design(x):
        z = (x.double() - mean) / std
        return torch.hstack([z, z.new_ones(z.shape[0], 1)])
    A = design(train_x)
    Y = torch.eye(int(train_y.max()) + 1, dtype=A.dtype)[train_y]
    eigenvalues, V = torch.linalg.eigh(A.T @ A)
    W = V @ ((V.T @ (A.T @ Y)) / (eigenvalues + alpha)[:, None])
    right = (design(test_x) @ W).argmax(dim=1).eq(test_y)
    return right.sum().item() / right.numel()


# --- batch 6: written without reading any checker ------------------------------------------
EX6_1 = Exercise("6.1", "offset_score")
EX6_1.batch = 6


@EX6_1.bug
def partner_only_checked_against_the_end(probs, attention_mask, offset):
    """I looped over every query i with j = i + offset and skipped the pair when j >= T or the key is padding, forgetting j < 0: for offset -1, query 0 reads probs[..., 0, -1], the last key, through Python's negative index.
    Differs on: the worked example (rows [0.5, 0.25, 0.25], [0.6, 0.3, 0.1], [0.1, 0.2, 0.7], no padding), offset -1: 0.35 (the mean of 0.6, 0.2 and 0.25) instead of 0.4."""
    B, nh, T, _ = probs.shape
    total = torch.zeros(nh, dtype=probs.dtype)
    count = 0
    for b in range(B):
        for i in range(T):
            j = i + offset
            if j >= T or not attention_mask[b, i] or not attention_mask[b, j]:
                continue
            total += probs[b, :, i, j]
            count += 1
    return total / count


@EX6_1.bug
def mean_of_the_sentences_scores(probs, attention_mask, offset):
    """I scored each sentence on its own real pairs and then averaged the B sentences' scores, so a short sentence weighs as much as a long one.
    Differs on: B = 2, one head, T = 4, offset -1: sentence 0 all real with p[i, i-1] = 0.6, 0.6, 0.6; sentence 1 with 2 real tokens and p[1, 0] = 0.0: 0.3 instead of the pooled 0.45."""
    T = probs.shape[-1]
    real = attention_mask.bool()
    scores = []
    for b in range(probs.shape[0]):
        values, n = 0.0, 0
        for i in range(T):
            j = i + offset
            if 0 <= j < T and real[b, i] and real[b, j]:
                values = values + probs[b, :, i, j]
                n += 1
        if n:
            scores.append(values / n)
    return torch.stack(scores).mean(0)


@EX6_1.bug
def pairs_counted_from_the_lengths(probs, attention_mask, offset):
    """I counted each sentence's real pairs as its length minus |offset| (right-padded sentences, so the pairs are the first L - |offset| queries), without clamping at 0: a sentence shorter than |offset| adds a negative count.
    Differs on: B = 2, one head, T = 4, offset 2: sentence 0 all real with p[0, 2] = p[1, 3] = 0.5, sentence 1 of one real token: 1/1 = 1.0 (count 2 + (1 - 2)) instead of 0.5."""
    T = probs.shape[-1]
    diag = torch.diagonal(probs, offset=offset, dim1=-2, dim2=-1)  # (B, nh, T - |offset|): probs[..., i, i + offset]
    m = attention_mask.to(probs.dtype)
    if offset >= 0:
        both = m[:, :T - offset] * m[:, offset:]
    else:
        both = m[:, -offset:] * m[:, :T + offset]
    numerator = (diag * both[:, None, :]).sum(dim=(0, 2))
    pairs = (attention_mask.sum(dim=1) - abs(offset)).sum()
    return numerator / pairs


@EX6_1.bug
def padded_queries_zeroed_in_place(probs, attention_mask, offset):
    """I zeroed the padded queries' rows and keys' columns with probs *= ... (in place, to spare a copy), then pooled the diagonal over the pairs that are real: the score is right but the caller's probs are changed.
    Differs on: any batch with padding, e.g. B = 2, nh = 2, T = 5 with 2 padded tokens in sentence 1, offset -1: the returned scores match, but the rows and columns of the padded tokens in the caller's probs are now 0."""
    m = attention_mask.to(probs.dtype)
    probs *= m[:, None, :, None]
    probs *= m[:, None, None, :]
    T = probs.shape[-1]
    lo, hi = max(0, -offset), min(T, T - offset)
    q = torch.arange(lo, hi)
    valid = m[:, q] * m[:, q + offset]
    return probs[:, :, q, q + offset].sum(dim=(0, 2)) / valid.sum()


@EX6_1.correct
def pair_mask_diagonal_in_numpy(probs, attention_mask, offset):
    """numpy: the diagonal at `offset` of the probabilities and of the outer product of the mask with itself (both real), pooled as a weighted sum over sentences and positions."""
    p = probs.detach().cpu().numpy().astype(np.float64)
    m = attention_mask.detach().cpu().numpy().astype(np.float64)
    both = m[:, :, None] * m[:, None, :]                            # (B, T, T): 1 where query and key are real
    d = np.diagonal(p, offset=offset, axis1=-2, axis2=-1)           # (B, nh, P)
    w = np.diagonal(both, offset=offset, axis1=-2, axis2=-1)        # (B, P)
    return torch.from_numpy(np.einsum("bhp,bp->h", d, w) / w.sum())


# --- batch 6: written without reading any checker ------------------------------------------
EX6_2 = Exercise("6.2", "attention_entropy")
EX6_2.batch = 6


@EX6_2.bug
def entropy_in_bits(probs, attention_mask):
    """I took the entropy with torch.log2, the information-theory convention of bits, not the natural log the statement asks for.
    Differs on: one head spreading each row evenly over 2 keys (B = 1, T = 2, no padding): 1.0 instead of ln 2 = 0.693."""
    plogp = torch.where(probs > 0, probs * torch.log2(probs.clamp_min(1e-30)), torch.zeros_like(probs))
    h = -plogp.sum(dim=-1)  # (B, nh, T)
    real = attention_mask.bool()
    return h.permute(1, 0, 2)[:, real].mean(dim=-1)


@EX6_2.bug
def probabilities_clamped_before_p_log_p(probs, attention_mask):
    """To keep log away from 0 I clamped the probabilities first, q = probs.clamp(min=1e-6), and summed -q ln q, so each zero probability adds 1e-6 · ln(1e6) ≈ 1.4e-5 instead of 0.
    Differs on: one head, B = 1, T = 8, every row on a single key (7 zeros a row): 9.7e-5 instead of 0."""
    q = probs.clamp(min=1e-6)
    h = -(q * q.log()).sum(-1)  # (B, nh, T)
    w = attention_mask.to(h.dtype)[:, None, :]
    return (h * w).sum((0, 2)) / w.sum((0, 2))


@EX6_2.bug
def summed_over_the_queries(probs, attention_mask):
    """I summed p ln p over dim=-2, thinking of the (T, T) map as columns of keys, so each "distribution" is a key's column over the queries, and the mask then picks the real keys' columns: without padding the total is the same, but a padded query's row is counted.
    Differs on: B = 1, one head, T = 3, mask [1, 1, 0], rows [0.5, 0.5, 0], [1, 0, 0] and a padded query's row [0.5, 0.5, 0]: 2 ln 2 / 2 = 0.693 instead of ln 2 / 2 = 0.347."""
    plogp = torch.special.xlogy(probs, probs)  # 0 where p = 0
    h = -plogp.sum(dim=-2)  # (B, nh, T)
    real = attention_mask.bool()[:, None, :].to(h.dtype)
    return (h * real).sum(dim=(0, 2)) / real.sum()


@EX6_2.bug
def every_query_averaged(probs, attention_mask):
    """I kept the padding out of the sum over keys (a padded key has probability 0 and adds nothing) and then averaged over all B·T queries, thinking that took care of the padding; a padded query's row is a real distribution over the real keys, and it counts.
    Differs on: B = 1, one head, T = 3, mask [1, 1, 0], rows [0.5, 0.5, 0], [1, 0, 0] and a padded query's row [0.5, 0.5, 0]: (ln 2 + 0 + ln 2) / 3 = 0.462 instead of ln 2 / 2 = 0.347."""
    keys = attention_mask.to(probs.dtype)[:, None, None, :]  # (B, 1, 1, T)
    p = probs * keys
    plogp = torch.nan_to_num(p * torch.log(p))  # 0 · ln 0 = NaN -> 0
    return -plogp.sum(-1).mean(dim=(0, 2))


@EX6_2.correct
def entr_looped_over_sentences(probs, attention_mask):
    """torch.special.entr (−x ln x, 0 at 0) on each sentence's real query rows, selected with a boolean index in a loop over the batch, accumulated in float64 and divided once."""
    nh = probs.shape[1]
    total = torch.zeros(nh, dtype=torch.float64)
    count = 0
    for b in range(probs.shape[0]):
        rows = probs[b][:, attention_mask[b].bool(), :].double()  # (nh, L_b, T)
        total += torch.special.entr(rows).sum(-1).sum(-1)
        count += rows.shape[1]
    return total / count


# --- batch 6: written without reading any checker ------------------------------------------
EX6_3 = Exercise("6.3", "head_mask_hook")
EX6_3.batch = 6


@EX6_3.bug
def last_column_of_the_head_kept(head, head_size):
    """I copied the statement's range, columns h·hs to (h+1)·hs − 1, into the slice as its end, so the slice stops one short and the head's last column survives.
    Differs on: head 1, head_size 4, a context torch.ones(1, 2, 8): column 7 stays 1 (the solution zeroes columns 4 to 7)."""
    start, end = head * head_size, (head + 1) * head_size - 1

    def hook(module, args):
        context = args[0].clone()
        context[:, :, start:end] = 0.0
        return (context,)
    return hook


@EX6_3.bug
def heads_taken_as_interleaved(head, head_size):
    """I reshaped the context's last axis as (head_size, nh) and zeroed [..., head], picturing the heads interleaved (head h at columns h, h + nh, h + 2·nh, ...), where they sit side by side.
    Differs on: head 0, head_size 2, a context torch.arange(8.).view(1, 1, 8) (4 heads): columns 0 and 4 zeroed instead of columns 0 and 1."""
    def hook(module, args):
        (context,) = args
        *lead, H = context.shape
        per_head = context.reshape(*lead, head_size, H // head_size).clone()  # (..., hs, nh)
        per_head[..., head] = 0.0
        return (per_head.reshape(*lead, H),)
    return hook


@EX6_3.bug
def zeroed_through_an_index_list(head, head_size):
    """I listed the head's columns, cols = list(range(h·hs, (h+1)·hs)), and called context[..., cols].zero_() on a copy; indexing with a list makes another copy, so the zeros never reach the context I return.
    Differs on: any head, e.g. head 0, head_size 2, a context torch.ones(1, 3, 4): returned unchanged (the solution zeroes columns 0 and 1)."""
    cols = list(range(head * head_size, (head + 1) * head_size))

    def hook(module, args):
        context = args[0].clone()
        context[..., cols].zero_()
        return (context,)
    return hook


@EX6_3.bug
def head_columns_taken_on_axis_one(head, head_size):
    """I zeroed context[:, h·hs:(h+1)·hs], taking the second axis for the hidden one (as for an (N, H) matrix), which for a (B, T, H) context is the tokens' axis.
    Differs on: head 0, head_size 2, a context torch.ones(1, 3, 4): tokens 0 and 1 zeroed on all 4 columns, instead of columns 0 and 1 of all 3 tokens."""
    def hook(module, args):
        context = args[0].clone()
        context[:, head * head_size:(head + 1) * head_size] = 0
        return (context,)
    return hook


@EX6_3.correct
def where_over_a_column_mask(head, head_size):
    """Out of place: torch.where over a boolean mask of the head's columns built from torch.arange on the last axis, zeros inside, the context elsewhere."""
    def hook(module, args):
        context = args[0]
        column = torch.arange(context.shape[-1], device=context.device)
        inside = (column >= head * head_size) & (column < (head + 1) * head_size)
        return (torch.where(inside, torch.zeros((), dtype=context.dtype, device=context.device), context),)
    return hook


# --- batch 6: written without reading any checker ------------------------------------------
EX.batch = 6


@EX.bug
def right_words_over_the_training_count(train_x, train_y, test_x, test_y, alpha=1.0):
    """I divided the number of right test words by len(train_y), the count I had at hand from the fit, instead of the number of test words.
    Differs on: the worked line, train x = 1, 1.5, 2 (tag 0) and 3, 3.5, 4 (tag 1), test x = 1.2, 3.8 (tags 0, 1): 2/6 = 0.333 instead of 1.0."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    A = torch.cat([((train_x - mean) / std).double(), torch.ones(len(train_x), 1, dtype=torch.float64)], 1)
    Y = F.one_hot(train_y, int(train_y.max()) + 1).double()
    W = torch.linalg.solve(A.T @ A + alpha * torch.eye(A.shape[1], dtype=torch.float64), A.T @ Y)
    X = torch.cat([((test_x - mean) / std).double(), torch.ones(len(test_x), 1, dtype=torch.float64)], 1)
    right = ((X @ W).argmax(1) == test_y).sum().item()
    return right / len(train_y)


@EX.bug
def design_kept_in_the_input_dtype(train_x, train_y, test_x, test_y, alpha=1.0):
    """I built the design matrix, the identity and the targets in the dtype of the hidden states (x.dtype) so nothing gets converted; torch.linalg.solve has no float16 or bfloat16 kernel.
    Differs on: float16 inputs, e.g. torch.manual_seed(0); train_x = randn(30, 4).half(), train_y = randint(3, (30,)), scored on themselves: NotImplementedError (no Half kernel) where the solution returns 0.533."""
    dtype = train_x.dtype
    mean, std = train_x.mean(dim=0), train_x.std(dim=0).clamp_min(1e-6)

    def design(x):
        return torch.cat([(x - mean) / std, torch.ones(x.shape[0], 1, dtype=dtype)], dim=1)

    A = design(train_x)
    Y = F.one_hot(train_y, int(train_y.max()) + 1).to(dtype)
    W = torch.linalg.solve(A.T @ A + alpha * torch.eye(A.shape[1], dtype=dtype), A.T @ Y)
    return ((design(test_x) @ W).argmax(dim=-1) == test_y).float().mean().item()


@EX.bug
def nearest_training_word(train_x, train_y, test_x, test_y, alpha=1.0):
    """I skipped the fit and gave each test word the tag of its nearest training word (standardised features, Euclidean distance): fitted on the training words only, but not a linear classifier.
    Differs on: a line, train x = 1, 2 (tag 0), 3, 4 (tag 1), 5, 6 (tag 0), test x = 1.5, 3.5, 5.5 (tags 0, 1, 0): 1.0, where no linear probe can get all three (the solution 0.667)."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    a = (train_x.double() - mean.double()) / std.double()
    b = (test_x.double() - mean.double()) / std.double()
    nearest = torch.cdist(b, a).argmin(dim=1)
    return (train_y[nearest] == test_y).double().mean().item()


@EX.bug
def unseen_test_tags_left_out(train_x, train_y, test_x, test_y, alpha=1.0):
    """A test word whose tag never occurs among the training words cannot be predicted, so I left those words out of the accuracy (the fraction over the test words with a known tag).
    Differs on: the worked line, train x = 1, 1.5, 2 (tag 0) and 3, 3.5, 4 (tag 1), test x = 1.2, 3.8, 2.5 with tags 0, 1, 2: 1.0 instead of 0.667."""
    mu = train_x.double().mean(0)
    sd = train_x.double().std(0).clamp_min(1e-6)
    A = torch.cat([(train_x.double() - mu) / sd, torch.ones(len(train_x), 1, dtype=torch.float64)], 1)
    K = int(train_y.max()) + 1
    Y = torch.zeros(len(train_y), K, dtype=torch.float64)
    Y[torch.arange(len(train_y)), train_y] = 1.0
    W = torch.linalg.solve(A.T @ A + alpha * torch.eye(A.shape[1], dtype=torch.float64), A.T @ Y)
    T = torch.cat([(test_x.double() - mu) / sd, torch.ones(len(test_x), 1, dtype=torch.float64)], 1)
    predicted = (T @ W).argmax(1)
    known = torch.isin(test_y, train_y.unique())
    return (predicted[known] == test_y[known]).double().mean().item()


@EX.correct
def dual_ridge_in_numpy(train_x, train_y, test_x, test_y, alpha=1.0):
    """numpy in float64, the ridge in its dual form: W = Aᵀ (A Aᵀ + αI)⁻¹ Y, an N × N solve instead of an (H + 1) × (H + 1) one."""
    xtr = train_x.detach().cpu().numpy().astype(np.float64)
    xte = test_x.detach().cpu().numpy().astype(np.float64)
    ytr = train_y.detach().cpu().numpy()
    mean = xtr.mean(axis=0)
    std = np.maximum(xtr.std(axis=0, ddof=1), 1e-6)
    A = np.hstack([(xtr - mean) / std, np.ones((len(xtr), 1))])
    Y = np.eye(int(ytr.max()) + 1)[ytr]
    W = A.T @ np.linalg.solve(A @ A.T + alpha * np.eye(len(A)), Y)
    Z = np.hstack([(xte - mean) / std, np.ones((len(xte), 1))])
    predicted = (Z @ W).argmax(axis=1)
    return float(np.mean(predicted == test_y.detach().cpu().numpy()))


# --- batch 7: written without reading any checker ------------------------------------------
EX6_1.batch = 7


@EX6_1.bug
def padded_keys_left_in_the_count(probs, attention_mask, offset):
    """Padded keys have probability 0, so I only required the query to be real: a real query whose partner is padding adds 0 to the sum but 1 to the count.
    Differs on: B = 1, one head, T = 3, mask [1, 1, 0], rows [0.3, 0.7, 0], [0.4, 0.6, 0] and a padded query's [0.5, 0.5, 0], offset +1: 0.35 ((0.7 + 0) / 2) instead of 0.7."""
    T = probs.shape[-1]
    d = torch.diagonal(probs, offset=offset, dim1=-2, dim2=-1)  # (B, nh, P): probs[..., i, i + offset]
    queries = torch.arange(max(0, -offset), min(T, T - offset))
    real_query = attention_mask[:, queries].to(probs.dtype)  # (B, P)
    return (d * real_query[:, None]).sum(dim=(0, 2)) / real_query.sum()


@EX6_1.bug
def pair_mask_expanded_over_heads_then_counted(probs, attention_mask, offset):
    """I expanded the (B, P) mask of real pairs over the heads to select the values, and divided by that expanded mask's sum, which counts every pair once per head: each score comes out divided by nh.
    Differs on: the worked example's rows given to two heads (B = 1, nh = 2, T = 3, no padding), offset -1: [0.2, 0.2] instead of [0.4, 0.4] (right with one head)."""
    B, nh, T, _ = probs.shape
    i = torch.arange(T)
    j = i + offset
    inside = (j >= 0) & (j < T)
    i, j = i[inside], j[inside]
    real = attention_mask.bool()
    valid = (real[:, i] & real[:, j])[:, None, :].expand(B, nh, -1)  # (B, nh, P)
    picked = probs[:, :, i, j]  # (B, nh, P)
    return torch.where(valid, picked, torch.zeros_like(picked)).sum(dim=(0, 2)) / valid.sum()


@EX6_1.bug
def query_range_written_for_unit_offsets(probs, attention_mask, offset):
    """I wrote the queries' range for the chapter's offsets, from 1 when looking back and up to T - 1 when looking ahead: right for -1, 0 and +1, but offset +2 reads key T at query T - 2, and offset -2 reads key -1 (Python wraps to the last key) at query 1.
    Differs on: the worked example (rows [0.5, 0.25, 0.25], [0.6, 0.3, 0.1], [0.1, 0.2, 0.7], no padding), offset +2: IndexError instead of p[0, 2] = 0.25; with T = 4, offset -2 also counts p[1, 3]."""
    B, nh, T, _ = probs.shape
    start = 1 if offset < 0 else 0
    stop = T - 1 if offset > 0 else T
    total = torch.zeros(nh, dtype=probs.dtype)
    count = 0
    for b in range(B):
        for i in range(start, stop):
            j = i + offset
            if attention_mask[b, i] and attention_mask[b, j]:
                total += probs[b, :, i, j]
                count += 1
    return total / count


@EX6_1.bug
def right_padding_assumed(probs, attention_mask, offset):
    """I took each sentence's length from the mask, L = mask.sum(), and kept the pairs among its first L positions, as if the padding always came at the end; a left-padded sentence has its real tokens elsewhere.
    Differs on: the worked example's rows, left-padded (mask [0, 1, 1]), offset -1: p[1, 0] = 0.6 instead of p[2, 1] = 0.2."""
    T = probs.shape[-1]
    lengths = attention_mask.sum(dim=1)  # (B,)
    i = torch.arange(max(0, -offset), min(T, T - offset))
    values = probs[:, :, i, i + offset]  # (B, nh, P)
    inside = (i[None, :] < lengths[:, None]) & ((i + offset)[None, :] < lengths[:, None])  # (B, P)
    valid = inside.to(probs.dtype)
    return (values * valid[:, None]).sum(dim=(0, 2)) / valid.sum()


@EX6_1.correct
def shifted_identity_einsum(probs, attention_mask, offset):
    """A (T, T) selector with ones on the diagonal at `offset` (torch.diag of a ones vector), times the outer product of the mask with itself, contracted with the probabilities by einsum in float64 and divided by its sum."""
    T = probs.shape[-1]
    n = T - abs(offset)
    if n > 0:
        selector = torch.diag(torch.ones(n, dtype=torch.float64), diagonal=offset)  # (T, T)
    else:
        selector = torch.zeros(T, T, dtype=torch.float64)
    m = attention_mask.to(torch.float64)
    weights = m[:, :, None] * m[:, None, :] * selector  # (B, T, T): 1 at real pairs (i, i + offset)
    score = torch.einsum("bhij,bij->h", probs.to(torch.float64), weights) / weights.sum()
    return score.to(probs.dtype)


# --- batch 7: written without reading any checker ------------------------------------------
EX6_2.batch = 7


@EX6_2.bug
def log_softmax_of_the_probabilities(probs, attention_mask):
    """Out of habit I took the log with F.log_softmax(probs, dim=-1), as for logits, which renormalises the probabilities as if they were scores: right only for rows that are uniform over all T keys.
    Differs on: one head putting each row on a single key (B = 1, T = 2, rows [1, 0] and [0, 1], no padding): 0.313 instead of 0."""
    log_p = F.log_softmax(probs, dim=-1)
    h = -(probs * log_p).sum(dim=-1)  # (B, nh, T)
    real = attention_mask.bool()
    return h.transpose(0, 1)[:, real].mean(dim=-1)


@EX6_2.bug
def mean_of_the_sentence_means(probs, attention_mask):
    """I averaged each sentence's real queries first and then the B sentences' means, so a short sentence weighs as much as a long one (not pooled).
    Differs on: B = 2, one head, T = 3: sentence 0 all real with every row [0.5, 0.5, 0], sentence 1 with mask [1, 0, 0] and its real row [1, 0, 0]: 0.347 (ln 2 / 2) instead of 0.520 (3 ln 2 / 4)."""
    means = []
    for b in range(probs.shape[0]):
        rows = probs[b][:, attention_mask[b].bool()]  # (nh, L_b, T)
        h = -torch.special.xlogy(rows, rows).sum(dim=-1)  # (nh, L_b)
        means.append(h.mean(dim=-1))
    return torch.stack(means).mean(dim=0)


@EX6_2.bug
def padded_rows_zeroed_then_mean_over_all(probs, attention_mask):
    """I zeroed the padded queries' entropies with the mask and then took .mean() over sentences and queries, which still divides by B·T, the padded queries included.
    Differs on: B = 1, one head, T = 3, mask [1, 1, 0], every row [0.5, 0.5, 0]: 0.462 (2 ln 2 / 3) instead of ln 2 = 0.693."""
    p_log_p = torch.where(probs > 0, probs * probs.log(), torch.zeros_like(probs))
    h = -p_log_p.sum(dim=-1)  # (B, nh, T)
    h = h * attention_mask[:, None, :].to(h.dtype)
    return h.mean(dim=(0, 2))


@EX6_2.bug
def mask_unsqueezed_in_front(probs, attention_mask):
    """I gave the mask its heads' axis with attention_mask[None], which puts the new axis in front: (1, B, T) against the (B, nh, T) entropies broadcasts only when B is 1 (right) or equals nh, and then head h is masked with sentence h's mask.
    Differs on: B = 2, nh = 2, T = 3, masks [1, 1, 1] and [1, 0, 0], every row [0.5, 0.5, 0] (padded rows too): [1.040, 0.347] instead of [0.693, 0.693]; and B = 2, nh = 3: RuntimeError (the solution gives ln 2 for every head)."""
    h = torch.special.entr(probs).sum(dim=-1)  # (B, nh, T)
    real = attention_mask.to(h.dtype)[None]
    return (h * real).sum(dim=(0, 2)) / attention_mask.sum()


@EX6_2.correct
def categorical_entropy_in_float64(probs, attention_mask):
    """torch.distributions.Categorical over the key axis in float64 (its entropy takes 0 · ln 0 as 0), the real queries picked with a boolean index and averaged together."""
    h = torch.distributions.Categorical(probs=probs.to(torch.float64), validate_args=False).entropy()  # (B, nh, T)
    real = attention_mask.bool()
    return h.permute(1, 0, 2)[:, real].mean(dim=1).to(probs.dtype)


# --- batch 7: written without reading any checker ------------------------------------------
EX6_3.batch = 7


@EX6_3.bug
def keep_mask_built_in_float32(head, head_size):
    """I multiplied the context by a vector of ones with zeros at the head's columns, built with torch.ones(H), which is float32 on the CPU: a float16 or bfloat16 context comes out as float32 (and the half-precision output projection then refuses it).
    Differs on: head 0, head_size 2, a context torch.ones(1, 2, 4, dtype=torch.float16): returns a float32 tensor where the solution keeps float16; in a float16 model the layer's Linear raises a dtype mismatch."""
    def hook(module, args):
        (context,) = args
        keep = torch.ones(context.shape[-1])
        keep[head * head_size:(head + 1) * head_size] = 0.0
        return (context * keep,)
    return hook


@EX6_3.bug
def other_heads_scaled_up_like_dropout(head, head_size):
    """Like dropout, I scaled the heads that remain by nh / (nh - 1) after zeroing one, so that the context keeps its size; masking should leave the other heads as they are.
    Differs on: head 0, head_size 2, a context torch.ones(1, 1, 4) (2 heads): [0, 0, 2, 2] instead of [0, 0, 1, 1]."""
    def hook(module, args):
        context = args[0].clone()
        nh = context.shape[-1] // head_size
        context[..., head * head_size:(head + 1) * head_size] = 0.0
        return (context * (nh / (nh - 1)),)
    return hook


@EX6_3.bug
def slice_started_at_the_head_number(head, head_size):
    """I started the slice at the head's number and took head_size columns from there, context[..., head:head + head_size], forgetting to multiply by head_size: right for head 0 only.
    Differs on: head 1, head_size 2, a context torch.ones(1, 1, 6): columns 1 and 2 zeroed instead of 2 and 3."""
    def hook(module, args):
        new = torch.clone(args[0])
        new[..., head:head + head_size] = 0
        return (new,)
    return hook


@EX6_3.bug
def heads_numbered_from_one(head, head_size):
    """I numbered the heads from 1 as the papers do ("head 1" is the first), so head h's columns are (h - 1)·hs to h·hs; head 0 then gives the empty slice -hs:0 and silences nothing.
    Differs on: head 1, head_size 2, a context torch.ones(1, 1, 6): columns 0 and 1 zeroed instead of 2 and 3; head 0: nothing zeroed."""
    start, stop = (head - 1) * head_size, head * head_size

    def hook(module, args):
        context = args[0].clone()
        context[..., start:stop] = 0.0
        return (context,)
    return hook


@EX6_3.correct
def index_fill_out_of_place(head, head_size):
    """Out of place with Tensor.index_fill on the last axis, the head's column indices from torch.arange on the context's device."""
    def hook(module, args):
        context = args[0]
        columns = torch.arange(head * head_size, (head + 1) * head_size, device=context.device)
        return (context.index_fill(-1, columns, 0.0),)
    return hook


# --- batch 7: written without reading any checker ------------------------------------------
EX.batch = 7


@EX.bug
def shuffled_batches_with_unshuffled_tags(train_x, train_y, test_x, test_y, alpha=1.0):
    """I trained a softmax probe with Adam on shuffled mini-batches of 32 words, but indexed the features with the shuffled order and the tags with the plain slice, train_y[s:s + 32], so each word is fitted to another word's tag.
    Differs on: a line of 40 words, x = 0, 0.1, ..., 3.9 with tag 1 from x = 2 on, test x = 0.5, 1.5, 2.5, 3.5 (tags 0, 0, 1, 1): 0.5 instead of 1.0."""
    g = torch.Generator().manual_seed(0)
    mean, std = train_x.float().mean(0), train_x.float().std(0).clamp_min(1e-6)
    x = (train_x.float() - mean) / std
    K = int(train_y.max()) + 1
    W = torch.zeros(x.shape[1], K, requires_grad=True)
    b = torch.zeros(K, requires_grad=True)
    opt = torch.optim.Adam([W, b], lr=0.05)
    N, size = len(x), 32
    for _ in range(50):
        order = torch.randperm(N, generator=g)
        for s in range(0, N, size):
            xb = x[order[s:s + size]]
            yb = train_y[s:s + size]
            opt.zero_grad()
            F.cross_entropy(xb @ W + b, yb).backward()
            opt.step()
    with torch.no_grad():
        predicted = (((test_x.float() - mean) / std) @ W + b).argmax(dim=1)
    return (predicted == test_y).float().mean().item()


@EX.bug
def hidden_layer_in_the_probe(train_x, train_y, test_x, test_y, alpha=1.0):
    """I gave the probe a hidden layer of 64 ReLU units, trained with Adam on the training words only, thinking a stronger probe reads the tags better; its boundaries are no longer linear in x.
    Differs on: a line, train x = -1, -0.5, 0, 0.5, 1 (tag 0) and -3, -2.5, 2.5, 3 (tag 1), test x = 0.2, -2.8, 2.8 (tags 0, 1, 1): 1.0, where no linear probe gets all three (the solution 0.333)."""
    g = torch.Generator().manual_seed(0)
    mean, std = train_x.double().mean(0), train_x.double().std(0).clamp_min(1e-6)
    x = ((train_x.double() - mean) / std).float()
    H, K, hidden = x.shape[1], int(train_y.max()) + 1, 64
    W1 = (torch.randn(H, hidden, generator=g) / math.sqrt(H)).requires_grad_()
    b1 = torch.zeros(hidden, requires_grad=True)
    W2 = (torch.randn(hidden, K, generator=g) / math.sqrt(hidden)).requires_grad_()
    b2 = torch.zeros(K, requires_grad=True)
    opt = torch.optim.Adam([W1, b1, W2, b2], lr=0.01)
    for _ in range(500):
        opt.zero_grad()
        F.cross_entropy(torch.relu(x @ W1 + b1) @ W2 + b2, train_y).backward()
        opt.step()
    with torch.no_grad():
        t = ((test_x.double() - mean) / std).float()
        predicted = (torch.relu(t @ W1 + b1) @ W2 + b2).argmax(dim=-1)
    return (predicted == test_y).float().mean().item()


@EX.bug
def numpy_arrays_before_the_cast(train_x, train_y, test_x, test_y, alpha=1.0):
    """I moved everything to numpy first with .numpy() and cast to float64 there; numpy has no bfloat16, so torch refuses .numpy() on bfloat16 hidden states (the cast must come before).
    Differs on: bfloat16 inputs, e.g. the worked line (train x = 1, 1.5, 2 tag 0; 3, 3.5, 4 tag 1; test 1.2, 3.8) as torch.bfloat16: TypeError, where the solution returns 1.0."""
    xtr = train_x.detach().cpu().numpy().astype(np.float64)
    xte = test_x.detach().cpu().numpy().astype(np.float64)
    ytr, yte = train_y.cpu().numpy(), test_y.cpu().numpy()
    mean, std = xtr.mean(axis=0), np.maximum(xtr.std(axis=0, ddof=1), 1e-6)
    A = np.hstack([(xtr - mean) / std, np.ones((len(xtr), 1))])
    Y = np.eye(int(ytr.max()) + 1)[ytr]
    W = np.linalg.solve(A.T @ A + alpha * np.eye(A.shape[1]), A.T @ Y)
    Z = np.hstack([(xte - mean) / std, np.ones((len(xte), 1))])
    return float(np.mean((Z @ W).argmax(axis=1) == yte))


@EX.bug
def tags_unsqueezed_in_place_for_scatter(train_x, train_y, test_x, test_y, alpha=1.0):
    """I built the one-hot targets with Y.scatter_(1, train_y.unsqueeze_(1), 1), writing unsqueeze_ (in place) for unsqueeze: the accuracy is right but the caller's train_y now has shape (N, 1).
    Differs on: the worked line (train x = 1, 1.5, 2 tag 0; 3, 3.5, 4 tag 1; test 1.2, 3.8): returns 1.0 like the solution, but train_y's shape changes from (6,) to (6, 1)."""
    x = train_x.double()
    mean, std = x.mean(dim=0), x.std(dim=0).clamp_min(1e-6)
    A = torch.cat([(x - mean) / std, torch.ones(len(x), 1, dtype=torch.float64)], dim=1)
    K = int(train_y.max()) + 1
    Y = torch.zeros(len(train_y), K, dtype=torch.float64).scatter_(1, train_y.unsqueeze_(1), 1.0)
    W = torch.linalg.solve(A.T @ A + alpha * torch.eye(A.shape[1], dtype=torch.float64), A.T @ Y)
    T = torch.cat([(test_x.double() - mean) / std, torch.ones(len(test_x), 1, dtype=torch.float64)], dim=1)
    return ((T @ W).argmax(dim=1) == test_y).double().mean().item()


@EX.correct
def gram_matrix_accumulated_in_chunks(train_x, train_y, test_x, test_y, alpha=1.0):
    """numpy in float64, streaming: AᵀA and AᵀY added up over chunks of 256 training words, then np.linalg.solve for the ridge; the fraction right counted with np.count_nonzero."""
    x = train_x.detach().to(torch.float64).cpu().numpy()
    t = test_x.detach().to(torch.float64).cpu().numpy()
    labels = train_y.detach().cpu().numpy()
    mean, std = x.mean(axis=0), np.maximum(x.std(axis=0, ddof=1), 1e-6)
    K, D = int(labels.max()) + 1, x.shape[1] + 1
    gram, cross = np.zeros((D, D)), np.zeros((D, K))
    for s in range(0, len(x), 256):
        chunk = (x[s:s + 256] - mean) / std
        a = np.concatenate([chunk, np.ones((len(chunk), 1))], axis=1)
        gram += a.T @ a
        cross += a.T @ np.eye(K)[labels[s:s + 256]]
    W = np.linalg.solve(gram + alpha * np.eye(D), cross)
    scores = np.concatenate([(t - mean) / std, np.ones((len(t), 1))], axis=1) @ W
    right = np.count_nonzero(scores.argmax(axis=1) == test_y.detach().cpu().numpy())
    return right / len(t)


# --- batch 8: written without reading any checker ------------------------------------------
EX6_1.batch = 8


@EX6_1.bug
def map_read_with_keys_as_rows(probs, attention_mask, offset):
    """I pictured the (T, T) map with the keys on the rows, so I read probs[b, h, i + offset, i], what the partner gives token i, instead of probs[b, h, i, i + offset]; it scores the opposite offset.
    Differs on: the worked example (one head, rows [0.5, 0.25, 0.25], [0.6, 0.3, 0.1], [0.1, 0.2, 0.7], no padding), offset -1: 0.175 instead of 0.4."""
    T = probs.shape[-1]
    keys_first = probs.transpose(-2, -1)
    i = torch.arange(max(0, -offset), min(T, T - offset))
    values = keys_first[:, :, i, i + offset]
    real = attention_mask.bool()
    valid = (real[:, i] & real[:, i + offset]).to(probs.dtype)
    return (values * valid[:, None]).sum(dim=(0, 2)) / valid.sum()


@EX6_1.bug
def only_the_partner_checked(probs, attention_mask, offset):
    """The hint says padded keys are not real pairs, so I required the partner i + offset to be a real token and forgot the query: a padded query's row (a real distribution over the real keys) counts whenever its partner is real.
    Differs on: B = 1, one head, T = 3, mask [1, 1, 0], rows [0.5, 0.5, 0], [0.6, 0.4, 0], [0.3, 0.7, 0] (the last a padded query), offset -1: 0.65 ((0.6 + 0.7) / 2) instead of 0.6."""
    T = probs.shape[-1]
    i = torch.arange(max(0, -offset), min(T, T - offset))
    values = probs[:, :, i, i + offset]
    partner_real = attention_mask[:, i + offset].to(probs.dtype)
    return (values * partner_real[:, None]).sum(dim=(0, 2)) / partner_real.sum()


@EX6_1.bug
def divided_by_the_real_tokens(probs, attention_mask, offset):
    """"The mean attention that a token gives": I added up the real pairs' probabilities and divided by the number of real tokens, not by the number of real pairs (a sentence of L tokens has only L - |offset| of them).
    Differs on: the worked example (one head, rows [0.5, 0.25, 0.25], [0.6, 0.3, 0.1], [0.1, 0.2, 0.7], no padding), offset -1: 0.267 ((0.6 + 0.2) / 3) instead of 0.4."""
    B, nh, T, _ = probs.shape
    scores = torch.zeros(nh, dtype=probs.dtype)
    real = attention_mask.bool()
    for j in range(max(0, -offset), min(T, T - offset)):
        both = (real[:, j] & real[:, j + offset]).to(probs.dtype)  # (B,)
        scores += (probs[:, :, j, j + offset] * both[:, None]).sum(0)
    return scores / real.sum()


@EX6_1.bug
def zero_probabilities_taken_for_padding(probs, attention_mask, offset):
    """Padded keys have probability 0, so I kept the pairs whose probability is above 0 instead of reading the mask: a real pair given exactly 0 drops out, and a padded query's row (non-zero over the real keys) is counted.
    Differs on: one head that puts each row on itself (B = 1, T = 3, rows [1, 0, 0], [0, 1, 0], [0, 0, 1], no padding), offset -1: nan (0 / 0) instead of 0.0."""
    T = probs.shape[-1]
    i = torch.arange(max(0, -offset), min(T, T - offset))
    values = probs[:, :, i, i + offset]  # (B, nh, P)
    kept = (values > 0).to(probs.dtype)
    return (values * kept).sum(dim=(0, 2)) / kept.sum(dim=(0, 2))


@EX6_1.correct
def loops_over_sentences_and_queries_in_float64(probs, attention_mask, offset):
    """Plain Python loops over sentences and queries, the partner's bounds and both masks tested by hand, the sums kept in float64 and divided at the end."""
    B, nh, T, _ = probs.shape
    p = probs.detach().to(torch.float64)
    total = torch.zeros(nh, dtype=torch.float64)
    count = 0
    for b in range(B):
        for q in range(T):
            k = q + offset
            if 0 <= k < T and attention_mask[b, q] != 0 and attention_mask[b, k] != 0:
                total += p[b, :, q, k]
                count += 1
    return (total / count).to(probs.dtype)


# --- batch 8: written without reading any checker ------------------------------------------
EX6_2.batch = 8


@EX6_2.bug
def mean_over_the_keys(probs, attention_mask):
    """I wrote each row's entropy as -(p ln p).mean(-1), averaging over the keys where the formula sums over them, so every row's entropy is divided by T.
    Differs on: one head spreading each row evenly over 2 keys (B = 1, T = 2, no padding): 0.347 (ln 2 / 2) instead of ln 2 = 0.693."""
    plogp = torch.special.xlogy(probs, probs)  # (B, nh, T, T)
    h = -plogp.mean(-1)  # (B, nh, T)
    real = attention_mask.bool()[:, None, :].to(probs.dtype)
    return (h * real).sum(dim=(0, 2)) / attention_mask.bool().sum()


@EX6_2.bug
def real_queries_counted_once_per_head(probs, attention_mask):
    """I expanded the queries' mask to the entropies' shape (B, nh, T) to pick the real ones, and divided by the sum of that expanded mask, which counts every real query once for each head: every score comes out divided by nh.
    Differs on: two heads that both spread each row evenly over 2 keys (B = 1, nh = 2, T = 2, no padding): [0.347, 0.347] instead of [0.693, 0.693]."""
    h = -torch.special.xlogy(probs, probs).sum(-1)  # (B, nh, T)
    real = attention_mask.bool()[:, None, :].expand_as(h)
    return torch.where(real, h, torch.zeros((), dtype=h.dtype)).sum(dim=(0, 2)) / real.sum()


@EX6_2.bug
def normalised_by_the_uniform_ceiling(probs, attention_mask):
    """To compare heads across sentence lengths I divided each row's entropy by ln of its number of real keys, the uniform ceiling the chapter compared with, so I return a fraction of the ceiling instead of nats.
    Differs on: one head uniform over 4 real keys and one padded key (B = 1, T = 5, mask [1, 1, 1, 1, 0], every row [0.25, 0.25, 0.25, 0.25, 0]): 1.0 instead of ln 4 = 1.386."""
    real = attention_mask.bool()
    h = -torch.special.xlogy(probs, probs).sum(-1)  # (B, nh, T)
    ceiling = real.sum(-1).to(probs.dtype).log()  # (B,): ln of each sentence's real keys
    h = h / ceiling[:, None, None]
    return (h * real[:, None, :].to(probs.dtype)).sum(dim=(0, 2)) / real.sum()


@EX6_2.bug
def zeros_replaced_by_ones_in_place(probs, attention_mask):
    """To get 0 ln 0 = 0 I set the zero probabilities to 1 (1 · ln 1 = 0) with probs.masked_fill_(probs == 0, 1.0), writing the in-place version: the entropy is right, but the caller's probabilities now hold 1 wherever they held 0.
    Differs on: one head, B = 1, T = 3, mask [1, 1, 0], every row [0.5, 0.5, 0]: returns ln 2 like the solution, but afterwards the caller's probs[..., 2] is 1.0 instead of 0."""
    probs.masked_fill_(probs == 0, 1.0)
    h = -(probs * probs.log()).sum(-1)  # (B, nh, T)
    real = attention_mask.bool()
    return h.permute(1, 0, 2)[:, real].mean(-1)


@EX6_2.correct
def numpy_log_where_positive(probs, attention_mask):
    """numpy in float64: ln taken only where p > 0 (np.log with where= and out= zeros), the real queries picked by a boolean index and averaged together."""
    p = probs.detach().cpu().to(torch.float64).numpy()  # (B, nh, T, T)
    logs = np.log(p, out=np.zeros_like(p), where=p > 0)
    h = -(p * logs).sum(-1)  # (B, nh, T)
    real = attention_mask.detach().cpu().numpy().astype(bool)  # (B, T)
    picked = h.transpose(1, 0, 2)[:, real]  # (nh, number of real queries)
    return torch.from_numpy(picked.mean(-1)).to(probs.dtype)


# --- batch 8: written without reading any checker ------------------------------------------
EX6_3.batch = 8


@EX6_3.bug
def zeroed_in_the_context_received(head, head_size):
    """The context is only an intermediate tensor, so I zeroed the head's columns in args[0] itself, without a copy, and returned it: the model's output is right, but the tensor the caller handed in is changed.
    Differs on: head 0, head_size 2, ctx = torch.ones(1, 2, 4) given as hook(None, (ctx,)): afterwards ctx[..., :2] is 0 (the solution leaves ctx all ones); with ctx = torch.ones(1, 2, 4, requires_grad=True) it raises RuntimeError."""
    def hook(module, args):
        context = args[0]
        context[..., head * head_size:(head + 1) * head_size] = 0.0
        return (context,)
    return hook


@EX6_3.bug
def first_sentence_only(head, head_size):
    """I wrote context[0, :, cols] = 0 on the copy, thinking of the first axis as the one sentence of the worked example, so the head is silenced in the batch's first sentence only.
    Differs on: head 0, head_size 2, a context torch.ones(2, 3, 4): sentence 1 keeps its columns 0 and 1 at 1 (the solution zeroes them in both sentences)."""
    def hook(module, args):
        (context,) = args
        context = context.clone()
        context[0, :, head * head_size:(head + 1) * head_size] = 0.0
        return (context,)
    return hook


@EX6_3.bug
def slice_left_open_at_the_end(head, head_size):
    """I wrote the slice as context[..., head * head_size:], leaving out its end, so the chosen head and every head after it are silenced.
    Differs on: head 0, head_size 2, a context torch.ones(1, 1, 6) (3 heads): all six columns zeroed instead of columns 0 and 1 (right only for the last head)."""
    def hook(module, args):
        context = args[0].clone()
        context[..., head * head_size:] = 0.0
        return (context,)
    return hook


@EX6_3.bug
def copied_off_the_graph(head, head_size):
    """I made my copy with args[0].detach().clone(), to be sure that writing zeros into it could not disturb autograd; the forward is right, but the context reaching the output projection is cut off from the graph, so no gradient flows back through this layer's attention.
    Differs on: a small BERT (H = 16, 2 layers, 2 heads) with my_head_mask_hook(0, 8) on layer 1's attention.output, loss = last_hidden_state.sum(): layer 1's attention.query, key and value weights and biases get no gradient (None), where the solution gives them the gradient that flows through head 1."""
    def hook(module, args):
        context = args[0].detach().clone()
        context[..., head * head_size:(head + 1) * head_size] = 0
        return (context,)
    return hook


@EX6_3.correct
def concatenated_around_zeros(head, head_size):
    """Out of place with torch.cat: the columns before the head, a block of zeros like the head's, and the columns after it."""
    start, stop = head * head_size, (head + 1) * head_size

    def hook(module, args):
        context = args[0]
        before, inside, after = context[..., :start], context[..., start:stop], context[..., stop:]
        return (torch.cat([before, torch.zeros_like(inside), after], dim=-1),)
    return hook


# --- batch 8: written without reading any checker ------------------------------------------
EX.batch = 8


@EX.bug
def ridge_alpha_added_to_every_entry(train_x, train_y, test_x, test_y, alpha=1.0):
    """I wrote the ridge term as A.T @ A + alpha, adding a number, which broadcasts α onto every entry of the matrix (α 11ᵀ, rank one) instead of onto its diagonal (α I): with fewer training words than features the matrix stays singular.
    Differs on: the worked line with two more features that are 0 for every word (train x = [1, 0, 0], [1.5, 0, 0], [2, 0, 0] tag 0 and [3, 0, 0], [3.5, 0, 0], [4, 0, 0] tag 1; test [1.2, 0, 0], [3.8, 0, 0]): torch.linalg.solve raises (singular matrix), the solution returns 1.0; and torch.manual_seed(0); train_x = randn(8, 16), train_y = randint(3, (8,)), test_x = randn(20, 16), test_y = randint(3, (20,)): 0.30 instead of 0.35."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)

    def design(x):
        z = (x.double() - mean.double()) / std.double()
        return torch.cat([z, torch.ones(len(z), 1, dtype=z.dtype)], dim=1)

    A = design(train_x)
    Y = F.one_hot(train_y, int(train_y.max()) + 1).double()
    W = torch.linalg.solve(A.T @ A + alpha, A.T @ Y)
    return (design(test_x) @ W).argmax(-1).eq(test_y).double().mean().item()


@EX.bug
def bias_left_out_after_centring(train_x, train_y, test_x, test_y, alpha=1.0):
    """Standardising centres every feature, so I thought the column of ones had nothing left to do and left it out; without it the boundary between two tags sits at the training mean whatever the tags' frequencies.
    Differs on: a line, train x = 0, 1, ..., 9 with tags 0 (x <= 7) and 1 (x = 8, 9), test x = 5, 6, 9 (tags 0, 0, 1): 0.333 instead of 1.0."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    A = ((train_x - mean) / std).double()
    B = ((test_x - mean) / std).double()
    Y = F.one_hot(train_y, int(train_y.max()) + 1).double()
    W = torch.linalg.solve(A.T @ A + alpha * torch.eye(A.shape[1], dtype=A.dtype), A.T @ Y)
    return ((B @ W).argmax(-1) == test_y).double().mean().item()


@EX.bug
def targets_built_from_the_test_tags(train_x, train_y, test_x, test_y, alpha=1.0):
    """I built the one-hot targets with F.one_hot(test_y, ...) where I meant train_y (the two names side by side in the signature): with as many test words as training words the fit runs, on the wrong tags.
    Differs on: the worked line, train x = 1, 1.5, 2 (tag 0) and 3, 3.5, 4 (tag 1), test x = 3.8, 1.2, 3.4, 1.4, 3.2, 1.6 with tags 1, 0, 1, 0, 1, 0: 0.0 instead of 1.0 (with M different from N it raises)."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    ones = lambda z: torch.cat([z, torch.ones(len(z), 1, dtype=z.dtype)], 1)
    A = ones(((train_x - mean) / std).double())
    K = int(train_y.max()) + 1
    Y = F.one_hot(test_y, K).double()
    W = torch.linalg.solve(A.T @ A + alpha * torch.eye(A.shape[1], dtype=A.dtype), A.T @ Y)
    predicted = (ones(((test_x - mean) / std).double()) @ W).argmax(1)
    return float((predicted == test_y).sum()) / len(test_y)


@EX.bug
def numpy_straight_from_the_tensors(train_x, train_y, test_x, test_y, alpha=1.0):
    """I moved the words to numpy with .numpy() and did the ridge there in float64; hidden states taken from a model without torch.no_grad() still require grad, and torch refuses .numpy() on them (it needs .detach() first).
    Differs on: the worked line (train x = 1, 1.5, 2 tag 0; 3, 3.5, 4 tag 1; test 1.2, 3.8) with train_x.requires_grad_(): RuntimeError, where the solution returns 1.0."""
    X, Z = train_x.numpy().astype(np.float64), test_x.numpy().astype(np.float64)
    y, t = train_y.numpy(), test_y.numpy()
    mean, std = X.mean(0), np.maximum(X.std(0, ddof=1), 1e-6)
    A = np.hstack([(X - mean) / std, np.ones((len(X), 1))])
    Y = np.eye(int(y.max()) + 1)[y]
    W = np.linalg.solve(A.T @ A + alpha * np.eye(A.shape[1]), A.T @ Y)
    scores = np.hstack([(Z - mean) / std, np.ones((len(Z), 1))]) @ W
    return float((scores.argmax(1) == t).mean())


@EX.correct
def ridge_by_qr_of_the_stacked_system(train_x, train_y, test_x, test_y, alpha=1.0):
    """numpy in float64: the ridge as least squares on the design stacked over √α·I, solved through a QR decomposition and a triangular solve."""
    X = train_x.detach().cpu().to(torch.float64).numpy()
    Z = test_x.detach().cpu().to(torch.float64).numpy()
    y, t = train_y.cpu().numpy(), test_y.cpu().numpy()
    mean = X.mean(axis=0)
    std = np.maximum(X.std(axis=0, ddof=1), 1e-6)
    A = np.column_stack([(X - mean) / std, np.ones(len(X))])
    K = int(y.max()) + 1
    Y = np.zeros((len(y), K))
    Y[np.arange(len(y)), y] = 1.0
    stacked = np.vstack([A, np.sqrt(alpha) * np.eye(A.shape[1])])
    targets = np.vstack([Y, np.zeros((A.shape[1], K))])
    Q, R = np.linalg.qr(stacked)
    W = np.linalg.solve(R, Q.T @ targets)
    scores = np.column_stack([(Z - mean) / std, np.ones(len(Z))]) @ W
    return float(np.mean(scores.argmax(axis=1) == t))


# --- batch 9: written without reading any checker ------------------------------------------
EX6_1.batch = 9


@EX6_1.bug
def partner_brought_to_the_diagonal_with_roll(probs, attention_mask, offset):
    """I rolled the key axis by -offset so that each query's partner lands on the main diagonal, and rolled the mask the same way to know which pairs are real; roll wraps around, so at the edges a query is paired with a token at the other end of the sentence.
    Differs on: the worked example (one head, no padding) with offset -1: 0.35 (it also counts p[0, 2] = 0.25) instead of 0.4; with offset +1: 0.15 (it also counts p[2, 0] = 0.1) instead of 0.175."""
    rolled = torch.roll(probs, shifts=-offset, dims=-1)  # rolled[..., i, i] = probs[..., i, (i + offset) % T]
    real = attention_mask.bool()
    pairs = (real & torch.roll(real, shifts=-offset, dims=-1)).to(probs.dtype)  # (B, T)
    on_diagonal = torch.diagonal(rolled, dim1=-2, dim2=-1)  # (B, nh, T)
    return (on_diagonal * pairs[:, None, :]).sum(dim=(0, 2)) / pairs.sum()


@EX6_1.bug
def cls_and_sep_left_out(probs, attention_mask, offset):
    """The chapter's scores were on words, so I left out [CLS] and [SEP], the first and the last real token of each sentence, as queries and as partners; the statement counts every pair of real tokens.
    Differs on: the worked example (one head, no padding) with offset -1: NaN (only token 1 is left as a word, so no pair remains) instead of 0.4."""
    B, nh, T, _ = probs.shape
    real = attention_mask.bool()
    words = real.clone()
    for b in range(B):
        positions = real[b].nonzero().flatten()
        if len(positions):
            words[b, positions[0]] = False
            words[b, positions[-1]] = False
    total = probs.new_zeros(nh)
    count = 0
    for i in range(max(0, -offset), min(T, T - offset)):
        both = words[:, i] & words[:, i + offset]  # (B,)
        total = total + probs[both, :, i, i + offset].sum(dim=0)
        count += int(both.sum())
    return total / count


@EX6_1.bug
def sentences_weighted_by_their_length(probs, attention_mask, offset):
    """To pool, I scored each sentence on its own real pairs and weighted the sentences by their number of real tokens L, so that a long sentence counts more; a sentence has L - |offset| pairs, not L, so short sentences still weigh too much.
    Differs on: one head, T = 4, offset +1, sentence 0 with 4 real tokens whose next-token probabilities are 0.1, 0.1, 0.1 and sentence 1 with 2 real tokens whose p[0, 1] is 0.9: (4 * 0.1 + 2 * 0.9) / 6 = 0.367 instead of (0.3 + 0.9) / 4 = 0.3."""
    B, nh, T, _ = probs.shape
    real = attention_mask.bool()
    scores, weights = [], []
    for b in range(B):
        values = []
        for i in range(T):
            j = i + offset
            if 0 <= j < T and real[b, i] and real[b, j]:
                values.append(probs[b, :, i, j])
        if values:
            scores.append(torch.stack(values).mean(dim=0))
            weights.append(float(real[b].sum()))
    w = torch.tensor(weights, dtype=probs.dtype)
    return (torch.stack(scores) * w[:, None]).sum(dim=0) / w.sum()


@EX6_1.bug
def numpy_straight_from_the_attention(probs, attention_mask, offset):
    """I did it in numpy with probs.numpy(); attention taken from a model run with gradients on still requires grad (and bfloat16 has no numpy type), so .numpy() refuses it where the solution just computes.
    Differs on: the worked example as a (1, 1, 3, 3) tensor with requires_grad=True (or in bfloat16), offset -1: RuntimeError / TypeError from .numpy() instead of 0.4."""
    p = probs.numpy().astype(np.float64)
    m = attention_mask.numpy().astype(bool)
    B, nh, T, _ = p.shape
    i = np.arange(max(0, -offset), min(T, T - offset))
    values = p[:, :, i, i + offset]  # (B, nh, P)
    valid = m[:, i] & m[:, i + offset]  # (B, P)
    return (values * valid[:, None, :]).sum(axis=(0, 2)) / valid.sum()


@EX6_1.correct
def diagonal_with_first_and_last_slices(probs, attention_mask, offset):
    """torch.diagonal at `offset`; the pairs' mask from the first P and the last P positions of the mask (P = T - |offset|), which holds for both signs since a pair is its two ends."""
    T = probs.shape[-1]
    P = max(0, T - abs(offset))
    values = torch.diagonal(probs, offset=offset, dim1=-2, dim2=-1)  # (B, nh, P)
    real = attention_mask.bool()
    both = (real[:, :P] & real[:, T - P:]).to(probs.dtype)  # (B, P)
    return torch.einsum("bhp,bp->h", values, both) / both.sum()


# --- batch 9: written without reading any checker ------------------------------------------
EX6_2.batch = 9


@EX6_2.bug
def log_zeroed_at_the_padded_keys_only(probs, attention_mask):
    """The zeros come from padding, I thought, so I set ln p to 0 at the padded keys with the mask (masked_fill) and kept torch.log everywhere else; a real key whose probability is exactly 0 still gives 0 · (-inf) = NaN.
    Differs on: one head, no padding, rows [1, 0] and [0, 1] (each row on a single key, the statement's example of entropy 0): NaN instead of 0."""
    key_is_pad = ~attention_mask.bool()[:, None, None, :]  # (B, 1, 1, T)
    log_p = torch.log(probs).masked_fill(key_is_pad, 0.0)
    h = -(probs * log_p).sum(dim=-1)  # (B, nh, T)
    real = attention_mask.bool()
    return h.permute(1, 0, 2)[:, real].mean(dim=-1)


@EX6_2.bug
def log_of_probabilities_clamped_at_1e_12(probs, attention_mask):
    """For 0 ln 0 I multiplied p by ln(p.clamp(min=1e-12)), the clamp inside the log only; in float16 1e-12 rounds to 0, so the clamp does nothing and a zero probability still gives 0 · (-inf) = NaN.
    Differs on: the rows [1, 0] and [0, 1] of one head (no padding) in float16: NaN instead of 0 (float32, float64 and bfloat16 are right)."""
    plogp = probs * torch.log(probs.clamp(min=1e-12))
    h = -plogp.sum(-1)  # (B, nh, T)
    real = attention_mask.to(h.dtype)[:, None, :]
    return (h * real).sum(dim=(0, 2)) / real.sum()


@EX6_2.bug
def entropy_of_the_mean_distribution(probs, attention_mask):
    """I averaged each head's attention rows over the real queries of the batch first and took the entropy of that mean distribution, rather than the mean of the rows' entropies; a head whose rows each sit on one key but on different keys looks spread out.
    Differs on: one head, no padding, rows [1, 0] and [0, 1]: ln 2 ≈ 0.693 (the mean row is [0.5, 0.5]) instead of 0."""
    real = attention_mask.to(probs.dtype)[:, None, :, None]  # (B, 1, T, 1): real queries
    mean_row = (probs * real).sum(dim=(0, 2)) / real.sum()  # (nh, T): the heads' average distribution
    return -torch.special.xlogy(mean_row, mean_row).sum(dim=-1)


@EX6_2.bug
def mask_broadcast_like_the_key_mask(probs, attention_mask):
    """I applied the mask as the model does, attention_mask[:, None, None, :] over (B, nh, T, T), and divided by the number of real queries; that shape masks the keys (whose probability is already 0), so the padded queries' rows still add their entropy to the sum.
    Differs on: one head, B = 1, mask [1, 1, 0], rows [.5, .5, 0], [.5, .5, 0] and a padded query row [.5, .5, 0]: 3 ln 2 / 2 ≈ 1.04 instead of ln 2 ≈ 0.693."""
    keep = attention_mask[:, None, None, :].to(probs.dtype)
    plogp = torch.special.xlogy(probs, probs) * keep
    total = -plogp.sum(dim=(0, 2, 3))  # (nh,)
    return total / attention_mask.bool().sum()


@EX6_2.correct
def nansum_then_real_queries_by_boolean_index(probs, attention_mask):
    """ln taken as it is and the 0 · (-inf) NaNs dropped by torch.nansum over the keys; the real queries picked with a boolean (B, T) index after moving the heads last, and averaged with mean(0)."""
    per_row = -torch.nansum(probs * probs.log(), dim=-1)  # (B, nh, T)
    by_query = per_row.transpose(1, 2)  # (B, T, nh)
    return by_query[attention_mask.bool()].mean(dim=0)  # (N_real, nh) -> (nh,)


# --- batch 9: written without reading any checker ------------------------------------------
EX6_3.batch = 9


@EX6_3.bug
def zeros_written_under_no_grad(head, head_size):
    """I wrote the zeros into my copy inside torch.no_grad(), since setting values is not a computation autograd should record; the forward is right, but autograd never learns that those columns became constants, so the gradient still flows back through the silenced head.
    Differs on: a (1, 2, 4) context with requires_grad=True, head 0, head_size 2, through nn.Linear(4, 3) and .sum().backward(): the context's gradient in columns 0-1 is that of the unmasked layer instead of 0."""
    def hook(module, args):
        context = args[0].clone()
        with torch.no_grad():
            context[..., head * head_size:(head + 1) * head_size] = 0.0
        return (context,)
    return hook


@EX6_3.bug
def weight_columns_zeroed_instead(head, head_size):
    """Zeroing the head's columns of the context is the same as zeroing the columns of the output projection's weight that read them, so my hook zeroed module.weight[:, cols] (under no_grad) and passed the inputs on; the output is right while the hook is on, but the weights stay zeroed after it is removed.
    Differs on: nn.Linear(4, 3) with the hook of head 1, head_size 2: once the hook is removed, the layer still ignores columns 2-3 (and module.weight[:, 2:4] is 0), where the solution leaves the layer as it was."""
    def hook(module, args):
        with torch.no_grad():
            module.weight[:, head * head_size:(head + 1) * head_size] = 0.0
        return args
    return hook


@EX6_3.bug
def keep_mask_multiplied_in(head, head_size):
    """I built a keep mask like the context (ones, zeros at the head's columns, in its dtype and on its device) and returned context * keep; multiplying by 0 does not zero an inf or a NaN, which a float16 head that overflowed holds.
    Differs on: a float16 context (1, 1, 4) holding [inf, 1., 2., 3.], head 0, head_size 2: [nan, 0., 2., 3.] instead of [0., 0., 2., 3.]."""
    def hook(module, args):
        context = args[0]
        keep = torch.ones(context.shape[-1], dtype=context.dtype, device=context.device)
        keep[head * head_size:(head + 1) * head_size] = 0
        return (context * keep,)
    return hook


@EX6_3.bug
def head_size_read_as_the_number_of_heads(head, head_size):
    """I read the second argument as the number of heads and worked out each head's width as H // head_size from the context; that is right only when the number of heads equals the head size.
    Differs on: a (1, 1, 8) context of ones with head 1, head_size 2 (4 heads of 2 columns): columns 4-7 zeroed instead of columns 2-3."""
    def hook(module, args):
        context = args[0]
        width = context.shape[-1] // head_size
        new = context.clone()
        new[..., head * width:(head + 1) * width] = 0
        return (new,)
    return hook


@EX6_3.correct
def unflattened_heads_axis(head, head_size):
    """A clone of the context with its last axis unflattened to (heads, head_size); head `head` picked with select(-2, head) and zeroed in place on that clone (a view), then flattened back."""
    def hook(module, args):
        per_head = args[0].clone().unflatten(-1, (-1, head_size))  # (..., nh, hs), our own copy
        per_head.select(-2, head).zero_()
        return (per_head.flatten(-2),)
    return hook


# --- batch 9: written without reading any checker ------------------------------------------
EX.batch = 9


def _ridge_fit_predict(train_z, train_y, test_z, alpha):
    """Ridge to one-hot tags with a column of ones, on already transformed float64 features."""
    ones = lambda z: torch.cat([z, torch.ones(len(z), 1, dtype=z.dtype)], dim=1)
    A = ones(train_z)
    Y = F.one_hot(train_y.long(), int(train_y.max()) + 1).double()
    W = torch.linalg.solve(A.T @ A + alpha * torch.eye(A.shape[1], dtype=A.dtype), A.T @ Y)
    return (ones(test_z) @ W).argmax(dim=-1)


@EX.bug
def unknown_test_tags_marked_in_place(train_x, train_y, test_x, test_y, alpha=1.0):
    """Before scoring I marked the test tags the probe cannot produce (never seen in training, above the largest training tag) as -1, on labels = test_y.long(); for int64 tags .long() returns test_y itself, so the caller's tags are overwritten (the accuracy is right).
    Differs on: train tags [0, 0, 1, 1] at x = 1, 2, 3, 4, test x = [1.5, 3.5, 5.0] with int64 tags [0, 1, 2]: returns 2/3 like the solution, but test_y is now [0, 1, -1]."""
    K = int(train_y.max()) + 1
    labels = test_y.long()
    labels[labels >= K] = -1  # no probe fitted on these tags can name them
    mean, std = train_x.double().mean(0), train_x.double().std(0).clamp_min(1e-6)
    predicted = _ridge_fit_predict((train_x.double() - mean) / std, train_y, (test_x.double() - mean) / std, alpha)
    return (predicted == labels).double().mean().item()


@EX.bug
def standardised_features_clipped_at_three(train_x, train_y, test_x, test_y, alpha=1.0):
    """To tame outliers I clipped every standardised feature to [-3, 3] before the ridge, a common preprocessing step; the clip makes the scores a non-linear function of x, so a test word far out can land on the other side of the boundary.
    Differs on: 200 training words in 2-D (standard normal, tag 1 where x1 - 2 x2 > 0) and one test word (20, 5) of tag 1: the clipped word sits at (3, 3) and is called tag 0: accuracy 0.0 instead of 1.0."""
    mean, std = train_x.mean(0), train_x.std(0).clamp_min(1e-6)
    z = lambda x: ((x.double() - mean.double()) / std.double()).clamp(-3.0, 3.0)
    predicted = _ridge_fit_predict(z(train_x), train_y, z(test_x), alpha)
    return (predicted == test_y).double().mean().item()


@EX.bug
def training_words_shuffled_in_numpy(train_x, train_y, test_x, test_y, alpha=1.0):
    """Out of habit I shuffled the training words before fitting, with one seeded generator for the features and the same seed for the tags, on train_x.numpy() and train_y.numpy(); those arrays share memory with the tensors, so the caller's training words come back shuffled (the accuracy is right).
    Differs on: train x = 1, 2, 3, 4 (as (4, 1) float32) with tags [0, 0, 1, 1], test x = [1.5, 3.5] tags [0, 1]: returns 1.0 like the solution, but train_x and train_y are now in another order."""
    xs, ys = train_x.numpy(), train_y.numpy()
    np.random.default_rng(0).shuffle(xs)
    np.random.default_rng(0).shuffle(ys)  # the same permutation, so each word keeps its tag
    X = xs.astype(np.float64)
    mean, std = X.mean(0), np.maximum(X.std(0, ddof=1), 1e-6)
    A = np.hstack([(X - mean) / std, np.ones((len(X), 1))])
    Y = np.eye(int(ys.max()) + 1)[ys]
    W = np.linalg.solve(A.T @ A + alpha * np.eye(A.shape[1]), A.T @ Y)
    T = test_x.numpy().astype(np.float64)
    scores = np.hstack([(T - mean) / std, np.ones((len(T), 1))]) @ W
    return float(np.mean(scores.argmax(1) == test_y.numpy()))


@EX.bug
def word_vectors_scaled_to_unit_length(train_x, train_y, test_x, test_y, alpha=1.0):
    """I scaled each word's vector to length 1 first (F.normalize), as is usual with embeddings, then standardised and fitted the ridge; dividing by the word's own norm is not linear in x, and on a line it maps every positive x to 1.
    Differs on: train x = 1, 2, 3, 4 with tags [0, 0, 1, 1], test x = [1.5, 3.5] with tags [0, 1]: 0.5 (every word looks the same) instead of 1.0."""
    unit = lambda x: F.normalize(x.double(), dim=1)
    u_train, u_test = unit(train_x), unit(test_x)
    mean, std = u_train.mean(0), u_train.std(0).clamp_min(1e-6)
    predicted = _ridge_fit_predict((u_train - mean) / std, train_y, (u_test - mean) / std, alpha)
    return (predicted == test_y).double().mean().item()


@EX.correct
def scipy_positive_definite_solve(train_x, train_y, test_x, test_y, alpha=1.0):
    """numpy in float64 after a detached CPU copy; the ridge's normal equations solved with scipy.linalg.solve(assume_a="pos"); one-hot tags from np.eye; accuracy with np.count_nonzero."""
    X = train_x.detach().cpu().double().numpy()
    Z = test_x.detach().cpu().double().numpy()
    y = train_y.detach().cpu().numpy().astype(np.int64)
    mu = X.mean(axis=0)
    sd = np.maximum(X.std(axis=0, ddof=1), 1e-6)
    design = lambda M: np.concatenate([(M - mu) / sd, np.ones((M.shape[0], 1))], axis=1)
    A = design(X)
    Y = np.eye(y.max() + 1)[y]
    W = scipy.linalg.solve(A.T @ A + alpha * np.eye(A.shape[1]), A.T @ Y, assume_a="pos")
    guess = (design(Z) @ W).argmax(axis=1)
    truth = test_y.detach().cpu().numpy()
    return np.count_nonzero(guess == truth) / len(truth)
