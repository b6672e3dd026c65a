"""The checker of exercise 3.6: one variable of Google's TensorFlow checkpoint -> its PyTorch key and tensor.

Google's checkpoints (bert_model.ckpt) name variables by TensorFlow scope, `bert/encoder/layer_0/
attention/self/query/kernel`, and store a dense layer's matrix as `kernel`, shaped (in, out); PyTorch's
nn.Linear stores `weight` as (out, in). LayerNorm's scale and shift are `gamma` and `beta`; embedding
tables carry no suffix; Adam's moments (`adam_m`, `adam_v`) and `global_step` are training state.
The rules are those of transformers' `load_tf_weights_in_bert`.
"""

from __future__ import annotations

import re

import numpy as np
import torch

from ...checkpoint import hf_name, minibert_name
from ...model import BertModel
from ..common import ExerciseError, call, passed
from ._shared import _minilm

_TABLES = ("word_embeddings", "position_embeddings", "token_type_embeddings")


def tf_variable(key: str, tensor: torch.Tensor) -> tuple[str, np.ndarray]:
    """The inverse rule, from a Hugging Face BertModel key and tensor to Google's TF name and array."""
    parts = re.sub(r"\blayer\.(\d+)\b", r"layer_\1", key).split(".")
    leaf, array = parts[-1], tensor.detach().numpy()
    if parts[-2] in _TABLES:
        parts = parts[:-1]  # a table: bert/embeddings/word_embeddings
    elif parts[-2] == "LayerNorm":
        parts[-1] = {"weight": "gamma", "bias": "beta"}[leaf]
    elif leaf == "weight":
        parts[-1], array = "kernel", array.T.copy()  # (out, in) -> (in, out)
    return "bert/" + "/".join(parts), array


# Hand cases: small arrays, so a transposition shows in the shape.
_K = np.arange(6, dtype=np.float32).reshape(2, 3)  # a (in=2, out=3) kernel
_HAND = [
    ("bert/encoder/layer_0/attention/self/query/kernel", _K, "encoder.layer.0.attention.self.query.weight", _K.T),
    ("bert/encoder/layer_11/output/LayerNorm/gamma", np.ones(3, np.float32), "encoder.layer.11.output.LayerNorm.weight",
     np.ones(3, np.float32)),
    ("bert/encoder/layer_2/attention/output/LayerNorm/beta", np.full(3, 0.5, np.float32),
     "encoder.layer.2.attention.output.LayerNorm.bias", np.full(3, 0.5, np.float32)),
    ("bert/encoder/layer_10/intermediate/dense/bias", np.arange(3, dtype=np.float32),
     "encoder.layer.10.intermediate.dense.bias", np.arange(3, dtype=np.float32)),
    ("bert/embeddings/word_embeddings", _K, "embeddings.word_embeddings.weight", _K),
    ("bert/embeddings/LayerNorm/gamma", np.ones(2, np.float32), "embeddings.LayerNorm.weight", np.ones(2, np.float32)),
    ("bert/pooler/dense/kernel", _K, "pooler.dense.weight", _K.T),
    ("bert/encoder/layer_0/attention/self/query/kernel/adam_m", _K, None, None),
    ("bert/pooler/dense/bias/adam_v", np.zeros(3, np.float32), None, None),
    ("global_step", np.array(1000, dtype=np.int64), None, None),
    # A float64 array (a checkpoint written from numpy's default dtype) stays float64: only the layout changes.
    ("bert/encoder/layer_0/output/dense/bias", np.array([0.1, 0.2]), "encoder.layer.0.output.dense.bias",
     np.array([0.1, 0.2])),
]


def _as_tensor(value):
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value))
    return value if isinstance(value, torch.Tensor) else None


def _name_hint(name: str, got: str, expected: str) -> str:
    if got.startswith("bert."):
        return "drop the `bert/` scope: BertModel's keys start at embeddings., encoder., pooler."
    if "layer_" in got:
        return "TensorFlow's `layer_3` is PyTorch's `layer.3` (an nn.ModuleList index)"
    if "/" in got:
        return "TensorFlow separates scopes with `/`, PyTorch with `.`"
    if got.endswith(".kernel"):
        return "a dense layer's `kernel` is nn.Linear's `weight`"
    if got.endswith((".gamma", ".beta")):
        return "LayerNorm's `gamma` is its `weight` (the scale), `beta` its `bias` (the shift)"
    if expected.endswith(".weight") and got == expected.rsplit(".", 1)[0]:
        return "an embedding table is an nn.Embedding: its key ends in `.weight`"
    if expected.endswith("LayerNorm.weight") and got.endswith("LayerNorm.bias") or \
            expected.endswith("LayerNorm.bias") and got.endswith("LayerNorm.weight"):
        return "gamma and beta swapped: gamma (the scale) is the weight, beta (the shift) the bias"
    return "replace `/` by `.`, `layer_N` by `layer.N`, kernel/gamma by weight, beta by bias; tables get `.weight`"


def _case(fn, name: str, value, expected_key, expected_value) -> None:
    given = value.copy()
    case = f"my_tf_to_pytorch({name!r}, array of shape {tuple(value.shape)})"
    got = call(fn, case, name, given)
    if not np.array_equal(given, value):
        raise ExerciseError(f"{case}: your function changed the array it was given\n  hint: return a new array "
                            "or tensor (value.T is a view: np.ascontiguousarray(value.T) or torch.tensor(value.T))")
    if expected_key is None:
        if got is not None:
            raise ExerciseError(f"{case}: expected None (this is training state, not a weight of the model), "
                                f"received {got!r:.200}\n  hint: Adam's moments (names ending in adam_m or adam_v) "
                                "and global_step have no place in the model; return None for them")
        return
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        raise ExerciseError(f"{case}: expected a pair (key, tensor), received {type(got).__name__}: {got!r:.200}")
    key, tensor = got
    if key != expected_key:
        raise ExerciseError(f"{case}: expected the key {expected_key!r}, received {key!r}\n  hint: "
                            + _name_hint(name, str(key), expected_key))
    tensor, expected = _as_tensor(tensor), torch.from_numpy(np.ascontiguousarray(expected_value))
    if tensor is None:
        raise ExerciseError(f"{case}: the second element must be a tensor (or a numpy array), "
                            f"received {type(got[1]).__name__}")
    if tensor.shape == expected.shape and tensor.dtype != expected.dtype:
        raise ExerciseError(f"{case}: expected a {expected.dtype} tensor (the array's dtype), received "
                            f"{tensor.dtype}\n  hint: keep the array's dtype, only the layout changes: "
                            "torch.tensor(value) or torch.from_numpy(value), without dtype= (a cast to float32 "
                            "rounds float64 values)")
    if tensor.shape != expected.shape or not torch.equal(tensor.to(expected.dtype), expected):
        if tensor.dim() == 2 and tensor.shape == expected.T.shape and torch.equal(tensor.to(expected.dtype), expected.T):
            hint = ("a dense layer's kernel is stored (in_features, out_features); nn.Linear's weight is "
                    "(out_features, in_features): transpose it" if name.endswith("kernel") else
                    "an embedding table is stored as nn.Embedding stores it, (entries, H): do not transpose it")
        else:
            hint = "the values must be the array's, in nn.Linear's / nn.Embedding's layout"
        raise ExerciseError(f"{case}: expected a tensor of shape {tuple(expected.shape)}, received shape "
                            f"{tuple(tensor.shape)}" + ("" if tensor.shape != expected.shape else " with other values")
                            + f"\n  hint: {hint}")


def tf_to_pytorch(fn) -> None:
    """fn(name, array) -> (Hugging Face key, tensor in PyTorch's layout), or None for training state."""
    for name, value, key, expected in _HAND:
        _case(fn, name, value, key, expected)
    model, state, _, _ = _minilm()
    converted = {}
    for key, tensor in model.state_dict().items():
        key = hf_name(key)
        name, array = tf_variable(key, tensor)
        _case(fn, name, array, key, tensor.numpy())
        got = fn(name, array.copy())
        converted[key] = _as_tensor(got[1]).to(tensor.dtype)
    fresh = BertModel(model.config)
    fresh.load_state_dict({minibert_name(k): v for k, v in converted.items()})  # strict: every key, once
    passed("tf_to_pytorch", f"{len(_HAND)} hand-computed cases and all {len(converted)} variables of "
                            "all-MiniLM-L6-v2 written as a TensorFlow checkpoint come back under transformers' "
                            "names and layouts, and load strictly into minibert.BertModel")
