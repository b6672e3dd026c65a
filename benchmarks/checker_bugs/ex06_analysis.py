"""Exercise 6.4 (my_probe_accuracy): learners' linear probes with one mistake each, and correct ones.

Split rule (fixed before any checker changed): within the exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import torch
import torch.nn.functional as F

from . import Exercise

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
