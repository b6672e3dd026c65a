"""Exercises 8.2 (my_best_span) and 8.4 (my_squad_f1): learners' code with one mistake each, and correct
code in other styles.

Split rule (fixed before any checker changed): within each exercise, bugs alternate dev, held-out, dev, ...
in the order written below (see checker_bugs/__init__.py)."""

import re
import string
from collections import Counter

import numpy as np
import torch

from . import Exercise
import torch.nn.functional as F
import difflib
import unicodedata

EX82 = Exercise("8.2", "best_span")


def _band(T, max_answer_length):
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    return (j >= i) & (j - i + 1 <= max_answer_length)


def _pick(scores, allowed):
    T = scores.shape[0]
    scores = scores.masked_fill(~allowed, float("-inf"))
    i, j = divmod(int(scores.argmax()), T)
    return i, j, float(scores[i, j])


@EX82.bug
def context_ignored(start_logits, end_logits, context_mask, max_answer_length):
    """I forgot the passage: any j >= i within the length is allowed, [CLS] and the question too."""
    T = start_logits.shape[0]
    return _pick(start_logits[:, None] + end_logits[None, :], _band(T, max_answer_length))


@EX82.bug
def end_before_start_allowed(start_logits, end_logits, context_mask, max_answer_length):
    """I allowed every pair with |j - i| + 1 <= max_answer_length (I forgot that j must not come before i)."""
    T = start_logits.shape[0]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = ((j - i).abs() + 1 <= max_answer_length) & context_mask[:, None] & context_mask[None, :]
    return _pick(start_logits[:, None] + end_logits[None, :], allowed)


@EX82.bug
def length_off_by_one(start_logits, end_logits, context_mask, max_answer_length):
    """I wrote j - i <= max_answer_length for the length (one token too many)."""
    T = start_logits.shape[0]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (j >= i) & (j - i <= max_answer_length) & context_mask[:, None] & context_mask[None, :]
    return _pick(start_logits[:, None] + end_logits[None, :], allowed)


@EX82.bug
def best_starts_at_zero(start_logits, end_logits, context_mask, max_answer_length):
    """Two loops with best = 0 to start with (when every allowed score is negative I return (0, 0, 0))."""
    T = len(start_logits)
    best = (0, 0, 0.0)
    for i in range(T):
        for j in range(i, min(T, i + max_answer_length)):
            if context_mask[i] and context_mask[j]:
                score = float(start_logits[i] + end_logits[j])
                if score > best[2]:
                    best = (i, j, score)
    return best


@EX82.bug
def separate_argmaxes(start_logits, end_logits, context_mask, max_answer_length):
    """I took the best start and then the best end at or after it, within the length (not the best pair)."""
    s = start_logits.masked_fill(~context_mask, float("-inf"))
    i = int(s.argmax())
    e = end_logits.masked_fill(~context_mask, float("-inf")).clone()
    e[:i] = float("-inf")
    e[i + max_answer_length:] = float("-inf")
    j = int(e.argmax())
    return i, j, float(start_logits[i] + end_logits[j])


@EX82.bug
def logits_masked_in_place(start_logits, end_logits, context_mask, max_answer_length):
    """I hid the non-passage tokens by writing -inf into the logits in place (start_logits[~mask] = -inf)."""
    start_logits[~context_mask] = float("-inf")
    end_logits[~context_mask] = float("-inf")
    T = start_logits.shape[0]
    return _pick(start_logits[:, None] + end_logits[None, :], _band(T, max_answer_length))


@EX82.bug
def only_the_start_in_the_passage(start_logits, end_logits, context_mask, max_answer_length):
    """I checked that the start is in the passage; I assumed the end then is too."""
    T = start_logits.shape[0]
    allowed = _band(T, max_answer_length) & context_mask[:, None]
    return _pick(start_logits[:, None] + end_logits[None, :], allowed)


@EX82.bug
def loop_one_short(start_logits, end_logits, context_mask, max_answer_length):
    """Two loops, j in range(i, i + max_answer_length - 1): the longest allowed span is never tried."""
    T = len(start_logits)
    best = (None, None, float("-inf"))
    for i in range(T):
        if not context_mask[i]:
            continue
        for j in range(i, min(T, i + max_answer_length - 1)):
            if context_mask[j] and float(start_logits[i] + end_logits[j]) > best[2]:
                best = (i, j, float(start_logits[i] + end_logits[j]))
    if best[0] is None:  # max_answer_length 1: the loop above tried nothing
        i = int(start_logits.masked_fill(~context_mask, float("-inf")).argmax())
        best = (i, i, float(start_logits[i] + end_logits[i]))
    return best


@EX82.bug
def very_negative_fill_with_triu(start_logits, end_logits, context_mask, max_answer_length):
    """I filled the forbidden pairs with -1e4 (like attention's mask), which very negative logits can beat."""
    T = start_logits.shape[0]
    scores = start_logits[:, None] + end_logits[None, :]
    allowed = torch.triu(torch.ones(T, T, dtype=torch.bool)) & ~torch.triu(torch.ones(T, T, dtype=torch.bool),
                                                                           diagonal=max_answer_length)
    allowed &= context_mask[:, None] & context_mask[None, :]
    scores = torch.where(allowed, scores, torch.full_like(scores, -1e4))
    i, j = divmod(int(scores.argmax()), T)
    return i, j, float(scores[i, j])


@EX82.bug
def padding_as_passage(start_logits, end_logits, context_mask, max_answer_length):
    """I took the passage to be everything after the first [SEP] (the first False after a True in the mask)."""
    T = start_logits.shape[0]
    first = int(context_mask.float().argmax())
    passage = torch.arange(T) >= first
    allowed = _band(T, max_answer_length) & passage[:, None] & passage[None, :]
    return _pick(start_logits[:, None] + end_logits[None, :], allowed)


@EX82.correct
def loops_with_items(start_logits, end_logits, context_mask, max_answer_length):
    """Two plain loops over Python lists, ties kept on the first found."""
    s, e, m = start_logits.tolist(), end_logits.tolist(), context_mask.tolist()
    best = None
    for i in range(len(s)):
        for j in range(i, min(len(s), i + max_answer_length)):
            if m[i] and m[j] and (best is None or s[i] + e[j] > best[2]):
                best = (i, j, s[i] + e[j])
    return best


EX84 = Exercise("8.4", "squad_f1")


def _f1(p, g):
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if not shared:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


def _strip_punct(text):
    return "".join(ch for ch in text if ch not in string.punctuation)


@EX84.bug
def articles_kept(prediction, gold):
    """I lower-cased and removed punctuation, but did not remove a, an, the."""
    return _f1(_strip_punct(prediction.lower()).split(), _strip_punct(gold.lower()).split())


@EX84.bug
def articles_replaced_anywhere(prediction, gold):
    """I removed the articles with t.replace("the ", " ") and the same for "an " and "a " (so "bathe " loses "the")."""
    def norm(t):
        t = _strip_punct(t.lower()) + " "
        for a in ("the ", "an ", "a "):
            t = t.replace(a, " ")
        return t.split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def set_intersection(prediction, gold):
    """I counted the shared tokens with set(p) & set(g)."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split()
    p, g = norm(prediction), norm(gold)
    if not p or not g:
        return float(p == g)
    shared = len(set(p) & set(g))
    if not shared:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def both_empty_is_zero(prediction, gold):
    """When either side has no tokens I returned 0 (I thought nothing matched nothing)."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split()
    p, g = norm(prediction), norm(gold)
    if not p or not g:
        return 0.0
    return _f1(p, g)


@EX84.bug
def punctuation_to_spaces(prediction, gold):
    """I replaced punctuation with spaces instead of deleting it ("don't" became "don t")."""
    def norm(t):
        t = "".join(" " if ch in string.punctuation else ch for ch in t.lower())
        return re.sub(r"\b(a|an|the)\b", " ", t).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def articles_before_lower_case(prediction, gold):
    """I removed the articles first and lower-cased afterwards, so "The" stayed."""
    def norm(t):
        t = re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t))
        return t.lower().split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def articles_without_word_boundaries(prediction, gold):
    """I removed the articles with re.sub("(a|an|the) ", " ", text), without word boundaries."""
    def norm(t):
        return re.sub(r"(a|an|the) ", " ", _strip_punct(t.lower())).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def no_lower_case(prediction, gold):
    """I forgot to lower-case (the official script does)."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t)).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def unicode_punctuation_removed(prediction, gold):
    """I removed punctuation with re.sub(r"[^\\w\\s]", "", text): every Unicode mark goes, and "_" stays."""
    def norm(t):
        t = re.sub(r"[^\w\s]", "", t.lower())
        return re.sub(r"\b(a|an|the)\b", " ", t).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def split_on_single_spaces(prediction, gold):
    """I split with text.split(" "), so double spaces leave empty tokens."""
    def norm(t):
        t = re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower()))
        return [w for w in t.strip().split(" ")] if t.strip() else []
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def leading_article_only(prediction, gold):
    """I removed an article only at the start of the answer ("The Pequod" -> "Pequod")."""
    def norm(t):
        words = _strip_punct(t.lower()).split()
        return words[1:] if words and words[0] in ("a", "an", "the") else words
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def percent(prediction, gold):
    """I returned the F1 in percent, as the leaderboard shows it."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split()
    return 100 * _f1(norm(prediction), norm(gold))


@EX84.correct
def translate_and_filter(prediction, gold):
    """str.translate for punctuation, a list filter for articles, Counter arithmetic for the overlap."""
    table = str.maketrans("", "", string.punctuation)

    def tokens(text):
        return [w for w in text.lower().translate(table).split() if w not in {"a", "an", "the"}]
    p, g = tokens(prediction), tokens(gold)
    if len(p) == 0 or len(g) == 0:
        return 1.0 if len(p) == len(g) else 0.0
    common = Counter(p) & Counter(g)
    same = sum(common.values())
    return 0.0 if same == 0 else 2 * same / (len(p) + len(g))


# --- Batch 2: written without reading any checker, before the checkers were changed against it ---
EX82.batch = 2
EX84.batch = 2


@EX82.bug
def matrix_transposed(start_logits, end_logits, context_mask, max_answer_length):
    """I built the pair matrix as start[None, :] + end[:, None], so its rows are the ends and its columns the starts."""
    T = start_logits.shape[0]
    scores = start_logits[None, :] + end_logits[:, None]
    allowed = _band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]
    return _pick(scores, allowed)


@EX82.bug
def top_20_candidates(start_logits, end_logits, context_mask, max_answer_length):
    """I kept only the 20 best starts and the 20 best ends (n_best_size, as in the Hugging Face script) and searched pairs among them."""
    n = min(20, start_logits.shape[0])
    starts = torch.topk(start_logits, n).indices.tolist()
    ends = torch.topk(end_logits, n).indices.tolist()
    best = None
    for i in starts:
        for j in ends:
            if not (context_mask[i] and context_mask[j]) or j < i or j - i + 1 > max_answer_length:
                continue
            score = float(start_logits[i] + end_logits[j])
            if best is None or score > best[2]:
                best = (i, j, score)
    return best


@EX82.bug
def single_token_spans_excluded(start_logits, end_logits, context_mask, max_answer_length):
    """I required j > i, thinking an answer span has at least two tokens."""
    T = start_logits.shape[0]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (j > i) & (j - i + 1 <= max_answer_length) & context_mask[:, None] & context_mask[None, :]
    return _pick(start_logits[:, None] + end_logits[None, :], allowed)


@EX82.bug
def probability_product(start_logits, end_logits, context_mask, max_answer_length):
    """I scored spans by the product of the start and end softmax probabilities, and returned that product as the score."""
    T = start_logits.shape[0]
    probs = start_logits.softmax(-1)[:, None] * end_logits.softmax(-1)[None, :]
    allowed = _band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]
    probs = probs.masked_fill(~allowed, -1.0)
    i, j = divmod(int(probs.argmax()), T)
    return i, j, float(probs[i, j])


@EX82.correct
def numpy_band(start_logits, end_logits, context_mask, max_answer_length):
    """numpy: np.triu minus a higher np.triu for the band, np.unravel_index for the pair."""
    import numpy as np
    s, e = start_logits.detach().cpu().numpy(), end_logits.detach().cpu().numpy()
    m = context_mask.detach().cpu().numpy().astype(bool)
    T = len(s)
    band = np.triu(np.ones((T, T), dtype=bool)) & ~np.triu(np.ones((T, T), dtype=bool), k=max_answer_length)
    scores = np.where(band & m[:, None] & m[None, :], s[:, None] + e[None, :], -np.inf)
    i, j = np.unravel_index(np.argmax(scores), scores.shape)
    return int(i), int(j), float(scores[i, j])


@EX84.bug
def articles_before_punctuation(prediction, gold):
    """I removed the articles first and the punctuation afterwards ("a-b" loses its "a")."""
    def norm(t):
        return _strip_punct(re.sub(r"\b(a|an|the)\b", " ", t.lower())).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def no_answer_tested_on_raw_strings(prediction, gold):
    """I tested for a no-answer on the raw strings (stripped), before normalising them."""
    if not prediction.strip() or not gold.strip():
        return float(prediction.strip() == gold.strip())

    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split()
    p, g = norm(prediction), norm(gold)
    shared = sum((Counter(p) & Counter(g)).values())
    if not shared:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def an_forgotten(prediction, gold):
    """I removed the articles "a" and "the" but forgot "an"."""
    def norm(t):
        return re.sub(r"\b(a|the)\b", " ", _strip_punct(t.lower())).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def punctuation_stripped_at_token_ends(prediction, gold):
    """I stripped punctuation from the ends of each token with str.strip(string.punctuation), not from inside words."""
    def norm(t):
        words = [w.strip(string.punctuation) for w in t.lower().split()]
        return [w for w in words if w and w not in ("a", "an", "the")]
    return _f1(norm(prediction), norm(gold))


@EX84.correct
def official_script_layout(prediction, gold):
    """The official script's layout: normalize_answer as four nested steps, then precision and recall."""
    def normalize_answer(s):
        def remove_articles(text):
            return re.compile(r"\b(a|an|the)\b", re.UNICODE).sub(" ", text)

        def white_space_fix(text):
            return " ".join(text.split())

        def remove_punc(text):
            exclude = set(string.punctuation)
            return "".join(ch for ch in text if ch not in exclude)
        return white_space_fix(remove_articles(remove_punc(s.lower())))
    prediction_tokens, gold_tokens = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if len(prediction_tokens) == 0 or len(gold_tokens) == 0:
        return int(prediction_tokens == gold_tokens)
    common = Counter(prediction_tokens) & Counter(gold_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


# --- Batch 3: written without reading any checker, before the checkers were changed against it ---
EX82.batch = 3
EX84.batch = 3


@EX82.bug
def score_read_from_the_unmasked_matrix(start_logits, end_logits, context_mask, max_answer_length):
    """I took the arg-max of the masked matrix, but returned the largest entry of the raw matrix as the score."""
    T = start_logits.shape[0]
    raw = start_logits[:, None] + end_logits[None, :]
    allowed = _band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]
    i, j = divmod(int(raw.masked_fill(~allowed, float("-inf")).argmax()), T)
    return i, j, float(raw.max())


_BANDS = {}


@EX82.bug
def band_cached_by_window_length(start_logits, end_logits, context_mask, max_answer_length):
    """I cached the band matrix per window length T (every window has the same T), to build it only once."""
    T = start_logits.shape[0]
    if T not in _BANDS:
        _BANDS[T] = _band(T, max_answer_length)
    allowed = _BANDS[T] & context_mask[:, None] & context_mask[None, :]
    return _pick(start_logits[:, None] + end_logits[None, :], allowed)


@EX82.bug
def length_returned_as_the_end(start_logits, end_logits, context_mask, max_answer_length):
    """I scored (start i, length l) in a (T, max_answer_length) matrix and returned the offset l where the end i + l belongs."""
    T = start_logits.shape[0]
    m = max_answer_length
    ends = torch.cat([end_logits, end_logits.new_full((m,), float("-inf"))])
    inside = torch.cat([context_mask, context_mask.new_zeros(m)])
    offsets = torch.arange(T)[:, None] + torch.arange(m)[None, :]  # (T, m): i + l
    scores = start_logits[:, None] + ends[offsets]
    scores = scores.masked_fill(~(context_mask[:, None] & inside[offsets]), float("-inf"))
    i, l = divmod(int(scores.argmax()), m)
    return i, l, float(scores[i, l])


@EX82.bug
def last_position_never_an_end(start_logits, end_logits, context_mask, max_answer_length):
    """Two loops, j in range(i, min(T - 1, i + max_answer_length)): I capped the end at T - 1 as if range included it."""
    T = len(start_logits)
    best = None
    for i in range(T):
        for j in range(i, min(T - 1, i + max_answer_length)):
            if context_mask[i] and context_mask[j]:
                score = float(start_logits[i] + end_logits[j])
                if best is None or score > best[2]:
                    best = (i, j, score)
    return best


@EX82.bug
def passage_as_one_block(start_logits, end_logits, context_mask, max_answer_length):
    """I took the passage to be one block, from the first True of the mask to the last one."""
    T = start_logits.shape[0]
    where = context_mask.nonzero().flatten()
    positions = torch.arange(T)
    passage = (positions >= where.min()) & (positions <= where.max())
    allowed = _band(T, max_answer_length) & passage[:, None] & passage[None, :]
    return _pick(start_logits[:, None] + end_logits[None, :], allowed)


@EX82.bug
def score_relative_to_the_null_answer(start_logits, end_logits, context_mask, max_answer_length):
    """I returned the span's score minus the no-answer score at [CLS], start[0] + end[0], as SQuAD 2.0 compares them."""
    T = start_logits.shape[0]
    allowed = _band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]
    i, j, score = _pick(start_logits[:, None] + end_logits[None, :], allowed)
    return i, j, score - float(start_logits[0] + end_logits[0])


@EX82.correct
def windows_of_ends_per_start(start_logits, end_logits, context_mask, max_answer_length):
    """For each start, the max_answer_length ends after it read with unfold; the flat arg-max over (start, offset)."""
    T = start_logits.shape[0]
    m = max_answer_length
    ends = end_logits.masked_fill(~context_mask, float("-inf"))
    padded = torch.cat([ends, ends.new_full((m - 1,), float("-inf"))])
    windows = padded.unfold(0, m, 1)  # (T, m): row i holds the ends i .. i + m - 1
    scores = start_logits.masked_fill(~context_mask, float("-inf"))[:, None] + windows
    flat = int(scores.argmax())
    i, offset = flat // m, flat % m
    return i, i + offset, float(scores[i, offset])


@EX84.bug
def mean_of_precision_and_recall(prediction, gold):
    """I computed the F1 as the mean of precision and recall, (P + R) / 2."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split()
    p, g = norm(prediction), norm(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if not shared:
        return 0.0
    return (shared / len(p) + shared / len(g)) / 2


@EX84.bug
def shared_counted_over_the_prediction(prediction, gold):
    """I counted the shared tokens as the predicted tokens found in the gold, sum(1 for w in p if w in g)."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split()
    p, g = norm(prediction), norm(gold)
    if not p or not g:
        return float(p == g)
    shared = sum(1 for w in p if w in g)
    if not shared:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def common_punctuation_only(prediction, gold):
    """I deleted the common punctuation marks, . , ; : ! ? ' " and brackets, not all of string.punctuation."""
    def norm(t):
        t = "".join(ch for ch in t.lower() if ch not in ".,;:!?'\"()[]")
        return re.sub(r"\b(a|an|the)\b", " ", t).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def accents_removed(prediction, gold):
    """I also stripped accents (unicodedata NFKD, combining marks dropped), so "café" matches "cafe"."""
    import unicodedata

    def norm(t):
        t = "".join(ch for ch in unicodedata.normalize("NFKD", t) if not unicodedata.combining(ch))
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def gold_not_normalised(prediction, gold):
    """I normalised the prediction (the model's messy output) but only split the gold, which I took to be clean."""
    p = re.sub(r"\b(a|an|the)\b", " ", _strip_punct(prediction.lower())).split()
    return _f1(p, gold.split())


@EX84.bug
def more_stop_words(prediction, gold):
    """I removed "of" and "and" along with a, an, the (stop words, like the articles)."""
    def norm(t):
        return re.sub(r"\b(a|an|the|of|and)\b", " ", _strip_punct(t.lower())).split()
    return _f1(norm(prediction), norm(gold))


@EX84.correct
def regex_class_and_dict_counts(prediction, gold):
    """One regex character class for the punctuation, counts kept in plain dicts, F1 as 2·shared / (|p| + |g|)."""
    punctuation = re.compile("[" + re.escape(string.punctuation) + "]")
    articles = re.compile(r"\b(?:a|an|the)\b")

    def tokens(text):
        return articles.sub(" ", punctuation.sub("", text.lower())).split()

    def counts(words):
        c = {}
        for w in words:
            c[w] = c.get(w, 0) + 1
        return c
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return 1.0 if p == g else 0.0
    cp, cg = counts(p), counts(g)
    shared = sum(min(n, cg.get(w, 0)) for w, n in cp.items())
    return 2 * shared / (len(p) + len(g)) if shared else 0.0


# --- batch 4: written without reading any checker ------------------------------------------
EX82.batch = 4
EX84.batch = 4


@EX82.withdrawn  # the checker accepts 0-d tensors for i and j on purpose (tests/test_check_spans.py, span_loops)
def indices_left_as_tensors(start_logits, end_logits, context_mask, max_answer_length):
    """I split the flat arg-max with // and % on the tensor itself, so i and j come back as 0-d tensors, not ints.
    Differs on: the worked example: (tensor(6), tensor(6), 3.0) instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    allowed = _band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]
    scores = (start_logits[:, None] + end_logits[None, :]).masked_fill(~allowed, float("-inf"))
    flat = scores.argmax()
    i, j = flat // T, flat % T
    return i, j, float(scores[i, j])


@EX82.bug
def positions_inside_the_passage(start_logits, end_logits, context_mask, max_answer_length):
    """I searched the passage's logits alone (start_logits[context_mask]) and returned the positions found there, counted from the passage's start.
    Differs on: the worked example: (2, 2, 3.0) instead of (6, 6, 3.0)."""
    s, e = start_logits[context_mask], end_logits[context_mask]
    n = s.shape[0]
    scores = (s[:, None] + e[None, :]).masked_fill(~_band(n, max_answer_length), float("-inf"))
    i, j = divmod(int(scores.argmax()), n)
    return i, j, float(scores[i, j])


@EX82.bug
def unfold_without_padding(start_logits, end_logits, context_mask, max_answer_length):
    """I read each start's max_answer_length ends with end.unfold(0, m, 1), without padding the end, so the last m - 1 starts are never tried.
    Differs on: T = 5, mask [F, F, T, T, T], start [0, 0, 0, 0, 4], end [0, 0, 0, 0, 1], m = 3: (2, 4, 1.0) instead of (4, 4, 5.0)."""
    m = max_answer_length
    T = start_logits.shape[0]
    ends = end_logits.masked_fill(~context_mask, float("-inf")).unfold(0, m, 1)  # (T - m + 1, m)
    starts = start_logits[:T - m + 1].masked_fill(~context_mask[:T - m + 1], float("-inf"))
    scores = starts[:, None] + ends
    i, offset = divmod(int(scores.argmax()), m)
    return i, i + offset, float(scores[i, offset])


@EX82.bug
def best_over_the_wrong_dim(start_logits, end_logits, context_mask, max_answer_length):
    """I took scores.max(dim=0), meaning each start's best end, but dim 0 runs over the starts: what I returned as (i, j) is (j, i).
    Differs on: T = 4, mask all True, start [2, 0, 0, 0], end [0, 0, 0, 3], m = 4: (3, 0, 5.0) instead of (0, 3, 5.0)."""
    T = start_logits.shape[0]
    allowed = _band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]
    scores = (start_logits[:, None] + end_logits[None, :]).masked_fill(~allowed, float("-inf"))
    best, ends = scores.max(dim=0)
    i = int(best.argmax())
    j = int(ends[i])
    return i, j, float(best[i])


@EX82.bug
def cls_kept_as_the_null_answer(start_logits, end_logits, context_mask, max_answer_length):
    """I allowed (0, 0), the [CLS] span, as SQuAD 2.0's "no answer", besides the passage's spans.
    Differs on: the worked example with start[0] = end[0] = 2: (0, 0, 4.0) instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    allowed = _band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]
    allowed[0, 0] = True
    return _pick(start_logits[:, None] + end_logits[None, :], allowed)


@EX82.bug
def end_not_capped_at_the_window(start_logits, end_logits, context_mask, max_answer_length):
    """Two loops, j in range(i, i + max_answer_length): I forgot to stop at the end of the window.
    Differs on: T = 5, mask [F, F, T, T, T], any logits, m = 3: IndexError (index 5 is out of bounds)."""
    T = len(start_logits)
    best = None
    for i in range(T):
        if not context_mask[i]:
            continue
        for j in range(i, i + max_answer_length):
            if context_mask[j]:
                score = float(start_logits[i] + end_logits[j])
                if best is None or score > best[2]:
                    best = (i, j, score)
    return best


@EX82.correct
def one_diagonal_per_length(start_logits, end_logits, context_mask, max_answer_length):
    """Each length ℓ = 1 .. max_answer_length scored at once as start[:T - ℓ + 1] + end[ℓ - 1:]; ties go to the smaller (i, j)."""
    T = start_logits.shape[0]
    s = start_logits.masked_fill(~context_mask, float("-inf"))
    e = end_logits.masked_fill(~context_mask, float("-inf"))
    best = None
    for length in range(1, min(max_answer_length, T) + 1):
        scores = s[:T - length + 1] + e[length - 1:]
        i = int(scores.argmax())
        candidate = (float(scores[i]), i, i + length - 1)
        if best is None or candidate[0] > best[0] or (candidate[0] == best[0] and candidate[1:] < best[1:]):
            best = candidate
    score, i, j = best
    return i, j, score


@EX84.bug
def split_with_a_whitespace_regex(prediction, gold):
    """I split with re.split(r"\\s+", text), which leaves an empty token where the text starts or ends with a space.
    Differs on: "The Pequod" against "Pequod": 2/3 instead of 1.0 (the removed article leaves a leading space)."""
    def norm(t):
        return re.split(r"\s+", re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())))
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def casefold_not_lower(prediction, gold):
    """I lower-cased with str.casefold(), the "more thorough" lower(), so "ß" becomes "ss".
    Differs on: "Straße" against "strasse": 1.0 instead of 0.0."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.casefold())).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def article_regex_without_a_group(prediction, gold):
    """I removed the articles with re.sub(r"\\ba|an|the\\b", " ", text): without the group, \\b binds to "a" and "the" only.
    Differs on: "plan" against "plans": 2/3 instead of 0.0 ("an" goes from inside both words)."""
    def norm(t):
        return re.sub(r"\ba|an|the\b", " ", _strip_punct(t.lower())).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def union_not_intersection(prediction, gold):
    """I counted the shared tokens with Counter(p) | Counter(g) (I mixed up | and &).
    Differs on: "Captain Ahab" against "Ahab": 4/3 instead of 2/3."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split()
    p, g = norm(prediction), norm(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) | Counter(g)).values())
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def characters_not_tokens(prediction, gold):
    """My normalise returned the cleaned string, and I forgot to split it: Counter counted its characters.
    Differs on: "Captain Ahab" against "Ahab": 0.5 instead of 2/3."""
    def normalise(t):
        return " ".join(re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split())
    p, g = normalise(prediction), normalise(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if not shared:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def min_counts_summed_over_the_token_list(prediction, gold):
    """I counted the shared tokens as sum(min(p.count(w), g.count(w)) for w in p), looping over the tokens, not the distinct ones.
    Differs on: "whale whale" against "whale whale ship": 1.6 instead of 0.8."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split()
    p, g = norm(prediction), norm(gold)
    if not p or not g:
        return float(p == g)
    shared = sum(min(p.count(w), g.count(w)) for w in p)
    if not shared:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.correct
def sorted_two_pointer_overlap(prediction, gold):
    """The same normalisation; the multiset overlap counted by walking the two sorted token lists side by side."""
    def tokens(text):
        text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
        return sorted(re.sub(r"\b(a|an|the)\b", " ", text).split())
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return float(not p and not g)
    shared, a, b = 0, 0, 0
    while a < len(p) and b < len(g):
        if p[a] == g[b]:
            shared, a, b = shared + 1, a + 1, b + 1
        elif p[a] < g[b]:
            a += 1
        else:
            b += 1
    return 2 * shared / (len(p) + len(g))


# --- batch 5: written without reading any checker ------------------------------------------
EX82.batch = 5
EX84.batch = 5


@EX82.bug
def mask_broadcast_onto_the_ends_only(start_logits, end_logits, context_mask, max_answer_length):
    """I wrote band & context_mask, trusting broadcasting to apply the mask to both ends; it lines up with the columns, the ends, only.
    Differs on: the worked example with start[2] = 5 (a question token), m = 3: (2, 4, 7.0) instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    allowed = _band(T, max_answer_length) & context_mask
    return _pick(start_logits[:, None] + end_logits[None, :], allowed)


@EX82.bug
def forbidden_pairs_multiplied_by_zero(start_logits, end_logits, context_mask, max_answer_length):
    """I multiplied the score matrix by the 0/1 allowed matrix, so a forbidden pair scores 0 rather than -inf.
    Differs on: the worked example with every logit lowered by 10: (0, 0, -0.0) instead of (6, 6, -17.0)."""
    T = start_logits.shape[0]
    allowed = (_band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]).float()
    scores = (start_logits[:, None] + end_logits[None, :]) * allowed
    i, j = divmod(int(scores.argmax()), T)
    return i, j, float(scores[i, j])


@EX82.bug
def log_probabilities_as_the_score(start_logits, end_logits, context_mask, max_answer_length):
    """I turned the logits into log-probabilities with log_softmax first (the span's log-likelihood), so the score I return is shifted.
    Differs on: the worked example: (6, 6, about -3.03) instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    s, e = start_logits.log_softmax(-1), end_logits.log_softmax(-1)
    allowed = _band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]
    return _pick(s[:, None] + e[None, :], allowed)


@EX82.bug
def end_window_from_position_zero(start_logits, end_logits, context_mask, max_answer_length):
    """Two loops, j in range(i, min(T, max_answer_length)): I forgot the i + in the window's end.
    Differs on: the worked example with max_answer_length = 3: None (no span is ever tried past position 2) instead of (6, 6, 3.0)."""
    T = len(start_logits)
    best = None
    for i in range(T):
        for j in range(i, min(T, max_answer_length)):
            if context_mask[i] and context_mask[j]:
                score = float(start_logits[i] + end_logits[j])
                if best is None or score > best[2]:
                    best = (i, j, score)
    return best


@EX82.bug
def score_read_with_i_twice(start_logits, end_logits, context_mask, max_answer_length):
    """I found the right (i, j) but typed start_logits[i] + end_logits[i] for the score I return.
    Differs on: T = 4, mask all True, start [2, 0, 0, 0], end [0, 0, 0, 3], m = 4: (0, 3, 2.0) instead of (0, 3, 5.0)."""
    T = start_logits.shape[0]
    allowed = _band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]
    scores = (start_logits[:, None] + end_logits[None, :]).masked_fill(~allowed, float("-inf"))
    i, j = divmod(int(scores.argmax()), T)
    return i, j, float(start_logits[i] + end_logits[i])


@EX82.bug
def axes_added_with_unsqueeze_underscore(start_logits, end_logits, context_mask, max_answer_length):
    """I added the pair matrix's axes with start_logits.unsqueeze_(1) and end_logits.unsqueeze_(0), which reshape the caller's tensors.
    Differs on: the worked example: the right (6, 6, 3.0), but afterwards start_logits has shape (8, 1) and end_logits (1, 8)."""
    T = start_logits.shape[0]
    scores = start_logits.unsqueeze_(1) + end_logits.unsqueeze_(0)
    allowed = _band(T, max_answer_length) & context_mask[:, None] & context_mask[None, :]
    return _pick(scores, allowed)


@EX82.correct
def allowed_pairs_listed_with_nonzero(start_logits, end_logits, context_mask, max_answer_length):
    """The allowed (i, j) pairs listed with nonzero (row by row), scored by gathering, the first best one kept."""
    T = start_logits.shape[0]
    rows = torch.arange(T)
    ok = (rows[None, :] >= rows[:, None]) & (rows[None, :] < rows[:, None] + max_answer_length)
    pairs = (ok & context_mask[:, None] & context_mask[None, :]).nonzero()  # (P, 2), in row-major order
    values = start_logits[pairs[:, 0]] + end_logits[pairs[:, 1]]
    k = int(values.argmax())
    return int(pairs[k, 0]), int(pairs[k, 1]), values[k].item()


@EX84.bug
def articles_replaced_by_nothing(prediction, gold):
    """I deleted the articles with re.sub(..., "", text), since the whitespace gets collapsed anyway; two neighbours with no space between them fuse.
    Differs on: "rock–a–bye" against "rock–" (en dashes, not ASCII punctuation): 0.0 instead of 2/3."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", "", _strip_punct(t.lower())).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def punctuation_class_not_escaped(prediction, gold):
    """I deleted punctuation with re.sub(f"[{string.punctuation}]", "", text), without re.escape: the backslash escapes "]" and is itself kept.
    Differs on: "AC\\DC" against "ACDC": 0.0 instead of 1.0."""
    import warnings

    def norm(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            t = re.sub(f"[{string.punctuation}]", "", t.lower())
        return re.sub(r"\b(a|an|the)\b", " ", t).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def ignorecase_passed_as_the_count(prediction, gold):
    """I wrote re.sub(r"\\b(a|an|the)\\b", " ", text, re.IGNORECASE): the flag lands in the count argument, so only the first two articles go.
    Differs on: "the whale and a ship and an oar" against "whale and ship and oar": 10/11 instead of 1.0."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower()), re.IGNORECASE).split()
    return _f1(norm(prediction), norm(gold))


@EX84.bug
def lengths_of_the_normalised_strings(prediction, gold):
    """My normalise returns the cleaned string; I split it for the Counters but divided by len() of the strings, their characters.
    Differs on: "Captain Ahab" against "Ahab": 0.125 instead of 2/3."""
    def normalise(t):
        return " ".join(re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split())
    p, g = normalise(prediction), normalise(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p.split()) & Counter(g.split())).values())
    if not shared:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def rounded_to_two_decimals(prediction, gold):
    """I rounded the F1 to two decimals, as the papers report it.
    Differs on: "Captain Ahab" against "Ahab": 0.67 instead of 0.6667."""
    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", _strip_punct(t.lower())).split()
    return round(_f1(norm(prediction), norm(gold)), 2)


@EX84.bug
def one_table_for_case_and_punctuation(prediction, gold):
    """One str.maketrans(string.ascii_uppercase, string.ascii_lowercase, string.punctuation) table lowers and strips at once, but lowers ASCII letters only.
    Differs on: "ÉCOLE" against "école": 0.0 instead of 1.0."""
    table = str.maketrans(string.ascii_uppercase, string.ascii_lowercase, string.punctuation)

    def norm(t):
        return re.sub(r"\b(a|an|the)\b", " ", t.translate(table)).split()
    return _f1(norm(prediction), norm(gold))


@EX84.correct
def compiled_pipeline_and_harmonic_mean(prediction, gold):
    """A tuple of compiled steps applied in turn; F1 as statistics.harmonic_mean of precision and recall."""
    import statistics
    steps = (str.lower,
             lambda t: t.translate({ord(c): None for c in string.punctuation}),
             lambda t: re.compile(r"\b(?:a|an|the)\b").sub(" ", t),
             str.split)

    def run(text):
        for step in steps:
            text = step(text)
        return text
    p, g = run(prediction), run(gold)
    if not (p and g):
        return 1.0 if not p and not g else 0.0
    shared = sum((Counter(p) & Counter(g)).values())
    return float(statistics.harmonic_mean([shared / len(p), shared / len(g)]))


# --- batch 6: written without reading any checker ------------------------------------------
EX8_1 = Exercise("8.1", "align_labels")
EX8_1.batch = 6


@EX8_1.bug
def label_on_every_piece(words, word_labels, tokenizer):
    """I gave every piece of a word the word's label (label_all_tokens, as the Hugging Face tagging script can), so the loss sees each piece.
    Differs on: the worked example ["Ishmael", "met", "Luthuli"], [1, 0, 1]: labels [-100, 1, 1, 1, 0, 1, 1, 1, -100] instead of [-100, 1, -100, -100, 0, 1, -100, -100, -100]."""
    input_ids, labels = [tokenizer.cls_token_id], [-100]
    for word, label in zip(words, word_labels):
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        input_ids.extend(pieces)
        labels.extend([label] * len(pieces))
    input_ids.append(tokenizer.sep_token_id)
    labels.append(-100)
    return input_ids, labels


@EX8_1.bug
def word_start_told_by_the_hash_prefix(words, word_labels, tokenizer):
    """I put the label on each piece whose token does not start with "##" (a piece without ## starts a word, I thought); punctuation inside a word starts a piece without ##.
    Differs on: ["Mr.", "Smith", "left"], [1, 2, 0] with MiniLM's tokenizer ("mr", ".", "smith", "left"): labels [-100, 1, 1, 2, 0, -100] instead of [-100, 1, -100, 2, 0, -100]."""
    input_ids, labels = [tokenizer.cls_token_id], [-100]
    for word, label in zip(words, word_labels):
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        for token, piece in zip(tokenizer.convert_ids_to_tokens(pieces), pieces):
            input_ids.append(piece)
            labels.append(-100 if token.startswith("##") else label)
    input_ids.append(tokenizer.sep_token_id)
    labels.append(-100)
    return input_ids, labels


@EX8_1.bug
def cut_to_bert_s_512(words, word_labels, tokenizer):
    """I stopped adding pieces once the sequence would pass 512 ids with [SEP], BERT's window, as features.encode cuts at max_seq_length.
    Differs on: 600 words "met", labels 0: 512 ids (510 words) instead of 602."""
    input_ids, labels = [tokenizer.cls_token_id], [-100]
    for word, label in zip(words, word_labels):
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        if len(input_ids) + len(pieces) > 511:
            break
        input_ids += pieces
        labels += [label] + [-100] * (len(pieces) - 1)
    return input_ids + [tokenizer.sep_token_id], labels + [-100]


_PIECES = {}


@EX8_1.bug
def pieces_memoised_by_word(words, word_labels, tokenizer):
    """I memoised each word's pieces in a module-level dict keyed by the word, to tokenize a frequent word only once.
    Differs on: ["Ishmael", "met", "Luthuli"] with MiniLM's tokenizer, then the same words with minibert.Tokenizer over the vocabulary [PAD] [UNK] [CLS] [SEP] [MASK] met is ##hma ##el lu ##th ##uli (ids 0 to 11): the second call returns [2, 2003, 22444, 2884, 2777, 11320, 2705, 15859, 3] instead of [2, 6, 7, 8, 5, 9, 10, 11, 3]."""
    input_ids, labels = [tokenizer.cls_token_id], [-100]
    for word, label in zip(words, word_labels):
        if word not in _PIECES:
            _PIECES[word] = tokenizer(word, add_special_tokens=False)["input_ids"]
        pieces = _PIECES[word]
        input_ids += pieces
        labels += [label] + [-100] * (len(pieces) - 1)
    return input_ids + [tokenizer.sep_token_id], labels + [-100]


@EX8_1.correct
def batch_call_and_chain(words, word_labels, tokenizer):
    """One tokenizer call on the list of words, the ids chained with itertools.chain, the labels built by a comprehension."""
    import itertools
    pieces = tokenizer(list(words), add_special_tokens=False)["input_ids"] if len(words) else []
    ids = [tokenizer.cls_token_id, *itertools.chain.from_iterable(pieces), tokenizer.sep_token_id]
    body = [label if k == 0 else -100 for p, label in zip(pieces, word_labels) for k in range(len(p))]
    return ids, [-100, *body, -100]


# --- batch 6: written without reading any checker ------------------------------------------
EX82.batch = 6


@EX82.bug
def forbidden_pairs_filled_with_float32_min(start_logits, end_logits, context_mask, max_answer_length):
    """I filled the forbidden pairs with torch.finfo(torch.float32).min rather than -inf (an infinity in an arg-max felt risky); half-precision logits cannot hold it.
    Differs on: the worked example with the logits in float16 (.half()), max_answer_length = 3: RuntimeError (value cannot be converted to Half without overflow) instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (j >= i) & (j - i < max_answer_length) & context_mask[:, None] & context_mask[None, :]
    scores = (start_logits[:, None] + end_logits[None, :]).masked_fill(~allowed, torch.finfo(torch.float32).min)
    best_i, best_j = divmod(int(scores.argmax()), T)
    return best_i, best_j, float(scores[best_i, best_j])


@EX82.bug
def end_returned_exclusive(start_logits, end_logits, context_mask, max_answer_length):
    """I returned the end as Python slices want it, one past the last token, so that tokens[i:j] is the answer.
    Differs on: the worked example, max_answer_length = 3: (6, 7, 3.0) instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    scores = start_logits[:, None] + end_logits[None, :]
    rows, cols = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (cols >= rows) & (cols - rows + 1 <= max_answer_length) & context_mask[:, None] & context_mask[None, :]
    scores = scores.masked_fill(~allowed, float("-inf"))
    i, j = divmod(int(scores.argmax()), T)
    return i, j + 1, float(scores[i, j])


@EX82.bug
def logits_cast_to_float32(start_logits, end_logits, context_mask, max_answer_length):
    """I called .float() on the logits first, to be sure of the dtype; float64 logits lose their last digits, and near-equal spans tie.
    Differs on: float64 logits, T = 4, mask all True, start [0, 1, 1 + 1e-9, 0], end [0, 0, 0, 0], max_answer_length = 1: (1, 1, 1.0) instead of (2, 2, 1.000000001)."""
    s, e = start_logits.float(), end_logits.float()
    T = s.shape[0]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (j >= i) & (j - i + 1 <= max_answer_length) & context_mask[:, None] & context_mask[None, :]
    scores = (s[:, None] + e[None, :]).masked_fill(~allowed, float("-inf"))
    best_i, best_j = divmod(int(scores.argmax()), T)
    return best_i, best_j, float(scores[best_i, best_j])


@EX82.bug
def one_diagonal_per_length_past_the_window(start_logits, end_logits, context_mask, max_answer_length):
    """I took the masked matrix's diagonals, offset 0 to max_answer_length - 1 (one per span length), and the best of each; a window shorter than max_answer_length gives empty diagonals.
    Differs on: the worked example (T = 8) with max_answer_length = 30, the usual default: IndexError (arg-max of an empty diagonal, offset 8 and up) instead of (6, 6, 3.0)."""
    scores = start_logits[:, None] + end_logits[None, :]
    scores = scores.masked_fill(~(context_mask[:, None] & context_mask[None, :]), float("-inf"))
    best = None
    for length in range(max_answer_length):
        diagonal = torch.diagonal(scores, offset=length)  # the spans (i, i + length)
        i = int(diagonal.argmax())
        score = float(diagonal[i])
        if best is None or score > best[2] or (score == best[2] and i < best[0]):
            best = (i, i + length, score)
    return best


@EX82.correct
def best_start_for_each_end(start_logits, end_logits, context_mask, max_answer_length):
    """For each end j in the passage, the best start among the max_answer_length positions up to j (a window scan); ties to the smaller (i, j)."""
    T = start_logits.shape[0]
    best = None
    for j in range(T):
        if not context_mask[j]:
            continue
        lo = max(0, j - max_answer_length + 1)
        sums = (start_logits[lo:j + 1] + end_logits[j]).masked_fill(~context_mask[lo:j + 1], float("-inf"))
        k = int(sums.argmax())
        score = float(sums[k])
        if best is None or score > best[0] or (score == best[0] and (lo + k, j) < best[1:]):
            best = (score, lo + k, j)
    if best is None:
        return 0, 0, float("-inf")
    return best[1], best[2], best[0]


# --- batch 6: written without reading any checker ------------------------------------------
EX8_3 = Exercise("8.3", "choice_logits")
EX8_3.batch = 6


@EX8_3.bug
def mask_and_types_in_hugging_face_order(batch, scorer):
    """I passed the rows to the scorer in the order of Hugging Face's forward, (input_ids, attention_mask, token_type_ids).
    Differs on: B = 1, C = 2, T = 3, input_ids zeros, token_type_ids [[[0, 1, 1], [0, 0, 1]]], attention_mask ones, scorer(ids, types, mask) = (ids + 2·types + 3·mask).sum(-1).float(): logits [[12, 9]] instead of [[13, 11]]."""
    B, C, T = batch["input_ids"].shape
    ids = batch["input_ids"].reshape(B * C, T)
    mask = batch["attention_mask"].reshape(B * C, T)
    types = batch["token_type_ids"].reshape(B * C, T)
    logits = scorer(ids, mask, types).reshape(B, C)
    return logits, torch.softmax(logits, dim=1)


@EX8_3.bug
def batch_flattened_in_place(batch, scorer):
    """I flattened the batch where it was, batch[name] = batch[name].reshape(B * C, T) for each name, then scored it.
    Differs on: any batch, e.g. B = 2, C = 3, T = 4: the right logits and probs, but afterwards the caller's batch["input_ids"] has shape (6, 4) instead of (2, 3, 4)."""
    B, C, T = batch["input_ids"].shape
    for name in list(batch):
        batch[name] = batch[name].reshape(B * C, T)
    logits = scorer(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"]).view(B, C)
    return logits, logits.softmax(dim=-1)


@EX8_3.bug
def softmax_written_without_the_max(batch, scorer):
    """I wrote the softmax out, exp(logits) / exp(logits).sum(-1, keepdim=True), without subtracting each question's largest score first.
    Differs on: B = 1, C = 2, T = 1, input_ids [[[100], [90]]], scorer(ids, types, mask) = ids[:, 0].float(): probs [[nan, nan]] (exp overflows to inf in float32) instead of [[0.99995, 0.0000454]]."""
    B, C, T = batch["input_ids"].shape
    flat = {name: tensor.reshape(B * C, T) for name, tensor in batch.items()}
    logits = scorer(flat["input_ids"], flat["token_type_ids"], flat["attention_mask"]).view(B, C)
    e = torch.exp(logits)
    return logits, e / e.sum(-1, keepdim=True)


@EX8_3.bug
def flattened_with_view(batch, scorer):
    """I flattened each (B, C, T) tensor with .view(B * C, T), which needs the tensor's memory in one block.
    Differs on: a batch whose attention_mask is torch.ones(2, 1, 4, dtype=torch.long).expand(2, 3, 4) (the same mask for every choice): RuntimeError (view size is not compatible) instead of the (2, 3) logits."""
    B, C, T = batch["input_ids"].shape
    flat = {name: tensor.view(B * C, T) for name, tensor in batch.items()}
    logits = scorer(flat["input_ids"], flat["token_type_ids"], flat["attention_mask"]).view(B, C)
    return logits, logits.softmax(dim=-1)


@EX8_3.correct
def flatten_unflatten_and_logsumexp(batch, scorer):
    """flatten(0, 1) and unflatten(0, (B, C)) around the scorer; the probabilities as exp(z − logsumexp(z)), z the logits less each question's largest."""
    B, C = batch["input_ids"].shape[:2]
    rows = [batch[name].flatten(0, 1) for name in ("input_ids", "token_type_ids", "attention_mask")]
    logits = scorer(*rows).unflatten(0, (B, C))
    z = logits - logits.amax(dim=-1, keepdim=True)
    return logits, torch.exp(z - z.logsumexp(dim=-1, keepdim=True))


# --- batch 6: written without reading any checker ------------------------------------------
EX84.batch = 6


def _f1_of_tokens(p, g):
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if not shared:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def ascii_whitelist_after_lower_case(prediction, gold):
    """I cleaned with one whitelist after lower-casing, re.sub(r"[^a-z0-9 ]", "", text): letters outside a-z and every whitespace but the space go as well.
    Differs on: "Ελλάδα" against "Κύπρος": 1.0 (both emptied, two no-answers) instead of 0.0; and "Captain\\nAhab" against "Captain Ahab": 0.0 instead of 1.0."""
    def tokens(text):
        text = re.sub(r"[^a-z0-9 ]", "", text.lower())
        return re.sub(r"\b(a|an|the)\b", " ", text).split()
    return _f1_of_tokens(tokens(prediction), tokens(gold))


@EX84.bug
def divided_by_the_counters_lengths(prediction, gold):
    """I built Counter(p) and Counter(g) once and divided by len() of each, which is its number of distinct tokens, not of tokens.
    Differs on: "whale whale" against "whale whale ship": 4/3 instead of 0.8."""
    def tokens(text):
        text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
        return re.sub(r"\b(a|an|the)\b", " ", text).split()
    p, g = Counter(tokens(prediction)), Counter(tokens(gold))
    if not p or not g:
        return float(not p and not g)
    shared = sum((p & g).values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def article_taken_with_its_following_space(prediction, gold):
    """I removed each article with the space after it, re.sub(r"\\b(a|an|the)\\s", " ", text), so an article that ends the answer stays.
    Differs on: "Ahab, the" (a span cut one token late) against "Ahab": 2/3 instead of 1.0."""
    def tokens(text):
        text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
        return re.sub(r"\b(a|an|the)\s", " ", text).split()
    return _f1_of_tokens(tokens(prediction), tokens(gold))


@EX84.bug
def overlap_over_the_union(prediction, gold):
    """I remembered the score as the shared tokens over all the tokens of both, shared / (|p| + |g| − shared), the overlap of spans I knew from detection (it is the Jaccard index, not F1).
    Differs on: "Captain Ahab" against "Ahab": 0.5 instead of 2/3."""
    def tokens(text):
        text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
        return re.sub(r"\b(a|an|the)\b", " ", text).split()
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    return shared / (len(p) + len(g) - shared)


@EX84.correct
def unmatched_by_counter_subtract(prediction, gold):
    """A frozenset filter for the punctuation; the shared tokens as |p| minus the predicted tokens left unmatched by Counter.subtract."""
    drop = frozenset(string.punctuation)
    article = re.compile(r"\b(?:a|an|the)\b")

    def tokens(text):
        return article.sub(" ", "".join(filter(lambda ch: ch not in drop, text.lower()))).split()
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return 1.0 if not p and not g else 0.0
    left = Counter(p)
    left.subtract(g)
    shared = len(p) - sum(n for n in left.values() if n > 0)
    return 2 * shared / (len(p) + len(g)) if shared else 0.0


# --- batch 7: written without reading any checker ------------------------------------------
EX8_1.batch = 7


@EX8_1.bug
def label_on_the_last_piece(words, word_labels, tokenizer):
    """I put the word's label on its last piece, the one that has read the whole word, and -100 on the pieces before it.
    Differs on: the worked example ["Ishmael", "met", "Luthuli"], [1, 0, 1] with all-MiniLM-L6-v2's tokenizer: labels [-100, -100, -100, 1, 0, -100, -100, 1, -100] instead of [-100, 1, -100, -100, 0, 1, -100, -100, -100]."""
    input_ids, labels = [tokenizer.cls_token_id], [-100]
    for word, label in zip(words, word_labels):
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        input_ids.extend(pieces)
        labels.extend([-100] * (len(pieces) - 1) + [label])
    input_ids.append(tokenizer.sep_token_id)
    labels.append(-100)
    return input_ids, labels


@EX8_1.bug
def special_ids_written_as_101_and_102(words, word_labels, tokenizer):
    """I wrote [CLS] and [SEP] as 101 and 102, their ids in BERT's (and MiniLM's) vocabulary, instead of asking the tokenizer.
    Differs on: ["met", "is"], [0, 1] with minibert.Tokenizer({"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "met": 5, "is": 6}): input_ids [101, 5, 6, 102] instead of [2, 5, 6, 3]."""
    CLS, SEP = 101, 102
    ids, labels = [CLS], [-100]
    for word, label in zip(words, word_labels):
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        for k, piece in enumerate(pieces):
            ids.append(piece)
            labels.append(label if k == 0 else -100)
    return ids + [SEP], labels + [-100]


@EX8_1.bug
def labels_popped_from_the_callers_list(words, word_labels, tokenizer):
    """I took each word's label with word_labels.pop(0) as I walked through the words, which empties the caller's list.
    Differs on: the worked example: the right ids and labels, but afterwards the caller's word_labels is [] instead of [1, 0, 1]."""
    input_ids, labels = [tokenizer.cls_token_id], [-100]
    for word in words:
        label = word_labels.pop(0)
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        input_ids += pieces
        labels += [label] + [-100] * (len(pieces) - 1)
    return input_ids + [tokenizer.sep_token_id], labels + [-100]


@EX8_1.bug
def both_special_labels_appended_at_the_end(words, word_labels, tokenizer):
    """I built the word pieces' labels first and added the two -100 of [CLS] and [SEP] together at the end, so every label sits one place to the left of its piece.
    Differs on: the worked example: labels [1, -100, -100, 0, 1, -100, -100, -100, -100] instead of [-100, 1, -100, -100, 0, 1, -100, -100, -100]."""
    body_ids, body_labels = [], []
    for word, label in zip(words, word_labels):
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        body_ids += pieces
        body_labels += [label] + [-100] * (len(pieces) - 1)
    input_ids = [tokenizer.cls_token_id] + body_ids + [tokenizer.sep_token_id]
    return input_ids, body_labels + [-100, -100]


@EX8_1.correct
def tokens_converted_and_first_positions_marked(words, word_labels, tokenizer):
    """tokenize() and convert_tokens_to_ids() for the pieces; the labels start as all -100 and each word's first position is written in afterwards."""
    input_ids, starts = [tokenizer.cls_token_id], []
    for word in words:
        starts.append(len(input_ids))
        input_ids.extend(tokenizer.convert_tokens_to_ids(tokenizer.tokenize(word)))
    input_ids.append(tokenizer.sep_token_id)
    labels = [-100] * len(input_ids)
    for position, label in zip(starts, word_labels):
        labels[position] = label
    return input_ids, labels


# --- batch 7: written without reading any checker ------------------------------------------
EX82.batch = 7


@EX82.bug
def mask_read_as_p_mask(start_logits, end_logits, context_mask, max_answer_length):
    """I read context_mask as Hugging Face's p_mask, True where a token cannot be in the answer, so I kept the spans whose ends are both False.
    Differs on: the worked example ([CLS] q q [SEP] c c c [SEP], start [0, 0, 0, 0, 0.5, 0, 3, 0], end [0, 0, 0, 0, 2, 0.5, 0, 0]), max_answer_length = 3: (0, 0, 0.0) instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    scores = start_logits[:, None] + end_logits[None, :]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    outside = ~context_mask
    allowed = (j >= i) & (j - i + 1 <= max_answer_length) & outside[:, None] & outside[None, :]
    scores = scores.masked_fill(~allowed, float("-inf"))
    best_i, best_j = divmod(int(scores.argmax()), T)
    return best_i, best_j, float(scores[best_i, best_j])


@EX82.bug
def max_answer_length_fixed_at_30(start_logits, end_logits, context_mask, max_answer_length):
    """Two loops with the end at most 30 tokens after the start, SQuAD's usual max_answer_length, which I wrote in as a number instead of using the argument.
    Differs on: T = 6, mask [F, T, T, T, T, T], start [0, 3, 0, 0, 0, 0], end [0, 0, 0, 0, 3, 0], max_answer_length = 2: (1, 4, 6.0) instead of (1, 1, 3.0)."""
    s, e, m = start_logits.tolist(), end_logits.tolist(), context_mask.tolist()
    T = len(s)
    best = None
    for i in range(T):
        if not m[i]:
            continue
        for j in range(i, min(T, i + 30)):
            if m[j] and (best is None or s[i] + e[j] > best[2]):
                best = (i, j, s[i] + e[j])
    return best


@EX82.bug
def pair_scores_in_float64(start_logits, end_logits, context_mask, max_answer_length):
    """I turned the logits to float64 with .double() before adding them, to be safe from rounding; half-precision logits then add up differently from the model's own float16 sums.
    Differs on: float16 logits, T = 4, mask [F, T, T, F], start [0, 1000, 0, 0], end [0, 0.3, 0.4, 0], max_answer_length = 2: (1, 2, 1000.3999) instead of (1, 1, 1000.5) (in float16 both sums round to 1000.5)."""
    s, e = start_logits.double(), end_logits.double()
    T = s.shape[0]
    rows, cols = torch.arange(T).unsqueeze(1), torch.arange(T).unsqueeze(0)
    allowed = (cols >= rows) & (cols - rows < max_answer_length) & context_mask.unsqueeze(1) & context_mask.unsqueeze(0)
    scores = torch.where(allowed, s.unsqueeze(1) + e.unsqueeze(0), torch.tensor(float("-inf"), dtype=s.dtype))
    flat = int(torch.argmax(scores))
    return flat // T, flat % T, scores.flatten()[flat].item()


@EX82.bug
def start_and_end_at_the_same_token(start_logits, end_logits, context_mask, max_answer_length):
    """I scored each passage token as start + end at that token, the diagonal of the pair matrix, so only one-token answers are ever considered.
    Differs on: T = 6, mask [F, T, T, T, T, T], start [0, 3, 0, 0, 0, 0], end [0, 0, 0, 0, 3, 0], max_answer_length = 4: (1, 1, 3.0) instead of (1, 4, 6.0)."""
    scores = (start_logits + end_logits).masked_fill(~context_mask, float("-inf"))
    k = int(scores.argmax())
    return k, k, float(scores[k])


@EX82.correct
def log_of_the_mask_and_best_row(start_logits, end_logits, context_mask, max_answer_length):
    """The constraints added as log(allowed) (0 or -inf) in the logits' dtype; the best end of every start with max(dim=1), then the best start."""
    T = start_logits.shape[0]
    positions = torch.arange(T)
    length = positions[None, :] - positions[:, None] + 1  # (T, T): j - i + 1
    allowed = (length >= 1) & (length <= max_answer_length) & torch.outer(context_mask, context_mask)
    scores = start_logits.unsqueeze(-1) + end_logits.unsqueeze(0) + allowed.to(start_logits.dtype).log()
    row_best, row_end = scores.max(dim=1)  # each start's best end (the first one on ties)
    i = int(row_best.argmax())
    return i, int(row_end[i]), row_best[i].item()


# --- batch 7: written without reading any checker ------------------------------------------
EX8_3.batch = 7


@EX8_3.bug
def softmax_over_the_questions(batch, scorer):
    """I took the softmax with dim=0, thinking of dim 0 as "the first axis of the scores", but dim 0 of the (B, C) logits runs over the questions.
    Differs on: B = 2, C = 2, T = 1, input_ids [[[1], [2]], [[3], [5]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = ids[:, 0].float(): probs [[0.119, 0.047], [0.881, 0.953]] instead of [[0.269, 0.731], [0.119, 0.881]]; with B = 1 every prob is 1."""
    B, C, T = batch["input_ids"].shape
    flat = {name: tensor.reshape(B * C, T) for name, tensor in batch.items()}
    logits = scorer(flat["input_ids"], flat["token_type_ids"], flat["attention_mask"]).view(B, C)
    return logits, torch.softmax(logits, dim=0)


@EX8_3.bug
def choices_stacked_then_reshaped(batch, scorer):
    """I scored one choice at a time for every question, batch[name][:, c], and put the C score vectors together with torch.stack(...).reshape(B, C); stack puts the choices first, so the reshape mixes questions and choices.
    Differs on: B = 2, C = 2, T = 1, input_ids [[[1], [2]], [[3], [5]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = ids[:, 0].float(): logits [[1, 3], [2, 5]] instead of [[1, 2], [3, 5]] (with B = 1 or C = 1 it comes out right)."""
    B, C, T = batch["input_ids"].shape
    per_choice = []
    for c in range(C):
        per_choice.append(scorer(batch["input_ids"][:, c], batch["token_type_ids"][:, c], batch["attention_mask"][:, c]))
    logits = torch.stack(per_choice).reshape(B, C)
    return logits, logits.softmax(dim=-1)


@EX8_3.bug
def trailing_axis_squeezed_away(batch, scorer):
    """I put the scores back with .reshape(B, C, -1).squeeze(), to drop the trailing 1 of a classifier's (B·C, 1) output; squeeze() also drops B or C when it is 1.
    Differs on: B = 2, C = 1, T = 1, input_ids [[[1]], [[3]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = ids[:, 0].float(): logits [1, 3] of shape (2,) and probs [0.119, 0.881] instead of [[1], [3]] and [[1.0], [1.0]]; with B = 1 the shapes are (C,) instead of (1, C)."""
    B, C, T = batch["input_ids"].shape
    ids, types, mask = (batch[name].reshape(B * C, T) for name in ("input_ids", "token_type_ids", "attention_mask"))
    logits = scorer(ids, types, mask).reshape(B, C, -1).squeeze()
    return logits, logits.softmax(dim=-1)


@EX8_3.bug
def rows_passed_in_the_dicts_order(batch, scorer):
    """I flattened every tensor of the dict and called scorer(*flat.values()), trusting the batch to list input_ids, token_type_ids and attention_mask in the scorer's order.
    Differs on: the batch {"input_ids": ..., "attention_mask": ..., "token_type_ids": ...} (the order of many collators) with B = 1, C = 2, T = 3, input_ids zeros, token_type_ids [[[0, 1, 1], [0, 0, 1]]], attention_mask ones, scorer(ids, types, mask) = (ids + 2·types + 3·mask).sum(-1).float(): logits [[12, 9]] instead of [[13, 11]]."""
    B, C, T = batch["input_ids"].shape
    flat = {name: tensor.reshape(B * C, T) for name, tensor in batch.items()}
    logits = scorer(*flat.values()).view(B, C)
    return logits, logits.softmax(dim=-1)


@EX8_3.correct
def one_question_at_a_time(batch, scorer):
    """A loop over the B questions, each one's C rows scored in one call, the rows stacked into (B, C); the probabilities as exp(log_softmax)."""
    B = batch["input_ids"].shape[0]
    rows = []
    for b in range(B):
        rows.append(scorer(batch["input_ids"][b], batch["token_type_ids"][b], batch["attention_mask"][b]))  # (C,)
    logits = torch.stack(rows, dim=0)  # (B, C)
    return logits, torch.log_softmax(logits, dim=1).exp()


# --- batch 7: written without reading any checker ------------------------------------------
EX84.batch = 7


@EX84.bug
def tokens_found_with_findall(prediction, gold):
    """After the normalisation I took the tokens with re.findall(r"\\w+", text), the words of the text, instead of splitting on whitespace; a sign that is not ASCII punctuation (’, °, €) now splits a token and is dropped.
    Differs on: "Ahab’s ship" (a curly apostrophe) against "Ahab ship": 0.8 (ahab, s, ship) instead of 0.5 (ahab’s, ship)."""
    def tokens(text):
        text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
        text = re.sub(r"\b(a|an|the)\b", " ", text)
        return re.findall(r"\w+", text)
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def articles_replaced_between_spaces(prediction, gold):
    """I removed the articles as whole words by padding the text with spaces and replacing " a ", " an " and " the " with " "; two articles in a row share a space, so str.replace skips the second.
    Differs on: "Ahab, the the captain" against "Ahab captain": 0.8 (one "the" is left) instead of 1.0; and "The The" against "": 0.0 instead of 1.0."""
    def tokens(text):
        text = " " + "".join(ch for ch in text.lower() if ch not in string.punctuation) + " "
        for article in ("a", "an", "the"):
            text = text.replace(f" {article} ", " ")
        return text.split()
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return 1.0 if not p and not g else 0.0
    common = Counter(p) & Counter(g)
    shared = sum(common.values())
    if not shared:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def whitespace_runs_of_space_tab_newline(prediction, gold):
    """I collapsed whitespace with re.split(r"[ \\t\\n]+", text), listing the whitespace characters I know; a no-break space (common in Wikipedia text) or a \\r is not among them.
    Differs on: "Captain\\u00a0Ahab" (a no-break space) against "Captain Ahab": 0.0 instead of 1.0."""
    def tokens(text):
        text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
        text = re.sub(r"\b(a|an|the)\b", " ", text)
        return [t for t in re.split(r"[ \t\n]+", text) if t]
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if shared == 0:
        return 0.0
    return 2 * shared / (len(p) + len(g))


@EX84.bug
def article_pattern_without_the_closing_boundary(prediction, gold):
    """I wrote the article pattern as r"\\b(a|an|the)", forgetting the closing \\b, so it also eats "a", "an" or "the" at the start of any word, and "a" wins over "an".
    Differs on: "an apple" against "apple": 2/3 (tokens n, pple against pple) instead of 1.0."""
    def tokens(text):
        text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
        return re.sub(r"\b(a|an|the)", " ", text).split()
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.correct
def bincount_over_a_shared_vocabulary(prediction, gold):
    """str.translate with a deletion table, the article pattern compiled once; the overlap as np.minimum of two np.bincount vectors over a shared vocabulary."""
    delete = str.maketrans("", "", string.punctuation)
    article = re.compile(r"\b(?:an|a|the)\b")

    def tokens(text):
        return article.sub(" ", text.lower().translate(delete)).split()
    p, g = tokens(prediction), tokens(gold)
    if len(p) == 0 or len(g) == 0:
        return float(len(p) == 0 and len(g) == 0)
    vocabulary = {w: k for k, w in enumerate(dict.fromkeys(p + g))}
    p_counts = np.bincount([vocabulary[w] for w in p], minlength=len(vocabulary))
    g_counts = np.bincount([vocabulary[w] for w in g], minlength=len(vocabulary))
    shared = int(np.minimum(p_counts, g_counts).sum())
    return 2 * shared / (len(p) + len(g)) if shared else 0.0


# --- batch 8: written without reading any checker ------------------------------------------
EX8_1.batch = 8


@EX8_1.bug
def first_piece_only_kept(words, word_labels, tokenizer):
    """I kept only each word's first piece in input_ids, since the other pieces carry no label anyway (-100).
    Differs on: the worked example, ["Ishmael", "met", "Luthuli"], [1, 0, 1], all-MiniLM-L6-v2's tokenizer: input_ids [101, 2003, 2777, 11320, 102] and labels [-100, 1, 0, 1, -100] instead of 9 ids [101, 2003, 22444, 2884, 2777, 11320, 2705, 15859, 102] and [-100, 1, -100, -100, 0, 1, -100, -100, -100]."""
    input_ids = [tokenizer.cls_token_id]
    labels = [-100]
    for word, label in zip(words, word_labels):
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        input_ids.append(pieces[0])
        labels.append(label)
    input_ids.append(tokenizer.sep_token_id)
    labels.append(-100)
    return input_ids, labels


@EX8_1.bug
def one_minus_100_per_piece_after_the_label(words, word_labels, tokenizer):
    """After each word's label I added a -100 for each of its pieces, [label] + [-100] * len(pieces), counting the first piece twice: each word gets one label too many.
    Differs on: the worked example, ["Ishmael", "met", "Luthuli"], [1, 0, 1], all-MiniLM-L6-v2's tokenizer: 12 labels [-100, 1, -100, -100, -100, 0, -100, 1, -100, -100, -100, -100] for the 9 ids, instead of [-100, 1, -100, -100, 0, 1, -100, -100, -100]."""
    ids, labels = [tokenizer.cls_token_id], [-100]
    for k in range(len(words)):
        pieces = tokenizer(words[k], add_special_tokens=False)["input_ids"]
        ids = ids + pieces
        labels = labels + [word_labels[k]] + [-100] * len(pieces)
    return ids + [tokenizer.sep_token_id], labels + [-100]


@EX8_1.bug
def each_word_tokenized_with_its_specials(words, word_labels, tokenizer):
    """I tokenized each word with tokenizer(word)["input_ids"], its defaults, which wrap every word in its own [CLS] ... [SEP]; the word's label then sits on that inner [CLS].
    Differs on: ["met", "Luthuli"], [0, 1], all-MiniLM-L6-v2's tokenizer: input_ids [101, 101, 2777, 102, 101, 11320, 2705, 15859, 102, 102] and labels [-100, 0, -100, -100, 1, -100, -100, -100, -100, -100] instead of [101, 2777, 11320, 2705, 15859, 102] and [-100, 0, 1, -100, -100, -100]."""
    per_word = [tokenizer(word)["input_ids"] for word in words]
    input_ids = [tokenizer.cls_token_id] + [i for pieces in per_word for i in pieces] + [tokenizer.sep_token_id]
    labels = [-100]
    for pieces, label in zip(per_word, word_labels):
        labels += [label] + [-100] * (len(pieces) - 1)
    labels.append(-100)
    return input_ids, labels


@EX8_1.bug
def ignored_positions_marked_minus_one(words, word_labels, tokenizer):
    """I marked the positions the loss must skip with -1 (the "no label" value I had seen in older tagging code), not -100, PyTorch's default ignore_index.
    Differs on: the worked example, ["Ishmael", "met", "Luthuli"], [1, 0, 1], all-MiniLM-L6-v2's tokenizer: labels [-1, 1, -1, -1, 0, 1, -1, -1, -1] instead of [-100, 1, -100, -100, 0, 1, -100, -100, -100]."""
    IGNORE = -1
    pieces_per_word = [tokenizer(w, add_special_tokens=False)["input_ids"] for w in words]
    input_ids = [tokenizer.cls_token_id]
    for pieces in pieces_per_word:
        input_ids.extend(pieces)
    input_ids.append(tokenizer.sep_token_id)
    labels = [IGNORE] * len(input_ids)
    position = 1
    for pieces, label in zip(pieces_per_word, word_labels):
        labels[position] = label
        position += len(pieces)
    return input_ids, labels


@EX8_1.correct
def pairs_yielded_then_unzipped(words, word_labels, tokenizer):
    """A generator yields (id, label) pairs, the label on piece 0 of each word and -100 elsewhere; zip(*...) splits them into the two lists."""
    def pairs():
        yield tokenizer.cls_token_id, -100
        for word, label in zip(words, word_labels):
            for k, piece in enumerate(tokenizer(word, add_special_tokens=False)["input_ids"]):
                yield piece, (label if k == 0 else -100)
        yield tokenizer.sep_token_id, -100
    input_ids, labels = zip(*pairs())
    return list(input_ids), list(labels)


# --- batch 8: written without reading any checker ------------------------------------------
EX82.batch = 8


@EX82.bug
def pair_matrix_from_torch_outer(start_logits, end_logits, context_mask, max_answer_length):
    """I built the (T, T) matrix of every pair with torch.outer(start_logits, end_logits), which I took for the outer sum; it is the outer product, so each span scores S·T_i times E·T_j.
    Differs on: the worked example (start [0, 0, 0, 0, 0.5, 0, 3, 0], end [0, 0, 0, 0, 2, 0.5, 0, 0], passage 4 to 6, max_answer_length 30): (4, 4, 1.0) instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    scores = torch.outer(start_logits, end_logits)
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (j >= i) & (j - i + 1 <= max_answer_length) & context_mask[:, None] & context_mask[None, :]
    scores = scores.masked_fill(~allowed, float("-inf"))
    best_i, best_j = divmod(int(scores.argmax()), T)
    return best_i, best_j, float(scores[best_i, best_j])


@EX82.bug
def upper_triangle_kept_with_triu(start_logits, end_logits, context_mask, max_answer_length):
    """I kept j >= i with torch.triu(scores), as the hint suggests, and masked only the length and the passage with -inf; triu puts 0, not -inf, below the diagonal, so an end before its start scores 0.
    Differs on: T = 4, mask [F, T, T, F], start [0, -1, -2, 0], end [0, -2, -1, 0], max_answer_length 2: (2, 1, 0.0) instead of (1, 2, -2.0)."""
    T = start_logits.shape[0]
    scores = torch.triu(start_logits[:, None] + end_logits[None, :])  # j >= i
    rows, cols = torch.arange(T)[:, None], torch.arange(T)[None, :]
    keep = (cols - rows + 1 <= max_answer_length) & context_mask[:, None] & context_mask[None, :]
    scores = scores.masked_fill(~keep, float("-inf"))
    flat = int(scores.argmax())
    i, j = flat // T, flat % T
    return i, j, float(scores[i, j])


@EX82.bug
def forbidden_pairs_added_as_zero_times_inf(start_logits, end_logits, context_mask, max_answer_length):
    """I added the constraints as an additive mask, (~allowed).to(dtype) * -inf, as for attention; but 0 * -inf is nan, so every allowed pair becomes nan and argmax, which treats nan as the largest, returns the first allowed pair.
    Differs on: the worked example (start [0, 0, 0, 0, 0.5, 0, 3, 0], end [0, 0, 0, 0, 2, 0.5, 0, 0], passage 4 to 6, max_answer_length 30): (4, 4, nan) instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    pos = torch.arange(T)
    allowed = (pos[None, :] >= pos[:, None]) & (pos[None, :] - pos[:, None] < max_answer_length)
    allowed = allowed & context_mask[:, None] & context_mask[None, :]
    scores = start_logits[:, None] + end_logits[None, :]
    scores = scores + (~allowed).to(scores.dtype) * float("-inf")
    i, j = divmod(int(torch.argmax(scores)), T)
    return i, j, scores[i, j].item()


@EX82.bug
def search_done_on_numpy_views(start_logits, end_logits, context_mask, max_answer_length):
    """I did the search in numpy, starting from start_logits.numpy() and end_logits.numpy(); logits straight out of a model that was not run under torch.no_grad() still require grad, and .numpy() refuses them (it needed .detach() first).
    Differs on: the worked example with start_logits and end_logits made with requires_grad=True (as a model's outputs are): RuntimeError ("Can't call numpy() on Tensor that requires grad") instead of (6, 6, 3.0)."""
    s, e = start_logits.numpy(), end_logits.numpy()
    m = context_mask.numpy()
    T = s.shape[0]
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    allowed = (j >= i) & (j - i + 1 <= max_answer_length) & m[:, None] & m[None, :]
    scores = np.where(allowed, s[:, None] + e[None, :], -np.inf)
    best_i, best_j = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return int(best_i), int(best_j), float(scores[best_i, best_j])


@EX82.correct
def pairs_listed_with_combinations(start_logits, end_logits, context_mask, max_answer_length):
    """Every (i, j) with i <= j listed by torch.combinations(..., with_replacement=True) in row order, filtered by length and passage, scored by indexing; the first best kept."""
    T = start_logits.shape[0]
    pairs = torch.combinations(torch.arange(T), r=2, with_replacement=True)  # (0, 0), (0, 1), ..., (T-1, T-1)
    i, j = pairs[:, 0], pairs[:, 1]
    keep = (j - i < max_answer_length) & context_mask[i] & context_mask[j]
    i, j = i[keep], j[keep]
    scores = start_logits[i] + end_logits[j]  # in the logits' dtype
    k = int(scores.argmax())
    return int(i[k]), int(j[k]), float(scores[k])


# --- batch 8: written without reading any checker ------------------------------------------
EX8_3.batch = 8


@EX8_3.bug
def exponentials_over_the_whole_batch(batch, scorer):
    """I wrote the softmax out as e = exp(logits - logits.max()), then e / e.sum(), forgetting the dim in the max and the sum, so the B·C exponentials are normalised together and each question's probabilities no longer add up to 1.
    Differs on: B = 2, C = 2, T = 1, input_ids [[[1], [2]], [[3], [5]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = ids[:, 0].float(): probs [[0.015, 0.041], [0.113, 0.831]] instead of [[0.269, 0.731], [0.119, 0.881]] (with B = 1 it comes out right)."""
    B, C, T = batch["input_ids"].shape
    ids = batch["input_ids"].reshape(B * C, T)
    types = batch["token_type_ids"].reshape(B * C, T)
    mask = batch["attention_mask"].reshape(B * C, T)
    logits = scorer(ids, types, mask).reshape(B, C)
    e = torch.exp(logits - logits.max())
    return logits, e / e.sum()


@EX8_3.bug
def sigmoid_of_each_choice(batch, scorer):
    """I turned each choice's score into a probability with its own sigmoid (is this ending right, yes or no?), not a softmax over the question's C choices.
    Differs on: B = 1, C = 2, T = 1, input_ids [[[1], [2]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = ids[:, 0].float(): probs [[0.731, 0.881]] instead of [[0.269, 0.731]]."""
    B, C, T = batch["input_ids"].shape
    flat = {k: v.reshape(B * C, T) for k, v in batch.items()}
    logits = scorer(flat["input_ids"], flat["token_type_ids"], flat["attention_mask"]).view(B, C)
    return logits, torch.sigmoid(logits)


@EX8_3.bug
def rows_scored_one_by_one_as_vectors(batch, scorer):
    """I flattened to (B·C, T) and scored the rows one at a time, scorer(ids[n], types[n], mask[n]), handing the scorer a (T,) vector where it takes (N, T) rows; a scorer that reads column 0 of its rows fails on it.
    Differs on: B = 1, C = 2, T = 1, input_ids [[[1], [2]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = ids[:, 0].float(): IndexError (too many indices for a 1-d tensor) instead of logits [[1., 2.]] (a scorer summing over its last axis happens to work)."""
    B, C, T = batch["input_ids"].shape
    ids = batch["input_ids"].reshape(-1, T)
    types = batch["token_type_ids"].reshape(-1, T)
    mask = batch["attention_mask"].reshape(-1, T)
    scores = [scorer(ids[n], types[n], mask[n]) for n in range(B * C)]
    logits = torch.stack(scores).reshape(B, C)
    return logits, logits.softmax(dim=-1)


@EX8_3.bug
def scores_copied_into_a_table_of_floats(batch, scorer):
    """I put the B·C scores back into a (B, C) table of Python floats, row b = n // C, column c = n % C, and made the logits with torch.tensor(table): that is float32 whatever the scorer gave, and cut off from the scorer's gradients.
    Differs on: B = 1, C = 2, T = 1, input_ids [[[1], [2]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = ids[:, 0].double() / 3: float32 logits [[0.33333334, 0.6666667]] instead of float64 [[0.3333333333333333, 0.6666666666666666]]; and with a scorer that has parameters, logits.sum().backward() fails."""
    B, C, T = batch["input_ids"].shape
    flat = [batch[name].reshape(B * C, T) for name in ("input_ids", "token_type_ids", "attention_mask")]
    scores = scorer(*flat)
    table = [[0.0] * C for _ in range(B)]
    for n, score in enumerate(scores.tolist()):
        b, c = divmod(n, C)
        table[b][c] = score
    logits = torch.tensor(table)
    return logits, logits.softmax(dim=1)


@EX8_3.correct
def one_choice_at_a_time_stacked_on_dim_one(batch, scorer):
    """A loop over the C choices, each scored for all B questions at once (batch[name][:, c]), the C score vectors stacked on dim 1; F.softmax over dim 1."""
    C = batch["input_ids"].shape[1]
    columns = []
    for c in range(C):
        ids, types, mask = (batch[name][:, c].contiguous() for name in ("input_ids", "token_type_ids", "attention_mask"))
        columns.append(scorer(ids, types, mask))  # (B,)
    logits = torch.stack(columns, dim=1)  # (B, C)
    return logits, F.softmax(logits, dim=1)


# --- batch 8: written without reading any checker ------------------------------------------
EX84.batch = 8


def _normalised_tokens_b8(text):
    text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
    return re.sub(r"\b(a|an|the)\b", " ", text).split()


@EX84.bug
def nothing_shared_left_to_the_formula(prediction, gold):
    """I went straight from the shared count to P, R and 2PR / (P + R), without the "0 when nothing is shared" case: with no token in common P + R is 0 and the division fails.
    Differs on: "Ahab" against "Ishmael": ZeroDivisionError instead of 0.0."""
    p, g = _normalised_tokens_b8(prediction), _normalised_tokens_b8(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    precision = shared / len(p)
    recall = shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def split_first_then_each_token_cleaned(prediction, gold):
    """I split on whitespace first and then cleaned each token (lower case, punctuation deleted, articles dropped); a token made only of punctuation, like a lone "-", is left as an empty token "" and counts as a word.
    Differs on: "Ahab - captain" against "Ahab captain": 0.8 (tokens ahab, "", captain) instead of 1.0; and "..." against "": 0.0 instead of 1.0."""
    def tokens(text):
        out = []
        for word in text.split():
            word = "".join(ch for ch in word.lower() if ch not in string.punctuation)
            if word not in ("a", "an", "the"):
                out.append(word)
        return out
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def overlap_from_difflib_ratio(prediction, gold):
    """After the normalisation I used difflib.SequenceMatcher(None, p, g).ratio() on the two token lists, whose 2·M / (|p| + |g|) is the F1 formula; but M counts tokens matched in order, not the multiset overlap.
    Differs on: "Ahab captain" against "captain Ahab": 0.5 instead of 1.0 (the statement's worked examples all agree)."""
    p, g = _normalised_tokens_b8(prediction), _normalised_tokens_b8(gold)
    if not p or not g:
        return float(p == g)
    return difflib.SequenceMatcher(None, p, g).ratio()


@EX84.bug
def no_answer_rule_copied_from_its_condition(prediction, gold):
    """In the no-answer branch, `if not p or not g:`, I returned float(not p or not g), copying the condition where I meant "both are empty", so an empty side against a real answer scores 1.
    Differs on: "Ahab" against "": 1.0 instead of 0.0; and "The" against "Pequod": 1.0 instead of 0.0."""
    p, g = _normalised_tokens_b8(prediction), _normalised_tokens_b8(gold)
    if not p or not g:
        return float(not p or not g)
    common = Counter(p) & Counter(g)
    shared = sum(common.values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.correct
def character_loop_and_min_counts(prediction, gold):
    """Lower case and punctuation by a character loop, the article pattern compiled once; the overlap as the sum over distinct tokens of min(p.count, g.count); F1 as 2·shared / (|p| + |g|)."""
    articles = re.compile(r"\b(?:a|an|the)\b")

    def tokens(text):
        kept = []
        for ch in text.lower():
            if ch not in string.punctuation:
                kept.append(ch)
        return articles.sub(" ", "".join(kept)).split()
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return 1.0 if p == g else 0.0
    shared = sum(min(p.count(w), g.count(w)) for w in set(p))
    return 2 * shared / (len(p) + len(g))


# --- batch 9: written without reading any checker ------------------------------------------
EX8_1.batch = 9


@EX8_1.bug
def label_looked_up_with_words_index(words, word_labels, tokenizer):
    """In my loop over the words I found each word's label with word_labels[words.index(word)]; index finds a word's first occurrence, so a word that comes back later gets the label of its first time.
    Differs on: all-MiniLM-L6-v2's tokenizer, ["Call", "me", "Ishmael", "call", "me"] with labels [0, 1, 2, 3, 4] (the second "me" is a word seen before): labels [-100, 0, 1, 2, -100, -100, 3, 1, -100] instead of [-100, 0, 1, 2, -100, -100, 3, 4, -100]."""
    input_ids = [tokenizer.cls_token_id]
    labels = [-100]
    for word in words:
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        input_ids.extend(pieces)
        labels.append(word_labels[words.index(word)])
        labels.extend([-100] * (len(pieces) - 1))
    input_ids.append(tokenizer.sep_token_id)
    labels.append(-100)
    return input_ids, labels


@EX8_1.bug
def word_looked_up_whole_in_the_vocabulary(words, word_labels, tokenizer):
    """I turned each word into ids with tokenizer.convert_tokens_to_ids(word), a vocabulary look-up, taking it for the tokenizer: a word is never split into pieces, and one not in the vocabulary as it is (capitals, rare words) becomes [UNK].
    Differs on: the worked example, ["Ishmael", "met", "Luthuli"], labels [1, 0, 1], all-MiniLM-L6-v2's tokenizer: input_ids [101, 100, 2777, 100, 102] ([UNK] for both names) and labels [-100, 1, 0, 1, -100] instead of 9 ids and [-100, 1, -100, -100, 0, 1, -100, -100, -100]."""
    input_ids = [tokenizer.cls_token_id]
    labels = [-100]
    for word, label in zip(words, word_labels):
        pieces = tokenizer.convert_tokens_to_ids([word])
        input_ids += pieces
        labels += [label] + [-100] * (len(pieces) - 1)
    return input_ids + [tokenizer.sep_token_id], labels + [-100]


@EX8_1.bug
def sep_label_forgotten(words, word_labels, tokenizer):
    """I closed the ids with [SEP] but forgot to close the labels with its -100, so the labels come out one shorter than the ids.
    Differs on: the worked example, ["Ishmael", "met", "Luthuli"], labels [1, 0, 1]: labels [-100, 1, -100, -100, 0, 1, -100, -100] (8) instead of [-100, 1, -100, -100, 0, 1, -100, -100, -100] (9, like the ids)."""
    ids, labs = [tokenizer.cls_token_id], [-100]
    for word, label in zip(words, word_labels):
        pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
        for k, piece in enumerate(pieces):
            ids.append(piece)
            labs.append(label if k == 0 else -100)
    ids.append(tokenizer.sep_token_id)
    return ids, labs


@EX8_1.bug
def minus_100s_counted_from_the_characters(words, word_labels, tokenizer):
    """I padded each word's label with len(word) - 1 times -100, counting the word's characters where I meant its pieces, so the labels run longer than the ids and drift out of line.
    Differs on: the worked example, ["Ishmael", "met", "Luthuli"], labels [1, 0, 1]: 19 labels, [-100, 1, -100 × 6, 0, -100, -100, 1, -100 × 6, -100], instead of 9 ([-100, 1, -100, -100, 0, 1, -100, -100, -100])."""
    input_ids, labels = [tokenizer.cls_token_id], [-100]
    for word, label in zip(words, word_labels):
        input_ids += tokenizer(word, add_special_tokens=False)["input_ids"]
        labels += [label] + [-100] * (len(word) - 1)
    return input_ids + [tokenizer.sep_token_id], labels + [-100]


@EX8_1.correct
def pieces_flattened_with_sum_and_nested_comprehension(words, word_labels, tokenizer):
    """Every word's pieces in a list of lists, the ids flattened with sum(..., []), the labels with a nested comprehension (the label at piece 0, -100 after)."""
    pieces = [tokenizer(word, add_special_tokens=False)["input_ids"] for word in words]
    input_ids = [tokenizer.cls_token_id] + sum(pieces, []) + [tokenizer.sep_token_id]
    labels = [-100] + [label if k == 0 else -100
                       for word_pieces, label in zip(pieces, word_labels)
                       for k in range(len(word_pieces))] + [-100]
    return input_ids, labels


# --- batch 9: written without reading any checker ------------------------------------------
EX82.batch = 9


@EX82.bug
def score_added_as_python_floats(start_logits, end_logits, context_mask, max_answer_length):
    """I found the best pair on the (T, T) matrix, but returned its score as start_logits[i].item() + end_logits[j].item(), two Python floats added in double precision rather than in the logits' dtype.
    Differs on: float16 logits, T = 3, mask [F, T, F], start [0, 1, 0], end [0, 2**-11, 0] (0.00048828125), max_answer_length 1: (1, 1, 1.00048828125) instead of (1, 1, 1.0), the float16 sum."""
    T = start_logits.shape[0]
    scores = start_logits[:, None] + end_logits[None, :]
    rows, cols = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (cols >= rows) & (cols - rows < max_answer_length) & context_mask[:, None] & context_mask[None, :]
    flat = int(scores.masked_fill(~allowed, float("-inf")).argmax())
    i, j = divmod(flat, T)
    return i, j, start_logits[i].item() + end_logits[j].item()


@EX82.bug
def mask_inverted_by_subtraction(start_logits, end_logits, context_mask, max_answer_length):
    """I inverted the passage mask with 1 - context_mask, as I do for attention masks of 0s and 1s; the mask is bool, and torch refuses - on a bool tensor.
    Differs on: the worked example (start [0, 0, 0, 0, 0.5, 0, 3, 0], end [0, 0, 0, 0, 2, 0.5, 0, 0], passage 4 to 6 as a bool mask, max_answer_length 30): RuntimeError ("Subtraction, the `-` operator, with a bool tensor is not supported") instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    outside = 1 - context_mask
    scores = start_logits[:, None] + end_logits[None, :]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    forbidden = (j < i) | (j - i + 1 > max_answer_length) | outside[:, None].bool() | outside[None, :].bool()
    scores = scores.masked_fill(forbidden, float("-inf"))
    best_i, best_j = divmod(int(scores.argmax()), T)
    return best_i, best_j, float(scores[best_i, best_j])


@EX82.bug
def either_end_in_the_passage(start_logits, end_logits, context_mask, max_answer_length):
    """I combined the passage conditions of the two ends with | where I meant &, so a span needs only one of its ends in the passage: it may start in the question and end in the passage.
    Differs on: T = 6, mask [F, F, F, T, T, F], start [0, 0, 5, 0, 0, 0], end [0, 0, 0, 1, 0, 0], max_answer_length 30: (2, 3, 6.0), a span starting on the question's token 2, instead of (3, 3, 1.0)."""
    T = start_logits.shape[0]
    scores = start_logits.unsqueeze(1) + end_logits.unsqueeze(0)
    pos = torch.arange(T)
    band = (pos[None, :] >= pos[:, None]) & (pos[None, :] - pos[:, None] + 1 <= max_answer_length)
    in_passage = context_mask.unsqueeze(1) | context_mask.unsqueeze(0)
    scores = scores.masked_fill(~(band & in_passage), float("-inf"))
    i, j = divmod(int(scores.argmax()), T)
    return i, j, float(scores[i, j])


@EX82.bug
def band_from_meshgrid_xy(start_logits, end_logits, context_mask, max_answer_length):
    """I made the start and end index grids with torch.meshgrid(..., indexing="xy"), numpy's default, which I use in numpy; with "xy" the first grid varies along the columns, so my "start" grid holds the column (end) index and the band I build allows ends before starts instead.
    Differs on: the worked example (start [0, 0, 0, 0, 0.5, 0, 3, 0], end [0, 0, 0, 0, 2, 0.5, 0, 0], passage 4 to 6, max_answer_length 30): (6, 4, 5.0) instead of (6, 6, 3.0)."""
    T = start_logits.shape[0]
    starts, ends = torch.meshgrid(torch.arange(T), torch.arange(T), indexing="xy")
    allowed = (ends >= starts) & (ends - starts + 1 <= max_answer_length)
    allowed = allowed & context_mask[:, None] & context_mask[None, :]
    scores = torch.where(allowed, start_logits[:, None] + end_logits[None, :],
                         torch.tensor(float("-inf"), dtype=start_logits.dtype))
    i, j = divmod(int(scores.argmax()), T)
    return i, j, float(scores[i, j])


@EX82.correct
def stable_descending_sort_of_the_pairs(start_logits, end_logits, context_mask, max_answer_length):
    """The forbidden pairs set to -inf with torch.where, the flattened matrix sorted with a stable descending sort (ties keep row order), the first entry taken."""
    T = start_logits.shape[0]
    with torch.no_grad():
        pair = start_logits.unsqueeze(-1) + end_logits.unsqueeze(0)  # in the logits' dtype
        idx = torch.arange(T)
        ok = (idx.view(1, T) >= idx.view(T, 1)) & (idx.view(1, T) <= idx.view(T, 1) + max_answer_length - 1)
        ok = ok & context_mask.view(T, 1) & context_mask.view(1, T)
        pair = torch.where(ok, pair, torch.full_like(pair, float("-inf")))
        values, order = torch.sort(pair.reshape(-1), descending=True, stable=True)
    i, j = divmod(int(order[0]), T)
    return i, j, float(values[0])


# --- batch 9: written without reading any checker ------------------------------------------
EX8_3.batch = 9


@EX8_3.bug
def scores_put_back_as_choices_by_questions(batch, scorer):
    """I put the B·C scores back with .view(C, B).T, picturing the flat rows as choice-major (all questions' first choice, then their second); they are question-major (row b·C + c), so questions and choices get mixed up.
    Differs on: B = 2, C = 3, T = 1, input_ids [[[1], [2], [3]], [[4], [5], [6]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = ids[:, 0].float(): logits [[1., 3., 5.], [2., 4., 6.]] instead of [[1., 2., 3.], [4., 5., 6.]] (with B = 1 or C = 1 it comes out right)."""
    B, C, T = batch["input_ids"].shape
    ids = batch["input_ids"].reshape(B * C, T)
    types = batch["token_type_ids"].reshape(B * C, T)
    mask = batch["attention_mask"].reshape(B * C, T)
    scores = scorer(ids, types, mask)
    logits = scores.view(C, B).T
    return logits, logits.softmax(dim=-1)


@EX8_3.bug
def scorer_called_under_no_grad(batch, scorer):
    """I called the scorer inside with torch.no_grad(), as I do whenever I run a model on inputs, so the logits come out without the scorer's graph and no gradient can reach it.
    Differs on: B = 1, C = 2, T = 1, input_ids [[[1], [2]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = w * ids[:, 0] with w = torch.tensor(1.0, requires_grad=True): logits [[1., 2.]] with requires_grad False (logits.sum().backward() raises) instead of logits that carry w's graph."""
    B, C, T = batch["input_ids"].shape
    flat = {name: batch[name].reshape(B * C, T) for name in ("input_ids", "token_type_ids", "attention_mask")}
    with torch.no_grad():
        scores = scorer(flat["input_ids"], flat["token_type_ids"], flat["attention_mask"])
    logits = scores.reshape(B, C)
    return logits, F.softmax(logits, dim=1)


@EX8_3.bug
def probabilities_as_scores_over_their_sum(batch, scorer):
    """I turned each question's scores into probabilities by dividing them by their sum over the C choices, so that they add up to 1, forgetting the exponential of the softmax.
    Differs on: B = 1, C = 2, T = 1, input_ids [[[1], [3]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = ids[:, 0].float(): probs [[0.25, 0.75]] instead of [[0.119, 0.881]] (and a negative score gives a negative "probability")."""
    B, C, T = batch["input_ids"].shape
    rows = [batch[name].reshape(B * C, T) for name in ("input_ids", "token_type_ids", "attention_mask")]
    logits = scorer(*rows).reshape(B, C)
    probs = logits / logits.sum(dim=-1, keepdim=True)
    return logits, probs


@EX8_3.bug
def logits_returned_shifted_by_their_max(batch, scorer):
    """For a stable softmax I subtracted each question's largest score from its logits, and returned those shifted logits along with the probabilities (they looked like the same thing to me).
    Differs on: B = 1, C = 2, T = 1, input_ids [[[1], [3]]], token_type_ids and attention_mask zeros, scorer(ids, types, mask) = ids[:, 0].float(): logits [[-2., 0.]] instead of [[1., 3.]] (the probabilities [[0.119, 0.881]] are right)."""
    B, C, T = batch["input_ids"].shape
    flat = {name: tensor.reshape(-1, T) for name, tensor in batch.items()}
    scores = scorer(flat["input_ids"], flat["token_type_ids"], flat["attention_mask"]).reshape(B, C)
    logits = scores - scores.max(dim=-1, keepdim=True).values
    probs = logits.exp() / logits.exp().sum(dim=-1, keepdim=True)
    return logits, probs


@EX8_3.correct
def questions_unbound_catted_and_split(batch, scorer):
    """The (B, C, T) tensors unbound into B blocks of (C, T) and concatenated with torch.cat (question-major rows); the scores split back into B chunks of C and stacked; torch.softmax over dim 1."""
    names = ("input_ids", "token_type_ids", "attention_mask")
    C = batch["input_ids"].shape[1]
    rows = [torch.cat(batch[name].unbind(0), dim=0) for name in names]  # (B·C, T), row b·C + c
    scores = scorer(*rows)
    logits = torch.stack(scores.split(C), dim=0)  # (B, C)
    return logits, torch.softmax(logits, dim=1)


# --- batch 9: written without reading any checker ------------------------------------------
EX84.batch = 9


def _clean_b9(text):
    text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
    return re.sub(r"\b(a|an|the)\b", " ", text).split()


@EX84.bug
def harmonic_mean_without_the_two(prediction, gold):
    """I wrote F1 as precision * recall / (precision + recall), half-remembering the harmonic mean and leaving out its factor 2.
    Differs on: "Captain Ahab" against "Ahab": 0.333 instead of 0.667; and "The Pequod" against "Pequod": 0.5 instead of 1.0."""
    p, g = _clean_b9(prediction), _clean_b9(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return precision * recall / (precision + recall)


@EX84.bug
def only_both_empty_handled_before_dividing(prediction, gold):
    """I handled the no-answer case as "both empty gives 1" only, then computed precision and recall before testing for no shared token; an empty side against a real answer divides by its zero length.
    Differs on: "" against "Ahab": ZeroDivisionError instead of 0.0; likewise "The" against "Pequod" (the article leaves no token)."""
    p, g = _clean_b9(prediction), _clean_b9(gold)
    if not p and not g:
        return 1.0
    common = Counter(p) & Counter(g)
    shared = sum(common.values())
    precision = shared / len(p)
    recall = shared / len(g)
    if shared == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def unicode_compatibility_normalised_first(prediction, gold):
    """To be safe with Unicode I ran unicodedata.normalize("NFKC", ...) on both strings first, which the official script does not do: ligatures, full-width letters and superscripts turn into plain ASCII, and full-width punctuation into ASCII punctuation that is then deleted.
    Differs on: "ﬁsh" (one ligature character) against "fish": 1.0 instead of 0.0; and "Ａｈａｂ" (full-width) against "Ahab": 1.0 instead of 0.0."""
    def tokens(text):
        text = unicodedata.normalize("NFKC", text).lower()
        text = "".join(ch for ch in text if ch not in string.punctuation)
        text = re.sub(r"\b(a|an|the)\b", " ", text)
        return text.split()
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.bug
def apostrophe_kept_inside_words(prediction, gold):
    """I deleted every punctuation character but the apostrophe, which I took to be part of words like "don't" and "Ahab's" rather than punctuation.
    Differs on: "Ahab's ship" against "Ahabs ship": 0.5 instead of 1.0; and "'Pequod'" against "Pequod": 0.0 instead of 1.0."""
    marks = set(string.punctuation) - {"'"}

    def tokens(text):
        text = "".join(ch for ch in text.lower() if ch not in marks)
        return re.sub(r"\b(a|an|the)\b", " ", text).split()
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return float(p == g)
    shared = sum((Counter(p) & Counter(g)).values())
    if not shared:
        return 0.0
    precision, recall = shared / len(p), shared / len(g)
    return 2 * precision * recall / (precision + recall)


@EX84.correct
def translate_dict_and_greedy_matching(prediction, gold):
    """Punctuation deleted with str.translate and a dict of ordinals, the article pattern compiled once; the overlap by greedy matching, each predicted token removing one equal token from a copy of the gold list."""
    delete = {ord(ch): None for ch in string.punctuation}
    article = re.compile(r"\b(?:a|an|the)\b")

    def tokens(text):
        return article.sub(" ", text.lower().translate(delete)).split()
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return 1.0 if not p and not g else 0.0
    remaining = list(g)
    shared = 0
    for token in p:
        if token in remaining:
            remaining.remove(token)
            shared += 1
    if shared == 0:
        return 0.0
    precision = shared / len(p)
    recall = shared / len(g)
    return 2 * precision * recall / (precision + recall)
