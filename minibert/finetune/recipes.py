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

from ..config import ConfigError
from ..paper import FINETUNING

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
        checks = {"init": self.init in ("pretrained", "random"), "eval_split": self.eval_split in EVAL_SPLITS,
                  "sample": self.sample >= 0,
                  "batch_size": self.batch_size >= 1, "epochs": self.epochs >= 1, "lr": self.lr > 0,
                  "warmup_proportion": 0 <= self.warmup_proportion < 1, "max_seq_length": self.max_seq_length >= 8,
                  "doc_stride": self.doc_stride >= 1, "log_every": self.log_every >= 1,
                  "mixed_precision": self.mixed_precision in ("auto", "no", "bf16", "fp16")}
        for name in ("max_train_examples", "max_eval_examples"):
            checks[name] = getattr(self, name) is None or getattr(self, name) >= 1
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            raise ConfigError("invalid setting(s): " + ", ".join(f"{n}={getattr(self, n)!r}" for n in bad)
                              + " (see `python -m minibert.finetune --help`; init: pretrained|random; "
                              f"eval_split: {'|'.join(EVAL_SPLITS)}; sample: 0, 1, ...)")
        if self.sample and self.max_train_examples is None:
            raise ConfigError(f"sample={self.sample} draws another sample of max_train_examples examples; "
                              "give --max-train-examples too (without it every run trains on the whole split)")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"


def model_folder(name: str) -> str:
    """The folder (or Hub id) behind a model name: the course's names, else `name` itself."""
    if name == "minilm":
        from ..hub import minilm_path
        return str(minilm_path())
    if name == "course":
        folder = Path(__file__).resolve().parents[2] / "models" / "course"
        if not (folder / "config.json").is_file():
            raise FileNotFoundError(f"the course model is not at {folder}; it ships with the repository")
        return str(folder)
    return name


def grid(base: FinetuneConfig, space: dict | None = None) -> list[FinetuneConfig]:
    """Every combination of `space` (default: A.3's batch sizes, learning rates and epochs) on `base`."""
    space = GRID if space is None else space
    names = list(space)
    return [dataclasses.replace(base, **dict(zip(names, values))) for values in itertools.product(*space.values())]
