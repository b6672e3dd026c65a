"""Labelled data for fine-tuning (§4, Figure 4): the course's tasks, made offline from real text, and
readers for the paper's benchmarks.

    python -m minibert.tasks prepare       # -> data/tasks/<task>/{train,dev,test}.jsonl; data/cards/tasks/
    load_task("sentiment", "train")        # -> [{"id", "text", "label"}, ...]
    TASKS["pos"].labels                    # ("NOUN", "VERB", ..., ".", "X")

The course tasks, one per panel of Figure 4 (cards in data/cards/tasks/):

    sentiment             sentence  Rotten Tomatoes snippets, fresh or rotten (real labels)  sentiment.py
    pos                   tagging   Brown Corpus gold tags, 12 universal tags (real labels)  brown_tags.py
    names                 tagging   proper-noun runs as BIO spans (stand-in for NER)         brown_tags.py
    next-sentence         pair      BERT's NSP task on the course corpus (stand-in)          pairs.py
    reading-qa            span      answer a reworded sentence of the passage (stand-in: SQuAD)  reading.py
    cloze-qa              span      find the blanked word in the passage (harder variant)    cloze.py
    next-sentence-choice  choice    which of four sentences comes next (stand-in: SWAG)      pairs.py

`universal.py` holds the Brown-to-universal tag table, `documents.py` reads the corpus's documents,
`build.py` makes and checks every split and writes the files, `cards.py` the cards; `benchmarks.py`
reads GLUE (`glue.py`), SQuAD, SWAG and CoNLL-2003 from their official files or through `datasets`.
"""

from .build import prepare
from .catalog import DATA_DIR, TASKS, get_task, load_task
from .common import KINDS, METRICS, SPLITS, Task, TaskError
from .universal import UNIVERSAL_TAGS, bio_tags, universal_tag

__all__ = ["TASKS", "Task", "TaskError", "load_task", "get_task", "DATA_DIR", "KINDS", "METRICS", "SPLITS",
           "UNIVERSAL_TAGS", "universal_tag", "bio_tags", "prepare"]
