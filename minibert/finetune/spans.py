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


def best_threshold(windows: list[dict], examples: list[dict], score) -> tuple[float, float]:
    """τ chosen on the dev set to maximise `score(answers)` (F1), as §4.3 says: every gap between an
    example's best span and its null score is a candidate, and the best one wins. Returns (τ, score)."""
    best, null = per_example(windows)
    gaps = sorted({0.0} | {w["score"] - null[k] - 1e-6 for k, w in best.items()})
    gaps = gaps[::max(1, len(gaps) // 64)]  # at most ~64 candidates: each is a pass over the dev set
    scored = [(score(_answers(best, null, examples, t)), t) for t in gaps]
    (value, tau) = max(scored, key=lambda pair: (pair[0], -abs(pair[1])))
    return tau, value
