"""Checkers for the exercises of chapter 08, tokens, spans and choices.

    check.align_labels(my_align_labels)      # word labels -> token labels, -100 off the first piece
    check.best_span(my_best_span)            # the best span (i, j) with j ≥ i, in the passage, ≤ max length
    check.choice_logits(my_choice_logits)    # (B, C, T) -> flatten -> one scorer -> (B, C) and a softmax over C
    check.squad_f1(my_squad_f1)              # SQuAD's normalisation and token-multiset F1

Expected values are hand-computed literals first (each case named, with its lesson), then minibert's own
code on random and real cases: `minibert.finetune.features.encode("tagging", ...)`,
`minibert.heads.question_answering.best_spans`, `minibert.heads.BertForMultipleChoice` on the course
model, `minibert.finetune.metrics.squad_f1`. When a result is wrong, the checker also computes the usual
mistakes (a label on every piece or on the last one, [CLS] labelled, words told apart by ##, BERT's
[CLS] id with another tokenizer, an end before the start, a length limit one too long, the choices read
in (C, B) order, a softmax over the batch or exp / sum(exp), one question squeezed to (C,), articles or
punctuation kept, split(" "), characters or sets instead of token multisets...) and names the one that
matches.

`tokens.py` holds 8.1, `best_span.py` 8.2, `choices.py` 8.3, `squad.py` 8.4.
"""

from .best_span import best_span
from .choices import choice_logits
from .squad import squad_f1
from .tokens import align_labels

__all__ = ["align_labels", "best_span", "choice_logits", "squad_f1"]
