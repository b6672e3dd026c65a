"""Capstone exercises: learners' functions with one mistake each, and correct ones in other styles.

Split rule (fixed before any checker changed): within each exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

from . import Exercise
import unicodedata
import torch
import torch.nn.functional as F
import math
from torch import nn
import itertools
import random
import functools
import string


# --- batch 6: written without reading any checker ------------------------------------------
EX11_1 = Exercise("11.1", "tokenizer_ids")
EX11_1.batch = 6


def _g6_is_punctuation(ch):
    return unicodedata.category(ch).startswith("P") or (ch.isascii() and not ch.isalnum())


def _g6_basic_words(text):
    """Clean, lower-case, strip accents, then pad every punctuation mark with spaces and split."""
    kept = [ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf")]
    text = unicodedata.normalize("NFD", "".join(kept).lower())
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    return "".join(f" {ch} " if _g6_is_punctuation(ch) else ch for ch in text).split()


def _g6_wordpiece(word, vocab):
    """Greedy longest-first pieces of one word, or None when it cannot be cut to its end."""
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = ("##" if start else "") + word[start:end]
            if piece in vocab:
                pieces.append(vocab[piece])
                start = end
                break
        else:
            return None
    return pieces


@EX11_1.bug
def invisible_characters_found_with_isprintable(text, vocab):
    """I dropped the control and format characters as those that are not str.isprintable() (keeping tab and newline), but Python also calls no-break and line-separator spaces unprintable, so they vanish and glue their words.
    Differs on: "good\\u00a0film" (a no-break space), MiniLM's vocab: good, ##film [2204, 23665] instead of good, film [2204, 2143]."""
    text = "".join(ch for ch in text if ch.isprintable() or ch in "\t\n\r")
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    ids = []
    for word in "".join(f" {ch} " if _g6_is_punctuation(ch) else ch for ch in text).split():
        pieces = _g6_wordpiece(word, vocab) if len(word) <= 100 else None
        ids += pieces if pieces is not None else [vocab["[UNK]"]]
    return ids


@EX11_1.bug
def stuck_word_keeps_the_pieces_found(text, vocab):
    """When no piece matched the rest of a word I put [UNK] for that rest and kept the pieces already cut, instead of making the whole word one [UNK].
    Differs on: "naïve😀" (MiniLM's vocab): naive, [UNK] [15743, 100] instead of a single [UNK] [100]."""
    unk = vocab["[UNK]"]
    ids = []
    for word in _g6_basic_words(text):
        if len(word) > 100:
            ids.append(unk)
            continue
        start = 0
        while start < len(word):
            end = len(word)
            while end > start and ("##" if start > 0 else "") + word[start:end] not in vocab:
                end -= 1
            if end == start:
                ids.append(unk)
                break
            ids.append(vocab[("##" if start > 0 else "") + word[start:end]])
            start = end
    return ids


@EX11_1.bug
def hundred_characters_already_too_long(text, vocab):
    """I made a word [UNK] when len(word) >= 100, reading "more than 100 characters" as "100 or more".
    Differs on: "a" * 100 (a word of exactly 100 letters, MiniLM's vocab): [100] ([UNK]) instead of aaa, ##aa, ##aa, ... [13360, 11057, ...]."""
    ids = []
    for word in _g6_basic_words(text):
        pieces = None if len(word) >= 100 else _g6_wordpiece(word, vocab)
        ids.extend([vocab["[UNK]"]] if pieces is None else pieces)
    return ids


@EX11_1.bug
def accents_dropped_before_decomposing(text, vocab):
    """I dropped the Mn marks first and normalised to NFD afterwards, so the accents of precomposed letters (é, è) only come apart once I have stopped looking for them.
    Differs on: "Café crème!" (MiniLM's vocab, the statement's example): [UNK], [UNK], 999 instead of [7668, 13675, 21382, 999]."""
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf") or ch in "\t\n\r")
    text = "".join(ch for ch in text.lower() if unicodedata.category(ch) != "Mn")
    text = unicodedata.normalize("NFD", text)
    words = []
    for chunk in text.split():
        word = ""
        for ch in chunk:
            if _g6_is_punctuation(ch):
                if word:
                    words.append(word)
                words.append(ch)
                word = ""
            else:
                word += ch
        if word:
            words.append(word)
    ids = []
    for word in words:
        pieces = _g6_wordpiece(word, vocab) if len(word) <= 100 else None
        ids += [vocab["[UNK]"]] if pieces is None else pieces
    return ids


@EX11_1.correct
def regex_split_and_recursive_wordpiece(text, vocab):
    """re.findall for the words and marks after a translate-style clean-up, and WordPiece written recursively."""
    import re

    cleaned = []
    for ch in unicodedata.normalize("NFD", "".join(
            c for c in text if c in "\t\n\r" or unicodedata.category(c) not in ("Cc", "Cf")).lower()):
        if unicodedata.category(ch) == "Mn":
            continue
        punct = unicodedata.category(ch).startswith("P") or (ord(ch) < 128 and not ch.isalnum())
        cleaned.append(f" {ch} " if punct and not ch.isspace() else ch)
    words = re.findall(r"\S+", "".join(cleaned))

    def cut(word, start):
        if start == len(word):
            return []
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                rest = cut(word, end)
                return None if rest is None else [vocab[piece]] + rest
        return None

    ids = []
    for word in words:
        pieces = cut(word, 0) if len(word) <= 100 else None
        ids += pieces if pieces is not None else [vocab["[UNK]"]]
    return ids


# --- batch 6: written without reading any checker ------------------------------------------
EX11_4 = Exercise("11.4", "finetune_loop")
EX11_4.batch = 6


@EX11_4.bug
def decay_measured_from_the_end_of_the_warm_up(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """After the warm-up I decayed the rate as (total - step) / (total - warmup), the linear schedule I remembered from transformers, instead of the statement's 1 - step / total.
    Differs on: a 1-layer H=32 BERT, 4 train batches of 4, 3 epochs, lr 1e-3, warmup 0.1 (1 warm-up step of 12): step 1 runs at 11/11 of lr instead of 11/12, and so on: different weights."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=lr, eps=1e-6)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)

    def multiplier(step):
        if step < warmup:
            return step / warmup
        return max(0.0, (total - step) / max(1, total - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, multiplier)
    accuracies = []
    for _ in range(epochs):
        model.train()
        for batch in train_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            loss = F.cross_entropy(logits, batch["labels"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        model.eval()
        correct = total_seen = 0
        with torch.no_grad():
            for batch in dev_batches:
                predicted = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"]).argmax(-1)
                correct += (predicted == batch["labels"]).sum().item()
                total_seen += batch["labels"].numel()
        accuracies.append(correct / total_seen)
    model.train()
    return accuracies


@EX11_4.bug
def training_mode_set_once_before_the_epochs(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I called model.train() once before the epochs and model.eval() before each dev pass, so from the second epoch on the model trains with dropout off.
    Differs on: a 1-layer H=32 BERT with dropout 0.1, 4 train batches of 4, 3 epochs, lr 1e-3: epochs 2 and 3 run without dropout, different weights (and the model is left in eval mode)."""
    groups = [
        {"params": [p for p in model.parameters() if p.dim() >= 2], "weight_decay": 0.01},
        {"params": [p for p in model.parameters() if p.dim() < 2], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=lr, eps=1e-6)
    all_steps = epochs * len(train_batches)
    warmup_steps = int(warmup_proportion * all_steps)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: s / warmup_steps if s < warmup_steps else max(0.0, 1 - s / all_steps))
    history = []
    model.train()
    for epoch in range(epochs):
        for batch in train_batches:
            out = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            F.cross_entropy(out, batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        model.eval()
        hits, seen = 0, 0
        with torch.no_grad():
            for batch in dev_batches:
                out = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
                hits += int((out.argmax(dim=-1) == batch["labels"]).sum())
                seen += len(batch["labels"])
        history.append(hits / seen)
    return history


@EX11_4.bug
def accuracy_as_the_mean_of_batch_accuracies(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I scored each dev batch's accuracy and averaged those, which weighs a short last batch as much as a full one.
    Differs on: dev batches of 4 and 3 examples, 3 right in the first and 0 in the second: 0.375 instead of 3/7 = 0.43 (the same weights as the solution)."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                                  lr=lr, eps=1e-6)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total))
    accuracies = []
    for epoch in range(epochs):
        model.train()
        for batch in train_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            F.cross_entropy(logits, batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        model.eval()
        batch_accuracies = []
        with torch.no_grad():
            for batch in dev_batches:
                logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
                batch_accuracies.append((logits.argmax(-1) == batch["labels"]).float().mean().item())
        accuracies.append(sum(batch_accuracies) / len(batch_accuracies))
    model.train()
    return accuracies


@EX11_4.bug
def decay_chosen_by_parameter_names(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I split the parameters the way the transformers examples do, no decay for names containing "bias" or "LayerNorm.weight", which misses LayerNorms named otherwise.
    Differs on: a model whose LayerNorms are called norm, attention_norm and ffn_norm (the notebook's MyBert), 1 layer, H=32, 4 train batches, 3 epochs: their weights are decayed, so different weights."""
    no_decay_names = ("bias", "LayerNorm.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay_names)],
         "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay_names)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=lr, eps=1e-6)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total))
    accuracies = []
    for epoch in range(epochs):
        model.train()
        for batch in train_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            F.cross_entropy(logits, batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        model.eval()
        right = 0
        with torch.no_grad():
            for batch in dev_batches:
                logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
                right += int((logits.argmax(-1) == batch["labels"]).sum())
        accuracies.append(right / sum(len(batch["labels"]) for batch in dev_batches))
    model.train()
    return accuracies


@EX11_4.correct
def learning_rate_set_by_hand_each_step(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """No scheduler object: each step's rate written into the optimizer's groups by hand before its step; set_to_none zeroing; the accuracy from a concatenation of the dev predictions."""
    params = list(model.parameters())
    optimizer = torch.optim.AdamW([
        dict(params=[p for p in params if p.ndim > 1], weight_decay=0.01),
        dict(params=[p for p in params if p.ndim <= 1], weight_decay=0.0),
    ], lr=lr, eps=1e-6)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    step = 0
    accuracies = []
    for _ in range(epochs):
        model.train()
        for batch in train_batches:
            factor = step / warmup if step < warmup else max(0.0, 1 - step / total)
            for group in optimizer.param_groups:
                group["lr"] = lr * factor
            loss = F.cross_entropy(model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"]),
                                   batch["labels"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
        model.eval()
        with torch.no_grad():
            predictions = torch.cat([
                model(b["input_ids"], b["token_type_ids"], b["attention_mask"]).argmax(-1) for b in dev_batches])
        labels = torch.cat([b["labels"] for b in dev_batches])
        accuracies.append(int((predictions == labels).sum()) / len(labels))
    model.train()
    return accuracies


# --- batch 6: written without reading any checker ------------------------------------------
EX11_5 = Exercise("11.5", "mlm_logits")
EX11_5.batch = 6


@EX11_5.bug
def transform_weight_used_as_stored(hidden, weights):
    """I multiplied the hidden states by cls.predictions.transform.dense.weight as stored, hidden @ W, forgetting that a checkpoint keeps a linear weight as (out, in); the matrix is square, so nothing complains.
    Differs on: random hidden (2, 5, 128) with the course model's weights: logits off by up to about 13, the top piece different at every position."""
    W = weights["cls.predictions.transform.dense.weight"]
    b = weights["cls.predictions.transform.dense.bias"]
    x = F.gelu(hidden @ W + b)
    x = F.layer_norm(x, (x.shape[-1],), weights["cls.predictions.transform.LayerNorm.weight"],
                     weights["cls.predictions.transform.LayerNorm.bias"], eps=1e-12)
    return x @ weights["bert.embeddings.word_embeddings.weight"].T + weights["cls.predictions.bias"]


@EX11_5.bug
def layer_norm_by_hand_with_the_unbiased_variance(hidden, weights):
    """I wrote the LayerNorm by hand with x.var(-1, keepdim=True), whose default is the unbiased variance (divided by H - 1), where LayerNorm divides by H.
    Differs on: random hidden (2, 5, 128) with the course model's weights: every normalised value is sqrt(127/128) of the right one, the logits are off by up to about 5e-2 (the top five unchanged)."""
    x = hidden @ weights["cls.predictions.transform.dense.weight"].t() + weights["cls.predictions.transform.dense.bias"]
    x = F.gelu(x)
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True)
    x = (x - mean) / torch.sqrt(var + 1e-12)
    x = x * weights["cls.predictions.transform.LayerNorm.weight"] + weights["cls.predictions.transform.LayerNorm.bias"]
    return x @ weights["bert.embeddings.word_embeddings.weight"].t() + weights["cls.predictions.bias"]


@EX11_5.bug
def gelu_with_the_tanh_approximation(hidden, weights):
    """I wrote GELU as the tanh approximation of the original BERT code, 0.5·x·(1 + tanh(sqrt(2/π)(x + 0.044715x³))), where the course model's "gelu" is the exact erf form.
    Differs on: random hidden (2, 5, 128) with the course model's weights: logits off by up to about 2e-3 (the top five unchanged)."""
    x = F.linear(hidden, weights["cls.predictions.transform.dense.weight"], weights["cls.predictions.transform.dense.bias"])
    x = 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    x = F.layer_norm(x, x.shape[-1:], weights["cls.predictions.transform.LayerNorm.weight"],
                     weights["cls.predictions.transform.LayerNorm.bias"], eps=1e-12)
    return F.linear(x, weights["bert.embeddings.word_embeddings.weight"], weights["cls.predictions.bias"])


@EX11_5.bug
def decoder_bias_left_out(hidden, weights):
    """I took the tied decoder to be just the word-embedding matrix, as the input embeddings have no bias, and left out cls.predictions.bias.
    Differs on: random hidden (2, 5, 128) with the course model's weights: every logit of piece v is off by cls.predictions.bias[v], up to about 4.4, and the top five differ at most positions."""
    x = torch.einsum("bth,oh->bto", hidden, weights["cls.predictions.transform.dense.weight"])
    x = F.gelu(x + weights["cls.predictions.transform.dense.bias"])
    x = F.layer_norm(x, x.shape[-1:], weights["cls.predictions.transform.LayerNorm.weight"],
                     weights["cls.predictions.transform.LayerNorm.bias"], eps=1e-12)
    return torch.einsum("bth,vh->btv", x, weights["bert.embeddings.word_embeddings.weight"])


@EX11_5.correct
def modules_loaded_from_the_checkpoint(hidden, weights):
    """nn.Linear (skip_init), nn.GELU and nn.LayerNorm modules built from the tensors' shapes and filled with load_state_dict, the decoder by torch.addmm on the flattened tokens."""
    E = weights["bert.embeddings.word_embeddings.weight"]
    V, H = E.shape
    transform = nn.Sequential(nn.utils.skip_init(nn.Linear, H, H, dtype=E.dtype), nn.GELU(),
                              nn.LayerNorm(H, eps=1e-12, dtype=E.dtype))
    transform.load_state_dict({
        "0.weight": weights["cls.predictions.transform.dense.weight"],
        "0.bias": weights["cls.predictions.transform.dense.bias"],
        "2.weight": weights["cls.predictions.transform.LayerNorm.weight"],
        "2.bias": weights["cls.predictions.transform.LayerNorm.bias"],
    })
    x = transform(hidden)
    flat = torch.addmm(weights["cls.predictions.bias"], x.reshape(-1, H), E.t())
    return flat.reshape(*hidden.shape[:-1], V)


# --- batch 7: written without reading any checker ------------------------------------------
EX11_1.batch = 7


def _g7_clean_lower_strip(text):
    """Steps 1a-1c of the statement: drop Cc/Cf (keeping tab, newline, return), lower-case, NFD, drop Mn."""
    text = "".join(ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf"))
    text = unicodedata.normalize("NFD", text.lower())
    return "".join(ch for ch in text if unicodedata.category(ch) != "Mn")


def _g7_is_punct(ch):
    return unicodedata.category(ch).startswith("P") or (ch.isascii() and not ch.isalnum())


def _g7_split_punct(chunk):
    """One whitespace-free chunk -> its words, every punctuation mark a word of its own."""
    words, current = [], ""
    for ch in chunk:
        if _g7_is_punct(ch):
            if current:
                words.append(current)
            words.append(ch)
            current = ""
        else:
            current += ch
    if current:
        words.append(current)
    return words


def _g7_wordpiece(word, vocab):
    """Greedy longest-first WordPiece of one word -> ids, or [UNK] alone when stuck or over 100 characters."""
    if len(word) > 100:
        return [vocab["[UNK]"]]
    ids, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = ("##" if start else "") + word[start:end]
            if piece in vocab:
                ids.append(vocab[piece])
                start = end
                break
        else:
            return [vocab["[UNK]"]]
    return ids


@EX11_1.bug
def only_unicode_punctuation_split_off(text, vocab):
    """I split off the characters whose Unicode category starts with P, and forgot the statement's second half: every ASCII character that is neither a letter nor a digit ($, +, <, =, >, ^, `, |, ~ are symbols, S*, not P*).
    Differs on: "$5 a+b" (MiniLM's vocab): $, ##5, a, ##+, ##b [1002, 2629, 1037, 29622, 2497] instead of $, 5, a, +, b [1002, 1019, 1037, 1009, 1038]."""
    text = _g7_clean_lower_strip(text)
    words = []
    for chunk in text.split():
        current = ""
        for ch in chunk:
            if unicodedata.category(ch).startswith("P"):
                words += [current] if current else []
                words.append(ch)
                current = ""
            else:
                current += ch
        words += [current] if current else []
    return [i for word in words for i in _g7_wordpiece(word, vocab)]


@EX11_1.bug
def lower_cased_with_casefold(text, vocab):
    """I lower-cased with str.casefold(), the "stronger" lower() meant for caseless matching, which also rewrites ß as ss (and a few others, like the final sigma).
    Differs on: "straße" (MiniLM's vocab): st, ##ras, ##se [2358, 8180, 3366] instead of st, ##raße [2358, 27807] (and the ligature in "ﬁne" becomes fine)."""
    text = "".join(ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf"))
    text = unicodedata.normalize("NFD", text.casefold())
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    ids = []
    for chunk in text.split():
        for word in _g7_split_punct(chunk):
            ids.extend(_g7_wordpiece(word, vocab))
    return ids


@EX11_1.bug
def hundred_characters_counted_before_the_punctuation_split(text, vocab):
    """I applied the 100-character rule to each whitespace-separated chunk, before splitting off its punctuation, so a long chunk made of short words becomes one [UNK].
    Differs on: "a" * 60 + "," + "b" * 50 (MiniLM's vocab): [100] instead of the pieces of the 60 a's, then ',' (1010), then the pieces of the 50 b's."""
    unk = vocab["[UNK]"]
    ids = []
    for chunk in _g7_clean_lower_strip(text).split():
        if len(chunk) > 100:
            ids.append(unk)
            continue
        for word in _g7_split_punct(chunk):
            ids += _g7_wordpiece(word, vocab)
    return ids


@EX11_1.bug
def piece_grown_one_character_at_a_time(text, vocab):
    """I grew each piece one character at a time while it was still in the vocabulary and cut where it stopped, which finds the longest piece only when all its prefixes are pieces too.
    Differs on: "Hello, World!" (MiniLM's vocab): he, ##llo, ',', wo, ##rl, ##d, ! [2002, 7174, 1010, 24185, 12190, 2094, 999] instead of hello, ',', world, ! [7592, 1010, 2088, 999] ("hel" and "wor" are not pieces)."""
    unk = vocab["[UNK]"]
    ids = []
    for chunk in _g7_clean_lower_strip(text).split():
        for word in _g7_split_punct(chunk):
            if len(word) > 100:
                ids.append(unk)
                continue
            pieces, start = [], 0
            while start < len(word):
                prefix = "##" if start else ""
                end = start
                while end < len(word) and prefix + word[start:end + 1] in vocab:
                    end += 1
                if end == start:
                    pieces = [unk]
                    break
                pieces.append(vocab[prefix + word[start:end]])
                start = end
            ids += pieces
    return ids


@EX11_1.correct
def groupby_words_and_recursive_longest_match(text, vocab):
    """The words from itertools.groupby over the characters (a space, a mark, or a letter run), WordPiece as a loop over candidate lengths with max() of those in vocab."""
    kept = (ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf"))
    decomposed = unicodedata.normalize("NFD", "".join(kept).lower())
    chars = [ch for ch in decomposed if unicodedata.category(ch) != "Mn"]

    def kind(indexed):
        i, ch = indexed
        if ch.isspace():
            return ("space",)
        if unicodedata.category(ch).startswith("P") or (ord(ch) < 128 and not ch.isalnum()):
            return ("mark", i)  # every mark in a group of its own
        return ("letters",)

    words = ["".join(ch for _, ch in group) for key, group in itertools.groupby(enumerate(chars), key=kind)
             if key[0] != "space"]
    unk = vocab["[UNK]"]
    ids = []
    for word in words:
        if len(word) > 100:
            ids.append(unk)
            continue
        pieces, start = [], 0
        while start < len(word):
            prefix = "##" if start > 0 else ""
            lengths = [n for n in range(1, len(word) - start + 1) if prefix + word[start:start + n] in vocab]
            if not lengths:
                pieces = [unk]
                break
            n = max(lengths)
            pieces.append(vocab[prefix + word[start:start + n]])
            start += n
        ids += pieces
    return ids


# --- batch 7: written without reading any checker ------------------------------------------
EX11_4.batch = 7


def _g7_dev_accuracy(model, dev_batches):
    model.eval()
    right = seen = 0
    with torch.no_grad():
        for batch in dev_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            right += int((logits.argmax(-1) == batch["labels"]).sum())
            seen += len(batch["labels"])
    model.train()
    return right / seen


@EX11_4.bug
def schedule_stepped_before_the_optimizer(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I stepped the schedule first and the optimizer second in each step (to have the new rate ready), so every step runs at the next step's rate and the first one is not at 0.
    Differs on: a 1-layer H=32 BERT, 4 train batches of 4, 3 epochs, lr 1e-3, warmup 0.1 (1 warm-up step of 12): step 0 runs at 11/12 of lr instead of 0, every later step one step ahead: different weights."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                                  lr=lr, eps=1e-6)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total))
    accuracies = []
    for _ in range(epochs):
        model.train()
        for batch in train_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            loss = F.cross_entropy(logits, batch["labels"])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scheduler.step()
            optimizer.step()
        accuracies.append(_g7_dev_accuracy(model, dev_batches))
    return accuracies


@EX11_4.bug
def decay_only_above_two_dimensions(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I put the weight decay on the parameters with p.dim() > 2, an off-by-one for "ndim >= 2", so no matrix (they are all 2-D) is decayed at all.
    Differs on: a 1-layer H=32 BERT, 4 train batches of 4, 3 epochs, lr 1e-3: every weight matrix misses its 0.01 decay, so different weights (about lr·0.01·w per step)."""
    matrices = [p for p in model.parameters() if p.dim() > 2]
    others = [p for p in model.parameters() if p.dim() <= 2]
    optimizer = torch.optim.AdamW([dict(params=matrices, weight_decay=0.01), dict(params=others, weight_decay=0.0)],
                                  lr=lr, eps=1e-6)
    steps = epochs * len(train_batches)
    warm = int(warmup_proportion * steps)

    def rate(step):
        if step < warm:
            return step / warm
        return max(0.0, 1.0 - step / steps)

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, rate)
    history = []
    for _ in range(epochs):
        model.train()
        for batch in train_batches:
            out = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            F.cross_entropy(out, batch["labels"]).backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        history.append(_g7_dev_accuracy(model, dev_batches))
    return history


@EX11_4.bug
def adamw_with_its_default_eps(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I set up AdamW with the two parameter groups and the rate, and left eps at torch's default 1e-8 instead of BERT's 1e-6.
    Differs on: a 1-layer H=32 BERT, 4 train batches of 4, 3 epochs, lr 1e-3: different weights, up to about 1e-3 apart after the 12 steps (eps weighs most where a gradient's running RMS is small)."""
    groups = [{"params": [p for p in model.parameters() if p.ndim >= 2], "weight_decay": 0.01},
              {"params": [p for p in model.parameters() if p.ndim < 2], "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=lr)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: s / warmup if s < warmup else max(0.0, 1 - s / total))
    accuracies = []
    for _ in range(epochs):
        model.train()
        for batch in train_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            F.cross_entropy(logits, batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        accuracies.append(_g7_dev_accuracy(model, dev_batches))
    return accuracies


@EX11_4.bug
def train_batches_shuffled_each_epoch(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """Out of habit I shuffled the training batches at the start of every epoch with random.shuffle, which ignores "in the order given" and reorders the caller's list in place.
    Differs on: a 1-layer H=32 BERT, 4 train batches of 4, 3 epochs, lr 1e-3: the batches in another order (unless every shuffle keeps it), so different weights, and train_batches is left reordered."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                                  lr=lr, eps=1e-6)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total))
    accuracies = []
    for _ in range(epochs):
        random.shuffle(train_batches)
        model.train()
        for batch in train_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            F.cross_entropy(logits, batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        accuracies.append(_g7_dev_accuracy(model, dev_batches))
    return accuracies


@EX11_4.correct
def one_loop_over_all_steps(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """One loop over every step of every epoch (itertools.product), nn.CrossEntropyLoss, the schedule as a named function, dev scored when an epoch's last batch is done."""
    params = list(model.parameters())
    optimizer = torch.optim.AdamW([dict(params=[p for p in params if len(p.shape) >= 2], weight_decay=0.01),
                                   dict(params=[p for p in params if len(p.shape) < 2], weight_decay=0.0)],
                                  lr=lr, eps=1e-6)
    per_epoch = len(train_batches)
    total = epochs * per_epoch
    warmup = int(warmup_proportion * total)

    def bert_multiplier(step):
        return step / warmup if step < warmup else max(0.0, 1 - step / total)

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, bert_multiplier)
    loss_fn = nn.CrossEntropyLoss()
    accuracies = []
    model.train()
    for step, (epoch, i) in enumerate(itertools.product(range(epochs), range(per_epoch))):
        batch = train_batches[i]
        loss = loss_fn(model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"]), batch["labels"])
        loss.backward()
        nn.utils.clip_grad_norm_(params, max_norm=1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        if i == per_epoch - 1:
            model.eval()
            with torch.no_grad():
                hits = [(model(b["input_ids"], b["token_type_ids"], b["attention_mask"]).argmax(-1) == b["labels"])
                        for b in dev_batches]
            hits = torch.cat(hits)
            accuracies.append(int(hits.sum()) / hits.numel())
            model.train()
    return accuracies


# --- batch 7: written without reading any checker ------------------------------------------
EX11_5.batch = 7


@EX11_5.bug
def layer_norm_before_the_gelu(hidden, weights):
    """I wrote the transform as dense, LayerNorm, then GELU (normalise first, as pre-LN models do), instead of dense, GELU, LayerNorm.
    Differs on: random hidden (2, 5, 128) with the course model's weights: logits off by several units, the top five different at most positions."""
    x = F.linear(hidden, weights["cls.predictions.transform.dense.weight"], weights["cls.predictions.transform.dense.bias"])
    x = F.layer_norm(x, x.shape[-1:], weights["cls.predictions.transform.LayerNorm.weight"],
                     weights["cls.predictions.transform.LayerNorm.bias"], eps=1e-12)
    x = F.gelu(x)
    return F.linear(x, weights["bert.embeddings.word_embeddings.weight"], weights["cls.predictions.bias"])


@EX11_5.bug
def layer_norm_module_with_its_default_eps(hidden, weights):
    """I built an nn.LayerNorm(H) for the transform and loaded its weight and bias, leaving eps at the module's default 1e-5 instead of BERT's 1e-12.
    Differs on: random hidden (2, 5, 128) with the course model's weights: logits off by about 1e-5 to 1e-4 (more where a position's GELU outputs vary little), the top five unchanged."""
    H = hidden.shape[-1]
    norm = nn.LayerNorm(H)
    with torch.no_grad():
        norm.weight.copy_(weights["cls.predictions.transform.LayerNorm.weight"])
        norm.bias.copy_(weights["cls.predictions.transform.LayerNorm.bias"])
    x = hidden @ weights["cls.predictions.transform.dense.weight"].T + weights["cls.predictions.transform.dense.bias"]
    x = norm(F.gelu(x))
    return x @ weights["bert.embeddings.word_embeddings.weight"].T + weights["cls.predictions.bias"]


@EX11_5.bug
def log_probabilities_returned(hidden, weights):
    """I ended the head with log_softmax over the vocabulary, as the masked-LM loss works with log-probabilities, and returned those as the logits.
    Differs on: random hidden (2, 5, 128) with the course model's weights: every position's logits shifted by its log-sum-exp (all values negative), the ranking and top five unchanged."""
    dense_w = weights["cls.predictions.transform.dense.weight"]
    dense_b = weights["cls.predictions.transform.dense.bias"]
    x = F.gelu(torch.matmul(hidden, dense_w.t()) + dense_b)
    x = F.layer_norm(x, (x.size(-1),), weights["cls.predictions.transform.LayerNorm.weight"],
                     weights["cls.predictions.transform.LayerNorm.bias"], 1e-12)
    logits = torch.matmul(x, weights["bert.embeddings.word_embeddings.weight"].t()) + weights["cls.predictions.bias"]
    return F.log_softmax(logits, dim=-1)


@EX11_5.bug
def one_sentence_as_a_matrix(hidden, weights):
    """I wrote it for the notebook's single sentence: hidden[0] as a (T, H) matrix through torch.addmm, and [None] to give the batch axis back.
    Differs on: random hidden (2, 5, 128) with the course model's weights: (1, 5, V), the first row's logits only, instead of (2, 5, V)."""
    x = hidden[0]
    x = F.gelu(torch.addmm(weights["cls.predictions.transform.dense.bias"], x,
                           weights["cls.predictions.transform.dense.weight"].t()))
    x = F.layer_norm(x, x.shape[-1:], weights["cls.predictions.transform.LayerNorm.weight"],
                     weights["cls.predictions.transform.LayerNorm.bias"], eps=1e-12)
    logits = torch.addmm(weights["cls.predictions.bias"], x, weights["bert.embeddings.word_embeddings.weight"].t())
    return logits[None]


@EX11_5.correct
def einsum_with_erf_gelu_and_layer_norm_by_hand(hidden, weights):
    """torch.einsum for both products, GELU written with erf, LayerNorm by hand with the biased variance and eps 1e-12."""
    x = torch.einsum("bth,oh->bto", hidden, weights["cls.predictions.transform.dense.weight"])
    x = x + weights["cls.predictions.transform.dense.bias"]
    x = 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    x = (x - mean) * torch.rsqrt(var + 1e-12)
    x = x * weights["cls.predictions.transform.LayerNorm.weight"] + weights["cls.predictions.transform.LayerNorm.bias"]
    E = weights["bert.embeddings.word_embeddings.weight"]
    return torch.einsum("bth,vh->btv", x, E) + weights["cls.predictions.bias"]


# --- batch 8: written without reading any checker ------------------------------------------
EX11_1.batch = 8


def _p6_is_punctuation(ch):
    return unicodedata.category(ch).startswith("P") or (ch.isascii() and not ch.isalnum())


def _p6_clean(text):
    """Drop Cc/Cf (keeping tab, newline, return), lower-case, NFD, drop the Mn marks."""
    text = "".join(ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf"))
    text = unicodedata.normalize("NFD", text.lower())
    return "".join(ch for ch in text if unicodedata.category(ch) != "Mn")


def _p6_split_punctuation(chunk, is_punctuation=_p6_is_punctuation):
    words, current = [], ""
    for ch in chunk:
        if is_punctuation(ch):
            if current:
                words.append(current)
            words.append(ch)
            current = ""
        else:
            current += ch
    if current:
        words.append(current)
    return words


def _p6_wordpiece(word, vocab):
    if len(word) > 100:
        return [vocab["[UNK]"]]
    ids, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start and ("##" if start else "") + word[start:end] not in vocab:
            end -= 1
        if end == start:
            return [vocab["[UNK]"]]
        ids.append(vocab[("##" if start else "") + word[start:end]])
        start = end
    return ids


@EX11_1.bug
def words_split_on_the_space_character(text, vocab):
    """I split the cleaned text into words with text.split(" "), on the space character, so a tab or a newline stays inside a chunk, where it is then split off as an ASCII non-alphanumeric and looked up as a piece.
    Differs on: "good\\tfilm" (MiniLM's vocab): good, [UNK], film [2204, 100, 2143] instead of good, film [2204, 2143] (and "a\\nb" likewise)."""
    ids = []
    for chunk in _p6_clean(text).split(" "):
        for word in _p6_split_punctuation(chunk):
            ids += _p6_wordpiece(word, vocab)
    return ids


@EX11_1.bug
def compatibility_decomposition_nfkd(text, vocab):
    """I normalised with NFKD, thinking the K only makes the accent stripping more thorough; it also rewrites compatibility characters (ligatures, superscripts, fractions, full-width letters) into plain ones.
    Differs on: "x² ½" (MiniLM's vocab): x, ##2, 1, ##⁄, ##2 [1060, 2475, 1015, 30070, 2475] instead of x, ##², ½ [1060, 10701, 1092]."""
    text = "".join(ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf"))
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    ids = []
    for chunk in text.split():
        for word in _p6_split_punctuation(chunk):
            ids += _p6_wordpiece(word, vocab)
    return ids


@EX11_1.bug
def continuation_piece_id_without_its_prefix(text, vocab):
    """I tested each later piece with "##" in front, but appended the id of the piece as I had cut it from the word, without the "##".
    Differs on: "embeddings" (MiniLM's vocab): em, bed, ding, s [7861, 2793, 22033, 1055] instead of em, ##bed, ##ding, ##s [7861, 8270, 4667, 2015]; "Café crème!" raises KeyError ('eme' is no bare piece)."""
    unk = vocab["[UNK]"]
    ids = []
    for chunk in _p6_clean(text).split():
        for word in _p6_split_punctuation(chunk):
            if len(word) > 100:
                ids.append(unk)
                continue
            pieces, start = [], 0
            while start < len(word):
                for end in range(len(word), start, -1):
                    piece = word[start:end]
                    if (("##" + piece) if start else piece) in vocab:
                        pieces.append(vocab[piece])
                        start = end
                        break
                else:
                    pieces = [unk]
                    break
            ids += pieces
    return ids


@EX11_1.bug
def every_non_alphanumeric_split_off(text, vocab):
    """For the punctuation I split off every character that is not a letter or a digit, dropping the statement's "ASCII" from its second half, so non-ASCII symbols (€, ©, emoji) become words of their own too.
    Differs on: "great😀" (MiniLM's vocab): great, [UNK] [2307, 100] instead of a single [UNK] [100] (the word cannot be cut to its end); "5€" gives 5, € [1019, 1574] instead of 5, ##€ [1019, 30102]."""
    def is_punctuation(ch):
        return unicodedata.category(ch).startswith("P") or not ch.isalnum()

    ids = []
    for chunk in _p6_clean(text).split():
        for word in _p6_split_punctuation(chunk, is_punctuation):
            ids += _p6_wordpiece(word, vocab)
    return ids


@EX11_1.correct
def state_machine_and_pieces_bounded_by_the_longest(text, vocab):
    """One pass over the characters as a small state machine (in a word or not), and WordPiece trying only piece lengths up to the longest piece in the vocabulary."""
    longest = max(len(p[2:]) if p.startswith("##") else len(p) for p in vocab)
    unk = vocab["[UNK]"]
    words, current, in_word = [], [], False
    decomposed = unicodedata.normalize("NFD", "".join(
        ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf")).lower())
    for ch in decomposed + " ":
        cat = unicodedata.category(ch)
        if cat == "Mn":
            continue
        if ch.isspace():
            if in_word:
                words.append("".join(current))
            current, in_word = [], False
        elif cat[0] == "P" or (ord(ch) < 128 and not ch.isalnum()):
            if in_word:
                words.append("".join(current))
            words.append(ch)
            current, in_word = [], False
        else:
            current.append(ch)
            in_word = True
    ids = []
    for word in words:
        if len(word) > 100:
            ids.append(unk)
            continue
        out, start = [], 0
        while start < len(word):
            prefix = "##" if start else ""
            found = None
            for end in range(min(len(word), start + longest), start, -1):
                if prefix + word[start:end] in vocab:
                    found = end
                    break
            if found is None:
                out = [unk]
                break
            out.append(vocab[prefix + word[start:found]])
            start = found
        ids.extend(out)
    return ids


# --- batch 8: written without reading any checker ------------------------------------------
EX11_4.batch = 8


def _p6_adamw(model, lr):
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                             lr=lr, eps=1e-6)


def _p6_logits(model, batch):
    return model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])


@EX11_4.bug
def warm_up_steps_rounded_up(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I took the warm-up as math.ceil(warmup_proportion × all steps), so that a proportion of a step still gets one, instead of int(), which rounds down.
    Differs on: a 1-layer H=32 BERT, 4 train batches of 4, 3 epochs (12 steps), lr 1e-3, warmup 0.1: 1.2 becomes 2 warm-up steps instead of 1, step 1 runs at 0.5·lr instead of 11/12·lr: different weights."""
    optimizer = _p6_adamw(model, lr)
    total = epochs * len(train_batches)
    warmup = math.ceil(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total))
    accuracies = []
    for _ in range(epochs):
        model.train()
        for batch in train_batches:
            F.cross_entropy(_p6_logits(model, batch), batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        model.eval()
        right = seen = 0
        with torch.no_grad():
            for batch in dev_batches:
                right += int((_p6_logits(model, batch).argmax(-1) == batch["labels"]).sum())
                seen += len(batch["labels"])
        accuracies.append(right / seen)
    model.train()
    return accuracies


@EX11_4.bug
def schedule_as_the_smaller_of_the_two_lines(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I wrote the schedule in one line as min(step / warmup, 1 - step / all_steps), the two lines of the triangle, which divides by zero when the warm-up is shorter than a step.
    Differs on: a 1-layer H=32 BERT, 4 train batches of 4, 2 epochs (8 steps, warmup int(0.8) = 0), lr 1e-3: ZeroDivisionError instead of training at 1 - step/8 (it also differs once all steps exceed about 110, where the warm-up line crosses the decay line before the warm-up ends)."""
    optimizer = _p6_adamw(model, lr)
    all_steps = epochs * len(train_batches)
    warmup = int(warmup_proportion * all_steps)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: max(0.0, min(step / warmup, 1 - step / all_steps)))
    accuracies = []
    for _ in range(epochs):
        model.train()
        for batch in train_batches:
            loss = F.cross_entropy(_p6_logits(model, batch), batch["labels"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        model.eval()
        with torch.no_grad():
            hits = sum(int((_p6_logits(model, b).argmax(-1) == b["labels"]).sum()) for b in dev_batches)
        accuracies.append(hits / sum(b["labels"].numel() for b in dev_batches))
    model.train()
    return accuracies


@EX11_4.bug
def gradients_clipped_by_value(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I clipped the gradients with torch.nn.utils.clip_grad_value_(params, 1.0), which caps each entry at ±1, where BERT clips their global norm to 1.0 (clip_grad_norm_).
    Differs on: a 1-layer H=32 BERT, 4 train batches of 4, 3 epochs, lr 1e-3: a gradient of global norm above 1 is not rescaled (AdamW then sees other moments), so different weights."""
    optimizer = _p6_adamw(model, lr)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total))
    accuracies = []
    for _ in range(epochs):
        model.train()
        for batch in train_batches:
            F.cross_entropy(_p6_logits(model, batch), batch["labels"]).backward()
            torch.nn.utils.clip_grad_value_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        model.eval()
        right = 0
        with torch.no_grad():
            for batch in dev_batches:
                right += int((_p6_logits(model, batch).argmax(-1) == batch["labels"]).sum())
        accuracies.append(right / sum(len(b["labels"]) for b in dev_batches))
    model.train()
    return accuracies


@EX11_4.bug
def left_in_eval_mode_after_the_last_epoch(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I put model.train() at the top of each epoch and model.eval() before its dev pass, and returned after the last dev pass without switching back to training.
    Differs on: a 1-layer H=32 BERT with dropout 0.1, 4 train batches of 4, 3 epochs, lr 1e-3: the same weights and accuracies, but the model comes back with model.training False (dropout off for whoever trains it next)."""
    optimizer = _p6_adamw(model, lr)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total))
    accuracies = []
    for _ in range(epochs):
        model.train()
        for batch in train_batches:
            F.cross_entropy(_p6_logits(model, batch), batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        model.eval()
        with torch.no_grad():
            predictions = torch.cat([_p6_logits(model, b).argmax(-1) for b in dev_batches])
        labels = torch.cat([b["labels"] for b in dev_batches])
        accuracies.append((predictions == labels).float().mean().item())
    return accuracies


def _p6_bert_multiplier(step, warmup, total):
    if step < warmup:
        return step / warmup
    return max(0.0, 1 - step / total)


@EX11_4.correct
def named_parameter_groups_and_nll_of_log_softmax(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """Parameter groups from named_parameters by ndim, the schedule as functools.partial of a module-level function, the loss as nll_loss of log_softmax, gradients zeroed before each backward, accuracy counted with Python ints."""
    named = list(model.named_parameters())
    optimizer = torch.optim.AdamW(
        [{"params": [p for _, p in named if p.dim() >= 2], "weight_decay": 0.01},
         {"params": [p for _, p in named if p.dim() < 2], "weight_decay": 0.0}], lr=lr, eps=1e-6)
    total = epochs * len(train_batches)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, functools.partial(_p6_bert_multiplier, warmup=int(warmup_proportion * total), total=total))
    history = []
    for _ in range(epochs):
        model.train(True)
        for batch in train_batches:
            optimizer.zero_grad()
            log_probs = F.log_softmax(_p6_logits(model, batch), dim=-1)
            F.nll_loss(log_probs, batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_([p for _, p in named], max_norm=1.0)
            optimizer.step()
            scheduler.step()
        model.train(False)
        correct = count = 0
        with torch.no_grad():
            for batch in dev_batches:
                guesses = _p6_logits(model, batch).argmax(dim=-1).tolist()
                correct += sum(int(g == y) for g, y in zip(guesses, batch["labels"].tolist()))
                count += len(guesses)
        history.append(correct / count)
    model.train(True)
    return history


# --- batch 8: written without reading any checker ------------------------------------------
EX11_5.batch = 8


@EX11_5.bug
def layer_norm_statistics_over_the_tokens(hidden, weights):
    """I wrote the LayerNorm by hand and took the mean and variance over dim=1, which for (B, T, H) states is the tokens axis, not the hidden one.
    Differs on: random hidden (2, 5, 128) with the course model's weights: each feature is normalised across the 5 positions instead of each position across its 128 features; logits off by several units, the top five different."""
    x = F.gelu(hidden @ weights["cls.predictions.transform.dense.weight"].T + weights["cls.predictions.transform.dense.bias"])
    mean = x.mean(dim=1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=1, keepdim=True)
    x = (x - mean) / torch.sqrt(var + 1e-12)
    x = x * weights["cls.predictions.transform.LayerNorm.weight"] + weights["cls.predictions.transform.LayerNorm.bias"]
    return x @ weights["bert.embeddings.word_embeddings.weight"].T + weights["cls.predictions.bias"]


@EX11_5.bug
def dense_bias_added_after_the_gelu(hidden, weights):
    """I applied GELU to the product with the dense weight and added the dense bias afterwards, as if the bias belonged to the next step.
    Differs on: random hidden (2, 5, 128) with the course model's weights: GELU(hW^T) + b instead of GELU(hW^T + b); logits off by up to about 2, the top five different at most positions."""
    x = F.gelu(torch.matmul(hidden, weights["cls.predictions.transform.dense.weight"].t()))
    x = x + weights["cls.predictions.transform.dense.bias"]
    x = F.layer_norm(x, x.shape[-1:], weights["cls.predictions.transform.LayerNorm.weight"],
                     weights["cls.predictions.transform.LayerNorm.bias"], eps=1e-12)
    return torch.matmul(x, weights["bert.embeddings.word_embeddings.weight"].t()) + weights["cls.predictions.bias"]


@EX11_5.bug
def layer_norm_gain_and_shift_swapped(hidden, weights):
    """I passed the LayerNorm's tensors to F.layer_norm in the order they come in the checkpoint's sorted names, bias then weight, so the shift is used as the gain and the gain as the shift.
    Differs on: random hidden (2, 5, 128) with the course model's weights: x̂·β + γ instead of x̂·γ + β; logits off by several units, the top five different."""
    x = F.linear(hidden, weights["cls.predictions.transform.dense.weight"], weights["cls.predictions.transform.dense.bias"])
    x = F.gelu(x)
    x = F.layer_norm(x, (x.shape[-1],), weights["cls.predictions.transform.LayerNorm.bias"],
                     weights["cls.predictions.transform.LayerNorm.weight"], 1e-12)
    return F.linear(x, weights["bert.embeddings.word_embeddings.weight"], weights["cls.predictions.bias"])


@EX11_5.bug
def layer_norm_without_its_gain_and_shift(hidden, weights):
    """I normalised with F.layer_norm(x, (H,), eps=1e-12) and left out its weight and bias, thinking LayerNorm only normalises.
    Differs on: random hidden (2, 5, 128) with the course model's weights: x̂ instead of x̂·γ + β before the decoder; logits off by several units, the top five different."""
    W = weights["cls.predictions.transform.dense.weight"]
    b = weights["cls.predictions.transform.dense.bias"]
    x = F.gelu(torch.einsum("bth,oh->bto", hidden, W) + b)
    x = F.layer_norm(x, (x.shape[-1],), eps=1e-12)
    E = weights["bert.embeddings.word_embeddings.weight"]
    return torch.einsum("bth,vh->btv", x, E) + weights["cls.predictions.bias"]


@EX11_5.correct
def linear_and_var_mean(hidden, weights):
    """F.linear for both products, the GELU as x·Φ(x) with torch.special.ndtr, the LayerNorm from torch.var_mean (correction 0) and rsqrt."""
    x = F.linear(hidden, weights["cls.predictions.transform.dense.weight"], weights["cls.predictions.transform.dense.bias"])
    x = x * torch.special.ndtr(x)
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
    x = (x - mean) * torch.rsqrt(var + 1e-12)
    x = torch.addcmul(weights["cls.predictions.transform.LayerNorm.bias"], x,
                      weights["cls.predictions.transform.LayerNorm.weight"])
    return F.linear(x, weights["bert.embeddings.word_embeddings.weight"], weights["cls.predictions.bias"])


# --- batch 9: written without reading any checker ------------------------------------------
EX11_1.batch = 9


def _s6_wordpiece(word, vocab):
    """Greedy longest-first WordPiece of one word -> its ids, or [UNK] alone when stuck or over 100 characters."""
    if len(word) > 100:
        return [vocab["[UNK]"]]
    ids, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = ("##" if start else "") + word[start:end]
            if piece in vocab:
                ids.append(vocab[piece])
                start = end
                break
        else:
            return [vocab["[UNK]"]]
    return ids


def _s6_is_punctuation(ch):
    return unicodedata.category(ch).startswith("P") or (ch.isascii() and not ch.isalnum())


def _s6_split_punctuation(chunk):
    words, word = [], ""
    for ch in chunk:
        if _s6_is_punctuation(ch):
            if word:
                words.append(word)
            words.append(ch)
            word = ""
        else:
            word += ch
    if word:
        words.append(word)
    return words


@EX11_1.bug
def only_control_characters_dropped(text, vocab):
    """I dropped the characters of category Cc (keeping tab, newline and return) and forgot the format characters, Cf, so a soft hyphen or a zero-width space stays inside its word.
    Differs on: "co\\u00adoperate" (with a soft hyphen): returns [UNK] instead of the single piece "cooperate" (MiniLM's vocabulary)."""
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cc" or ch in "\t\n\r")
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    ids = []
    for chunk in text.split():
        for word in _s6_split_punctuation(chunk):
            ids += _s6_wordpiece(word, vocab)
    return ids


@EX11_1.bug
def accents_found_with_unicodedata_combining(text, vocab):
    """I stripped the accents the way I had seen it done, dropping every character with unicodedata.combining(ch) != 0; some Mn marks have combining class 0 (the Devanagari anusvara, Thai vowel marks), so they stay.
    Differs on: "हिंदी" (Hindi, with an anusvara U+0902): keeps the anusvara, so the word cannot be cut and becomes [UNK], instead of ह ##ि ##द ##ी (MiniLM's vocabulary)."""
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf") or ch in "\t\n\r")
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    ids = []
    for chunk in text.split():
        for word in _s6_split_punctuation(chunk):
            ids += _s6_wordpiece(word, vocab)
    return ids


@EX11_1.bug
def punctuation_from_string_punctuation(text, vocab):
    """I split off the characters in string.punctuation, Python's list of punctuation, which holds only the 32 ASCII marks, so Unicode punctuation (dashes, curly quotes, «», ¿, …) stays inside the words.
    Differs on: "well—maybe" (an em dash): returns well, ##—, ##may, ##be instead of well, —, maybe (MiniLM's vocabulary)."""
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf") or ch in "\t\n\r")
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    for mark in string.punctuation:
        text = text.replace(mark, f" {mark} ")
    ids = []
    for word in text.split():
        ids += _s6_wordpiece(word, vocab)
    return ids


@EX11_1.bug
def punctuation_peeled_only_off_the_edges(text, vocab):
    """I peeled the punctuation off the start and the end of each whitespace chunk (as for "hello!" or "(yes)"), leaving the marks inside a word where they are, so "don't" or "e-mail" stay one word.
    Differs on: "don't": returns the pieces of the word "don't" (don, ##', ##t) instead of don, ', t (MiniLM's vocabulary)."""
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf") or ch in "\t\n\r")
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    ids = []
    for chunk in text.split():
        lead, trail = [], []
        while chunk and _s6_is_punctuation(chunk[0]):
            lead.append(chunk[0])
            chunk = chunk[1:]
        while chunk and _s6_is_punctuation(chunk[-1]):
            trail.insert(0, chunk[-1])
            chunk = chunk[:-1]
        for word in lead + ([chunk] if chunk else []) + trail:
            ids += _s6_wordpiece(word, vocab)
    return ids


@EX11_1.correct
def spaces_around_marks_and_for_else_wordpiece(text, vocab):
    """Every character mapped in one comprehension (dropped, a mark padded with spaces, or itself), one str.split, WordPiece with a for-else per piece."""
    kept = [ch for ch in text if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf")]
    decomposed = unicodedata.normalize("NFD", "".join(kept).lower())
    spaced = "".join(f" {ch} " if _s6_is_punctuation(ch) else ch
                     for ch in decomposed if unicodedata.category(ch) != "Mn")
    ids = []
    for word in spaced.split():
        ids.extend(_s6_wordpiece(word, vocab))
    return ids


# --- batch 9: written without reading any checker ------------------------------------------
EX11_4.batch = 9


def _s6_bert_optimizer(model, lr):
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                             lr=lr, eps=1e-6)


def _s6_accuracy(model, dev_batches):
    model.eval()
    right = total = 0
    with torch.no_grad():
        for batch in dev_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            right += int((logits.argmax(-1) == batch["labels"]).sum())
            total += len(batch["labels"])
    model.train()
    return right / total


@EX11_4.bug
def gradients_clipped_after_the_step(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I clipped the gradients' norm after optimizer.step(), just before zeroing them, so the step has already used the unclipped gradients and the clipping changes nothing.
    Differs on: a 1-layer H=32 MyBert, 4 training batches of 4 rows, 3 epochs, lr 1e-3: the weights it leaves differ from the right loop's by up to about 1e-3 and the first dev accuracy is 0.5 instead of 0.67 (the steps run unclipped)."""
    optimizer = _s6_bert_optimizer(model, lr)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total))
    accuracies = []
    for epoch in range(epochs):
        model.train()
        for batch in train_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            F.cross_entropy(logits, batch["labels"]).backward()
            optimizer.step()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scheduler.step()
            optimizer.zero_grad()
        accuracies.append(_s6_accuracy(model, dev_batches))
    return accuracies


@EX11_4.bug
def decay_written_with_floor_division(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I wrote the decay as 1 - step // total, with //, as the steps are whole numbers; step // total is 0 until the last step, so after the warm-up the rate stays at lr instead of falling to 0.
    Differs on: a 1-layer H=32 MyBert, 4 training batches of 4 rows, 3 epochs, lr 1e-3: the rate after the warm-up is 1e-3 at every step (instead of falling from 0.92e-3 to 0.08e-3), and the weights differ."""
    optimizer = _s6_bert_optimizer(model, lr)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step // total))
    accuracies = []
    for epoch in range(epochs):
        model.train()
        for batch in train_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            F.cross_entropy(logits, batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        accuracies.append(_s6_accuracy(model, dev_batches))
    return accuracies


@EX11_4.bug
def dev_scored_without_switching_dropout_off(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I scored the dev batches under torch.no_grad() and took that to be evaluation mode, never calling model.eval(), so dropout still acts while the dev accuracy is measured.
    Differs on: a 1-layer H=32 MyBert, 4 training batches of 4 rows, 2 dev batches (6 rows), 3 epochs, lr 1e-3, dropout 0.1: the accuracies (and, as dropout draws random numbers, the weights) differ from the right loop's."""
    optimizer = _s6_bert_optimizer(model, lr)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total))
    accuracies = []
    model.train()
    for epoch in range(epochs):
        for batch in train_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            F.cross_entropy(logits, batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        right = total_rows = 0
        with torch.no_grad():
            for batch in dev_batches:
                logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
                right += int((logits.argmax(-1) == batch["labels"]).sum())
                total_rows += len(batch["labels"])
        accuracies.append(right / total_rows)
    return accuracies


@EX11_4.bug
def right_answers_counted_across_the_epochs(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """I set right = 0 once, before the epochs, and divided by the dev size after each epoch, so from the second epoch on the count still holds the earlier epochs' right answers.
    Differs on: a 1-layer H=32 MyBert, 4 training batches of 4 rows, 2 dev batches (6 rows), 3 epochs, lr 1e-3: returns [0.67, 1.33, 2.17], running sums, instead of each epoch's own [0.67, 0.67, 0.83]."""
    optimizer = _s6_bert_optimizer(model, lr)
    total = epochs * len(train_batches)
    warmup = int(warmup_proportion * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total))
    accuracies = []
    right = 0
    size = sum(len(batch["labels"]) for batch in dev_batches)
    for epoch in range(epochs):
        model.train()
        for batch in train_batches:
            logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
            F.cross_entropy(logits, batch["labels"]).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        model.eval()
        with torch.no_grad():
            for batch in dev_batches:
                logits = model(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
                right += int((logits.argmax(-1) == batch["labels"]).sum())
        accuracies.append(right / size)
    model.train()
    return accuracies


@EX11_4.correct
def multipliers_precomputed_in_a_list(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
    """The schedule's multipliers precomputed in a list and read by LambdaLR through list.__getitem__; the groups split in one loop over the parameters; evaluation in a nested helper under torch.inference_mode."""
    groups = {True: [], False: []}
    for p in model.parameters():
        groups[p.ndim >= 2].append(p)
    optimizer = torch.optim.AdamW([dict(params=groups[True], weight_decay=0.01), dict(params=groups[False], weight_decay=0.0)],
                                  lr=lr, eps=1e-6)
    steps = epochs * len(train_batches)
    warm = int(warmup_proportion * steps)
    multipliers = [s / warm if s < warm else max(0.0, 1.0 - s / steps) for s in range(steps + 1)]
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, multipliers.__getitem__)

    def dev_accuracy():
        model.eval()
        with torch.inference_mode():
            hits = [(model(b["input_ids"], b["token_type_ids"], b["attention_mask"]).argmax(dim=1) == b["labels"]).sum().item()
                    for b in dev_batches]
        model.train()
        return sum(hits) / sum(b["labels"].numel() for b in dev_batches)

    history = []
    for _ in range(epochs):
        model.train()
        for b in train_batches:
            loss = torch.nn.functional.cross_entropy(model(b["input_ids"], b["token_type_ids"], b["attention_mask"]), b["labels"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        history.append(dev_accuracy())
    return history


# --- batch 9: written without reading any checker ------------------------------------------
EX11_5.batch = 9


@EX11_5.bug
def embeddings_layer_norm_taken_for_the_transform(hidden, weights):
    """I looked for "LayerNorm" among the checkpoint's names and took the first one that came, bert.embeddings.LayerNorm, for the transform's LayerNorm instead of cls.predictions.transform.LayerNorm.
    Differs on: the course model's weights with hidden = torch.randn(2, 5, 128): the logits differ from the right ones everywhere (the two LayerNorms hold different gains and shifts)."""
    x = F.gelu(F.linear(hidden, weights["cls.predictions.transform.dense.weight"],
                        weights["cls.predictions.transform.dense.bias"]))
    x = F.layer_norm(x, (x.shape[-1],), weights["bert.embeddings.LayerNorm.weight"],
                     weights["bert.embeddings.LayerNorm.bias"], eps=1e-12)
    return F.linear(x, weights["bert.embeddings.word_embeddings.weight"], weights["cls.predictions.bias"])


@EX11_5.bug
def gelu_with_erf_of_x_over_two(hidden, weights):
    """I wrote GELU from memory as 0.5·x·(1 + erf(x / 2)), forgetting that the erf's argument is x / √2.
    Differs on: the course model's weights with hidden = torch.randn(2, 5, 128): every logit moves (GELU(1) comes out 0.760 instead of 0.841)."""
    x = hidden @ weights["cls.predictions.transform.dense.weight"].T + weights["cls.predictions.transform.dense.bias"]
    x = 0.5 * x * (1 + torch.erf(x / 2))
    x = F.layer_norm(x, x.shape[-1:], weights["cls.predictions.transform.LayerNorm.weight"],
                     weights["cls.predictions.transform.LayerNorm.bias"], eps=1e-12)
    return x @ weights["bert.embeddings.word_embeddings.weight"].T + weights["cls.predictions.bias"]


@EX11_5.bug
def residual_added_around_the_transform(hidden, weights):
    """Every block of the encoder adds its input back before the LayerNorm, so I did the same in the transform, LayerNorm(hidden + GELU(dense(hidden))), which the MLM head does not do.
    Differs on: the course model's weights with hidden = torch.randn(2, 5, 128): the logits differ everywhere."""
    x = F.gelu(hidden @ weights["cls.predictions.transform.dense.weight"].T + weights["cls.predictions.transform.dense.bias"])
    x = F.layer_norm(hidden + x, x.shape[-1:], weights["cls.predictions.transform.LayerNorm.weight"],
                     weights["cls.predictions.transform.LayerNorm.bias"], eps=1e-12)
    return x @ weights["bert.embeddings.word_embeddings.weight"].T + weights["cls.predictions.bias"]


@EX11_5.bug
def computed_in_float64_for_precision(hidden, weights):
    """With a vocabulary of logits to rank, I did the whole head in float64 for precision (hidden.double() and every weight .double()) and returned that, so float32 states give float64 logits.
    Differs on: the course model's weights with a float32 hidden = torch.randn(2, 5, 128): returns float64 logits instead of float32 (the values agree to about 1e-5)."""
    W = {name: w.double() for name, w in weights.items() if name.startswith(("cls.predictions", "bert.embeddings.word"))}
    x = F.gelu(hidden.double() @ W["cls.predictions.transform.dense.weight"].T + W["cls.predictions.transform.dense.bias"])
    x = F.layer_norm(x, x.shape[-1:], W["cls.predictions.transform.LayerNorm.weight"],
                     W["cls.predictions.transform.LayerNorm.bias"], eps=1e-12)
    return x @ W["bert.embeddings.word_embeddings.weight"].T + W["cls.predictions.bias"]


@EX11_5.correct
def tensordot_products_and_a_gelu_module(hidden, weights):
    """torch.tensordot for both products (contracting H), an nn.GELU module, LayerNorm from torch.std_mean (unbiased=False) by hand with eps 1e-12 inside the root."""
    dense_w = weights["cls.predictions.transform.dense.weight"]  # (out, in)
    x = torch.tensordot(hidden, dense_w, dims=([hidden.dim() - 1], [1])) + weights["cls.predictions.transform.dense.bias"]
    x = torch.nn.GELU()(x)
    std, mean = torch.std_mean(x, dim=-1, keepdim=True, unbiased=False)
    x = (x - mean) / torch.sqrt(std * std + 1e-12)
    x = x * weights["cls.predictions.transform.LayerNorm.weight"] + weights["cls.predictions.transform.LayerNorm.bias"]
    decoder = weights["bert.embeddings.word_embeddings.weight"]  # (V, H), tied
    return torch.tensordot(x, decoder, dims=([x.dim() - 1], [1])) + weights["cls.predictions.bias"]
