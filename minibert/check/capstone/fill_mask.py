"""The checker of exercise 11.5: the masked-LM head from the course model's weights, by Hugging Face
name: transform (dense, GELU, LayerNorm), then the decoder tied to the word embeddings, plus a bias
per vocabulary entry; compared with transformers' BertForPreTraining loaded from `models/course`."""

from __future__ import annotations

import functools

import torch
import torch.nn.functional as F

from ...repository import MODELS
from ..common import ExerciseError, expect_close, passed
from .reference import quietly

COURSE = MODELS / "course"
SENTENCES = ["the [MASK] of the united states.", "she [MASK] to the station and took the train."]


@functools.lru_cache(maxsize=1)
def course_weights() -> dict:
    from safetensors.torch import load_file

    if not (COURSE / "model.safetensors").is_file():
        raise FileNotFoundError(f"the course model is not at {COURSE}; it ships with the repository")
    return load_file(str(COURSE / "model.safetensors"))


def _head(W: dict, hidden, *, act=F.gelu, norm=True, bias=True, eps=1e-12, out="logits"):
    x = act(hidden @ W["cls.predictions.transform.dense.weight"].T + W["cls.predictions.transform.dense.bias"])
    if norm:
        x = F.layer_norm(x, x.shape[-1:], W["cls.predictions.transform.LayerNorm.weight"],
                         W["cls.predictions.transform.LayerNorm.bias"], eps)
    logits = x @ W["bert.embeddings.word_embeddings.weight"].T  # the decoder is the word embeddings, tied
    logits = logits + W["cls.predictions.bias"] if bias else logits
    return logits.softmax(-1) if out == "probs" else logits


MISTAKES = [
    ("the transform's GELU is missing: dense, GELU, then LayerNorm", dict(act=lambda x: x)),
    ("the transform's activation is ReLU: BERT's is GELU", dict(act=F.relu)),
    ("the transform's LayerNorm is missing: dense, GELU, then LayerNorm", dict(norm=False)),
    ("the bias per vocabulary entry (cls.predictions.bias) is missing", dict(bias=False)),
    ("the transform's LayerNorm has eps 1e-5 (nn.LayerNorm's default); BERT's is 1e-12, which counts when the "
     "LayerNorm's input varies little", dict(eps=1e-5)),
    ("this is the tanh approximation of GELU; the course model's config says \"gelu\", the exact one "
     "(F.gelu without approximate=)", dict(act=lambda x: F.gelu(x, approximate="tanh"))),
    ("these are probabilities (a softmax over the vocabulary); the head returns the logits", dict(out="probs")),
]


@functools.lru_cache(maxsize=1)
def _transformers_head():
    import transformers

    with quietly():
        return transformers.BertForPreTraining.from_pretrained(COURSE).eval().cls.predictions


def _expected(hidden) -> torch.Tensor:
    with torch.no_grad():
        return _transformers_head()(hidden)


def _hidden() -> torch.Tensor:
    from ...model import BertModel
    from ...tokenizer import Tokenizer

    rows = Tokenizer.from_pretrained(COURSE).encode_batch(SENTENCES, padding=True, return_tensors="pt")
    with torch.no_grad():
        with quietly():
            model = BertModel.from_pretrained(COURSE)
        return model(**rows).last_hidden_state  # (B, T, H)


HEAD_KEYS = ("cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias",
             "cls.predictions.transform.LayerNorm.weight", "cls.predictions.transform.LayerNorm.bias",
             "bert.embeddings.word_embeddings.weight", "cls.predictions.bias")


def _unchanged(W: dict, given: dict, read: dict) -> None:
    """The weights dict as the function found it: the checkpoint is the caller's, and a fill-mask run calls the
    head again with the same dict (a key popped or replaced there is gone, or converted, for the next call)."""
    changed = sorted(k for k in W if k not in given or given[k] is not W[k]) + sorted(set(given) - set(W))
    if changed:
        raise ExerciseError(f"your function changed the weights dict it was given (keys removed, added or replaced: "
                            f"{changed[:3]}{' ...' if len(changed) > 3 else ''}); read the tensors without "
                            "writing into the dict (weights[name], not weights.pop(name))")
    written = [k for k in HEAD_KEYS if not torch.equal(W[k], read[k])]
    if written:
        W.update(read)  # the cached checkpoint restored for the next check
        raise ExerciseError(f"your function wrote into the weights it was given ({written[0]}, in place); "
                            "compute new tensors (W.T, not W.t_())")


def _case(fn, name: str, W: dict, hidden: torch.Tensor) -> torch.Tensor:
    """fn on one (B, T, H) batch of hidden states, compared with transformers' head; returns its expected logits."""
    kept, given = hidden.clone(), dict(W)
    read = {k: W[k].clone() for k in HEAD_KEYS}  # the tensors the head reads, to see them written in place
    try:
        got = fn(hidden, given)
    except NotImplementedError:
        raise
    except KeyError as e:
        raise ExerciseError(f"your function looked for {e} in the weights, which the course model does not hold"
                            "\n  hint: the decoder is tied to the word embeddings (bert.embeddings.word_embeddings."
                            "weight, (V, H)): BERT stores no separate decoder matrix") from e
    except Exception as e:  # the learner's bug, shown with what it was given
        raise ExerciseError(f"on {name} {tuple(hidden.shape)}, your function raised {type(e).__name__}: {e}") from e
    if not torch.equal(hidden, kept):
        raise ExerciseError("your function changed the hidden states it was given; compute new tensors")
    _unchanged(W, given, read)
    expected = _expected(hidden)
    if isinstance(got, torch.Tensor) and got.shape == expected.shape and got.is_floating_point():
        got_here = got.detach().to(expected.dtype)  # compared in the states' dtype, whatever yours is
        if not torch.allclose(got_here, expected, atol=1e-4):
            for hint, switches in MISTAKES:
                if torch.allclose(got_here, _head(W, hidden, **switches), atol=1e-4):
                    raise ExerciseError(f"{name}: the logits are not BERT's\n  hint: {hint}")
    expect_close(name, got, expected, atol=1e-4,
                 hint="dense, GELU, LayerNorm, then @ word_embeddings.T + cls.predictions.bias")
    if got.dtype != hidden.dtype:  # expect_close compares values only, in the states' dtype
        raise ExerciseError(f"{name}: the values are right, but your logits are {got.dtype} and the hidden states "
                            f"{hidden.dtype}: keep their dtype (the checkpoint's weights are {hidden.dtype} too), as "
                            "transformers' head does; a .double() or a float64 buffer changes it")
    return expected


def mlm_logits(fn) -> None:
    """`fn(hidden, weights) -> (B, T, V)`: the MLM head's logits at every position, from the weights."""
    W = course_weights()
    if "cls.predictions.decoder.weight" in W:
        raise AssertionError("the course model stores its decoder tied: no cls.predictions.decoder.weight")
    hidden = _hidden()
    expected = _case(fn, "the logits at every position of two sentences from the course model", W, hidden)
    # The same states shrunk 100 times: the transform's LayerNorm then sees inputs that vary little, and its eps
    # (1e-12, not nn.LayerNorm's 1e-5) shows in the logits.
    _case(fn, "the same hidden states times 0.01 (the transform's LayerNorm input then varies little)", W,
          hidden * 0.01)
    passed("mlm_logits", f"the logits over all {expected.shape[-1]:,} pieces agree with transformers' "
                         "BertForPreTraining on the course model")
