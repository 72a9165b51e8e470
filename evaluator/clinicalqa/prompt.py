"""The fixed Korean prompt, rendered from the strings in the spec's `prompt` block and nothing else.

`prompt.template` has exactly the fields `{question}`, `{exam_block}` and `{options_block}`.
`{exam_block}` is `prompt.exam_block` with `{exam}` filled in when the item has exam findings, else the
empty string. `{options_block}` is `prompt.option_line` (fields `{letter}` and `{text}`) for A-E, joined by
one newline.
The messages are one `user` message holding the rendered text, preceded by a `system` message when
`prompt.system` is a non-empty string. Item texts are inserted as they are (braces in them are not fields).
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.clinicalqa.items import LETTERS, Item
from evaluator.specs import TaskSpec

_FIELDS = {
    "template": {"question", "exam_block", "options_block"},
    "exam_block": {"exam"},
    "option_line": {"letter", "text"},
}


def _fields_of(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@dataclass(frozen=True)
class PromptTemplate:
    """The spec's prompt strings, checked to have exactly the fields the renderer fills."""

    id: str
    version: int
    template: str
    exam_block: str
    option_line: str
    system: str | None

    @classmethod
    def from_spec(cls, spec: TaskSpec) -> PromptTemplate:
        block: Mapping[str, Any] = (spec.model_extra or {}).get("prompt") or {}
        for key, wanted in _FIELDS.items():
            if key not in block:
                raise ValueError(f"{spec.task}: prompt.{key} is missing")
            if _fields_of(block[key]) != wanted:
                found = sorted(_fields_of(block[key]))
                raise ValueError(f"{spec.task}: prompt.{key} has fields {found}, expected {sorted(wanted)}")
        return cls(
            id=str(block["id"]),
            version=int(block["version"]),
            template=block["template"],
            exam_block=block["exam_block"],
            option_line=block["option_line"],
            system=block.get("system") or None,
        )


def render_prompt(item: Item, prompt: PromptTemplate) -> str:
    """The user text for one item."""
    exam_block = prompt.exam_block.format(exam=item.exam) if item.exam else ""
    options_block = "\n".join(
        prompt.option_line.format(letter=letter, text=text) for letter, text in zip(LETTERS, item.options, strict=True)
    )
    return prompt.template.format(question=item.question, exam_block=exam_block, options_block=options_block)


def build_messages(item: Item, prompt: PromptTemplate) -> list[dict[str, str]]:
    """Chat messages for an OpenAI-compatible endpoint."""
    messages = [{"role": "system", "content": prompt.system}] if prompt.system else []
    return [*messages, {"role": "user", "content": render_prompt(item, prompt)}]
