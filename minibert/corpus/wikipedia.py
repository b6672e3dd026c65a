"""A sample of English Wikipedia (April 2016): the first articles of the `pages-articles1` dump,
shipped as a test file inside the `gensim` wheel. The file is read straight out of the wheel (a
zip): gensim is never installed or imported. Articles are parsed from the MediaWiki XML, their
markup stripped by `wikitext.to_paragraphs`, and pysbd finds the sentences in each paragraph."""

from __future__ import annotations

import bz2
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from pathlib import Path

from ..hub import Package
from .common import CorpusError, Document, Source, Tally, TIDY_NOTE, count_words, squeeze, tidy_sentences
from .sentences import SPLIT_NOTE, split_sentences
from .wikitext import MIN_ARTICLE_WORDS, to_paragraphs

MEMBER = "gensim/test/test_data/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]  # "{http://www.mediawiki.org/xml/export-0.10/}page" -> "page"


def pages(xml_file) -> Iterator[dict[str, str]]:
    """Each <page> of a MediaWiki XML export as {title, ns, id, revision, redirect, text}, streamed
    (iterparse, each page freed once read): a real dump does not fit in memory."""
    for _event, element in ET.iterparse(xml_file):
        if _local(element.tag) != "page":
            continue
        page = {"redirect": ""}
        for child in element.iter():
            tag = _local(child.tag)
            if tag in ("title", "ns", "text") or (tag == "id" and "id" not in page):
                page[tag] = child.text or ""  # the first <id> is the page's, later ones revisions'
            elif tag == "id" and "revision" not in page:
                page["revision"] = child.text or ""
            elif tag == "redirect":
                page["redirect"] = child.get("title", "?")
        element.clear()
        yield page


def read(archive: Path, tally: Tally) -> Iterator[Document]:
    try:
        with zipfile.ZipFile(archive) as wheel, wheel.open(MEMBER) as compressed:
            with bz2.open(compressed) as xml_file:
                yield from _articles(xml_file, tally)
    except (zipfile.BadZipFile, KeyError, OSError, ET.ParseError) as e:
        raise CorpusError(f"wikipedia: could not read {MEMBER} from {archive} ({e}); delete the "
                          "file and run the command again to download it afresh") from e


def _articles(xml_file, tally: Tally) -> Iterator[Document]:
    for page in pages(xml_file):
        title = page.get("title", "")
        if page.get("ns", "0") != "0":
            tally.drop("pages: not an article (other namespace)", title)
        elif page["redirect"] or page.get("text", "").lstrip().upper().startswith("#REDIRECT"):
            tally.drop("pages: redirects", title)
        else:
            paragraphs = [squeeze(p) for p in to_paragraphs(page.get("text", ""))]
            sentences = tidy_sentences([s for p in paragraphs for s in split_sentences(p)], title, tally)
            if sum(count_words(s) for s in sentences) < MIN_ARTICLE_WORDS:
                tally.drop(f"articles: under {MIN_ARTICLE_WORDS} words once cleaned", title)
                continue
            yield Document("wikipedia", page["id"], title, sentences,
                           link=f"https://en.wikipedia.org/w/index.php?oldid={page.get('revision', '')}")


SOURCE = Source(
    name="wikipedia",
    title="Wikipedia sample",
    package=Package("PyPI", "gensim==4.4.0",
                    "a53f4648dec40467ebdcbc7a1307eddb51fe6e28e9309f6ebde81ba0d04bea2d", member=MEMBER),
    member=f"`{MEMBER}` inside the wheel (any platform's wheel holds the same file)",
    licence=(
        "Text from English Wikipedia, by Wikipedia's contributors, under the Creative Commons "
        "Attribution-ShareAlike 3.0 licence (CC BY-SA 3.0; the licence of the text when this dump "
        "was made, April 2016). Attribution: each article below, with a link to the exact revision "
        "used, whose history page lists its authors. The prepared text is a modified version "
        "(markup removed, sentences split): anyone who shares it must share it under CC BY-SA too, "
        "with this attribution. The file ships in gensim's wheel (LGPL-2.1 code) as test data; "
        "gensim is not installed or used."),
    cleaning=(
        "Pages that are redirects or outside the article namespace are skipped.",
        "Markup is stripped by `minibert/corpus/wikitext.py`: comments; `<ref>` citations, `<math>`, "
        "galleries and similar elements with their content; templates `{{...}}` (nested) except the "
        "few that print words in a sentence (`convert`, `lang`, `nowrap`, ...); tables `{|...|}`; "
        "`[[File:]]`, `[[Image:]]` and `[[Category:]]` links; `[[a|b]]` -> b, `[[a]]` -> a; "
        "`[http://x label]` -> label; other HTML tags (their text is kept); bold and italic quotes; "
        "HTML entities decoded.",
        "Headings, list items, indented lines and table rows are dropped; the article ends at its "
        "first \"See also\", \"References\", \"Notes\", \"External links\" (or similar) section.",
        f"Articles with fewer than {MIN_ARTICLE_WORDS} words left are skipped (stubs, disambiguation pages).",
        "Each paragraph is split on its own. " + SPLIT_NOTE,
        TIDY_NOTE,
    ),
    read=read,
    splits_sentences=True,
)
