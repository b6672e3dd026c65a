"""Words, not WordPiece tokens: sentences given as lists of words (the Brown corpus's, with gold tags)
encoded in padded batches, and attention between tokens turned into attention between words.

Clark et al. (2019, §4) convert a token-level attention map to a word-level one so that it can be
compared with word-level annotation: attention *to* a split word is the **sum** over its tokens
(what the query gave the word in total), attention *from* a split word is the **mean** over its
tokens' rows. Each row of the word-level map still sums to 1. [CLS] and [SEP] are kept as words of
their own: group 0 and group W + 1 of a sentence of W words.

Shape legend: L layers, nh heads, B sentences, T tokens (padded), W words, G = W + 2 groups
([CLS], the W words, [SEP]), H hidden size.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .norms import value_norms

PAD_GROUP = -1  # word_ids at padding


def encoder_of(model):
    """The BertModel inside a model with heads (`model.bert`), or the model itself."""
    return getattr(model, "bert", model)


@dataclass
class WordBatch:
    input_ids: torch.Tensor  # (B, T)
    token_type_ids: torch.Tensor  # (B, T), all 0: one sentence per row
    attention_mask: torch.Tensor  # (B, T), 1 at real tokens
    word_ids: torch.Tensor  # (B, T): 0 at [CLS], 1..W at the words' tokens, W + 1 at [SEP], -1 at padding
    first_token: list[list[int]]  # per sentence, the position of each word's first token


def encode_words(tokenizer, sentences: list[list[str]]) -> WordBatch:
    """[CLS] w1 ... wW [SEP] for each sentence, each word tokenized on its own (so a token never
    straddles two words), padded to the longest row."""
    rows, groups, firsts = [], [], []
    for words in sentences:
        ids, group, first = [tokenizer.cls_token_id], [0], []
        for w, word in enumerate(words, start=1):
            pieces = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(word)) or [tokenizer.unk_token_id]
            first.append(len(ids))
            ids += pieces
            group += [w] * len(pieces)
        rows.append(ids + [tokenizer.sep_token_id])
        groups.append(group + [len(words) + 1])
        firsts.append(first)
    T = max(len(r) for r in rows)
    input_ids = torch.tensor([r + [tokenizer.pad_token_id] * (T - len(r)) for r in rows])
    word_ids = torch.tensor([g + [PAD_GROUP] * (T - len(g)) for g in groups])
    return WordBatch(input_ids, torch.zeros_like(input_ids), (word_ids != PAD_GROUP).long(), word_ids, firsts)


def word_attention(probs: torch.Tensor, word_ids: torch.Tensor) -> torch.Tensor:
    """(..., T, T) token-level attention of one sentence -> (..., G, G) word-level: keys summed over a
    word's tokens, queries averaged. word_ids (T,) as in WordBatch; padding (-1) is dropped."""
    real = word_ids >= 0
    groups = word_ids[real]
    probs = probs[..., real, :][..., real]  # (..., T', T') without padding
    G = int(groups.max()) + 1
    member = torch.nn.functional.one_hot(groups, G).to(probs.dtype)  # (T', G)
    to_words = probs @ member  # (..., T', G): sum over each word's keys
    return (member / member.sum(0)).transpose(0, 1) @ to_words  # (..., G, G): mean over its queries


@dataclass
class Collected:
    """What `collect` measured, one entry per sentence (word-level maps of different sizes)."""
    attention: list[torch.Tensor]  # each (L, nh, G, G)
    norm_attention: list[torch.Tensor] | None  # each (L, nh, G, G): ‖α f(x)‖ per key, rows rescaled to sum 1
    features: torch.Tensor | None  # (L + 1, N, H): each word's first token, every hidden state, N words in all


@torch.no_grad()
def collect(model, tokenizer, sentences: list[list[str]], *, batch_size: int = 32, norms: bool = False,
            features: bool = False) -> Collected:
    """Run `model` (a BertModel, or a model with `.bert`) over `sentences` in padded batches; return
    every sentence's word-level attention maps, and on request the norm-weighted maps and the word
    features for probes."""
    bert = encoder_of(model)
    attention, weighted, feats = [], [] if norms else None, []
    for start in range(0, len(sentences), batch_size):
        batch = encode_words(tokenizer, sentences[start:start + batch_size])
        out = bert(batch.input_ids, batch.token_type_ids, batch.attention_mask, output_attentions=True,
                   output_hidden_states=norms or features)
        probs = torch.stack(out.attentions, dim=1)  # (B, L, nh, T, T)
        if norms:
            sizes = torch.stack([value_norms(layer.attention, h) for layer, h in
                                 zip(bert.encoder.layers, out.hidden_states)], dim=1)  # (B, L, nh, T)
            sent = probs * sizes[..., None, :]  # (B, L, nh, T, T): ‖α_ij f(x_j)‖
        for b, word_ids in enumerate(batch.word_ids):
            attention.append(word_attention(probs[b], word_ids))
            if norms:
                w = word_attention(sent[b], word_ids)
                weighted.append(w / w.sum(-1, keepdim=True))
        if features:
            hidden = torch.stack(out.hidden_states)  # (L + 1, B, T, H)
            feats += [hidden[:, b, first] for b, first in enumerate(batch.first_token)]  # each (L + 1, W, H)
    return Collected(attention, weighted, torch.cat(feats, dim=1) if features else None)
