"""The checker of exercise 9.1: the labels of the paper's left-to-right LM (Table 5, "LTR & No NSP"):
the label at position t is the token at t + 1, and -100 where there is no next real token (at the
last real token and at every padding position), as `MaskingCollator(objective="ltr")` makes them."""

from __future__ import annotations

import torch

from ...inputs import IGNORE_INDEX
from ...masking import MaskingCollator
from ..common import ExerciseError, short, call, passed

PAD, CLS, SEP, MASK = 0, 2, 3, 4  # a small vocabulary's special ids; words are 5 and up


def _reference(input_ids, attention_mask, *, shift=1, by="next", ignore=IGNORE_INDEX, wrap=False):
    """The right labels (B, T); the keyword arguments make the usual mistakes."""
    labels = torch.full_like(input_ids, ignore)
    if wrap:  # torch.roll: the last column gets the first token back
        labels = torch.roll(input_ids, -1, dims=1)
    if shift == 1:
        labels[:, :-1] = input_ids[:, 1:]
    elif shift == -1:
        labels[:, 1:] = input_ids[:, :-1]
    else:
        labels = input_ids.clone()
    real = {"next": torch.cat([attention_mask[:, 1:], torch.zeros_like(attention_mask[:, :1])], 1),
            "here": attention_mask, "none": torch.ones_like(attention_mask)}[by]  # (B, T): is the label real?
    if wrap and by == "none":
        return labels
    return labels.masked_fill(real == 0, ignore)


MISTAKES = [
    ("the label at the last real token is [PAD] (or whatever follows it): there is no next token to "
     "predict there, so it gets -100, like every padding position", dict(by="here")),
    ("padding is labelled: positions whose next token is [PAD] must get -100 (cross_entropy skips -100)",
     dict(by="none")),
    ("torch.roll wraps around: the last position is labelled with the first token ([CLS]). Shift "
     "without wrapping: labels[:, :-1] = input_ids[:, 1:], and -100 where there is no next real token",
     dict(wrap=True, by="none")),
    ("torch.roll wraps around: the last position is labelled with the first token; give it -100",
     dict(wrap=True, by="here")),
    ("these are the inputs themselves: a model would learn to copy what it already sees. The label at "
     "t is the token at t + 1", dict(shift=0, by="here")),
    ("these are the inputs themselves: the label at t is the token at t + 1", dict(shift=0)),
    ("this is the *previous* token: a left-to-right LM predicts the next one (labels[:, :-1] = "
     "input_ids[:, 1:])", dict(shift=-1, by="here")),
]

HAND = [  # (input_ids, attention_mask, lesson)
    ([[CLS, 11, 12, 13, SEP]], [[1, 1, 1, 1, 1]],
     "no padding: every token's label is the next one; [SEP], the last, has none"),
    ([[CLS, 11, 12, SEP, PAD, PAD], [CLS, 21, 22, 23, 24, SEP]], [[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]],
     "a padded row: its last real token ([SEP]) and its padding get -100"),
    ([[CLS, 7, SEP, 8, 9, SEP, PAD]], [[1, 1, 1, 1, 1, 1, 0]],
     "a pair: the first [SEP] is predicted like any token, and B's first token after it"),
    ([[CLS, 11, SEP], [PAD, PAD, PAD]], [[1, 1, 1], [0, 0, 0]],
     "a row of padding only, as BERT's run_classifier.py fills up the last batch: every label of it is -100"),
]


# Another vocabulary's numbering (RoBERTa's: <s> = 0, <pad> = 1, </s> = 2): padding is not id 0, and a real token is.
# Apart from HAND, whose names show BERT's special ids.
MORE = [([[0, 11, 12, 2, 1, 1], [0, 21, 2, 1, 1, 1]], [[1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 0, 0]],
         "RoBERTa's numbering, <s> = 0, </s> = 2 and <pad> = 1: the mask, not the ids, says which tokens are real")]


def _collator_labels(input_ids, attention_mask) -> torch.Tensor:
    """minibert's own labels: MaskingCollator(objective="ltr") on the rows, unpadded."""
    collate = MaskingCollator(pad_token_id=PAD, cls_token_id=CLS, sep_token_id=SEP, mask_token_id=MASK,
                              vocab_size=100, special_token_ids=[PAD, CLS, SEP, MASK], objective="ltr")
    rows = [{"input_ids": ids[:n], "token_type_ids": torch.zeros(n, dtype=torch.long), "next_sentence_label": torch.tensor(0)}
            for ids, n in zip(input_ids, attention_mask.sum(1).tolist())]
    labels = collate(rows)["labels"]
    return torch.nn.functional.pad(labels, (0, input_ids.shape[1] - labels.shape[1]), value=IGNORE_INDEX)


def _compare(name, fn, input_ids, attention_mask):
    ids, mask = input_ids.clone(), attention_mask.clone()
    got = call(fn, name, ids, mask)
    if not (torch.equal(ids, input_ids) and torch.equal(mask, attention_mask)):
        raise ExerciseError(f"{name}: your function changed input_ids or attention_mask; the inputs stay as "
                            "they are (the model reads them): build the labels in a new tensor (clone first)")
    expected = _collator_labels(input_ids, attention_mask)
    assert torch.equal(expected, _reference(input_ids, attention_mask))  # minibert and the rule agree
    if not isinstance(got, torch.Tensor):
        raise ExerciseError(f"{name}: expected a tensor of shape {tuple(expected.shape)}, received {short(got)}")
    if got.shape != expected.shape:
        hint = (" (the last position is kept and gets -100: labels have the inputs' shape)"
                if got.shape[-1] == expected.shape[-1] - 1 else "")
        raise ExerciseError(f"{name}: expected shape {tuple(expected.shape)}, received {tuple(got.shape)}{hint}")
    if got.dtype != torch.long:
        raise ExerciseError(f"{name}: labels must be integer token ids (torch.long), received {got.dtype}")
    if torch.equal(got, expected):
        return
    hint = ""
    by_id = _reference(input_ids, (input_ids != PAD).long())  # padding told by its id rather than by the mask
    if (input_ids[attention_mask == 0] != PAD).any() and torch.equal(got, by_id):
        hint = (f"padding was found by its id, {PAD}: here padding holds another id (and {PAD} may be a real token); "
                "whether position t + 1 is real is attention_mask[:, t + 1]")
    hint = hint or next((h for h, kw in MISTAKES if torch.equal(got, _reference(input_ids, attention_mask, **kw))), "")
    if not hint:
        for wrong in (-1, 0, PAD):
            if torch.equal(got, expected.masked_fill(expected == IGNORE_INDEX, wrong)):
                hint = (f"the positions to ignore hold {wrong}; cross_entropy ignores -100 (IGNORE_INDEX), "
                        f"and {wrong} would be taken for a token to predict")
    raise ExerciseError(f"{name}:\n  input_ids      {input_ids.tolist()}\n  attention_mask {attention_mask.tolist()}"
                        f"\n  expected labels {expected.tolist()}\n  received labels {got.tolist()}"
                        + (f"\n  hint: {hint}" if hint else ""))


def ltr_labels(fn) -> None:
    """fn(input_ids (B, T), attention_mask (B, T)) -> labels (B, T): next-token ids, -100 where none."""
    for ids, mask, lesson in HAND:
        ids, mask = torch.tensor(ids), torch.tensor(mask)
        _compare(f"hand case ({lesson}; [CLS]={CLS}, [SEP]={SEP}, [PAD]={PAD})", fn, ids, mask)
    for ids, mask, lesson in MORE:
        _compare(f"hand case ({lesson})", fn, torch.tensor(ids), torch.tensor(mask))
    g = torch.Generator().manual_seed(91)
    cases = [(1, 9), (4, 12), (8, 32)]
    for B, T in cases:
        lengths = torch.randint(3, T + 1, (B,), generator=g)
        lengths[0] = T  # one full row in every batch
        mask = (torch.arange(T)[None] < lengths[:, None]).long()  # (B, T), real tokens first
        ids = torch.randint(5, 100, (B, T), generator=g)
        ids[:, 0] = CLS
        ids[torch.arange(B), lengths - 1] = SEP
        _compare(f"random batch (B, T) = ({B}, {T}), lengths {lengths.tolist()}, against "
                 "MaskingCollator(objective='ltr')", fn, ids.masked_fill(mask == 0, PAD), mask)
    passed("ltr_labels", f"{len(HAND) + len(MORE)} hand-computed batches and {len(cases)} random ones equal "
                         "MaskingCollator(objective='ltr')'s next-token labels")
