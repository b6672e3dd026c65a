"""Extractive question answering: an answer span in the passage (Devlin et al. 2018, §4.2, §4.3; Figure 4c).

"We only introduce a start vector S ∈ R^H and an end vector E ∈ R^H during fine-tuning. The
probability of word i being the start of the answer span is computed as a dot product between T_i
and S followed by a softmax over all of the words in the paragraph" (and alike for the end with E).
Here S and E are the two rows of `qa_outputs` (a Linear(H, 2), transformers' name; its bias adds a
constant per row, which the softmax ignores). The training loss is the mean of the two
cross-entropies. At test time "the score of a candidate span from position i to position j is
defined as S·T_i + E·T_j, and the maximum scoring span where j ≥ i is used as a prediction":
`best_spans`. SQuAD 2.0 (§4.3) adds questions with no answer, whose span is [CLS]..[CLS]:
`predict_answer` compares the best span with s_null = S·C + E·C and a threshold τ.

Shape legend: B batch, T tokens, H hidden_size.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..checkpoint import PretrainedMixin
from ..config import BertConfig
from ..inputs import check_labels
from ..model import BertModel, ModelOutput, init_bert_weights


@dataclass
class QuestionAnsweringModelOutput(ModelOutput):
    loss: torch.Tensor | None  # (start loss + end loss) / 2, in float32
    start_logits: torch.Tensor  # (B, T): S·T_i
    end_logits: torch.Tensor  # (B, T): E·T_j
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


def span_loss(start_logits, end_logits, start_positions, end_positions) -> torch.Tensor:
    """Mean of the start and end cross-entropies over the T positions (§4.2).

    As transformers: a position ≥ T (an answer outside this window of a long passage) is clamped to
    T and ignored. transformers would also clamp a *negative* position to 0 and silently train it as
    "no answer"; minibert refuses it instead. A batch whose positions are all ignored has a NaN loss,
    as in transformers."""
    B, T = start_logits.shape
    losses = []
    for name, logits, positions in (("start_positions", start_logits, start_positions),
                                    ("end_positions", end_logits, end_positions)):
        if isinstance(positions, torch.Tensor) and positions.dtype != torch.bool:  # bool: refused below
            positions = positions.clamp(max=T)
        check_labels(name, positions, shape=(B,), num_classes=T + 1,
                     source=f"the sequence length T={T} (T or more: outside this window, ignored)",
                     hint="use the token index of the answer's first (last) token, 0 ([CLS]) for no answer")
        losses.append(F.cross_entropy(logits.float(), positions, ignore_index=T))
    return (losses[0] + losses[1]) / 2


class BertForQuestionAnswering(PretrainedMixin, nn.Module):
    """Every T_i -> (S·T_i, E·T_i): start and end logits (§4.2; Figure 4c)."""

    hf_architecture = "BertForQuestionAnswering"

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.bert = BertModel(config, add_pooling_layer=False)
        # Always two rows, S and E. (transformers sizes it by config.num_labels, 2 by default.)
        self.qa_outputs = nn.Linear(config.hidden_size, 2)
        self.qa_outputs.apply(lambda m: init_bert_weights(m, config.initializer_range))

    def forward(self, input_ids, token_type_ids=None, attention_mask=None, start_positions=None,
                end_positions=None, **kwargs) -> QuestionAnsweringModelOutput:
        """start_positions, end_positions (B,): token indices of the answer's first and last token
        (0, [CLS], for no answer)."""
        out = self.bert(input_ids, token_type_ids, attention_mask, **kwargs)
        logits = self.qa_outputs(out.last_hidden_state)  # (B, T, H) -> (B, T, 2)
        start_logits, end_logits = logits.unbind(dim=-1)  # (B, T) each
        loss = None
        if start_positions is not None or end_positions is not None:
            loss = span_loss(start_logits, end_logits, start_positions, end_positions)
        return QuestionAnsweringModelOutput(loss, start_logits, end_logits, out.hidden_states, out.attentions)


def best_spans(start_logits, end_logits, *, max_answer_length: int = 30, n_best: int = 20,
               allowed=None) -> list[list[tuple[float, int, int]]]:
    """For each row, up to `n_best` spans (score, i, j), best first, with score = start_i + end_j
    (§4.2), j ≥ i, j - i + 1 ≤ max_answer_length, and both ends where `allowed` (B, T) bool is True
    (the passage's tokens: not the question, [CLS], [SEP] or padding).

    The argmax of the start and the argmax of the end, taken apart, can give an end before the
    start; scoring all T x T pairs inside a band of allowed spans cannot. Worked example, one row of
    [CLS] q [SEP] c c [SEP] whose passage is tokens 3 and 4:

    >>> start = torch.tensor([[1.0, 0.0, 0.0, 0.5, 3.0, 0.0]])
    >>> end = torch.tensor([[1.0, 0.0, 0.0, 2.0, 0.5, 0.0]])
    >>> passage = torch.tensor([[False, False, False, True, True, False]])
    >>> best_spans(start, end, allowed=passage)  # (4, 3) would score 5.0, but ends before it starts
    [[(3.5, 4, 4), (2.5, 3, 3), (1.0, 3, 4)]]
    >>> best_spans(start, end, allowed=passage, max_answer_length=1, n_best=1)
    [[(3.5, 4, 4)]]
    """
    B, T = start_logits.shape
    scores = start_logits.float()[:, :, None] + end_logits.float()[:, None, :]  # (B, T, T): start i, end j
    i, j = torch.arange(T, device=scores.device)[:, None], torch.arange(T, device=scores.device)[None, :]
    valid = (j >= i) & (j - i < max_answer_length)  # (T, T): an upper-triangular band
    if allowed is not None:
        allowed = allowed.to(scores.device).bool()
        valid = valid & allowed[:, :, None] & allowed[:, None, :]  # (B, T, T)
    scores = scores.masked_fill(~valid, float("-inf"))
    top, index = scores.view(B, T * T).topk(min(n_best, T * T), dim=-1)  # (B, n): flat index i·T + j
    return [[(s, k // T, k % T) for s, k in zip(row_scores, row_index) if s != float("-inf")]
            for row_scores, row_index in zip(top.tolist(), index.tolist())]


def predict_answer(start_logits, end_logits, *, threshold: float = 0.0, max_answer_length: int = 30,
                   allowed=None) -> list[tuple[int, int] | None]:
    """Each row's answer span (i, j), or None for "no answer" (SQuAD 2.0, §4.3): "We predict a
    non-null span when ŝ_ij > s_null + τ, where the threshold τ is selected on the dev set to
    maximize F1"; s_null = start_0 + end_0, the span at [CLS]. `threshold` is τ; -inf never
    abstains (SQuAD 1.1). (Google's and transformers' scripts call -τ `null_score_diff_threshold`.)

    With the example of `best_spans` (best span (4, 4) scores 3.5, s_null = 1.0 + 1.0 = 2.0):

    >>> start = torch.tensor([[1.0, 0.0, 0.0, 0.5, 3.0, 0.0]])
    >>> end = torch.tensor([[1.0, 0.0, 0.0, 2.0, 0.5, 0.0]])
    >>> passage = torch.tensor([[False, False, False, True, True, False]])
    >>> predict_answer(start, end, allowed=passage), predict_answer(start, end, allowed=passage, threshold=2.0)
    ([(4, 4)], [None])
    """
    null = (start_logits[:, 0] + end_logits[:, 0]).float().tolist()  # (B,): s_null
    best = best_spans(start_logits, end_logits, max_answer_length=max_answer_length, n_best=1, allowed=allowed)
    return [(spans[0][1], spans[0][2]) if spans and spans[0][0] > s_null + threshold else None
            for spans, s_null in zip(best, null)]
