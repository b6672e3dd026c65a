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


def _head(W: dict, hidden, *, act=F.gelu, norm=True, bias=True):
    x = act(hidden @ W["cls.predictions.transform.dense.weight"].T + W["cls.predictions.transform.dense.bias"])
    if norm:
        x = F.layer_norm(x, x.shape[-1:], W["cls.predictions.transform.LayerNorm.weight"],
                         W["cls.predictions.transform.LayerNorm.bias"], 1e-12)
    logits = x @ W["bert.embeddings.word_embeddings.weight"].T  # the decoder is the word embeddings, tied
    return logits + W["cls.predictions.bias"] if bias else logits


MISTAKES = [
    ("the transform's GELU is missing: dense, GELU, then LayerNorm", dict(act=lambda x: x)),
    ("the transform's activation is ReLU: BERT's is GELU", dict(act=F.relu)),
    ("the transform's LayerNorm is missing: dense, GELU, then LayerNorm", dict(norm=False)),
    ("the bias per vocabulary entry (cls.predictions.bias) is missing", dict(bias=False)),
]


def _expected(hidden) -> torch.Tensor:
    import transformers

    with quietly():
        model = transformers.BertForPreTraining.from_pretrained(COURSE).eval()
    with torch.no_grad():
        return model.cls.predictions(hidden)


def _hidden() -> torch.Tensor:
    from ...model import BertModel
    from ...tokenizer import Tokenizer

    rows = Tokenizer.from_pretrained(COURSE).encode_batch(SENTENCES, padding=True, return_tensors="pt")
    with torch.no_grad():
        with quietly():
            model = BertModel.from_pretrained(COURSE)
        return model(**rows).last_hidden_state  # (B, T, H)


def mlm_logits(fn) -> None:
    """`fn(hidden, weights) -> (B, T, V)`: the MLM head's logits at every position, from the weights."""
    W = course_weights()
    hidden = _hidden()
    kept = hidden.clone()
    given = dict(W)
    if "cls.predictions.decoder.weight" in given:
        raise AssertionError("the course model stores its decoder tied: no cls.predictions.decoder.weight")
    try:
        got = fn(hidden, given)
    except NotImplementedError:
        raise
    except KeyError as e:
        raise ExerciseError(f"your function looked for {e} in the weights, which the course model does not hold"
                            "\n  hint: the decoder is tied to the word embeddings (bert.embeddings.word_embeddings."
                            "weight, (V, H)): BERT stores no separate decoder matrix") from e
    except Exception as e:  # the learner's bug, shown with what it was given
        raise ExerciseError(f"on the course model's hidden states {tuple(hidden.shape)}, your function raised "
                            f"{type(e).__name__}: {e}") from e
    if not torch.equal(hidden, kept):
        raise ExerciseError("your function changed the hidden states it was given; compute new tensors")
    expected = _expected(hidden)
    if isinstance(got, torch.Tensor) and got.shape == expected.shape and not torch.allclose(got, expected, atol=1e-4):
        for hint, switches in MISTAKES:
            if torch.allclose(got, _head(W, hidden, **switches), atol=1e-4):
                raise ExerciseError(f"the logits are not BERT's\n  hint: {hint}")
    expect_close("the logits at every position of two sentences from the course model", got, expected, atol=1e-4,
                 hint="dense, GELU, LayerNorm, then @ word_embeddings.T + cls.predictions.bias")
    passed("mlm_logits", f"the logits over all {expected.shape[-1]:,} pieces agree with transformers' "
                         "BertForPreTraining on the course model")
