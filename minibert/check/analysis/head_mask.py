"""The checker of exercise 6.3: a forward pre-hook on the attention's output projection that silences
one head, compared with `minibert.analysis.masked_heads` on a small random layer and on MiniLM."""

from __future__ import annotations

from functools import lru_cache

import torch

from ...analysis import masked_heads
from ...config import BertConfig
from ...model import BertModel
from ..common import ExerciseError, call, minilm_model, minilm_tokenizer, passed, valid_lines


@lru_cache(maxsize=1)
def _models():
    small = BertModel(BertConfig(vocab_size=50, hidden_size=24, num_hidden_layers=2, num_attention_heads=4,
                                 intermediate_size=40, max_position_embeddings=16)).eval()
    g = torch.Generator().manual_seed(63)
    ids = torch.randint(5, 50, (2, 7), generator=g)
    small_batch = dict(input_ids=ids, attention_mask=torch.tensor([[1] * 7, [1] * 5 + [0] * 2]))
    minilm = minilm_model()
    batch = minilm_tokenizer()(list(valid_lines()[:2]), padding=True, truncation=True, max_length=32,
                               return_tensors="pt")
    return [("a random 4-head layer (H = 24, head size 6)", small, small_batch),
            ("all-MiniLM-L6-v2 (12 heads, head size 32)", minilm, dict(batch))]


def _hint(got, model, batch, layer, head):
    """Name the usual mistake that `got` (last hidden states) matches."""
    cfg = model.config
    if head + 1 < cfg.num_attention_heads:
        with masked_heads(model, {layer: [head + 1]}):
            if torch.allclose(got, model(**batch).last_hidden_state, atol=1e-5):
                return "this silenced head + 1: head h owns columns h·head_size to (h + 1)·head_size − 1"
    with masked_heads(model, {layer: [h for h in range(cfg.num_attention_heads) if h != head]}):
        if torch.allclose(got, model(**batch).last_hidden_state, atol=1e-5):
            return "this kept only that head and silenced the others"
    if torch.allclose(got, model(**batch).last_hidden_state, atol=1e-6):
        return ("nothing changed: a pre-hook must return the new input as a tuple (or modify it in place); "
                "returning None leaves the input as it was")
    return ("the context is (B, T, H), the heads side by side on the last axis: zero the last axis's "
            "columns head·head_size to (head + 1)·head_size, leave the tokens (axis 1) alone")


def head_mask_hook(fn) -> None:
    """fn(head, head_size) -> a forward pre-hook for `layer.attention.output` that zeros that head's slice."""
    runs = 0
    with torch.no_grad():
        for what, model, batch in _models():
            cfg = model.config
            for layer, head in [(0, 0), (1, cfg.num_attention_heads - 1), (0, 2)]:
                name = f"{what}: layer {layer}, head {head}"
                hook = call(fn, f"{name}, my_head_mask_hook({head}, {cfg.head_size})", head, cfg.head_size)
                if not callable(hook):
                    raise ExerciseError(f"{name}: expected a function (module, args) -> new args, received {hook!r}")
                handle = model.encoder.layers[layer].attention.output.register_forward_pre_hook(hook)
                try:
                    got = call(model, f"{name}, the model with your hook", **batch).last_hidden_state
                finally:
                    handle.remove()
                with masked_heads(model, {layer: [head]}):
                    expected = model(**batch).last_hidden_state
                if not torch.allclose(got, expected, atol=1e-5):
                    raise ExerciseError(f"{name}: the model's output with your hook differs from the output with "
                                        f"head {head} masked by up to {(got - expected).abs().max().item():.3g}"
                                        f"\n  hint: {_hint(got, model, batch, layer, head)}")
                runs += 1
            # The hook must not hold state between models: a fresh one for another head size still works.
    passed("head_mask_hook", f"{runs} heads silenced, on a random layer and on MiniLM, equal to "
                             "minibert.analysis.masked_heads")
