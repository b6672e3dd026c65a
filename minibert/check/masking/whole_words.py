"""The checker of exercise 4.2: the positions of each word, "##" pieces joined to the token that
starts their word."""

from __future__ import annotations

import numbers
import random
from collections import Counter

import torch

from ..common import ExerciseError, call, corpus_file, expect_equal, minilm_tokenizer, passed

# ---- 4.2 word groups -----------------------------------------------------------------------------

SPECIALS = ("[CLS]", "[SEP]", "[PAD]")

WORD_CASES = [  # tokens, the groups worked out by hand, what the case is about
    (["[CLS]", "un", "##aff", "##able", "[SEP]"], [[1, 2, 3]],
     'a "##" piece continues the word before it; [CLS] and [SEP] belong to no word'),
    (["[CLS]", "the", "play", "##ing", "cat", "[SEP]", "[PAD]", "[PAD]"], [[1], [2, 3], [4]],
     'only "##" joins tokens; special tokens and padding belong to no word'),
    (["[CLS]", "hello", ",", "world", "!", "[SEP]"], [[1], [2], [3], [4]],
     'punctuation is a word of its own for BERT (its basic tokenizer splits it off before WordPiece); '
     'only "##" joins a token to the one before it, whatever the text looks like'),
    (["[CLS]", "it", "'", "s", "[SEP]", "##x", "##y", "b", "[SEP]"], [[1], [2], [3], [5, 6], [7]],
     'a "##" piece right after a special token cannot join a word across it: it starts a group of its '
     "own (minibert's whole-word masking does the same), and the \"##\" piece after it joins that group"),
    (["##ing", "is", "fun", "##ny"], [[0], [1], [2, 3]],
     'a "##" piece at the very start has no word to join: it starts a group of its own'),
    (["[CLS]", "[SEP]", "[PAD]"], [], "special tokens only: no word at all"),
    (["[CLS]", "issue", "#", "42", "##nd", "[SEP]"], [[1], [2], [3, 4]],
     'only the two characters "##" mark a piece: "#" alone is punctuation, a word of its own'),
    (["[CLS]", "a", "[UNK]", "b", "[SEP]", "c", "[SEP]"], [[1], [2], [3], [5]],
     "[UNK] stands for a whole word the vocabulary cannot spell: an ordinary token, a word of its own; "
     "only [CLS], [SEP] and [PAD] are left out"),
    (["[CLS]", "see", "[", "1", "]", "[SEP]"], [[1], [2], [3], [4]],
     '"[" and "]" are punctuation tokens of MiniLM\'s vocabulary, each a word of its own: only the whole tokens '
     "[CLS], [SEP] and [PAD] are left out (compare whole tokens, not pieces of a string)"),
    (["[CLS]", "the", "[MASK]", "sat", "[SEP]", "[PAD]"], [[1], [2], [3]],
     "[MASK] is an ordinary token here, like [UNK]: a word of its own; only [CLS], [SEP] and [PAD] are left out "
     "(test those three names, not every bracketed token)"),
    (["[CLS]", "it", "was", "25", "##°", "outside", "[SEP]"], [[1], [2], [3, 4], [5]],
     'any token that starts with "##" continues the word before it, whatever follows the "##" (here "°" of '
     '"25°": not a letter or digit); test token.startswith("##")'),
    (["[PAD]", "[PAD]", "[CLS]", "the", "man", "[SEP]"], [[3], [4]],
     "padding may come first (a left-padded batch): [PAD] belongs to no word, and the words after it count; "
     "skip a [PAD], never stop the walk at it"),
]


def _real_token_lists(n: int = 40):
    """n real sentence pairs from the course corpus (valid.txt), tokenised by all-MiniLM-L6-v2's
    WordPiece, laid out as [CLS] A [SEP] B [SEP] with 0 to 3 [PAD]."""
    from ...corpus.common import iter_documents

    tok = minilm_tokenizer()
    documents = [d for d in iter_documents(corpus_file()) if len(d) >= 2]
    rng = random.Random(4)
    cases = []
    for _ in range(n):
        document = rng.choice(documents)
        i = rng.randrange(len(document) - 1)
        tokens = ["[CLS]", *tok.tokenize(document[i]), "[SEP]", *tok.tokenize(document[i + 1]), "[SEP]"]
        cases.append(tokens + ["[PAD]"] * rng.randint(0, 3))
    return tok, cases


def _group_problem(case: str, tokens: list[str], groups, starts: list[bool]) -> str | None:
    """The first way `groups` disagrees with the word starts `starts` (minibert's), or None."""
    if not isinstance(groups, (list, tuple)) or not all(isinstance(g, (list, tuple)) for g in groups):
        return f"{case}: expected a list of lists of positions, received {groups!r}"
    flat = [p for g in groups for p in g]
    if not all(isinstance(p, numbers.Integral) and not isinstance(p, bool) and 0 <= p < len(tokens) for p in flat):
        return f"{case}: groups must hold positions 0..{len(tokens) - 1} (ints), received {groups!r}"
    words = [t for t in range(len(tokens)) if tokens[t] not in SPECIALS]
    for p in flat:
        if tokens[p] in SPECIALS:
            return (f"{case}: position {p} is {tokens[p]}, which belongs to no word, but your groups "
                    f"include it\n  hint: leave out {', '.join(SPECIALS)}")
    if sorted(flat) != words:
        missing = sorted(set(words) - set(flat))
        twice = sorted(p for p, c in Counter(flat).items() if c > 1)
        what = f"position {missing[0]} ({tokens[missing[0]]!r}) is in no group" if missing else \
            f"position {twice[0]} ({tokens[twice[0]]!r}) is in more than one group"
        return f"{case}: every non-special position must be in exactly one group; {what}"
    if flat != words:
        return f"{case}: list the groups and the positions inside them in order of position, received {groups!r}"
    for g in groups:
        if not g:
            return f"{case}: an empty group in {groups!r}"
        if list(g) != list(range(g[0], g[0] + len(g))):
            return f"{case}: group {list(g)} is not a run of consecutive positions"
        for p in g[1:]:
            if starts[p]:
                return (f"{case}: position {p} ({tokens[p]!r}) starts a word (no \"##\") but your groups put it in "
                        f"the word of position {g[0]} ({tokens[g[0]]!r})\n  hint: only a \"##\" piece joins "
                        "the word before it")
        p = g[0]
        if not starts[p] and p > 0 and tokens[p - 1] not in SPECIALS:
            return (f"{case}: position {p} ({tokens[p]!r}) is a \"##\" piece of the word before it "
                    f"(position {p - 1}, {tokens[p - 1]!r}) but your groups start a new word with it")
    return None


def word_groups(fn) -> None:
    """`fn(tokens: list[str]) -> list[list[int]]`: the positions of each word, "##" pieces with the token
    that starts their word; [CLS], [SEP] and [PAD] in no group."""
    for tokens, expected, why in WORD_CASES:
        given = list(tokens)
        got = call(fn, f"tokens = {tokens}", given)
        if given != tokens:
            raise ExerciseError(f"tokens = {tokens}: your function changed the list it was given (now {given})"
                                "\n  hint: leave tokens as they are; build new lists of positions")
        if isinstance(got, (list, tuple)) and all(isinstance(g, (list, tuple)) for g in got):
            got = [[int(p) if isinstance(p, numbers.Integral) else p for p in g] for g in got]  # tuples, numpy ints
        expect_equal(f"tokens = {tokens}", got, expected, hint=why)

    from minibert.masking import word_starts

    tok, cases = _real_token_lists()
    for tokens in cases:
        ids = torch.tensor([tok.convert_tokens_to_ids(tokens)])
        starts = word_starts(ids, tok.ids_to_tokens)[0].tolist()
        shown = " ".join(tokens)
        case = f"tokens = {shown if len(shown) < 300 else shown[:300] + ' ...'}"
        problem = _group_problem(case, tokens, call(fn, case, list(tokens)), starts)
        if problem:
            raise ExerciseError(problem)
    passed("word_groups", f"{len(WORD_CASES)} hand-computed cases and {len(cases)} real sentence pairs "
                          "(MiniLM's WordPiece) agree with minibert.masking.word_starts")
