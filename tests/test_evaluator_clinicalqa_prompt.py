"""The Korean prompt is rendered from the spec's strings, exactly, as chat messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.clinicalqa import PromptTemplate, build_messages, load_instances, render_prompt
from evaluator.clinicalqa.items import Item, load_items
from evaluator.specs import TaskSpec, load_task_files

FIXTURES = Path(__file__).parent / "data" / "clinicalqa"
SPECS = {task_file.spec.task: task_file.spec for task_file in load_task_files()}
CLINICALQA = SPECS["clinicalqa@0"]
ITEMS = {item.instance_id: item for item in load_items([FIXTURES / "hf_nested.jsonl"], {}, ["question_id"])}

WITH_EXAM = (
    "다음은 임상 의학 문제입니다. 보기 A부터 E 중 가장 적절한 답을 하나만 고르십시오.\n"
    "\n"
    "문제: 45세 남자가 2시간 전부터 시작된 가슴 통증으로 응급실에 왔다. 가장 먼저 시행할 검사는?\n"
    "검사 소견: 활력징후: 혈압 150/90 mmHg, 맥박 100회/분\n"
    "심전도: II, III, aVF 유도에서 ST 분절 상승\n"
    "\n"
    "보기:\n"
    "A. 심전도 반복 검사와 심근효소 측정\n"
    "B. 흉부 X선\n"
    "C. 복부 초음파\n"
    "D. 뇌 MRI\n"
    "E. 갑상선 기능 검사\n"
    "\n"
    "정답을 A, B, C, D, E 중 알파벳 한 글자로만 답하십시오. 형식: 정답: X"
)


def spec_with_prompt(spec: TaskSpec, **changes: object) -> TaskSpec:
    data = spec.as_dict()
    data["prompt"] = {**data["prompt"], **changes}
    return TaskSpec.model_validate(data)


def test_an_item_with_exam_findings_renders_exactly_this_korean_prompt() -> None:
    assert render_prompt(ITEMS["101"], PromptTemplate.from_spec(CLINICALQA)) == WITH_EXAM


def test_an_item_without_exam_findings_has_no_exam_line() -> None:
    text = render_prompt(ITEMS["102"], PromptTemplate.from_spec(CLINICALQA))
    assert "검사 소견" not in text
    assert (
        "문제: 30세 여자가 이틀 전부터 발열과 배뇨통을 호소한다. 가장 가능성이 높은 진단은?\n"
        "\n보기:\nA. 방광염\n" in text
    )


def test_braces_in_item_text_are_kept_as_text_not_fields() -> None:
    text = render_prompt(ITEMS["103"], PromptTemplate.from_spec(CLINICALQA))
    assert "문제: 공복 혈당 {x} 표기가 있는" in text


def test_rendering_uses_the_spec_strings_and_nothing_else() -> None:
    spec = spec_with_prompt(
        CLINICALQA,
        template="Q={question}|{exam_block}|{options_block}|END",
        exam_block="<{exam}>",
        option_line="({letter}) {text};",
    )
    item = Item("1", "질문", "소견", ("가", "나", "다", "라", "마"), "C", "x:1")
    assert render_prompt(item, PromptTemplate.from_spec(spec)) == (
        "Q=질문|<소견>|(A) 가;\n(B) 나;\n(C) 다;\n(D) 라;\n(E) 마;|END"
    )


def test_messages_are_one_user_message_unless_the_spec_sets_a_system_prompt() -> None:
    prompt = PromptTemplate.from_spec(CLINICALQA)
    assert build_messages(ITEMS["101"], prompt) == [{"role": "user", "content": WITH_EXAM}]
    system_prompt = PromptTemplate.from_spec(spec_with_prompt(CLINICALQA, system="당신은 의사입니다."))
    assert build_messages(ITEMS["101"], system_prompt) == [
        {"role": "system", "content": "당신은 의사입니다."},
        {"role": "user", "content": WITH_EXAM},
    ]


def test_the_harness_instances_carry_the_same_messages() -> None:
    data = CLINICALQA.as_dict()
    data["dataset"]["expected_items"] = 3
    loaded = load_instances(FIXTURES / "hf_nested.jsonl", TaskSpec.model_validate(data))
    first = loaded.instances[0]
    assert first.messages == [{"role": "user", "content": WITH_EXAM}]
    assert first.options == ITEMS["101"].options


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "template",
            "{question} {options_block}",
            r"prompt\.template has fields \['options_block', 'question'\]",
        ),
        ("template", "{question}{exam_block}{options_block}{answer}", "prompt.template has fields"),
        ("exam_block", "검사: {findings}", "prompt.exam_block has fields"),
        ("option_line", "{letter}", "prompt.option_line has fields"),
    ],
)
def test_a_template_with_other_fields_is_refused(key: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PromptTemplate.from_spec(spec_with_prompt(CLINICALQA, **{key: value}))


def test_both_tasks_use_the_same_prompt_and_the_prompt_is_korean_with_a_one_letter_instruction() -> None:
    demo = SPECS["clinicalqa-upstream-demo@0"]
    assert PromptTemplate.from_spec(demo) == PromptTemplate.from_spec(CLINICALQA)
    prompt = PromptTemplate.from_spec(CLINICALQA)
    assert (prompt.id, prompt.version) == ("clinicalqa-ko-letter", 1)
    assert "알파벳 한 글자로만 답하십시오" in prompt.template
