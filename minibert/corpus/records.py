"""Records that cannot be read, named: the file, line and column of a line of JSON lines that is
not a record, an empty file, a field that holds no text. `datasets` reads local files in blocks
through pyarrow, whose errors name neither ("JSON parse error: Invalid value. in row 1"); when
one fails, the files are read again here, line by line, to find the line (a corpus that parses
is read once).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path

from .common import CorpusError

# The local files each dataset `open_stream` made reads, so that a record that cannot be parsed
# is named by its file and line (weak: a dataset that is let go takes its entry with it).
LOCAL_FILES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def unreadable(files: list[Path], error: Exception) -> CorpusError:
    """The error for local files `datasets` could not parse: the first bad line of a JSON-lines file,
    found by reading the files again now (a corpus that parses is read once), else `error` itself."""
    for path in files:
        if problem := first_bad_line(path):
            return CorpusError(problem)
    said = " ".join(str(error).split())[:300] or "(no message)"
    return CorpusError(f"could not read the records of {', '.join(str(f) for f in files[:3])}"
                       f"{' ...' if len(files) > 3 else ''}: {type(error).__name__}: {said}")


def first_bad_line(path: Path) -> str | None:
    """"FILE:LINE:COLUMN: what is wrong, and the fix" for the first line of a .jsonl file that is not
    a JSON object (or for an empty file); None if every line is one."""
    if path.suffix.lower() != ".jsonl" or not path.is_file():
        return None
    if path.stat().st_size == 0:
        return f"{path}: an empty file, no records; remove it, or write its records again"
    fix = "each line of a .jsonl file is one JSON object, a record: fix or remove that line"
    with open(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
                record = json.loads(line) if line.strip() else {}
            except UnicodeDecodeError as e:
                return f"{path}:{number}:{e.start + 1}: byte {raw[e.start]:#04x} is not UTF-8; save the file as UTF-8"
            except json.JSONDecodeError as e:
                return f"{path}:{number}:{e.colno}: not JSON ({e.msg}): {line[:60]!r}; {fix}"
            if not isinstance(record, dict):
                return f"{path}:{number}: a JSON {type(record).__name__}, not an object; {fix}"
    return None


def open_local(load_dataset, builder: str, files: list[Path]):
    """`datasets.load_dataset(builder, data_files=files, streaming=True)`, remembering the files; it
    reads the first block at once, so an empty file or a broken first line fails here, named."""
    try:
        dataset = load_dataset(builder, data_files=[str(f) for f in files], split="train", streaming=True)
    except Exception as e:
        raise unreadable(files, e) from None
    LOCAL_FILES[dataset] = files
    return dataset


def parsed(records: Iterable[dict], dataset) -> Iterator[dict]:
    """`records` (read from `dataset`) as they come; one that cannot be parsed is an error naming its
    file and line, when `open_local` opened the dataset."""
    files = LOCAL_FILES.get(dataset, [])
    iterator = iter(records)
    while True:
        try:
            record = next(iterator)
        except StopIteration:
            return
        except Exception as e:  # pyarrow's ArrowInvalid, pandas' ValueError, ... from inside `datasets`
            raise unreadable(files, e) from None
        yield record


def missing_field(field: str, fields) -> CorpusError:
    return CorpusError(f"the records have no field {field!r}; their fields are {sorted(fields)}: pass the one "
                       "that holds the text as text_field= (--text-field)")


def check_text(field: str, values: list, where: str) -> None:
    """Each value of the text field is text (or empty): a number or a list there is an error naming the field."""
    if bad := [value for value in values if not isinstance(value or "", str)]:
        raise CorpusError(f"{where}: field {field!r} holds {bad[0]!r:.60} ({type(bad[0]).__name__}), not text; "
                          "pass the field that holds the text as text_field= (--text-field)")
