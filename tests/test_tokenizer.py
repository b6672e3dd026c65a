"""The tokenizer on cases worked out by hand: the original BERT tests, edge cases, the API, bad input.

Every behaviour test runs on both paths (`fast` parametrised), so the reference and the fast path
are held to the same answers."""

import pytest
import torch

from minibert import Tokenizer, TokenizerError
from minibert.tokenizer import reference, truncate_pair

# The vocabulary of the original BERT tests (tokenization_test.py), with [PAD] and [MASK] appended so
# that the ids the original tests expect stay the same.
SMALL_VOCAB = ["[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn", "##ing", ",",
               "[PAD]", "[MASK]", "low", "##er", "##est"]

both_paths = pytest.mark.parametrize("fast", [True, False], ids=["fast", "reference"])


@pytest.fixture(scope="module")
def small_vocab_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("small") / "vocab.txt"
    path.write_text("".join(t + "\n" for t in SMALL_VOCAB), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def uncased(minilm_dir):
    return {fast: Tokenizer.from_vocab(minilm_dir / "vocab.txt", fast=fast) for fast in (True, False)}


# ---- the original BERT tests ---------------------------------------------------------------------

@both_paths
def test_full_tokenizer_golden_case(small_vocab_file, fast):
    tok = Tokenizer.from_vocab(small_vocab_file, fast=fast)
    tokens = tok.tokenize("UNwant\u00E9d,running")
    assert tokens == ["un", "##want", "##ed", ",", "runn", "##ing"]
    assert tok.convert_tokens_to_ids(tokens) == [7, 4, 5, 10, 8, 9]


@both_paths
def test_wordpiece_golden_cases(small_vocab_file, fast):
    tok = Tokenizer.from_vocab(small_vocab_file, fast=fast)
    assert tok.tokenize("") == []
    assert tok.tokenize("unwanted running") == ["un", "##want", "##ed", "runn", "##ing"]
    # "X" is in no piece, so the whole word is [UNK], not just its end.
    assert tok.tokenize("unwantedX running") == ["[UNK]", "runn", "##ing"]
    assert tok.tokenize("lowest lower low") == ["low", "##est", "low", "##er", "low"]


@both_paths
def test_basic_tokenizer_golden_cases(uncased, fast):
    tok = uncased[fast]
    assert tok.tokenize(" \tHeLLo!how  \n Are yoU?  ") == ["hello", "!", "how", "are", "you", "?"]
    assert tok.tokenize("H\u00E9llo") == ["hello"]
    # Every CJK ideograph is a word of its own (推 is not in this vocab, so it is [UNK] alone).
    assert tok.tokenize("ah\u535A\u63A8zz") == ["ah", "\u535A", "[UNK]", "z", "##z"]


def test_character_classes_golden_cases():
    assert all(reference.is_whitespace(c) for c in " \t\r\n\u00A0")
    assert not any(reference.is_whitespace(c) for c in "A-")
    assert reference.is_control("\u0005") and reference.is_control("\u200b")
    assert not any(reference.is_control(c) for c in "A \t\r\n\U0001F4A9")
    assert all(reference.is_punctuation(c) for c in "-$`.¿«")
    assert not any(reference.is_punctuation(c) for c in "A 9é")


@both_paths
def test_cased_keeps_case_and_accents(minilm_dir, tmp_path, fast):
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "HeLLo", "!", "how", "Are", "yo", "##U", "?", "Héllo"]
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = Tokenizer.from_vocab(tmp_path, lowercase=False, fast=fast)
    assert tok.tokenize(" \tHeLLo!how  \n Are yoU?  ") == ["HeLLo", "!", "how", "Are", "yo", "##U", "?"]
    assert tok.tokenize("Héllo") == ["Héllo"]


# ---- edge cases ----------------------------------------------------------------------------------

EDGE_CASES = [
    ("naïve café résumé Ångström", ["naive", "cafe", "resume", "ang", "##strom"]),
    ("cafe\u0301", ["cafe"]),  # the accent as a combining character of its own
    ("北京 is 東京", ["北", "京", "is", "東", "京"]),
    ("한국어", ["ᄒ", "##ᅡ", "##ᆫ", "##ᄀ", "##ᅮ", "##ᆨ", "##ᄋ", "##ᅥ"]),  # hangul is not split per character
    ("a\x00b\ufffdc\x07d", ["abc", "##d"]),  # NUL, U+FFFD and controls dropped, the word stays whole
    ("zero\u200bwidth", ["zero", "##wi", "##dt", "##h"]),  # U+200B is a format character: dropped
    ("tab\there\nnew\r\nline\u00a0nbsp", ["tab", "here", "new", "line", "n", "##bs", "##p"]),
    ("emoji 🙂 👍🏽!", ["em", "##oj", "##i", "[UNK]", "[UNK]", "!"]),
    ("Hello [MASK] world, a[MASK]b [mask]", ["hello", "[MASK]", "world", ",", "a", "[MASK]", "b", "[", "mask", "]"]),
    ("[CLS][SEP][PAD][UNK]", ["[CLS]", "[SEP]", "[PAD]", "[UNK]"]),
    ("$5.00 & 50% (x^2)", ["$", "5", ".", "00", "&", "50", "%", "(", "x", "^", "2", ")"]),
    ("ΟΔΟΣ", ["ο", "##δ", "##ο", "##σ"]),  # lowercased one character at a time: no final ς
    ("İstanbul", ["istanbul"]),
    ("", []),
    ("   \n\t ", []),
]


@both_paths
@pytest.mark.parametrize("text, tokens", EDGE_CASES, ids=[repr(t)[:20] for t, _ in EDGE_CASES])
def test_edge_cases(uncased, fast, text, tokens):
    assert uncased[fast].tokenize(text) == tokens


@both_paths
def test_long_words_become_one_unk(uncased, fast):
    tok = uncased[fast]
    assert tok.tokenize("a" * 101 + " ok") == ["[UNK]", "ok"]  # over BERT's 100 characters per word
    assert "[UNK]" not in tok.tokenize("a" * 100)  # at the limit: cut into pieces
    assert tok.tokenize("é" * 101) == ["[UNK]"]  # counted in characters, not bytes


# ---- encoding: pairs, truncation, padding, tensors -----------------------------------------------

@both_paths
def test_pair_layout(uncased, fast):
    enc = uncased[fast]("Call me Ishmael.", "Some years ago", return_special_tokens_mask=True)
    tokens = uncased[fast].convert_ids_to_tokens(enc["input_ids"])
    assert tokens == ["[CLS]", "call", "me", "is", "##hma", "##el", ".", "[SEP]", "some", "years", "ago", "[SEP]"]
    assert enc["token_type_ids"] == [0] * 8 + [1] * 4
    assert enc["attention_mask"] == [1] * 12
    assert enc["special_tokens_mask"] == [1] + [0] * 6 + [1] + [0] * 3 + [1]
    assert set(enc) == {"input_ids", "token_type_ids", "attention_mask", "special_tokens_mask"}


def test_truncate_pair_is_berts_loop():
    def loop(len_a, len_b, budget):  # truncate_seq_pair from Google's create_pretraining_data.py
        while len_a + len_b > budget:
            if len_a > len_b:
                len_a -= 1
            else:
                len_b -= 1
        return len_a, len_b

    for len_a in range(30):
        for len_b in range(30):
            for budget in range(40):
                assert truncate_pair(len_a, len_b, budget) == loop(len_a, len_b, budget), (len_a, len_b, budget)


@both_paths
def test_truncation_trims_the_longer_side_first(uncased, fast):
    a = " ".join(["one"] * 9)
    b = " ".join(["two"] * 25)
    for max_length, expected in [(10, (4, 3)), (20, (9, 8)), (30, (9, 18)), (40, (9, 25))]:
        enc = uncased[fast](a, b, max_length=max_length, truncation=True)
        ids = enc["input_ids"]
        assert (ids.count(2028), ids.count(2048)) == expected, max_length  # 2028 "one", 2048 "two"
        assert len(ids) <= max_length and ids[-1] == ids[ids.index(102)] == 102


@both_paths
def test_truncation_of_single_texts_and_without_special_tokens(uncased, fast):
    tok = uncased[fast]
    text = " ".join(["one"] * 20)
    assert tok(text, max_length=5, truncation=True)["input_ids"] == [101, 2028, 2028, 2028, 102]
    assert tok(text, max_length=3, truncation=True, add_special_tokens=False)["input_ids"] == [2028] * 3
    assert tok(text, "two two", max_length=4, truncation=True, add_special_tokens=False)["input_ids"] == [
        2028, 2028, 2048, 2048]
    assert len(tok(" ".join(["one"] * 600), truncation=True)["input_ids"]) == 512  # model_max_length


@both_paths
def test_a_row_over_max_length_is_refused_unless_truncation(uncased, fast):
    message = r"text 1 encodes to 22 tokens, more than max_length=10; pass truncation=True"
    with pytest.raises(TokenizerError, match=message):
        uncased[fast](["short", " ".join(["one"] * 20)], max_length=10)


@both_paths
def test_padding_and_tensors(uncased, fast):
    tok = uncased[fast]
    texts = ["Call me Ishmael.", "Some years ago, never mind how long precisely", "hi"]
    longest = tok(texts, padding=True, return_offsets_mapping=True, return_special_tokens_mask=True)
    width = max(len(tok(t)["input_ids"]) for t in texts)
    assert {len(row) for column in longest.values() for row in column} == {width}
    assert longest["input_ids"][2] == [101, 7632, 102] + [0] * (width - 3)
    assert longest["attention_mask"][2] == [1, 1, 1] + [0] * (width - 3)
    assert longest["special_tokens_mask"][2] == [1, 0, 1] + [1] * (width - 3)
    assert longest["offset_mapping"][2][3:] == [(0, 0)] * (width - 3)

    batch = tok(texts, padding="max_length", max_length=16, return_tensors="pt")
    assert set(batch) == {"input_ids", "token_type_ids", "attention_mask"}
    assert all(v.shape == (3, 16) and v.dtype == torch.long for v in batch.values())
    assert torch.equal(batch.input_ids, batch["input_ids"])  # attributes, too
    one = tok("hi", return_tensors="pt")  # a batch of one, as transformers does, so model(**one) works
    assert one["input_ids"].tolist() == [[101, 7632, 102]]
    with pytest.raises(TokenizerError, match="rows have different lengths .* pass padding=True"):
        tok(texts, return_tensors="pt")


def test_a_batch_goes_straight_into_the_model(uncased, minilm_dir):
    import minibert

    model = minibert.BertModel.from_pretrained(minilm_dir).eval()
    batch = uncased[True](["Call me Ishmael.", "Some years ago"], ["It is a way I have", "of driving"],
                          padding=True, return_tensors="pt")
    with torch.no_grad():
        out = model(**batch)
    assert out.last_hidden_state.shape == (2, batch["input_ids"].shape[1], 384)


@both_paths
def test_offsets_point_at_the_text_as_written(uncased, fast):
    text = "Naïve cafe\u0301, [MASK] 北京!"
    enc = uncased[fast](text, return_offsets_mapping=True)
    spans = [text[s:e] for s, e in enc["offset_mapping"]]
    assert spans == ["", "Naïve", "cafe\u0301", ",", "[MASK]", "北", "京", "!", ""]
    pair = uncased[fast]("x", "cafe\u0301 y", return_offsets_mapping=True)
    assert pair["offset_mapping"] == [(0, 0), (0, 1), (0, 0), (0, 5), (6, 7), (0, 0)]


@both_paths
def test_decode_undoes_wordpiece(uncased, fast):
    tok = uncased[fast]
    ids = tok("Call me Ishmael, unaffable!")["input_ids"]
    assert tok.decode(ids) == "[CLS] call me ishmael, unaffable! [SEP]"
    assert tok.decode(ids, skip_special_tokens=True) == "call me ishmael, unaffable!"
    assert tok.decode(torch.tensor([ids, ids])) == [tok.decode(ids)] * 2
    assert tok.decode([]) == ""


def test_special_tokens_and_ids(uncased):
    tok = uncased[True]
    assert (tok.pad_token, tok.unk_token, tok.cls_token, tok.sep_token, tok.mask_token) == (
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
    assert (tok.pad_token_id, tok.unk_token_id, tok.cls_token_id, tok.sep_token_id, tok.mask_token_id) == (
        0, 100, 101, 102, 103)
    assert tok.vocab_size == len(tok) == 30522
    assert tok.convert_ids_to_tokens([101, 7592]) == ["[CLS]", "hello"]
    assert tok.convert_tokens_to_ids("not-a-token") == 100


# ---- bad input -----------------------------------------------------------------------------------

@both_paths
@pytest.mark.parametrize("bad, message", [
    (None, "text must be a str, got NoneType"),
    (42, "text must be a str, got int"),
    (b"bytes", "text must be a str, got bytes"),
])
def test_non_strings_are_refused(uncased, fast, bad, message):
    tok = uncased[fast]
    with pytest.raises(TokenizerError, match=message):
        tok.tokenize(bad)
    with pytest.raises(TokenizerError, match=message):
        tok.encode(bad)


@both_paths
def test_bad_batches_are_refused(uncased, fast):
    tok = uncased[fast]
    with pytest.raises(TokenizerError, match=r"texts\[1\] is NoneType, not str"):
        tok(["fine", None])
    with pytest.raises(TokenizerError, match=r"texts\[0\] is tuple, not str; pass pairs as two lists"):
        tok([("a", "b")])
    with pytest.raises(TokenizerError, match="got 2 texts but 1 text_pairs"):
        tok(["a", "b"], ["c"])
    with pytest.raises(TokenizerError, match="padding='yes'"):
        tok(["a"], padding="yes")
    with pytest.raises(TokenizerError, match="return_tensors='np'"):
        tok(["a"], return_tensors="np")
    for bad in (2, 0, "10", True):
        with pytest.raises(TokenizerError, match="max_length=.* at least 3"):
            tok(["a"], ["b"], max_length=bad)
    with pytest.raises(TokenizerError, match=r"id 30522 is not a token id of this vocabulary \(0 .. 30521\)"):
        tok.decode([101, 30522])


@both_paths
def test_empty_input_has_a_defined_result(uncased, fast):
    tok = uncased[fast]
    assert tok("")["input_ids"] == [101, 102]
    assert tok("", "")["token_type_ids"] == [0, 0, 1]
    assert tok([]) == {"input_ids": [], "token_type_ids": [], "attention_mask": []}
    assert tok([], padding=True)["input_ids"] == []


@pytest.mark.parametrize("content, message", [
    (None, "no vocabulary file at"),
    ("", "is empty"),
    ("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n", r"lacks the special token\(s\) \[MASK\]"),
    ("[PAD]\n[UNK]\nhello\n", r"lacks the special token\(s\) \[CLS\], \[SEP\], \[MASK\]"),
    ("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nhello\n", "line 7: 'hello' already appears on line 6"),
    ("[PAD]\n[UNK]\n\n[CLS]\n[SEP]\n[MASK]\n", "line 3: token '' is empty"),
])
def test_bad_vocab_files_are_refused(tmp_path, content, message):
    path = tmp_path / "vocab.txt"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(TokenizerError, match=message):
        Tokenizer.from_vocab(path)


def test_vocab_files_from_windows_and_not_utf8(tmp_path):
    (tmp_path / "vocab.txt").write_bytes(b"[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n[MASK]\r\nhello\r\n")
    assert Tokenizer.from_vocab(tmp_path).tokenize("Hello") == ["hello"]
    (tmp_path / "vocab.txt").write_bytes("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\ncafé\n".encode("latin-1"))
    with pytest.raises(TokenizerError, match="is not UTF-8 text"):
        Tokenizer.from_vocab(tmp_path)
    (tmp_path / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\ncafé\n", encoding="utf-8")
    (tmp_path / "tokenizer_config.json").write_bytes('{\n  "note": "café"\n}\n'.encode("latin-1"))
    with pytest.raises(TokenizerError, match=r"tokenizer_config.json is not UTF-8 text: line 2, byte offset 16"):
        Tokenizer.from_pretrained(tmp_path)


def test_a_vocab_of_the_wrong_case_is_flagged(minilm_dir, tmp_path, caplog):
    Tokenizer.from_vocab(minilm_dir / "vocab.txt", lowercase=False)
    assert "this vocabulary has no capital letters (an uncased vocab)" in caplog.text
    caplog.clear()
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "Hello", "World", "the"]
    (tmp_path / "vocab.txt").write_text("\n".join(vocab), encoding="utf-8")
    Tokenizer.from_vocab(tmp_path, lowercase=True)
    assert "entries of this vocabulary have capital letters (a cased vocab)" in caplog.text


def test_encoding_attribute_errors_name_the_keys(uncased):
    with pytest.raises(AttributeError, match="Encoding has no 'labels'; it holds input_ids, token_type_ids"):
        uncased[True]("hi").labels


def test_a_vocab_dict_is_checked_like_a_file():
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert Tokenizer({t: i for i, t in enumerate(specials + ["hi"])}, fast=False).tokenize("Hi") == ["hi"]
    with pytest.raises(TokenizerError, match="vocab ids must run 0, 1, ..., len"):
        Tokenizer({t: 2 * i for i, t in enumerate(specials)})
    with pytest.raises(TokenizerError, match=r"the vocab lacks the special token\(s\) \[MASK\]"):
        Tokenizer({t: i for i, t in enumerate(specials[:4])})
