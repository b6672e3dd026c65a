"""The capstone's checkers accept the solutions and correct code in other styles, let the stubs'
NotImplementedError through, and reject the mistakes learners make, naming the piece and the mistake.

Each mistake is the solution's own source with one realistic edit (`mutant`), run in a fresh
namespace: the bugs are real code, not the checkers' own simulations of them."""

from pathlib import Path

import pytest
import torch
from helpers import exercise_functions

from minibert import check
from minibert.check import ExerciseError

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "solutions" / "11_capstone.ipynb"
SOLUTIONS = exercise_functions(NOTEBOOK)
STUBS = exercise_functions(NOTEBOOK.parents[1] / NOTEBOOK.name)


def mutant(*edits: tuple[str, str]) -> dict:
    """The solutions' namespace with each (old, new) edit made to their source, each edit exactly once."""
    import nbformat

    cells = [c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells if c.cell_type == "code"]
    source = "\n\n".join(cells[i] for i in range(len(cells)) if i == 0 or "### BEGIN SOLUTION" in cells[i])
    for old, new in edits:
        assert source.count(old) == 1, f"the edit {old!r} must match the solutions exactly once"
        source = source.replace(old, new)
    namespace: dict = {}
    exec(compile(source, "mutant", "exec"), namespace)
    return namespace


def test_the_solutions_pass(capsys):
    s = SOLUTIONS
    check.tokenizer_ids(s["my_tokenize"])
    check.bert_pieces(s["MyBert"])
    check.assembled_bert(s["MyBert"], s["my_load_weights"])
    check.finetune_loop(s["my_finetune"])
    check.mlm_logits(s["my_mlm_logits"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["✓ tokenizer_ids", "✓ bert_pieces", "✓ assembled_bert",
                                                      "✓ finetune_loop", "✓ mlm_logits"]


@pytest.mark.parametrize("checker, args", [
    ("tokenizer_ids", ["my_tokenize"]), ("bert_pieces", ["MyBert"]), ("assembled_bert", ["MyBert", "my_load_weights"]),
    ("finetune_loop", ["my_finetune"]), ("mlm_logits", ["my_mlm_logits"])])
def test_the_stubs_raise_not_implemented(checker, args):
    with pytest.raises(NotImplementedError, match=r"Exercise 11\."):
        getattr(check, checker)(*(STUBS[a] for a in args))


# --- 11.1 text to ids ----------------------------------------------------------------------------------

@pytest.mark.parametrize("edit, message", [
    (("unicodedata.normalize(\"NFD\", text.lower())", "unicodedata.normalize(\"NFD\", text)"), r"lower-case the text"),
    (("if unicodedata.category(ch) != \"Mn\"", "if True"), r"strip the accents"),
    (("if unicodedata.category(ch).startswith(\"P\") or (ch.isascii() and not ch.isalnum()):", "if False:"),
     r"split every punctuation character"),
    (("not in (\"Cc\", \"Cf\") or ch in \"\\t\\n\\r\"", "is not None"), r"drop control and format characters"),
    (("(\"##\" * (start > 0) + word[start:end]) not in vocab", "word[start:end] not in vocab"), r"received"),
    (("ids += pieces if start == len(word) else [vocab[\"[UNK]\"]]",
      "ids += pieces + [vocab[\"[UNK]\"]] * (start < len(word))"), r"the WHOLE word becomes one \[UNK\]"),
    (("    return ids\n", "    return [101, *ids, 102]\n"), r"no \[CLS\] or \[SEP\] here"),
    (("else [vocab[\"[UNK]\"]]", "else [100]"), r"course model's vocabulary.*\[UNK\] is 1 in this vocabulary, not 100"),
    (("while start < len(word) <= 100:", "while start < len(word) < 100:"), r"exactly 100 characters is still cut"),
    (("unicodedata.normalize(\"NFD\", text.lower())", "unicodedata.normalize(\"NFD\", text.casefold())"),
     r"'Straße'.*str.casefold\(\) goes further"),
    (("unicodedata.normalize(\"NFD\", text.lower())", "unicodedata.normalize(\"NFKD\", text.lower())"),
     r"normalise to NFD, not NFKD"),
    (("for chunk in text.split():", "for chunk in __import__(\"re\").split(r\"[ \\t\\n]+\", text):"),
     r"no-break space \(U\+00A0\) and \\r are whitespace too"),
    (("text = \"\".join(ch for ch in text if unicodedata.category(ch) not in (\"Cc\", \"Cf\") or ch in \"\\t\\n\\r\")",
      "text = \"\".join(\" \" if unicodedata.category(ch) == \"Cc\" else ch for ch in text if unicodedata.category(ch) "
      "!= \"Cf\")"), r"'del\\x7fete'.*is dropped, not a space"),
    (("or ch in \"\\t\\n\\r\")", "or ch.isspace())"), r"'page\\x0cbreak'.*form feed.*\n.*hint: drop control"),
    (("if unicodedata.category(ch).startswith(\"P\") or (ch.isascii() and not ch.isalnum()):",
      "if unicodedata.category(ch).startswith(\"P\"):"), r"'\$5 \+1.*ASCII symbols that are not Unicode punctuation"),
    (("        word = \"\"\n        for ch in chunk:", "        if len(chunk) > 100:  # a long chunk, one [UNK]\n"
      "            words.append(chunk)\n            continue\n        word = \"\"\n        for ch in chunk:"),
     r"'x+-x+'.*received \['\[UNK\]'\].*\n.*hint: the 100-character rule is WordPiece's"),
    # StackOverflow's strip_accents, unicodedata.combining: keeps ं (Mn, combining class 0)
    (("if unicodedata.category(ch) != \"Mn\"", "if not unicodedata.combining(ch)"),
     r"'Café crème brûlée हिंदी'.*received \[.*'\[UNK\]'\].*\n.*hint: unicodedata.combining\(ch\) is not the test"),
    # every mark dropped, M*: Devanagari's vowel signs ि and ी (Mc) go too
    (("if unicodedata.category(ch) != \"Mn\"", "if not unicodedata.category(ch).startswith(\"M\")"),
     r"'Café crème brûlée हिंदी'.*received \[.*'ह', '##द'\].*\n.*hint: drop the marks of category Mn only"),
])
def test_tokenizer_mistakes_are_named(edit, message):
    with pytest.raises(ExerciseError, match="(?s)" + message):
        check.tokenizer_ids(mutant(edit)["my_tokenize"])


def test_tokenizer_accepts_minibert_reference_style(capsys):
    from minibert.tokenizer import reference

    def via_reference(text, vocab):  # the course's own reference tokenizer, another correct style
        tokenizer = reference.ReferenceTokenizer(vocab, ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
        return [vocab[piece] for piece, _, _ in tokenizer.tokenize(text)]

    check.tokenizer_ids(via_reference)
    assert capsys.readouterr().out.startswith("✓ tokenizer_ids:")


# --- 11.2 and 11.3 the model and its weights --------------------------------------------------------------

ATTENTION = "scores.masked_fill(attention_mask[:, None, None, :] == 0, float(\"-inf\"))"
MODEL_MISTAKES = [
    (("x = self.words(input_ids) + self.segments(token_type_ids) + self.positions(torch.arange(T))",
      "x = self.words(input_ids) + self.positions(torch.arange(T))"), r"embeddings.*token-type"),
    (("x = self.words(input_ids) + self.segments(token_type_ids) + self.positions(torch.arange(T))",
      "x = self.words(input_ids) + self.segments(token_type_ids)"), r"embeddings.*position embeddings"),
    (("/ math.sqrt(hs)", ""), r"layer 0's attention.*not divided by the square root"),
    (("/ math.sqrt(hs)", "/ math.sqrt(H)"), r"layer 0's attention.*HEAD size"),
    ((ATTENTION, "scores"), r"attention.*must act on the KEYS"),
    ((ATTENTION, "scores.masked_fill(attention_mask[:, None, :, None] == 0, -1e9)"), r"attention.*must act on the KEYS"),
    (("f(x).view(B, T, self.nh, hs).transpose(1, 2)", "f(x).reshape(B, self.nh, T, hs)"), r"plain view"),
    (("return self.o(context.transpose(1, 2).reshape(B, T, H))", "return self.o(context.reshape(B, T, H))"),
     r"layer 0's attention"),
    (("x = self.attention_norm(x + self.dropout(self.attention(x, attention_mask)))",
      "x = x + self.dropout(self.attention(self.attention_norm(x), attention_mask))"), r"layer 0:"),
    (("return self.ffn_norm(x + self.dropout(self.down(F.gelu(self.up(x)))))",
      "return x + self.dropout(self.down(F.gelu(self.up(self.ffn_norm(x)))))"), r"layer 0:"),
    (("return self.ffn_norm(x + self.dropout(self.down(F.gelu(self.up(x)))))",
      "return self.ffn_norm(x + self.dropout(self.down(F.relu(self.up(x)))))"), r"layer 0:.*ReLU"),
    (("return self.ffn_norm(x + self.dropout(self.down(F.gelu(self.up(x)))))",
      "return self.ffn_norm(x + self.dropout(self.down(F.gelu(self.up(x), approximate=\"tanh\"))))"),
     r"tanh approximation"),
    (("return self.ffn_norm(x + self.dropout(self.down(F.gelu(self.up(x)))))",
      "return self.ffn_norm(self.dropout(self.down(F.gelu(self.up(x)))))"), r"residual connection is missing"),
    (("pooled = torch.tanh(self.pooler(hidden[:, 0]))", "pooled = torch.tanh(self.pooler(hidden.mean(1)))"),
     r"the head.*mean of the positions"),
    (("pooled = torch.tanh(self.pooler(hidden[:, 0]))", "pooled = torch.tanh(self.pooler(hidden[:, -1]))"),
     r"the head reads the last position"),
    (("pooled = torch.tanh(self.pooler(hidden[:, 0]))", "pooled = self.pooler(hidden[:, 0])"), r"tanh is missing"),
    (("getattr(places[module], kind).copy_(tensor)",
      "getattr(places[module], kind).copy_(tensor.T if tensor.shape[0] == tensor.shape[-1] and tensor.ndim == 2 "
      "else tensor)"), r"layer 0's attention.*holds encoder\.layer\.0\.attention\.\S+ transposed"),
]


@pytest.mark.parametrize("edit, message", MODEL_MISTAKES, ids=lambda x: x if isinstance(x, str) else x[1][:40])
def test_model_mistakes_are_named(edit, message):
    s = mutant(edit)
    with pytest.raises(ExerciseError, match="(?s)" + message):
        check.assembled_bert(s["MyBert"], s["my_load_weights"])


def test_a_transposed_load_is_named_at_the_first_piece_it_breaks():
    s = mutant(("getattr(places[module], kind).copy_(tensor)",
                "getattr(places[module], kind).copy_(tensor.T if module.endswith('query') and kind == 'weight' "
                "else tensor)"))
    with pytest.raises(ExerciseError, match=r"(?s)layer 0's attention.*holds encoder.layer.0.attention.self.query"
                                            r".weight transposed"):
        check.assembled_bert(s["MyBert"], s["my_load_weights"])


def test_a_weight_left_unloaded_is_named():
    s = mutant(("for name, tensor in weights.items():", "for name, tensor in list(weights.items())[1:]:"))
    with pytest.raises(ExerciseError, match=r"no parameter of your model holds \S+ after my_load_weights"):
        check.assembled_bert(s["MyBert"], s["my_load_weights"])


@pytest.mark.parametrize("edit, message", [
    (("self.norm = nn.LayerNorm(H, eps=config.layer_norm_eps)", "self.norm = nn.Identity()"),
     r"difference -48\b.*a LayerNorm"),
    (("self.segments = nn.Embedding(config.type_vocab_size, H)",
      "self.segments = nn.Embedding(config.type_vocab_size, H)\n        self.extra = nn.Linear(H, H)"),
     r"too many"),
    ((ATTENTION, "scores"), r"row 1 .*hidden states alone differ.*KEYS"),
    (("pooled = torch.tanh(self.pooler(hidden[:, 0]))", "pooled = torch.tanh(self.pooler(hidden[:, -1]))"),
     r"row 1 .*other logits alone.*position 0"),
    (("context = self.dropout(scores.softmax(-1)) @ v", "context = scores.softmax(-1) @ v"), None),
    (("return self.classifier(self.dropout(pooled))", "return self.classifier(pooled)"), None),
])
def test_bert_pieces_names_what_is_missing(edit, message):
    s = mutant(edit)
    if message is None:  # one dropout fewer: still dropout in training, so no alarm (it is not the stored model)
        check.bert_pieces(s["MyBert"])
        return
    with pytest.raises(ExerciseError, match="(?s)" + message):
        check.bert_pieces(s["MyBert"])


def test_bert_pieces_names_a_model_without_dropout():
    s = mutant(("self.dropout = nn.Dropout(config.hidden_dropout_prob)\n        ### END SOLUTION\n\n    def forward(self, "
                "input_ids", "self.dropout = nn.Identity()\n        ### END SOLUTION\n\n    def forward(self, input_ids"),
               ("self.dropout = nn.Dropout(config.attention_probs_dropout_prob)", "self.dropout = nn.Identity()"),
               ("self.dropout = nn.Dropout(config.hidden_dropout_prob)\n        ### END SOLUTION\n\n    def forward(self, x, "
                "attention_mask):\n        ### BEGIN SOLUTION\n        x = self.attention_norm",
                "self.dropout = nn.Identity()\n        ### END SOLUTION\n\n    def forward(self, x, "
                "attention_mask):\n        ### BEGIN SOLUTION\n        x = self.attention_norm"),
               ("self.dropout = nn.Dropout(config.hidden_dropout_prob)\n        self.classifier",
                "self.dropout = nn.Identity()\n        self.classifier"))
    with pytest.raises(ExerciseError, match=r"where is the dropout"):
        check.bert_pieces(s["MyBert"])


def test_the_model_accepts_sdpa_and_weights_kept_transposed(capsys):
    """Two other correct styles: attention through F.scaled_dot_product_attention with a boolean mask,
    and every linear weight stored (in, out) and applied as x @ W."""
    s = mutant(("scores = q @ k.transpose(-2, -1) / math.sqrt(hs)  # (B, nh, T, T): queries x keys\n"
                "        scores = " + ATTENTION + "  # no query reads [PAD]\n"
                "        context = self.dropout(scores.softmax(-1)) @ v  # (B, nh, T, hs)",
                "keep = attention_mask[:, None, None, :].bool()\n"
                "        context = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, "
                "dropout_p=self.dropout.p if self.training else 0.0)"))
    check.assembled_bert(s["MyBert"], s["my_load_weights"])

    class Linear(torch.nn.Module):  # a weight kept (in, out): x @ W + b
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight, self.bias = torch.nn.Parameter(torch.randn(n_in, n_out) * 0.02), torch.nn.Parameter(torch.zeros(n_out))

        def forward(self, x):
            return x @ self.weight + self.bias

    s = mutant(("getattr(places[module], kind).copy_(tensor)",
                "target = getattr(places[module], kind)\n"
                "            target.copy_(tensor.T if isinstance(places[module], Linear) and kind == 'weight' else tensor)"))
    s["Linear"] = Linear
    s["nn"] = type("nn", (), {**{k: getattr(torch.nn, k) for k in dir(torch.nn) if not k.startswith("_")},
                              "Linear": Linear})
    check.assembled_bert(s["MyBert"], s["my_load_weights"])
    assert capsys.readouterr().out.count("✓ assembled_bert:") == 2


# --- 11.4 the loop ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", [
    (("            optimizer.zero_grad()\n", ""), r"never zeroed"),
    (("            optimizer.step()\n            scheduler.step()  # after the optimizer: the first step ran at the "
      "rate for step 0\n", "            scheduler.step()\n            optimizer.step()\n"), r"one step ahead"),
    (("warmup = int(warmup_proportion * total)", "warmup = 0"), r"no warm-up"),
    (("total = epochs * len(train_batches)", "total = len(train_batches)"), r"one epoch's steps"),
    (("            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n", ""), r"not clipped"),
    (("decay = [p for p in model.parameters() if p.ndim >= 2]", "decay = list(model.parameters())"),
     ("no_decay = [p for p in model.parameters() if p.ndim < 2]", "no_decay = []"), r"every parameter"),
    (("{\"params\": decay, \"weight_decay\": 0.01}", "{\"params\": decay, \"weight_decay\": 0.0}"),
     r"no weight decay"),
    (("        model.eval()\n        right = 0", "        right = 0"), r"scored in training mode"),
    (("    for epoch in range(epochs):\n        model.train()\n", "    model.train()\n    for epoch in range(epochs):\n"),
     r"training batch ran in eval mode"),
    (("        accuracies.append(right / sum(len(batch[\"labels\"]) for batch in dev_batches))",
      "        accuracies.append(right)"), r"accuracies are not"),
    (("warmup = int(warmup_proportion * total)", "warmup = round(warmup_proportion * total)"), r"int\(\) rounds down"),
    (("warmup = int(warmup_proportion * total)", "warmup = warmup_proportion * total"), r"3.6 steps, not a whole"),
    (("        with torch.no_grad():\n            for batch in dev_batches:",
      "        if True:\n            for batch in dev_batches:"), r"scored with gradients on"),
    (("        accuracies.append(right / sum(len(batch[\"labels\"]) for batch in dev_batches))",  # 1st batch's size
      "        accuracies.append(right / (len(dev_batches) * len(dev_batches[0][\"labels\"])))"),
     r"(?s)accuracies are not.*13 dev rows \(in batches of 8 and 5\)"),
    (("lambda step: step / warmup if step < warmup else max(0.0, 1 - step / total)",  # right unless warmup is 0
      "lambda step: min(step / warmup, max(0.0, 1 - step / total))"),
     r"int\(0.1 x 6 steps\) = 0 steps.*raised ZeroDivisionError"),
    (("    model.train()\n    return accuracies", "    return accuracies"), r"returned the model in eval mode"),
    (("F.cross_entropy(logits, batch[\"labels\"]).backward()",  # segment B read as A: the checker's pairs show it
      "F.cross_entropy(model(batch[\"input_ids\"], torch.zeros_like(batch[\"input_ids\"]), "
      "batch[\"attention_mask\"]), batch[\"labels\"]).backward()"), r"seed 0\): the weights after your loop are not"),
])
@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)` before")  # the mistake's own
def test_loop_mistakes_are_named(case):
    *edits, message = case  # one edit, or two that make one mistake
    with pytest.raises(ExerciseError, match="(?s)" + message):
        check.finetune_loop(mutant(*edits)["my_finetune"])


def test_loop_accepts_a_hand_written_schedule_and_minibert_optimizer(capsys):
    def loop(model, train_batches, dev_batches, epochs, lr, warmup_proportion=0.1):
        import torch.nn.functional as F

        from minibert.training.optim import build_optimizer

        total = epochs * len(train_batches)
        optimizer, scheduler = build_optimizer(model, lr=lr, warmup_steps=int(warmup_proportion * total),
                                               total_steps=total)
        out = []
        for _ in range(epochs):
            model.train()
            for b in train_batches:
                optimizer.zero_grad(set_to_none=True)  # zeroed before, not after: the same
                loss = F.cross_entropy(model(b["input_ids"], b["token_type_ids"], b["attention_mask"]), b["labels"])
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
                optimizer.step()
                scheduler.step()
            model.eval()
            with torch.inference_mode():
                hits = torch.cat([model(b["input_ids"], b["token_type_ids"], b["attention_mask"]).argmax(-1)
                                  == b["labels"] for b in dev_batches])
            out.append(hits.float().mean().item())
        model.train()  # back to training after the last dev pass too
        return out

    check.finetune_loop(loop)
    assert capsys.readouterr().out.startswith("✓ finetune_loop:")


# --- 11.5 the MLM head, and the verdicts on the whole ---------------------------------------------------------

@pytest.mark.parametrize("edit, message", [
    (("x = F.gelu(hidden @", "x = (hidden @"), r"GELU is missing"),
    (("eps=1e-12)\n    # The decoder", "eps=1e-12) * 0 + x\n    # The decoder"), r"LayerNorm is missing"),
    (("weights[\"bert.embeddings.word_embeddings.weight\"].T + weights[\"cls.predictions.bias\"]",
      "weights[\"bert.embeddings.word_embeddings.weight\"].T"), r"cls.predictions.bias\) is missing"),
    (("weights[\"bert.embeddings.word_embeddings.weight\"].T + weights[\"cls.predictions.bias\"]",
      "weights[\"cls.predictions.decoder.weight\"].T + weights[\"cls.predictions.bias\"]"), r"decoder is tied"),
    (("weights[\"cls.predictions.transform.LayerNorm.bias\"], eps=1e-12)",
      "weights[\"cls.predictions.transform.LayerNorm.bias\"], eps=1e-5)"), r"(?s)times 0\.01.*eps 1e-5"),
    (("x = F.gelu(hidden @", "x = F.gelu(approximate=\"tanh\", input=hidden @"), r"tanh approximation of GELU"),
    (("x = F.gelu(hidden @ weights[\"cls.predictions.transform.dense.weight\"]",
      "x = F.gelu(hidden @ weights.pop(\"cls.predictions.transform.dense.weight\")"),
     r"changed the weights dict it was given.*transform.dense.weight"),
    (("# The decoder is tied", "weights[\"cls.predictions.bias\"].mul_(1.5)  # The decoder is tied"),
     r"wrote into the weights it was given \(cls.predictions.bias, in place\)"),
    (("return x @ weights[\"bert.embeddings.word_embeddings.weight\"].T + weights[\"cls.predictions.bias\"]",
      "return (x @ weights[\"bert.embeddings.word_embeddings.weight\"].T\n"
      "            + weights[\"cls.predictions.bias\"]).softmax(-1)"),
     r"these are probabilities"),
    (("return x @ weights[\"bert.embeddings.word_embeddings.weight\"].T + weights[\"cls.predictions.bias\"]",
      "return (x @ weights[\"bert.embeddings.word_embeddings.weight\"].T\n"
      "            + weights[\"cls.predictions.bias\"]).double()"),
     r"(?s)two sentences.*values are right, but your logits are torch.float64.*keep their dtype"),
])
def test_mlm_head_mistakes_are_named(edit, message):
    with pytest.raises(ExerciseError, match=message):
        check.mlm_logits(mutant(edit)["my_mlm_logits"])


def test_a_low_accuracy_names_the_first_broken_piece():
    s = mutant(("unicodedata.normalize(\"NFD\", text.lower())", "unicodedata.normalize(\"NFD\", text)"))
    with pytest.raises(ExerciseError, match=r"(?s)below the 75%.*chain breaks at the tokenizer \(11\.1\).*lower-case"):
        check.fine_tuned([0.55, 0.6, 0.62], s["my_tokenize"], s["MyBert"], s["my_load_weights"], s["my_finetune"])
    s = mutant(("pooled = torch.tanh(self.pooler(hidden[:, 0]))", "pooled = torch.tanh(self.pooler(hidden[:, -1]))"))
    with pytest.raises(ExerciseError, match=r"(?s)chain breaks at the model \(11\.2\).*head reads a position that is"):
        check.fine_tuned([0.55, 0.6, 0.62], s["my_tokenize"], s["MyBert"], s["my_load_weights"], s["my_finetune"])
    s = SOLUTIONS
    with pytest.raises(ExerciseError, match=r"every piece passes its check, so look at the run"):
        check.fine_tuned([0.55, 0.6, 0.62], s["my_tokenize"], s["MyBert"], s["my_load_weights"], s["my_finetune"])
    with pytest.raises(ExerciseError, match=r"expected the 3 dev accuracies"):
        check.fine_tuned(0.8, s["my_tokenize"], s["MyBert"], s["my_load_weights"], s["my_finetune"])


def test_fill_mask_compares_with_minibert(capsys):
    from minibert.check.capstone.result import minibert_guesses

    s = SOLUTIONS
    sentences = ["the [MASK] of the united states."]
    check.fill_mask(minibert_guesses(sentences), sentences, s["my_tokenize"], s["MyBert"], s["my_load_weights"])
    assert capsys.readouterr().out.startswith("✓ fill_mask:")
    with pytest.raises(ExerciseError, match=r"every piece passes its check: is the \[MASK\] id"):
        check.fill_mask([["the", ",", ".", "of", "and"]], sentences, s["my_tokenize"], s["MyBert"], s["my_load_weights"])


def test_the_reference_pieces_are_transformers():
    """The checkers' own BERT (reference.py, with every switch at its default) is transformers' to 1e-5."""
    import transformers

    from minibert.check.capstone import model as chain, reference

    config, W = chain.minilm_weights()
    batch = chain._snippet_batch()
    with reference.quietly():
        hf = transformers.BertModel.from_pretrained(chain.minilm_path()).eval()
    with torch.no_grad():
        states = hf(**batch, output_hidden_states=True).hidden_states
        x = reference.embed(W, batch["input_ids"], batch["token_type_ids"], config.layer_norm_eps)
        real = batch["attention_mask"].bool()
        assert torch.allclose(x[real], states[0][real], atol=1e-5)
        for i in range(config.num_hidden_layers):
            x = reference.layer(W, i, x, batch["attention_mask"], config.num_attention_heads, config.layer_norm_eps)
            assert torch.allclose(x[real], states[i + 1][real], atol=1e-5)
        logits = reference.head(W, x, batch["attention_mask"])
        assert torch.allclose(logits, chain._transformers_logits(W, batch), atol=1e-5)
