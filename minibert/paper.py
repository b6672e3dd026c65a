"""The numbers of the BERT paper and of Google's release, each with where it comes from.

The course compares what it builds with what Devlin et al. report: the sizes of BERT-BASE and
BERT-LARGE, the masking rule, the pre-training recipe, and the result tables. Notebooks and tests
import them from here rather than retyping them, so a number is typed once, next to its source:

    from minibert import paper
    paper.MASKING["mask"]            # 0.8
    paper.source("MASKING")          # 'Devlin et al. (2019), §3.1 Task #1 ...'
    paper.table(8)                   # Table 8 as a pandas DataFrame (pandas is an optional extra)

Sections, tables and footnotes are numbered as in the NAACL version (arXiv v2). Table values are
as printed: percentages as floats (84.2), "-" as None. Every value was compared digit by digit
with two independent copies of the paper (arXiv's HTML rendering of v2, and a conversion of its
LaTeX source); the one value that neither the paper nor Google states is marked "unverified".
"""

from __future__ import annotations

from .config import did_you_mean

PAPER = ("Devlin, J., Chang, M.-W., Lee, K., & Toutanova, K. (2019). BERT: Pre-training of Deep Bidirectional "
         "Transformers for Language Understanding. In Proceedings of NAACL-HLT 2019, pp. 4171-4186. "
         "arXiv:1810.04805 (v2, 24 May 2019).")
RECIPE = ("Google Research (2018). BERT: TensorFlow code and pre-trained models. "
          "https://github.com/google-research/bert (README.md, create_pretraining_data.py, run_pretraining.py, "
          "optimization.py).")

# --- the two model sizes: §3 "Model Architecture"; feed-forward size 4H: footnote 3
BERT_BASE = dict(num_hidden_layers=12, hidden_size=768, num_attention_heads=12, intermediate_size=3072,
                 parameters=110_000_000)
BERT_LARGE = dict(num_hidden_layers=24, hidden_size=1024, num_attention_heads=16, intermediate_size=4096,
                  parameters=340_000_000)

# The exact counts of the encoder with its pooler (word embeddings of 30,522 included), which the
# paper rounds to 110M and 340M. Measured, not quoted: tests/test_model.py and tests/test_paper.py.
PARAMETER_COUNTS = dict(base=109_482_240, large=335_141_888)

# --- masked LM: §3.1 Task #1 ("we mask 15% of all WordPiece tokens ... (1) the [MASK] token 80% of
# the time (2) a random token 10% of the time (3) the unchanged i-th token 10% of the time")
MASKING = dict(mlm_probability=0.15, mask=0.8, random=0.1, keep=0.1)

# --- NSP: §3.1 Task #2, footnote 5: "The final model achieves 97%-98% accuracy on NSP."
NSP_ACCURACY = (0.97, 0.98)

# --- pre-training data: §3.1 "Pre-training data"
CORPUS = dict(bookscorpus_words=800_000_000, wikipedia_words=2_500_000_000)

# --- pre-training: Appendix A.2 "Pre-training Procedure"
PRETRAINING = dict(
    batch_size=256, max_seq_length=512,
    tokens_per_batch=128_000,  # "256 sequences * 512 tokens = 128,000 tokens/batch": 131,072 = 128 x 1024
    steps=1_000_000, epochs=40,  # "1,000,000 steps, which is approximately 40 epochs over the 3.3 billion word corpus"
    corpus_words=3_300_000_000,
    learning_rate=1e-4, adam_beta1=0.9, adam_beta2=0.999, weight_decay=0.01,  # "L2 weight decay of 0.01"
    warmup_steps=10_000, lr_decay="linear",
    dropout=0.1, activation="gelu",  # "dropout probability of 0.1 on all layers"; gelu "rather than the standard relu"
    nsp_is_next=0.5,  # "50% of the time B is the actual next sentence that follows A"
    steps_at_128_fraction=0.9, steps_at_512_fraction=0.1,  # "sequence length of 128 for 90% of the steps"
    base_cloud_tpus=4, base_tpu_chips=16,  # "4 Cloud TPUs in Pod configuration (16 TPU chips total)"
    large_cloud_tpus=16, large_tpu_chips=64,  # "16 Cloud TPUs (64 TPU chips total)"
    days=4,  # "Each pre-training took 4 days to complete."
)

# --- fine-tuning: Appendix A.3 ranges ("found to work well across all tasks"); glue_*: §4.1
FINETUNING = dict(
    batch_sizes=(16, 32), learning_rates=(5e-5, 3e-5, 2e-5), epochs=(2, 3, 4), dropout=0.1,
    glue_batch_size=32, glue_epochs=3, glue_learning_rates=(5e-5, 4e-5, 3e-5, 2e-5),
)

# --- Google's released recipe (RECIPE), file and flag next to each value
GOOGLE_RECIPE = dict(
    max_seq_length=128,  # create_pretraining_data.py --max_seq_length default
    max_predictions_per_seq_128=20,  # create_pretraining_data.py --max_predictions_per_seq default (and README)
    # unverified: neither the paper nor Google's README/code gives a value for 512 tokens (see
    # google-research/bert issue #516). The README's rule "around max_seq_length * masked_lm_prob" gives
    # 76.8; 80 is what NVIDIA DeepLearningExamples (PyTorch/LanguageModeling/BERT/scripts/run_pretraining.sh) use.
    max_predictions_per_seq_512=80,
    masked_lm_prob=0.15,  # create_pretraining_data.py --masked_lm_prob
    short_seq_prob=0.1,  # create_pretraining_data.py --short_seq_prob
    dupe_factor=10,  # create_pretraining_data.py --dupe_factor default (the README's example command uses 5)
    random_seed=12345,  # create_pretraining_data.py --random_seed
    vocab_size=30522,  # bert_config.json of the released uncased models; the paper says "30,000 token vocabulary"
    adam_epsilon=1e-6,  # optimization.py, AdamWeightDecayOptimizer(epsilon=1e-6)
    no_weight_decay=("LayerNorm", "layer_norm", "bias"),  # optimization.py, exclude_from_weight_decay
    max_grad_norm=1.0,  # optimization.py, clip_by_global_norm(clip_norm=1.0): "This is how the model was pre-trained."
    phase1_steps=90_000, phase2_steps=10_000,  # README "Pre-training tips": 90,000 steps at 128, then 10,000 at 512
    further_pretraining_lr=2e-5,  # README: from an existing checkpoint "use a smaller learning rate (e.g., 2e-5)"
)

# --- Table 1: GLUE test results (§4.1). F1 for QQP and MRPC, Spearman for STS-B, accuracy otherwise.
# "Average" excludes WNLI and averages all nine columns (MNLI-m and MNLI-mm counted separately).
_T1 = ("system", "mnli_m", "mnli_mm", "qqp", "qnli", "sst_2", "cola", "sts_b", "mrpc", "rte", "average")
TABLE_1 = [dict(zip(_T1, row)) for row in [
    ("Pre-OpenAI SOTA", 80.6, 80.1, 66.1, 82.3, 93.2, 35.0, 81.0, 86.0, 61.7, 74.0),
    ("BiLSTM+ELMo+Attn", 76.4, 76.1, 64.8, 79.8, 90.4, 36.0, 73.3, 84.9, 56.8, 71.0),
    ("OpenAI GPT", 82.1, 81.4, 70.3, 87.4, 91.3, 45.4, 80.0, 82.3, 56.0, 75.1),
    ("BERT-BASE", 84.6, 83.4, 71.2, 90.5, 93.5, 52.1, 85.8, 88.9, 66.4, 79.6),
    ("BERT-LARGE", 86.7, 85.9, 72.1, 92.7, 94.9, 60.5, 86.5, 89.3, 70.1, 82.1),
]]

# --- Table 5: ablation over the pre-training tasks, BERT-BASE architecture, Dev set (§5.1).
# Accuracy except SQuAD (v1.1 F1). "+ BiLSTM" is "LTR & No NSP" with a BiLSTM added for fine-tuning.
_T5 = ("system", "mnli_m", "qnli", "mrpc", "sst_2", "squad_f1")
TABLE_5 = [dict(zip(_T5, row)) for row in [
    ("BERT-BASE", 84.4, 88.4, 86.7, 92.7, 88.5),
    ("No NSP", 83.9, 84.9, 86.5, 92.6, 87.9),
    ("LTR & No NSP", 82.1, 84.3, 77.5, 92.1, 77.8),
    ("+ BiLSTM", 82.1, 84.1, 75.7, 91.6, 84.9),
]]

# --- Table 6: ablation over model size (§5.2). #L, #H, #A under BertConfig's names; "LM (ppl)" is the
# masked-LM perplexity of held-out training data; accuracies are Dev, averaged over 5 fine-tuning restarts.
_T6 = ("num_hidden_layers", "hidden_size", "num_attention_heads", "lm_ppl", "mnli_m", "mrpc", "sst_2")
TABLE_6 = [dict(zip(_T6, row)) for row in [
    (3, 768, 12, 5.84, 77.9, 79.8, 88.4),
    (6, 768, 3, 5.24, 80.6, 82.2, 90.7),
    (6, 768, 12, 4.68, 81.9, 84.8, 91.3),
    (12, 768, 12, 3.99, 84.4, 86.7, 92.9),
    (12, 1024, 16, 3.54, 85.7, 86.9, 93.3),
    (24, 1024, 16, 3.23, 86.6, 87.8, 93.7),
]]

# --- Table 7: CoNLL-2003 NER, F1 averaged over 5 restarts (§5.3). approach None: earlier systems.
# Feature-based rows feed frozen BERT-BASE activations to a two-layer 768-dimensional BiLSTM.
_T7 = ("system", "approach", "dev_f1", "test_f1")
TABLE_7 = [dict(zip(_T7, row)) for row in [
    ("ELMo", None, 95.7, 92.2),
    ("CVT", None, None, 92.6),
    ("CSE", None, None, 93.1),
    ("BERT-LARGE", "fine-tuning", 96.6, 92.8),
    ("BERT-BASE", "fine-tuning", 96.4, 92.4),
    ("Embeddings", "feature-based", 91.0, None),
    ("Second-to-Last Hidden", "feature-based", 95.6, None),
    ("Last Hidden", "feature-based", 94.9, None),
    ("Weighted Sum Last Four Hidden", "feature-based", 95.9, None),
    ("Concat Last Four Hidden", "feature-based", 96.1, None),
    ("Weighted Sum All 12 Layers", "feature-based", 95.5, None),
]]

# --- Table 8: ablation over masking strategies, Dev set (Appendix C.2). The rates are fractions, so
# the first row joins MASKING (same = MASKING["keep"]). The feature-based column concatenates the last
# 4 layers. Its numbers are not those of Tables 5 and 7 (84.2 vs 84.4 on MNLI; 95.4 vs 96.4 on NER): the
# paper does not say why.
_T8 = ("mask", "same", "random", "mnli_fine_tune", "ner_fine_tune", "ner_feature_based")
TABLE_8 = [dict(zip(_T8, row)) for row in [
    (0.8, 0.1, 0.1, 84.2, 95.4, 94.9),
    (1.0, 0.0, 0.0, 84.3, 94.9, 94.0),
    (0.8, 0.0, 0.2, 84.1, 95.2, 94.6),
    (0.8, 0.2, 0.0, 84.4, 95.2, 94.7),
    (0.0, 0.2, 0.8, 83.7, 94.8, 94.6),
    (0.0, 0.0, 1.0, 83.6, 94.9, 94.6),
]]

_PAPER = "Devlin et al. (2019)"
SOURCES: dict[str, str] = {
    "BERT_BASE": f"{_PAPER}, §3 'Model Architecture' (L, H, A, 110M parameters) and footnote 3 (feed-forward 4H)",
    "BERT_LARGE": f"{_PAPER}, §3 'Model Architecture' (L, H, A, 340M parameters) and footnote 3 (feed-forward 4H)",
    "PARAMETER_COUNTS": "measured: minibert.BertModel on the meta device (tests/test_model.py)",
    "MASKING": f"{_PAPER}, §3.1 Task #1 (illustrated in Appendix A.1)",
    "NSP_ACCURACY": f"{_PAPER}, §3.1 Task #2, footnote 5",
    "CORPUS": f"{_PAPER}, §3.1 'Pre-training data'",
    "PRETRAINING": f"{_PAPER}, Appendix A.2 'Pre-training Procedure'",
    "FINETUNING": f"{_PAPER}, Appendix A.3 'Fine-tuning Procedure' (glue_* keys: §4.1)",
    "GOOGLE_RECIPE": ("google-research/bert: create_pretraining_data.py flag defaults, README 'Pre-training with "
                      "BERT' and 'Pre-training tips and caveats', optimization.py, the released bert_config.json; "
                      "max_predictions_per_seq_512 is unverified (see its comment)"),
    "TABLE_1": f"{_PAPER}, §4.1, Table 1 (GLUE Test results, scored by the evaluation server)",
    "TABLE_5": f"{_PAPER}, §5.1, Table 5 (Dev set)",
    "TABLE_6": f"{_PAPER}, §5.2, Table 6 (Dev set, average of 5 fine-tuning restarts)",
    "TABLE_7": f"{_PAPER}, §5.3, Table 7 (CoNLL-2003 NER, average of 5 restarts)",
    "TABLE_8": f"{_PAPER}, Appendix C.2, Table 8 (Dev set)",
}

_TABLES = {1: TABLE_1, 5: TABLE_5, 6: TABLE_6, 7: TABLE_7, 8: TABLE_8}


class UnknownPaperNumber(KeyError, ValueError):
    """A name or table number this module does not hold (a KeyError, and a ValueError for table numbers)."""

    def __str__(self):  # KeyError would print the message in quotes
        return str(self.args[0])


def source(name: str) -> str:
    """Where the numbers of constant `name` come from: `source("TABLE_8")`."""
    if name not in SOURCES:
        raise UnknownPaperNumber(f"no paper constant {did_you_mean(name, SOURCES)}; "
                               f"known: {', '.join(SOURCES)}")
    return SOURCES[name]


def table(n: int):
    """Table `n` of the paper as a pandas DataFrame, its source in `df.attrs["source"]`."""
    if n not in _TABLES:
        raise UnknownPaperNumber(f"the paper's Table {n!r} is not transcribed here; "
                               f"tables: {', '.join(map(str, _TABLES))}")
    import pandas as pd  # an optional extra (`pip install minibert[notebooks]`): imported only when asked for

    df = pd.DataFrame([dict(row) for row in _TABLES[n]])
    df.attrs["source"] = SOURCES[f"TABLE_{n}"]
    return df
