"""The checker of exercise 8.4: SQuAD's F1 of one predicted answer against one gold answer, after the
official scripts' normalisation (lower case, ASCII punctuation deleted, the articles a/an/the removed,
whitespace collapsed), over token multisets, 1 when both sides are empty ("no answer" matched), as
`minibert.finetune.metrics.squad_f1`."""

from __future__ import annotations

import difflib
import random
import re
import string
import unicodedata
from collections import Counter

from ...finetune.metrics import squad_f1 as reference_f1
from ..common import ExerciseError, as_float, passed, valid_lines


def _f1(prediction, gold, *, articles=True, punctuation=True, lower=True, unit="tokens", sets=None, empty=1.0,
        accents=True, spaces_only=False, each_token=False, compat=False):
    """F1 with the usual mistakes switched on by the keyword arguments."""
    if each_token:  # split first, then each token cleaned: a token of punctuation alone stays, as ""
        return _f1_of_tokens(*(_cleaned_one_by_one(s) for s in (prediction, gold)), empty=empty, sets=sets)

    def normalise(s):
        if compat:  # NFKC: "ﬁ" -> "fi", full-width "Ａ" -> "A", "！" -> "!"
            s = unicodedata.normalize("NFKC", s)
        s = s.casefold() if lower == "casefold" else s.lower() if lower else s
        if not accents:  # NFKD, combining marks dropped: "café" -> "cafe"
            s = "".join(ch for ch in unicodedata.normalize("NFKD", s) if not unicodedata.combining(ch))
        if punctuation == "regex":  # [^\w\s]: every Unicode mark goes, "_" (a word character) stays
            s = re.sub(r"[^\w\s]", "", s)
        elif punctuation == "space":
            s = "".join(" " if ch in string.punctuation else ch for ch in s)
        elif punctuation:
            s = "".join(ch for ch in s if ch not in string.punctuation)
        if articles == "substring":  # (s + " ").replace("a ", " "), ...: "anna " loses its last "a"
            s += " "
            for article in ("the ", "an ", "a "):
                s = s.replace(article, " ")
        elif articles == "between spaces":  # " the " -> " ": the second of "the the" lost its leading space
            s = f" {s} "
            for article in ("a", "an", "the"):
                s = s.replace(f" {article} ", " ")
        elif articles == "leading":
            s = re.sub(r"^\s*(a|an|the)\b", " ", s)
        elif articles:
            s = re.sub(r"\b(a|an|the)\b", " ", s)
        if spaces_only == "listed":  # the whitespace one knows, [ \t\n]: a no-break space stays inside a word
            return " ".join(w for w in re.split(r"[ \t\n]+", s) if w)
        return " ".join(w for w in s.split(" ") if w) if spaces_only else " ".join(s.split())
    split = (lambda t: t.split(" ") if t else []) if spaces_only else str.split  # split(" "): a tab stays in a word
    p, g = normalise(prediction), normalise(gold)
    p, g = (split(p), split(g)) if unit == "tokens" else (list(p.replace(" ", "")), list(g.replace(" ", "")))
    return _f1_of_tokens(p, g, empty=empty, sets=sets)


def _cleaned_one_by_one(text):
    words = ("".join(ch for ch in w.lower() if ch not in string.punctuation) for w in text.split())
    return [w for w in words if w not in ("a", "an", "the")]


def _f1_of_tokens(p, g, *, empty=1.0, sets=None):
    if not p or not g:
        return empty if not p and not g else 0.0
    if sets == "in order":  # difflib's 2·M / (|p| + |g|): M counts the tokens matched in order
        return difflib.SequenceMatcher(None, p, g).ratio()
    if sets:
        overlap = len(set(p) & set(g))
        if sets == "sizes":
            p, g = set(p), set(g)
    else:
        overlap = sum((Counter(p) & Counter(g)).values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(p), overlap / len(g)
    return 2 * precision * recall / (precision + recall)


MISTAKES = [
    ("the articles are kept: SQuAD's normalisation removes the words a, an and the", dict(articles=False)),
    ("only an article at the start was removed; SQuAD removes the words a, an and the wherever they stand",
     dict(articles="leading")),
    ("the articles were removed as pieces of text, not as words: \"anna \" lost its last \"a\" and became "
     "\"ann\"; remove a, an and the only where they stand as whole words (what marks the edge of a word?)",
     dict(articles="substring")),
    ("two articles in a row and one was kept: replacing \" the \" by \" \" (an article between spaces) uses up the "
     "space the next article starts with, so str.replace skips it; remove the whole words with a regular "
     "expression, \\b(a|an|the)\\b, which matches each of them", dict(articles="between spaces")),
    ("punctuation is kept: SQuAD's normalisation deletes every character of string.punctuation",
     dict(punctuation=False)),
    ("punctuation was deleted with a pattern such as [^\\w\\s], which deletes every Unicode mark and keeps '_'; "
     "SQuAD deletes exactly the characters of string.punctuation (ASCII: '_' goes, « » — stay)",
     dict(punctuation="regex")),
    ("punctuation was replaced by a space; SQuAD deletes it, so \"don't\" becomes one token, \"dont\"",
     dict(punctuation="space")),
    ("upper and lower case differ: normalise with .lower() first", dict(lower=False)),
    ("this is str.casefold(), which also turns \"ß\" into \"ss\"; SQuAD's scripts use str.lower(), which keeps "
     "\"ß\"", dict(lower="casefold")),
    ("accents were stripped (\"é\" became \"e\"); SQuAD's normalisation only lower-cases letters and keeps "
     "their accents", dict(accents=False)),
    ("the text was given a Unicode compatibility normalisation (unicodedata.normalize(\"NFKC\", ...)), which turns "
     "full-width letters and ligatures into plain ones; SQuAD's scripts do no Unicode normalisation: only "
     ".lower(), the punctuation, the articles and the whitespace", dict(compat=True)),
    ("this is F1 over characters; SQuAD's F1 is over the normalised answer's tokens (words, split on whitespace)",
     dict(unit="characters")),
    ("the tokens were counted as a set: a token repeated on both sides counts as many times as it occurs on "
     "both (Counter(p) & Counter(g))", dict(sets="overlap")),
    ("the tokens were counted as sets: repeated tokens count as many times as they occur (Counter(p) & Counter(g), "
     "precision over len(prediction tokens))", dict(sets="sizes")),
    ("the text was split on spaces only (split(\" \")); a tab or a newline separates words too: split() with no "
     "argument splits on any run of whitespace", dict(spaces_only=True)),
    ("the text was split on the whitespace characters you listed; a no-break space (\\xa0, common in Wikipedia's "
     "text) or a \\r separates words too: split() with no argument splits on every whitespace character",
     dict(spaces_only="listed")),
    ("the overlap counts the tokens matched in order (difflib's ratio, a longest common subsequence); SQuAD's "
     "overlap is of the two multisets, whatever their order: Counter(p) & Counter(g)", dict(sets="in order")),
    ("each token was cleaned after splitting, so a token of punctuation alone (\"-\") was left as an empty token \"\" "
     "that counts as a word; delete the punctuation from the whole text first, then split", dict(each_token=True)),
    ("both answers are empty after normalisation (\"no answer\" on both sides): that is a match, F1 = 1",
     dict(empty=0.0)),
]

# (prediction, gold, F1, lesson)
HAND = [
    ("Ishmael", "Ishmael", 1.0, "the same answer"),
    ("The Pequod", "Pequod", 1.0, "'the' is an article, removed"),
    ("Pequod.", "pequod", 1.0, "punctuation deleted, case folded"),
    ("Captain Ahab", "Ahab", 2 / 3, "P = 1/2, R = 1: F1 = 2PR / (P + R) = 2/3"),
    ("Anna", "Ann", 0.0, "the articles are whole words: 'anna' keeps its last 'a', so it is another name "
     "than 'ann'"),
    ("Ishmael", "Ishmaels", 0.0, "no token in common: 0, although 7 of 8 characters are"),
    ("whale whale", "whale whale ship", 0.8, "overlap 2 (multisets): P = 2/2, R = 2/3, F1 = 0.8"),
    ("don't", "dont", 1.0, "punctuation is deleted, not replaced by a space: don't -> dont, one token"),
    ("snake_case", "snakecase", 1.0, "'_' is in string.punctuation, so it is deleted (a regular expression's \\w "
     "keeps it)"),
    ("Straße", "strasse", 0.0, "str.lower() keeps 'ß' (str.casefold() would make it 'ss'): two other words"),
    ("Café", "cafe", 0.0, "lower case keeps the accent: 'café' is another token than 'cafe'"),
    ("Ａｈａｂ", "Ahab", 0.0, "no Unicode normalisation: full-width 'Ａｈａｂ' lowers to 'ａｈａｂ', another token "
     "than 'ahab'"),
    ("«Ahab»", "Ahab", 0.0, "only ASCII punctuation (string.punctuation) is deleted: « and » stay, so «ahab» is "
     "another token than ahab"),
    ("an apple", "apple", 1.0, "'an' is an article too, removed like 'a' and 'the'"),
    ("A-side", "aside", 1.0, "punctuation goes first: 'a-side' becomes 'aside', one word, before any article is "
     "removed"),
    ("ÉCOLE", "école", 1.0, "str.lower() lowers every letter, not only A to Z: 'ÉCOLE' becomes 'école'"),
    ("AC\\DC", "ACDC", 1.0, "the backslash is in string.punctuation, so it is deleted (in a regular expression's "
     "[...] it must be escaped: re.escape)"),
    ("the whale and a ship and an oar", "whale and ship and oar", 1.0, "every article goes, however many there "
     "are (re.sub's fourth argument is a count, not the flags)"),
    ("the the whale", "whale", 1.0, "two articles in a row (a stutter): both are words of their own, both go"),
    ("", "", 1.0, "no answer, and none expected: a match"),
    ("the", "", 1.0, "'the' normalises to nothing: a no-answer"),
    ("", "Ahab", 0.0, "no answer given, one expected"),
    ("Ahab", "", 0.0, "an answer given, none expected"),
    ("captain\nahab", "captain\tahab", 1.0, "a newline and a tab separate words as a space does: split() "
     "splits on any run of whitespace, split(\" \") on spaces only"),
    ("captain Ahab", "Ahab captain", 1.0, "the overlap is of the two multisets of tokens: their order does not "
     "count"),
    ("Ahab - captain", "Ahab captain", 1.0, "a lone '-' is punctuation and nothing else: deleted, it leaves no token"),
    ("captain\xa0ahab", "captain ahab", 1.0, "a no-break space (\\xa0, common in Wikipedia's text) is whitespace "
     "too: split() with no argument splits on it"),
]




def _call(fn, name, prediction, gold):
    try:
        got = fn(prediction, gold)
    except NotImplementedError:
        raise
    except ZeroDivisionError as e:
        raise ExerciseError(f"{name}: your function raised ZeroDivisionError: {e}\n  hint: an answer with no "
                            "tokens (\"no answer\") has no precision; score it apart: 1 if both are empty, "
                            "else 0") from e
    except Exception as e:
        raise ExerciseError(f"{name}: your function raised {type(e).__name__}: {e}") from e
    value, problem = as_float(got)
    if problem:
        raise ExerciseError(f"{name}: the F1 {problem}")
    if value > 1 + 1e-9 and abs(value / 100 - reference_f1(prediction, gold)) < 1e-9:
        raise ExerciseError(f"{name}: received {value}, a percentage; return a fraction in [0, 1]")
    return value


def _check(fn, name, prediction, gold, expected):
    got = _call(fn, name, prediction, gold)
    if abs(got - expected) < 1e-9:
        return
    hint = _hint(fn, prediction, gold, got)
    raise ExerciseError(f"{name}:\n  expected {expected:.6g}\n  received {got:.6g}" + (f"\n  hint: {hint}" if hint else ""))


def _hint(fn, prediction, gold, got) -> str:
    """The mistake that gives `got` here and your function's result on every hand case; several such
    mistakes are all named (one number cannot tell them apart), none when none does."""
    here = [(h, kw) for h, kw in MISTAKES if abs(got - _f1(prediction, gold, **kw)) < 1e-9]
    if len(here) > 1:
        try:
            results = [(p, g, float(fn(p, g))) for p, g, _, _ in HAND]
        except Exception:  # noqa: BLE001  (the hand cases only narrow the hint down)
            results = []
        everywhere = [(h, kw) for h, kw in here if all(abs(r - _f1(p, g, **kw)) < 1e-9 for p, g, r in results)]
        here = everywhere or here
    if len(here) > 1:
        return "this F1 is what each of these mistakes gives here: " + "; or ".join(h for h, _ in here)
    return here[0][0] if here else ""


def _random_pairs(n: int, seed: int = 84):
    """Predicted and gold answers cut from real sentences: overlapping word ranges, with their
    punctuation, capitals and articles, sometimes a word repeated, sometimes nothing."""
    rng = random.Random(seed)
    lines = [line.split() for line in valid_lines()[:400] if 4 <= len(line.split()) <= 30]
    pairs = []
    for _ in range(n):
        words = rng.choice(lines)
        a, b = sorted(rng.sample(range(len(words) + 1), 2))
        c = max(0, min(len(words) - 1, a + rng.randint(-3, 3)))
        gold = words[a:b]
        predicted = words[c:c + rng.randint(0, 6)]
        if predicted and rng.random() < 0.2:
            predicted = predicted + predicted[:1]  # a repeated word
        pairs.append((" ".join(predicted), " ".join(gold)))
    return pairs


def squad_f1(fn) -> None:
    """fn(prediction: str, gold: str) -> SQuAD's token F1 in [0, 1] after SQuAD's normalisation."""
    for prediction, gold, expected, lesson in HAND:
        assert abs(reference_f1(prediction, gold) - expected) < 1e-12  # the hand values are SQuAD's
        _check(fn, f"hand case prediction={prediction!r}, gold={gold!r} ({lesson})", prediction, gold, expected)
    pairs = _random_pairs(60)
    for prediction, gold in pairs:
        _check(fn, f"real text: prediction={prediction!r}, gold={gold!r}", prediction, gold,
               reference_f1(prediction, gold))
    passed("squad_f1", f"{len(HAND)} hand-computed pairs and {len(pairs)} pairs cut from real sentences "
                       "agree with minibert.finetune.metrics.squad_f1")
