"""BERT's pieces written from a dict of weights with Hugging Face's names, with switches that make the
mistakes learners make (no token types, a mask on the wrong axis, pre-LN, mean pooling, ...): the
checkers compare a learner's piece with these to name what went wrong. The correct setting of every
switch is its default, and `tests/test_check_capstone.py` holds the defaults equal to transformers."""

from __future__ import annotations

import contextlib
import io
import logging
import math

import torch
import torch.nn.functional as F

ACTIVATIONS = {"gelu": F.gelu, "tanh-gelu": lambda x: F.gelu(x, approximate="tanh"), "relu": F.relu}


def embed(W: dict, input_ids, token_type_ids, eps: float, *, types=True, positions=True, norm=True):
    """(B, T) ids -> (B, T, H): words + token types + positions, then LayerNorm."""
    T = input_ids.shape[1]
    x = W["embeddings.word_embeddings.weight"][input_ids]  # (B, T, H)
    if types:
        x = x + W["embeddings.token_type_embeddings.weight"][token_type_ids]
    if positions:
        x = x + W["embeddings.position_embeddings.weight"][:T]
    if norm:
        x = F.layer_norm(x, x.shape[-1:], W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], eps)
    return x


def _linear(W: dict, name: str, x, transposed=False):
    weight = W[f"{name}.weight"]
    return x @ (weight if transposed else weight.T) + W[f"{name}.bias"]


def attention(W: dict, i: int, x, attention_mask, nh: int, *, scale="head", masked=True, split="heads"):
    """Layer i's multi-head self-attention, its output projection W^O included: (B, T, H) -> (B, T, H).
    scale: "head" (√hs), "hidden" (√H) or "none"; masked: the padded keys masked or not (a mask on
    the queries' axis is the same as none at the real tokens); split: "heads" (view, then transpose),
    "view" (a view to (B, nh, T, hs) and back, no transpose) or "view-in" (a view in, a transpose out)."""
    B, T, H = x.shape
    hs = H // nh
    name = f"encoder.layer.{i}.attention"

    def heads(t):
        if split != "heads":
            return t.reshape(B, nh, T, hs)  # the wrong reshape: heads made of mixed positions
        return t.view(B, T, nh, hs).transpose(1, 2)  # (B, nh, T, hs)

    q, k, v = (heads(_linear(W, f"{name}.self.{p}", x)) for p in ("query", "key", "value"))
    scores = q @ k.transpose(-2, -1)  # (B, nh, T, T)
    scores = scores / {"head": math.sqrt(hs), "hidden": math.sqrt(H), "none": 1.0}[scale]
    if masked:
        scores = scores.masked_fill(attention_mask[:, None, None, :] == 0, float("-inf"))
    context = scores.softmax(-1) @ v  # (B, nh, T, hs)
    context = context.reshape(B, T, H) if split == "view" else context.transpose(1, 2).reshape(B, T, H)
    return _linear(W, f"{name}.output.dense", context)


def layer(W: dict, i: int, x, attention_mask, nh: int, eps: float, *, post_ln=True,
          residual=("attention", "ffn"), act="gelu"):
    """Encoder layer i, post-LN: x = LN(x + attention(x)); x = LN(x + FFN(x)). `residual`: the
    sub-layers whose residual connection is kept."""
    name = f"encoder.layer.{i}"

    def norm(t, which):
        return F.layer_norm(t, t.shape[-1:], W[f"{name}.{which}.LayerNorm.weight"],
                            W[f"{name}.{which}.LayerNorm.bias"], eps)

    def ffn(t):
        return _linear(W, f"{name}.output.dense", ACTIVATIONS[act](_linear(W, f"{name}.intermediate.dense", t)))

    if post_ln:
        x = norm(("attention" in residual) * x + attention(W, i, x, attention_mask, nh), "attention.output")
        return norm(("ffn" in residual) * x + ffn(x), "output")
    x = x + attention(W, i, norm(x, "attention.output"), attention_mask, nh)  # pre-LN: GPT-2's wiring
    return x + ffn(norm(x, "output"))


def head(W: dict, hidden, attention_mask, *, pool="cls", tanh=True, pooler=True):
    """(B, T, H) -> (B, K) logits: the pooled [CLS] vector, then the classifier."""
    if pool == "cls":
        x = hidden[:, 0]
    elif pool == "last":
        x = hidden[:, -1]
    elif pool == "mean":  # over every position, [PAD] included
        x = hidden.mean(1)
    else:  # "real-mean": over the real tokens
        m = attention_mask[..., None].to(hidden.dtype)
        x = (hidden * m).sum(1) / m.sum(1)
    if pooler:
        x = _linear(W, "pooler.dense", x)
        x = torch.tanh(x) if tanh else x
    return _linear(W, "classifier", x)


@contextlib.contextmanager
def quietly():
    """Loading a checkpoint reports what it left out (MiniLM has no classifier; an encoder leaves the
    MLM head unused): expected here, so not shown under the checker's verdict."""
    from transformers.utils import logging as hf_logging

    previous, bars = logging.root.manager.disable, hf_logging.is_progress_bar_enabled()
    logging.disable(logging.WARNING)
    hf_logging.disable_progress_bar()  # "Loading weights": a widget in JupyterLab, which no redirect stops
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        logging.disable(previous)
        if bars:
            hf_logging.enable_progress_bar()
