"""Sentence and sentence-pair classification (Devlin et al. 2018, §4.1; Figure 4a, 4b).

"The only new parameters introduced during fine-tuning are classification layer weights W ∈ R^{K×H}",
applied to C, the final hidden vector of [CLS] after the pooler (tanh(W_p h_[CLS] + b_p), the
vector NSP was trained on). One sentence (SST-2, CoLA) or a pair packed as [CLS] A [SEP] B [SEP]
(MNLI, QQP, STS-B) run through the same head: only the token types differ.

Shape legend: B batch, T tokens, H hidden_size, K num_labels.

The loss follows `config.problem_type`, exactly as transformers' BertForSequenceClassification
decides it; when it is None it is read off the labels on every call:
    num_labels == 1                      -> "regression": MSE on float targets (STS-B)     labels (B,)
    integer labels                       -> "single_label_classification": cross-entropy   labels (B,)
    float labels                         -> "multi_label_classification": BCE with logits  labels (B, K)
(transformers also writes the inferred type into `model.config` on the first call; minibert leaves the
config as it was given, so the same labels always give the same loss.)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..checkpoint import PretrainedMixin
from ..config import BertConfig
from ..inputs import check_labels, check_targets
from ..model import BertModel, ModelOutput, init_bert_weights


def classifier_dropout(config: BertConfig) -> nn.Dropout:
    """The dropout before a task head: `classifier_dropout`, or BERT's own hidden dropout (0.1 in §A.3)."""
    p = config.classifier_dropout
    return nn.Dropout(config.hidden_dropout_prob if p is None else p)


@dataclass
class SequenceClassifierOutput(ModelOutput):
    loss: torch.Tensor | None  # a mean over the batch, in float32
    logits: torch.Tensor  # (B, K); for regression (B, 1), the predicted score itself
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


def problem_type(config_problem_type: str | None, num_labels: int, labels: torch.Tensor) -> str:
    """The loss to use, inferred from the labels when the config does not say (transformers' rule)."""
    if config_problem_type is not None:
        return config_problem_type
    if num_labels == 1:
        return "regression"
    integer = isinstance(labels, torch.Tensor) and not labels.dtype.is_floating_point
    return "single_label_classification" if integer else "multi_label_classification"


def classification_loss(logits: torch.Tensor, labels: torch.Tensor, kind: str) -> torch.Tensor:
    """Validate `labels` for the problem `kind` and return the mean loss, in float32 (under bf16
    autocast, softmax and squared errors need the range)."""
    (B, K), logits = logits.shape, logits.float()
    if kind == "regression":  # STS-B: one real-valued score per pair (K outputs: K scores)
        check_targets("labels", labels, shape=(B,) if K == 1 else (B, K))
        return F.mse_loss(logits.view(B) if K == 1 else logits, labels.float())
    if kind == "single_label_classification":
        check_labels("labels", labels, shape=(B,), num_classes=K, source=f"config.num_labels={K}")
        return F.cross_entropy(logits, labels)
    # multi-label: each of the K classes is its own yes/no question, labels multi-hot (B, K)
    if isinstance(labels, torch.Tensor) and not labels.dtype.is_floating_point:  # 0/1 as integers
        check_labels("labels", labels, shape=(B, K), num_classes=2, source="multi-hot targets",
                     hint="use 1 where a class applies and 0 where it does not")
    else:
        check_targets("labels", labels, shape=(B, K))
    return F.binary_cross_entropy_with_logits(logits, labels.float())


class BertForSequenceClassification(PretrainedMixin, nn.Module):
    """C, the pooled [CLS] vector -> dropout -> W (K x H) -> K logits (§4.1; Figure 4a, 4b)."""

    hf_architecture = "BertForSequenceClassification"

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.num_labels = config.num_labels
        self.bert = BertModel(config)
        self.dropout = classifier_dropout(config)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.classifier.apply(lambda m: init_bert_weights(m, config.initializer_range))

    def forward(self, input_ids, token_type_ids=None, attention_mask=None, labels=None,
                **kwargs) -> SequenceClassifierOutput:
        """labels: class ids (B,), float targets (B,) for regression, or multi-hot floats (B, K)."""
        out = self.bert(input_ids, token_type_ids, attention_mask, **kwargs)
        logits = self.classifier(self.dropout(out.pooler_output))  # (B, H) -> (B, K)
        loss = None
        if labels is not None:
            kind = problem_type(self.config.problem_type, self.num_labels, labels)
            loss = classification_loss(logits, labels, kind)
        return SequenceClassifierOutput(loss, logits, out.hidden_states, out.attentions)
