"""One record per kind of task (the paper's Figure 4, and §4.4's choices): the head on the encoder,
whether its logits have a token axis, how they are read as predictions, and how predictions are
scored. The loop and the evaluation look a task's kind up here instead of asking its name (how an
example becomes features is `features.encode`'s part).

    kind       head                             logits              read as
    sentence   BertForSequenceClassification    (n, K) or (n, 1)    the arg-max class, or the score
    pair       BertForSequenceClassification    (n, K) or (n, 1)    the same, on [CLS] A [SEP] B [SEP]
    tagging    BertForTokenClassification       (n, T, K)           each word's tag, on its first piece
    span       BertForQuestionAnswering         (n, T) start, end   the best span, merged over windows
    choice     BertForMultipleChoice            (n, C)              the arg-max choice
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..heads import (BertForMultipleChoice, BertForQuestionAnswering, BertForSequenceClassification,
                     BertForTokenClassification)
from .metrics import compute, squad_scores
from .spans import best_threshold, span_predictions, window_answers


@dataclass(frozen=True)
class Kind:
    """What fine-tuning does for one kind of task."""
    head: type                # the model class: the encoder with this kind's head
    labelled_head: bool       # its width is the task's label count (1 for a score); else fixed by the kind
    tokenwise: bool           # logits with a token axis, padded to one width across batches
    read: Callable[..., list]   # (task, features, logits, examples, cfg) -> one prediction per example
    score: Callable[..., dict]  # (task, predictions, examples) -> {metric: value}


def read_classes(task, features, logits, examples, cfg) -> list:
    """The arg-max class of each row; for a score (a task without labels: regression), the score."""
    (logits,) = logits
    return (logits[:, 0] if task.labels is None else logits.argmax(-1)).tolist()


def read_choices(task, features, logits, examples, cfg) -> list:
    """The arg-max over each question's choices."""
    (logits,) = logits
    return logits.argmax(-1).tolist()


def score_classes(task, predicted: list, examples: list[dict]) -> dict:
    return compute(task.metric, predicted, [e["label"] for e in examples])


def read_tags(task, features, logits, examples, cfg=None) -> list[list[str]]:
    """From (n, T, K) logits, each example's tags: one per word that fits, read on its first piece."""
    (logits,) = logits
    return [[task.labels[tag] for w, tag in zip(f["word_ids"], row) if w is not None]
            for f, row in zip(features, logits.argmax(-1).tolist())]


def score_tags(task, predicted: list[list[str]], examples: list[dict]) -> dict:
    """The words that fit the window are a sentence's first ones, so the gold tags are cut to as many."""
    gold = [[task.labels[t] for t in e["tags"][:len(tags)]] for e, tags in zip(examples, predicted)]
    return compute(task.metric, predicted, gold)


def tag_scores(task, features: list[dict], logits: torch.Tensor, examples: list[dict], keep: dict) -> dict:
    """The tagging metric from (n, T, K) logits (the feature-based tagger of Table 7 scores so too)."""
    predicted = read_tags(task, features, (logits,), examples)
    keep.update({e["id"]: tags for e, tags in zip(examples, predicted)})
    return score_tags(task, predicted, examples)


def read_spans(task, features, logits, examples, cfg) -> list[dict]:
    """Each question's best span over its windows, back in the context's characters, with its score
    and the no-answer score (from which §4.3's threshold is chosen)."""
    answers = span_predictions(window_answers(*logits, features, max_answer_length=cfg.max_answer_length), examples)
    return [answers[e["id"]] for e in examples]


def score_spans(task, predicted: list[dict], examples: list[dict]) -> dict:
    """SQuAD's EM and F1; for SQuAD-2.0-style data (questions without an answer), also the no-answer
    threshold chosen on these questions and the F1 it gives."""
    predicted = {e["id"]: p for e, p in zip(examples, predicted)}
    references = {e["id"]: e["answers"]["text"] for e in examples}
    scores = squad_scores({i: p["answer"] for i, p in predicted.items()}, references)
    if any(not gold for gold in references.values()):
        tau, best_f1 = best_threshold(predicted, references)
        scores.update(no_answer_threshold=tau, best_f1=best_f1)
    return scores


KINDS = {
    "sentence": Kind(BertForSequenceClassification, labelled_head=True, tokenwise=False, read=read_classes,
                     score=score_classes),
    "pair": Kind(BertForSequenceClassification, labelled_head=True, tokenwise=False, read=read_classes,
                 score=score_classes),
    "tagging": Kind(BertForTokenClassification, labelled_head=True, tokenwise=True, read=read_tags,
                    score=score_tags),
    "span": Kind(BertForQuestionAnswering, labelled_head=False, tokenwise=True, read=read_spans,
                 score=score_spans),
    "choice": Kind(BertForMultipleChoice, labelled_head=False, tokenwise=False, read=read_choices,
                   score=score_classes),
}
