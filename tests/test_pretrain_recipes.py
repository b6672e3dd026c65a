"""The pre-training recipes, optimiser, schedule, FLOP count and command line, without training."""

import json
from pathlib import Path

import pytest
import torch
from helpers import random_batch, small_config
from torch.utils.flop_counter import FlopCounterMode

import minibert
from minibert.pretrain import (
    RECIPES,
    bert_schedule,
    flops_per_token,
    peak_tflops,
    recipe,
)
from minibert.pretrain.__main__ import parse
from minibert.training import parameter_groups


def test_every_preset_builds_and_base_and_large_follow_the_paper():
    for name in RECIPES:
        cfg = recipe(name)
        assert cfg.model_config(30522).vocab_size == 30522
    for size, params in (("base", 109_482_240), ("large", 335_141_888)):
        one, two = recipe(size), recipe(f"{size}-512")
        # Devlin et al. A.2: batch 256, 1M steps, lr 1e-4, 10k warm-up; 90% of steps at 128 tokens.
        assert (one.batch_size, one.lr, one.warmup_steps) == (256, 1e-4, 10_000)
        assert (one.adam_betas, one.weight_decay) == ((0.9, 0.999), 0.01)
        assert one.max_steps + two.max_steps == 1_000_000 and one.max_steps == 900_000
        assert (one.max_seq_length, two.max_seq_length, one.max_predictions, two.max_predictions) == (128, 512, 20, 80)
        assert two.init_from == f"{one.out_dir}/final" and one.vocab == "bert-uncased"
        with torch.device("meta"):
            model = minibert.BertModel(one.model_config(30522))
        assert sum(p.numel() for p in model.parameters()) == params


def test_the_course_model_is_two_phases_and_no_preset_writes_outside_runs():
    one, two = recipe("course"), recipe("course-128")
    assert two.init_from == f"{one.out_dir}/final" and one.model == two.model == "tiny"
    assert (one.max_seq_length, two.max_seq_length) == (32, 128) and not (one.nsp or two.nsp)
    assert one.model_config(8192).hidden_dropout_prob == two.model_config(8192).attention_probs_dropout_prob == 0.0
    for name in RECIPES:  # the shipped model is replaced only by an explicit --export-to
        assert recipe(name).export_to is None and recipe(name).out_dir.startswith("runs/"), name


def test_unknown_names_fields_and_values_are_clear_errors():
    with pytest.raises(minibert.ConfigError, match=r"unknown config 'tinny' \(did you mean 'tiny'\?\)"):
        recipe("tinny")
    with pytest.raises(minibert.ConfigError, match=r"'max_step' \(did you mean 'max_steps'\?\)"):
        recipe("tiny", max_step=10)
    with pytest.raises(minibert.ConfigError, match=r"masking must be one of dynamic, static \(got 'sometimes'\)"):
        recipe("tiny", masking="sometimes")
    with pytest.raises(minibert.ConfigError, match="not divisible by grad_accum=3"):
        recipe("tiny", batch_size=32, grad_accum=3)
    with pytest.raises(minibert.ConfigError, match="unknown config field.*hiden_size"):
        recipe("tiny", model_overrides={"hiden_size": 64}).model_config(100)
    with pytest.raises(minibert.ConfigError, match="exceeds the model's max_position_embeddings=128"):
        recipe("tiny", max_seq_length=256, model_overrides={"max_position_embeddings": 128}).model_config(100)


def test_the_command_line_sets_every_field_and_names_typos(capsys):
    cfg, args = parse(["--config", "mini", "--max-steps", "7", "--no-nsp", "--init-from", "none",
                         "--model.num_hidden_layers", "3", "--adam-betas", "0.9", "0.98", "--resume", "auto"])
    assert (cfg.model, cfg.max_steps, cfg.nsp, cfg.init_from, args.resume) == ("mini", 7, False, None, "auto")
    assert cfg.adam_betas == (0.9, 0.98)
    assert cfg.model_config(100).num_hidden_layers == 3 and cfg.lr == RECIPES["mini"]["lr"]
    with pytest.raises(SystemExit):
        parse(["--max-stpes", "5"])
    assert "--max-stpes (did you mean --max-steps?)" in capsys.readouterr().err


def test_the_schedule_is_googles_warmup_then_linear_decay():
    # optimization.py: lr·step/warmup during warm-up, then polynomial_decay(power=1) from step 0.
    assert [bert_schedule(s, 10, 100) for s in (0, 5, 9)] == [0.0, 0.5, 0.9]
    assert [bert_schedule(s, 10, 100) for s in (10, 50, 100)] == pytest.approx([0.9, 0.5, 0.0])
    cfg = recipe("tiny", max_steps=100, warmup_steps=10, lr=1e-3)
    model = minibert.BertForPreTraining(small_config())
    from minibert.training import build_optimizer
    optimizer, scheduler = build_optimizer(model, lr=cfg.lr, warmup_steps=cfg.warmup_steps, total_steps=cfg.max_steps)
    lrs = []
    for _ in range(100):
        lrs.append(scheduler.get_last_lr()[0])
        optimizer.step()
        scheduler.step()
    assert lrs[5] == pytest.approx(5e-4) and lrs[50] == pytest.approx(5e-4) and lrs[99] == pytest.approx(1e-5)


def test_no_weight_decay_on_layer_norms_and_biases():
    model = minibert.BertForPreTraining(small_config())
    decay, no_decay = parameter_groups(model, 0.01)
    names = {id(p): n for n, p in model.named_parameters()}
    skipped = sorted(names[id(p)] for p in no_decay["params"])
    assert skipped and all(n.endswith(".bias") or "norm" in n for n in skipped)
    assert all(not (names[id(p)].endswith(".bias") or "norm" in names[id(p)]) for p in decay["params"])
    assert len(skipped) + len(decay["params"]) == len(names) and no_decay["weight_decay"] == 0.0


def test_flops_per_token_equals_torchs_flop_counter(report):
    """The closed form against torch's own count of every matmul in a forward and backward."""
    config = small_config(hidden_act="gelu")
    model = minibert.BertForPreTraining(config)
    batch = random_batch(config, B=4, T=32, seed=3)
    batch["attention_mask"].fill_(1)  # FLOPs are counted over every position, padded or not
    predicted = int((batch["labels"] != -100).sum())
    with FlopCounterMode(display=False) as counter:
        model(**batch).loss.backward()
    tokens = batch["input_ids"].numel()
    ours = flops_per_token(config, 32, predicted / tokens) * tokens
    # The remainder: the NSP head (2·2H per sequence, x3), which the formula leaves out.
    assert ours == pytest.approx(counter.get_total_flops(), rel=0.01)
    report(f"pretrain: FLOPs/token formula vs torch FlopCounterMode: {ours:,.0f} vs {counter.get_total_flops():,}")


def test_peak_table_knows_the_usual_gpus():
    assert peak_tflops("NVIDIA H100 80GB HBM3") == 989.4 and peak_tflops("NVIDIA H100 PCIe") == 756.0
    assert peak_tflops("NVIDIA A100-SXM4-40GB") == 312.0 and peak_tflops("NVIDIA L4") == 121.0
    assert peak_tflops("Quadro P1000") is None
    base = minibert.BertConfig.from_preset("base")
    # 6N rule of thumb (N = non-embedding parameters, ~85M for BASE) plus attention and the MLM head
    assert 6 * 85e6 < flops_per_token(base, 128, 0.15) < 6 * 85e6 * 1.2


def test_the_command_line_refuses_an_unknown_preset(capsys):
    from minibert.pretrain.__main__ import main
    with pytest.raises(SystemExit, match=r"unknown config 'bse' \(did you mean 'base'\?\); the presets are tiny"):
        main(["--config", "bse"])


def test_a_corpus_that_is_not_utf8_is_named_with_its_line_and_byte(tmp_path):
    from minibert.pretrain.__main__ import main
    corpus = tmp_path / "corpus.txt"
    # 17 + 16 + 1 bytes of lines 1-3, then 23 of line 4 before the Latin-1 é: byte offset 57.
    corpus.write_bytes(b"Call me Ishmael.\nSome years ago.\n\nNever mind how long caf\xe9 precisely.\n")
    with pytest.raises(SystemExit, match=r"^error: .*corpus.txt is not UTF-8 text: line 4, byte offset 57.*iconv"):
        main(["--train-corpus", str(corpus), "--out-dir", str(tmp_path / "run"), "--cache-dir", str(tmp_path / "c")])
    assert not (tmp_path / "run").exists()  # refused before anything was written


def test_the_accelerate_configs_load_in_accelerate():
    from accelerate.commands.config.config_args import load_config_from_file

    kinds = {p.stem: load_config_from_file(str(p)).distributed_type.value
             for p in sorted(Path("configs/accelerate").glob("*.yaml"))}
    assert kinds == {"deepspeed_lamb": "DEEPSPEED", "multi_gpu": "MULTI_GPU", "multi_node": "MULTI_GPU",
                     "one_gpu": "NO", "tpu": "XLA"}
    lamb = json.loads(Path("configs/deepspeed/lamb.json").read_text())
    assert lamb["optimizer"]["type"] == "Lamb" and lamb["gradient_clipping"] == 1.0
