"""What the tokenizer returns: the `Encoding`, its columns, and step 3 of making one, padding
the rows and turning them into tensors.

An encoding is columns of rows, one row per text. `tok(["Call me", "Call me Ishmael."], padding=True)`:

    input_ids       [[101, 2655, 2033, 102, 0, 0, 0, 0], [101, 2655, 2033, 2003, 22444, 2884, 1012, 102]]
    token_type_ids  [[0,   0,    0,    0,   0, 0, 0, 0], [0, ...]]   1 for the second text of a pair
    attention_mask  [[1,   1,    1,    1,   0, 0, 0, 0], [1, ...]]   0 at padding: attention skips it

Padded, the rows of a batch are all as long as its longest ([PAD] is id 0 in this vocab), and with
`return_tensors="pt"` each column is one (B, T) tensor of int64, ready for `model(**enc)`.
"""

from __future__ import annotations

from .vocab import TokenizerError

# The `padding` argument, as transformers spells it -> what it means here (None: no padding).
PADDING = {False: None, "do_not_pad": None, True: "longest", "longest": "longest", "max_length": "max_length"}
# Every column an encoding can have; the last two only when asked for.
FIELDS = ("input_ids", "token_type_ids", "attention_mask", "offset_mapping", "special_tokens_mask")
# What padding adds to each column but input_ids (which gets the vocabulary's [PAD] id): type 0,
# no attention, no span in the text, and "special" (not a token of the text).
PAD_VALUES = {"token_type_ids": 0, "attention_mask": 0, "offset_mapping": (0, 0), "special_tokens_mask": 1}


class Encoding(dict):
    """`input_ids`, `token_type_ids`, `attention_mask` (and `offset_mapping`, `special_tokens_mask`
    when asked): lists for one text, lists of lists for a batch, (B, T) tensors with
    return_tensors="pt" (B = 1 for one text).
    A dict, so `model(**enc)` works; the keys are also attributes (`enc.input_ids`)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"Encoding has no {name!r}; it holds {', '.join(self)}") from None


def pad_rows(rows: dict[str, list], padding: str, limit: int | None, pad_token_id: int) -> dict[str, list]:
    """Step 3: every row padded at its end to one width: the limit (`padding="max_length"`) or the
    longest row of the batch (`"longest"`)."""
    width = limit if padding == "max_length" else max(map(len, rows["input_ids"]), default=0)
    padded = {}
    for field, column in rows.items():
        pad = [pad_token_id] if field == "input_ids" else [PAD_VALUES[field]]
        padded[field] = [row + pad * (width - len(row)) for row in column]
    return padded


def as_tensors(rows: dict[str, list]) -> dict:
    """Each column as one (B, T) int64 tensor (offset_mapping: (B, T, 2)); the rows must be of one
    length, which padding makes them."""
    import torch

    widths = {len(row) for row in rows["input_ids"]}
    if len(widths) > 1:
        raise TokenizerError(f"rows have different lengths ({min(widths)} to {max(widths)} tokens), so they "
                             "do not make a tensor; pass padding=True")
    return {field: torch.tensor(column, dtype=torch.long) for field, column in rows.items()}
