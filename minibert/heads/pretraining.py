"""Pre-training heads (Devlin et al. 2018, section 3.1): masked LM and next sentence prediction.

Shape legend: B batch, T tokens, H hidden_size, V vocab_size, N labelled (masked) positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..checkpoint import PretrainedMixin
from ..config import BertConfig
from ..inputs import IGNORE_INDEX, check_labels
from ..model import ACTIVATIONS, BertModel, ModelOutput, init_bert_weights


class MLMHead(nn.Module):
    """dense -> GELU -> LayerNorm -> decoder. The decoder's weight is the word-embedding matrix
    (tied, as in BERT), passed in at call time so the tying is visible; only its bias is our own."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.transform = nn.Sequential()
        self.transform.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.transform.act = ACTIVATIONS[config.hidden_act]()
        self.transform.layer_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))

    def forward(self, h, word_embeddings):
        return F.linear(self.transform(h), word_embeddings, self.bias)  # (..., H) -> (..., V)


@dataclass
class PreTrainingOutput(ModelOutput):
    loss: torch.Tensor | None  # mlm_loss + nsp_loss (each a mean), as in the paper
    mlm_loss: torch.Tensor | None
    nsp_loss: torch.Tensor | None
    # With MLM labels: (N, V), only the labelled positions, in row-major (batch, token) order.
    # Without labels: (B, T, V), every position.
    mlm_logits: torch.Tensor
    nsp_logits: torch.Tensor  # (B, 2): index 0 = IsNext, 1 = NotNext
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


class BertForPreTraining(PretrainedMixin, nn.Module):
    """BertModel + MLM head (tied decoder) + NSP head on the pooled [CLS] output."""

    hf_architecture = "BertForPreTraining"

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.bert = BertModel(config)
        self.mlm = MLMHead(config)
        self.nsp = nn.Linear(config.hidden_size, 2)
        self.mlm.apply(lambda m: init_bert_weights(m, config.initializer_range))
        self.nsp.apply(lambda m: init_bert_weights(m, config.initializer_range))

    def forward(self, input_ids, token_type_ids=None, attention_mask=None, labels=None,
                next_sentence_label=None, **kwargs) -> PreTrainingOutput:
        """labels (B, T): the original token at masked positions, -100 elsewhere.
        next_sentence_label (B,): 0 if B follows A (IsNext), 1 if it is a random sentence (NotNext)."""
        out = self.bert(input_ids, token_type_ids, attention_mask, **kwargs)
        mlm_logits, mlm_loss = self.masked_lm(out.last_hidden_state, labels)
        nsp_logits = self.nsp(out.pooler_output)  # (B, H) -> (B, 2)
        nsp_loss = None
        if next_sentence_label is not None:
            check_labels("next_sentence_label", next_sentence_label, shape=nsp_logits.shape[:1], num_classes=2,
                         source="the two NSP classes",
                         hint="use 0 when B follows A (IsNext), 1 when B is random (NotNext)")
            nsp_loss = F.cross_entropy(nsp_logits.float(), next_sentence_label)
        if mlm_loss is not None and nsp_loss is not None:
            loss = mlm_loss + nsp_loss
        else:  # MLM only (the paper's "No NSP" ablation), NSP only, or no labels at all
            loss = mlm_loss if mlm_loss is not None else nsp_loss
        return PreTrainingOutput(loss, mlm_loss, nsp_loss, mlm_logits, nsp_logits,
                                 out.hidden_states, out.attentions)

    def masked_lm(self, h, labels=None):
        """h (B, T, H) -> (logits, mean loss). Without labels: logits (B, T, V) and no loss."""
        word_embeddings = self.bert.embeddings.word_embeddings.weight  # (V, H), the tied decoder
        if labels is None:
            return self.mlm(h, word_embeddings), None
        check_labels("labels", labels, shape=h.shape[:2], num_classes=self.config.vocab_size, ignore_index=True,
                     source=f"config.vocab_size={self.config.vocab_size}", hint="use -100 at positions not to predict")
        # Only ~15% of positions carry a label: run the decoder (the biggest matmul of a small
        # BERT: H x V per token) on those alone. Same loss as decoding all T, far less work.
        selected = labels != IGNORE_INDEX  # (B, T)
        logits = self.mlm(h[selected], word_embeddings)  # (N, H) -> (N, V)
        # The loss in float32 even under bf16 autocast: a softmax over 30k classes needs the range.
        return logits, F.cross_entropy(logits.float(), labels[selected])
