"""Chapter 10's pictures: where a token's training FLOPs go, what a run costs on each device, a padded
batch against its packed real tokens, micro-batches of equal tokens at 128 and 512, and a run's two
phases end to end.

    flops_figure(config, cases) a token's training FLOPs by part (pretrain.metrics.flops_parts) as
                                stacked bars, one per (length, predicted fraction)
    cost_figure(days)           days of training per device and run, on a log axis
    padding_figure(mask)        the (B, T) grid, real tokens coloured by row, and the N of them packed
    micro_batch_figure(cases)   micro-batches as rectangles: sequences × length, equal areas
    phases_figure(one, two)     held-out metrics of phase 1, then phase 2, against tokens seen
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# Where a token's FLOPs go (the parts of flops_parts), and their colours in every figure of the chapter.
PART_COLOURS = {
    "Q, K, V, output projections": "#4e79a7",
    "feed-forward": "#76b7b2",
    "attention (grows with T)": "#e15759",
    "MLM head (predicted positions)": "#f28e2b",
    "pooler ([CLS] once)": "#bab0ac",
}
PAD_COLOUR = "#e6e6e6"


def flops_figure(config, cases: Sequence[tuple[str, int, float]], *, ax=None, title: str | None = None,
                 legend: bool = True):
    """One stacked horizontal bar per case (label, sequence length, predicted fraction): the training
    MFLOPs per token of `config`, by part (colours: PART_COLOURS), the total written after each bar;
    `legend=False` leaves the parts' legend out (for a second panel). Returns the axes."""
    import matplotlib.pyplot as plt

    from ..pretrain.metrics import flops_parts  # here: the pretrain package is slow to import

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 0.7 * len(cases) + 1.6), layout="constrained")
    totals = []
    for row, (_, T, f) in enumerate(cases):
        left = 0.0
        for part, value in flops_parts(config, T, f).items():
            ax.barh(row, value / 1e6, left=left, color=PART_COLOURS[part], edgecolor="white",
                    label=part if row == 0 else None)
            left += value / 1e6
        totals.append(left)
        ax.text(left, row, f"  {left:,.0f} M", va="center", fontsize=9)
    ax.set_yticks(range(len(cases)), [label for label, _, _ in cases])
    ax.invert_yaxis()
    ax.set(xlabel="training MFLOPs per token (forward + backward)", xlim=(0, max(totals) * 1.18),
           title=title or "where a token's FLOPs go")
    if legend:
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(cases) < 3 else -0.22), ncol=3,
                  frameon=False)
    return ax


def cost_figure(days, *, reference: Mapping[str, float] | None = None, ax=None, title: str | None = None):
    """Grouped horizontal bars on a log axis: `days` is a pandas DataFrame, one row per device (the
    index) and one column per run, holding days of training; each bar is labelled with its value.
    `reference`: vertical dotted lines, label -> days (e.g. what the paper reports). Returns the axes."""
    import matplotlib.pyplot as plt

    rows, runs = list(days.index), list(days.columns)
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 0.45 * len(rows) * len(runs) + 1.4), layout="constrained")
    height = 0.8 / len(runs)
    for j, run in enumerate(runs):
        y = [i + (j - (len(runs) - 1) / 2) * height for i in range(len(rows))]
        values = [float(v) for v in days[run]]
        ax.barh(y, values, height=height * 0.92, color=f"C{j}", label=run)
        for yy, v in zip(y, values, strict=True):
            text = f" {v:,.1f} d" if v < 100 else f" {v:,.0f} d"
            ax.text(v, yy, text, va="center", fontsize=8)
    for k, (label, value) in enumerate((reference or {}).items()):
        ax.axvline(value, color="0.3", ls=":" if k == 0 else "--", lw=1.2, label=label)
    ax.set_xscale("log")
    ax.set_yticks(range(len(rows)), rows)
    ax.invert_yaxis()
    lo, hi = float(days.min().min()), float(days.max().max())
    ax.set(xlim=(lo / 2.5, hi * 6), xlabel="days of training (log scale)", title=title or "what the run costs")
    ax.legend(fontsize=8, loc="lower right")
    return ax


def padding_figure(attention_mask, *, ax=None, title: str | None = None):
    """Top: a (B, T) batch, one cell per position, real tokens coloured by their row and [PAD] grey,
    each real cell holding its flat index b·T + t. Bottom: the N real tokens packed in row-major
    order (what `unpad_input` returns, its `indices` written in the cells). Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    mask = [[int(v) for v in row] for row in (attention_mask.tolist() if hasattr(attention_mask, "tolist")
                                              else attention_mask)]
    B, T = len(mask), len(mask[0])
    real = [(b, t) for b in range(B) for t in range(T) if mask[b][t]]  # row-major, as unpad_input packs them
    N, width = len(real), max(T, len(real))
    colour = lambda b: plt.get_cmap("tab10")(b % 10)  # noqa: E731
    if ax is None:
        fig, ax = plt.subplots(figsize=(min(16, 0.5 * width + 1.5), 0.5 * (B + 2.6) + 0.6), layout="constrained")
    fig = ax.figure
    small = 8 if width <= 24 else 6
    for b in range(B):
        for t in range(T):
            face = colour(b) if mask[b][t] else PAD_COLOUR
            ax.add_patch(Rectangle((t, b), 0.94, 0.94, facecolor=face, alpha=0.85 if mask[b][t] else 1.0))
            ax.text(t + 0.47, b + 0.5, str(b * T + t) if mask[b][t] else "PAD", ha="center", va="center",
                    fontsize=small, color="white" if mask[b][t] else "0.45")
    y = B + 1.2
    for i, (b, t) in enumerate(real):
        ax.add_patch(Rectangle((i, y), 0.94, 0.94, facecolor=colour(b), alpha=0.85))
        ax.text(i + 0.47, y + 0.5, str(b * T + t), ha="center", va="center", fontsize=small, color="white")
    for i in range(N):  # the packed row has its own positions, 0 to N - 1: written under it
        if N <= 24 or i % 4 == 0:
            ax.text(i + 0.47, y + 1.3, str(i), ha="center", va="center", fontsize=small, color="0.4")
    ax.text(-0.3, B + 0.75, f"unpadded: the N = {N} real tokens, row by row (indices = flat positions b·T + t)",
            fontsize=9, va="center")
    ax.set_yticks([b + 0.47 for b in range(B)] + [y + 0.47, y + 1.3],
                  [f"row {b}" for b in range(B)] + ["packed", "its position"])
    # The rows' positions t on top, over the grid they number (the packed row is longer than T).
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xticks([t + 0.47 for t in range(T)], [str(t) if T <= 24 or t % 4 == 0 else "" for t in range(T)])
    ax.set(xlim=(-0.2, width + 0.1), ylim=(y + 1.7, -0.2), xlabel="position t in a row")
    ax.xaxis.label.set_x((T / 2 + 0.2) / (width + 0.3))  # over the grid, not the packed row
    ax.set_title(title or f"padded: B × T = {B * T} positions, {B * T - N} of them [PAD] ({(B * T - N) / (B * T):.0%})",
                 pad=28)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    return fig


def micro_batch_figure(cases: Sequence[tuple[str, int, int, int]], *, ax=None, title: str | None = None):
    """One row per case (label, sequence length, sequences per micro-batch, accumulation steps): each
    micro-batch drawn to scale as a rectangle `length` wide and `sequences` tall, so that equal areas
    are equal tokens per forward pass. Returns the axes."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    widest = max(length * steps * 1.06 for _, length, _, steps in cases)
    rows, y0 = [], 0.0
    for _, _, sequences, _ in cases:  # each row: room for its label, then its rectangles
        rows.append(y0 + 0.05 * widest)
        y0 += 0.05 * widest + sequences + 0.02 * widest
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 10 * y0 / widest + 0.5), layout="constrained")
    for row, ((label, length, sequences, steps), top) in enumerate(zip(cases, rows, strict=True)):
        ax.text(0, top - 0.012 * widest, f"{label}: {steps} forward pass{'es' if steps > 1 else ''} of "
                f"{sequences} × {length} = {sequences * length:,} tokens", fontsize=9, va="bottom")
        for s in range(steps):
            ax.add_patch(Rectangle((s * length * 1.06, top), length, sequences, facecolor=f"C{row}", alpha=0.75,
                                   edgecolor="0.3"))
    ax.set_aspect("equal")
    ax.set(xlim=(-0.01 * widest, widest), ylim=(y0, 0))
    ax.set_title(title or "one optimizer step in micro-batches: width = tokens per sequence, height = sequences",
                 fontsize=10)
    ax.axis("off")
    return ax


TITLES = {"mlm_loss": "held-out MLM loss", "mlm_accuracy": "held-out masked-token accuracy",
          "nsp_loss": "held-out NSP loss", "nsp_accuracy": "held-out NSP accuracy", "perplexity": "held-out perplexity"}


def phases_figure(phase1: Sequence[dict], phase2: Sequence[dict], *, keys=("mlm_loss", "mlm_accuracy"),
                  title: str | None = None):
    """The held-out `keys` of two runs' logs (records as `read_log` returns them) against tokens seen,
    phase 2 placed after phase 1's last token, a dotted line where it starts. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(keys), figsize=(5.2 * len(keys), 3.3), layout="constrained", squeeze=False)
    offset = max(r["tokens"] for r in phase1 if "tokens" in r)
    header = next((r for r in phase1 if r["kind"] == "run"), None)
    for ax, key in zip(axes[0], keys, strict=True):
        for records, shift, name, colour in ((phase1, 0, "phase 1", "C0"), (phase2, offset, "phase 2", "C1")):
            evals = [r for r in records if r["kind"] == "eval" and key in r]
            ax.plot([(r["tokens"] + shift) / 1e6 for r in evals], [r[key] for r in evals], "o-", color=colour,
                    label=f"{name} ({_length(records)} tokens)", ms=4)
        ax.axvline(offset / 1e6, color="0.4", ls=":", lw=1)
        if key == "mlm_loss" and header is not None:
            ax.axhline(header["ln_vocab"], color="C3", ls=":", lw=1, label="ln V (uniform)")
        if key == "nsp_accuracy":
            ax.axhline(0.5, color="C3", ls=":", lw=1, label="chance")
        ax.set(xlabel="tokens seen (millions)", title=TITLES.get(key, key))
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    return fig


def _length(records: Sequence[dict]) -> str:
    header = next((r for r in records if r["kind"] == "run"), None)
    return str(header["config"]["max_seq_length"]) if header else "?"
