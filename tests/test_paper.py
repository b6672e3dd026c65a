"""minibert.paper: the paper's numbers agree with each other, with the paper's own prose, and with
minibert's models. Each check below is a fact the paper states or implies, not the value retyped."""

import statistics
import subprocess
import sys

import pytest
import torch

import minibert
from minibert import paper as ref

# Two numbers printed to one decimal each: their difference can be off by up to 0.1 from the exact one.
ROUNDING = 0.05 + 1e-9
GLUE_COLUMNS = ("mnli_m", "mnli_mm", "qqp", "qnli", "sst_2", "cola", "sts_b", "mrpc", "rte")


def row(table, **match):
    [found] = [r for r in table if all(r[k] == v for k, v in match.items())]
    return found


# --- Table 1 -----------------------------------------------------------------------------------

def test_glue_average_is_the_mean_of_all_nine_columns():
    """"Average" excludes WNLI and counts MNLI-m and MNLI-mm as two columns. Four rows match the mean of
    their printed scores to the rounding of the average itself; BiLSTM+ELMo+Attn prints 71.0 for a mean of
    70.94, which the rounding of its nine inputs (each +-0.05) allows but does not produce by itself."""
    off = {}
    for r in ref.TABLE_1:
        mean = statistics.fmean(r[c] for c in GLUE_COLUMNS)
        assert abs(mean - r["average"]) <= 0.1, r["system"]  # within the rounding of the inputs
        off[r["system"]] = round(abs(mean - r["average"]), 3)
    assert [s for s, d in off.items() if d > ROUNDING] == ["BiLSTM+ELMo+Attn"], off


def test_glue_average_is_not_the_eight_task_mean():
    """The other plausible rule (MNLI-m only, eight tasks) misses BERT-BASE's printed 79.6 by 0.5."""
    base = row(ref.TABLE_1, system="BERT-BASE")
    eight = statistics.fmean(base[c] for c in GLUE_COLUMNS if c != "mnli_mm")
    assert abs(eight - base["average"]) > 0.4


def test_table_1_agrees_with_the_prose_of_section_4_1_and_the_abstract():
    """§4.1: BASE and LARGE gain "4.5% and 7.0%" average accuracy over the prior state of the art (OpenAI
    GPT); "for ... MNLI, BERT obtains a 4.6% absolute accuracy improvement"; abstract: "MultiNLI accuracy to
    86.7%"."""
    gpt, base, large = (row(ref.TABLE_1, system=s) for s in ("OpenAI GPT", "BERT-BASE", "BERT-LARGE"))
    assert round(base["average"] - gpt["average"], 1) == 4.5
    assert round(large["average"] - gpt["average"], 1) == 7.0
    assert round(large["mnli_m"] - gpt["mnli_m"], 1) == 4.6
    assert large["mnli_m"] == 86.7
    assert all(large[c] == max(r[c] for r in ref.TABLE_1) for c in (*GLUE_COLUMNS, "average"))  # bold in the paper


# --- Tables 5 and 6 ----------------------------------------------------------------------------

def test_table_6_holds_bert_base_and_bert_large():
    sizes = ("num_hidden_layers", "hidden_size", "num_attention_heads")
    for preset in (ref.BERT_BASE, ref.BERT_LARGE):
        assert row(ref.TABLE_6, **{k: preset[k] for k in sizes})
        assert preset["intermediate_size"] == 4 * preset["hidden_size"]  # footnote 3
        assert preset["hidden_size"] // preset["num_attention_heads"] == 64


def test_table_6_bigger_is_strictly_better():
    """§5.2: "larger models lead to a strict accuracy improvement across all four datasets" (the rows are
    listed from smallest to largest), and the held-out MLM perplexity falls."""
    for column in ("mnli_m", "mrpc", "sst_2"):
        values = [r[column] for r in ref.TABLE_6]
        assert values == sorted(values) and len(set(values)) == len(values), column
    ppl = [r["lm_ppl"] for r in ref.TABLE_6]
    assert ppl == sorted(ppl, reverse=True)


def test_table_5_bert_base_row_against_table_6():
    """The paper does not say that Table 5's BERT-BASE and Table 6's (12, 768, 12) row are the same runs. They
    agree on MNLI-m and MRPC but not on SST-2 (92.7 in Table 5, 92.9 in Table 6)."""
    t5 = row(ref.TABLE_5, system="BERT-BASE")
    t6 = row(ref.TABLE_6, num_hidden_layers=12, hidden_size=768, num_attention_heads=12)
    assert (t5["mnli_m"], t5["mrpc"]) == (t6["mnli_m"], t6["mrpc"]) == (84.4, 86.7)
    assert (t5["sst_2"], t6["sst_2"]) == (92.7, 92.9)


def test_table_5_agrees_with_the_prose_of_section_5_1():
    """"Removing NSP hurts performance significantly on QNLI, MNLI, and SQuAD 1.1"; "the LTR model performs
    worse than the MLM model on all tasks, with large drops on MRPC and SQuAD"; the BiLSTM "does
    significantly improve results on SQuAD" but "hurts performance on the GLUE tasks"."""
    base, no_nsp, ltr, bilstm = ref.TABLE_5
    assert all(no_nsp[c] < base[c] for c in ("qnli", "mnli_m", "squad_f1"))
    assert all(ltr[c] < no_nsp[c] for c in ("mnli_m", "qnli", "mrpc", "sst_2", "squad_f1"))
    drops = {c: no_nsp[c] - ltr[c] for c in ("mnli_m", "qnli", "mrpc", "sst_2", "squad_f1")}
    assert sorted(drops, key=drops.get)[-2:] == ["mrpc", "squad_f1"]
    assert bilstm["squad_f1"] > ltr["squad_f1"] and all(bilstm[c] <= ltr[c] for c in ("mnli_m", "qnli", "mrpc"))


# --- Tables 7 and 8 ----------------------------------------------------------------------------

def test_table_7_best_feature_based_is_0_3_behind_fine_tuning():
    """§5.3: concatenating the top four hidden layers "is only 0.3 F1 behind fine-tuning the entire model"."""
    features = [r for r in ref.TABLE_7 if r["approach"] == "feature-based"]
    best = max(features, key=lambda r: r["dev_f1"])
    assert best["system"] == "Concat Last Four Hidden" and len(features) == 6
    assert round(row(ref.TABLE_7, system="BERT-BASE")["dev_f1"] - best["dev_f1"], 1) == 0.3
    assert all(r["test_f1"] is None for r in features)


def test_table_8_first_row_is_berts_masking():
    first = ref.TABLE_8[0]
    assert (first["mask"], first["same"], first["random"]) == (ref.MASKING["mask"], ref.MASKING["keep"],
                                                               ref.MASKING["random"])
    assert all(abs(r["mask"] + r["same"] + r["random"] - 1) < 1e-9 for r in ref.TABLE_8)
    assert ref.MASKING["mask"] + ref.MASKING["random"] + ref.MASKING["keep"] == pytest.approx(1)
    # Appendix A.1: "random replacement only occurs for 1.5% of all tokens (i.e., 10% of 15%)"
    assert ref.MASKING["random"] * ref.MASKING["mlm_probability"] == pytest.approx(0.015)


def test_table_8_mask_only_hurts_the_feature_based_approach_most():
    """Appendix C.2: "using only the MASK strategy was problematic when applying the feature-based approach"."""
    mask_only = row(ref.TABLE_8, mask=1.0)
    assert mask_only["ner_feature_based"] == min(r["ner_feature_based"] for r in ref.TABLE_8)


# --- the recipe --------------------------------------------------------------------------------

def test_tokens_per_batch_is_256_times_512_written_as_128_000():
    """A.2: "256 sequences * 512 tokens = 128,000 tokens/batch". The product is 131,072 = 128 x 1024: the
    paper's "128,000" is 128K in binary thousands."""
    p = ref.PRETRAINING
    assert p["batch_size"] * p["max_seq_length"] == 131_072 == p["tokens_per_batch"] // 1000 * 1024


def test_forty_epochs_over_3_3_billion_words():
    p = ref.PRETRAINING
    assert ref.CORPUS["bookscorpus_words"] + ref.CORPUS["wikipedia_words"] == p["corpus_words"]
    epochs = p["tokens_per_batch"] * p["steps"] / p["corpus_words"]  # the paper's words per batch, as in C.1
    assert abs(epochs - p["epochs"]) / p["epochs"] < 0.05  # 38.8, "approximately 40"
    assert p["steps_at_128_fraction"] + p["steps_at_512_fraction"] == pytest.approx(1)
    assert p["base_tpu_chips"] == 4 * p["base_cloud_tpus"] and p["large_tpu_chips"] == 4 * p["large_cloud_tpus"]


def test_google_recipe_follows_the_paper_and_its_own_readme():
    g, p = ref.GOOGLE_RECIPE, ref.PRETRAINING
    assert g["masked_lm_prob"] == ref.MASKING["mlm_probability"]
    # README: set max_predictions_per_seq "to around max_seq_length * masked_lm_prob"
    for length in (128, 512):
        assert abs(g[f"max_predictions_per_seq_{length}"] / (length * g["masked_lm_prob"]) - 1) < 0.05
    # README's "good recipe" splits its steps 90/10 between 128 and 512 tokens, as the paper (A.2) does
    total = g["phase1_steps"] + g["phase2_steps"]
    assert (g["phase1_steps"] / total, g["phase2_steps"] / total) == (p["steps_at_128_fraction"],
                                                                     p["steps_at_512_fraction"])
    assert g["vocab_size"] == minibert.BertConfig().vocab_size


def test_vocab_size_is_the_length_of_berts_vocab_file(minilm_dir):
    """all-MiniLM-L6-v2 ships bert-base-uncased's vocab.txt: one WordPiece a line."""
    with open(minilm_dir / "vocab.txt", encoding="utf-8") as f:
        assert sum(1 for _ in f) == ref.GOOGLE_RECIPE["vocab_size"]


def test_finetuning_ranges():
    f = ref.FINETUNING
    assert f["dropout"] == ref.PRETRAINING["dropout"]  # A.3: "The dropout probability was always kept at 0.1"
    assert f["glue_batch_size"] in f["batch_sizes"] and f["glue_epochs"] in f["epochs"]
    assert set(f["learning_rates"]) < set(f["glue_learning_rates"])  # §4.1 also tried 4e-5
    assert 0 < ref.NSP_ACCURACY[0] < ref.NSP_ACCURACY[1] < 1


# --- parameter counts --------------------------------------------------------------------------

def closed_form(L, H, V=30522, P=512, T=2):
    """Embeddings (word, position, type, LayerNorm) + L layers (Q, K, V, O, two LayerNorms, 4H feed-forward)
    + pooler."""
    return (V + P + T + 2) * H + L * (12 * H * H + 13 * H) + H * H + H


@pytest.mark.parametrize("name, preset, paper_tolerance", [
    ("base", ref.BERT_BASE, 0.01), ("large", ref.BERT_LARGE, 0.02)])
def test_parameter_counts(name, preset, paper_tolerance):
    """The exact counts: measured on a model built on the meta device (no memory), equal to the closed form,
    and within rounding of the paper's 110M / 340M (BASE is 0.47% below 110M, LARGE 1.43% below 340M)."""
    config = minibert.BertConfig(**{k: v for k, v in preset.items() if k != "parameters"})
    assert config == minibert.BertConfig.from_preset(name)
    with torch.device("meta"):
        measured = sum(p.numel() for p in minibert.BertModel(config).parameters())
    assert measured == ref.PARAMETER_COUNTS[name] == closed_form(preset["num_hidden_layers"], preset["hidden_size"])
    relative = measured / preset["parameters"] - 1
    assert abs(relative) < paper_tolerance
    assert round(measured, -7) == preset["parameters"]  # the paper rounds to tens of millions


# --- the module's contract ---------------------------------------------------------------------

def test_every_public_constant_has_a_source():
    public = {name for name, value in vars(ref).items()
              if name.isupper() and not name.startswith("_") and isinstance(value, (dict, list, tuple))}
    public.discard("SOURCES")
    assert public == set(ref.SOURCES)
    assert all(ref.source(name) == ref.SOURCES[name] for name in public)
    assert "arXiv:1810.04805" in ref.PAPER and "google-research/bert" in ref.RECIPE


def test_unknown_source_is_a_clear_error():
    with pytest.raises(KeyError, match=r"'TABEL_8' \(did you mean 'TABLE_8'\?\).*known: .*MASKING"):
        ref.source("TABEL_8")
    with pytest.raises(KeyError, match=r"'nope'; known: BERT_BASE, "):
        ref.source("nope")


def test_table_as_dataframe():
    pytest.importorskip("pandas")
    df = ref.table(8)
    assert df.attrs["source"] == ref.source("TABLE_8") == "Devlin et al. (2019), Appendix C.2, Table 8 (Dev set)"
    assert list(df.columns) == list(ref.TABLE_8[0]) and len(df) == 6
    assert df.loc[0, "mnli_fine_tune"] == 84.2
    df.loc[0, "mnli_fine_tune"] = 0.0  # a copy: the constants stay as printed
    assert ref.TABLE_8[0]["mnli_fine_tune"] == 84.2
    assert ref.table(7)["test_f1"].isna().sum() == 6  # "-" is missing


def test_unknown_table_is_a_clear_error():
    with pytest.raises(ValueError, match=r"Table 2 is not transcribed here; tables: 1, 5, 6, 7, 8"):
        ref.table(2)


def test_pandas_is_not_imported_with_the_module():
    code = "import sys, minibert.paper; sys.exit('pandas' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
