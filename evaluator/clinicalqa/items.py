"""ClinicalQA items from local files in the Hugging Face schema: finding, reading and validating them.

Formats: JSON Lines (`.jsonl`), JSON (`.json`: a list of objects, an object whose `data` is that list, or
JSON Lines under a `.json` name, which is what `datasets.Dataset.to_json` writes) and parquet (`.parquet`).
JSON and JSON Lines may be gzip-compressed (`.jsonl.gz`, `.json.gz`).

Which files a path means (`find_data_files`):

- a file: that file;
- a directory, when the spec's `dataset.files` lists files: exactly those, relative to the directory;
- a directory otherwise: the data files in it and in its `data/` subdirectory (Hugging Face's layout) whose
  name, without the format suffix, is the spec's split name or starts with `<split>-` (shards such as
  `train-00000-of-00001.parquet`), all in one format, read in sorted path order; when no file is named for
  the split and exactly one data file is there, that file; anything else is refused, listing the candidates.

Fields of one record (`parse_item`):

- id: the first present, non-null field of the spec's `instances.id_fields` (`question_id`, then `uid`, then
  `id`); an integer id becomes its decimal string;
- `question` (non-empty text) and `exam` (text; missing, null or blank means no exam findings);
- options: a nested object `options` (or that object serialised as a JSON string) with keys `A`-`E` or
  `option_A`-`option_E` (any case), or else top-level columns with those names; exactly five, each a
  non-empty text;
- `answer`: a letter A-E, `option_A`-`option_E`, or 1-5 (integer or string); case and surrounding spaces
  are ignored.

Question, exam and option texts are stripped of leading and trailing whitespace; inner text is kept as is.
Ids must be unique. Every problem names the record (`file:line` or `file:row`) and its id when it has one.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

LETTERS = ("A", "B", "C", "D", "E")
DEFAULT_ID_FIELDS = ("question_id", "uid", "id")
SUFFIXES = (".jsonl.gz", ".json.gz", ".jsonl", ".json", ".parquet")
_MAX_PROBLEMS_IN_MESSAGE = 20


@dataclass(frozen=True)
class Item:
    """One validated five-option question; `options` holds the texts of A-E in order."""

    instance_id: str
    question: str
    exam: str
    options: tuple[str, str, str, str, str]
    answer: str
    source: str


@dataclass(frozen=True)
class Record:
    """One raw record as read, with where it came from (`file:line` or `file:row`)."""

    source: str
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the data: `kind` is machine-readable, `message` names the offending item."""

    kind: str
    message: str


class DataError(ValueError):
    """The data cannot be used as it is; `problems` lists every reason."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        shown = [problem.message for problem in self.problems[:_MAX_PROBLEMS_IN_MESSAGE]]
        more = len(self.problems) - len(shown)
        suffix = f"\n  ... and {more} more" if more > 0 else ""
        super().__init__(f"{len(self.problems)} problem(s) in the data:\n  " + "\n  ".join(shown) + suffix)


def format_of(path: Path) -> str | None:
    """The data suffix of a file name (`.jsonl.gz`, `.parquet`, ...), or None when it is not a data file."""
    name = path.name.lower()
    return next((suffix for suffix in SUFFIXES if name.endswith(suffix)), None)


def _stem(path: Path) -> str:
    suffix = format_of(path) or ""
    return path.name[: len(path.name) - len(suffix)]


def find_data_files(path: Path, split: str | None, listed: Sequence[str] = ()) -> list[Path]:
    """The files `path` means under the rule in the module docstring; raises DataError when it is unclear."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise DataError([Problem("no_data", f"{path}: no such file or directory")])
    if listed:
        return [path / name for name in listed]
    candidates = sorted(
        child
        for folder in (path, path / "data")
        if folder.is_dir()
        for child in folder.iterdir()
        if child.is_file() and format_of(child)
    )
    named = [c for c in candidates if split and (_stem(c) == split or _stem(c).startswith(f"{split}-"))]
    if named:
        formats = sorted({(format_of(child) or "").removesuffix(".gz") for child in named})
        if len(formats) > 1:
            names = ", ".join(str(child.relative_to(path)) for child in named)
            raise DataError([Problem("ambiguous_files", f"{path}: split {split!r} in several formats: {names}")])
        return named
    if len(candidates) == 1:
        return candidates
    found = ", ".join(str(child.relative_to(path)) for child in candidates) or "none"
    message = f"{path}: no file named for split {split!r} and not exactly one data file (found: {found})"
    raise DataError([Problem("ambiguous_files" if candidates else "no_data", message)])


def _open_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
        if path.name.lower().endswith(".gz"):
            raw = gzip.decompress(raw)
        return raw.decode("utf-8-sig")
    except (OSError, EOFError, UnicodeDecodeError) as error:  # BadGzipFile is an OSError
        raise DataError([Problem("unreadable", f"{path.name}: cannot be read ({error})")]) from None


def _parquet_rows(path: Path) -> list[dict[str, Any]]:
    try:
        rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    except (OSError, pa.ArrowException) as error:
        raise DataError([Problem("unreadable", f"{path.name}: not a readable parquet file ({error})")]) from None
    return rows


def _json_lines(path: Path, text: str) -> Iterator[Record]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise DataError([Problem("unreadable", f"{path.name}:{number}: not JSON ({error.msg})")]) from None
        yield _as_record(value, f"{path.name}:{number}")


def _as_record(value: Any, source: str) -> Record:
    if not isinstance(value, dict):
        raise DataError([Problem("unreadable", f"{source}: a record must be a JSON object")])
    return Record(source=source, fields=value)


def _json_document(path: Path, text: str) -> list[Record]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data":  # JSON Lines under a .json name
            return list(_json_lines(path, text))
        raise DataError([Problem("unreadable", f"{path.name}: not JSON ({error})")]) from None
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        value = value["data"]
    if not isinstance(value, list):
        message = f"{path.name}: expected a list of records or an object with a 'data' list"
        raise DataError([Problem("unreadable", message)])
    return [_as_record(entry, f"{path.name}:{index}") for index, entry in enumerate(value, start=1)]


def read_file(path: Path) -> list[Record]:
    """Every record of one data file, in file order."""
    kind = format_of(path)
    if not path.is_file():
        raise DataError([Problem("missing_file", f"{path}: file not found")])
    if kind == ".parquet":
        rows = _parquet_rows(path)
        return [Record(source=f"{path.name}:row {index}", fields=row) for index, row in enumerate(rows, 1)]
    if kind in (".jsonl", ".jsonl.gz"):
        return list(_json_lines(path, _open_text(path)))
    if kind in (".json", ".json.gz"):
        return _json_document(path, _open_text(path))
    raise DataError([Problem("unreadable", f"{path.name}: not a .jsonl, .json or .parquet file")])


def read_records(files: Sequence[Path]) -> list[Record]:
    """The records of several files, concatenated in the given order."""
    return [record for path in files for record in read_file(path)]


def select_records(records: Sequence[Record], where: Mapping[str, Any]) -> list[Record]:
    """The records whose fields equal every value in `where` (the spec's `instances.where`)."""
    missing = [f"{r.source}: field {key!r} missing" for r in records for key in where if key not in r.fields]
    if missing:
        raise DataError([Problem("filter_field", message) for message in missing])
    return [r for r in records if all(r.fields[key] == value for key, value in where.items())]


class _ItemProblem(Exception):
    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise _ItemProblem("schema", f"{what} is {type(value).__name__}, not text")
    return value.strip()


def _instance_id(fields: Mapping[str, Any], id_fields: Sequence[str]) -> str:
    for name in id_fields:
        value = fields.get(name)
        if value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, str) and value.strip():
            return value.strip()
        raise _ItemProblem("schema", f"id field {name!r} is {value!r}, not a non-empty text or integer")
    raise _ItemProblem("schema", f"no id: none of the fields {', '.join(id_fields)} is present")


def _option_key(key: str) -> str | None:
    letter = key.upper().removeprefix("OPTION_")
    return letter if letter in LETTERS else None


def _options(fields: Mapping[str, Any]) -> tuple[str, str, str, str, str]:
    nested = fields.get("options")
    if isinstance(nested, str):
        try:
            nested = json.loads(nested)
        except json.JSONDecodeError:
            raise _ItemProblem("schema", "options is text that is not a JSON object") from None
    source: Mapping[str, Any]
    if isinstance(nested, dict):
        source = nested
        strays = sorted(str(key) for key in nested if _option_key(str(key)) is None)
        if strays:
            raise _ItemProblem("options", f"unexpected option key(s) {', '.join(strays)}")
    elif nested is None:
        source = {key: value for key, value in fields.items() if _option_key(key) is not None}
    else:
        raise _ItemProblem("schema", f"options is {type(nested).__name__}, not an object")
    by_letter: dict[str, Any] = {}
    for key, value in source.items():
        letter = _option_key(str(key)) or ""
        if letter in by_letter:
            raise _ItemProblem("options", f"option {letter} given twice")
        by_letter[letter] = value
    texts = []
    for letter in LETTERS:
        if by_letter.get(letter) is None:
            raise _ItemProblem("options", f"option {letter} is missing")
        text = _text(by_letter[letter], f"option {letter}")
        if not text:
            raise _ItemProblem("options", f"option {letter} is empty")
        texts.append(text)
    return (texts[0], texts[1], texts[2], texts[3], texts[4])


def answer_letter(value: Any) -> str | None:
    """`C`, `c`, `option_C`, 3 and `"3"` all mean C; anything else is None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return LETTERS[value - 1] if 1 <= value <= 5 else None
    if not isinstance(value, str):
        return None
    token = value.strip().upper().removeprefix("OPTION_")
    if token in LETTERS:
        return token
    if token in ("1", "2", "3", "4", "5"):
        return LETTERS[int(token) - 1]
    return None


def parse_item(record: Record, id_fields: Sequence[str] = DEFAULT_ID_FIELDS) -> Item:
    """One validated Item; raises DataError with one Problem naming the record and its id."""
    instance_id: str | None = None
    try:
        instance_id = _instance_id(record.fields, id_fields)
        question = _text(record.fields.get("question"), "question")
        if not question:
            raise _ItemProblem("schema", "question is empty")
        exam_value = record.fields.get("exam")
        exam = "" if exam_value is None else _text(exam_value, "exam")
        options = _options(record.fields)
        answer = answer_letter(record.fields.get("answer"))
        if answer is None:
            raise _ItemProblem("answer", f"answer {record.fields.get('answer')!r} is not A-E or 1-5")
    except _ItemProblem as problem:
        label = f"{record.source} ({instance_id})" if instance_id else record.source
        raise DataError([Problem(problem.kind, f"{label}: {problem.detail}")]) from None
    return Item(instance_id, question, exam, options, answer, record.source)


def parse_items(
    records: Sequence[Record], id_fields: Sequence[str] = DEFAULT_ID_FIELDS
) -> tuple[list[Item], list[Problem]]:
    """Every valid item, and every problem found (invalid records, then duplicate ids with their records)."""
    items: list[Item] = []
    problems: list[Problem] = []
    for record in records:
        try:
            items.append(parse_item(record, id_fields))
        except DataError as error:
            problems.extend(error.problems)
    sources: dict[str, list[str]] = defaultdict(list)
    for item in items:
        sources[item.instance_id].append(item.source)
    for instance_id, where in sources.items():
        if len(where) > 1:
            message = f"duplicate id {instance_id!r} in {len(where)} records: {', '.join(where)}"
            problems.append(Problem("duplicate_ids", message))
    return items, problems


def load_items(files: Sequence[Path], where: Mapping[str, Any], id_fields: Sequence[str]) -> list[Item]:
    """Read, select and validate; raises DataError listing every problem."""
    items, problems = parse_items(select_records(read_records(files), where), id_fields)
    if problems:
        raise DataError(problems)
    return items
