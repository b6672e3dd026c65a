"""Training a WordPiece vocabulary, and what the trained tokenizer writes."""

import gc

import pytest

from benchmarks.real_text import real_lines
from minibert import Tokenizer, TokenizerError, train_wordpiece

transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Real text as two files, the way a corpus arrives."""
    lines = real_lines()[:6000]
    folder = tmp_path_factory.mktemp("corpus")
    (folder / "a.txt").write_text("\n".join(lines[:3000]) + "\n", encoding="utf-8")
    (folder / "b.txt").write_text("\n".join(lines[3000:]) + "\n", encoding="utf-8")
    return [folder / "a.txt", folder / "b.txt"], lines


def test_special_tokens_come_first_then_unused_slots(corpus, tmp_path):
    files, lines = corpus
    tok = train_wordpiece(files, vocab_size=2000, num_unused=10, out_dir=tmp_path)
    vocab = (tmp_path / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert vocab[:15] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"[unused{i}]" for i in range(10)]
    assert len(vocab) == len(tok) <= 2000 and len(vocab) > 1900
    assert (tok.pad_token_id, tok.unk_token_id, tok.cls_token_id, tok.sep_token_id, tok.mask_token_id) == (
        0, 1, 2, 3, 4)
    assert any(t.startswith("##") for t in vocab) and all(t == t.lower() for t in vocab[15:])
    # Every piece is reachable: common words come out whole, rare ones in pieces, nothing is [UNK].
    pieces = tok.tokenize("The function returns the value of the attribute.")
    assert "[UNK]" not in pieces and "function" in pieces
    assert "[unused3]" not in tok.tokenize("[unused3]")  # spare slots are not special tokens


def test_the_vocab_file_loads_in_transformers_with_the_same_ids(corpus, tmp_path):
    files, lines = corpus
    tok = train_wordpiece(files, vocab_size=3000, lowercase=False, out_dir=tmp_path)
    for hf in (transformers.BertTokenizer(str(tmp_path / "vocab.txt"), do_lower_case=False),
               transformers.AutoTokenizer.from_pretrained(tmp_path)):
        assert hf(lines[:2000])["input_ids"] == tok(lines[:2000])["input_ids"]
    assert Tokenizer.from_pretrained(tmp_path).lowercase is False


def test_training_is_deterministic_and_texts_equal_files(corpus):
    files, lines = corpus
    first = train_wordpiece(files, vocab_size=1500)
    assert train_wordpiece(files, vocab_size=1500).vocab == first.vocab
    assert train_wordpiece(texts=lines, vocab_size=1500).vocab == first.vocab


def test_bad_training_requests_are_refused(tmp_path):
    with pytest.raises(TokenizerError, match="pass either files=.* or texts="):
        train_wordpiece()
    with pytest.raises(TokenizerError, match="pass either files=.* or texts="):
        train_wordpiece([tmp_path / "a.txt"], texts=["a"])
    with pytest.raises(TokenizerError, match="no text file at .*missing.txt"):
        train_wordpiece([tmp_path / "missing.txt"])
    with pytest.raises(TokenizerError, match="vocab_size=10 leaves no room .* 10 special and unused"):
        train_wordpiece(texts=["a b"], vocab_size=10, num_unused=5)
    with pytest.raises(TokenizerError, match="got one string; wrap it in a list"):
        train_wordpiece(texts="just one string")
    with pytest.raises(TokenizerError, match=r"texts\[1\] is int, not str"):
        train_wordpiece(texts=["fine", 3])


def test_a_corpus_file_that_is_not_utf8_is_refused_with_its_line_and_byte(tmp_path):
    good = tmp_path / "good.txt"  # read first: line and byte count from the start of the bad file
    good.write_text("plenty of fine text\n" * 50, encoding="utf-8")
    bad = tmp_path / "latin1.txt"
    # Line 3 has the byte 0xff ("ÿ" in Latin-1), which UTF-8 never uses.
    bad.write_bytes(b"call me ishmael\nsome years ago\ncaf\xff au lait\nmore\n")
    offset = len(b"call me ishmael\nsome years ago\ncaf")  # 33, counted from 0
    with pytest.raises(TokenizerError) as error:
        train_wordpiece([good, bad], vocab_size=100)
    message = str(error.value)
    assert str(bad) in message and "line 3" in message and f"byte offset {offset}" in message
    assert "\\xff" in message and "iconv" in message and "grep -naxv" in message


def test_batches_leave_the_garbage_collector_as_they_found_it(minilm_dir):
    tok = Tokenizer.from_vocab(minilm_dir)
    tok(["a batch"] * 10)
    assert gc.isenabled()
    gc.disable()
    try:
        tok(["a batch"] * 10)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(TokenizerError):
        tok(["a b c"], max_length=3)  # an error inside the batch still restores it
    assert gc.isenabled()


def test_a_tokenizer_pickles_for_dataloader_workers(minilm_dir):
    import pickle

    for fast in (True, False):
        tok = Tokenizer.from_vocab(minilm_dir, fast=fast)
        copy = pickle.loads(pickle.dumps(tok))
        assert copy(["Call me Ishmael."])["input_ids"] == tok(["Call me Ishmael."])["input_ids"]
