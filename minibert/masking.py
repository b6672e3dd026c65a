"""The masked-LM corruption of BERT (paper, section 3.1 and appendix A.1).

Of the tokens that may be masked (not [CLS], [SEP] or padding), 15% are selected for prediction.
Each selected token is then replaced by [MASK] 80% of the time, by a random token 10% of the time,
and kept 10% of the time. The model must predict the original token at every selected position;
labels are -100 everywhere else, so the loss ignores them.

Why not always [MASK]? [MASK] never appears when the model is fine-tuned (the paper's "mismatch"),
and a model that only ever predicted at [MASK] would have no reason to keep a good representation of
the tokens it sees. The random and kept cases force it to keep one for every input token (the
paper's Table 8 ablates the proportions; `proportions` lets you repeat it).

Where Google's `create_masked_lm_predictions` differs: it counts [CLS] and [SEP] in the 15%, and
draws a random replacement from the whole vocabulary, specials included (so do transformers'
collators, which also select by a coin per token rather than an exact count).

Letters: B batch, T sequence length.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .inputs import IGNORE_INDEX  # the label cross_entropy skips
from . import seeding


def num_to_predict(num_candidates: int, mlm_probability: float, max_predictions: int | None) -> int:
    """How many tokens a sequence gets to predict: `round(15% of the candidates)`, at least one, at
    most `max_predictions` (Google's max_predictions_per_seq: 20 at length 128; 80 at 512 is NVIDIA's choice).
    Google's code takes the 15% of the whole sequence, [CLS] and [SEP] included; minibert takes it
    of the tokens that can actually be masked."""
    k = max(1, round(num_candidates * mlm_probability)) if num_candidates else 0
    return min(k, max_predictions) if max_predictions is not None else k


def mask_tokens(input_ids: torch.Tensor, *, special_tokens_mask: torch.Tensor, mask_token_id: int,
                vocab_size: int, generator: torch.Generator, mlm_probability: float = 0.15,
                proportions: tuple[float, float, float] = (0.8, 0.1, 0.1),
                max_predictions: int | None = None, special_token_ids: Sequence[int] = (),
                word_starts: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Corrupt a batch for masked-LM training. Returns (masked_input_ids, labels), both (B, T).

    input_ids            (B, T) token ids.
    special_tokens_mask  (B, T), 1 where a token must never be selected: [CLS], [SEP], padding.
    proportions          (mask, random, keep) for the selected tokens; BERT's is (0.8, 0.1, 0.1).
    special_token_ids    ids a random replacement must never be (the tokenizer's all_special_ids);
                         [MASK] is never one either, nor any id under special_tokens_mask.
    word_starts          (B, T), 1 where a word starts (a token without "##"): whole-word masking,
                         where a word and all its pieces are selected together.
    The generator makes the corruption a function of its seed: same seed, same masks.
    """
    _check(input_ids, special_tokens_mask, proportions, mlm_probability, word_starts)
    candidates = ~special_tokens_mask.bool()  # (B, T)
    if word_starts is None:
        selected = _select_tokens(candidates, mlm_probability, max_predictions, generator)
    else:
        selected = _select_words(candidates, word_starts.bool() | ~candidates, mlm_probability,
                                 max_predictions, generator)

    # One draw per selected token decides its fate, so the three cases can never overlap.
    fate = torch.rand(input_ids.shape, generator=generator)  # (B, T)
    p_mask, p_random, _ = proportions
    to_mask = selected & (fate < p_mask)
    to_random = selected & (fate >= p_mask) & (fate < p_mask + p_random)

    # Unlike Google's code and transformers (the whole vocabulary), never a special id.
    allowed = torch.ones(vocab_size, dtype=torch.bool)
    allowed[[mask_token_id, *special_token_ids]] = False
    # The ids standing under the special-tokens mask ([CLS], [SEP], [PAD]) are special whether or
    # not the caller listed them in special_token_ids: a random replacement is never one of them.
    allowed[input_ids[special_tokens_mask.bool()]] = False
    pool = allowed.nonzero().squeeze(1)  # ids a random replacement may take
    random_ids = pool[torch.randint(len(pool), input_ids.shape, generator=generator)]

    masked = torch.where(to_mask, torch.full_like(input_ids, mask_token_id), input_ids)
    masked = torch.where(to_random, random_ids, masked)
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return masked, labels


def selected_kinds(masked_ids: torch.Tensor, labels: torch.Tensor, mask_token_id: int) -> dict[str, torch.Tensor]:
    """What the 80/10/10 rule shows at each selected position (labels != -100), as boolean masks of
    `labels`' shape: "mask" ([MASK]), "random" (another piece), "kept" (the piece itself, also when a
    random draw hit it). A model can copy a kept piece; at [MASK] it must read the context."""
    selected = labels != IGNORE_INDEX
    mask = selected & (masked_ids == mask_token_id)
    kept = selected & ~mask & (masked_ids == labels)
    return {"mask": mask, "random": selected & ~mask & ~kept, "kept": kept}


def word_starts(input_ids: torch.Tensor, tokens: Sequence[str]) -> torch.Tensor:
    """(B, T) True where a word starts, i.e. at every token but the "##" pieces; `tokens` is the
    vocabulary in id order (`Tokenizer.ids_to_tokens`). Feeds whole-word masking."""
    is_piece = torch.tensor([t.startswith("##") for t in tokens])
    return ~is_piece[input_ids]


def _select_tokens(candidates, mlm_probability, max_predictions, generator) -> torch.Tensor:
    """Exactly num_to_predict candidates per row, chosen uniformly: rank the candidates by a
    random key and keep the first k of each row (Google's code shuffles them and takes k)."""
    B, T = candidates.shape
    k = torch.tensor([num_to_predict(int(n), mlm_probability, max_predictions) for n in candidates.sum(1)])
    key = torch.rand((B, T), generator=generator).masked_fill(~candidates, 2.0)  # non-candidates last
    rank = key.argsort(dim=1).argsort(dim=1)  # (B, T): 0 for the smallest key of the row
    return rank < k[:, None]


def _select_words(candidates, word_starts, mlm_probability, max_predictions, generator) -> torch.Tensor:
    """Whole-word masking, as in Google's code: shuffle the words, then take them in that order
    while their pieces still fit in num_to_predict, skipping a word that would overflow it. Two
    differences: a word never spans a special token (Google's code skips [CLS] and [SEP] before
    grouping, so a "##" right after [SEP] would join A's last word), and num_to_predict counts the
    candidates only."""
    selected = torch.zeros_like(candidates)
    for b in range(candidates.shape[0]):
        positions = candidates[b].nonzero().squeeze(1).tolist()
        words: list[list[int]] = []
        for t in positions:
            if word_starts[b, t] or not words or words[-1][-1] != t - 1:
                words.append([t])
            else:
                words[-1].append(t)  # a "##" piece joins the word before it
        k = num_to_predict(len(positions), mlm_probability, max_predictions)
        chosen = 0
        for w in torch.randperm(len(words), generator=generator).tolist():
            if chosen >= k:
                break
            if chosen + len(words[w]) > k:
                continue
            selected[b, words[w]] = True
            chosen += len(words[w])
    return selected


def _check(input_ids, special_tokens_mask, proportions, mlm_probability, word_starts) -> None:
    if input_ids.dim() != 2:
        raise ValueError(f"input_ids must be a (batch, length) tensor, got shape {tuple(input_ids.shape)}; "
                         "for one sequence use input_ids[None]")
    for name, t in (("special_tokens_mask", special_tokens_mask), ("word_starts", word_starts)):
        if t is not None and t.shape != input_ids.shape:
            raise ValueError(f"{name} has shape {tuple(t.shape)}, input_ids {tuple(input_ids.shape)}; "
                             "they must match")
    if len(proportions) != 3 or min(proportions) < 0 or abs(sum(proportions) - 1) > 1e-6:
        raise ValueError(f"proportions={proportions} must be three non-negative shares (mask, random, "
                         "keep) that sum to 1, e.g. BERT's (0.8, 0.1, 0.1)")
    if not 0 < mlm_probability <= 1:
        raise ValueError(f"mlm_probability={mlm_probability} must be in (0, 1]; BERT uses 0.15")


class MaskingCollator:
    """Pads a list of pre-training instances into a batch and masks it with `mask_tokens`: the batch face of masking.

    static=False (dynamic masking, RoBERTa's choice): new masks every time an instance is drawn.
    static=True (BERT's choice): an instance's masks depend only on the seed and its index, so it
    is masked the same way every epoch and in any batch (Google's code wrote `dupe_factor` copies of
    the data, each cut and masked anew, and read the same copies for every epoch).
    objective="ltr": no masks; every token's label is the token after it, for the paper's
    left-to-right ablation (the model must then attend only to the left)."""

    def __init__(self, *, pad_token_id: int, cls_token_id: int, sep_token_id: int, mask_token_id: int,
                 vocab_size: int, special_token_ids, seed: int = 0, static: bool = False, objective: str = "mlm",
                 word_start_tokens: list[str] | None = None, pad_to: int | None = None, **masking):
        if objective not in ("mlm", "ltr"):
            raise ValueError(f"objective={objective!r}; use 'mlm' (masked LM) or 'ltr' (left-to-right LM)")
        self.objective = objective
        self.pad, self.cls, self.sep, self.mask = pad_token_id, cls_token_id, sep_token_id, mask_token_id
        self.vocab_size, self.special_token_ids = vocab_size, list(special_token_ids)
        self.seed, self.static, self.masking = seed, static, masking
        self.word_start_tokens = word_start_tokens  # the vocab in id order, for whole-word masking
        # pad_to: every batch this wide (torch.compile's static shapes), not the longest row's width
        self.pad_to = pad_to
        self.generator = None  # made on first use, in the process that uses it (see _dynamic)

    def __call__(self, rows: list[dict]) -> dict:
        T = max(len(r["input_ids"]) for r in rows)
        if self.pad_to is not None:
            if T > self.pad_to:
                raise ValueError(f"a row of {T} tokens does not fit pad_to={self.pad_to}")
            T = self.pad_to
        input_ids = torch.full((len(rows), T), self.pad, dtype=torch.long)  # (B, T)
        token_type_ids = torch.zeros_like(input_ids)
        attention_mask = torch.zeros_like(input_ids)
        for b, r in enumerate(rows):
            n = len(r["input_ids"])
            input_ids[b, :n], token_type_ids[b, :n], attention_mask[b, :n] = r["input_ids"], r["token_type_ids"], 1
        next_sentence_label = torch.stack([r["next_sentence_label"] for r in rows])
        if self.objective == "ltr":  # predict token t + 1 from tokens 0..t
            labels = torch.full_like(input_ids, IGNORE_INDEX)
            labels[:, :-1] = input_ids[:, 1:].masked_fill(attention_mask[:, 1:] == 0, IGNORE_INDEX)
            return {"input_ids": input_ids, "token_type_ids": token_type_ids, "attention_mask": attention_mask,
                    "labels": labels, "next_sentence_label": next_sentence_label}
        special = (attention_mask == 0) | (input_ids == self.cls) | (input_ids == self.sep)
        starts = word_starts(input_ids, self.word_start_tokens) if self.word_start_tokens else None

        def corrupt(ids, special_mask, starts_, generator):
            return mask_tokens(ids, special_tokens_mask=special_mask, mask_token_id=self.mask,
                               vocab_size=self.vocab_size, generator=generator,
                               special_token_ids=self.special_token_ids, word_starts=starts_, **self.masking)

        if self.static:  # row by row, each with a generator seeded by its instance's index
            masked, labels = input_ids.clone(), torch.full_like(input_ids, IGNORE_INDEX)
            for b, r in enumerate(rows):
                # At the row's own length, so its masks do not depend on how long its batch-mates are.
                n = len(r["input_ids"])
                masked[b:b + 1, :n], labels[b:b + 1, :n] = corrupt(
                    input_ids[b:b + 1, :n], special[b:b + 1, :n], None if starts is None else starts[b:b + 1, :n],
                    seeding.generator(self.seed, int(r["index"])))
        else:
            masked, labels = corrupt(input_ids, special, starts, self._dynamic())
        return {"input_ids": masked, "token_type_ids": token_type_ids, "attention_mask": attention_mask,
                "labels": labels, "next_sentence_label": next_sentence_label}

    def _dynamic(self) -> torch.Generator:
        """One generator per process: DataLoader workers get copies of this collator, and without
        their worker id in the seed they would all draw the same masks."""
        if self.generator is None:
            info = torch.utils.data.get_worker_info()
            self.generator = seeding.generator(self.seed, info.id + 1 if info else 0)
        return self.generator


def show_masks(input_ids: list[int], masked_ids: list[int], labels: list[int], tokens: Sequence[str]) -> str:
    """One sequence as text, each selected token marked with what became of it:
    `[MASK:cat]` masked, `~dog:cat~` replaced by a random token, `=cat=` kept, others as they are."""
    out = []
    for original, now, label in zip(input_ids, masked_ids, labels):
        word = tokens[original]
        if label == IGNORE_INDEX:
            out.append(word)
        elif now != original and tokens[now] == "[MASK]":
            out.append(f"[MASK:{word}]")
        elif now != original:
            out.append(f"~{tokens[now]}:{word}~")
        else:
            out.append(f"={word}=")
    return " ".join(out)
