"""The tokenizer against BERT's own, on real text and on every Unicode character.

Two oracles from transformers 5: `BertTokenizer` (on the Rust tokenizers library, what BERT
checkpoints are used with today) and `BertTokenizerLegacy` (the Python port of Google's
tokenization.py). Real text: ~28k lines of English prose from Python's help topics and the
descriptions of the installed packages (benchmarks/real_text.py)."""

import random
import unicodedata

import pytest

from benchmarks.real_text import real_lines
from minibert import Tokenizer, train_wordpiece
from minibert.tokenizer import reference

transformers = pytest.importorskip("transformers")
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy  # noqa: E402


@pytest.fixture(scope="module")
def lines():
    lines = real_lines()
    assert len(lines) > 20_000 and sum(not line.isascii() for line in lines) > 500
    return lines


@pytest.fixture(scope="module")
def uncased(minilm_dir):
    vocab = str(minilm_dir / "vocab.txt")
    return dict(reference=Tokenizer.from_vocab(vocab, fast=False), fast=Tokenizer.from_vocab(vocab),
                hf=transformers.BertTokenizer(vocab), legacy=BertTokenizerLegacy(vocab))


@pytest.fixture(scope="module")
def cased(lines, tmp_path_factory):
    """A cased vocabulary trained on the real text, and the four tokenizers that use it."""
    folder = tmp_path_factory.mktemp("cased")
    train_wordpiece(texts=lines, vocab_size=8000, lowercase=False, out_dir=folder)
    vocab = str(folder / "vocab.txt")
    return dict(reference=Tokenizer.from_vocab(vocab, lowercase=False, fast=False),
                fast=Tokenizer.from_vocab(vocab, lowercase=False),
                hf=transformers.BertTokenizer(vocab, do_lower_case=False),
                legacy=BertTokenizerLegacy(vocab, do_lower_case=False))


def encode_all(tokenizers, lines, **kwargs):
    return {name: tok(lines, **kwargs)["input_ids"] for name, tok in tokenizers.items()}


@pytest.mark.parametrize("vocab", ["uncased", "cased"])
def test_every_real_line_gets_the_same_ids_from_all_four(request, lines, vocab, report):
    tokenizers = request.getfixturevalue(vocab)
    ids = encode_all(tokenizers, lines)
    for name in ("fast", "hf", "legacy"):
        differ = [i for i, (a, b) in enumerate(zip(ids["reference"], ids[name])) if a != b]
        if name == "legacy":
            # BertTokenizerLegacy composes accents written apart (NFC) before a cased vocab sees
            # them; Google's code and the Rust library do not. Composed first, the line agrees.
            assert all(unicodedata.normalize("NFC", lines[i]) != lines[i] for i in differ)
            composed = [unicodedata.normalize("NFC", lines[i]) for i in differ]
            assert tokenizers["reference"](composed)["input_ids"] == [ids["legacy"][i] for i in differ]
            differ = []
        assert not differ, f"{vocab}: reference and {name} differ on {len(differ)} lines, e.g. {lines[differ[0]]!r}"
    report(f"tokenizer, {vocab} vocab: {len(lines)} real lines, identical ids from the reference, the fast "
           "path, transformers.BertTokenizer and BertTokenizerLegacy")


def test_real_pairs_are_truncated_as_bert_does(uncased, lines):
    """The Python tokenizer of transformers follows BERT's truncate_seq_pair; so must both paths."""
    firsts, seconds = lines[0:6000:2], lines[1:6000:2]
    kwargs = dict(max_length=24, truncation=True)
    ours = {name: uncased[name](firsts, seconds, **kwargs) for name in ("reference", "fast")}
    legacy = uncased["legacy"](firsts, seconds, return_token_type_ids=True, **kwargs)
    assert sum(len(row) == 24 for row in legacy["input_ids"]) > 1000  # most pairs were cut
    for name, enc in ours.items():
        assert enc["input_ids"] == legacy["input_ids"], name
        assert enc["token_type_ids"] == legacy["token_type_ids"], name


def test_offsets_reproduce_each_token_as_written(uncased, lines):
    accents = ["Ångström's café — naïve, résumé; ÉCOLE Über-cool", "cafe\u0301s and nai\u0308ve", "İstanbul 北京!"]
    texts = lines[:8000] + [line for line in lines if not line.isascii()] + accents
    spans = {}
    for name in ("reference", "fast"):
        enc = uncased[name](texts, return_offsets_mapping=True, add_special_tokens=False)
        spans[name] = enc["offset_mapping"]
        for text, ids, offsets in zip(texts, enc["input_ids"], enc["offset_mapping"]):
            for token, (start, end) in zip(uncased[name].convert_ids_to_tokens(ids), offsets):
                if token == "[UNK]":
                    assert start < end
                    continue
                # Normalised the way the tokenizer normalises, the span is the token itself.
                surface = reference.normalize(text[start:end])[0].strip()
                piece = token.removeprefix("##")
                # ... or a piece of one character that normalises to several (한 -> ᄒ ᅡ ᆫ).
                assert surface == piece or (end - start == 1 and piece in surface), (name, text, token)
                if not text[start:end].isascii():  # and accents written apart stay inside the span
                    assert end == len(text) or unicodedata.category(text[end]) != "Mn"
    assert spans["reference"] == spans["fast"]


def test_decoding_real_lines_and_random_ids(uncased, lines):
    rng = random.Random(0)
    ids = uncased["fast"](lines[:3000])["input_ids"]
    ids += [[rng.randrange(30522) for _ in range(rng.randrange(1, 30))] for _ in range(3000)]
    for skip in (False, True):
        expected = uncased["hf"].batch_decode(ids, skip_special_tokens=skip)
        assert uncased["fast"].decode(ids, skip_special_tokens=skip) == expected
        assert uncased["reference"].decode(ids, skip_special_tokens=skip) == expected


def test_every_unicode_character(uncased, report):
    """Each assigned code point, between letters: "ab{c}cd". Where the two transformers tokenizers
    disagree with each other, the reference sides with the Python one and the fast path with the
    Rust one; everywhere else all four agree. What is left is listed below and small."""
    chars = [chr(cp) for cp in range(0x110000) if unicodedata.category(chr(cp)) not in ("Cn", "Cs")]
    groups = [chars[i:i + 16] for i in range(0, len(chars), 16)]
    lines = [" ".join(f"ab{c}cd" for c in group) for group in groups]
    ids = encode_all(uncased, lines, add_special_tokens=False)
    assert ids["fast"] == ids["hf"]

    def differing(a, b):  # the characters behind the lines where tokenizers a and b differ
        tok_a, tok_b = uncased[a], uncased[b]
        return {c for i, group in enumerate(groups) if ids[a][i] != ids[b][i]
                for c in group if tok_a(f"ab{c}cd")["input_ids"] != tok_b(f"ab{c}cd")["input_ids"]}

    rust_vs_python = differing("hf", "legacy")
    # BertTokenizerLegacy applies NFC, which maps CJK compatibility ideographs to unified ones even
    # in a cased model. Google's tokenization.py and the Rust library do not; the reference follows them.
    assert differing("reference", "legacy") <= {c for c in chars if unicodedata.normalize("NFC", c) != c}
    # The rest: characters that the Rust library's Unicode tables (older than Python's) classify
    # otherwise. None of them is Latin, Greek, Cyrillic, common punctuation, CJK or an emoji.
    newer = differing("reference", "fast")
    assert newer <= rust_vs_python and len(newer) < 1000
    common = [(0, 0x058F), (0x2000, 0x206F), (0x3000, 0x9FFF), (0x1F300, 0x1FAFF)]
    assert not [c for c in newer if any(lo <= ord(c) <= hi for lo, hi in common)]
    report(f"tokenizer: {len(chars)} assigned code points, reference and fast path differ on {len(newer)}, "
           f"BertTokenizer and BertTokenizerLegacy on {len(rust_vs_python)}")


def test_a_saved_tokenizer_loads_everywhere(cased, lines, tmp_path):
    sample = lines[:2000] + ["Ångström Über naïve 北京 [MASK]"]
    expected = cased["fast"](sample)["input_ids"]
    folder = cased["reference"].save(tmp_path / "tok")
    assert sorted(p.name for p in folder.iterdir()) == ["tokenizer.json", "tokenizer_config.json", "vocab.txt"]
    reloaded = Tokenizer.from_pretrained(folder)
    assert reloaded.lowercase is False and reloaded.model_max_length == 512
    assert reloaded(sample)["input_ids"] == expected
    hf = transformers.AutoTokenizer.from_pretrained(folder)
    assert type(hf).__name__ == "BertTokenizer" and hf(sample)["input_ids"] == expected
    from tokenizers import Tokenizer as RustTokenizer
    rust = RustTokenizer.from_file(str(folder / "tokenizer.json"))
    assert [e.ids for e in rust.encode_batch(sample)] == expected
    legacy = BertTokenizerLegacy(str(folder / "vocab.txt"), do_lower_case=False)
    assert legacy(sample)["input_ids"] == expected


def test_from_pretrained_reads_minilm_and_hub_ids(minilm_dir, monkeypatch):
    tok = Tokenizer.from_pretrained(minilm_dir)  # no tokenizer_config.json: BERT's uncased defaults
    assert tok.lowercase and tok.tokenize("Hello") == ["hello"]
    import huggingface_hub
    calls = []
    monkeypatch.setattr(huggingface_hub, "snapshot_download",
                        lambda repo_id, allow_patterns: calls.append(allow_patterns) or str(minilm_dir))
    assert Tokenizer.from_pretrained("sentence-transformers/all-MiniLM-L6-v2").vocab_size == 30522
    assert "vocab.txt" in calls[0] and "tokenizer*.json" in calls[0]
    with pytest.raises(FileNotFoundError, match="is not a tokenizer folder"):
        Tokenizer.from_pretrained("./no/such/folder")


@pytest.mark.parametrize("lowercase, strip_accents", [(False, True), (True, False)])
def test_accent_options_match_transformers(cased, lines, tmp_path, lowercase, strip_accents):
    """The two less common settings: cased with accents stripped, uncased with accents kept."""
    texts = [line for line in lines if not line.isascii()] + ["Ångström Über naïve café ÉCOLE résumé"]
    vocab = cased["reference"].vocab
    ours = [Tokenizer(vocab, lowercase=lowercase, strip_accents=strip_accents, fast=fast)(texts)["input_ids"]
            for fast in (True, False)]
    cased["reference"].save(tmp_path)
    hf = transformers.BertTokenizer(str(tmp_path / "vocab.txt"), do_lower_case=lowercase, strip_accents=strip_accents)
    assert ours[0] == ours[1] == hf(texts)["input_ids"]
