"""What a healthy run looks like, and the signatures of the usual failures.

`reference_curve("tiny")` is the held-out log of a stored run of that preset (its provenance is in
`reference/<name>.json`); `plot_run(my_run, "tiny")` draws a learner's run over it against tokens
seen; `diagnose(my_run)` names what is wrong, in words:

- MLM loss stuck at ln(V): the model predicts a uniform distribution; it is not learning at all
  (learning rate 0, labels all ignored, gradients not reaching the weights).
- MLM loss stuck at the unigram entropy: it predicts each masked token from its frequency alone,
  ignoring the context (an attention mask that hides every key, masked inputs equal to labels...).
- NSP stuck at 50%: the NSP head learns nothing (labels shuffled apart from their pairs, [CLS]
  not reaching the pooler).
- NSP at 100%: the task leaks (NotNext pairs differ in length or padding from IsNext ones).
- Exploding gradients: the norm jumps far above its running level or stops being finite, or the
  loss climbs above ln(V) (worse than guessing).
"""

from __future__ import annotations

import bisect
import json
import math
from dataclasses import dataclass
from pathlib import Path

from ..training.log import read_log

REFERENCE_DIR = Path(__file__).parent / "reference"


@dataclass
class Finding:
    signature: str
    step: int
    message: str

    def __str__(self) -> str:
        return f"{self.signature} (step {self.step}): {self.message}"


def reference_curve(name: str) -> list[dict]:
    """The records (run, eval, train, end) of the stored reference run of preset `name`."""
    path = REFERENCE_DIR / f"{name}.jsonl"
    if not path.is_file():
        stored = sorted(p.stem for p in REFERENCE_DIR.glob("*.jsonl"))
        raise FileNotFoundError(f"no reference curve for {name!r}; stored: {', '.join(stored)}")
    return read_log(path)


def provenance(name: str) -> dict:
    return json.loads((REFERENCE_DIR / f"{name}.json").read_text(encoding="utf-8"))


def save_reference(run_dir: str | Path, name: str) -> Path:
    """Store a finished run's log as the reference curve `name`, with where it came from. How the
    stored ones were made: `python -m minibert.pretrain --config mini`, then `save_reference("runs/mini",
    "mini")`; the `tiny` one is logged as `--config course`, which was the `tiny` recipe until the
    course model became two phases (`--config tiny --out-dir runs/course` runs it today)."""
    records = [r for r in read_log(run_dir) if r["kind"] in ("run", "train", "eval", "end")]
    header, end = records[0], records[-1]
    if end["kind"] != "end":
        raise ValueError(f"{run_dir} has not finished; a reference must be a whole run")
    lines = "".join(json.dumps(r) + "\n" for r in records)
    (REFERENCE_DIR / f"{name}.jsonl").write_text(lines, encoding="utf-8")
    source = {"command": header["command"], "corpus_sha256": header["corpus_sha256"],
              "device": header["device"], "processes": header["processes"], "torch": header["torch"],
              "steps": end["step"], "tokens": end["tokens"], "minutes": round(end["seconds"] / 60, 1),
              "final": {k: end[k] for k in ("mlm_loss", "mlm_accuracy", "nsp_loss", "nsp_accuracy") if k in end}}
    path = REFERENCE_DIR / f"{name}.json"
    path.write_text(json.dumps(source, indent=2) + "\n", encoding="utf-8")
    return path


def _records(run) -> list[dict]:
    return run if isinstance(run, list) else read_log(run)


def diagnose(run, *, patience: int = 3) -> list[Finding]:
    """The failure signatures in a run (a log.jsonl, a run folder, or its records); [] if healthy.
    Loss and NSP plateaus count only after the warm-up and once `patience` evaluations agree."""
    records = _records(run)
    header = next(r for r in records if r["kind"] == "run")
    warmup = header["config"]["warmup_steps"]
    ln_v, unigram = header["ln_vocab"], header.get("unigram_entropy")
    evals = [r for r in records if r["kind"] == "eval" and r["step"] >= max(warmup, 1)][-patience:]
    findings = []
    if len(evals) == patience:
        losses, step = [r["mlm_loss"] for r in evals], evals[-1]["step"]
        flat = max(losses) - min(losses) < 0.05
        if min(losses) > ln_v - 0.25:
            findings.append(Finding("mlm_at_ln_v", step, f"held-out MLM loss {losses[-1]:.2f} is still at ln(V) = "
                                    f"{ln_v:.2f}: the model predicts a uniform distribution and is not learning. "
                                    "Check the learning rate, that labels are not all -100, and that gradients flow."))
        elif unigram is not None and flat and all(abs(x - unigram) < 0.2 for x in losses):
            findings.append(Finding("mlm_at_unigram", step, f"held-out MLM loss is stuck at {losses[-1]:.2f}, the "
                                    f"unigram entropy ({unigram:.2f}): the model guesses from token frequencies "
                                    "alone and ignores the context. Check the attention mask (1 = real token) "
                                    "and that masked positions really hide their token."))
        nsp = [r["nsp_accuracy"] for r in evals if "nsp_accuracy" in r]
        if len(nsp) == patience and all(abs(a - 0.5) < 0.02 for a in nsp):
            findings.append(Finding("nsp_at_chance", step, f"NSP accuracy is stuck at {nsp[-1]:.1%} (chance): check "
                                    "that next_sentence_label stays with its pair and that the pooler reads [CLS]."))
    if any(r.get("nsp_accuracy", 0) >= 0.995 for r in records if r["kind"] == "eval"):
        step = next(r["step"] for r in records if r["kind"] == "eval" and r.get("nsp_accuracy", 0) >= 0.995)
        findings.append(Finding("nsp_perfect", step, "NSP accuracy reached 100%: the task leaks. IsNext and "
                                "NotNext pairs must not differ in length, padding or token types."))
    findings += _gradient_findings(records, ln_v)
    return findings


def _gradient_findings(records: list[dict], ln_v: float, factor: float = 20.0) -> list[Finding]:
    """A gradient norm `factor` times its running median, or not finite, or a training MLM loss
    above ln V + 1 (worse than a uniform guess: the weights have blown up). Healthy reference runs
    peak at 7x their running median, early in the warm-up."""
    earlier_norms = []  # kept sorted, so the running median is a lookup, not a sort per record
    for r in (r for r in records if r["kind"] == "train"):
        n = len(earlier_norms)
        earlier = (earlier_norms[(n - 1) // 2] + earlier_norms[n // 2]) / 2 if n else math.nan
        norm = r["grad_norm"]
        bisect.insort(earlier_norms, norm)
        if not math.isfinite(norm) or norm > factor * earlier or r.get("mlm_loss", 0.0) > ln_v + 1:
            return [Finding("exploding_gradients", r["step"], f"gradient norm {norm:.3g} against a running "
                            f"median of {earlier:.3g}, MLM loss {r.get('mlm_loss', math.nan):.3g} against ln V = "
                            f"{ln_v:.2f}: lower the learning rate or lengthen the warm-up; clipping "
                            "(max_grad_norm) hides but does not cure it.")]
    if any(r["kind"] == "diverged" for r in records):
        step = next(r["step"] for r in records if r["kind"] == "diverged")
        return [Finding("exploding_gradients", step, "the run diverged (non-finite loss or gradient).")]
    return []


def plot_run(run=None, reference: str | None = "tiny", *, label: str = "your run", axes=None):
    """MLM loss, masked-token accuracy and NSP accuracy on the held-out split against tokens seen:
    the run (a log, a folder or records) over the stored reference. Returns the figure."""
    import matplotlib.pyplot as plt

    if axes is None:
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    fig = axes[0].figure
    curves = []
    if reference is not None:
        curves.append((reference_curve(reference), f"reference ({reference})", dict(color="0.6", lw=3)))
    if run is not None:
        curves.append((_records(run), label, dict(color="C0", lw=1.5)))
    for records, name, style in curves:
        evals = [r for r in records if r["kind"] == "eval"]
        x = [r["tokens"] / 1e6 for r in evals]
        for ax, key in zip(axes, ("mlm_loss", "mlm_accuracy", "nsp_accuracy"), strict=True):
            if all(key in r for r in evals):
                ax.plot(x, [r[key] for r in evals], label=name, **style)
    header = next(r for r in curves[-1][0] if r["kind"] == "run")
    axes[0].axhline(header["ln_vocab"], ls=":", color="C3", label="ln V (uniform)")
    if header.get("unigram_entropy"):
        axes[0].axhline(header["unigram_entropy"], ls="--", color="C2", label="unigram entropy")
    axes[2].axhline(0.5, ls=":", color="C3", label="chance")
    for ax, title in zip(axes, ("MLM loss (held out)", "masked-token accuracy", "NSP accuracy"), strict=True):
        ax.set(title=title, xlabel="tokens seen (millions)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
