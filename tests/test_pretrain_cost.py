"""What a run costs before it runs: the engine's FLOPs, the paper's budget, `--plan`."""

import pytest

from minibert import paper
from minibert.pretrain import flops_per_token, paper_cost, plan_text, recipe, run_cost
from minibert.pretrain.__main__ import main


def test_a_runs_cost_is_its_tokens_times_the_engines_flops_per_token():
    cfg = recipe("base")
    c = run_cost(cfg, device="H100", devices=8, mfu=0.5)
    assert c["tokens"] == 900_000 * 256 * 128 and c["vocab_size"] == 30_522
    # BertForPreTraining: the encoder's 109,482,240 (paper.PARAMETER_COUNTS) + the MLM transform,
    # LayerNorm and output bias (the decoder is tied) + the NSP layer.
    assert c["parameters"] == paper.PARAMETER_COUNTS["base"] + (768 * 768 + 768) + 2 * 768 + 30_522 + (768 * 2 + 2)
    assert c["flops_per_token"] == flops_per_token(cfg.model_config(30_522), 128, 0.15)
    assert c["days"] == pytest.approx(c["flops"] / (989.4e12 * 8 * 0.5) / 86_400)
    assert c["device_hours"] == pytest.approx(c["days"] * 24 * 8)
    # Phase 2 predicts at most 80 of 512 positions: 15.6% would be allowed, 15% is what masking picks.
    assert run_cost(recipe("base-512"))["flops_per_token"] > c["flops_per_token"]  # attention grows with T


def test_the_papers_run_implies_a_low_utilisation_of_its_tpus():
    base, large = paper_cost("BERT-BASE"), paper_cost("BERT-LARGE")
    assert base["tokens"] == 1_000_000 * 256 * (0.9 * 128 + 0.1 * 512)  # 90% of the steps at 128, 10% at 512
    assert base["paper_mfu"] == pytest.approx(base["flops"] / (45e12 * 16 * 4 * 86_400))
    assert 0.05 < base["paper_mfu"] < 0.15 and 0.05 < large["paper_mfu"] < 0.15
    assert large["flops"] / base["flops"] == pytest.approx(3.4, abs=0.1)  # LARGE: ~3.4x the FLOPs of BASE


def test_bad_costs_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown device 'B200'; known: H100 PCIe"):
        run_cost(recipe("base"), device="B200")
    with pytest.raises(ValueError, match="mfu=40: a fraction"):
        run_cost(recipe("base"), mfu=40)


def test_plan_prints_the_split_and_the_cost_and_runs_nothing(capsys, tmp_path):
    main(["--config", "base-512", "--plan", "--devices", "2", "--mfu", "0.3", "--out-dir", str(tmp_path / "x")])
    out = capsys.readouterr().out
    assert out.strip() == plan_text(recipe("base-512", out_dir=str(tmp_path / "x")), devices=2, mfu=0.3)
    # 128 sequences per GPU of 512 tokens, at most 32,768 tokens per pass: 2 passes of 64.
    assert "2 micro-batch(es) of 64 sequences on each of 2 process(es)" in out and "30% MFU" in out
    assert not (tmp_path / "x").exists()
