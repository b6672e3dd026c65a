"""Scoring a fine-tuned model on a split, with the metric its benchmark uses (`metrics.py`).

Predictions are read off the logits as the task's kind says (`kinds.py`): the arg-max class (or
the score itself, for regression), the tag of each word's first piece, the best span merged over
the windows of the context (`spans.py`), the arg-max over the choices. For tagging, a sentence longer than the window
is scored on the words that fit (the rest were never seen by the model).

A split without labels (GLUE's and SWAG's test sets: their labels are kept secret) is never scored;
`predictions` gives what a benchmark's server scores instead:

    model = BertForSequenceClassification.from_pretrained("runs/finetune/.../model")
    predictions(model, TASKS["glue-rte"], load_task("glue-rte", "test", data_dir), tokenizer, cfg)
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..tasks import TaskError
from ..tasks.common import unlabelled
from .features import collate, encode, feature_settings
from .kinds import KINDS


@torch.no_grad()
def predict(model, features: list[dict], pad_token_id: int, batch_size: int, tokenwise: bool,
            unpad: bool = False) -> list[torch.Tensor]:
    """The model's logits for every feature, in order, on the CPU: one tensor per output (start
    and end for spans). `tokenwise`: the outputs have a token axis, which dynamic padding made of
    another width in each batch, so it is padded to one (-inf for span scores, never chosen)."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    outputs = []
    for i in range(0, len(features), batch_size):
        batch = collate(features[i:i + batch_size], pad_token_id)
        out = model(**{k: batch[k].to(device) for k in ("input_ids", "token_type_ids", "attention_mask")},
                    unpad=unpad)
        logits = (out.start_logits, out.end_logits) if hasattr(out, "start_logits") else (out.logits,)
        outputs.append([t.float().cpu() for t in logits])
    model.train(was_training)
    return [_join([o[k] for o in outputs], tokenwise) for k in range(len(outputs[0]))]


def _join(parts: list[torch.Tensor], tokenwise: bool) -> torch.Tensor:
    if not tokenwise:
        return torch.cat(parts)
    T = max(p.shape[1] for p in parts)
    fill = float("-inf") if parts[0].dim() == 2 else 0.0  # (n, T) span scores; (n, T, K) tag logits
    return torch.cat([F.pad(p, (0, 0) * (p.dim() - 2) + (0, T - p.shape[1]), value=fill) for p in parts])


def check_scorable(task, examples: list[dict], split: str = "the split") -> None:
    """Refuse to score examples without labels (a benchmark's test split): their "accuracy" would be 0."""
    if missing := unlabelled(task, examples):
        why = f"; {task.plays}'s test labels are kept secret" if task.hub is not None else ", label -1"
        raise TaskError(
            f"{task.name}: {split} has no labels ({len(missing)} of its {len(examples)} examples, e.g. "
            f"{missing[0]['id']!r}{why}), so it cannot be scored: score on --eval-split dev (or train-slice). "
            "To predict it, load the fine-tuned model from the run's model/ folder and call "
            "minibert.finetune.evaluation.predictions")


def logits_of(model, task, examples: list[dict], tokenizer, cfg) -> tuple[list[dict], list[torch.Tensor]]:
    """The features of `examples` and the model's logits for them (start and end for spans)."""
    features = encode(task.kind, examples, tokenizer, **feature_settings(cfg))
    return features, predict(model, features, tokenizer.pad_token_id, cfg.batch_size,
                             tokenwise=KINDS[task.kind].tokenwise, unpad=cfg.unpad)


def predictions(model, task, examples: list[dict], tokenizer, cfg) -> dict:
    """Each example's prediction by its id, unscored (no label is read): the class (or score), the
    tags of its words, the choice; for spans the answer, its score and the no-answer score. `cfg`
    gives the feature settings, batch_size, unpad and max_answer_length (a FinetuneConfig)."""
    return {e["id"]: p for e, p in zip(examples, _read(model, task, examples, tokenizer, cfg))}


def evaluate(model, task, examples: list[dict], tokenizer, cfg, *, keep: dict | None = None) -> dict:
    """The task's metric (and, for SQuAD-2.0-style data, the no-answer threshold chosen on it).
    `keep`, if given, is filled with each example's prediction by its id: the class (or score), the
    tags of its words, the choice; for spans the best span's text, its score and the no-answer
    score, from which §4.3's threshold is chosen (Google's run_squad.py writes the same two files)."""
    check_scorable(task, examples)
    predicted = _read(model, task, examples, tokenizer, cfg)
    if keep is not None:
        keep.update({e["id"]: p for e, p in zip(examples, predicted)})
    return KINDS[task.kind].score(task, predicted, examples)


def _read(model, task, examples: list[dict], tokenizer, cfg) -> list:
    """One prediction per example, in their order, read off the logits as the task's kind says."""
    return KINDS[task.kind].read(task, *logits_of(model, task, examples, tokenizer, cfg), examples, cfg)
