"""Fine-tuning settings: one dataclass, with the paper's recipe as its defaults (Appendix A.3).

    cfg = FinetuneConfig(task="sentiment", model="minilm")                   # one run
    cfg = FinetuneConfig(task="sentiment", model="course", lr=3e-5, epochs=2)

"The optimal hyperparameter values are task-specific, but we found the following range of possible
values to work well across all tasks: Batch size: 16, 32; Learning rate (Adam): 5e-5, 3e-5, 2e-5;
Number of epochs: 2, 3, 4" (A.3), with dropout 0.1 kept, and, as Google's run_classifier.py,
warm-up over the first 10% of the steps then linear decay, weight decay 0.01, gradient clipping
at 1.0. `GRID` is that range; `sweep.py` runs it with several seeds.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

from ..config import ConfigError, Rule, above, at_least, check_settings, did_you_mean, one_of, within
from ..paper import FINETUNING
from ..repository import MODELS as MODELS_FOLDER
from ..training.cli import LOOP_RULES

# Names for the pre-trained encoders the course ships: the real weights, and its own model.
MODELS = {"minilm": "the installed all-MiniLM-L6-v2 (L6/H384, the real uncased BERT vocabulary)",
          "course": "models/course, the course's own pre-trained BERT (L2/H128, 8,192 entries)"}
EVAL_SPLITS = ("dev", "test", "train-slice")
GRID = dict(batch_size=FINETUNING["batch_sizes"], lr=FINETUNING["learning_rates"], epochs=FINETUNING["epochs"])


@dataclass
class FinetuneConfig:
    # --- what to fine-tune, on what
    task: str = "sentiment"  # a name from minibert.tasks.TASKS
    model: str = "minilm"  # "minilm", "course", a checkpoint folder or a Hugging Face Hub id
    init: str = "pretrained"  # "pretrained": the model's weights; "random": its architecture, fresh weights
    # A checkpoint whose classifier was trained for another number of labels (a model fine-tuned on
    # another task): start a fresh head for this task's labels. Off, it is an error that says so
    # (transformers' ignore_mismatched_sizes).
    ignore_mismatched_heads: bool = False
    freeze_encoder: bool = False  # train the head alone on fixed features (a first look at §5.3's feature-based way)
    bilstm: bool = False  # a fresh BiLSTM between the encoder and the head (Table 5's "LTR & No NSP + BiLSTM")
    data_dir: str | None = None  # the task's files (default: data/tasks/<task> for the course's tasks)
    max_train_examples: int | None = None  # a seeded sample of the training split (None: all of it)
    sample: int = 0  # which sample of max_train_examples: another draw of the same size for each k
    max_eval_examples: int | None = None  # the first n of the dev split (None: all of it)
    # "dev"; "test" only once, for the final number; "train-slice": a seeded fifth of the training
    # examples is held out and scored, the rest trained on (to choose a setting without dev)
    eval_split: str = "dev"
    # --- features
    max_seq_length: int = 128
    doc_stride: int = 128  # spans: tokens between the starts of two windows of a long context
    max_query_length: int = 64
    max_answer_length: int = 30
    # --- optimisation (A.3)
    batch_size: int = 32
    lr: float = 5e-5
    epochs: int = 3
    warmup_proportion: float = 0.1
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    mixed_precision: str = "auto"  # "auto": bf16 on a GPU that has it, else no
    unpad: bool = False  # the encoder on real tokens only (no FLOP on [PAD]); the same logits
    seed: int = 0
    # --- output
    out_dir: str = "runs/finetune"
    log_every: int = 20
    progress: bool = True
    tensorboard: bool = False

    def __post_init__(self):
        check_settings(vars(self), RULES, FinetuneConfig)
        if self.sample and self.max_train_examples is None:
            raise ConfigError(f"sample={self.sample} draws another sample of max_train_examples examples; "
                              "give --max-train-examples too (without it every run trains on the whole split)")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"


# Each setting's rule, one place for `FinetuneConfig(...)` and the command line (the other fields
# are checked by their type). The values quoted are the paper's (A.3) and Google's run_squad.py.
RULES: dict[str, Rule] = {
    **LOOP_RULES,  # weight_decay, max_grad_norm, mixed_precision, seed: worded in training/cli.py
    "init": one_of(("pretrained", "random"), "the encoder's start: its pre-trained weights, or fresh ones "
                                             "(the baseline for what pre-training buys)"),
    "ignore_mismatched_heads": Rule("true or false", lambda v: isinstance(v, bool),
                                    "the switch that gives a fresh head to a checkpoint whose classifier has "
                                    "another label count (transformers' ignore_mismatched_sizes)"),
    "max_train_examples": at_least(1, "the size of a seeded sample of the training split; none: all of it"),
    "sample": at_least(0, "which sample of max_train_examples examples is drawn: 0, 1, ..."),
    "max_eval_examples": at_least(1, "how many of the evaluation split's first examples are scored; none: all"),
    "eval_split": one_of(EVAL_SPLITS, "the split scored: dev; test once, for the final number; or train-slice, a "
                                      "held-out fifth of the training examples"),
    "max_seq_length": at_least(8, "tokens per example, [CLS] and [SEP]s included; BERT uses 128 (384 for SQuAD)"),
    "doc_stride": at_least(1, "the tokens between the starts of two windows of a long context; Google uses 128"),
    "max_query_length": at_least(1, "the most tokens of a question that are kept; Google uses 64"),
    "max_answer_length": at_least(1, "the most tokens of a predicted answer; Google uses 30"),
    "batch_size": at_least(1, "examples per optimizer step; A.3 uses 16 or 32"),
    "lr": above(0, "the peak learning rate; A.3 uses 5e-5, 3e-5 or 2e-5"),
    "epochs": at_least(1, "the passes over the training examples; A.3 uses 2, 3 or 4"),
    "warmup_proportion": within(0, 1, "the share of the steps spent warming up; Google uses 0.1"),
    "log_every": at_least(1, "the steps between two lines of the training log"),
}


def model_folder(name: str) -> str:
    """The folder (or Hub id) behind a model name: the course's names, else `name` itself."""
    if name == "minilm":
        from ..hub import minilm_path
        return str(minilm_path())
    if name == "course":
        folder = MODELS_FOLDER / "course"
        if not (folder / "config.json").is_file():
            raise FileNotFoundError(f"the course model is not at {folder}; it ships with the repository")
        return str(folder)
    if not Path(name).expanduser().exists() and (hint := did_you_mean(name, MODELS)) != repr(name):
        raise ConfigError(f"model {hint} is not a folder, nor one of the course's names ({', '.join(MODELS)}); "
                          "give one of them, a checkpoint folder or a Hugging Face Hub id")  # misspelt: not sent to the Hub
    return name


def grid(base: FinetuneConfig, space: dict | None = None) -> list[FinetuneConfig]:
    """Every combination of `space` (default: A.3's batch sizes, learning rates and epochs) on `base`."""
    space = GRID if space is None else space
    names = list(space)
    return [dataclasses.replace(base, **dict(zip(names, values))) for values in itertools.product(*space.values())]
