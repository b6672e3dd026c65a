"""Reference curves and the failure signatures: the stored healthy runs raise nothing, and each
known failure, written as the log such a run leaves, is named."""

import glob
import math

import matplotlib
import pytest

from minibert.pretrain import diagnose, plot_run, reference_curve
from minibert.pretrain.curves import REFERENCE_DIR, provenance

matplotlib.use("Agg")
LN_V, UNIGRAM = math.log(8192), 6.81
REFERENCES = sorted(p.split("/")[-1][:-len(".jsonl")] for p in glob.glob(str(REFERENCE_DIR / "*.jsonl")))


def run_log(mlm_losses, nsp=None, grad_norms=None, every=100, warmup=100):
    header = {"kind": "run", "step": 0, "tokens": 0, "config": {"warmup_steps": warmup},
              "ln_vocab": LN_V, "unigram_entropy": UNIGRAM}
    records = [header]
    for k, loss in enumerate(mlm_losses):
        records.append({"kind": "eval", "step": k * every, "tokens": k * every * 4096, "mlm_loss": loss,
                        "mlm_accuracy": 0.1, **({"nsp_accuracy": nsp[k]} if nsp else {})})
    for k, norm in enumerate(grad_norms or []):
        records.append({"kind": "train", "step": k * 10, "tokens": k * 40960, "grad_norm": norm})
    return records


def test_the_stored_reference_runs_are_healthy_and_documented():
    assert {"tiny", "mini"} <= set(REFERENCES)
    for name in REFERENCES:
        curve = reference_curve(name)
        assert diagnose(curve) == [], name
        source = provenance(name)
        assert source["command"].startswith("python -m minibert.pretrain --config") and source["corpus_sha256"]
        evals = [r for r in curve if r["kind"] == "eval"]
        header = curve[0]
        # A healthy run: from ~ln V to well below the unigram entropy, NSP above chance.
        assert evals[0]["mlm_loss"] == pytest.approx(header["ln_vocab"], abs=0.3)
        assert evals[-1]["mlm_loss"] < header["unigram_entropy"] - 0.5
        assert evals[-1]["nsp_accuracy"] > 0.55


def test_each_failure_signature_is_named():
    def names(records):
        return [f.signature for f in diagnose(records)]

    assert names(run_log([9.0, 8.1, 7.2, 6.6, 6.0])) == []
    assert names(run_log([9.0, 9.01, 9.0, 9.02, 9.0])) == ["mlm_at_ln_v"]
    assert names(run_log([9.0, 6.9, 6.82, 6.80, 6.81])) == ["mlm_at_unigram"]
    assert names(run_log([9.0, 7.0, 6.5, 6.0, 5.5], nsp=[0.5, 0.51, 0.5, 0.49, 0.5])) == ["nsp_at_chance"]
    assert names(run_log([9.0, 7.0, 6.5, 6.0, 5.5], nsp=[0.5, 0.7, 0.9, 0.999, 1.0])) == ["nsp_perfect"]
    spike = [1.0, 0.9, 1.1, 0.8, 1.0, 0.9, 45.0]
    assert names(run_log([9.0, 7.0, 6.5, 6.0, 5.5], grad_norms=spike)) == ["exploding_gradients"]
    assert names(run_log([9.0, 7.0, 6.5, 6.0, 5.5], grad_norms=[1.0, float("nan")])) == ["exploding_gradients"]
    # During the warm-up a flat loss is expected, not a failure.
    assert names(run_log([9.0, 9.0, 9.0, 9.0], every=10, warmup=1000)) == []
    message = str(diagnose(run_log([9.0, 9.01, 9.0, 9.02, 9.0]))[0])
    assert message.startswith("mlm_at_ln_v (step 400): held-out MLM loss 9.00 is still at ln(V) = 9.01")


def test_a_run_is_drawn_over_its_reference():
    fig = plot_run(run_log([9.0, 8.0, 7.0], nsp=[0.5, 0.55, 0.6]), "tiny")
    assert [ax.get_title() for ax in fig.axes] == ["MLM loss (held out)", "masked-token accuracy", "NSP accuracy"]
    assert [line.get_label() for line in fig.axes[0].get_lines()][:2] == ["reference (tiny)", "your run"]
    with pytest.raises(FileNotFoundError, match="no reference curve for 'huge'; stored: mini, tiny"):
        reference_curve("huge")
