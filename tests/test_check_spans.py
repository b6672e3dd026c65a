"""The checkers of chapter 08's exercises accept the solutions and other correct styles, let the stubs'
NotImplementedError through, and reject the mistakes learners make with feedback that names them."""

import re
import string
import unicodedata
from collections import Counter

import pytest
import torch
from helpers import checker_contract

from minibert import check
from minibert.check import ExerciseError

EXERCISES = [("align_labels", "my_align_labels"), ("best_span", "my_best_span"),
             ("choice_logits", "my_choice_logits"), ("squad_f1", "my_squad_f1")]
SOLUTIONS, STUBS, test_the_solution_passes, test_the_stub_raises_not_implemented = checker_contract(
    "08_tokens_spans_choices", EXERCISES)


# --- 8.1 word labels onto pieces ----------------------------------------------------------------

def align(words, labels, tokenizer, *, where="first", special=-100, shift=0):
    ids, out = [tokenizer.cls_token_id], [special]
    for word, label in zip(words, labels):
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        ids += pieces
        rest = [-100] * (len(pieces) - 1)
        out += {"first": [label] + rest, "last": rest + [label], "every": [label] * len(pieces)}[where]
    out.append(special)
    if shift:
        out = out[1:] + [-100]
    return ids + [tokenizer.sep_token_id], out


def align_word_ids(words, labels, tokenizer):  # one call for the sentence, then word boundaries: correct
    rows = tokenizer(list(words), add_special_tokens=False)["input_ids"]
    word_of = [None] + [w for w, row in enumerate(rows) for _ in row] + [None]
    ids = [tokenizer.cls_token_id] + [i for row in rows for i in row] + [tokenizer.sep_token_id]
    out = [-100 if w is None or word_of[t - 1] == w else labels[w] for t, w in enumerate(word_of)]
    return torch.tensor(ids), torch.tensor(out)


def align_by_ids(words, labels, tokenizer):  # tokenize() and convert_tokens_to_ids, numpy out: correct
    import numpy as np
    ids, out = [tokenizer.cls_token_id], [-100]
    for word, label in zip(words, labels):
        pieces = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(word))
        ids += pieces
        out += [label] + [-100] * (len(pieces) - 1)
    return np.array(ids + [tokenizer.sep_token_id]), np.array(out + [-100])


def align_bert_specials(words, labels, tokenizer):  # BERT's 101 and 102 written in, whatever the tokenizer
    ids, out = align(words, labels, tokenizer)
    return [101, *ids[1:-1], 102], out


def align_by_hash_marks(words, labels, tokenizer):  # the sentence's pieces; every piece without ## starts a word
    ids = [i for w in words for i in tokenizer(w, add_special_tokens=False)["input_ids"]]
    out, word = [], -1
    for piece in tokenizer.convert_ids_to_tokens(ids):
        word += not piece.startswith("##")
        out.append(-100 if piece.startswith("##") or word >= len(labels) else labels[word])
    return [tokenizer.cls_token_id, *ids, tokenizer.sep_token_id], [-100, *out, -100]


def align_by_spelling(words, labels, tokenizer):  # the sentence's pieces regrouped until they spell the word
    ids = tokenizer(" ".join(words), add_special_tokens=False)["input_ids"]
    out, w, spelled = [], 0, ""
    for piece in tokenizer.convert_ids_to_tokens(ids):
        out.append(labels[w] if spelled == "" and w < len(words) else -100)
        spelled += piece.lstrip("#")  # also strips a piece that is '#' itself; 'Café' is spelled 'cafe'
        if w < len(words) and spelled == words[w].lower():
            w, spelled = w + 1, ""
    return [tokenizer.cls_token_id, *ids, tokenizer.sep_token_id], [-100, *out, -100]


def align_popping_labels(words, labels, tokenizer):  # labels.pop(0) word by word: the caller's list emptied
    ids, out = [tokenizer.cls_token_id], [-100]
    for word in words:
        label = labels.pop(0)
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        ids += pieces
        out += [label] + [-100] * (len(pieces) - 1)
    return ids + [tokenizer.sep_token_id], out + [-100]


def align_cut_to_512(words, labels, tokenizer):  # BERT's window: [CLS], at most 510 pieces, [SEP]
    ids, out = align(words, labels, tokenizer)
    return (ids[:511] + ids[-1:], out[:511] + out[-1:]) if len(ids) > 512 else (ids, out)


@pytest.mark.parametrize("style", [lambda w, l, t: align(w, l, t), align_word_ids, align_by_ids])
def test_align_labels_accepts(style, capsys):
    check.align_labels(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (lambda w, l, t: align(w, l, t, where="every"), r"(?s)hand case .*Ishmael.*on every piece"),
    (lambda w, l, t: align(w, l, t, where="last"), r"(?s)hand case .*Ishmael.*\*last\* piece"),
    (lambda w, l, t: align(w, l, t, special=0), r"(?s)hand case .*\[CLS\] and \[SEP\] got the labels 0 and 0"),
    (lambda w, l, t: align(w, l, t, shift=1), r"(?s)hand case .*one place early"),
    (lambda w, l, t: (align(w, l, t)[0][1:-1], align(w, l, t)[1]), r"(?s)input_ids.*\[CLS\] first and \[SEP\] last"),
    (lambda w, l, t: (align(w, l, t)[0], align(w, l, t)[1][1:-1]), r"labels for .* tokens"),
    (align_bert_specials, r"(?s)course model's tokenizer.*pieces are right.*tokenizer.cls_token_id"),
    (align_by_hash_marks, r"(?s)hand case .*Ahab's.*a new word was started at every piece without ##"),
    (align_by_spelling, r"(?s)hand case words=\['Café', '#1', '🐋', 'Moby-Dick'\].*labels\n.*tokens.*\n.*expected"),
    (align_cut_to_512, r"(?s)twice over.*past BERT's 512 positions: input_ids.*received 512, the same up to there"
                       r".*\n.*hint: the sequence was cut"),
    (align_popping_labels, r"(?s)hand case words=\['Ishmael', 'met', 'Luthuli'\].*changed its input word_labels: "
                           r"\[1, 0, 1\] before, \[\] after.*\n.*hint: .*pop"),
])
def test_align_labels_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.align_labels(bug)


# --- 8.2 the best span --------------------------------------------------------------------------

def span_loops(start, end, mask, max_len):  # two loops over allowed pairs, tensors for i and j: correct
    best = None
    for i in torch.nonzero(mask).flatten():
        for j in range(int(i), min(len(start), int(i) + max_len)):
            if mask[j] and (best is None or start[i] + end[j] > best[2]):
                best = (i, torch.tensor(j), start[i] + end[j])
    return best


def span_search(start, end, mask, max_len, *, backwards=False, limit=None, ends="both"):
    T, best = len(start), None
    limit = max_len if limit is None else limit
    for i in range(T):
        for j in range(T):
            if (j < i and not backwards) or j - i + 1 > limit or not mask[i] or (ends == "both" and not mask[j]):
                continue
            if best is None or start[i] + end[j] > best[2]:
                best = (i, j, float(start[i] + end[j]))
    return best


def span_separate_argmax(start, end, mask, max_len):  # the two arg-maxes, taken apart
    s, e = start.masked_fill(~mask, -1e9), end.masked_fill(~mask, -1e9)
    i, j = int(s.argmax()), int(e.argmax())
    return i, j, float(s[i] + e[j])


def span_no_mask(start, end, mask, max_len):
    return span_search(start, end, torch.ones_like(mask), max_len)


def span_from_zero(start, end, mask, max_len, first=(None, None)):  # the best so far starts at score 0
    best = (*first, 0.0)
    for i in range(len(start)):
        for j in range(i, min(len(start), i + max_len)):
            if mask[i] and mask[j] and float(start[i] + end[j]) > best[2]:
                best = (i, j, float(start[i] + end[j]))
    return best


def span_in_place(start, end, mask, max_len):
    start.masked_fill_(~mask, float("-inf"))
    return span_search(start, end, mask, max_len)


def span_finite_fill(start, end, mask, max_len, fill=-1e9):  # forbidden pairs filled with a finite number
    T = len(start)
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (j >= i) & (j - i < max_len) & mask[:, None] & mask[None, :]
    scores = torch.where(allowed, start[:, None] + end[None, :], torch.tensor(fill))
    a, b = divmod(int(scores.argmax()), T)
    return a, b, float(scores[a, b])


def span_greedy(start, end, mask, max_len):  # the best start, then the best end allowed after it
    i = int(start.masked_fill(~mask, float("-inf")).argmax())
    e = end.masked_fill(~mask, float("-inf"))
    e[:i], e[i + max_len:] = float("-inf"), float("-inf")
    j = int(e.argmax())
    return i, j, float(start[i] + end[j])


def span_float32_min_fill(start, end, mask, max_len):  # finfo(float32).min: float16 cannot hold it
    T = len(start)
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (j >= i) & (j - i < max_len) & mask[:, None] & mask[None, :]
    scores = (start[:, None] + end[None, :]).masked_fill(~allowed, torch.finfo(torch.float32).min)
    a, b = divmod(int(scores.argmax()), T)
    return a, b, float(scores[a, b])


def span_in_float32(start, end, mask, max_len):  # .float() first: float64's last digits rounded away
    return span_search(start.float(), end.float(), mask, max_len)


def span_in_numpy(start, end, mask, max_len):  # .numpy() straight on the logits: refused when they require grad
    s, e, m = start.numpy(), end.numpy(), mask.numpy()
    T = len(s)
    best = max(((i, j) for i in range(T) for j in range(i, min(T, i + max_len)) if m[i] and m[j]),
               key=lambda ij: s[ij[0]] + e[ij[1]])
    return best[0], best[1], float(s[best[0]] + e[best[1]])


@pytest.mark.parametrize("style", [SOLUTIONS["my_best_span"], span_loops])
def test_best_span_accepts(style, capsys):
    check.best_span(style)
    assert "✓" in capsys.readouterr().out


def span_among_the_top_20(s, e, m, k):  # n_best_size's shortcut: pairs of the 20 best starts and 20 best ends
    best = None
    for i in s.topk(min(20, len(s))).indices.tolist():
        for j in e.topk(min(20, len(e))).indices.tolist():
            if m[i] and m[j] and i <= j < i + k and (best is None or s[i] + e[j] > best[2]):
                best = (i, j, float(s[i] + e[j]))
    return best


def span_first_to_last(s, e, m, k):  # the passage taken as one block, from its first True to its last
    where = m.nonzero().flatten()
    block = (torch.arange(len(m)) >= where.min()) & (torch.arange(len(m)) <= where.max())
    return span_search(s, e, block, k)


_BANDS = {}


def span_band_kept_per_length(s, e, m, k):  # the allowed band cached by T alone: k read on the first call only
    T = len(s)
    band = _BANDS.setdefault(T, torch.ones(T, T).triu().tril(k - 1).bool())
    scores = (s[:, None] + e[None, :]).masked_fill(~(band & m[:, None] & m[None, :]), float("-inf"))
    i, j = divmod(int(scores.argmax()), T)
    return i, j, float(scores[i, j])


def span_never_last(s, e, m, k):  # ends searched in range(len - 1): the last token never ends a span
    last_free = m.clone()
    last_free[-1] = False
    return span_search(s, e, last_free, k)


@pytest.mark.parametrize("bug, message", [
    (span_first_to_last,
     r"(?s)passage tokens 3..5 and 7..9.*\(3, 6\) ends on that \[SEP\].*both ends must be where context_mask"),
    (span_band_kept_per_length, r"(?s)max_answer_length=1 \(the window above again.*expected \(i, j, score\) = \(5, 5"),
    (span_never_last, r"(?s)runs to the window's last token.*expected \(i, j, score\) = \(3, 4, 3\)"),
    (span_among_the_top_20, r"(?s)hand case .*20 best starts and the 20 best ends.*return a tuple"),
    (lambda s, e, m, k: span_search(s, e, m, k, backwards=True), r"(?s)hand case .*end before its start"),
    (span_separate_argmax, r"(?s)hand case .*end before its start"),
    (lambda s, e, m, k: span_search(s, e, m, k, limit=10**9), r"(?s)max_answer_length=2.*longer than max_answer_length"),
    (lambda s, e, m, k: span_search(s, e, m, k, limit=k + 1), r"(?s)max_answer_length=2.*off by one"),
    (span_no_mask, r"(?s)\[CLS\] \(0, 0\) scores 10.*outside the passage"),
    (lambda s, e, m, k: span_search(s, e, m, k, ends="start"), r"(?s)ends on \[SEP\].*mask the end as well"),
    (lambda s, e, m, k: span_search(s, e, m, k)[:2] + (0.0,), r"the right span, the wrong score"),
    (lambda s, e, m, k: span_search(s, e, m, k)[:2], r"return a tuple \(i, j, score\)"),
    (span_in_place, r"changed its inputs"),
    (span_from_zero, r"(?s)every score is negative.*start the search from -inf"),
    (lambda s, e, m, k: span_from_zero(s, e, m, k, first=(0, 0)), r"(?s)every score is negative.*from -inf"),
    (span_finite_fill, r"(?s)logits as low as -3e9.*-1e\+09 is not its score.*filled with"),
    (lambda s, e, m, k: span_finite_fill(s, e, m, k, fill=-1e4), r"(?s)logits as low as -3e9.*filled with"),
    (span_greedy, r"(?s)max_answer_length=1 \(the window above.*the best start first, then the best end"),
    (span_float32_min_fill, r"(?s)in float16.*raised RuntimeError.*\n.*hint: the logits are torch.float16.*-inf"),
    (span_in_float32, r"(?s)in float64.*expected \(i, j, score\) = \(6, 6.*received \(4, 4.*\n.*hint: .*float32.*"
                      r"no .float\(\)"),
    (span_in_numpy, r"(?s)requiring grad.*raised RuntimeError.*\n  hint: .*\.detach\(\) first"),
])
def test_best_span_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.best_span(bug)


# --- 8.3 multiple choice ------------------------------------------------------------------------

def choice_loop(batch, scorer):  # one scorer call per question, a list of rows: correct
    rows = [scorer(batch["input_ids"][b], batch["token_type_ids"][b], batch["attention_mask"][b])
            for b in range(batch["input_ids"].shape[0])]
    logits = torch.stack(rows)  # (B, C)
    return logits, torch.exp(logits - logits.logsumexp(-1, keepdim=True))


def choice_per_choice(batch, scorer):  # one scorer call per choice, stacked on dim 1, numpy's softmax: correct
    import numpy as np
    logits = torch.stack([scorer(batch["input_ids"][:, c], batch["token_type_ids"][:, c], batch["attention_mask"][:, c])
                          for c in range(batch["input_ids"].shape[1])], dim=1)
    z = logits.detach().numpy().astype(np.float64)  # the logits keep the scorer's graph
    e = np.exp(z - z.max(-1, keepdims=True))
    return logits, e / e.sum(-1, keepdims=True)


def choice_squeezed(batch, scorer):  # .squeeze(): one question comes back as (C,)
    logits, _ = SOLUTIONS["my_choice_logits"](batch, scorer)
    return logits.squeeze(), logits.squeeze().softmax(-1)


def choice_exp_over_sum(batch, scorer):  # softmax written as exp / sum(exp): inf / inf past 88
    logits, _ = SOLUTIONS["my_choice_logits"](batch, scorer)
    return logits, logits.exp() / logits.exp().sum(-1, keepdim=True)


def choice_transposed(batch, scorer):
    B, C, T = batch["input_ids"].shape
    flat = [batch[k].transpose(0, 1).reshape(B * C, T) for k in ("input_ids", "token_type_ids", "attention_mask")]
    logits = scorer(*flat).view(B, C)
    return logits, logits.softmax(-1)


def choice_view_cb(batch, scorer):
    B, C, T = batch["input_ids"].shape
    flat = [batch[k].reshape(B * C, T) for k in ("input_ids", "token_type_ids", "attention_mask")]
    logits = scorer(*flat).view(C, B).t()
    return logits, logits.softmax(-1)


def choice_softmax_batch(batch, scorer):
    logits, _ = SOLUTIONS["my_choice_logits"](batch, scorer)
    return logits, logits.softmax(0)


def choice_unflattened(batch, scorer):
    logits = scorer(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"])
    return logits, logits.softmax(-1)


def choice_view(batch, scorer):  # .view needs contiguous memory
    B, C, T = batch["input_ids"].shape
    flat = [batch[k].view(B * C, T) for k in ("input_ids", "token_type_ids", "attention_mask")]
    logits = scorer(*flat).view(B, C)
    return logits, logits.softmax(-1)


def choice_by_values(batch, scorer):  # the dict's tensors passed in the dict's order: right only in the usual order
    B, C, T = batch["input_ids"].shape
    logits = scorer(*[v.reshape(B * C, T) for v in batch.values()]).view(B, C)
    return logits, logits.softmax(-1)


def choice_by_name(batch, scorer):  # the scorer called with keywords, flatten(0, 1): correct in any key order
    B, C, _ = batch["input_ids"].shape
    logits = scorer(**{k: v.flatten(0, 1) for k, v in batch.items()}).reshape(B, C)
    return logits, torch.softmax(logits, dim=1)


def choice_in_place(batch, scorer):
    batch["input_ids"].clamp_(max=5)
    return SOLUTIONS["my_choice_logits"](batch, scorer)


def choices_through_python_floats(batch, scorer):  # the scores copied into a list, then torch.tensor: no graph
    B, C, T = batch["input_ids"].shape
    scores = scorer(*(batch[k].reshape(B * C, T) for k in ("input_ids", "token_type_ids", "attention_mask")))
    logits = torch.tensor(scores.tolist()).view(B, C)
    return logits, logits.softmax(-1)


@pytest.mark.parametrize("style", [SOLUTIONS["my_choice_logits"], choice_loop, choice_per_choice, choice_by_name])
def test_choice_logits_accepts(style, capsys):
    check.choice_logits(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (choice_transposed, r"(?s)hand case .*\(C, B\) order"),
    (choice_view_cb, r"(?s)hand case .*read back as \(C, B\)"),
    (choice_softmax_batch, r"(?s)hand case .*wrong probs.*over the batch"),
    (choice_unflattened, r"scorer was called with input_ids of shape \(2, 3, 4\).*flatten"),
    (choice_in_place, r"changed the batch"),
    (lambda batch, scorer: SOLUTIONS["my_choice_logits"](batch, scorer)[0], r"return \(logits, probs\)"),
    (choice_squeezed, r"\(1, 3, 4\), one question.*expected shape \(1, 3\), received shape \(3,\)"),
    (choice_exp_over_sum, r"(?s)hand case .*probs.*nan.*exp overflows float32"),
    (choice_view, r"(?s)not contiguous in memory.*raised RuntimeError: view size.*\n.*hint: .view needs"),
    (choice_by_values, r"(?s)keys in another order.*expected 213, received 0"),
    (choices_through_python_floats, r"(?s)a scorer with a weight w.*do not require grad.*\n  hint: .*tensor "
                                    r"operations"),
])
def test_choice_logits_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.choice_logits(bug)


# --- 8.4 SQuAD's F1 -----------------------------------------------------------------------------

def f1(prediction, gold, *, articles=True, punctuation=True, chars=False, sets=False, empty=1.0, percent=False,
       fold=str.lower):
    def norm(s):
        s = fold(s)
        if punctuation:
            s = "".join(c for c in s if c not in string.punctuation)
        if articles:
            s = re.sub(r"\b(a|an|the)\b", " ", s)
        return " ".join(s.split())
    p, g = norm(prediction), norm(gold)
    p, g = (list(p.replace(" ", "")), list(g.replace(" ", ""))) if chars else (p.split(), g.split())
    if not p or not g:
        return empty if p == g else 0.0
    shared = len(set(p) & set(g)) if sets else sum((Counter(p) & Counter(g)).values())
    if shared == 0:
        return 0.0
    P, R = shared / len(p), shared / len(g)
    return 2 * P * R / (P + R) * (100 if percent else 1)


def f1_regex_tokens(prediction, gold):  # re.findall on a translate()d string, numpy scalar: correct
    import numpy as np
    table = str.maketrans("", "", string.punctuation)
    p, g = (re.sub(r"\b(?:a|an|the)\b", "", s.lower().translate(table)).split() for s in (prediction, gold))
    if not (p and g):
        return np.float64(len(p) == len(g))
    shared = sum(min(p.count(w), g.count(w)) for w in set(p))
    return np.float64(0.0 if not shared else 2 * shared / (len(p) + len(g)))


def f1_pattern(prediction, gold, *, punctuation="regex", articles=r"\b(a|an|the)\b"):
    """Punctuation deleted by [^\\w\\s] (or replaced by spaces, or deleted as SQuAD does), articles by `articles`."""
    def norm(s):
        s = s.lower()
        if punctuation == "regex":
            s = re.sub(r"[^\w\s]", "", s)
        else:
            s = "".join((" " if punctuation == "spaces" else "") if c in string.punctuation else c for c in s)
        return re.sub(articles, " ", s).split()
    return _f1_tokens(norm(prediction), norm(gold))


def _f1_tokens(p, g):
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    return 0.0 if not shared else 2 * shared / (len(p) + len(g))


def f1_articles_as_text(prediction, gold):  # str.replace removes "a " inside "anna ", too
    def norm(s):
        s = "".join(c for c in s.lower() if c not in string.punctuation) + " "
        for article in ("the ", "an ", "a "):
            s = s.replace(article, " ")
        return s.split()
    return _f1_tokens(norm(prediction), norm(gold))


def f1_articles_first(prediction, gold):  # the articles go before the punctuation: "a-side" -> "side"
    def norm(s):
        s = re.sub(r"\b(a|an|the)\b", " ", s.lower())
        return "".join(c for c in s if c not in string.punctuation).split()
    return _f1_tokens(norm(prediction), norm(gold))


def f1_split_on_spaces(prediction, gold):  # split(" "), empty strings dropped: a tab stays inside a word
    p, g = ([w for w in re.sub(r"\b(a|an|the)\b", " ", "".join(c for c in s.lower() if c not in string.punctuation))
             .split(" ") if w] for s in (prediction, gold))
    return _f1_tokens(p, g)


def f1_articles_between_spaces(prediction, gold):  # " the " -> " ": "the the" shares a space, one is kept
    def norm(s):
        s = " " + "".join(c for c in s.lower() if c not in string.punctuation) + " "
        for article in ("a", "an", "the"):
            s = s.replace(f" {article} ", " ")
        return s.split()
    return _f1_tokens(norm(prediction), norm(gold))


def f1_whitespace_listed(prediction, gold):  # re.split on [ \t\n]+: a no-break space stays inside a word
    p, g = ([w for w in re.split(r"[ \t\n]+", re.sub(r"\b(a|an|the)\b", " ", "".join(
        c for c in s.lower() if c not in string.punctuation))) if w] for s in (prediction, gold))
    return _f1_tokens(p, g)


def f1_no_empty_rule(prediction, gold):
    p, g = (re.sub(r"\b(a|an|the)\b", " ", "".join(c for c in s.lower() if c not in string.punctuation)).split()
            for s in (prediction, gold))
    shared = sum((Counter(p) & Counter(g)).values())
    return 2 * shared / (len(p) + len(g))  # ZeroDivisionError on two empty answers


def f1_tokens_cleaned_one_by_one(prediction, gold):  # split first: a lone "-" is left as a token ""
    p, g = ([w for w in ("".join(c for c in t.lower() if c not in string.punctuation) for t in s.split())
             if w not in ("a", "an", "the")] for s in (prediction, gold))
    return _f1_tokens(p, g)


def f1_difflib_ratio(prediction, gold):  # 2·M / (|p| + |g|), M the tokens matched in order
    import difflib
    p, g = (re.sub(r"\b(a|an|the)\b", " ", "".join(c for c in s.lower() if c not in string.punctuation)).split()
            for s in (prediction, gold))
    return difflib.SequenceMatcher(None, p, g).ratio() if p and g else float(p == g)


@pytest.mark.parametrize("style", [lambda p, g: f1(p, g), f1_regex_tokens])
def test_squad_f1_accepts(style, capsys):
    check.squad_f1(style)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("bug, message", [
    (lambda p, g: f1(p, g, articles=False), r"(?s)hand case .*The Pequod.*articles are kept"),
    (lambda p, g: f1(p, g, punctuation=False), r"(?s)hand case .*Pequod\..*punctuation is kept"),
    (lambda p, g: f1(p, g, chars=True), r"(?s)hand case .*Captain Ahab.*over characters"),
    (lambda p, g: f1(p, g, sets=True), r"(?s)hand case .*whale whale.*as a set"),
    (lambda p, g: f1(p, g, empty=0.0), r"(?s)hand case prediction='', gold=''.*that is a match, F1 = 1"),
    (f1_no_empty_rule, r"(?s)ZeroDivisionError.*1 if both are empty"),
    (lambda p, g: f1(p, g, percent=True), r"a percentage"),
    (f1_pattern, r"(?s)snake_case.*expected 1.*received 0.*a pattern such as .*keeps '_'"),
    (lambda p, g: f1_pattern(p, g, punctuation="spaces"), r"(?s)don't.*received 0.*hint: punctuation was replaced by a space"),
    (lambda p, g: f1_pattern(p, g, punctuation="squad", articles=r"^\s*(a|an|the)\b"),
     r"only an article at the start was removed"),
    (lambda p, g: f1_pattern(p, g, punctuation="squad", articles=r"\b(a|the)\b"),
     r"(?s)hand case prediction='an apple'.*expected 1.*removes the words a, an and the"),
    (f1_articles_first, r"(?s)hand case prediction='A-side'.*punctuation goes first"),
    (lambda p, g: f1(p, g, fold=str.casefold), r"(?s)hand case prediction='Straße'.*received 1.*str.casefold\(\)"),
    (lambda p, g: f1(p, g, fold=lambda s: "".join(c for c in unicodedata.normalize("NFKD", s.lower())
                                                  if not unicodedata.combining(c))),
     r"(?s)hand case prediction='Café'.*received 1.*accents were stripped"),
    (lambda p, g: f1(p, g, fold=lambda s: unicodedata.normalize("NFKC", s).lower()),
     r"(?s)hand case prediction='Ａｈａｂ'.*received 1\n.*hint: .*compatibility normalisation"),
    (f1_articles_as_text,
     r"(?s)hand case prediction='Anna', gold='Ann'.*expected 0.*received 1.*pieces of text, not as words"),
    (f1_split_on_spaces, r"(?s)prediction='captain\\nahab'.*received 0.*split on spaces only"),
    (f1_articles_between_spaces, r"(?s)hand case prediction='the the whale'.*received 0.666667\n.*hint: two articles "
                                 r"in a row and one was kept"),
    (f1_whitespace_listed, r"(?s)prediction='captain\\xa0ahab'.*received 0\n.*hint: the text was split on the "
                           r"whitespace characters you listed"),
    (f1_tokens_cleaned_one_by_one, r"(?s)prediction='Ahab - captain'.*received 0.8\n.*hint: each token was "
                                   r"cleaned after splitting"),
    (f1_difflib_ratio, r"(?s)prediction='captain Ahab', gold='Ahab captain'.*received 0.5\n.*hint: .*matched in "
                       r"order"),
])
def test_squad_f1_rejects(bug, message):
    with pytest.raises(ExerciseError, match=message):
        check.squad_f1(bug)
