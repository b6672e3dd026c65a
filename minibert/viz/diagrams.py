"""The paper's diagrams, drawn in code: pre-training then fine-tuning (Figure 1), BERT, GPT and ELMo
side by side (Figure 3), next sentence prediction (§3.1), which positions each model may read, and
sentences compared by their vectors.

Shape legend: n positions; a context mask is (n, n) bool, row i = the representation at position i
(the query), column j = the input token it may be computed from (the key).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .fonts import drawable

SEGMENT_COLOURS = {"A": "#cfe2f3", "B": "#fce5cd", "special": "#d9d9d9", "mask": "#f4a259"}
CONTEXT_COLOURS = {0: "#ffffff", 1: "#4e79a7", 2: "#f28e2b", 3: "#8c5fa8"}  # none, left, right, both
CONTEXT_KINDS = ("bert", "gpt", "elmo-forward", "elmo-backward")


def context_mask(kind: str, n: int) -> torch.Tensor:
    """(n, n) bool: may the representation at position i (row) use the token at position j (column)?
    "bert": every position (Figure 3, bidirectional Transformer); "gpt": j <= i (left-to-right);
    "elmo-forward" / "elmo-backward": j <= i / j >= i, ELMo's two independently trained LSTMs."""
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]  # (n, 1), (1, n)
    masks = {"bert": torch.ones(n, n, dtype=torch.bool), "gpt": j <= i,
             "elmo-forward": j <= i, "elmo-backward": j >= i}
    if kind not in masks:
        raise ValueError(f"unknown kind {kind!r}; use one of {CONTEXT_KINDS}")
    return masks[kind]


def reach(mask: torch.Tensor, layers: int) -> torch.Tensor:
    """(n, n) bool: which input positions (columns) can change the output at each position (rows) after
    `layers` attention layers, each reading the positions `mask` allows plus its own (the residual)."""
    mask = torch.as_tensor(mask, dtype=torch.bool)
    step = mask | torch.eye(mask.shape[0], dtype=torch.bool)  # residual: a position keeps what it had
    out = torch.eye(mask.shape[0], dtype=torch.bool)
    for _ in range(layers):
        out = (step.int() @ out.int()) > 0  # i reaches j if some k that i reads reached j a layer below
    return out


def mask_panels(panels: dict, *, legend: dict | None = None, marks: torch.Tensor | None = None,
                tokens: Sequence[str] | None = None, size: float = 2.6, title: str | None = None):
    """Integer (n, n) matrices side by side, one per entry of `panels` ({title: matrix}); value v is
    drawn in CONTEXT_COLOURS[v] and named in the legend by `legend[v]`. `marks` (n, n) bool puts a
    cross on cells to point at (e.g. where the word to predict sits). Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    legend = legend or {1: "may read"}
    cmap = ListedColormap([CONTEXT_COLOURS[v] for v in range(4)])
    fig, axes = plt.subplots(1, len(panels), figsize=(size * len(panels) + 0.4, size + 0.9),
                             layout="constrained", squeeze=False)
    for ax, (name, matrix) in zip(axes[0], panels.items()):
        matrix = torch.as_tensor(matrix).int()
        n = matrix.shape[0]
        ax.imshow(matrix.numpy(), cmap=cmap, vmin=-0.5, vmax=3.5)
        ax.set_xticks(range(n), drawable(tokens) if tokens else range(n), fontsize=8,
                      rotation=90 if tokens else 0)
        ax.set_yticks(range(n), drawable(tokens) if tokens else range(n), fontsize=8)
        ax.set_xticks([x - 0.5 for x in range(1, n)], minor=True)
        ax.set_yticks([y - 0.5 for y in range(1, n)], minor=True)
        ax.grid(which="minor", color="0.8", lw=0.5)
        ax.tick_params(which="minor", length=0)
        ax.set_xlabel("input position (key)", fontsize=9)
        ax.set_title(name, fontsize=10)
        if marks is not None:
            rows, cols = torch.as_tensor(marks).nonzero(as_tuple=True)
            ax.plot(cols.numpy(), rows.numpy(), "x", color="#d62728", ms=7, mew=2)
    axes[0, 0].set_ylabel("representation at position (query)", fontsize=9)
    handles = [Patch(fc=CONTEXT_COLOURS[v], ec="0.5", label=label) for v, label in legend.items()]
    if marks is not None:
        handles.append(plt.Line2D([], [], ls="", marker="x", color="#d62728", mew=2,
                                  label="where the word to predict sits"))
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=9, frameon=False)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def context_masks_figure(n: int = 6):
    """GPT's triangle, ELMo's two triangles, BERT's square: what each position's representation is
    computed from (Figure 3 read as attention masks). Returns the figure."""
    fwd, bwd = context_mask("elmo-forward", n).int(), context_mask("elmo-backward", n).int()
    panels = {"OpenAI GPT: left-to-right": context_mask("gpt", n).int(),
              "ELMo: two separate LSTMs": fwd + 2 * bwd,  # 1 forward only, 2 backward only, 3 both
              "BERT: bidirectional": 3 * context_mask("bert", n).int()}
    return mask_panels(panels, legend={1: "left context", 2: "right context", 3: "both, in one model"})


def token_row(ax, tokens: Sequence[str], y: float, *, colours: Sequence[str] | None = None,
              below: Sequence[str] | None = None, x0: float = 0.0, fontsize: float = 9) -> list[float]:
    """One rounded box per token at height y (one x unit per character of 9-point monospace); `below`
    writes a small label under each box (a token type, an original token). Returns each box's centre x."""
    tokens = drawable(tokens)
    centres, x = [], x0
    for k, token in enumerate(tokens):
        width = max(len(token), len(below[k]) if below else 0) + 1.2
        centre = x + width / 2
        ax.text(centre, y, token, family="monospace", fontsize=fontsize, ha="center", va="center",
                bbox=dict(boxstyle="round,pad=0.3", fc=colours[k] if colours else "white", ec="0.5", lw=0.6))
        if below:
            ax.text(centre, y - 0.42, below[k], family="monospace", fontsize=fontsize - 2, ha="center",
                    va="center", color="0.35")
        centres.append(centre)
        x += width + 0.6
    return centres


def segment_colours(tokens: Sequence[str], token_type_ids: Sequence[int]) -> list[str]:
    """A colour per token: grey for [CLS]/[SEP]/[PAD], orange for [MASK], else segment A or B."""
    if len(tokens) != len(token_type_ids):
        raise ValueError(f"{len(tokens)} tokens but {len(token_type_ids)} token types")
    kind = {"[CLS]": "special", "[SEP]": "special", "[PAD]": "special", "[MASK]": "mask"}
    return [SEGMENT_COLOURS[kind.get(t, "AB"[s])] for t, s in zip(tokens, token_type_ids)]


def _arrow(ax, start, end, gid: str, **style):
    from matplotlib.patches import FancyArrowPatch

    style = {"arrowstyle": "-|>", "mutation_scale": 7, "lw": 0.6, "color": "0.45", "shrinkA": 7,
             "shrinkB": 7} | style
    ax.add_patch(FancyArrowPatch(start, end, gid=gid, **style))


def _node(ax, x, y, label, fc="white", fontsize=8):
    ax.text(x, y, label, ha="center", va="center", fontsize=fontsize,
            bbox=dict(boxstyle="round,pad=0.3", fc=fc, ec="0.4", lw=0.6))


def architectures_figure(n: int = 4):
    """Figure 3: BERT (every layer reads every position below), OpenAI GPT (only positions to the
    left) and ELMo (a left-to-right and a right-to-left LSTM, trained apart, joined at the top).
    Each connection is an arrow with gid "<panel>:<layer>:<j>><i>" (input j feeds position i)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), layout="constrained")
    names = [f"$E_{k}$" for k in range(1, n)] + ["$E_N$"]
    outs = [f"$T_{k}$" for k in range(1, n)] + ["$T_N$"]
    for ax, kind, title in zip(axes[:2], ("bert", "gpt"), ("BERT", "OpenAI GPT")):
        mask = context_mask(kind, n)
        for i in range(n):
            _node(ax, i, 0, names[i], fc="#fff2cc")
            _node(ax, i, 3.6, outs[i], fc="#d9ead3")
            for layer in (1, 2):
                _node(ax, i, 1.2 * layer, "Trm", fc="#cfe2f3")
                for j in range(n):
                    if mask[i, j]:
                        _arrow(ax, (j, 1.2 * (layer - 1)), (i, 1.2 * layer), f"{kind}:{layer}:{j}>{i}")
            _arrow(ax, (i, 2.4), (i, 3.6), f"{kind}:3:{i}>{i}")
        ax.set_title(title, fontsize=11)
    ax = axes[2]
    for i in range(n):  # forward LSTM nodes at x - 0.22, backward at x + 0.22, a little higher
        _node(ax, i, 0, names[i], fc="#fff2cc")
        _node(ax, i, 3.6, outs[i], fc="#d9ead3")
        for layer in (1, 2):
            for d, (dx, dy, fc) in enumerate(((-0.25, 0.0, "#cfe2f3"), (0.25, 0.45, "#fce5cd"))):
                y = 1.25 * layer - 0.35 + dy
                _node(ax, i + dx, y, "Lstm", fc=fc, fontsize=7)
                below = (i, 0) if layer == 1 else (i + dx, 0.9 + dy)
                _arrow(ax, below, (i + dx, y), f"elmo-{'fb'[d]}:{layer}:{i}>{i}")
                if d == 0 and i + 1 < n:  # left-to-right: position i feeds i + 1
                    _arrow(ax, (i + dx, y), (i + 1 + dx, y), f"elmo-f:{layer}:{i}>{i + 1}", color="#4e79a7",
                           shrinkA=13, shrinkB=13, lw=1.0)
                if d == 1 and i > 0:  # right-to-left: position i feeds i - 1
                    _arrow(ax, (i + dx, y), (i - 1 + dx, y), f"elmo-b:{layer}:{i}>{i - 1}", color="#f28e2b",
                           shrinkA=13, shrinkB=13, lw=1.0)
            if layer == 2:
                for dx, dy, d in ((-0.25, 0.0, "f"), (0.25, 0.45, "b")):  # concatenated at the top
                    _arrow(ax, (i + dx, 2.15 + dy), (i, 3.6), f"elmo-{d}:3:{i}>{i}")
    ax.set_title("ELMo", fontsize=11)
    captions = ("every layer reads both sides", "each position reads only its left",
                "left-to-right (blue) and right-to-left (orange)\nLSTMs, trained apart, concatenated")
    for ax, caption in zip(axes, captions):
        ax.set_xlim(-0.6, n - 0.4)
        ax.set_ylim(-0.75, 4.0)
        ax.axis("off")
        ax.text((n - 1) / 2, -0.6, caption, ha="center", va="center", fontsize=9, color="0.25")
    return fig


def _labels(ax, centres, labels, y, fc):
    for x, label in zip(centres, labels):
        _node(ax, x, y, label, fc=fc, fontsize=8)


def _stack(ax, tokens, types, title, heads, caption):
    """One panel of Figure 1: tokens -> embeddings E -> BERT -> outputs (C, T_i) -> heads."""
    from matplotlib.patches import FancyBboxPatch

    centres = token_row(ax, tokens, 0, colours=segment_colours(tokens, types))
    subs, count = [], [0, 0]  # E_1, E_2, ... in A; E'_1, E'_2, ... in B, as the paper writes them
    for token, t in zip(tokens, types):
        if token in ("[CLS]", "[SEP]"):
            subs.append(("", token))
        else:
            count[t] += 1
            subs.append(("'" if t else "", str(count[t])))
    _labels(ax, centres, [f"$E{p}_{{{s}}}$" for p, s in subs], 1.3, "#fff2cc")
    _labels(ax, centres, ["C"] + [f"$T{p}_{{{s}}}$" for p, s in subs[1:]], 4.1, "#d9ead3")
    width = centres[-1] - centres[0] + 3
    ax.add_patch(FancyBboxPatch((centres[0] - 1.5, 2.1), width, 1.2, boxstyle="round,pad=0.1", fc="#e6e0f0", ec="0.4"))
    ax.text((centres[0] + centres[-1]) / 2, 2.7, "BERT", ha="center", va="center", fontsize=13, weight="bold")
    for x in centres:
        _arrow(ax, (x, 0.1), (x, 1.3), "up")
        _arrow(ax, (x, 1.3), (x, 2.1), "up", shrinkB=0)
        _arrow(ax, (x, 3.3), (x, 4.1), "up", shrinkA=0)
    for position, label in heads:
        _arrow(ax, (centres[position], 4.1), (centres[position], 5.0), "head", color="#c0392b")
        ax.text(centres[position], 5.15, label, ha="center", va="bottom", fontsize=9, color="#c0392b")
    ax.text((centres[0] + centres[-1]) / 2, -0.8, caption, ha="center", va="center", fontsize=9, color="0.25")
    ax.set_xlim(centres[0] - 1.6, centres[-1] + 1.6)
    ax.set_ylim(-1.1, 5.6)
    ax.set_title(title, fontsize=11)
    ax.axis("off")


def pretrain_finetune_figure():
    """Figure 1: pre-training (masked LM + NSP on an unlabelled pair) and fine-tuning (here SQuAD: the
    same architecture, every parameter starting from pre-training, a start and an end per token)."""
    import matplotlib.pyplot as plt

    # One above the other, so that the figure fits a notebook's width (side by side it was 15 inches).
    fig, axes = plt.subplots(3, 1, figsize=(9.5, 8.4), layout="constrained", height_ratios=[6.7, 1.1, 6.7])
    axes = [axes[0], axes[2], axes[1]]
    pre = ["[CLS]", "my", "dog", "is", "[MASK]", "[SEP]", "he", "likes", "play", "##ing", "[SEP]"]
    _stack(axes[0], pre, [0] * 6 + [1] * 5, "Pre-training", [(0, "NSP: IsNext"), (4, "Mask LM: cute")],
           "unlabelled pair: masked sentence A, sentence B")
    fine = ["[CLS]", "what", "does", "he", "like", "?", "[SEP]", "he", "likes", "play", "##ing", "[SEP]"]
    _stack(axes[1], fine, [0] * 7 + [1] * 5, "Fine-tuning (SQuAD)", [(9, "Start"), (10, "End")],
           "question, paragraph: the answer span (MNLI reads a class from C, NER a tag from each T)")
    axes[2].axis("off")
    axes[2].annotate("", xy=(0.5, 0.0), xytext=(0.5, 1.0), xycoords="axes fraction",
                     arrowprops=dict(arrowstyle="-|>", lw=2, color="0.45", mutation_scale=18))
    axes[2].text(0.53, 0.5, "the same architecture, starting from the pre-trained parameters;\nall of them fine-tuned",
                 ha="left", va="center", fontsize=9, color="0.25", transform=axes[2].transAxes)
    return fig


PAPER_NSP_EXAMPLES = (  # Appendix A.1, "Next Sentence Prediction"
    ("[CLS] the man went to [MASK] store [SEP] he bought a gallon [MASK] milk [SEP]", "IsNext"),
    ("[CLS] the man [MASK] to the store [SEP] penguin [MASK] are flight ##less birds [SEP]", "NotNext"),
)


def nsp_figure(examples: Sequence[tuple[str, str]] = PAPER_NSP_EXAMPLES):
    """Next sentence prediction in one picture: each input pair, tokens coloured by segment, its token
    type under each token, and its label (the paper's Appendix A.1 examples by default)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows = [text.split() for text, _ in examples]
    # one x unit = one character of 9-point monospace (0.075 in), as token_row counts; room for the label
    units = max(sum(len(t) + 1.8 for t in tokens) for tokens in rows) + 19
    fig, ax = plt.subplots(figsize=(units * 0.075 + 0.3, 0.6 + 1.1 * len(examples)), layout="constrained")
    for row, (tokens, (_, label)) in enumerate(zip(rows, examples)):
        first_sep = tokens.index("[SEP]")
        types = [0] * (first_sep + 1) + [1] * (len(tokens) - first_sep - 1)
        centres = token_row(ax, tokens, -row * 1.1, colours=segment_colours(tokens, types),
                            below=[str(t) for t in types])
        ax.text(centres[-1] + len(tokens[-1]) / 2 + 2, -row * 1.1, f"Label = {label}", fontsize=10, va="center",
                weight="bold", color="#2e7d32" if label == "IsNext" else "#c0392b")
    ax.set_xlim(-0.5, units)
    ax.set_ylim(-1.1 * len(examples) + 0.4, 0.6)
    ax.axis("off")
    names = {"A": "segment A (token type 0)", "B": "segment B (token type 1)", "special": "[CLS], [SEP]",
             "mask": "[MASK]"}
    ax.legend(handles=[Patch(fc=SEGMENT_COLOURS[k], ec="0.5", label=v) for k, v in names.items()],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, fontsize=9, frameon=False)
    return fig


def similarity_heatmap(sim, labels: Sequence[str], *, ax=None, title: str | None = None):
    """A (n, n) matrix of cosine similarities between sentences, each cell written out, with a colour
    bar; rows and columns are labelled with `labels`. Returns the axes."""
    import matplotlib.pyplot as plt

    sim = torch.as_tensor(sim).detach().float().cpu()
    if sim.ndim != 2 or sim.shape[0] != sim.shape[1] or sim.shape[0] != len(labels):
        raise ValueError(f"expected an (n, n) matrix and n labels, got {tuple(sim.shape)} and {len(labels)} labels")
    if ax is None:
        _, ax = plt.subplots(figsize=(2.2 + 0.75 * len(labels), 1.2 + 0.6 * len(labels)), layout="constrained")
    image = ax.imshow(sim.numpy(), cmap="viridis", vmin=min(0.0, float(sim.min())), vmax=1.0)
    for (i, j), v in zip(torch.cartesian_prod(torch.arange(len(labels)), torch.arange(len(labels))).tolist(),
                         sim.flatten().tolist()):
        ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8, color="black" if v > 0.6 else "white")
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=9)
    ax.set_yticks(range(len(labels)), labels, fontsize=9)
    ax.figure.colorbar(image, ax=ax, label="cosine similarity", shrink=0.85)
    if title:
        ax.set_title(title, fontsize=10)
    return ax
