"""Token classification: a label for every token (Devlin et al. 2018, §5.3; Figure 4d).

CoNLL-2003 NER: "we use the representation of the first sub-token as the input to the token-level
classifier over the NER label set". Every final hidden state T_i goes through the same K x H layer;
the labels of the positions not predicted (later word pieces, [CLS], [SEP], padding) are -100
(`IGNORE_INDEX`), which the cross-entropy skips.

The encoder is built without the pooler (`add_pooling_layer=False`), as transformers builds it: this
head never reads [CLS], so its checkpoints hold no pooler.

Shape legend: B batch, T tokens, H hidden_size, K num_labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..checkpoint import PretrainedMixin
from ..config import BertConfig
from ..inputs import IGNORE_INDEX, check_labels
from ..model import BertModel, ModelOutput, init_bert_weights
from .classification import classifier_dropout


@dataclass
class TokenClassifierOutput(ModelOutput):
    loss: torch.Tensor | None  # mean over the labelled positions, in float32
    logits: torch.Tensor  # (B, T, K)
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


class BertForTokenClassification(PretrainedMixin, nn.Module):
    """Each T_i -> dropout -> W (K x H) -> K logits per token (§5.3; Figure 4d)."""

    hf_architecture = "BertForTokenClassification"

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.num_labels = config.num_labels
        self.bert = BertModel(config, add_pooling_layer=False)
        self.dropout = classifier_dropout(config)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.classifier.apply(lambda m: init_bert_weights(m, config.initializer_range))

    def forward(self, input_ids, token_type_ids=None, attention_mask=None, labels=None,
                **kwargs) -> TokenClassifierOutput:
        """labels (B, T): a class id per token, -100 where nothing is predicted."""
        out = self.bert(input_ids, token_type_ids, attention_mask, **kwargs)
        logits = self.classifier(self.dropout(out.last_hidden_state))  # (B, T, H) -> (B, T, K)
        loss = None
        if labels is not None:
            K = self.num_labels
            check_labels("labels", labels, shape=logits.shape[:2], num_classes=K, source=f"config.num_labels={K}",
                         ignore_index=True)
            # (B, T, K) -> (B·T, K): every token is one classification; -100 ones are skipped
            loss = F.cross_entropy(logits.float().reshape(-1, K), labels.reshape(-1), ignore_index=IGNORE_INDEX)
        return TokenClassifierOutput(loss, logits, out.hidden_states, out.attentions)
