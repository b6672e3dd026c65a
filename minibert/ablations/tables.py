"""The paper's four ablation tables (Devlin et al. 2018, §5 and Appendix C.2) as data: for each, its
rows (what is pre-trained or fine-tuned differently) and its columns (what is measured).

    Table 5  the pre-training tasks: MLM + NSP, MLM alone, a left-to-right LM, and that LM with a BiLSTM on top
    Table 6  model size: layers (at H = 128, 2 heads)
    Table 7  feature-based against fine-tuning, on a tagging task: which hidden states feed a BiLSTM
    Table 8  the masking mix: of the 15% selected, how many become [MASK], stay the same, turn random

Every table ends with its positive control (`CONTROL`): the reference row's fine-tuning from random
weights. A column in which the reference row does not beat its control cannot show an ablation.

Each row says which of the paper's rows it stands for (`paper`, read from `minibert.paper`), so the
chapter sets ours beside theirs. Our columns are the course's tasks standing in for the paper's:
next-sentence (a pair task, for MNLI, QNLI and MRPC), sentiment (SST-2) and names (CoNLL-2003 NER).
Where minibert departs: the paper's BiLSTM row also kept its task head; SQuAD is replaced by the
tagging task (both need every token's vector, which is where a left-to-right model lacks context).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import paper


@dataclass(frozen=True)
class Measure:
    """One column: a task fine-tuned (`finetune`), a frozen-feature tagger (`feature`, with its
    combination), or the pre-trained model itself scored on the held-out split (`heldout`), every
    variant under BERT's 80/10/10 (`minibert.pretrain.heldout`), so that their numbers compare."""
    name: str
    kind: str  # "finetune" | "feature" | "heldout"
    task: str | None = None
    combination: str | None = None
    metric: str = ""  # the number reported: accuracy, f1, perplexity


@dataclass(frozen=True)
class Row:
    name: str
    paper: dict  # the paper's row, as minibert.paper stores it
    pretrain: dict = field(default_factory=dict)  # PretrainConfig fields that differ from the budget's
    finetune: dict = field(default_factory=dict)  # FinetuneConfig fields (e.g. bilstm=True)
    combination: str | None = None  # Table 7: the feature-based row's hidden states (None: fine-tuning)

    @property
    def control(self) -> bool:
        """The positive control: the reference row's fine-tuning from fresh weights (no held-out column)."""
        return self.finetune.get("init") == "random"

    def measures(self, table: "Table") -> tuple["Measure", ...]:
        """The columns this row is measured in: a control has no pre-trained model to score held out."""
        return tuple(m for m in table.measures if not (self.control and m.kind == "heldout"))


@dataclass(frozen=True)
class Table:
    number: str
    title: str
    rows: tuple[Row, ...]
    measures: tuple[Measure, ...]
    # our column -> the paper's column it stands in for (keys of the rows in minibert.paper)
    paper_columns: dict = field(default_factory=dict)
    pretrained: bool = True  # False: no pre-training of ours; the budget's `table7_model` is used


NEXT = Measure("next-sentence", "finetune", "next-sentence", metric="accuracy")
SENTIMENT = Measure("sentiment", "finetune", "sentiment", metric="accuracy")
NAMES = Measure("names", "finetune", "names", metric="f1")
NAMES_FEATURES = Measure("names (feature-based)", "feature", "names", "concat-last-four", metric="f1")
PERPLEXITY = Measure("held-out perplexity", "heldout", metric="perplexity")


def _paper_row(table: list[dict], **match) -> dict:
    (row,) = [r for r in table if all(r[k] == v for k, v in match.items())]
    return row


BERT = {"objective": "mlm", "nsp": True}  # the budget's defaults, spelt out: the reference row
# The positive control beside every reference row: the same fine-tuning from random weights (the BERT
# row's architecture and vocabulary, no pre-training). A column where the reference does not beat it
# shows no pre-training at all, so it cannot show one pre-training choice against another.
CONTROL = "Random init (control)"


def _control(pretrain: dict | None = None) -> Row:
    return Row(CONTROL, {}, pretrain if pretrain is not None else BERT, {"init": "random"})


TABLE_5 = Table("5", "Pre-training tasks", (
    Row("BERT (MLM + NSP)", _paper_row(paper.TABLE_5, system="BERT-BASE"), BERT),
    Row("No NSP", _paper_row(paper.TABLE_5, system="No NSP"), {"nsp": False}),
    Row("LTR & No NSP", _paper_row(paper.TABLE_5, system="LTR & No NSP"), {"objective": "ltr", "nsp": False}),
    Row("+ BiLSTM", _paper_row(paper.TABLE_5, system="+ BiLSTM"), {"objective": "ltr", "nsp": False},
        {"bilstm": True}),
    _control(),
), (NEXT, SENTIMENT, NAMES, PERPLEXITY),
    {"next-sentence": ("mnli_m", "qnli", "mrpc"), "sentiment": ("sst_2",), "names": ("squad_f1",)})

# Depth at a fixed width (the budget's H = 128, 2 heads): our stand-ins for the paper's sizes. The
# paper's rows are matched by their order, smallest first, and shown beside ours, not as twins.
TABLE_6 = Table("6", "Model size", tuple(
    Row(f"L={layers}, H=128, A=2", paper_row, {"model_overrides": {"num_hidden_layers": layers}} if layers != 2 else BERT)
    for layers, paper_row in zip((1, 2, 4), (paper.TABLE_6[0], paper.TABLE_6[2], paper.TABLE_6[3]))
) + (_control(),), (PERPLEXITY, NEXT, SENTIMENT),
    {"held-out perplexity": ("lm_ppl",), "next-sentence": ("mnli_m", "mrpc"), "sentiment": ("sst_2",)})

TABLE_7 = Table("7", "Feature-based against fine-tuning", (
    Row("Fine-tuning", _paper_row(paper.TABLE_7, system="BERT-BASE")),
    Row("Embeddings", _paper_row(paper.TABLE_7, system="Embeddings"), combination="embeddings"),
    Row("Second-to-Last Hidden", _paper_row(paper.TABLE_7, system="Second-to-Last Hidden"), combination="second-to-last"),
    Row("Last Hidden", _paper_row(paper.TABLE_7, system="Last Hidden"), combination="last"),
    Row("Weighted Sum Last Four Hidden", _paper_row(paper.TABLE_7, system="Weighted Sum Last Four Hidden"),
        combination="weighted-sum-last-four"),
    Row("Concat Last Four Hidden", _paper_row(paper.TABLE_7, system="Concat Last Four Hidden"),
        combination="concat-last-four"),
    Row("Weighted Sum All Layers", _paper_row(paper.TABLE_7, system="Weighted Sum All 12 Layers"),
        combination="weighted-sum-all"),
    _control({}),
), (NAMES,), {"names": ("dev_f1",)}, pretrained=False)


def _mix_row(mask: float, same: float, random: float) -> Row:
    row = _paper_row(paper.TABLE_8, mask=mask, same=same, random=random)
    settings = BERT if (mask, same, random) == (0.8, 0.1, 0.1) else {"mask_proportions": (mask, random, same)}
    return Row(f"MASK {mask:.0%} · SAME {same:.0%} · RND {random:.0%}", row, settings)


TABLE_8 = Table("8", "The masking mix", tuple(_mix_row(r["mask"], r["same"], r["random"]) for r in paper.TABLE_8)
                + (_control(),),
                (NEXT, NAMES, NAMES_FEATURES, PERPLEXITY),
                {"next-sentence": ("mnli_fine_tune",), "names": ("ner_fine_tune",),
                 "names (feature-based)": ("ner_feature_based",)})

TABLES: dict[str, Table] = {t.number: t for t in (TABLE_5, TABLE_6, TABLE_7, TABLE_8)}
