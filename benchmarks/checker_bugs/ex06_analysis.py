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
