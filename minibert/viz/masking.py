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

    if ax is None:  # one x unit = one character of 9-point monospace (0.6 em = 0.075 in)
        _, ax = plt.subplots(figsize=(width * 0.075 + 0.3, 0.5 + 0.62 * len(lines)))
    ax.set_xlim(0, width)
    ax.set_ylim(len(lines), -0.35)
    ax.axis("off")
    for r, line in enumerate(lines):
        for i, x in line:
            ax.text(x, r, seen[i], family="monospace", fontsize=9, va="center", ha="left",
                    bbox=dict(boxstyle="round,pad=0.25", fc=MASKING_COLOURS[kinds[i]], ec="0.6", lw=0.5))
            if originals is not None and kinds[i] in ("mask", "random"):
                ax.text(x, r + 0.38, originals[i], family="monospace", fontsize=6.5, va="center", ha="left",
                        color="0.3")
    present = [k for k in MASKING_COLOURS if k in kinds]
    ax.legend(handles=[Patch(fc=MASKING_COLOURS[k], ec="0.6", label=k) for k in present],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(present), fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=9, pad=22)
    return ax
