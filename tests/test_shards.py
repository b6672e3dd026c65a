"""Instances on disk: written by worker processes, resumable, read back, batched and masked."""

import numpy as np
import pytest
import torch
from pydoc_data.topics import topics

from minibert import Tokenizer
from minibert.masking import IGNORE_INDEX
from minibert.corpus import read_documents
from minibert.masking import MaskingCollator
from minibert.pretrain.shards import ShardDataset, write_shards


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Python's help topics in BERT's format: one topic per document, one line per sentence."""
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    docs = ["\n".join(line.strip() for line in topics[name].splitlines() if line.strip()) for name in sorted(topics)]
    path.write_text("\n\n".join(docs) + "\n", encoding="utf-8")
    return path


def shard_bytes(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.npy"))}


def write(corpus, folder, minilm_dir, **kwargs):
    return write_shards(corpus, folder, vocab=minilm_dir / "vocab.txt", docs_per_shard=10, **kwargs)


def test_the_number_of_workers_changes_nothing(corpus, tmp_path, minilm_dir):
    one = write(corpus, tmp_path / "one", minilm_dir, workers=1)
    two = write(corpus, tmp_path / "two", minilm_dir, workers=2)
    assert one == two and one["documents"] == len(list(read_documents(corpus))) == len(topics)
    assert shard_bytes(tmp_path / "one") == shard_bytes(tmp_path / "two")
    write(corpus, tmp_path / "seed1", minilm_dir, seed=1)
    assert shard_bytes(tmp_path / "one") != shard_bytes(tmp_path / "seed1")


def test_an_interrupted_run_resumes_where_it_stopped(corpus, tmp_path, minilm_dir):
    folder = tmp_path / "run"
    first = write(corpus, folder, minilm_dir)
    before = shard_bytes(folder)
    for path in folder.glob("00003.*"):  # as if the run had died while writing shard 3
        path.unlink()
    again = write(corpus, folder, minilm_dir)
    assert again["written"] == 1 and again["instances"] == first["instances"]
    assert shard_bytes(folder) == before
    with pytest.raises(ValueError, match="holds shards made with other settings \\(max_seq_length\\)"):
        write(corpus, folder, minilm_dir, max_seq_length=64)


def test_the_dataset_reads_back_what_was_written(corpus, tmp_path, minilm_dir):
    totals = write(corpus, tmp_path / "ds", minilm_dir)
    dataset = ShardDataset(tmp_path / "ds")
    assert len(dataset) == totals["instances"] and totals["tokens"] == sum(
        len(dataset[i]["input_ids"]) for i in range(len(dataset)))
    assert np.load(next((tmp_path / "ds").glob("*.ids.npy"))).dtype == np.uint16  # 2 bytes a token
    labels = torch.stack([dataset[i]["next_sentence_label"] for i in range(len(dataset))])
    assert 0.4 < labels.float().mean() < 0.6
    for i in (0, len(dataset) // 2, len(dataset) - 1):
        item = dataset[i]
        ids, types = item["input_ids"].tolist(), item["token_type_ids"].tolist()
        assert ids[0] == 101 and ids[-1] == 102 and len(ids) <= 128
        assert ids[types.index(1) - 1] == 102 and types == sorted(types)  # [CLS] A [SEP] | B [SEP]
    with pytest.raises(FileNotFoundError, match="no finished shards"):
        ShardDataset(tmp_path / "nothing-here")


def test_batches_are_padded_and_masked_statically_or_dynamically(corpus, tmp_path, minilm_dir):
    write(corpus, tmp_path / "b", minilm_dir)
    dataset = ShardDataset(tmp_path / "b")
    tok = Tokenizer.from_vocab(minilm_dir)
    ids = dict(pad_token_id=tok.pad_token_id, cls_token_id=tok.cls_token_id, sep_token_id=tok.sep_token_id,
               mask_token_id=tok.mask_token_id, vocab_size=len(tok), special_token_ids=tok.all_special_ids)
    rows = [dataset[i] for i in range(16)]
    static = MaskingCollator(**ids, static=True)
    batch = static(rows)
    lengths = torch.tensor([len(r["input_ids"]) for r in rows])
    assert torch.equal(batch["attention_mask"].sum(1), lengths)
    selected = batch["labels"] != IGNORE_INDEX
    assert not (selected & (batch["attention_mask"] == 0)).any()
    real = torch.stack([torch.nn.functional.pad(r["input_ids"], (0, 128 - len(r["input_ids"]))) for r in rows])
    assert not torch.isin(real[selected], torch.tensor([101, 102, 0])).any()
    assert torch.equal(static(rows[::-1])["labels"], batch["labels"].flip(0))  # per instance, not per batch
    # ... and not per batch width: a row masked alone gets the masks it gets beside longer rows.
    row = max((i for i in range(16) if lengths[i] < lengths.max()), key=lengths.__getitem__)  # many masks
    alone = static([rows[row]])
    for key in ("input_ids", "labels"):  # which tokens, and what each became ([MASK], random, kept)
        assert torch.equal(alone[key][0], batch[key][row, :lengths[row]]), key
    dynamic = MaskingCollator(**ids)
    assert not torch.equal(dynamic(rows)["labels"], dynamic(rows)["labels"])  # new masks each time
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, collate_fn=dynamic)
    assert next(iter(loader))["input_ids"].shape[0] == 8


def test_a_corpus_that_gives_nothing_is_an_error(tmp_path, minilm_dir):
    (tmp_path / "empty.txt").write_text("\n\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="gave no instances"):
        write(tmp_path / "empty.txt", tmp_path / "out", minilm_dir)


def test_left_to_right_labels_and_a_visible_check(corpus, tmp_path, minilm_dir):
    from minibert.masking import show_masks

    write(corpus, tmp_path / "v", minilm_dir)
    dataset = ShardDataset(tmp_path / "v")
    tok = Tokenizer.from_vocab(minilm_dir)
    ids = dict(pad_token_id=0, cls_token_id=101, sep_token_id=102, mask_token_id=103, vocab_size=len(tok),
               special_token_ids=tok.all_special_ids)
    rows = [dataset[i] for i in range(4)]
    ltr = MaskingCollator(**ids, objective="ltr")(rows)
    n = len(rows[0]["input_ids"])
    assert torch.equal(ltr["labels"][0, :n - 1], rows[0]["input_ids"][1:])  # each label is the next token
    assert bool((ltr["labels"][0, n - 1:] == IGNORE_INDEX).all())
    with pytest.raises(ValueError, match="objective='gpt'"):
        MaskingCollator(**ids, objective="gpt")

    batch = MaskingCollator(**ids, static=True, mlm_probability=0.5)(rows)
    shown = show_masks(rows[0]["input_ids"].tolist(), batch["input_ids"][0].tolist(), batch["labels"][0].tolist(),
                       tok.ids_to_tokens)
    print(shown)  # what chapter 04 shows: [MASK:x] masked, ~y:x~ random, =x= kept
    assert shown.startswith("[CLS] ") and shown.count("[MASK:") >= 1
    assert len(shown.split()) >= n


def test_lines_that_are_not_utf8_are_read_and_counted(corpus, tmp_path, minilm_dir):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(corpus.read_bytes() + b"\n\nA caf\xe9 in Latin-1.\nAnother line.\n")
    totals = write(bad, tmp_path / "out", minilm_dir)
    assert totals["skipped"]["lines not UTF-8"] == 1 and totals["documents"] == len(topics) + 1


def test_the_command_records_what_a_run_on_its_folder_needs(corpus, tmp_path, minilm_dir, small):
    """`python -m minibert.pretrain.shards` leaves complete.json with the unigram entropy, so a run on
    the folder logs it, and diagnose can tell a model that ignores the context."""
    import json

    from minibert.pretrain import pretrain, read_log, recipe
    from minibert.pretrain.shards import main, unigram_entropy
    from minibert.tokenizer import load_vocab

    main(["--corpus", str(corpus), "--out", str(tmp_path / "shards"), "--workers", "1",
          "--vocab", str(minilm_dir / "vocab.txt"), "--docs-per-shard", "10"])
    facts = json.loads((tmp_path / "shards" / "complete.json").read_text())
    expected = unigram_entropy(ShardDataset(tmp_path / "shards"), load_vocab(minilm_dir / "vocab.txt"))
    assert facts["unigram_entropy"] == expected and 3 < expected < np.log(30_522)
    assert facts["instances"] == len(ShardDataset(tmp_path / "shards"))
    cfg = recipe("tiny", **{**small, "train_corpus": str(tmp_path / "shards"), "vocab": str(minilm_dir / "vocab.txt"),
                            "out_dir": str(tmp_path / "run"), "max_steps": 1, "warmup_steps": 1, "batch_size": 4,
                            "eval_batches": 1})
    pretrain(cfg)
    header = read_log(cfg.out_dir)[0]
    assert header["unigram_entropy"] == expected and header["train_instances"] == facts["instances"]
