"""Examples -> model inputs, one recipe per kind of task (the paper's Figure 4), and batches.

    sentence   [CLS] text [SEP]                        -> label           (4b)
    pair       [CLS] text [SEP] text_pair [SEP]        -> label           (4a; token types 0 then 1)
    tagging    [CLS] w1 ##p w2 [SEP]                   -> a tag per word, on its first piece (4d; §5.3)
    span       [CLS] question [SEP] window [SEP]       -> start, end      (4c; long contexts in windows)
    choice     C rows of [CLS] context [SEP] ending [SEP] -> the right one (§4.4)

Word labels go on the first sub-token and the rest get -100: "we use the representation of the
first sub-token as the input to the token-level classifier over the NER label set" (§5.3). A
context longer than the window is cut into overlapping windows `doc_stride` tokens apart, as
Google's run_squad.py does; each window is its own feature, and `spans.py` merges their answers
back into characters of the original context.

Batches are padded to their own longest row (dynamic padding), never to max_seq_length.
Letters: B batch, C choices, T tokens.
"""

from __future__ import annotations

import torch

from ..inputs import IGNORE_INDEX, InputError
from .recipes import FinetuneConfig

NOT_CONTEXT = None  # the offset of a token that is not in the context: [CLS], the question, [SEP]


def feature_settings(cfg: FinetuneConfig) -> dict:
    """The settings of `encode` that a fine-tuning run's config holds."""
    return dict(max_seq_length=cfg.max_seq_length, doc_stride=cfg.doc_stride, max_query_length=cfg.max_query_length)


def encode(kind: str, examples: list[dict], tokenizer, *, max_seq_length: int, doc_stride: int = 128,
           max_query_length: int = 64) -> list[dict]:
    """Features of `examples`: dicts of lists (input_ids, token_type_ids, a label field), plus, for
    spans, what the answer merge needs (the example's index, each token's offsets in the context)."""
    if kind in ("sentence", "pair"):
        pairs = [e["text_pair"] for e in examples] if kind == "pair" else None
        enc = tokenizer([e["text"] for e in examples], pairs, truncation=True, max_length=max_seq_length)
        return [{"input_ids": ids, "token_type_ids": types, "labels": e["label"]}
                for ids, types, e in zip(enc["input_ids"], enc["token_type_ids"], examples)]
    if kind == "tagging":
        return [_tagging(e, tokenizer, max_seq_length) for e in examples]
    if kind == "choice":
        return [_choice(e, tokenizer, max_seq_length) for e in examples]
    if kind == "span":
        return [f for i, e in enumerate(examples)
                for f in _windows(i, e, tokenizer, max_seq_length, doc_stride, max_query_length)]
    raise ValueError(f"no features for kind {kind!r}")


def _tagging(example: dict, tokenizer, max_seq_length: int) -> dict:
    """Each word's pieces; the word's tag on its first piece, -100 on the others. Words that do not
    fit in the window are cut (and so not predicted: `word_ids` says which words are in)."""
    pieces = tokenizer(example["words"], add_special_tokens=False)["input_ids"]  # one row per word
    ids, labels, word_ids = [tokenizer.cls_token_id], [IGNORE_INDEX], [None]
    for w, (word_pieces, tag) in enumerate(zip(pieces, example["tags"])):
        word_pieces = word_pieces or [tokenizer.unk_token_id]  # a word the normaliser empties (a control char)
        if len(ids) + len(word_pieces) > max_seq_length - 1:
            break
        ids += word_pieces
        labels += [tag] + [IGNORE_INDEX] * (len(word_pieces) - 1)
        word_ids += [w] + [None] * (len(word_pieces) - 1)
    ids.append(tokenizer.sep_token_id)
    labels.append(IGNORE_INDEX)
    word_ids.append(None)
    return {"input_ids": ids, "token_type_ids": [0] * len(ids), "labels": labels, "word_ids": word_ids}


def _choice(example: dict, tokenizer, max_seq_length: int) -> dict:
    """C rows, one per ending, each [CLS] context [SEP] ending [SEP]; one label for the C of them."""
    endings = example["endings"]
    enc = tokenizer([example["context"]] * len(endings), endings, truncation=True, max_length=max_seq_length)
    return {"input_ids": enc["input_ids"], "token_type_ids": enc["token_type_ids"], "labels": example["label"]}


def _windows(index: int, example: dict, tokenizer, max_seq_length: int, doc_stride: int, max_query_length: int):
    """[CLS] question [SEP] window [SEP] for each window of the context. The answer's start and end
    tokens, where it lies wholly inside the window; else both at [CLS] (position 0): "no answer
    here", which is also how SQuAD 2.0's unanswerable questions are trained (§4.3)."""
    question = tokenizer(example["question"], add_special_tokens=False)["input_ids"][:max_query_length]
    context = tokenizer(example["context"], add_special_tokens=False, return_offsets_mapping=True)
    ctx_ids, offsets = context["input_ids"], context["offset_mapping"]
    budget = max_seq_length - len(question) - 3  # [CLS] question [SEP] ... [SEP]
    if budget < 1:
        raise InputError(f"example {example['id']!r}: max_seq_length={max_seq_length} leaves no room for the "
                         f"context after a {len(question)}-token question; raise it or lower max_query_length")
    answers = example["answers"]
    span = None
    for text, start in zip(answers["text"], answers["answer_start"]):
        if example["context"][start:start + len(text)] != text:
            raise InputError(f"example {example['id']!r}: the answer {text!r} is not in the context at character "
                             f"{start} (found {example['context'][start:start + len(text)]!r}); fix its answer_start")
    if answers["text"]:  # the first gold answer is the training target, as in run_squad.py
        start = answers["answer_start"][0]
        span = (start, start + len(answers["text"][0]))
    head = [tokenizer.cls_token_id, *question, tokenizer.sep_token_id]
    first = 0
    while True:
        last = min(first + budget, len(ctx_ids))
        window_offsets = offsets[first:last]
        start_position = end_position = 0
        if span is not None:
            inside = [t for t, (a, b) in enumerate(window_offsets) if a < span[1] and b > span[0]]
            if inside and window_offsets[0][0] <= span[0] and window_offsets[-1][1] >= span[1]:
                start_position, end_position = len(head) + inside[0], len(head) + inside[-1]
        yield {"input_ids": head + ctx_ids[first:last] + [tokenizer.sep_token_id],
               "token_type_ids": [0] * len(head) + [1] * (last - first + 1),
               "start_positions": start_position, "end_positions": end_position, "example_index": index,
               "offsets": [NOT_CONTEXT] * len(head) + [tuple(o) for o in window_offsets] + [NOT_CONTEXT]}
        if last == len(ctx_ids):
            return
        first += min(doc_stride, last - first)  # a stride longer than the window would skip tokens (run_squad.py)


def collate(features: list[dict], pad_token_id: int) -> dict[str, torch.Tensor]:
    """Pad a list of features to the longest row of the batch: (B, T) inputs, or (B, C, T) for
    choices. Labels: (B,) for a class, (B, T) padded with -100 for tags; start/end positions (B,)."""
    choice = isinstance(features[0]["input_ids"][0], list)
    rows = [r for f in features for r in (f["input_ids"] if choice else [f["input_ids"]])]
    types = [r for f in features for r in (f["token_type_ids"] if choice else [f["token_type_ids"]])]
    T = max(map(len, rows))
    input_ids = torch.full((len(rows), T), pad_token_id, dtype=torch.long)
    token_type_ids = torch.zeros_like(input_ids)
    attention_mask = torch.zeros_like(input_ids)
    for b, (ids, tt) in enumerate(zip(rows, types)):
        input_ids[b, :len(ids)], token_type_ids[b, :len(ids)], attention_mask[b, :len(ids)] = (
            torch.tensor(ids), torch.tensor(tt), 1)
    batch = {"input_ids": input_ids, "token_type_ids": token_type_ids, "attention_mask": attention_mask}
    if choice:  # (B·C, T) -> (B, C, T)
        batch = {k: v.view(len(features), -1, T) for k, v in batch.items()}
    if "start_positions" in features[0]:
        for key in ("start_positions", "end_positions"):
            batch[key] = torch.tensor([f[key] for f in features])
    elif isinstance(features[0]["labels"], list):  # tags: one per token
        labels = torch.full((len(features), T), IGNORE_INDEX, dtype=torch.long)
        for b, f in enumerate(features):
            labels[b, :len(f["labels"])] = torch.tensor(f["labels"])
        batch["labels"] = labels
    else:
        batch["labels"] = torch.tensor([f["labels"] for f in features])  # int: a class; float: a score
    return batch
