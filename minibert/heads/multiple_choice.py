"""Multiple choice: pick the most plausible of C continuations (Devlin et al. 2018, §4.4, SWAG).

"We construct four input sequences, each containing the concatenation of the given sentence
(sentence A) and a possible continuation (sentence B). The only task-specific parameters introduced
is a vector whose dot product with the [CLS] token representation C denotes a score for each choice
which is normalized with a softmax layer." Here that vector is `classifier`, a Linear(H, 1)
(transformers' name); the C choices of a question run through the encoder as C separate rows, and
their scores meet again in one softmax.

Shape legend: B batch (questions), C choices, T tokens, H hidden_size.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..checkpoint import PretrainedMixin
from ..config import BertConfig
from ..inputs import InputError, check_labels
from ..model import BertModel, ModelOutput, init_bert_weights
from .classification import classifier_dropout


@dataclass
class MultipleChoiceModelOutput(ModelOutput):
    loss: torch.Tensor | None  # cross-entropy over the C choices, mean over the B questions, in float32
    logits: torch.Tensor  # (B, C): one score per choice
    hidden_states: tuple[torch.Tensor, ...] | None = None  # each (B·C, T, H)
    attentions: tuple[torch.Tensor, ...] | None = None  # each (B·C, nh, T, T)


def flatten_choices(input_ids, *others):
    """(B, C, T) -> (B·C, T) for input_ids and each of `others` that is given, so the encoder sees
    every (question, choice) pair as one sequence. Returns (B, C) and the flattened tensors."""
    if not isinstance(input_ids, torch.Tensor) or input_ids.dim() != 3:
        got = tuple(input_ids.shape) if isinstance(input_ids, torch.Tensor) else type(input_ids).__name__
        raise InputError(f"multiple choice takes input_ids of shape (batch, num_choices, seq_len), got {got}; "
                         "stack the C sequences of each question (one question: input_ids[None])")
    B, C, T = input_ids.shape
    for name, t in zip(("token_type_ids", "attention_mask"), others):
        if t is not None and (not isinstance(t, torch.Tensor) or t.shape != input_ids.shape):
            raise InputError(f"{name} must have input_ids' shape {(B, C, T)}, got "
                             f"{tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__}")
    flat = [None if t is None else t.reshape(B * C, T) for t in (input_ids, *others)]  # (B·C, T)
    return (B, C), *flat


class BertForMultipleChoice(PretrainedMixin, nn.Module):
    """For each choice, C_[CLS] -> dropout -> w·C: a score; softmax over the C choices (§4.4)."""

    hf_architecture = "BertForMultipleChoice"

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.bert = BertModel(config)
        self.dropout = classifier_dropout(config)
        self.classifier = nn.Linear(config.hidden_size, 1)
        self.classifier.apply(lambda m: init_bert_weights(m, config.initializer_range))

    def forward(self, input_ids, token_type_ids=None, attention_mask=None, labels=None,
                **kwargs) -> MultipleChoiceModelOutput:
        """input_ids, token_type_ids, attention_mask (B, C, T); labels (B,): the right choice, in [0, C)."""
        (B, C), input_ids, token_type_ids, attention_mask = flatten_choices(input_ids, token_type_ids, attention_mask)
        out = self.bert(input_ids, token_type_ids, attention_mask, **kwargs)
        scores = self.classifier(self.dropout(out.pooler_output))  # (B·C, H) -> (B·C, 1)
        logits = scores.view(B, C)  # (B·C, 1) -> (B, C): the choices of a question side by side
        loss = None
        if labels is not None:
            check_labels("labels", labels, shape=(B,), num_classes=C, source=f"the C={C} choices")
            loss = F.cross_entropy(logits.float(), labels)
        return MultipleChoiceModelOutput(loss, logits, out.hidden_states, out.attentions)
