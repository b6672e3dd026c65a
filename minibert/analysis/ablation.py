"""Head ablation (Michel et al. 2019, "Are sixteen heads really better than one?"): mask one head at a
time and measure how much a loss changes.

A head is masked by zeroing its slice of the attention context, the (B, T, H) tensor of the heads'
outputs side by side, just before the output projection W_O (a forward pre-hook on
`layer.attention.output`): the head then contributes nothing, and the other heads are untouched. With
every head of a layer masked, the attention sub-layer outputs only W_O's bias, so the layer computes
LayerNorm(x + b_O) then its feed-forward block. `minibert.model` is not changed; the hooks are removed
when the `with` block ends.

The losses: for the course model (which has its MLM head) the masked-LM loss on held-out text, with
masks drawn once from a seed so that every ablation sees the same masks; for all-MiniLM-L6-v2 (no MLM
head: a sentence-embedding model) how far its sentence embeddings move, 1 − cos(e, e_ablated), with
e = the mean of the last hidden states over real tokens, normalised, as its sentence-transformers
configuration pools (1_Pooling, 2_Normalize).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager

import torch
import torch.nn.functional as F

from ..masking import mask_tokens
from .words import encoder_of


@contextmanager
def masked_heads(model, heads: dict[int, list[int]]):
    """Within the block, the heads {layer: [head, ...]} of `model` output nothing."""
    bert = encoder_of(model)
    hs = bert.config.head_size
    handles = []
    for layer, chosen in heads.items():
        keep = torch.ones(bert.config.hidden_size)
        for h in chosen:
            keep[h * hs:(h + 1) * hs] = 0.0  # head h's columns of the context

        def zero(module, args, keep=keep):
            (context,) = args  # (B, T, H): the heads side by side, before W_O
            return (context * keep.to(context),)

        handles.append(bert.encoder.layers[layer].attention.output.register_forward_pre_hook(zero))
    try:
        yield model
    finally:
        for handle in handles:
            handle.remove()


@torch.no_grad()
def head_effects(model, loss: Callable[[object], float]) -> tuple[float, torch.Tensor]:
    """(loss with every head, (L, nh) loss with each single head masked minus that)."""
    config = encoder_of(model).config
    base = loss(model)
    effects = torch.zeros(config.num_hidden_layers, config.num_attention_heads, dtype=torch.float64)
    for layer in range(config.num_hidden_layers):
        for head in range(config.num_attention_heads):
            with masked_heads(model, {layer: [head]}):
                effects[layer, head] = loss(model) - base
    return base, effects


def mlm_batches(tokenizer, lines: list[str], *, seed: int, batch_size: int = 32, max_length: int = 64) -> list[dict]:
    """Held-out lines as padded batches, masked once with BERT's 15% / 80-10-10 rule from `seed`."""
    g = torch.Generator().manual_seed(seed)
    batches = []
    for start in range(0, len(lines), batch_size):
        enc = tokenizer(lines[start:start + batch_size], padding=True, truncation=True, max_length=max_length,
                        return_special_tokens_mask=True, return_tensors="pt")
        ids, labels = mask_tokens(enc["input_ids"], special_tokens_mask=enc["special_tokens_mask"],
                                  mask_token_id=tokenizer.mask_token_id, vocab_size=tokenizer.vocab_size,
                                  generator=g, special_token_ids=tokenizer.all_special_ids)
        batches.append(dict(input_ids=ids, token_type_ids=enc["token_type_ids"],
                            attention_mask=enc["attention_mask"], labels=labels))
    return batches


@torch.no_grad()
def mlm_loss(model, batches: list[dict]) -> float:
    """The masked-LM loss of a BertForPreTraining over `batches`, a mean over every masked token."""
    total, count = 0.0, 0
    for batch in batches:
        n = int((batch["labels"] != -100).sum())
        total += model(**batch).mlm_loss.item() * n
        count += n
    return total / count


@torch.no_grad()
def sentence_embeddings(model, batch: dict) -> torch.Tensor:
    """Mean of the last hidden states over real tokens, L2-normalised: (B, H)."""
    out = encoder_of(model)(batch["input_ids"], batch.get("token_type_ids"), batch["attention_mask"])
    mask = batch["attention_mask"][..., None].to(out.last_hidden_state)  # (B, T, 1)
    return F.normalize((out.last_hidden_state * mask).sum(1) / mask.sum(1), dim=-1)


def embedding_change(reference: torch.Tensor, batch: dict) -> Callable[[object], float]:
    """A loss for `head_effects`: mean 1 − cos(reference, embeddings now) over the batch's sentences."""
    return lambda model: float(1 - (sentence_embeddings(model, batch) * reference).sum(-1).mean())
