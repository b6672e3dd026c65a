"""The scores of the paper's fine-tuning benchmarks (section 4, section 5.3), each computed as the
benchmark itself defines it, with scikit-learn, scipy and seqeval where they do the job:

    benchmark                                     metric name (METRICS)  score
    GLUE SST-2, MNLI-m/mm, QNLI, RTE, WNLI; SWAG  "accuracy"             accuracy
    GLUE MRPC, QQP                                "f1"                   accuracy and F1 of class 1
    GLUE CoLA                                     "matthews"             Matthews correlation
    GLUE STS-B                                    "pearson_spearman"     Pearson and Spearman
    SQuAD v1.1 and v2.0                           "squad"                exact match and F1, in %
    CoNLL-2003 NER                                "entity_f1"            entity precision, recall, F1
    part-of-speech tagging                        "tag_accuracy"         token accuracy

GLUE's metrics are those of its paper's Table 1 (Wang et al. 2018). BERT's Table 1 reports one number
per task: F1 for MRPC and QQP, Spearman for STS-B, and the GLUE leaderboard's score for the others.

Scores are fractions in [0, 1] (correlations in [-1, 1]), except SQuAD's, which are percentages
because the official script prints them so. Predictions and labels may be lists, numpy arrays or
torch tensors (on any device); torch is never imported here.

    compute("f1", predictions, labels)  ->  {"accuracy": ..., "f1": ...}
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy import stats
from seqeval import metrics as seqeval_metrics
from sklearn import metrics as sk_metrics

Scores = dict[str, float]


# ---- input checks ------------------------------------------------------------------------------


def _to_numpy(values: Any) -> np.ndarray:
    """A list, numpy array or torch tensor as a numpy array. A tensor is recognised by its `detach`
    method, so torch need not be imported; `.cpu()` brings one back from the GPU first."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    return np.asarray(values)


def _length(values: Any, what: str) -> int:
    try:
        return len(values)
    except TypeError:
        raise ValueError(f"{what} must be a sequence (list, array, tensor or dict), "
                         f"got {type(values).__name__}") from None


def _check_lengths(predictions: Any, labels: Any) -> None:
    """One prediction per label, and at least one: a score of nothing is undefined."""
    n_predictions, n_labels = _length(predictions, "predictions"), _length(labels, "labels")
    if n_predictions != n_labels:
        raise ValueError(f"predictions and labels differ in length: "
                         f"{n_predictions} predictions, {n_labels} labels")
    if n_predictions == 0:
        raise ValueError("predictions and labels are empty: there is nothing to score")


def _vectors(predictions: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    """Both as 1-D numpy arrays (one value per example) of the same, non-zero length."""
    predictions, labels = _to_numpy(predictions), _to_numpy(labels)
    for what, values in (("predictions", predictions), ("labels", labels)):
        if values.ndim != 1:
            raise ValueError(f"{what} must be 1-D, one value per example; got shape {values.shape} "
                             f"(class logits: take .argmax(-1) first; a regression output of shape "
                             f"(N, 1): .squeeze(-1))")
    _check_lengths(predictions, labels)
    return predictions, labels


# ---- GLUE and SWAG: one label per example ------------------------------------------------------


def accuracy(predictions: Any, labels: Any) -> float:
    """The fraction of examples whose predicted class is the label: GLUE's SST-2, MNLI (matched and
    mismatched), QNLI, RTE and WNLI, half of MRPC's and QQP's score (Wang et al. 2018, Table 1), and
    SWAG (BERT section 4.4). sklearn.metrics.accuracy_score."""
    predictions, labels = _vectors(predictions, labels)
    return float(sk_metrics.accuracy_score(labels, predictions))


def f1(predictions: Any, labels: Any) -> float:
    """F1 of the positive class 1, 2PR / (P + R) with precision P = TP / (TP + FP) and recall
    R = TP / (TP + FN): GLUE's MRPC (1 = paraphrase) and QQP (1 = duplicate), the number BERT's
    Table 1 reports for them. sklearn.metrics.f1_score(average="binary", pos_label=1); when there
    is no true positive at all it is 0, without sklearn's warning."""
    predictions, labels = _vectors(predictions, labels)
    return float(sk_metrics.f1_score(labels, predictions, average="binary", pos_label=1,
                                     zero_division=0.0))


def matthews(predictions: Any, labels: Any) -> float:
    """Matthews correlation coefficient, GLUE's score for CoLA (Warstadt et al. 2019; Wang et al.
    2018): (TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN)), from -1 to 1, 0 for chance.
    sklearn.metrics.matthews_corrcoef, which gives 0 when the denominator is 0, e.g. for a
    predictor that always answers the same class."""
    predictions, labels = _vectors(predictions, labels)
    return float(sk_metrics.matthews_corrcoef(labels, predictions))


def pearson_spearman(predictions: Any, labels: Any) -> Scores:
    """Pearson and Spearman correlation of predicted and gold similarity: GLUE's STS-B (Cer et al.
    2017; GLUE reports both, BERT's Table 1 Spearman). scipy.stats.pearsonr and spearmanr. Both are
    nan, with scipy's ConstantInputWarning, when either side is constant: no correlation exists."""
    predictions, labels = _vectors(predictions, labels)
    if len(labels) < 2:
        raise ValueError(f"a correlation needs at least 2 examples, got {len(labels)}")
    predictions, labels = predictions.astype(np.float64), labels.astype(np.float64)
    return {"pearson": float(stats.pearsonr(predictions, labels).statistic),
            "spearman": float(stats.spearmanr(predictions, labels).statistic)}


# ---- SQuAD v1.1 and v2.0 -----------------------------------------------------------------------
#
# Following the official evaluation scripts, evaluate-v1.1.py (Rajpurkar et al. 2016) and
# evaluate-v2.0.py (Rajpurkar, Jia and Liang 2018), rewritten to be read. On questions that have an
# answer the two agree; v2.0 adds the no-answer rules, so this follows v2.0:
#   normalize_answer      both scripts' normalize_answer: lower, punctuation, articles, whitespace
#   _gold_answers         v2.0's get_raw_scores: gold answers that normalize to "" are dropped, and a
#                         question left with none has the single gold answer "" (no answer)
#   _token_f1             v2.0's compute_f1: token multiset overlap; if either side has no tokens,
#                         1 when both have none, else 0 (v1.1 would give 0 even when both are empty)
#   squad_exact_match/f1  both scripts: the best score over the gold answers
#   squad_scores          both scripts: 100 * mean over questions

_PUNCTUATION = frozenset(string.punctuation)  # ASCII only, as the scripts: "—" or "«" are kept
_ARTICLES = re.compile(r"\b(a|an|the)\b")  # whole words only: "theatre" keeps its "the"


def normalize_answer(s: str) -> str:
    """An answer as SQuAD's official scripts compare it: lower-cased, ASCII punctuation deleted
    (so "don't" -> "dont"), the articles a/an/the removed, runs of whitespace made one space.
    The steps run in the scripts' order: "The Cat!" -> "the cat!" -> "the cat" -> " cat" -> "cat"."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCTUATION)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def _gold_answers(gold_answers: str | Sequence[str]) -> list[str]:
    """The gold answers that say something; [""] (no answer) when none does (SQuAD v2.0)."""
    if isinstance(gold_answers, str):  # one answer, not a sequence of characters
        gold_answers = [gold_answers]
    return [answer for answer in gold_answers if normalize_answer(answer)] or [""]


def _token_f1(prediction: str, gold: str) -> float:
    predicted_tokens, gold_tokens = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not predicted_tokens or not gold_tokens:  # a no-answer on either side: all or nothing
        return float(predicted_tokens == gold_tokens)
    overlap = sum((Counter(predicted_tokens) & Counter(gold_tokens)).values())  # multiset ∩
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(predicted_tokens), overlap / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def squad_exact_match(prediction: str, gold_answers: str | Sequence[str]) -> float:
    """1.0 if the normalized prediction equals any normalized gold answer, else 0.0 (SQuAD v1.1 and
    v2.0). No gold answer (an empty list) means the gold answer is "", and a prediction of "" (or of
    anything that normalizes to "", such as "the") is the no-answer prediction."""
    prediction = normalize_answer(prediction)
    return max(float(prediction == normalize_answer(gold)) for gold in _gold_answers(gold_answers))


def squad_f1(prediction: str, gold_answers: str | Sequence[str]) -> float:
    """Token-overlap F1 of the normalized prediction and gold answer, the best over the gold answers
    (SQuAD v1.1 and v2.0): with `overlap` the tokens both share (counted with multiplicity),
    P = overlap / prediction tokens, R = overlap / gold tokens, F1 = 2PR / (P + R). No-answers as
    in `squad_exact_match`: 1 when prediction and gold are both empty, 0 when only one is."""
    return max(_token_f1(prediction, gold) for gold in _gold_answers(gold_answers))


def _some(ids: set) -> str:
    shown = ", ".join(repr(i) for i in sorted(ids, key=str)[:3])
    return shown + (", ..." if len(ids) > 3 else "")


def squad_scores(predictions: Mapping[Any, str] | Sequence[str],
                 references: Mapping[Any, Sequence[str]] | Sequence[Sequence[str]]) -> Scores:
    """{"exact_match": %, "f1": %}: the means over questions of `squad_exact_match` and `squad_f1`,
    in percent, as the official SQuAD scripts print them (v1.1 names the first "exact_match", v2.0
    "exact"). `predictions` maps question id -> predicted answer text, `references` question id ->
    gold answer texts ([] for a v2.0 question with no answer); two lists are paired by position.
    The ids must be the same on both sides: the scripts disagree on a missing prediction (v1.1
    scores it 0, v2.0 leaves it out of the mean), so a missing or unknown id is an error here."""
    if not isinstance(predictions, Mapping):
        predictions = dict(enumerate(predictions))
    if not isinstance(references, Mapping):
        references = dict(enumerate(references))
    missing, unknown = references.keys() - predictions.keys(), predictions.keys() - references.keys()
    if missing or unknown:
        raise ValueError("predictions and references must have the same question ids: "
                         f"{len(missing)} without a prediction ({_some(missing)}), "
                         f"{len(unknown)} not in the references ({_some(unknown)})")
    if not references:
        raise ValueError("predictions and references are empty: there is nothing to score")
    exact = [squad_exact_match(predictions[i], references[i]) for i in references]
    f1s = [squad_f1(predictions[i], references[i]) for i in references]
    return {"exact_match": 100.0 * sum(exact) / len(exact), "f1": 100.0 * sum(f1s) / len(f1s)}


# ---- tagging: CoNLL-2003 NER and part-of-speech ------------------------------------------------


def _sentences(tags: Any, what: str) -> list[list]:
    """Sentences as lists of plain Python tags (seqeval only flattens lists, not arrays or tuples)."""
    if isinstance(tags, str):
        raise ValueError(f"{what} must be a list of sentences, each a list of tags; got a string")
    sentences = []
    for sentence in tags:
        if isinstance(sentence, str):
            raise ValueError(f"{what} must be a list of sentences, each a list of tags, not a flat "
                             f"list of tags (one sentence is [tags]); got {sentence!r} as a sentence")
        sentences.append(_to_numpy(sentence).tolist() if len(sentence) else [])
    return sentences


def _tag_sentences(predicted_tags: Any, gold_tags: Any) -> tuple[list[list], list[list]]:
    predicted, gold = _sentences(predicted_tags, "predicted_tags"), _sentences(gold_tags, "gold_tags")
    _check_lengths(predicted, gold)
    for i, (p, g) in enumerate(zip(predicted, gold)):
        if len(p) != len(g):
            raise ValueError(f"sentence {i} has {len(p)} predicted tags but {len(g)} gold tags")
    return predicted, gold


def entity_f1(predicted_tags: Sequence[Sequence[str]], gold_tags: Sequence[Sequence[str]]) -> Scores:
    """Entity-level micro precision, recall and F1 over BIO-tagged sentences: CoNLL-2003 NER (Tjong
    Kim Sang and De Meulder 2003; BERT section 5.3), scored as its conlleval script does. An entity
    counts as found only if its type and both its boundaries are right: a right type with a wrong
    span is a false positive and a false negative at once. seqeval's default mode (mode=None)
    reproduces conlleval's chunking, including its leniency: an I-X that does not continue an X
    entity starts one. No entity runs across two sentences. All three are 0 when there is no
    entity on either side (as conlleval prints), without seqeval's warning."""
    predicted, gold = _tag_sentences(predicted_tags, gold_tags)
    options = dict(mode=None, average="micro", zero_division=0)
    return {"precision": float(seqeval_metrics.precision_score(gold, predicted, **options)),
            "recall": float(seqeval_metrics.recall_score(gold, predicted, **options)),
            "f1": float(seqeval_metrics.f1_score(gold, predicted, **options))}


def tag_accuracy(predicted_tags: Sequence[Sequence[Any]], gold_tags: Sequence[Sequence[Any]]) -> float:
    """The fraction of tokens, over all sentences, whose predicted tag is the gold one: how
    part-of-speech tagging is scored (e.g. the Penn Treebank). seqeval.metrics.accuracy_score."""
    predicted, gold = _tag_sentences(predicted_tags, gold_tags)
    if not any(gold):
        raise ValueError("the sentences have no tokens: there is nothing to score")
    return float(seqeval_metrics.accuracy_score(gold, predicted))


# ---- by name ------------------------------------------------------------------------------------

# name -> function of (predictions, labels) -> {score name: value}, as the benchmarks report them.
METRICS: dict[str, Callable[[Any, Any], Scores]] = {
    "accuracy": lambda predictions, labels: {"accuracy": accuracy(predictions, labels)},
    "f1": lambda predictions, labels: {"accuracy": accuracy(predictions, labels),  # as GLUE: MRPC, QQP
                                       "f1": f1(predictions, labels)},
    "matthews": lambda predictions, labels: {"matthews": matthews(predictions, labels)},
    "pearson_spearman": pearson_spearman,
    "squad": squad_scores,
    "entity_f1": entity_f1,
    "tag_accuracy": lambda predictions, labels: {"tag_accuracy": tag_accuracy(predictions, labels)},
}


def compute(name: str, predictions: Any, labels: Any) -> Scores:
    """The scores `METRICS[name]` gives `predictions` against `labels`, e.g.
    compute("matthews", [1, 0, 1], [1, 1, 1]) -> {"matthews": 0.0}. A ValueError for an unknown
    name, for predictions and labels of different lengths, and for empty ones."""
    if name not in METRICS:
        raise ValueError(f"unknown metric {name!r}; the known metrics are: {', '.join(METRICS)}")
    _check_lengths(predictions, labels)
    return METRICS[name](predictions, labels)
