"""Pre-training recipes: every setting of a run in one dataclass, and named presets of it.

    cfg = recipe("tiny", max_steps=200, lr=1e-3)          # a preset with overrides
    cfg = recipe("base")                                    # the paper's BERT-BASE, phase 1

The presets run from a notebook-sized CPU run to the paper's recipe (Devlin et al. 2018, A.2):
batch 256 sequences, 1,000,000 steps, Adam with lr 1e-4, β1 0.9, β2 0.999, L2 weight decay
0.01, 10,000 warm-up steps then linear decay, dropout 0.1, GELU; "to speed up pre-training, we
pre-train the model with sequence length of 128 for 90% of the steps. Then, we train the rest 10%
of the steps of sequence of 512". So BASE and LARGE are two presets each: `base` (900k steps at
128 tokens) and `base-512` (100k steps at 512, starting from `base`'s weights).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..config import (BERT_RULES, PRESETS, BertConfig, ConfigError, Rule, above, at_least, check_settings, did_you_mean,
                      each, one_of, within)
from ..training.cli import LOOP_RULES


@dataclass
class PretrainConfig:
    # --- the model
    model: str = "tiny"  # a size from minibert.PRESETS, or the path of a config.json
    model_overrides: dict = field(default_factory=dict)  # e.g. {"hidden_dropout_prob": 0.0}
    init_from: str | None = None  # weights only (optimizer and schedule start afresh), for phase 2
    # --- the data: a corpus in BERT's format (a sentence per line, a blank line between documents)
    train_corpus: str = "data/corpus/train.txt"
    valid_corpus: str = "data/corpus/valid.txt"
    vocab: str = "train"  # "train": WordPiece trained on train_corpus; "bert-uncased": BERT's 30,522; or a vocab.txt
    vocab_size: int = 8192  # for vocab="train"
    lowercase: bool = True
    max_seq_length: int = 128
    short_seq_prob: float = 0.1
    dupe_factor: int = 1
    nsp: bool = True  # False: MLM only (the paper's "No NSP" ablation)
    # "mlm": the masked LM; "ltr": a left-to-right LM, predicting every next token with causal
    # attention (the paper's "LTR & No NSP", Table 5; it needs nsp=False)
    objective: str = "mlm"
    masking: str = "dynamic"  # "dynamic": new masks every epoch; "static": the same masks every epoch (BERT)
    mlm_probability: float = 0.15
    mask_proportions: tuple[float, float, float] = (0.8, 0.1, 0.1)  # (MASK, RND, SAME): Table 8's rows
    max_predictions: int = 20  # per sequence: 20 at 128 tokens (Google); 80 at 512 is NVIDIA's, ≈ 512 × 0.15
    whole_word: bool = False
    cache_dir: str = "data/cache/pretrain"  # vocabularies and shards, reused across runs
    # --- optimisation (BERT's recipe)
    batch_size: int = 32  # sequences per optimizer step, over all processes and accumulation steps
    grad_accum: int = 1
    max_steps: int = 1000
    lr: float = 1e-3
    warmup_steps: int = 100
    weight_decay: float = 0.01
    adam_betas: tuple[float, float] = (0.9, 0.999)
    adam_eps: float = 1e-6  # Google's AdamWeightDecayOptimizer
    max_grad_norm: float = 1.0
    optimizer: str = "adamw"  # or "deepspeed": the optimizer of the DeepSpeed config (LAMB for large batches)
    seed: int = 0
    # --- speed: none of these changes what a step computes beyond rounding (tests/test_fast_path.py)
    mixed_precision: str = "auto"  # "auto": bf16 autocast on a GPU that has it, else no; or "no", "bf16", "fp16"
    unpad: bool = False  # the encoder runs on the real tokens alone: no FLOP on [PAD] (MosaicBERT)
    fused_adamw: bool | None = None  # torch's fused AdamW kernel; None: on a GPU
    micro_batch_tokens: int | None = None  # at most this many tokens per forward pass: grad_accum is derived
    compile: bool = False  # torch.compile the encoder, batches padded to max_seq_length (static shapes)
    gradient_checkpointing: bool = False  # less memory (one layer's activations, not L), ~1/3 more compute
    # --- evaluation, logging, checkpoints
    out_dir: str = "runs/tiny"
    eval_every: int = 100
    eval_batches: int | None = None  # None: the whole held-out split
    log_every: int = 10
    save_every: int = 500
    keep_last: int = 2
    progress: bool = True
    tensorboard: bool = True
    num_workers: int = 0
    peak_tflops: float | None = None  # the accelerator's peak, for MFU; None: look the GPU up
    export_to: str | None = None  # also copy the final model, tokenizer and card here

    def __post_init__(self):
        self.adam_betas, self.mask_proportions = _floats(self.adam_betas), _floats(self.mask_proportions)
        check_settings(vars(self), RULES, PretrainConfig)
        check_settings(self.model_overrides, BERT_RULES, BertConfig, names=lambda k: f"model_overrides[{k!r}]")
        if self.objective == "ltr" and self.nsp:
            raise ConfigError("objective='ltr' needs nsp=False (the paper's 'LTR & No NSP'): with left-only "
                              "attention [CLS] sees nothing but itself, so NSP has nothing to read; add --no-nsp")
        if self.micro_batch_tokens is not None and self.grad_accum != 1:
            raise ConfigError(f"micro_batch_tokens={self.micro_batch_tokens} derives grad_accum from the sequence "
                              f"length; give one of them, not both (for grad_accum={self.grad_accum}, add "
                              "--micro-batch-tokens none)")
        if self.micro_batch_tokens is not None and self.micro_batch_tokens < self.max_seq_length:
            raise ConfigError(f"micro_batch_tokens={self.micro_batch_tokens} cannot hold one sequence of "
                              f"max_seq_length={self.max_seq_length} tokens")
        if self.batch_size % self.grad_accum:
            raise ConfigError(f"batch_size={self.batch_size} is not divisible by grad_accum={self.grad_accum}")

    def model_config(self, vocab_size: int) -> BertConfig:
        """The BertConfig of this run: a preset or a config.json, the vocabulary's size, overrides."""
        overrides = {**self.model_overrides, "vocab_size": vocab_size}
        if self.objective == "ltr":
            overrides["is_decoder"] = True  # causal attention, kept when the model is fine-tuned (§5.1)
        if self.model in PRESETS:
            config = BertConfig.from_preset(self.model, **overrides)
        elif Path(self.model).is_file():
            config = BertConfig.from_dict({**BertConfig.from_json_file(self.model).to_dict(), **overrides},
                                           require_all=False)
        else:
            raise ConfigError(f"model={self.model!r} is neither a size ({', '.join(PRESETS)}) nor a config.json")
        if config.max_position_embeddings < self.max_seq_length:
            raise ConfigError(f"max_seq_length={self.max_seq_length} exceeds the model's "
                              f"max_position_embeddings={config.max_position_embeddings}")
        return config

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"


def _floats(value):
    """A list (JSON's, argparse's) or tuple of numbers as the tuple of floats the field holds;
    anything else is left for its rule to name."""
    if isinstance(value, (list, tuple)) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
        return tuple(float(x) for x in value)
    return value


# Each setting's rule, one place for `recipe(...)`, `PretrainConfig(...)` and the command line (the
# other fields are checked by their type). The values quoted are Google's (Devlin et al. 2018, A.2).
RULES: dict[str, Rule] = {
    **LOOP_RULES,  # weight_decay, max_grad_norm, mixed_precision, seed: worded in training/cli.py
    "vocab_size": at_least(1, "the size of the WordPiece vocabulary trained for vocab='train'; the course uses 8192"),
    "max_seq_length": at_least(8, "tokens per sequence, [CLS] and [SEP]s included; BERT uses 128, then 512"),
    "short_seq_prob": within(0, 1, "the share of sequences cut shorter, as fine-tuning inputs are; Google uses 0.1",
                             high_in=True),
    "dupe_factor": at_least(1, "how many times the corpus is cut into sequences, each time anew; Google uses 10"),
    "objective": one_of(("mlm", "ltr"), "the training objective: the masked LM, or a left-to-right LM "
                                           "(the paper's 'LTR & No NSP')"),
    "masking": one_of(("dynamic", "static"), "the way positions are masked: anew every epoch, or the same "
                                                  "way every epoch (BERT)"),
    "mlm_probability": within(0, 1, "the share of positions the masked LM predicts; BERT uses 0.15", low_in=False),
    "mask_proportions": Rule("3 shares >= 0 summing to 1",
                             lambda v: each(3, above(0, or_equal=True)).ok(v) and abs(sum(v) - 1) < 1e-6,
                             "the (MASK, RND, SAME) split of the predicted positions, Table 8's rows; "
                             "BERT uses 0.8 0.1 0.1"),
    "max_predictions": at_least(1, "the most positions predicted in a sequence; Google uses 20 at 128 tokens"),
    "batch_size": at_least(1, "sequences per optimizer step, over every process and accumulation step; "
                              "BERT uses 256"),
    "grad_accum": at_least(1, "forward passes per optimizer step (it divides batch_size); 1 unless memory is short"),
    "max_steps": at_least(1, "the number of optimizer steps; BERT uses 1,000,000"),
    "lr": above(0, "the peak learning rate; BERT uses 1e-4"),
    "warmup_steps": at_least(0, "the steps of linear warm-up before the linear decay; BERT uses 10,000"),
    "adam_betas": each(2, within(0, 1), "Adam's pair of decay rates (beta1, beta2); BERT uses 0.9 0.999"),
    "adam_eps": above(0, "Adam's epsilon, added to the denominator; Google uses 1e-6"),
    "optimizer": one_of(("adamw", "deepspeed"), "the optimizer: AdamW, or the DeepSpeed config's (LAMB)"),
    "micro_batch_tokens": at_least(1, "the most tokens of one forward pass (grad_accum is derived from it); "
                                      "none: grad_accum decides"),
    "eval_every": at_least(1, "the steps between two evaluations on the held-out split"),
    "eval_batches": at_least(1, "the number of held-out batches an evaluation reads; none: the whole split"),
    "log_every": at_least(1, "the steps between two lines of the training log"),
    "save_every": at_least(1, "the steps between two checkpoints"),
    "keep_last": at_least(1, "how many checkpoints are kept (the newest)"),
    "num_workers": at_least(0, "the DataLoader's worker processes; 0: the main process reads"),
    "peak_tflops": above(0, "the accelerator's peak TFLOP/s, for MFU; none: the GPU is looked up"),
}

# The presets. CPU ones are sized for a 2-core laptop; the rest are the paper's (Devlin et al., A.2).
RECIPES: dict[str, dict] = {
    # L=2, H=128 on the course corpus with its own 8,192-entry vocab: ~6 steps/s on 2 cores.
    "tiny": dict(model="tiny", out_dir="runs/tiny", max_steps=8000, lr=1e-3, warmup_steps=400,
                 log_every=50, eval_every=250, save_every=1000),
    # L=4, H=256: ~5x the compute of tiny per token.
    "mini": dict(model="mini", out_dir="runs/mini", max_steps=1500, lr=5e-4, warmup_steps=150,
                 eval_every=150, save_every=500),
    # micro_batch_tokens: phase 1's whole batch (256 × 128) in one pass per GPU; phase 2 (512 tokens)
    # then runs 64 sequences per pass on one GPU and accumulates 4 (estimated to fit 80 GB; lower it
    # for a smaller GPU: the batch, and so the run, stays the same).
    "base": dict(model="base", out_dir="runs/base", vocab="bert-uncased", batch_size=256,
                 max_steps=900_000, lr=1e-4, warmup_steps=10_000, max_seq_length=128, max_predictions=20,
                 micro_batch_tokens=32_768,
                 eval_every=10_000, eval_batches=100, log_every=100, save_every=10_000, keep_last=3),
    "large": dict(model="large", out_dir="runs/large", vocab="bert-uncased", batch_size=256,
                  max_steps=900_000, lr=1e-4, warmup_steps=10_000, max_seq_length=128, max_predictions=20,
                  micro_batch_tokens=32_768,
                  eval_every=10_000, eval_batches=100, log_every=100, save_every=10_000, keep_last=3),
}
# The course's own pre-trained model (models/course, used by later chapters): the tiny sizes in
# BERT's two phases, found by measurement at equal CPU time (results/pretrain/recipe-search.json).
# Phase 1 reads 32-token sequences, 256 a step, at lr 3e-3: on 128 tokens, batch 32, a 2-core run
# stays on the unigram plateau (it answers "the"). No NSP, no dropout (Cramming; RoBERTa): neither
# pays at this size and budget. Phase 2 learns positions 32-127 from phase 1's weights. About 37 +
# 9 minutes on 2 cores. Export is a step of its own: `--export-to models/course`.
_LEAN = dict(model="tiny", nsp=False, model_overrides={"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0})
RECIPES["course"] = dict(**_LEAN, out_dir="runs/course", max_seq_length=32, max_predictions=5, batch_size=256,
                         max_steps=11_000, lr=3e-3, warmup_steps=550, log_every=50, eval_every=1000, save_every=1000)
RECIPES["course-128"] = dict(**_LEAN, out_dir="runs/course-128", init_from="runs/course/final", max_seq_length=128,
                             max_predictions=20, batch_size=32, max_steps=5000, lr=1e-3, warmup_steps=250,
                             log_every=50, eval_every=500, save_every=1000)
# Task-adaptive (Gururangan et al. 2020): the course model's masked LM goes on over the sentiment
# task's 10,000 training snippets, labels left out (`python -m minibert.tasks text sentiment`; never
# dev or test), about 10 passes, at the snippets' own length. Held out: the course corpus's valid.txt.
RECIPES["course-sentiment"] = dict(**_LEAN, out_dir="runs/course-sentiment", init_from="models/course",
                                   vocab="models/course", train_corpus="data/tasks/sentiment/train.txt",
                                   max_seq_length=64, max_predictions=10, batch_size=64, max_steps=1500, lr=1e-3,
                                   warmup_steps=100, log_every=50, eval_every=250, save_every=1500)
for _size in ("base", "large"):  # phase 2: 10% of the steps at 512 tokens, from phase 1's weights
    RECIPES[f"{_size}-512"] = {**RECIPES[_size], "out_dir": f"runs/{_size}-512", "max_steps": 100_000,
                               "max_seq_length": 512, "max_predictions": 80,
                               "init_from": f"runs/{_size}/final"}


def recipe(name: str, **overrides) -> PretrainConfig:
    """A preset by name, with fields replaced; unknown names and fields are errors that say why."""
    if name not in RECIPES:
        raise ConfigError(f"unknown config {did_you_mean(name, RECIPES)}; the presets are {', '.join(RECIPES)}")
    known = {f.name for f in dataclasses.fields(PretrainConfig)}
    unknown = [k for k in overrides if k not in known]
    if unknown:
        raise ConfigError(f"unknown setting(s): {', '.join(did_you_mean(k, known) for k in unknown)}")
    return PretrainConfig(**{**RECIPES[name], **overrides})
