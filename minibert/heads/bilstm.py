"""A BiLSTM on top of BERT, for two of the paper's ablations (Devlin et al. 2018, §5).

- Table 5, "+ BiLSTM": the left-to-right model gets "a randomly initialized BiLSTM on top" for
  fine-tuning, so that every token's vector also reads the tokens to its right.
  `BertWithBiLSTM.on(bert)` swaps a head's encoder for the same encoder plus that BiLSTM.
- Table 7, the feature-based approach: fixed vectors from a frozen BERT go into "a randomly
  initialized two-layer 768-dimensional BiLSTM before the classification layer" (`FeatureTagger`).

Padding never reaches an LSTM: sequences are packed to their own lengths, so a padded batch gives
the same outputs as each sequence alone.

Shape legend: B batch, T tokens, D input size, H hidden_size, K num_labels.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ..model import BertModel, BertOutput


class BiLSTM(nn.Module):
    """(B, T, D) -> (B, T, 2 × hidden): forward and backward states side by side, padding skipped."""

    def __init__(self, input_size: int, hidden: int, layers: int = 1):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden, num_layers=layers, batch_first=True, bidirectional=True)

    def forward(self, x, attention_mask=None):
        B, T, _ = x.shape
        lengths = (attention_mask.sum(1) if attention_mask is not None
                   else torch.full((B,), T)).cpu()  # (B,)
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        y, _ = self.lstm(packed)
        y, _ = pad_packed_sequence(y, batch_first=True, total_length=T)  # (B, T, 2 × hidden), zeros at padding
        return y


class BertWithBiLSTM(BertModel):
    """BertModel, then a randomly initialised one-layer BiLSTM of H/2 per direction, so its output
    keeps the shape every head expects: last_hidden_state (B, T, H), pooler_output (B, H) the
    BiLSTM's vector at [CLS] (its backward half has read the whole input; the paper does not say
    what its "+ BiLSTM" row pooled for GLUE)."""

    def __init__(self, config, add_pooling_layer: bool = True):
        super().__init__(config, add_pooling_layer)
        self.bilstm = BiLSTM(config.hidden_size, config.hidden_size // 2)

    @classmethod
    def on(cls, bert: BertModel) -> BertWithBiLSTM:
        """The same encoder (its weights copied) with a fresh BiLSTM on top."""
        model = cls(bert.config, add_pooling_layer=bert.pooler is not None)
        missing, unexpected = model.load_state_dict(bert.state_dict(), strict=False)
        assert not unexpected and all(k.startswith("bilstm.") for k in missing), (missing, unexpected)
        return model.to(next(bert.parameters()).device)

    def forward(self, input_ids, token_type_ids=None, attention_mask=None, **kwargs) -> BertOutput:
        out = super().forward(input_ids, token_type_ids, attention_mask, **kwargs)
        y = self.bilstm(out.last_hidden_state, attention_mask)  # (B, T, H)
        return BertOutput(y, y[:, 0] if self.pooler is not None else None, out.hidden_states, out.attentions)


# Table 7's ways to turn a frozen BERT's L+1 hidden states (the embeddings, then each layer) into
# one vector per token: which states (indices into hidden_states) and how they are joined.
COMBINATIONS = {
    "embeddings": (lambda L: [0], "one"),
    "second-to-last": (lambda L: [L - 1], "one"),
    "last": (lambda L: [L], "one"),
    "weighted-sum-last-four": (lambda L: list(range(max(0, L - 3), L + 1)), "weighted"),
    "concat-last-four": (lambda L: list(range(max(0, L - 3), L + 1)), "concat"),
    "weighted-sum-all": (lambda L: list(range(0, L + 1)), "weighted"),
}


def chosen_layers(combination: str, num_layers: int) -> list[int]:
    """The hidden states a combination reads: chosen_layers("concat-last-four", 12) -> [9, 10, 11, 12]."""
    if combination not in COMBINATIONS:
        raise ValueError(f"combination={combination!r}; use one of {', '.join(COMBINATIONS)}")
    return COMBINATIONS[combination][0](num_layers)


class FeatureTagger(nn.Module):
    """Table 7's feature-based tagger: fixed features of n chosen hidden states (B, T, n, H), joined
    into one vector per token, -> two-layer BiLSTM -> K logits per token. Joined: the one state
    as it is; "concat" side by side (n·H); "weighted" a learned softmax-weighted sum times a
    learned scale (ELMo's scalar mix, which the paper's "weighted sum" follows). The paper's
    BiLSTM is 768-dimensional for BERT-BASE; `hidden` is per direction."""

    def __init__(self, hidden_size: int, n: int, join: str, hidden: int, num_labels: int, layers: int = 2):
        super().__init__()
        if join not in ("one", "concat", "weighted") or (join == "one" and n != 1):
            raise ValueError(f"join={join!r} with n={n} states; use 'one' (n=1), 'concat' or 'weighted'")
        self.join = join
        self.mix = nn.Parameter(torch.zeros(n))  # softmax(0) = equal weights at the start
        self.scale = nn.Parameter(torch.ones(()))
        self.bilstm = BiLSTM(hidden_size * n if join == "concat" else hidden_size, hidden, layers)
        self.classifier = nn.Linear(2 * hidden, num_labels)

    def forward(self, states, attention_mask=None):
        B, T, n, H = states.shape
        if self.join == "concat":
            x = states.reshape(B, T, n * H)  # (B, T, n, H) -> (B, T, n·H)
        elif self.join == "weighted":
            x = self.scale * (states * self.mix.softmax(0)[:, None]).sum(2)  # (B, T, n, H) -> (B, T, H)
        else:
            x = states[:, :, 0]
        return self.classifier(self.bilstm(x, attention_mask))  # (B, T, D) -> (B, T, 2h) -> (B, T, K)
