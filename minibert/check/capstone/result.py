"""The capstone's two verdicts: the learner's BERT fine-tuned by the learner's loop reaches the stated
dev accuracy on sentiment, and the learner's BERT with the course model's weights fills in
[MASK] as minibert does (after 11.5). When a number is off, the piece checks run again, in the chain's order,
and the first that fails is named (tokenizer, model, loop)."""

from __future__ import annotations

import contextlib
import io

import torch

from ..common import ExerciseError, as_float, passed
from .fill_mask import COURSE
from .reference import quietly

TARGET = 0.75  # MiniLM fine-tuned by minibert on the same 2,000 snippets: 79% (results/finetune/sentiment)
EPOCHS = 3


def first_broken_piece(tokenize, model_class, load, loop) -> str | None:
    """The first piece whose check fails, with its message; None when all of them pass."""
    from .loop import finetune_loop
    from .model import assembled_bert, bert_pieces
    from .tokenizer import tokenizer_ids

    pieces = [("tokenizer (11.1)", lambda: tokenizer_ids(tokenize)), ("model (11.2)", lambda: bert_pieces(model_class)),
              ("model with MiniLM's weights (11.3)", lambda: assembled_bert(model_class, load))]
    if loop is not None:
        pieces.append(("fine-tuning loop (11.4)", lambda: finetune_loop(loop)))
    for name, run in pieces:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                run()
        except ExerciseError as e:
            return f"the {name}: {e}"
    return None


def _majority() -> float:
    from ...tasks import load_task

    labels = [x["label"] for x in load_task("sentiment", "dev")]
    return max(labels.count(k) for k in set(labels)) / len(labels)


def fine_tuned(accuracies, tokenize, model_class, load, loop) -> None:
    """The dev accuracies after each of the 3 epochs of the notebook's run: the last one reaches TARGET."""
    values = [as_float(a) for a in accuracies] if isinstance(accuracies, (list, tuple)) else []
    if len(values) != EPOCHS or any(v is None for v, _ in values):
        raise ExerciseError(f"expected the {EPOCHS} dev accuracies my_finetune returns, received {accuracies!r:.200}")
    last = values[-1][0]
    if last < TARGET:
        broken = first_broken_piece(tokenize, model_class, load, loop)
        where = (f"\n  the chain breaks at {broken}" if broken else
                 "\n  every piece passes its check, so look at the run: a fresh MyBert, MiniLM's weights loaded, "
                 "the notebook's batches, epochs=3 and lr=1e-4")
        raise ExerciseError(f"dev accuracy {last:.1%} after {EPOCHS} epochs, below the {TARGET:.0%} this run reaches"
                            + where)
    passed("fine_tuned", f"your BERT, loaded with MiniLM's weights and fine-tuned by your loop, is above {TARGET:.0%} "
                       f"on the {_dev_size():,} dev snippets after {EPOCHS} epochs (always the majority label: "
                       f"{_majority():.1%})")


def _dev_size() -> int:
    from ...tasks import load_task

    return len(load_task("sentiment", "dev"))


def minibert_guesses(sentences: list[str], k: int = 5) -> list[list[str]]:
    """minibert's top-k pieces at the [MASK] of each sentence, from the course model."""
    from ...heads import BertForPreTraining
    from ...tokenizer import Tokenizer

    tokenizer = Tokenizer.from_pretrained(COURSE)
    with quietly():
        model = BertForPreTraining.from_pretrained(COURSE)
    out = []
    for sentence in sentences:
        rows = tokenizer.encode_batch([sentence], return_tensors="pt")
        where = int((rows["input_ids"][0] == tokenizer.mask_token_id).nonzero()[0])
        with torch.no_grad():
            logits = model(**rows).mlm_logits[0, where]  # (V,)
        out.append(tokenizer.convert_ids_to_tokens(logits.topk(k).indices.tolist()))
    return out


def fill_mask(guesses, sentences, tokenize, model_class, load) -> None:
    """`guesses[i]`: the learner's BERT's top-5 pieces at the [MASK] of sentences[i] (course model)."""
    expected = minibert_guesses(sentences)
    for sentence, got, want in zip(sentences, guesses, expected, strict=True):
        if list(got) != want:
            broken = first_broken_piece(tokenize, model_class, load, None)
            raise ExerciseError(f"{sentence!r}: minibert's course model guesses {want}, yours {list(got)}"
                                + (f"\n  the chain breaks at {broken}" if broken else
                                   "\n  hint: every piece passes its check: is the [MASK] id where the [MASK] is, "
                                   "and are [CLS] and [SEP] around the sentence?"))
    passed("fill_mask", f"your BERT with the course model's weights makes minibert's top-5 guesses at the [MASK] of "
                        f"all {len(sentences)} sentences")
