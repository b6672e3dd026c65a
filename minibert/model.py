"""The BERT encoder (Devlin et al. 2018, section 3; Vaswani et al. 2017, section 3).

Shape legend:
    B  batch size              T  sequence length (tokens)
    H  hidden_size             nh num_attention_heads      hs head size = H / nh
    I  intermediate_size (4H)  V  vocab_size               N  real (not [PAD]) tokens of a batch

BERT is post-LN: every sub-layer is wrapped as `x = LayerNorm(x + Dropout(sublayer(x)))`.
(GPT-2-style code and The Annotated Transformer are pre-LN; loading real BERT weights into a pre-LN
block gives garbage.)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from .checkpoint import PretrainedMixin
from .config import BertConfig
from .inputs import check_inputs

ACTIVATIONS = {  # factories, so that every layer owns its module (hooks stay per layer)
    # Exact erf GELU, as Hugging Face's "gelu" and Google's first release; Google's modeling.py later
    # switched to the tanh approximation, which configs call "gelu_new" (they differ by < 5e-4).
    "gelu": nn.GELU,
    "gelu_new": partial(nn.GELU, approximate="tanh"),
    "gelu_pytorch_tanh": partial(nn.GELU, approximate="tanh"),
    "relu": nn.ReLU,
}


@dataclass
class Padding:
    """Where the N real tokens of a (B, T) batch sit. With it the encoder runs on (N, H): every
    linear layer, LayerNorm and the feed-forward skip [PAD], and only attention, which mixes
    positions, goes back to the (B, T) grid (MosaicBERT's unpadding, Portes et al. 2023)."""

    indices: torch.Tensor  # (N,) flat positions b·T + t of the real tokens, row by row
    B: int
    T: int

    @classmethod
    def of(cls, attention_mask: torch.Tensor) -> Padding:
        B, T = attention_mask.shape
        return cls(attention_mask.flatten().nonzero().squeeze(1), B, T)

    def unpad(self, x: torch.Tensor) -> torch.Tensor:
        return x.flatten(0, 1)[self.indices]  # (B, T, ...) -> (N, ...)

    def pad(self, x: torch.Tensor) -> torch.Tensor:
        grid = x.new_zeros(self.B * self.T, *x.shape[1:]).index_copy(0, self.indices, x)  # (B·T, ...)
        return grid.view(self.B, self.T, *x.shape[1:])  # (N, ...) -> (B, T, ...), zeros at [PAD]


def unpad_input(x: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, T, ...) -> (N, ...): the real tokens, row by row, and their flat positions b·T + t (N,),
    which `pad_input` needs to put them back. (MosaicBERT's and flash-attn's names.)"""
    padding = Padding.of(attention_mask)
    return padding.unpad(x), padding.indices


def pad_input(x: torch.Tensor, indices: torch.Tensor, B: int, T: int) -> torch.Tensor:
    """(N, ...) -> (B, T, ...): the inverse of `unpad_input`, with zeros at the padded positions."""
    return Padding(indices, B, T).pad(x)


class Embeddings(nn.Module):
    """Token + learned position + segment (token type) embeddings, then LayerNorm and dropout (Fig. 2)."""

    def __init__(self, config: BertConfig):
        super().__init__()
        H = config.hidden_size
        self.word_embeddings = nn.Embedding(config.vocab_size, H)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, H)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, H)
        self.layer_norm = nn.LayerNorm(H, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids):
        T = input_ids.shape[1]
        positions = torch.arange(T, device=input_ids.device)  # (T,), broadcast over the batch
        # Summed in the order Google's and Hugging Face's code sum them, so floats round alike.
        x = (self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
             + self.position_embeddings(positions))  # (B, T, H)
        return self.dropout(self.layer_norm(x))


class SelfAttention(nn.Module):
    """Multi-head scaled dot-product self-attention: softmax(QKᵀ/√hs) V, per head."""

    def __init__(self, config: BertConfig):
        super().__init__()
        H = config.hidden_size
        self.nh, self.hs = config.num_attention_heads, config.head_size
        self.query, self.key, self.value = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(H, H)
        self.output = nn.Linear(H, H)
        self.dropout_p = config.attention_probs_dropout_prob

    def split_heads(self, x):
        B, T, _ = x.shape
        return x.view(B, T, self.nh, self.hs).transpose(1, 2)  # (B, T, H) -> (B, nh, T, hs)

    def forward(self, x, key_mask, need_probs: bool = False, padding: Padding | None = None):
        """x (B, T, H); or (N, H), the real tokens alone, when `padding` says where they sit.
        key_mask: (B, 1, 1, T) bool, True where a key is a real token. Masking *keys* means no
        query draws information from padding; padded queries still compute, and are ignored later.
        A left-to-right model passes (B, 1, T, T) instead: query i may see key j only if j <= i."""
        q, k, v = (f(x) for f in (self.query, self.key, self.value))  # (B, T, H) or (N, H)
        if padding is not None:  # only attention needs the (B, T) grid: back to it, and out after
            q, k, v = (padding.pad(t) for t in (q, k, v))  # (N, H) -> (B, T, H), zeros at [PAD]
        q, k, v = (self.split_heads(t) for t in (q, k, v))  # (B, nh, T, hs)
        dropout_p = self.dropout_p if self.training else 0.0
        if need_probs:
            # The readable reference path; it is also the only one that returns the probabilities.
            scores = (q @ k.transpose(-2, -1)) * self.hs**-0.5  # (B, nh, T, T)
            if key_mask is not None:
                scores = scores.masked_fill(~key_mask, torch.finfo(scores.dtype).min)
            probs = scores.softmax(dim=-1)
            context = F.dropout(probs, dropout_p) @ v  # (B, nh, T, hs)
        else:
            # Same maths in one fused kernel (flash / memory-efficient on GPUs); no probabilities.
            context = F.scaled_dot_product_attention(q, k, v, attn_mask=key_mask, dropout_p=dropout_p)
            probs = None
        B, _, T, _ = context.shape
        context = context.transpose(1, 2).reshape(B, T, -1)  # (B, nh, T, hs) -> (B, T, H)
        if padding is not None:
            context = padding.unpad(context)  # (B, T, H) -> (N, H)
        return self.output(context), probs


class FeedForward(nn.Module):
    """Position-wise feed-forward: H -> I -> H with GELU (section 3.1; Vaswani et al. eq. 2)."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.intermediate = nn.Linear(config.hidden_size, config.intermediate_size)
        self.act = ACTIVATIONS[config.hidden_act]()
        self.output = nn.Linear(config.intermediate_size, config.hidden_size)

    def forward(self, x):
        return self.output(self.act(self.intermediate(x)))  # (B, T, H) -> (B, T, I) -> (B, T, H)


class EncoderLayer(nn.Module):
    """One Transformer encoder block, post-LN."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.attention = SelfAttention(config)
        self.attention_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.ffn = FeedForward(config)
        self.ffn_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, x, key_mask, need_probs: bool = False, padding: Padding | None = None):
        a, probs = self.attention(x, key_mask, need_probs, padding)  # x: (B, T, H), or (N, H) unpadded
        x = self.attention_norm(x + self.dropout(a))  # post-LN: normalise *after* the residual
        x = self.ffn_norm(x + self.dropout(self.ffn(x)))
        return x, probs


class Encoder(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.num_hidden_layers))
        # Set by a training loop that is short of memory: keep only each layer's input, and redo
        # the layer's forward in the backward pass (about a third more compute; same gradients).
        self.gradient_checkpointing = False

    def forward(self, x, key_mask, output_hidden_states=False, output_attentions=False, padding=None):
        hidden_states, attentions = [x], []
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:  # the redone forward draws the same dropout
                x, probs = checkpoint(layer, x, key_mask, output_attentions, padding, use_reentrant=False)
            else:
                x, probs = layer(x, key_mask, need_probs=output_attentions, padding=padding)
            hidden_states.append(x)
            attentions.append(probs)
        if padding is not None:  # what the caller sees is always (B, T, H)
            x, hidden_states = padding.pad(x), [padding.pad(h) for h in hidden_states]
        hidden_states = tuple(hidden_states) if output_hidden_states else None
        attentions = tuple(attentions) if output_attentions else None
        return x, hidden_states, attentions


class Pooler(nn.Module):
    """tanh(W h + b) of one token: the sentence representation the NSP and classification heads read.

    BERT pools [CLS], the first token. A left-to-right model's [CLS] sees nothing but itself, so
    it pools the last real token (the final [SEP]), the one that has seen the whole input, as
    OpenAI GPT classifies from its last token. (The paper does not say what its LTR model pooled;
    transformers' BertModel pools position 0 even when is_decoder is set.)"""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.last_token = config.is_decoder

    def forward(self, x, attention_mask=None):
        if not self.last_token:
            return torch.tanh(self.dense(x[:, 0]))  # (B, T, H) -> (B, H)
        B, T, _ = x.shape
        last = (attention_mask.sum(1) - 1 if attention_mask is not None
                else torch.full((B,), T - 1, device=x.device))  # (B,) index of the last real token
        return torch.tanh(self.dense(x[torch.arange(B, device=x.device), last]))  # (B, T, H) -> (B, H)


class ModelOutput:
    """What every model returns: a dataclass whose fields also read as `out["logits"]`, as in transformers."""

    def __getitem__(self, key: str):
        return getattr(self, key)


@dataclass
class BertOutput(ModelOutput):
    last_hidden_state: torch.Tensor  # (B, T, H)
    pooler_output: torch.Tensor | None  # (B, H); None in a model built without the pooler
    hidden_states: tuple[torch.Tensor, ...] | None = None  # embeddings + each layer: L+1 × (B, T, H)
    attentions: tuple[torch.Tensor, ...] | None = None  # each layer: L × (B, nh, T, T)


def init_bert_weights(module: nn.Module, std: float) -> None:
    """BERT's initialisation: weights ~ N(0, 0.02), zero biases, LayerNorm scale 1 and shift 0.
    (Google's code uses a truncated normal at 2σ; Hugging Face and minibert use the plain normal.)"""
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.normal_(module.weight, mean=0.0, std=std)
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.zeros_(module.bias)
    if isinstance(module, nn.LayerNorm):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


class BertModel(PretrainedMixin, nn.Module):
    """The encoder: embeddings, L post-LN layers, and the pooler. Heads that read every token and
    never [CLS] (tagging, spans) build it with `add_pooling_layer=False`, as transformers does, so
    their checkpoints hold no pooler."""

    hf_architecture = "BertModel"

    def __init__(self, config: BertConfig, add_pooling_layer: bool = True):
        super().__init__()
        self.config = config
        self.embeddings = Embeddings(config)
        self.encoder = Encoder(config)
        self.pooler = Pooler(config) if add_pooling_layer else None
        self.apply(lambda m: init_bert_weights(m, config.initializer_range))

    def forward(self, input_ids, token_type_ids=None, attention_mask=None, *, unpad: bool = False,
                output_hidden_states: bool = False, output_attentions: bool = False) -> BertOutput:
        """input_ids (B, T) token ids; token_type_ids (B, T) 0 for segment A, 1 for B;
        attention_mask (B, T) 1 for real tokens, 0 for padding. unpad=True runs every layer's
        matrix multiplies on the real tokens alone (no FLOP on [PAD]); the outputs are the same,
        with zeros at padded positions."""
        token_type_ids, attention_mask = check_inputs(self.config, input_ids, token_type_ids, attention_mask)
        # (B, 1, 1, T), broadcast over heads and queries; None when nothing is padded, which lets
        # SDPA pick its fastest kernels (flash attention takes no mask).
        key_mask = None if attention_mask is None else attention_mask.bool()[:, None, None, :]
        if self.config.is_decoder:
            key_mask = causal_mask(input_ids.shape[1], key_mask, input_ids.device)  # (B or 1, 1, T, T)
        x = self.embeddings(input_ids, token_type_ids)  # (B, T, H)
        padding = Padding.of(attention_mask) if unpad and attention_mask is not None else None
        if padding is not None:
            x = padding.unpad(x)  # (B, T, H) -> (N, H)
        x, hidden_states, attentions = self.encoder(x, key_mask, output_hidden_states, output_attentions, padding)
        pooled = self.pooler(x, attention_mask) if self.pooler is not None else None
        return BertOutput(x, pooled, hidden_states, attentions)


def causal_mask(T: int, key_mask: torch.Tensor | None, device) -> torch.Tensor:
    """Left-to-right attention: query i may see key j only when j <= i (and j is a real token).
    key_mask (B, 1, 1, T) or None -> (B, 1, T, T), or (1, 1, T, T) without padding."""
    left = torch.ones(T, T, dtype=torch.bool, device=device).tril()[None, None]  # (1, 1, T, T)
    return left if key_mask is None else left & key_mask
