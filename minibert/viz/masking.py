"""What masking did to a sequence (BERT §3.1: 15% selected, then 80/10/10), drawn token by token."""

from __future__ import annotations

from collections.abc import Sequence

from .fonts import drawable

# What happened to each position of a masked sequence (BERT §3.1: 15% selected, then 80/10/10).
MASKING_COLOURS = {
    "mask": "#f4a259",       # selected, replaced by [MASK]
    "random": "#e15759",     # selected, replaced by a random token
    "kept": "#59a14f",       # selected, left as it was (the model must still predict it)
    "untouched": "#ffffff",  # not selected: no label, no loss
    "special": "#d0d0d0",    # [CLS], [SEP], [PAD]: never selected
}


def masking_kinds(input_ids: Sequence[int], masked_ids: Sequence[int], labels: Sequence[int], *,
                  mask_token_id: int, special_tokens_mask: Sequence[int] | None = None) -> list[str]:
    """Name what masking did at each position: "mask", "random", "kept", "untouched" or "special".
    `labels` holds the original id where a position was selected and -100 elsewhere."""
    kinds = []
    for i, (orig, seen, label) in enumerate(zip(input_ids, masked_ids, labels, strict=True)):
        if special_tokens_mask is not None and special_tokens_mask[i]:
            kinds.append("special")
        elif label == -100:
            kinds.append("untouched")
        elif seen == mask_token_id:
            kinds.append("mask")
        elif seen == orig:
            kinds.append("kept")
        else:
            kinds.append("random")
    return kinds


def masking_view(seen: Sequence[str], kinds: Sequence[str], *, originals: Sequence[str] | None = None,
                 width: int = 90, ax=None, title: str | None = None):
    """The sequence as the model sees it, one coloured box per token (colours: MASKING_COLOURS); under a
    replaced token, in small type, the original it must predict. Wraps at `width` characters."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if len(seen) != len(kinds) or (originals is not None and len(originals) != len(seen)):
        raise ValueError(f"seen ({len(seen)}), kinds ({len(kinds)}) and originals "
                         f"({len(originals) if originals is not None else '-'}) must have one entry per token")
    unknown = sorted(set(kinds) - set(MASKING_COLOURS))
    if unknown:
        raise ValueError(f"unknown kinds {unknown}; use {list(MASKING_COLOURS)} (see masking_kinds)")
    seen = drawable(seen)
    originals = None if originals is None else drawable(originals)
    lines, line, used = [], [], 0  # greedy wrapping by characters: the font is monospaced
    for i, token in enumerate(seen):
        cost = max(len(token), len(originals[i]) if originals is not None else 0) + 2
        if line and used + cost > width:
            lines.append(line)
            line, used = [], 0
        line.append((i, used))
        used += cost
    lines.append(line)

    # One x unit = one character of the monospace font (0.6 em), so that boxes never overlap.
    if ax is None:
        size, text_w = 10.0, width * 10.0 * 0.6 / 72  # points; inches of text per line
        fig = plt.figure(figsize=(text_w + 0.2, 0.8 + 0.72 * len(lines)))
        ax = fig.add_axes((0.1 / (text_w + 0.2), 0.02, text_w / (text_w + 0.2),
                           0.72 * len(lines) / (0.8 + 0.72 * len(lines))))
    else:  # the font that fits `width` characters in the axes given (at most 10 points)
        size = min(10.0, ax.figure.get_figwidth() * ax.get_position().width / width / 0.6 * 72)
    ax.set_xlim(0, width)
    ax.set_ylim(len(lines) - 0.3, -0.35)
    ax.axis("off")
    for r, line in enumerate(lines):
        for i, x in line:
            ax.text(x, r, seen[i], family="monospace", fontsize=size, va="center", ha="left",
                    bbox=dict(boxstyle="round,pad=0.25", fc=MASKING_COLOURS[kinds[i]], ec="0.6", lw=0.5))
            if originals is not None and kinds[i] in ("mask", "random"):
                ax.text(x, r + 0.4, originals[i], family="monospace", fontsize=0.8 * size, va="center", ha="left",
                        color="0.3")
    present = [k for k in MASKING_COLOURS if k in kinds]
    ax.legend(handles=[Patch(fc=MASKING_COLOURS[k], ec="0.6", label=k) for k in present],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(present), fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10, pad=22)
    return ax


def fate_counts(input_ids, masked_ids, labels, *, mask_token_id: int, candidates=None) -> dict:
    """Count what the 15% / 80-10-10 rule did over a batch: {"candidates", "selected", "mask", "random",
    "kept"}. All tensors (B, T); `candidates` (B, T) bool, True where a token could be selected (every
    position if None). A random draw that equals the original counts as "kept", as `masking_kinds` does."""
    import torch

    from ..masking import selected_kinds

    labels = torch.as_tensor(labels)  # (B, T): the original id where selected, so "kept" is seen == labels
    kinds = selected_kinds(torch.as_tensor(masked_ids), labels, mask_token_id)
    cand = torch.ones_like(labels, dtype=torch.bool) if candidates is None else torch.as_tensor(candidates).bool()
    return {"candidates": int(cand.sum()), "selected": int((labels != -100).sum()),
            **{kind: int(where.sum()) for kind, where in kinds.items()}}


def masking_rule(ax=None, *, token: str = "cat", random_token: str = "apple"):
    """The rule of §3.1 as a tree: a token is selected 15% of the time; a selected one becomes [MASK]
    80%, a random token 10%, or stays itself 10%; its label is the original either way."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, 3.4), layout="constrained")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 6.2)
    ax.axis("off")

    def box(x, y, text, kind, size=10):
        ax.text(x, y, text, ha="center", va="center", fontsize=size, family="monospace",
                bbox=dict(boxstyle="round,pad=0.35", fc=MASKING_COLOURS[kind], ec="0.5", lw=0.8))

    def arrow(x0, y0, x1, y1, label):
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0), arrowprops=dict(arrowstyle="->", color="0.35", lw=1))
        ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.22, label, ha="center", va="bottom", fontsize=9, color="0.2")

    box(1.0, 3.1, token, "untouched", 11)
    arrow(1.6, 3.3, 3.3, 4.6, "85%")
    arrow(1.6, 2.9, 3.3, 1.6, "15% selected")
    box(4.1, 4.8, token, "untouched")
    ax.text(4.1, 4.15, "label -100 (no loss)", ha="center", fontsize=9, color="0.3")
    ax.text(4.1, 1.45, "label = " + token, ha="center", va="top", fontsize=9, color="0.3")
    for y, share, seen, kind, why in ((3.0, "80%", "[MASK]", "mask", "hidden"),
                                      (1.7, "10%", random_token, "random", "a random token"),
                                      (0.4, "10%", token, "kept", "left as it was")):
        arrow(4.9, 1.7, 6.9, y, share)
        box(7.7, y, seen, kind)
        ax.text(8.6, y, why, ha="left", va="center", fontsize=9, color="0.3")
    ax.text(7.7, 5.6, "what the model sees", ha="center", fontsize=10, weight="bold")
    ax.text(1.0, 5.6, "input token", ha="center", fontsize=10, weight="bold")
    return ax


def masked_by_hand(tokens: Sequence[str], seen: Sequence[str], kinds: Sequence[str], ax=None,
                   title: str | None = None):
    """Three rows for one short sequence: the original tokens, what the model sees, and the label it is
    trained on ("-100" where nothing is predicted), each column coloured by its kind (MASKING_COLOURS)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if not len(tokens) == len(seen) == len(kinds):
        raise ValueError(f"tokens ({len(tokens)}), seen ({len(seen)}) and kinds ({len(kinds)}) must have one "
                         "entry per position")
    unknown = sorted(set(kinds) - set(MASKING_COLOURS))
    if unknown:
        raise ValueError(f"unknown kinds {unknown}; use {list(MASKING_COLOURS)}")
    labels = [t if k in ("mask", "random", "kept") else "-100" for t, k in zip(tokens, kinds)]
    # Each column as wide as its longest text (x in inches), so a sentence fits a notebook's width.
    widths = [max(map(len, column)) * 0.085 + 0.3 for column in zip(tokens, seen, labels)]
    centres = [sum(widths[:i]) + w / 2 for i, w in enumerate(widths)]
    if ax is None:
        _, ax = plt.subplots(figsize=(1.2 + sum(widths), 2.3), layout="constrained")
    ax.set_xlim(-1.1, sum(widths))
    ax.set_ylim(2.6, -0.9)
    ax.axis("off")
    for r, (name, row) in enumerate((("original", tokens), ("input", seen), ("label", labels))):
        ax.text(-0.15, r, name, ha="right", va="center", fontsize=10, weight="bold")
        for i, text in enumerate(row):
            fc = "#ffffff" if r == 0 else MASKING_COLOURS[kinds[i]]
            colour = "0.55" if text == "-100" else "black"
            ax.text(centres[i], r, text, ha="center", va="center", fontsize=10, family="monospace", color=colour,
                    bbox=dict(boxstyle="round,pad=0.3", fc=fc, ec="0.6", lw=0.6))
    present = [k for k in MASKING_COLOURS if k in kinds]
    ax.legend(handles=[Patch(fc=MASKING_COLOURS[k], ec="0.6", label=k) for k in present], loc="lower center",
              bbox_to_anchor=(0.5, 1.0), ncol=len(present), fontsize=9, frameon=False)
    if title:
        ax.set_title(title, fontsize=10, pad=24)
    return ax


NSP_COLOURS = {"A": "#a0cbe8", "B": "#ffbe7d", "unused": "#e8e8e8", "other": "#d4a6c8"}


def nsp_cut(lengths: Sequence[int], a_end: int, *, is_next: bool, other_lengths: Sequence[int] = (),
            other_start: int = 0, b_sentences: int = 0, ax=None, title: str | None = None):
    """One chunk of whole sentences (box width = length in tokens) cut after sentence `a_end` into A and
    B. IsNext: B is the rest of the chunk. NotNext: B is `b_sentences` sentences of another document
    from `other_start`, and the chunk's unused sentences are put back for the next chunk."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    if not 1 <= a_end < len(lengths):
        raise ValueError(f"a_end={a_end} must leave sentences on both sides of the cut (1..{len(lengths) - 1})")
    if not is_next and not 0 <= other_start < other_start + b_sentences <= len(other_lengths):
        raise ValueError("a NotNext B needs other_lengths and 1 or more b_sentences from other_start")
    rows = 1 if is_next else 2
    total = max(sum(lengths), sum(other_lengths)) if other_lengths else sum(lengths)
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 1.2 + 0.9 * rows), layout="constrained")
    ax.set_xlim(-0.22 * total, total * 1.02)
    ax.set_ylim(rows - 0.25, -0.8)
    ax.axis("off")

    def draw(y, sizes, roles, names):
        x = 0
        for size, role, name in zip(sizes, roles, names):
            ax.add_patch(Rectangle((x + 0.3, y - 0.28), size - 0.6, 0.56, fc=NSP_COLOURS[role], ec="0.45", lw=0.8,
                                   hatch="//" if role == "unused" else None))
            ax.text(x + size / 2, y, name, ha="center", va="center", fontsize=9)
            x += size

    unused = "unused" if not is_next else "B"
    roles = ["A"] * a_end + [unused] * (len(lengths) - a_end)
    draw(0, lengths, roles, [f"s{i}" for i in range(len(lengths))])
    ax.text(-0.02 * total, 0, "chunk", ha="right", va="center", fontsize=10, weight="bold")
    cut = sum(lengths[:a_end])
    ax.plot([cut, cut], [-0.45, 0.45], color="black", lw=2)
    coin = "coin: IsNext, B = the rest of the chunk" if is_next else "coin: NotNext, B from another document"
    ax.text(cut, -0.55, f"cut after s{a_end - 1}; {coin}", ha="center", va="bottom", fontsize=9)
    if not is_next:
        sizes = list(other_lengths)
        roles = ["other"] * len(sizes)
        roles[other_start:other_start + b_sentences] = ["B"] * b_sentences
        draw(1, sizes, roles, [f"t{i}" for i in range(len(sizes))])
        ax.text(-0.02 * total, 1, "other doc.", ha="right", va="center", fontsize=10, weight="bold")
        back = (cut + sum(lengths)) / 2
        ax.text(back, 0.5, "not used: put back", ha="center", va="center", fontsize=8, color="0.3")
    present = ["A", "B"] + ([] if is_next else ["unused", "other"])
    ax.legend(handles=[Patch(fc=NSP_COLOURS[k], ec="0.45", hatch="//" if k == "unused" else None, label=k)
                       for k in present], loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    return ax
