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
import numbers
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

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
    "gradient_checkpointing", "bos_token_id", "eos_token_id", "sep_token_id", "output_past", "finetuning_task",
    "return_dict", "output_hidden_states", "output_attentions", "torchscript", "tokenizer_class", "prefix",
    "task_specific_params", "chunk_size_feed_forward", "directionality", "pooler_fc_size",
    "pooler_num_attention_heads", "pooler_num_fc_layers", "pooler_size_per_head", "pooler_type",
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


# ---- what a setting may hold: one rule per setting, checked by the Python API and the command line
# alike (`check_settings`), and shown by `--help` (training/cli.py).


@dataclass(frozen=True)
class Rule:
    """What a setting may hold (`text`, `ok`) and what it is (`why`: a noun phrase, a sensible value), for
    "max_grad_norm must be > 0 (got -1.0): it is the clipping threshold ...; BERT uses 1.0"."""
    text: str
    ok: Callable[[Any], bool]
    why: str = ""


def _integer(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)  # True is an int in Python: not here


def _number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _sequence(v, n: int) -> bool:
    return isinstance(v, (tuple, list)) and len(v) == n


def at_least(low: int, why: str = "") -> Rule:
    """An integer >= low."""
    text = {0: "a non-negative integer", 1: "a positive integer"}.get(low, f"an integer >= {low}")
    return Rule(text, lambda v: _integer(v) and v >= low, why)


def above(low: float, why: str = "", *, or_equal: bool = False) -> Rule:
    """A number > low, or >= low (an integer is a number too)."""
    ok = (lambda v: _number(v) and v >= low) if or_equal else (lambda v: _number(v) and v > low)
    return Rule(f"{'>=' if or_equal else '>'} {low:g}", ok, why)


def within(low: float, high: float, why: str = "", *, low_in: bool = True, high_in: bool = False) -> Rule:
    """A number in the interval from low to high, each end in or out: "in [0, 1)"."""
    text = f"in {'[' if low_in else '('}{low:g}, {high:g}{']' if high_in else ')'}"
    return Rule(text, lambda v: (_number(v) and (low <= v if low_in else low < v)
                                 and (v <= high if high_in else v < high)), why)


def each(n: int, rule: Rule, why: str = "") -> Rule:
    """n values, each passing `rule`: each(2, within(0, 1)) reads "2 values, each in [0, 1)"."""
    return Rule(f"{n} values, each {rule.text}", lambda v: _sequence(v, n) and all(map(rule.ok, v)), why)


def one_of(options, why: str = "") -> Rule:
    options = tuple(options)
    return Rule("one of " + ", ".join(map(str, options)), lambda v: v in options, why)


# NumPy's generator, seeded with the others by every run, takes 0 ... 2**32 - 1.
SEED = Rule("an integer in [0, 2**32)", lambda v: _integer(v) and 0 <= v < 2**32,
            "the seed of every random draw of the run; NumPy's generator takes 0 ... 2**32 - 1")


def type_rule(annotation: str) -> Rule | None:
    """The rule a field's type annotation implies (annotations are strings here: `from __future__`)."""
    base = annotation.replace(" | None", "")
    if base.startswith("tuple[float"):
        n = base.count("float")
        return Rule(f"{n} numbers", lambda v: _sequence(v, n) and all(map(_number, v)))
    return {"int": Rule("an integer", _integer), "float": Rule("a number", _number),
            "bool": Rule("true or false", lambda v: isinstance(v, bool)),
            "str": Rule("a string", lambda v: isinstance(v, (str, os.PathLike))),
            "dict": Rule("a dict", lambda v: isinstance(v, dict))}.get(base.split("[")[0])


def setting_problems(values: dict, rules: dict[str, Rule], cls=None, *, names: Callable[[str], str] = str) -> list[str]:
    """What is wrong with `values`, a sentence per setting: each value against its rule and, for the fields
    of dataclass `cls`, its type (None passes where the type allows it). A setting is named as Python
    spells it (`max_grad_norm`) or as `names` does (training.cli.as_flag: `--max-grad-norm`)."""
    annotations = {f.name: f.type for f in dataclasses.fields(cls)} if cls is not None else {}
    problems = []
    for name, value in values.items():
        annotation = annotations.get(name, "")
        if value is None and "None" in annotation:
            continue
        typed, rule = type_rule(annotation), rules.get(name)
        if rule is None and typed is None:
            continue
        wrong_type = typed is not None and not typed.ok(value)
        if not wrong_type and (rule is None or rule.ok(value)):
            continue
        rule = rule or typed
        text = rule.text + (" or None" if "None" in annotation else "")
        kind = type(value).__name__
        got = f"{value!r}, {'an' if kind[0] in 'aeiou' else 'a'} {kind}" if wrong_type else repr(value)
        problems.append(f"{names(name)} must be {text} (got {got})" + (f": it is {rule.why}" if rule.why else ""))
    return problems


def check_settings(values: dict, rules: dict[str, Rule], cls=None, *, names: Callable[[str], str] = str) -> None:
    """`setting_problems`, raised as one ConfigError (a line per bad setting)."""
    if problems := setting_problems(values, rules, cls, names=names):
        raise ConfigError("\n".join(problems))


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
        # Types too: a config.json's "is_decoder": "false" is a non-empty string, so true in Python.
        check_settings(vars(self), BERT_RULES, BertConfig)
        if self.hidden_size % self.num_attention_heads:
            raise ConfigError(
                f"hidden_size ({self.hidden_size}) must be divisible by num_attention_heads "
                f"({self.num_attention_heads}): each head gets hidden_size / heads dimensions")
        if self.pad_token_id >= self.vocab_size:
            raise ConfigError(f"pad_token_id={self.pad_token_id} is outside the vocabulary "
                              f"(vocab_size={self.vocab_size}); BERT's [PAD] is 0")
        self._fill_labels()

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
        self.num_labels = n
        self.id2label = self.id2label or {i: f"LABEL_{i}" for i in range(n)}
        inverse = {name: i for i, name in self.id2label.items()}
        if self.label2id is not None and {str(k): int(v) for k, v in self.label2id.items()} != inverse:
            raise ConfigError(f"label2id {self.label2id} is not the inverse of id2label {self.id2label}")
        self.label2id = inverse

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


# Each field's rule (the rest are checked by their type alone: is_decoder, id2label, label2id).
BERT_RULES: dict[str, Rule] = {
    "vocab_size": at_least(1, "the number of WordPiece entries; BERT's uncased vocabulary has 30522"),
    "hidden_size": at_least(1, "H, the width of every layer; BERT-BASE uses 768"),
    "num_hidden_layers": at_least(1, "L, the number of encoder layers; BERT-BASE uses 12"),
    "num_attention_heads": at_least(1, "A, the attention heads of a layer (hidden_size / A wide); BERT-BASE uses 12"),
    "intermediate_size": at_least(1, "the feed-forward width; BERT uses 4 x hidden_size"),
    "hidden_act": one_of(HIDDEN_ACTS, "the feed-forward's non-linearity; BERT uses gelu"),
    "hidden_dropout_prob": within(0, 1, "the dropout on the embeddings and every sub-layer's output; BERT uses 0.1"),
    "attention_probs_dropout_prob": within(0, 1, "the dropout on the attention probabilities; BERT uses 0.1"),
    "max_position_embeddings": at_least(1, "the longest sequence the position embeddings cover; BERT uses 512"),
    "type_vocab_size": at_least(1, "the number of segments (token types); BERT uses 2"),
    "initializer_range": above(0, "the standard deviation of the initial weights; BERT uses 0.02"),
    "layer_norm_eps": above(0, "the epsilon added to the variance in LayerNorm; BERT uses 1e-12"),
    "pad_token_id": at_least(0, "the id of [PAD]; BERT's vocabularies have 0"),
    "num_labels": at_least(1, "the number of classes of a task head (1: regression)"),
    "classifier_dropout": within(0, 1, "the dropout before a task head (None: hidden_dropout_prob)"),
    "problem_type": one_of(PROBLEM_TYPES[1:], "the loss of a task head (None: regression if num_labels is 1)"),
}
