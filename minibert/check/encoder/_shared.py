"""What the encoder checkers share: a hint added to an error, a tolerant comparison, and
all-MiniLM-L6-v2 with a padded batch of real hidden states."""

from __future__ import annotations

from functools import lru_cache

import torch

from ...hub import minilm_path
from ...model import BertModel
from ..common import ExerciseError, minilm_tokenizer


def _with_hint(error: ExerciseError, hint: str) -> ExerciseError:
    return ExerciseError(f"{error}\n  hint: {hint}")


def _same(a, b, atol: float = 1e-4) -> bool:
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
            and torch.allclose(a.detach().to(b.dtype), b, atol=atol, rtol=1e-4))


@lru_cache(maxsize=1)
def _minilm():
    """all-MiniLM-L6-v2 (loaded once per kernel): the model, its checkpoint read with safetensors,
    and a padded batch of two real sentence pairs with every hidden state."""
    from safetensors.torch import load_file

    path = minilm_path()
    model = BertModel.from_pretrained(path)  # eval mode: no dropout
    state = load_file(path / "model.safetensors")
    batch = minilm_tokenizer()(["Call me Ishmael.", "BERT is conceptually simple and empirically powerful."],
                      ["Some years ago, never mind how long precisely, I thought I would sail about.",
                       "It obtains new results."], padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch, output_hidden_states=True).hidden_states  # L+1 × (B, T, H)
    key_mask = batch["attention_mask"].bool()[:, None, None, :]  # (B, 1, 1, T)
    assert not key_mask.all(), "the batch must need padding"
    return model, state, hidden, key_mask
