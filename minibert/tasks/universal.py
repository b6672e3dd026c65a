"""Brown Corpus tags -> the 12 universal part-of-speech tags of Petrov, Das & McDonald (2012), and
proper-noun runs -> BIO name spans.

The table is the mapping `en-brown.map` of github.com/slavpetrov/universal-pos-tags (the mapping
the paper published; NLTK's `tagset="universal"` reads the same file), © Slav Petrov, Dipanjan Das
and Ryan McDonald, CC BY-SA 4.0. Here it is regrouped by universal tag and case-folded to the
corpus's lower case. The file lists all 472 tags of the corpus; they follow three conventions,
which `universal_tag` applies, so that the table needs only the 180 tags without them:

    fw-...            a foreign word, whatever follows       fw-nn, fw-in+at-tl   -> X
    ...-hl -tl -nc    in a headline, a title, a cited word   nn-tl, at-tl-hl      -> as nn, at
    a+b               a contraction, listed whole: the map   ppss+bem "I'm"       -> PRT
                      has no rule for it (most are PRT)      vb+ppo "gimme"       -> VERB

A `*` (`bez*` "isn't", `dod*` "didn't") or `$` (`nn$` "dog's") belongs to the tag: listed whole.
The map's choices one may not expect: a pronoun with a verb clitic is PRT; `pp$` ("my") is DET;
`cs` (subordinating conjunctions) is ADP; `ap` ("many", "next") is ADJ; `abn` ("all", "half") PRT.
"""

from __future__ import annotations

import re

UNIVERSAL_TAGS = ("NOUN", "VERB", "ADJ", "ADV", "PRON", "DET", "ADP", "NUM", "CONJ", "PRT", ".", "X")

# universal tag: the Brown tags (without the conventions above) that map to it, from en-brown.map.
TABLE = {
    "NOUN": "nn nns nn$ nns$ np nps np$ nps$ nr nrs nr$ pn pn$ cd$ nn+in nn+nn",
    "VERB": "vb vbd vbg vbn vbz vb+at vb+in vb+jj vb+ppo vb+rp vb+to vb+vb vbg+to vbn+to "
            "be bed bed* bedz bedz* beg bem bem* ben ber ber* bez bez* "
            "do do* dod dod* doz doz* hv hv* hv+to hvd hvd* hvg hvn hvz hvz* md md* md+hv md+ppss md+to",
    "ADJ": "jj jjr jjs jjt jj+jj jjr+cs od ap ap+ap",
    "ADV": "rb rbr rbt rn rb+cs rbr+cs ql qlp wql wrb *",
    "PRON": "ppl ppls ppo pps ppss pp$$ wpo wps",
    "DET": "at dt dti dts dtx dt$ abx pp$ wdt wp$",
    "ADP": "in in+in in+ppo cs",
    "NUM": "cd",
    "CONJ": "cc",
    "PRT": "rp rp+in to to+vb uh abl abn ap$ jj$ rb$ ex "
           "dt+bez dt+md dts+bez ex+bez ex+hvd ex+hvz ex+md nn+bez nn+hvd nn+hvz nn+md nns+md "
           "np+bez np+hvz np+md nr+md pn+bez pn+hvd pn+hvz pn+md pps+bez pps+hvd pps+hvz pps+md "
           "ppss+bem ppss+ber ppss+bez ppss+bez* ppss+hv ppss+hvd ppss+md ppss+vb rb+bez "
           "wdt+ber wdt+bez wdt+dod wdt+hvz wps+bez wps+hvd wps+hvz wps+md "
           "wrb+ber wrb+bez wrb+do wrb+dod wrb+dod* wrb+doz wrb+in wrb+md",
    ".": ". , : ( ) -- ' '' ``",
    "X": "nil do+ppss wdt+ber+pp wdt+do+pps",
}
BROWN_TO_UNIVERSAL = {tag: universal for universal, tags in TABLE.items() for tag in tags.split()}
# The corpus's own tag, then what follows it ("-tl", "-hl", "-tl-hl"; twice a truncated "-n", "-t").
_BASE = re.compile(r"^(--|[^-]+)(-.*)?$")

NAME_TAGS = {"np", "nps", "np$", "nps$"}  # proper nouns, singular and plural, and their possessives
NAME_LABELS = ("O", "B-NAME", "I-NAME")


def base_tag(tag: str) -> str:
    """The tag without its headline/title/citation marks: `np-tl-hl` -> `np`, `---hl` -> `--`."""
    match = _BASE.match(tag.lower())
    if match is None:
        raise ValueError(f"{tag!r} is not a Brown Corpus tag")
    return match.group(1)


def universal_tag(tag: str) -> str:
    """A Brown tag -> one of UNIVERSAL_TAGS: `nn-tl` -> NOUN, `vbz` -> VERB, `fw-nn` -> X."""
    if tag.lower().startswith("fw-"):
        return "X"
    base = base_tag(tag)
    if base not in BROWN_TO_UNIVERSAL:
        raise ValueError(f"Brown tag {tag!r} (as {base!r}) is not in the universal mapping (en-brown.map)")
    return BROWN_TO_UNIVERSAL[base]


def is_name(tag: str) -> bool:
    """A proper-noun tag: `np`, `nps`, `np$`, `nps$` with any -tl/-hl marks, also a foreign proper noun
    (`fw-np`) and one with a clitic (`np+bez` "John's" = John is: the token is still a name)."""
    tag = tag.lower().removeprefix("fw-")
    return base_tag(tag).split("+")[0] in NAME_TAGS


def bio_tags(tags: list[str]) -> list[str]:
    """Runs of proper-noun tags -> one NAME span each, in BIO: B- starts a run, I- continues it.

        Dan/np Morgan/np told/vbd Atlanta/np  ->  B-NAME I-NAME O B-NAME
    """
    out = []
    for tag in tags:
        if not is_name(tag):
            out.append("O")
        else:
            out.append("I-NAME" if out and out[-1] != "O" else "B-NAME")
    return out
