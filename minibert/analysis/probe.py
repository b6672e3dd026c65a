"""Linear probes: how well a linear map reads part of speech from one layer's hidden states.

Tenney et al. (2019, "BERT rediscovers the classical NLP pipeline") trained a small classifier on the
frozen hidden states of each layer and asked which layers carry each kind of information. Here the
classifier is the simplest linear one: on standardised features, one least-squares fit per tag
(scikit-learn's RidgeClassifier: a closed-form solve, deterministic and fast; the predicted tag is
the largest of the 12 scores). A word is its first token, as the paper's Figure 4d tags a word by its
first piece; the probe is fitted on some sentences and scored on others. A probe measures what is *linearly decodable*, not
what the model uses; the majority baseline says how much of the task is knowing the word alone.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import torch


def probe_accuracy(train_x, train_y, test_x, test_y, *, alpha: float = 1.0) -> float:
    """Held-out accuracy of a linear probe (ridge, penalty `alpha`) fitted on (train_x (N, H), train_y (N,))."""
    from sklearn.linear_model import RidgeClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    train_x, test_x = (np.asarray(torch.as_tensor(x).double()) for x in (train_x, test_x))
    probe = make_pipeline(StandardScaler(), RidgeClassifier(alpha=alpha))
    probe.fit(train_x, np.asarray(train_y))
    return float((probe.predict(test_x) == np.asarray(test_y)).mean())


def probe_by_layer(features, labels, train: np.ndarray, *, alpha: float = 1.0) -> list[float]:
    """features (L + 1, N, H), labels (N,), `train` a boolean mask (N,) of the words to train on (the
    rest are scored): one held-out accuracy per hidden state, embeddings first."""
    labels, train = np.asarray(labels), np.asarray(train, dtype=bool)
    return [probe_accuracy(f[train], labels[train], f[~train], labels[~train], alpha=alpha) for f in features]


def majority_baseline(train_words, train_tags, test_words, test_tags) -> float:
    """Accuracy of tagging each word with its most frequent tag in training (lower-cased), and a word
    never seen with the most frequent tag overall: how far knowing the word alone goes."""
    by_word: dict[str, Counter] = {}
    for w, t in zip(train_words, train_tags, strict=True):
        by_word.setdefault(w.lower(), Counter())[t] += 1
    overall = Counter(train_tags).most_common(1)[0][0]
    guesses = [by_word[w.lower()].most_common(1)[0][0] if w.lower() in by_word else overall for w in test_words]
    return float(np.mean([g == t for g, t in zip(guesses, test_tags, strict=True)]))
