"""Chapter 01's pictures and tables: words cut into pieces, merges drawn step by step, the greedy
longest-match search drawn candidate by candidate, and the tables the chapter prints."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..tokenizer import learn
from .fonts import drawable

# Box colours by kind of token.
TOKEN_COLOURS = {
    "word": "#dbe9f6",      # a piece that starts a word
    "piece": "#eef5fb",     # a "##" piece that continues one
    "unk": "#f4a3a3",       # [UNK]: the model learns nothing about what it replaced
    "new": "#f4c27a",       # the piece a merge just made
    "special": "#d0d0d0",   # [CLS], [SEP]
    "type0": "#dbe9f6",     # sentence A (token type 0)
    "type1": "#cfe8c6",     # sentence B (token type 1)
}


def token_kind(token: str) -> str:
    """"[UNK]" -> "unk"; "[CLS]" -> "special"; "##s" -> "piece"; anything else -> "word"."""
    if token == "[UNK]":
        return "unk"
    if token.startswith("[") and token.endswith("]"):
        return "special"
    return "piece" if token.startswith("##") else "word"


def token_rows(rows: Mapping[str, Sequence[str]], kinds: Mapping[str, Sequence[str]] | None = None, *,
               title: str | None = None, width: int = 80, ax=None):
    """One labelled row of boxes per entry of `rows` (label -> tokens), coloured by kind (TOKEN_COLOURS;
    `kinds[label]` gives one kind per token, else `token_kind`). Rows longer than `width` characters
    are cut with "…". Returns the axes."""
    import matplotlib.pyplot as plt

    labels = list(rows)
    label_w = max(len(s) for s in labels) + 2
    if ax is None:  # one x unit = one character of 9-point monospace (0.6 em = 0.075 in)
        _, ax = plt.subplots(figsize=((label_w + width) * 0.075 + 0.3, 0.45 + 0.42 * len(labels)),
                             layout="constrained")
    ax.set_xlim(0, label_w + width)
    ax.set_ylim(len(labels) - 0.4, -0.6)
    ax.axis("off")
    for r, label in enumerate(labels):
        tokens = drawable(rows[label])
        row_kinds = list(kinds[label]) if kinds and label in kinds else [token_kind(t) for t in rows[label]]
        if len(row_kinds) != len(tokens):
            raise ValueError(f"row {label!r}: {len(tokens)} tokens but {len(row_kinds)} kinds")
        ax.text(0, r, label, fontsize=9, va="center", ha="left")
        x = label_w
        for token, kind in zip(tokens, row_kinds):
            if x + len(token) > label_w + width:
                ax.text(x, r, "…", fontsize=9, va="center")
                break
            ax.text(x, r, token, family="monospace", fontsize=9, va="center", ha="left",
                    bbox=dict(boxstyle="round,pad=0.25", fc=TOKEN_COLOURS[kind], ec="0.55", lw=0.5))
            x += len(token) + 1.4
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    return ax


def merges_figure(counts: Mapping[str, int], history: Sequence[tuple[tuple[str, str] | None, Mapping]], *,
                  title: str | None = None):
    """WordPiece training drawn: one row per step, one column per word (with its count). `history` is
    [(None, splits at the start), (pair merged, splits after it), ...]; the pieces each merge made are
    orange. Returns the figure."""
    import matplotlib.pyplot as plt

    words = list(counts)
    col_w = [max(len(w) + 4, max(len(" ".join(h[1][w])) + 1.4 * len(h[1][w]) for h in history)) for w in words]
    label_w = max(len(_merge_label(pair)) for pair, _ in history) + 2
    total = label_w + sum(col_w)
    fig, ax = plt.subplots(figsize=(total * 0.075 + 0.3, 0.7 + 0.42 * len(history)), layout="constrained")
    ax.set_xlim(0, total)
    ax.set_ylim(len(history) - 0.4, -1.2)
    ax.axis("off")
    x = label_w
    for w, cw in zip(words, col_w):
        ax.text(x, -0.9, f"{w} ×{counts[w]}", fontsize=9, va="center", weight="bold")
        x += cw
    for r, (pair, splits) in enumerate(history):
        ax.text(0, r, _merge_label(pair), fontsize=9, va="center", family="monospace")
        new = None if pair is None else learn.merged_token(*pair)
        x = label_w
        for w, cw in zip(words, col_w):
            px = x
            for piece in splits[w]:
                kind = "new" if piece == new else token_kind(piece)
                ax.text(px, r, piece, family="monospace", fontsize=9, va="center",
                        bbox=dict(boxstyle="round,pad=0.2", fc=TOKEN_COLOURS[kind], ec="0.55", lw=0.5))
                px += len(piece) + 1.4
            x += cw
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    return fig


def _merge_label(pair) -> str:
    return "start: characters" if pair is None else f"{pair[0]} + {pair[1]} → {learn.merged_token(*pair)}"


def greedy_trace(word: str, vocab, prefix: str = "##") -> list[tuple[int, int, str, bool]]:
    """Every candidate greedy longest-match-first looks up, in order: (start, end, candidate, found).
    The search stops at the first position where nothing is found (the word is then [UNK])."""
    trace, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            candidate = word[start:end] if start == 0 else prefix + word[start:end]
            trace.append((start, end, candidate, candidate in vocab))
            if candidate in vocab:
                break
        else:
            return trace
        start = end
    return trace


def greedy_figure(word: str, vocab, *, title: str | None = None):
    """The greedy search on one word, one row per lookup: the characters of the word, pieces already cut
    in blue, the candidate outlined (green: in the vocabulary, taken; grey: not, try one shorter).
    Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    trace = greedy_trace(word, vocab)
    chars = drawable(list(word))
    label_w = max(len(c) for _, _, c, _ in trace) + 6
    fig, ax = plt.subplots(figsize=(max(6.5, (label_w + 1.6 * len(word)) * 0.11), 0.5 + 0.32 * len(trace)),
                           layout="constrained")
    ax.set_xlim(-label_w, 1.6 * len(word))
    ax.set_ylim(len(trace) - 0.4, -0.8)
    ax.axis("off")
    for r, (start, end, candidate, found) in enumerate(trace):
        ax.text(-label_w, r, f"{candidate!r} {'✓' if found else '✗'}", fontsize=9, va="center",
                family="monospace", color="#2e7d32" if found else "0.35")
        for i, ch in enumerate(chars):
            ax.text(1.6 * i + 0.8, r, ch, family="monospace", fontsize=10, ha="center", va="center")
        if start:
            ax.add_patch(Rectangle((0, r - 0.4), 1.6 * start, 0.8, fc=TOKEN_COLOURS["word"], ec="none", zorder=0))
        ax.add_patch(Rectangle((1.6 * start, r - 0.4), 1.6 * (end - start), 0.8, zorder=0,
                               fc="#cfe8c6" if found else "none", ec="#2e7d32" if found else "0.5", lw=1.2))
    ax.text(0, -0.75, "pieces already cut", fontsize=8, color="0.3", va="center",
            bbox=dict(fc=TOKEN_COLOURS["word"], ec="none"))
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    return fig


def pairs_table(counts: Mapping[str, int], splits: Mapping[str, Sequence[str]], digits: int = 4):
    """Every adjacent pair with freq(a), freq(b), freq(ab) and the score freq(ab) / (freq(a) × freq(b)),
    best first (ties: the more frequent pair first), as a pandas table."""
    import pandas as pd

    pieces, pairs = learn.count_pieces(counts, splits), learn.count_pairs(counts, splits)
    scores = learn.pair_scores(counts, splits)
    rows = [{"a": a, "b": b, "freq(a)": pieces[a], "freq(b)": pieces[b], "freq(ab)": n,
             "score": round(scores[a, b], digits)} for (a, b), n in pairs.items()]
    return pd.DataFrame(rows).sort_values(["score", "freq(ab)"], ascending=False, ignore_index=True)


def stages_table(texts: Sequence[str], stages: Mapping[str, Callable[[str], str]],
                 words: Callable[[str], list[str]]):
    """One column per text: the input, the text after each stage in turn (`repr`, so that invisible
    characters show), and the final words joined by " | ", as a pandas table."""
    import pandas as pd

    columns = []
    for text in texts:
        column, current = {"input": repr(text)}, text
        for name, step in stages.items():
            current = step(current)
            column[name] = repr(current)
        column["words"] = " | ".join(words(text))
        columns.append(column)
    return pd.DataFrame(columns).T


def tokens_table(texts: Sequence[str], tokenize: Callable[[str], list[str]]):
    """Each text, its tokens joined by spaces, and how many there are, as a pandas table."""
    import pandas as pd

    tokens = [tokenize(t) for t in texts]
    return pd.DataFrame({"typed": list(texts), "tokens": [" ".join(t) for t in tokens],
                         "pieces": [len(t) for t in tokens]})


def sweep_figure(sweep, chars_per_word: float):
    """Two panels against vocabulary size (log scale): % of valid words unknown (word vocabulary against
    WordPiece), and tokens per word (WordPiece against characters and words). `sweep` is a pandas table
    indexed by size with columns "words unknown", "WordPiece [UNK]", "WordPiece tokens/word" (fractions)."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
    left.plot(sweep.index, 100 * sweep["words unknown"], "o-", label="word vocabulary")
    left.plot(sweep.index, 100 * sweep["WordPiece [UNK]"], "s-", label="WordPiece")
    left.set(xscale="log", xlabel="vocabulary size (entries)", ylabel="% of valid words unknown",
             title="What is lost")
    right.plot(sweep.index, sweep["WordPiece tokens/word"], "s-", color="C1", label="WordPiece")
    right.axhline(chars_per_word, color="C2", ls="--", label="characters")
    right.axhline(1, color="C0", ls=":", label="words")
    right.set(xscale="log", xlabel="vocabulary size (entries)", ylabel="tokens per word",
              title="What it costs in length")
    for ax in (left, right):
        ax.legend()
    return fig
