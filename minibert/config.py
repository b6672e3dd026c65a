"""BertConfig: the hyper-parameters of a BERT, named exactly as in Google's `bert_config.json`.

Because the names match, Google's released configs load with `BertConfig(**json.load(f))`, and
Hugging Face `config.json` files (Google's fields plus bookkeeping) load with
`BertConfig.from_json_file(path)`.

Presets follow the 24 small BERTs (Turc et al. 2019, "Well-Read Students Learn Better") and the
paper's BASE and LARGE (Devlin et al. 2018, section 3): heads = H/64, feed-forward = 4H.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from dataclasses import dataclass
from pathlib import Path

# name: (num_hidden_layers L, hidden_size H)
PRESETS: dict[str, tuple[int, int]] = {
    "tiny": (2, 128),
    "mini": (4, 256),
    "small": (4, 512),
    "medium": (8, 512),
    "base": (12, 768),
    "large": (24, 1024),
}

HIDDEN_ACTS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "relu")
PROBLEM_TYPES = (None, "single_label_classification", "regression", "multi_label_classification")

# Fields that Hugging Face writes into config.json but that do not change a BERT encoder, so a
# real config.json loads as is. Anything else unknown is an error (likely a typo).
_HF_BOOKKEEPING = {
    "architectures", "model_type", "transformers_version", "dtype", "torch_dtype", "use_cache",
    "gradient_checkpointing", "bos_token_id", "eos_token_id", "sep_token_id",
    "output_past", "finetuning_task",
    "return_dict", "output_hidden_states", "output_attentions", "torchscript", "tokenizer_class",
    "prefix", "task_specific_params", "chunk_size_feed_forward", "directionality",
    "pooler_fc_size", "pooler_num_attention_heads", "pooler_num_fc_layers", "pooler_size_per_head",
    "pooler_type",
}
# HF fields that would change the architecture: accepted only at the value plain BERT has.
_HF_MUST_EQUAL = {
    "position_embedding_type": "absolute",
    "add_cross_attention": False,
    "tie_word_embeddings": True,
}


class ConfigError(ValueError):
    """A config that does not describe a BERT minibert can build."""


def did_you_mean(name: str, known, quote: bool = True) -> str:
    """A misspelt name with the closest known one: "'hiden_size' (did you mean 'hidden_size'?)";
    quote=False for flags, as a shell shows them: "--max-stpes (did you mean --max-steps?)"."""
    q = repr if quote else str
    match = difflib.get_close_matches(name, known, 1)
    return f"{q(name)} (did you mean {q(match[0])}?)" if match else q(name)


@dataclass
class BertConfig:
    # The eleven fields of Google's bert_config.json (defaults: BERT-BASE, uncased vocab).
    vocab_size: int = 30522
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    hidden_act: str = "gelu"
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    initializer_range: float = 0.02
    # Google's TF code hard-codes 1e-12; Hugging Face made it a field.
    layer_norm_eps: float = 1e-12
    pad_token_id: int = 0
    # Left-only (causal) attention: token i sees tokens 0..i. Not BERT, but the paper's
    # "LTR & No NSP" ablation (Table 5), a GPT-style model; transformers reads the same field.
    is_decoder: bool = False
    # A task head's settings, with transformers' names (config.json round-trips both ways): its
    # classes and their names, the dropout before it (None: hidden_dropout_prob, as BERT), and the
    # loss its labels call for (None: regression if num_labels == 1, else single-label).
    num_labels: int | None = None  # None: len(id2label), else 2 (transformers' default)
    id2label: dict[int, str] | None = None
    label2id: dict[str, int] | None = None
    classifier_dropout: float | None = None
    problem_type: str | None = None

    def __post_init__(self):
        self._check_sizes()
        self._fill_labels()

    def _check_sizes(self):
        for name in ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                     "intermediate_size", "max_position_embeddings", "type_vocab_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        if self.hidden_size % self.num_attention_heads:
            raise ConfigError(
                f"hidden_size ({self.hidden_size}) must be divisible by num_attention_heads "
                f"({self.num_attention_heads}): each head gets hidden_size / heads dimensions")
        if self.hidden_act not in HIDDEN_ACTS:
            raise ConfigError(f"hidden_act {self.hidden_act!r} is not supported; use one of {HIDDEN_ACTS}")
        for name in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ConfigError(f"{name} must be in [0, 1), got {getattr(self, name)!r}")

    def _fill_labels(self):
        """num_labels, id2label and label2id made consistent (JSON keys are strings: made ints)."""
        if self.id2label is not None:
            self.id2label = {int(i): str(name) for i, name in self.id2label.items()}
            if sorted(self.id2label) != list(range(len(self.id2label))):
                raise ConfigError(f"id2label must number its labels 0 ... n-1, got ids {sorted(self.id2label)}")
            if self.num_labels is not None and self.num_labels != len(self.id2label):
                raise ConfigError(f"num_labels={self.num_labels} but id2label names {len(self.id2label)} labels; "
                                  "give one of them, or make them agree")
        n = self.num_labels if self.num_labels is not None else len(self.id2label or {}) or 2
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ConfigError(f"num_labels must be a positive integer (1 for regression), got {n!r}")
        self.num_labels = n
        self.id2label = self.id2label or {i: f"LABEL_{i}" for i in range(n)}
        inverse = {name: i for i, name in self.id2label.items()}
        if self.label2id is not None and {str(k): int(v) for k, v in self.label2id.items()} != inverse:
            raise ConfigError(f"label2id {self.label2id} is not the inverse of id2label {self.id2label}")
        self.label2id = inverse
        if self.problem_type not in PROBLEM_TYPES:
            raise ConfigError(f"problem_type={self.problem_type!r}; use one of {PROBLEM_TYPES}")
        if self.classifier_dropout is not None and not 0.0 <= self.classifier_dropout < 1.0:
            raise ConfigError(f"classifier_dropout must be in [0, 1) or None, got {self.classifier_dropout!r}")

    @property
    def head_size(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @classmethod
    def from_preset(cls, name: str, **overrides) -> BertConfig:
        """`BertConfig.from_preset("mini", vocab_size=8192)`: a Turc et al. size, heads = H/64, FFN = 4H."""
        if name not in PRESETS:
            raise ConfigError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
        layers, hidden = PRESETS[name]
        sizes = dict(num_hidden_layers=layers, hidden_size=hidden,
                     num_attention_heads=hidden // 64, intermediate_size=4 * hidden)
        return cls.from_dict({**sizes, **overrides}, require_all=False)

    @classmethod
    def from_dict(cls, d: dict, *, require_all: bool = True) -> BertConfig:
        """Build from a Google or Hugging Face config dict, with errors that name the bad field."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = [k for k in d if k not in known and k not in _HF_BOOKKEEPING
                   and k not in _HF_MUST_EQUAL and not k.startswith("_")]
        if unknown:
            raise ConfigError(f"unknown config field(s): {', '.join(did_you_mean(k, known) for k in unknown)}")
        for key, plain in _HF_MUST_EQUAL.items():
            if key in d and d[key] != plain:
                raise ConfigError(f"{key}={d[key]!r} is not plain BERT; minibert supports {key}={plain!r} only")
        if d.get("model_type", "bert") != "bert":
            raise ConfigError(f"model_type is {d['model_type']!r}, not 'bert'")
        if require_all:
            google = [f.name for f in dataclasses.fields(cls)][:11]
            missing = [k for k in google if k not in d]
            if missing:
                raise ConfigError(f"config is missing required field(s): {', '.join(missing)}")
        return cls(**{k: v for k, v in d.items() if k in known})

    @classmethod
    def from_json_file(cls, path: str | Path) -> BertConfig:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no config file at {path}")
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise ConfigError(f"{path} is not valid JSON: {e}") from None
        if not isinstance(d, dict):
            raise ConfigError(f"{path} must hold a JSON object, got {type(d).__name__}")
        try:
            return cls.from_dict(d)
        except ConfigError as e:
            raise ConfigError(f"{path}: {e}") from None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_json_file(self, path: str | Path, **extra) -> None:
        """Write config.json; `extra` adds Hugging Face bookkeeping such as `architectures`."""
        d = {**self.to_dict(), "model_type": "bert", **extra}
        Path(path).write_text(json.dumps(d, indent=2, sort_keys=True) + "\n", encoding="utf-8")
