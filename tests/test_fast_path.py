"""The switches that make pre-training fast on a GPU change how a step is computed, never what:
each is held here, on CPU, to the plain computation (unpadding, bf16 autocast, fused AdamW, the
compiled encoder over static shapes, micro-batches sized in tokens, gradient checkpointing)."""

import pytest
import torch
from helpers import small_config

import minibert
from minibert.masking import MaskingCollator
from minibert.model import Padding, pad_input, unpad_input
from minibert.pretrain import pretrain, read_log, recipe
from minibert.pretrain.__main__ import parse
from minibert.training import accumulation_steps, build_optimizer

NO_DROPOUT = {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}


def settings(small, out, **overrides):
    return recipe("tiny", **{**small, "out_dir": str(out), **overrides})


def padded_batch(vocab_size=300, lengths=(16, 11, 3, 9), seed=0):
    """Four [CLS] A [SEP] B [SEP] rows of different lengths, padded to 16, with MLM and NSP labels."""
    g = torch.Generator().manual_seed(seed)
    B, T = len(lengths), max(lengths)
    ids = torch.randint(5, vocab_size, (B, T), generator=g)
    mask = (torch.arange(T) < torch.tensor(lengths)[:, None]).long()  # (B, T)
    ids = ids * mask
    types = (torch.arange(T) >= torch.tensor(lengths)[:, None] // 2).long() * mask
    labels = torch.where((torch.rand(B, T, generator=g) < 0.3) & mask.bool(), ids, -100)
    labels[:, 1] = ids[:, 1]  # every row predicts at least one token
    return dict(input_ids=ids, token_type_ids=types, attention_mask=mask, labels=labels,
                next_sentence_label=torch.tensor([0, 1, 0, 1])[:B])


def loss_and_grads(model, batch, **kwargs):
    model.zero_grad()
    out = model(**batch, **kwargs)
    out.loss.backward()
    return out, [p.grad.clone() for p in model.parameters()]


def test_unpad_and_pad_are_inverse_and_row_major():
    mask = torch.tensor([[1, 1, 0], [1, 0, 0], [1, 1, 1]])
    x = torch.arange(9.0).view(3, 3, 1)  # (B, T, 1): each position holds b·T + t
    real, indices = unpad_input(x, mask)
    assert real.flatten().tolist() == [0, 1, 3, 6, 7, 8] and indices.tolist() == [0, 1, 3, 6, 7, 8]
    back = pad_input(real, indices, 3, 3)
    assert torch.equal(back, x * mask[..., None])  # the real tokens where they were, zeros at [PAD]
    assert torch.equal(Padding.of(mask).indices, indices)


@pytest.mark.parametrize("is_decoder", [False, True])
@pytest.mark.parametrize("train", [False, True])
def test_unpadding_gives_the_padded_loss_and_gradients(is_decoder, train):
    """No FLOP on [PAD], and the same loss and gradients (dropout off, so that both draw nothing)."""
    torch.manual_seed(0)
    model = minibert.BertForPreTraining(small_config(vocab_size=300, is_decoder=is_decoder, **NO_DROPOUT))
    model.train(train)
    batch = padded_batch()
    (padded, g_padded), (unpadded, g_unpadded) = (loss_and_grads(model, batch, unpad=u) for u in (False, True))
    torch.testing.assert_close(unpadded.loss, padded.loss, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(unpadded.mlm_logits, padded.mlm_logits, rtol=1e-5, atol=1e-5)
    for a, b in zip(g_unpadded, g_padded, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)
    # What the caller sees: the same hidden states at real tokens, zeros at padding.
    with torch.no_grad():
        ours = model.bert(**{k: batch[k] for k in ("input_ids", "token_type_ids", "attention_mask")},
                          unpad=True, output_hidden_states=True)
        plain = model.bert(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"],
                           output_hidden_states=True)
    real = batch["attention_mask"].bool()
    for a, b in zip(ours.hidden_states, plain.hidden_states, strict=True):
        torch.testing.assert_close(a[real], b[real], rtol=1e-5, atol=1e-5)
        assert a[~real].abs().max() == 0
    torch.testing.assert_close(ours.pooler_output, plain.pooler_output, rtol=1e-5, atol=1e-5)


def test_unpadding_serves_every_head():
    """A fine-tuning head passes `unpad` on to the encoder, and gets the same logits."""
    torch.manual_seed(0)
    model = minibert.BertForTokenClassification(small_config(vocab_size=300, num_labels=3)).eval()
    batch = padded_batch()
    inputs = {k: batch[k] for k in ("input_ids", "token_type_ids", "attention_mask")}
    with torch.no_grad():
        a, b = model(**inputs).logits, model(**inputs, unpad=True).logits
    real = batch["attention_mask"].bool()
    torch.testing.assert_close(a[real], b[real], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("unpad", [False, True])
def test_gradient_checkpointing_gives_the_same_gradients_with_dropout_on(unpad):
    """Each layer's forward is redone in the backward pass with the random state it first had, so
    even dropout draws the same masks: the same loss and gradients, with less kept in memory."""
    model = minibert.BertForPreTraining(small_config(vocab_size=300)).train()
    batch = padded_batch()
    results = []
    for checkpointed in (False, True):
        model.bert.encoder.gradient_checkpointing = checkpointed
        torch.manual_seed(1)
        results.append(loss_and_grads(model, batch, unpad=unpad))
    (plain, g_plain), (redone, g_redone) = results
    torch.manual_seed(2)
    assert loss_and_grads(model, batch, unpad=unpad)[0].loss.item() != pytest.approx(plain.loss.item())  # dropout on
    torch.testing.assert_close(redone.loss, plain.loss)
    for a, b in zip(g_redone, g_plain, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-7)


def test_bf16_autocast_stays_close_to_float32():
    """bf16 keeps float32's range but 8 bits of mantissa: the loss moves in its third digit, not more.
    The MLM and NSP losses are computed in float32 under autocast (heads/pretraining.py)."""
    torch.manual_seed(0)
    model = minibert.BertForPreTraining(small_config(vocab_size=300, **NO_DROPOUT))
    batch = padded_batch()
    full, g_full = loss_and_grads(model, batch)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        half = model(**batch)
    assert half.mlm_logits.dtype == torch.bfloat16 and half.loss.dtype == torch.float32
    assert half.loss.item() == pytest.approx(full.loss.item(), rel=2e-2)


def test_fused_adamw_makes_the_same_update():
    torch.manual_seed(0)
    models = [minibert.BertForPreTraining(small_config(vocab_size=300, **NO_DROPOUT)) for _ in range(2)]
    models[1].load_state_dict(models[0].state_dict())
    batch = padded_batch()
    optims = [build_optimizer(m, lr=1e-3, warmup_steps=0, total_steps=10, fused=f)[0]
              for m, f in zip(models, (False, True), strict=True)]
    assert optims[1].defaults["fused"] and not optims[0].defaults["fused"]
    for _ in range(3):
        for model, optim in zip(models, optims, strict=True):
            loss_and_grads(model, batch)
            optim.step()
    for a, b in zip(models[0].parameters(), models[1].parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_the_micro_batch_is_sized_in_tokens():
    # (batch, length, processes, tokens) -> accumulation steps
    cases = [((256, 128, 1, 32_768), 1),  # phase 1 of BASE on one GPU: the whole batch in one pass
             ((256, 512, 1, 32_768), 4),  # phase 2: 64 sequences per pass, four passes
             ((256, 512, 8, 32_768), 1),  # phase 2 on 8 GPUs: 32 sequences each, in one pass
             ((96, 128, 1, 5_000), 3),  # 39 sequences fit: 3 passes of 32 (96 has no divisor in 34..39)
             ((7, 64, 1, 128), 7)]  # 2 fit, but 7 only splits into 7 passes of 1
    for args, steps in cases:
        assert accumulation_steps(*args) == steps, args
    with pytest.raises(ValueError, match="cannot hold one sequence of 512"):
        accumulation_steps(256, 512, 1, 500)
    with pytest.raises(ValueError, match="over 3 process"):
        accumulation_steps(256, 128, 3, 32_768)


def test_static_shapes_pad_every_batch_to_the_same_width():
    vocab = dict(pad_token_id=0, cls_token_id=1, sep_token_id=2, mask_token_id=3, vocab_size=50,
                 special_token_ids=[0, 1, 2, 3], static=True)
    rows = [dict(input_ids=torch.tensor([1, 7, 8, 2]), token_type_ids=torch.zeros(4, dtype=torch.long),
                 next_sentence_label=torch.tensor(0), index=i) for i in range(2)]
    free, fixed = MaskingCollator(**vocab)(rows), MaskingCollator(**vocab, pad_to=16)(rows)
    assert free["input_ids"].shape == (2, 4) and fixed["input_ids"].shape == (2, 16)
    for key in free:  # the rows and their masks are the same; only padding was added
        if free[key].ndim == 2:
            assert torch.equal(fixed[key][:, :4], free[key]) and (fixed[key][:, 4:] <= 0).all()
    with pytest.raises(ValueError, match="does not fit pad_to=3"):
        MaskingCollator(**vocab, pad_to=3)(rows)


def test_the_switches_are_flags_and_refuse_to_contradict_each_other():
    cfg, _ = parse(["--config", "base", "--fused-adamw", "true", "--unpad"])
    assert cfg.fused_adamw is True and cfg.unpad and cfg.micro_batch_tokens == 32_768
    cfg, _ = parse(["--config", "base", "--micro-batch-tokens", "none", "--grad-accum", "4"])
    assert cfg.micro_batch_tokens is None and cfg.grad_accum == 4
    with pytest.raises(minibert.ConfigError, match="give one of them"):
        recipe("base", grad_accum=4)
    with pytest.raises(minibert.ConfigError, match="cannot hold one sequence"):
        recipe("base-512", micro_batch_tokens=256)


def train_losses(small, out, **overrides):
    """The per-step training losses of a 4-step run without dropout (so that only the switch differs)."""
    cfg = settings(small, out, max_steps=4, warmup_steps=1, batch_size=8, max_seq_length=64, log_every=1,
                   eval_every=4, save_every=4, eval_batches=1, model_overrides=NO_DROPOUT, **overrides)
    pretrain(cfg)
    return [r["loss"] for r in read_log(cfg.out_dir, "train")], read_log(cfg.out_dir)[0]


def train_losses_in_bf16(small, out):
    """accelerate fixes a process's precision at its first Accelerator; a test may start afresh."""
    from accelerate.state import AcceleratorState

    AcceleratorState._reset_state()
    try:
        return train_losses(small, out, mixed_precision="bf16")
    finally:
        AcceleratorState._reset_state()


def test_every_switch_trains_the_same_run(small, tmp_path, report):
    plain, _ = train_losses(small, tmp_path / "plain")
    unpadded, _ = train_losses(small, tmp_path / "unpad", unpad=True)
    fused, _ = train_losses(small, tmp_path / "fused", fused_adamw=True)
    pieces, header = train_losses(small, tmp_path / "tokens", micro_batch_tokens=256)  # 4 sequences of 64
    by_hand, _ = train_losses(small, tmp_path / "accum", grad_accum=2)
    bf16, _ = train_losses_in_bf16(small, tmp_path / "bf16")
    redone, _ = train_losses(small, tmp_path / "checkpointed", gradient_checkpointing=True)
    assert header["grad_accum"] == 2 and header["micro_batch"] == 4
    assert pieces == by_hand  # the same computation, step for step, to the bit
    assert unpadded == pytest.approx(plain, rel=1e-5) and fused == pytest.approx(plain, rel=1e-5)
    assert redone == pytest.approx(plain, rel=1e-6)
    assert pieces == pytest.approx(plain, rel=1e-3)  # a mean of two means: rounding only
    assert bf16 == pytest.approx(plain, rel=2e-2)
    report(f"fast path, 4 steps: plain {plain[-1]:.5f}, unpad {unpadded[-1]:.5f}, fused AdamW {fused[-1]:.5f}, "
           f"micro-batch in tokens {pieces[-1]:.5f}, bf16 {bf16[-1]:.5f}")


def test_the_compiled_encoder_trains_the_same_run(small, tmp_path):
    """torch.compile over static shapes (every batch max_seq_length wide): the same losses, and
    weights saved under their plain names."""
    plain, _ = train_losses(small, tmp_path / "plain")
    torch._dynamo.reset()
    compiled, _ = train_losses(small, tmp_path / "compiled", compile=True)
    assert compiled == pytest.approx(plain, rel=1e-4)
    minibert.BertForPreTraining.from_pretrained(tmp_path / "compiled/final", strict=True)


def test_the_speed_benchmark_runs_on_cpu(tmp_path):
    """benchmarks/pretrain_speed.py at its smallest: every row it prints is a measured step."""
    import json
    import subprocess
    import sys

    out = tmp_path / "speed.json"
    subprocess.run([sys.executable, "benchmarks/pretrain_speed.py", "--preset", "tiny", "--batch-size", "4",
                    "--seq-len", "64", "--steps", "2", "--warmup", "1", "--batches", "2", "--threads", "1",
                    "--rows", "plain", "unpad", "fused AdamW", "transformers", "--json", str(out)],
                   check=True, capture_output=True, text=True)
    results = json.loads(out.read_text())
    assert list(results["rows"]) == ["plain", "unpad", "fused AdamW", "transformers"]
    assert all(r["tokens_per_s"] > 0 and r["mfu"] is None for r in results["rows"].values())  # no peak on CPU
    assert results["rows"]["plain"]["ratio"] == 1.0 and 0 < results["real_tokens"] <= results["positions"] == 256
