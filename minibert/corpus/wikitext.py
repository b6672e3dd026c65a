"""MediaWiki markup -> plain paragraphs: a small filter, to be read top to bottom.

Wikipedia's source text mixes prose with markup that a reader never sees as words: citations
(`<ref>...</ref>`), templates (`{{Infobox ...}}`, nested), tables (`{| ... |}`), images and
categories (`[[File:...]]`, `[[Category:...]]`), comments. `to_paragraphs` removes them, keeps the
words of links (`[[Paris|the capital]]` -> "the capital") and of the few templates that print words
inside a sentence (`{{convert|5|km}}` -> "5 km"), and returns the prose paragraphs: no headings, no
lists or table rows, nothing after "See also" / "References".

It is meant for the course corpus, not as a MediaWiki renderer: when in doubt, it drops.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

# Elements whose content is not prose: citations, formulas, image galleries, code, music.
DROPPED_ELEMENTS = ("ref", "math", "gallery", "timeline", "score", "syntaxhighlight", "source",
                    "imagemap", "references", "chem", "ce", "hiero", "graph", "mapframe")
# Links into these namespaces show no words in the text (images, categories).
DROPPED_NAMESPACES = {"file", "image", "media", "category"}
# Interwiki prefixes that a link without a label would otherwise show ("wikt:whale").
INTERWIKI = {"w", "wikt", "wiktionary", "s", "wikisource", "q", "wikiquote", "wikipedia", "wp"}
# Sections made of citations and links, not prose: the article's prose ends at the first of them.
END_SECTIONS = {"see also", "references", "notes", "footnotes", "citations", "sources", "bibliography",
                "further reading", "external links", "notes and references", "references and notes"}
MIN_ARTICLE_WORDS = 50  # shorter articles are stubs or disambiguation lists (gensim's threshold)

COMMENT = re.compile(r"<!--.*?(-->|$)", re.DOTALL)
SELF_CLOSING = re.compile(r"<[a-zA-Z][^<>]*/>")  # <ref name="x"/>, <references/>, <br/>
DROPPED_ELEMENT = re.compile(rf"<({'|'.join(DROPPED_ELEMENTS)})\b[^<>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
EXTERNAL_LINK = re.compile(r"\[(?:https?:|ftp:)?//[^\s\]]*\s*([^\]]*)\]")  # [http://x.org label]
TAG = re.compile(r"</?[a-zA-Z][^<>]*>")  # <small>, </span>, <blockquote>: the tag goes, its text stays
BOLD_ITALIC = re.compile(r"'{2,5}")
MAGIC_WORD = re.compile(r"__[A-Z]+__")  # __NOTOC__
HEADING = re.compile(r"^(=+)\s*(.*?)\s*\1\s*$")
NOT_PROSE = ("*", "#", ";", ":", "|", "!", "{", "}")  # list items, indents, table rows
# Punctuation stranded where a template or formula was: "Anarchism (; from Greek", "(ANSI, )",
# "such as,,, and", "word ,".
EMPTY_BRACKETS = re.compile(r"\(\s*[,;:]?\s*\)")
AFTER_OPEN_BRACKET = re.compile(r"\(\s*[,;:]?\s*")
BEFORE_CLOSE_BRACKET = re.compile(r"\s*[,;:]?\s*\)")
REPEATED_COMMAS = re.compile(r",(\s*,)+")
SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")


def replace_nested(text: str, opening: str, closing: str, render: Callable[[str], str]) -> str:
    """Every balanced `opening ... closing` span becomes `render(inside)`, innermost first, so that
    `render` always sees its inside already rendered. An unmatched closing mark is dropped; an
    unmatched opening mark is dropped and the text after it kept."""
    pieces = re.split(f"({re.escape(opening)}|{re.escape(closing)})", text)
    stack: list[list[str]] = [[]]
    for piece in pieces:
        if piece == opening:
            stack.append([])
        elif piece == closing:
            if len(stack) > 1:
                inside = "".join(stack.pop())
                stack[-1].append(render(inside))
        else:
            stack[-1].append(piece)
    while len(stack) > 1:
        inside = "".join(stack.pop())
        stack[-1].append(inside)
    return "".join(stack[0])


def render_link(inside: str) -> str:
    """`[[target|label]]` -> label, `[[target]]` -> target; images and categories -> nothing."""
    target, bar, label = inside.partition("|")
    namespace, colon, rest = target.partition(":")
    if colon and namespace.strip().lower() in DROPPED_NAMESPACES:
        return ""
    if bar:
        return inside.rsplit("|", 1)[1] or target  # [[a|b|c]]: the last part is what shows
    if colon and namespace.strip().lower() in INTERWIKI:
        return rest
    return target.lstrip(":")  # [[:Category:X]] links to the category and shows its name


UNITS = {"C": "°C", "F": "°F", "km2": "km²", "m2": "m²", "sqmi": "sq mi", "sqkm": "km²"}
RANGE_WORDS = {"to", "and", "or", "by", "x", "×", "-", "–", "+/-", "to(-)"}


def render_template(inside: str) -> str:
    """`{{name|arg|...}}` -> the words it shows in a sentence, for the few templates that show any;
    every other template (infoboxes, citations, navigation boxes, pronunciations) -> nothing."""
    name, *args = [part.strip() for part in inside.split("|")]
    name = name.lower().replace("_", " ")
    if name.startswith("formatnum:"):  # a parser function: {{formatnum:3003}} -> 3003
        return name.partition(":")[2].strip()
    words = [a for a in args if "=" not in a]  # named parameters (lk=on, ...) only format
    if not words:
        return ""
    if name == "convert":  # {{convert|5|km|mi}} -> 5 km; {{convert|5|to|10|km}} -> 5 to 10 km
        if len(words) >= 4 and words[1] in RANGE_WORDS:
            sep = "–" if words[1] in ("-", "–") else f" {words[1]} "
            return f"{words[0]}{sep}{words[2]} {UNITS.get(words[3], words[3])}"
        return f"{words[0]} {UNITS.get(words[1], words[1])}" if len(words) >= 2 else words[0]
    if name == "lang" or name.startswith("lang-") or name == "transl":
        return words[-1]  # {{lang|fr|la ville}}: the text is the last argument
    if name in ("nihongo", "nowrap", "nobr", "val", "small", "smaller", "sc", "keypress"):
        return words[0]
    if name == "as of":
        return f"As of {words[0]}"
    return ""


def strip_markup(wikitext: str) -> str:
    """The article's text with every kind of markup resolved; lines (paragraphs) are kept."""
    text = COMMENT.sub("", wikitext)
    text = SELF_CLOSING.sub(" ", text)
    text = DROPPED_ELEMENT.sub("", text)
    # Links before templates, so a template never splits on the bar of a link inside it; templates
    # before tables, so the "|}}" that ends a template is not taken for the end of a table.
    text = replace_nested(text, "[[", "]]", render_link)
    text = replace_nested(text, "{{", "}}", render_template)
    text = replace_nested(text, "{|", "|}", lambda inside: "")
    text = EXTERNAL_LINK.sub(r"\1", text)
    text = TAG.sub("", text)
    text = BOLD_ITALIC.sub("", MAGIC_WORD.sub("", text))
    # Entities last: "&lt;ref&gt;" written as text must not become a tag and vanish.
    return html.unescape(text)


def tidy(paragraph: str) -> str:
    """Punctuation stranded by removed markup: "( ; from Greek" -> "(from Greek", "word ," -> "word,"."""
    paragraph = EMPTY_BRACKETS.sub("", paragraph)
    paragraph = AFTER_OPEN_BRACKET.sub("(", BEFORE_CLOSE_BRACKET.sub(")", paragraph))
    paragraph = REPEATED_COMMAS.sub(",", re.sub(r"\s+", " ", paragraph))
    return SPACE_BEFORE_PUNCT.sub(r"\1", paragraph).strip()


def to_paragraphs(wikitext: str) -> list[str]:
    """The prose paragraphs of an article, up to its first reference-like section."""
    paragraphs = []
    for line in strip_markup(wikitext).split("\n"):
        line = line.strip()
        if heading := HEADING.match(line):
            if heading.group(2).strip().lower() in END_SECTIONS:
                break
            continue
        if line and not line.startswith(NOT_PROSE):
            if paragraph := tidy(line):
                paragraphs.append(paragraph)
    return paragraphs
