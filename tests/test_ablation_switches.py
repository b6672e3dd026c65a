"""The settings the paper's ablations need (§5): left-to-right attention (Table 5), the masking mix
(Table 8), a BiLSTM on top (Table 5) and the feature-based tagger (Table 7). Each is checked
against an independent fact: transformers' own causal BERT, the future not leaking, the mix
reaching the collator, padding not changing a BiLSTM."""

import json

import pytest
import torch

from helpers import random_batch, small_config
from minibert import BertConfig, BertModel
from minibert.checkpoint import to_hf_state_dict
from minibert.config import ConfigError
from minibert.heads import COMBINATIONS, BertForSequenceClassification, BertWithBiLSTM, FeatureTagger, chosen_layers
from minibert.checkpoint import CheckpointError
from minibert.pretrain import PretrainConfig, recipe
from minibert.pretrain.loop import MUST_MATCH, SETTINGS_FILE
from minibert.training.resume import check_compatible
from minibert.pretrain.data import collator


def causal_model(seed=0, **overrides):
    torch.manual_seed(seed)
    return BertModel(small_config(is_decoder=True, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                                  **overrides)).eval()


def test_left_to_right_attention_never_sees_the_future():
    model = causal_model()
    batch = random_batch(model.config, B=2, T=10)
    batch = {k: batch[k] for k in ("input_ids", "token_type_ids", "attention_mask")}
    changed = {**batch, "input_ids": batch["input_ids"].clone()}
    changed["input_ids"][:, 6:] = 7  # rewrite everything from position 6 on
    with torch.no_grad():
        a, b = model(**batch).last_hidden_state, model(**changed).last_hidden_state
    assert torch.equal(a[:, :6], b[:, :6])  # positions 0..5 cannot tell
    assert not torch.allclose(a[0, 6:], b[0, 6:])
    # and a bidirectional model can: the change reaches position 0
    torch.manual_seed(0)
    both_ways = BertModel(small_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)).eval()
    with torch.no_grad():
        assert not torch.allclose(both_ways(**batch).last_hidden_state[:, 0], both_ways(**changed).last_hidden_state[:, 0])


def test_left_to_right_paths_agree_and_the_probabilities_are_lower_triangular():
    model = causal_model()
    batch = random_batch(model.config, B=3, T=12)
    batch = {k: batch[k] for k in ("input_ids", "token_type_ids", "attention_mask")}
    with torch.no_grad():
        fast = model(**batch)
        slow = model(**batch, output_attentions=True)
    torch.testing.assert_close(fast.last_hidden_state, slow.last_hidden_state, atol=1e-5, rtol=1e-5)
    probs = slow.attentions[0]  # (B, nh, T, T)
    assert torch.all(probs.triu(diagonal=1) == 0)
    lengths = batch["attention_mask"].sum(1)
    for b, n in enumerate(lengths.tolist()):
        assert torch.all(probs[b, :, :, n:] == 0)  # nor padding


def test_left_to_right_equals_transformers_causal_bert():
    """transformers' BertModel with is_decoder=True applies the same causal mask: equal hidden
    states. Only the pooler differs, by design: ours reads the last real token (see model.Pooler)."""
    transformers = pytest.importorskip("transformers")
    model = causal_model()
    hf = transformers.BertModel(transformers.BertConfig(**model.config.to_dict()), add_pooling_layer=True).eval()
    hf.load_state_dict(to_hf_state_dict(model), strict=False)
    batch = random_batch(model.config, B=3, T=12)
    batch = {k: batch[k] for k in ("input_ids", "token_type_ids", "attention_mask")}
    with torch.no_grad():
        ours, theirs = model(**batch), hf(**batch)
    real = batch["attention_mask"].bool()
    torch.testing.assert_close(ours.last_hidden_state[real], theirs.last_hidden_state[real], atol=1e-5, rtol=1e-4)
    last = real.sum(1) - 1
    h = ours.last_hidden_state[torch.arange(3), last]
    torch.testing.assert_close(ours.pooler_output, torch.tanh(model.pooler.dense(h)))


def test_a_causal_config_round_trips_and_refuses_nothing_else():
    config = small_config(is_decoder=True)
    assert BertConfig.from_dict(config.to_dict()).is_decoder is True
    with pytest.raises(ConfigError, match="add_cross_attention=True is not plain BERT"):
        BertConfig.from_dict({**config.to_dict(), "add_cross_attention": True})


def test_the_pretraining_switches_are_checked_and_reach_the_model_and_the_collator():
    cfg = recipe("tiny", objective="ltr", nsp=False)
    assert cfg.model_config(500).is_decoder and not recipe("tiny").model_config(500).is_decoder
    with pytest.raises(ConfigError, match="objective='ltr' needs nsp=False"):
        recipe("tiny", objective="ltr")
    with pytest.raises(ConfigError, match="mask_proportions"):
        recipe("tiny", mask_proportions=(0.8, 0.1, 0.2))
    with pytest.raises(ConfigError, match="objective"):
        recipe("tiny", objective="rtl", nsp=False)
    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(95)])}
    rows = [{"input_ids": torch.tensor([2] + list(range(5, 45)) + [3]), "token_type_ids": torch.zeros(42, dtype=torch.long),
             "next_sentence_label": torch.tensor(0), "index": 0}]
    for mix in [(1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 1.0, 0.0)]:
        batch = collator(recipe("tiny", mask_proportions=mix), vocab, seed=0, static=True)(rows)
        chosen = batch["labels"] != -100
        assert chosen.sum() == 6  # 15% of the 40 maskable tokens
        got, original = batch["input_ids"][chosen], rows[0]["input_ids"][chosen[0]]
        masked, kept = int((got == 4).sum()), int((got == original).sum())
        # a random token may happen to be the original one (1 chance in 95 here), never [MASK]
        assert (masked, kept) == (6, 0) if mix[0] else (0, 6) if mix[2] else (masked == 0 and kept <= 1), (mix, masked, kept)
    ltr = collator(recipe("tiny", objective="ltr", nsp=False), vocab, seed=0, static=True)(rows)
    assert torch.equal(ltr["input_ids"], rows[0]["input_ids"][None])  # nothing is masked
    assert torch.equal(ltr["labels"][0, :-1], rows[0]["input_ids"][1:]) and ltr["labels"][0, -1] == -100


def test_a_checkpoint_made_before_the_switches_existed_still_resumes(tmp_path):
    """Its settings file does not name objective or mask_proportions: it ran with their defaults."""
    old = json.loads(recipe("tiny").to_json())
    del old["objective"], old["mask_proportions"]
    (tmp_path / SETTINGS_FILE).write_text(json.dumps(old))
    defaults = json.loads(PretrainConfig().to_json())
    check_compatible(tmp_path, recipe("tiny").to_json(), SETTINGS_FILE, MUST_MATCH, defaults=defaults)
    with pytest.raises(CheckpointError, match=r"mask_proportions: checkpoint \[0.8, 0.1, 0.1\], now \[1.0, 0.0, 0.0\]"):
        check_compatible(tmp_path, recipe("tiny", mask_proportions=(1, 0, 0)).to_json(), SETTINGS_FILE, MUST_MATCH,
                         defaults=defaults)


def test_a_bilstm_on_top_keeps_the_encoder_and_ignores_padding():
    torch.manual_seed(0)
    head = BertForSequenceClassification(small_config(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)).eval()
    before = {k: v.clone() for k, v in head.bert.state_dict().items()}
    head.bert = BertWithBiLSTM.on(head.bert)
    after = head.bert.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before) and any(k.startswith("bilstm.") for k in after)
    batch = random_batch(head.config, B=3, T=12)
    with torch.no_grad():
        together = head(batch["input_ids"], batch["token_type_ids"], batch["attention_mask"]).logits
        for b, n in enumerate(batch["attention_mask"].sum(1).tolist()):
            alone = head(batch["input_ids"][b:b + 1, :n], batch["token_type_ids"][b:b + 1, :n]).logits
            torch.testing.assert_close(together[b:b + 1], alone, atol=1e-5, rtol=1e-4)
    loss = head(**{k: batch[k] for k in ("input_ids", "token_type_ids", "attention_mask")},
                labels=torch.tensor([0, 1, 0])).loss
    loss.backward()
    # [CLS]'s vector: the forward LSTM's first step (no recurrence yet), the backward one's last
    assert head.bert.bilstm.lstm.weight_hh_l0_reverse.grad.abs().sum() > 0


@pytest.mark.parametrize("combination", list(COMBINATIONS))
def test_the_feature_tagger_joins_the_chosen_states_and_learns_a_batch(combination):
    torch.manual_seed(0)
    L, H = 4, 6
    layers = chosen_layers(combination, L)
    assert layers == {"embeddings": [0], "second-to-last": [3], "last": [4], "weighted-sum-last-four": [1, 2, 3, 4],
                      "concat-last-four": [1, 2, 3, 4], "weighted-sum-all": [0, 1, 2, 3, 4]}[combination]
    states = torch.randn(4, 9, len(layers), H)  # (B, T, n, H)
    mask = torch.tensor([[1] * 9, [1] * 7 + [0] * 2, [1] * 5 + [0] * 4, [1] * 9])
    labels = torch.randint(0, 3, (4, 9)).masked_fill(mask == 0, -100)
    tagger = FeatureTagger(H, len(layers), COMBINATIONS[combination][1], hidden=16, num_labels=3)
    assert tagger(states, mask).shape == (4, 9, 3)
    if combination == "weighted-sum-all":  # equal weights at the start: the mean of the states
        torch.testing.assert_close(tagger.scale * (states * tagger.mix.softmax(0)[:, None]).sum(2), states.mean(2))
    optimizer = torch.optim.Adam(tagger.parameters(), lr=1e-2)
    for _ in range(150):
        loss = torch.nn.functional.cross_entropy(tagger(states, mask).reshape(-1, 3), labels.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss < 0.05
    with pytest.raises(ValueError, match="combination='top'"):
        chosen_layers("top", L)
