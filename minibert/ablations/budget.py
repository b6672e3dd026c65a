"""One budget for every variant: the same pre-training steps, batch, data and seeds, and the same
fine-tuning, so that a difference between two rows is the row's doing.

    BUDGETS["short"]   what the stored results were made with (results/README.md says how long it took)
    BUDGETS["long"]    4x the pre-training steps of "short", for a machine that can spare a day
    BUDGETS["context"] the course model's recipe in small: models that read context (below)
    BUDGETS["context-long"] "context" with a phase 2 six times as long (below)
    BUDGETS["ci"]      seconds per cell: proves the command, measures nothing

The paper's budget for each variant is BERT-BASE's: 1,000,000 steps of 256 sequences, 90% of them
at 128 tokens and 10% at 512, about 42.6 billion token positions. "short" is 1,200 steps of 32
sequences of 64 tokens (2.5 million positions, 1/17,000 of that) of a 2-layer, 128-wide model on the
course corpus (3.3 million words of training text): about 1/2,700,000 of the paper's pre-training
FLOPs per variant (`minibert.pretrain.flops_per_token`; chapter 09 redoes the sum). Equal steps
are not equal work: the left-to-right LM decodes every position, the masked LM 10 of 64, so a step
of it costs about 2.5x the FLOPs per token.

"short" leaves every variant on the unigram plateau (its BERT row guesses "the" at [MASK]), so its
rows differ by noise. "context" takes the course model's lessons (`minibert.pretrain.recipes`,
results/pretrain/recipe-search.json): phase 1 on 32-token sequences, 256 a step, at lr 3e-3 with no
dropout, then a short phase 2 at 64 tokens from phase 1's weights (the positions fine-tuning reads),
about 33 million token positions per variant. It is meant to make the BERT row beat the
both-neighbour count table at [MASK] positions (`minibert.pretrain.baselines`), and the BERT row is
run first to check that before any other row. Phase 1 alone takes about 17 minutes of 2 free CPU
cores (33,000 tokens a second); the BERT row, seed 0, held out at 32 tokens, predicted 18.1% at
[MASK] after 2,000 of its 4,000 steps, 22.0% after 3,000 and 23.8% at the end of phase 1.

Measured, "context" misses its aim. After phase 2 the BERT row, seed 0, predicts 22.9% at [MASK] on
the 64-token held-out split, where the both-neighbour table predicts 26.9% (the unigram 6.4%, the
left neighbour 16.3%): it reads context, but less than the table does (results/ablations/context,
one cell; 41 minutes of one CPU thread). Phase 2 starts at 12.8% (positions 32 to 63 were never
trained) and was still climbing when its rate ran out (17.8% at step 250, 22.2% at 375, 22.7% at
500). The course model, trained without NSP, was at 27.1% after the same 4,000 steps of phase 1:
with NSP each of a 32-token pair's two segments is about 15 tokens long, so there is less context
to read. "context-long" keeps phase 1 and gives phase 2 3,000 steps, chosen before its result was
seen; its phase 1 at seed 0 is the same run as "context"'s (the same settings), so only phase 2 was
trained for it. It misses too, by less: 25.9% at [MASK] against the same table's 26.9%
(results/ablations/context-long, one cell; 57 million token positions, 67 minutes of one CPU
thread). Phase 2 rose to 23.6% by step 750 and then slowly (24.7%, 25.1%, 25.5% every 750 steps),
so more of phase 2 is not the lever; phase 1 is. The course model (no NSP) was at 27.1% after
4,000 steps of phase 1 and reached 32.4% after all 11,000 and its phase 2: a budget of that length,
about an hour of 2 cores per pre-trained cell and 12 such cells for Table 5 alone, is the smallest
these two measurements support.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from ..config import ConfigError, did_you_mean


@dataclass(frozen=True)
class Budget:
    name: str
    # --- pre-training: each variant is the `tiny` recipe with these settings and the row's changes
    steps: int = 1200
    batch_size: int = 32
    max_seq_length: int = 64
    max_predictions: int = 10  # ≈ 15% of 64, as Google's 20 is of 128
    lr: float = 1e-3
    warmup_steps: int = 120
    vocab_size: int = 8192
    train_corpus: str = "data/corpus/train.txt"
    valid_corpus: str = "data/corpus/valid.txt"
    cache_dir: str = "data/cache/pretrain"
    dropout: float | None = None  # every dropout of the model; None: the preset's (0.1, the paper's)
    # --- phase 2 (phase2_steps=0: none): longer sequences from phase 1's weights, as BERT's last 10% at 512
    phase2_steps: int = 0
    phase2_batch_size: int = 128
    phase2_seq_length: int = 64
    phase2_max_predictions: int = 10
    phase2_lr: float = 1e-3
    eval_batches: int | None = 50  # held-out batches for the perplexity column
    seeds: tuple[int, ...] = (0, 1, 2)  # each seed pre-trains and fine-tunes anew: the spread is the whole pipeline's
    # --- fine-tuning every variant (A.3's shape; the course model's step size, chapter 07)
    train_examples: int | None = 1000
    eval_examples: int | None = None
    finetune_epochs: int = 3
    finetune_batch_size: int = 32
    finetune_lr: float = 1e-3
    feature_epochs: int = 4  # the feature-based tagger, trained with Adam at feature_lr
    feature_lr: float = 1e-3
    # --- Table 7: a real pre-trained BERT, fine-tuned with A.3's settings or read frozen
    table7_model: str = "minilm"
    table7_lr: float = 5e-5
    table7_batch_size: int = 16
    table7_epochs: int = 4
    table7_seq_length: int = 128

    @property
    def seq_length(self) -> int:
        """The length the finished model reads: fine-tuning and the held-out column use it."""
        return self.phase2_seq_length if self.phase2_steps else self.max_seq_length

    def to_dict(self) -> dict:
        """As JSON holds it (tuples become lists), so a stored budget compares equal to its own."""
        return json.loads(json.dumps(dataclasses.asdict(self)))


BUDGETS: dict[str, Budget] = {
    "short": Budget("short"),
    "long": Budget("long", steps=4800, warmup_steps=480),
    "context": Budget("context", steps=4000, batch_size=256, max_seq_length=32, max_predictions=5, lr=3e-3,
                      warmup_steps=200, dropout=0.0, phase2_steps=500, phase2_batch_size=128, phase2_seq_length=64,
                      phase2_max_predictions=10, phase2_lr=1e-3, eval_batches=100),
    "context-long": Budget("context-long", steps=4000, batch_size=256, max_seq_length=32, max_predictions=5, lr=3e-3,
                           warmup_steps=200, dropout=0.0, phase2_steps=3000, phase2_batch_size=128,
                           phase2_seq_length=64, phase2_max_predictions=10, phase2_lr=1e-3, eval_batches=100),
    "ci": Budget("ci", steps=4, batch_size=8, max_seq_length=32, max_predictions=5, warmup_steps=1, vocab_size=2000,
                 eval_batches=2, seeds=(0,), train_examples=16, eval_examples=12, finetune_epochs=1,
                 finetune_batch_size=8, feature_epochs=1, table7_epochs=1, table7_batch_size=8, table7_seq_length=48),
}


def budget(name: str, **overrides) -> Budget:
    """A named budget with fields replaced: budget("ci", train_corpus="small.txt")."""
    if name not in BUDGETS:
        raise ConfigError(f"unknown budget {did_you_mean(name, BUDGETS)}; the budgets are {', '.join(BUDGETS)}")
    known = {f.name for f in dataclasses.fields(Budget)}
    if unknown := [k for k in overrides if k not in known]:
        raise ConfigError(f"unknown budget field(s): {', '.join(did_you_mean(k, known) for k in unknown)}")
    return dataclasses.replace(BUDGETS[name], **overrides)
