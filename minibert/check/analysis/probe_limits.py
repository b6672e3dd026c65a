"""Exercise 6.4's test words far out (the largest score wins; a linear probe's side does not change); its
ceiling: a case where every linear probe stays under 2/3, so a probe that reads more is not linear (a hidden
layer, a kernel, a nearest neighbour), and measures itself, not the features; and a floor:
fewer training words than features, where a ridge probe still separates far-apart tags."""

from __future__ import annotations

import torch

from ..common import ExerciseError


def test_words_far_out():
    """Three tags at the corners of a triangle in 2 dimensions; the test words lie 6 times as far from
    the middle as the training words (a layer whose states are larger): scores then run well past the
    one-hot targets (the word's tag above 1, the others below 0), and the largest still names the tag."""
    g = torch.Generator().manual_seed(72)
    angle = torch.tensor([0.0, 2.0944, 4.1888])  # 0°, 120°, 240°
    centres = torch.stack([angle.cos(), angle.sin()], dim=1)  # (3, 2)
    train_y, test_y = torch.arange(3).repeat(10), torch.arange(3).repeat(5)
    train_x = centres[train_y] + 0.05 * torch.randn(30, 2, generator=g)
    test_x = 6.0 * centres[test_y] + 0.05 * torch.randn(15, 2, generator=g)
    return train_x, train_y, test_x, test_y


def _test_words_far_out_on_a_slant():
    """Two tags either side of the slanted line x1 = 2 x2 through 200 standard normal training words; four test
    words far out, each well on its side: (20, 5) and (12, 2) of tag 1, (-20, -5) and (-12, -2) of tag 0. Clipped
    feature by feature (to ±3, say) they all cross the line: (3, 3) and (3, 2) lie on tag 0's side."""
    g = torch.Generator().manual_seed(77)
    train_x = torch.randn(200, 2, generator=g)
    train_y = (train_x[:, 0] - 2 * train_x[:, 1] > 0).long()
    test_x = torch.tensor([[20.0, 5.0], [12.0, 2.0], [-20.0, -5.0], [-12.0, -2.0]])
    return train_x, train_y, test_x, torch.tensor([1, 1, 0, 0])


def far_out_on_a_slant(fn, accuracy) -> None:
    """`accuracy(name, fn, data)` runs the learner's probe: a linear probe's scores are linear in x, so a word
    well on its tag's side stays there however far out it lies."""
    name = ("2 tags in 2 dimensions either side of the slanted line x1 = 2 x2 (200 standard normal training words), "
            "test words (20, 5) and (12, 2) of tag 1, (-20, -5) and (-12, -2) of tag 0")
    got = accuracy(name, fn, _test_words_far_out_on_a_slant())
    if got < 1.0:
        raise ExerciseError(f"{name}: accuracy {got:.3f}, expected 1.0 (each lies well on its tag's side, only far "
                            "out)\n  hint: a linear probe's scores are linear in x, so a word's side of the boundary "
                            "does not change however far out it lies; a change of the features that is not linear "
                            "(clipping, tanh, scaling each word) can move it")


def _middle_against_both_ends():
    """Tag 0 in the middle of a line, tag 1 at both of its ends: no threshold on x separates them."""
    train_x = torch.tensor([[-1.0], [-0.5], [0.0], [0.5], [1.0], [-3.0], [-2.5], [2.5], [3.0]])
    train_y = torch.tensor([0, 0, 0, 0, 0, 1, 1, 1, 1])
    test_x, test_y = torch.tensor([[0.2], [-2.8], [2.8]]), torch.tensor([0, 1, 1])
    return train_x, train_y, test_x, test_y


def linear_ceiling(fn, accuracy) -> None:
    """`accuracy(name, fn, data)` runs the learner's probe. With one feature and two tags, a linear probe's
    two scores differ by a linear function of x: it tags by a threshold, which gets 2 of these 3 at most."""
    name = ("a line, tag 0 at x in [-1, 1] and tag 1 at both ends (x = ±2.5, ±3); test words x = 0.2 (tag 0), "
            "-2.8 and 2.8 (tag 1)")
    got = accuracy(name, fn, _middle_against_both_ends())
    if got > 2 / 3 + 1e-6:
        raise ExerciseError(f"{name}: accuracy {got:.3f}, where no linear probe gets more than 2 of the 3: with one "
                            "feature, a linear probe tags by a threshold on x, and tag 1 lies on both sides of tag 0"
                            "\n  hint: the probe must be linear in the features (least squares or logistic "
                            "regression, with a bias); a hidden layer, or any feature made from x, reads more than "
                            "a linear map of the representation can, and then the probe's accuracy measures the "
                            "probe")


def _fewer_words_than_features():
    """Two tags in 20 dimensions, 3 training words of each: the (21, 21) matrix AᵀA has rank 6 at most, so
    only the ridge term α I on its diagonal makes it invertible."""
    g = torch.Generator().manual_seed(76)
    centres = 3.0 * torch.randn(2, 20, generator=g)
    train_y, test_y = torch.tensor([0, 1]).repeat(3), torch.tensor([0, 1]).repeat(5)
    noisy = lambda y: centres[y] + 0.3 * torch.randn(len(y), 20, generator=g)  # noqa: E731
    return noisy(train_y), train_y, noisy(test_y), test_y


def fewer_words_than_features(fn, accuracy) -> None:
    """A probe fitted on fewer words than features (a few rare tags of a 384-wide layer) must still work."""
    name = "two tags in 20 dimensions, 3 training words of each (fewer words than features), 10 test words"
    got = accuracy(name, fn, _fewer_words_than_features())
    if got < 1.0:
        raise ExerciseError(f"{name}: accuracy {got:.3f}, expected 1.0 (the tags are far apart)\n  hint: with "
                            "fewer training words than features AᵀA is singular, and only the penalty makes the fit "
                            "unique: α I, α on the diagonal (torch.eye), makes AᵀA + α I invertible")
