"""The paper's claims that chapter 09 tests: each effect it states in words (§5.1-5.3, C.2), as a
difference between two rows of one of our columns, and the paper's names of its columns.

    EFFECTS        every stated effect: Effect(table, variant, reference, column, claim)
    PAPER_NAMES    the paper's column names ("mnli_m" -> "MNLI-m")
    short(row)     a row's name short enough for a label

The list was fixed from the paper's text before the stored runs were read; frames.py scores it.
"""

from __future__ import annotations

from typing import NamedTuple

PAPER_NAMES = {"mnli_m": "MNLI-m", "qnli": "QNLI", "mrpc": "MRPC", "sst_2": "SST-2", "squad_f1": "SQuAD F1",
               "lm_ppl": "LM ppl", "dev_f1": "CoNLL dev F1", "mnli_fine_tune": "MNLI", "ner_fine_tune": "NER",
               "ner_feature_based": "NER feature-based"}


class Effect(NamedTuple):
    """One effect the paper states: Δ = mean(variant) − mean(reference) in one of our columns."""
    table: str
    variant: str
    reference: str
    column: str
    claim: str  # the paper's words


_BERT, _LTR, _MIX = "BERT (MLM + NSP)", "LTR & No NSP", "MASK 80% · SAME 10% · RND 10%"
_L = ["L=1, H=128, A=2", "L=2, H=128, A=2", "L=4, H=128, A=2"]
EFFECTS = [  # the paper's words (§5.1-5.3, C.2), or its Table 7's numbers where its prose says nothing
    *(Effect("5", "No NSP", _BERT, c, "§5.1: removing NSP hurts performance significantly on QNLI, MNLI, and SQuAD")
      for c in ("next-sentence", "names")),
    *(Effect("5", _LTR, "No NSP", c, "§5.1: the LTR model performs worse than the MLM model on all tasks")
      for c in ("next-sentence", "sentiment", "names")),
    Effect("5", "+ BiLSTM", _LTR, "names", "§5.1: this does significantly improve results on SQuAD"),
    *(Effect("5", "+ BiLSTM", _LTR, c, "§5.1: the BiLSTM hurts performance on the GLUE tasks")
      for c in ("next-sentence", "sentiment")),
    *(Effect("6", big, small, c, "§5.2: larger models lead to a strict accuracy improvement (Table 6: and a lower LM ppl)")
      for small, big in zip(_L, _L[1:]) for c in ("held-out perplexity", "next-sentence", "sentiment")),
    *(Effect("7", a, b, "names", claim) for a, b, claim in (
        ("Concat Last Four Hidden", "Fine-tuning", "§5.3: only 0.3 F1 behind fine-tuning the entire model"),
        ("Concat Last Four Hidden", "Last Hidden", "§5.3: the best performing method concatenates the top four"),
        ("Embeddings", "Last Hidden", "Table 7: the embeddings alone are the weakest features"),
        ("Second-to-Last Hidden", "Last Hidden", "Table 7: the second-to-last layer is better than the last"))),
    Effect("8", "MASK 100% · SAME 0% · RND 0%", _MIX, "names (feature-based)",
           "C.2: using only the MASK strategy was problematic when applying the feature-based approach to NER"),
    *(Effect("8", "MASK 0% · SAME 0% · RND 100%", _MIX, c, "C.2: using only the RND strategy performs much worse")
      for c in ("next-sentence", "names", "names (feature-based)")),
]


def short(row: str) -> str:
    """A row's name short enough for a label: "MASK 80% · SAME 10% · RND 10%" -> "mix 80/10/10"."""
    if row.startswith("MASK"):
        return "mix " + "/".join(part.split()[1].rstrip("%") for part in row.split(" · "))
    return "BERT" if row == _BERT else "random init" if row.startswith("Random init") else row.split(",")[0].replace(" Hidden", "")
