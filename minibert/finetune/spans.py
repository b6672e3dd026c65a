"""From the start and end logits of every window back to an answer in the original text.

A context longer than the window was cut into overlapping windows (`features.py`); each window
proposes its best spans (`heads.best_spans`: score S·T_i + E·T_j, j ≥ i, within the passage and a
maximum length, §4.2). The example's answer is the best-scoring span of any of its windows,
mapped through the tokens' character offsets to the exact characters of the context, so
"Ishmael," gives "Ishmael" and accents and spacing are as written, never re-joined from pieces.

SQuAD 2.0 (§4.3): the no-answer score of an example is its smallest [CLS] score over the windows
(as Google's run_squad.py); "no answer" is predicted unless the best span beats it by the threshold τ.
"""

from __future__ import annotations

import math

import torch

from ..heads.question_answering import best_spans
from .metrics import squad_f1


def window_answers(start_logits: torch.Tensor, end_logits: torch.Tensor, features: list[dict], *,
                   max_answer_length: int = 30, n_best: int = 20) -> list[dict]:
    """For each window (one row of the logits, one feature): its best span as
    {"example_index", "score", "start", "end" (characters), "null" (its [CLS] score)}; start is
    None when no span fits (a window with no passage token)."""
    allowed = torch.zeros(start_logits.shape, dtype=torch.bool)
    for b, f in enumerate(features):
        for t, offset in enumerate(f["offsets"]):
            allowed[b, t] = offset is not None
    found = []
    for f, spans, s, e in zip(features, best_spans(start_logits, end_logits, max_answer_length=max_answer_length,
                                                    n_best=n_best, allowed=allowed), start_logits, end_logits):
        answer = {"example_index": f["example_index"], "null": float(s[0] + e[0]),
                  "score": -math.inf, "start": None, "end": None}
        if spans:
            score, i, j = spans[0]
            answer.update(score=score, start=f["offsets"][i][0], end=f["offsets"][j][1])
        found.append(answer)
    return found


def per_example(windows: list[dict]) -> tuple[dict[int, dict], dict[int, float]]:
    """Each example's best window (the one with the highest-scoring span) and its no-answer score,
    the smallest [CLS] score over its windows (as run_squad.py)."""
    best: dict[int, dict] = {}
    null: dict[int, float] = {}
    for w in windows:
        k = w["example_index"]
        null[k] = min(null.get(k, math.inf), w["null"])
        if w["start"] is not None and w["score"] > best.get(k, {"score": -math.inf})["score"]:
            best[k] = w
    return best, null


def merge(windows: list[dict], examples: list[dict], *, threshold: float | None = None) -> dict[str, str]:
    """Each example's answer text (its id -> the characters of its context): the best window's
    span. With a `threshold` τ (SQuAD 2.0), "" (no answer) unless best score > min null + τ."""
    return _answers(*per_example(windows), examples, threshold)


def _answers(best: dict[int, dict], null: dict[int, float], examples: list[dict], threshold: float | None):
    answers = {}
    for k, example in enumerate(examples):
        w = best.get(k)
        answerable = w is not None and (threshold is None or w["score"] > null.get(k, -math.inf) + threshold)
        answers[example["id"]] = example["context"][w["start"]:w["end"]] if answerable else ""
    return answers


def span_predictions(windows: list[dict], examples: list[dict]) -> dict[str, dict]:
    """Each example's prediction by its id: {"answer": the best window's span ("" if none fits),
    "score": its ŝ (None if none fits), "null": s_null}, what §4.3's threshold is chosen from
    (Google's run_squad.py writes the same as predictions.json and null_odds.json)."""
    best, null = per_example(windows)
    answers = _answers(best, null, examples, None)
    return {e["id"]: {"answer": answers[e["id"]], "score": best[k]["score"] if k in best else None, "null": null[k]}
            for k, e in enumerate(examples)}


def best_threshold(predictions: dict[str, dict], references: dict) -> tuple[float, float]:
    """τ chosen on the dev set to maximise SQuAD's F1, as §4.3 says: (τ, F1 in percent at τ).
    `predictions` as `span_predictions` gives them; `references`: each id -> its gold answers
    ([] when it has none)."""
    gaps, if_answered, if_abstained = [], [], []
    for id_, p in predictions.items():
        gold = references[id_]
        if_abstained.append(squad_f1("", gold))
        spanned = p["score"] is not None  # no span fits at all: always abstains
        gaps.append(p["score"] - p["null"] if spanned else -math.inf)
        if_answered.append(squad_f1(p["answer"], gold) if spanned else if_abstained[-1])
    return sweep_threshold(gaps, if_answered, if_abstained)


def sweep_threshold(gaps: list[float], if_answered: list[float], if_abstained: list[float]) -> tuple[float, float]:
    """The exact best τ, as the official SQuAD 2.0 script's find_best_thresh: start from answering
    nothing, then answer the questions in order of their gap ŝ - s_null, largest first; each step
    trades one question's abstain score for its answer score. Every τ is tried (questions with equal
    gaps switch together), the all-abstain one included. Returns (τ, mean score in percent); with
    τ, a question is answered when its gap > τ."""
    n = len(gaps)
    order = sorted(range(n), key=lambda k: -gaps[k])
    finite = [gaps[k] for k in order if gaps[k] > -math.inf]
    total = sum(if_abstained)
    best_total, tau = total, (finite[0] if finite else 0.0)  # τ = the largest gap: nobody is answered
    for rank, k in enumerate(order):
        if gaps[k] == -math.inf:
            break
        total += if_answered[k] - if_abstained[k]
        following = gaps[order[rank + 1]] if rank + 1 < n else -math.inf
        if following == gaps[k]:
            continue  # tied gaps switch together
        if total > best_total:  # strictly better: on ties the larger τ (fewer answers) is kept, as the official script
            best_total = total
            tau = (gaps[k] + following) / 2 if following > -math.inf else gaps[k] - 1.0
    return tau, 100.0 * best_total / n
