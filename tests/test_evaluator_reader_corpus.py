"""The rule reader measured on the real-text corpus (tests/data/reader_corpus): per split, claim recall and
precision, model recall and mapping errors may not fall below the floor reached (bench/reader_eval.py prints
the same figures); and the agent's proposals from two `test` files: a released model's README proposes its
models and runs, an abstract about a closed model proposes nothing and says why."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from evaluator.papers import RuleExtractor, read_paper
from evaluator.papers.scoring import FileScore, load_gold, score_file, totals
from server.settings import Settings
from tests.conftest import running
from tests.review_support import bearer, make_maintainer

CORPUS = Path(__file__).parent / "data" / "reader_corpus"
# the floor reached on 2026-12-01 (bench/reader_eval.py); raise it when the reader gets better, never lower it.
# dev grew by 19 texts full of numbers that are not results (precision on dev 99.6% -> 100.0%); its recall
# (99.2% -> 98.7%) and model recall (98.7% -> 97.3%) fell only because the new texts hold harder cases (a score
# left out on purpose where people are named in the same clause, model names the reader does not know). A third
# engineer added twenty-one more texts to dev, chosen for what produces false claims (the reader before them read
# the grown dev at recall 79.5%, precision 88.1%; after the fixes they led to: 82.2%, 99.4%, model recall 94.9%);
# dev's floors are those figures (the new texts hold results the reader does not read, such as win rates,
# hallucination rates and values run together with text). On 2026-12-01 the first test split (18 files) was
# declared spent after repeated measurement and moved to dev: dev then read at recall 83.1%, precision 96.9%,
# model recall 94.7% (the moved files alone: 86.4%, 88.1%, 93.8%). The classes of error they showed were fixed
# by general rules (units are not models, a list sharing a trailing unit, bounds after "greater than", "the <words>
# model" resolved against the models named before, shares of events, part labels, a card's title, acronyms named
# as models; a score in points needs no metric word, calibration ratios, a value risen to): dev 85.5%, 99.6%,
# 96.2% (the moved files alone 97.4%, 100.0%, 100.0%). test is empty until the fresh split is measured, and its
# floor is set then
FLOOR = {
    # dev with the spent fresh split in it (105 files): 83.8%, 89.8%, 94.8% before any rule was changed for it;
    # 85.1%, 98.6%, 95.2% after tables without outer pipes or line breaks, rank, cost and training-log columns,
    # plural metric names, labelled intervals and the model a card's model was fine-tuned from. A fifth engineer then
    # added 23 texts of those kinds, committed with gold before any reader ran on them: the reader read them at recall
    # 32.7%, precision 38.5%, and the grown dev (128 files) at 70.8%, 83.3%, 90.9%; after the fixes they led to
    # (tables rendered as text, glued CSV, a model column after grouping columns, two-row headers, benchmark-shaped
    # names, a column naming its own measure, cells over lines, judged tables, glued leaderboard rows): 88.1%, 97.2%,
    # 94.5%. A third batch of 20 representative texts (a sixth engineer) read at recall 59%, precision 54% before it
    # was tuned on; dev (148 files) after: 87.8%, 96.9%, 92.1%
    # The second fresh split then joined dev as spent, and seven more batches of about 20 representative texts each
    # (sixth to twelfth, 144 texts) were collected blind and read once before any change for them: recall 22.5%,
    # 21.5%, 22.2%, 61.9%, 19.6%, 51.8%, 43.5%; precision 25.0%, 29.2%, 41.1%, 73.0%, 47.0%, 64.4%, 50.4%. dev (355
    # files, 2,328 gold claims) after the rules they led to: 85.0%, 92.6%, 93.3%
    # On 2026-12-02 the third and fourth fresh splits were declared spent and joined dev (407 files, 2,643 gold
    # claims): 79.6%, 88.6%, 91.7% before any change for them. Eight more batches (13th to 20th, 160 texts) were
    # collected blind and read once before any change for them (recall 80.2%, 30.4%, 38.8%, 42.0%, 45.1%, 72.0%,
    # 33.3%, 68.1%; precision 81.2%, 38.2%, 70.4%, 44.7%, 70.8%, 76.6%, 58.6%, 82.5%); dev (569 files, 3,573 gold
    # claims) after the rules they led to: 82.3%, 91.6%, 92.2%; two more (21st, 22nd: 48.4% and 54.4% recall, 63.3% and
    # 52.5% precision on first read), dev (609 files, 3,694 gold claims) at the end: 81.3%, 91.4%, 91.3%
    # At 04:10 the fifth, sixth and seventh fresh splits were spent and joined dev (688 files, 4,067 gold claims):
    # 77.9%, 86.7%, 91.4% before any change for them. Four more blind batches (23rd to 26th, 80 texts) read at
    # recall 35.6%, 67.2%, 47.2%, 45.1% and precision 57.8%, 67.2%, 69.8%, 56.1% before any change for them; dev (773
    # files, 4,586 gold claims) after the rules they and the spent splits led to: 80.2%, 88.9%, 91.3%; with the scorer
    # matching Hangul model names by their words (it had matched them by their Latin part only): 80.2%, 88.9%, 91.6%
    # At 07:20 the eighth, ninth and tenth fresh splits were spent and joined dev (845 files, 4,981 gold claims):
    # 77.2%, 86.7%, 90.7% before any change for them. Three more blind batches (27th: journal table pages, 28th: a
    # representative mix, 29th: cards, READMEs, results files and leaderboards; 60 texts) read at recall 35.8%,
    # 59.2%, 36.3% and precision 52.4%, 82.9%, 37.4% before any change for them; dev (905 files, 5,690 gold claims)
    # after the rules they and the spent splits led to: 79.5%, 87.8%, 91.0%. At 08:30 the thirteenth fresh split was
    # spent and joined dev (938 files, 5,967 gold claims): 78.6%, 87.0%, 90.6% before any change for it; after the
    # rules it led to: 79.2%, 87.2%, 90.8%. On 2026-12-02 after 10:15 four more blind dev batches (30th: READMEs and
    # cards, 31st: abstracts and news, 32nd: table pages and results tables, 33rd: abstracts and news; 83 texts) read
    # at recall 40.7%, 66.7%, 27.9%, 60.0% and precision 73.0%, 65.0%, 55.6%, 54.5% before any change for them; dev
    # (1,023 files, 6,386 gold claims) after the rules they led to: 80.7%, 89.0%, 90.7%; after a number no metric or
    # benchmark names stopped being a claim (from the first reads of eleven blind sets): 80.7%, 89.4%, 90.7%. Dev batch
    # 34 (20 texts, results files and cards) read at 57.9%, 100.0% before any change for it; dev (1,050 files, 6,509
    # gold claims, with seven texts of the seventeenth fresh split from its sources) after the results-JSON and
    # model-index changes it led to: 81.1%, 89.7%, 90.7%; after the classifiers and ensembles named in lower-case
    # words became models: 81.2%, 89.8%, 91.3%. Six more blind dev batches (35 to 40, 120 texts) then joined dev, and
    # the results files of three fresh splits' source: dev (1,178 files, 7,318 gold claims) after the rules their
    # first reads led to: 77.5%, 88.8%, 90.9% (the batches read at 8.3% to 67.9% recall before any change for them).
    # Nine more blind dev batches (41 to 49, 179 texts) joined dev on 2026-12-02 after 15:30, each read once before
    # any change for it (recall 59.6%, 46.8%, 24.1%, 55.1%, 34.9%, 30.2%, 37.5%, 36.7%, 48.6%; precision 71.6%,
    # 76.6%, 36.3%, 50.0%, 69.5%, 47.7%, 34.6%, 47.4%, 74.6%): dev (1,357 files, 8,436 gold claims) after the rules
    # they led to: 74.1%, 87.9%, 90.2%
    "dev": {"claim_recall": 0.741, "claim_precision": 0.879, "model_recall": 0.902},
    # the first fresh split read at 50.0%, 21.1%, 86.7% when measured once, and was declared spent and moved to dev
    # the same day. The second fresh split (22 texts, fresh_test_2.json), measured once on 2026-12-01 at 20:58 (commit
    # 1e6ea77): recall 46.8% (37 of 79), precision 49.3% (37 of 75 read), model recall 93.9%, 0 mapping errors
    # That split was then spent too. test is now the third fresh split (27 texts, fresh_test_3.json), measured once at
    # 23:40 (commit bcf1476: 60.8%, 77.7%, 81.0%) and never tuned on, and the fourth (25 texts, fresh_test_4.json);
    # both measured together at the end (commit 996437f): recall 39.4% (124 of 315), precision 52.3% (124 of 237),
    # model recall 80.2%, 0 mapping errors (the third alone 62.5% and 78.9%, the fourth alone 25.1% and 34.5%).
    # Both were spent on 2026-12-02 and moved to dev. test is now the fifth, sixth and seventh fresh splits (79 texts,
    # fresh_test_5/6/7.json, collected blind), measured once at 02:18 on 2026-12-02 (commit e2bfb8d): recall 43.4%
    # (162 of 373), precision 44.5% (162 of 364), model recall 92.0%, 0 mapping errors (the fifth alone 69.3% and
    # 76.1%, the sixth 75.9% and 66.7%, the seventh, most of its claims in one large table, 22.4% and 23.3%); measured
    # again at the end (commit 366e6ae, 02:33), after changes made on dev batches only: 43.4% (162 of 373), 44.3% (162
    # of 366), 92.0%, 0 mapping errors (the sixth's precision 64.7%, the others unchanged); identical at 506c9ec.
    # All three were spent at 04:10 and moved to dev. test is now the eighth, ninth and tenth fresh splits (71 texts,
    # collected blind, committed with gold before any reader ran on them), measured once at 05:23 on 2026-12-02
    # (commit fc6cda2), by totals only: recall 42.6% (168 of 394), precision 56.8% (168 of 296), model recall
    # 79.0%, 0 mapping errors (the eighth 24.7% and 58.8%, the ninth 58.9% and 67.3%, the tenth 37.5% and 25.0%);
    # measured a second time, by totals only, after that scorer fix (05:58): identical
    # Those three were spent at 07:20 and moved to dev. test was then the eleventh, twelfth and thirteenth fresh
    # splits (83 texts, collected blind, committed with gold before any reader ran on them), measured once at 08:26
    # (commit 05bf044), by totals only: recall 19.1% (73 of 382), precision 23.4% (73 of 312), model recall 71.7%,
    # 0 mapping errors (the eleventh 75.0% and 60.0%, the twelfth 24.6% and 63.0%, the thirteenth, most of its claims
    # in three journal table pages, 10.5% and 12.1%). The thirteenth was then spent (08:30) and moved to dev; test is
    # the eleventh and twelfth (50 texts), measured again at the end (commit cd81a46, 08:40), by totals only, after
    # changes made on dev only: recall 41.9% (44 of 105), precision 61.1% (44 of 72), model recall 80.5%, 0 mapping
    # errors, each split as at 08:26 (the eleventh 75.0% and 60.0%, the twelfth 24.6% and 63.0%)
    # On 2026-12-02 after 10:15 the fourteenth, fifteenth and sixteenth fresh splits (63 texts, collected blind,
    # committed with gold before any reader ran on them) joined test. First read by totals only, the fourteenth and
    # fifteenth at ca93cdc (10:33): 60.4% and 42.7%, 32.6% and 62.0%; the sixteenth at ec4f806
    # (11:15): 33.6% and 75.0%. test (113 texts) measured at the end (9c3d0dd, 11:25), by totals only, after changes
    # made on dev only: recall 39.7% (143 of 360), precision 58.4% (143 of 245), model recall 84.3%, 0 mapping errors
    # (the eleventh 75.0% and 61.4%, the twelfth 24.6% and 63.0%, the fourteenth 60.4% and 42.7%, the fifteenth 32.6%
    # and 60.8%, the sixteenth 33.6% and 75.0%). Measured again (18c444b, 11:46), by totals only, after a number no
    # metric or benchmark names stopped being a claim (a rule drawn from the first reads of eleven spent splits and
    # dev batches): recall 39.7% (143 of 360), precision 61.9% (143 of 231), model recall 83.8%, 0 mapping errors
    # (the fourteenth 45.7% precision, the fifteenth 73.8%, the others unchanged). After a results JSON copied from a
    # file view with a bar on each line, or cut inside a task, became readable (c1a70cd, from dev batch 34's first
    # read): 51.9% (187 of 360), 68.0% (187 of 275) (the fifteenth 49.5% and 81.0%, the sixteenth 59.8% and 84.2%).
    # The seventeenth and eighteenth fresh splits (32 texts, collected blind) then joined test; first read by totals
    # at c1a70cd: 49.2% and 44.4%, 36.8% and 58.3%. test (145 texts): 48.8% (254 of 520), 62.4% (254 of 407), model
    # recall 85.0%, 0 mapping errors; the same at b3b64b2
    # The nineteenth, twentieth and twenty-first fresh splits (52 texts, collected blind) then joined test; first read
    # by totals at 12ed93e, 3e6769c and ac92550: 9.2% and 68.4%, 32.0% and 47.1%, 22.5% and 71.9%. test (197 texts)
    # at the end of the session (31d5af5): 34.7% (355 of 1,022), 62.7% (355 of 566), model recall 83.7%, 0 mapping
    # errors; every split reads as at its first read but for model recall (the twelfth 77.5% -> 80.0%)
    # The twenty-second, twenty-third and twenty-fourth fresh splits (54 texts, collected blind) then joined test;
    # first read by totals at c77668e, b10a786 and 9e9c857: 49.3% and 68.5%, 14.3% and 21.7%, 46.0% and 61.7%. test
    # (251 texts) at the end of the session (62e4879): 35.6% (426 of 1,195), 61.2% (426 of 696), model recall 82.7%,
    # 0 mapping errors; the 197 texts of the last stop read 34.7% (355 of 1,022) and 62.3% (355 of 570): the rules of
    # this session, drawn from dev batches 41 to 49, moved no test claim right and read four more wrong
    "test": {"claim_recall": 0.356, "claim_precision": 0.612, "model_recall": 0.826},
}


def scores(split: str) -> list[FileScore]:
    async def read_all() -> list[FileScore]:
        found = []
        for gold in load_gold(CORPUS):
            if gold.split == split:
                found.append(score_file(await read_paper(CORPUS / gold.file, extractor=RuleExtractor()), gold))
        return found

    return asyncio.run(read_all())


@pytest.mark.timeout(120)
@pytest.mark.parametrize("split", ["dev", "test"])
def test_the_rule_reader_holds_the_floor_reached_on_each_split(split: str) -> None:
    found = scores(split)
    if not found:  # the first test split was spent and moved to dev; the fresh one is measured before its floor
        pytest.skip(f"the {split} split holds no files yet")
    figures = totals(found)
    assert figures.claim_recall >= FLOOR[split]["claim_recall"]
    assert figures.claim_precision >= FLOOR[split]["claim_precision"]
    assert figures.model_recall >= FLOOR[split]["model_recall"]
    assert figures.mapping_errors == 0  # no claim about another benchmark is put on one of our tasks


def test_the_split_is_by_file_and_every_corpus_file_has_gold_and_provenance() -> None:
    gold = load_gold(CORPUS)
    files = {path.name for path in CORPUS.glob("*.md") if path.name != "PROVENANCE.md"}
    assert {g.file for g in gold} == files and len(files) >= 40
    assert "dev" in {g.split for g in gold} and {g.split for g in gold} <= {"dev", "test"}
    provenance = (CORPUS / "PROVENANCE.md").read_text(encoding="utf-8")
    assert all(f"| {name} |" in provenance for name in files)


def test_every_gold_claim_names_a_model_of_its_files_gold_models_or_none() -> None:
    rows = [json.loads(line) for line in (CORPUS / "gold.jsonl").read_text(encoding="utf-8").splitlines() if line]
    stray = [
        (row["file"], claim["model"])
        for row in rows
        for claim in row["claims"]
        if claim["model"] is not None and claim["model"] not in {model["name"] for model in row["models"]}
    ]
    assert stray == []
    assert all(isinstance(claim["value"], int | float) for row in rows for claim in row["claims"])


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    token = await make_maintainer(settings)
    async with running(settings) as http:
        http.headers.update(bearer(token))
        yield http


async def read(http: httpx.AsyncClient, name: str) -> dict[str, Any]:
    path = CORPUS / name
    response = await http.post("/v1/review/papers", files={"file": (path.name, path.read_bytes())})
    assert response.status_code == 201, response.text
    return dict(response.json())


@pytest.mark.anyio
async def test_a_released_models_readme_proposes_its_models_and_their_runs(app: httpx.AsyncClient) -> None:
    reading = await read(app, "medalpaca_readme_benchmarks.md")  # a `test` file of the first split (now spent)
    proposed = {(i["kind"], i["model"]) for i in reading["items"] if i["action"] == "proposed"}
    assert ("model", "medalpaca/medalpaca-13b") in proposed
    assert any(kind == "run" and model == "medalpaca/medalpaca-13b" for kind, model in proposed)
    comparators = [i for i in reading["items"] if i["model"] == "LLaMA 13b"]
    assert comparators and comparators[0]["action"] == "not_proposed"
    assert "comparator" in comparators[0]["reason"]


@pytest.mark.anyio
async def test_an_abstract_about_closed_models_proposes_nothing_and_lists_them_with_the_reason(
    app: httpx.AsyncClient,
) -> None:
    # the first two were `test` files of the first split (now spent); the last two are of the second fresh split
    for name in (
        "medpalm2_fact_page.md",
        "gpt4_knlekmd_arxiv_2303_17807.md",
        "dental_hygienist_exam_llms_biocloudy_abstract.md",
        "japanese_nurse_exam_chatgpt_scite_abstract.md",
    ):
        reading = await read(app, name)
        assert reading["proposed"] == 0
        listed = {i["model"]: i for i in reading["items"] if i["kind"] == "model"}
        assert listed and all(i["action"] == "not_proposed" and i["reason"] for i in listed.values())
        if "GPT-4" in listed:
            assert "weights" in listed["GPT-4"]["reason"] or "comparator" in listed["GPT-4"]["reason"]
    assert (await app.get("/v1/review/queue")).json()["items"] == []


@pytest.mark.anyio
async def test_on_the_current_test_split_a_released_card_proposes_its_model_and_closed_model_abstracts_nothing(
    app: httpx.AsyncClient,
) -> None:
    # files of the eighth, ninth and tenth fresh splits, chosen by their gold (a subject with Hugging Face weights;
    # abstracts whose models have no weights link), read here once when the splits were measured
    card = await read(app, "llama3_8b_instruct_medical_qlora_ain413_readme.md")
    proposed = {i["model"] for i in card["items"] if i["action"] == "proposed" and i["kind"] == "model"}
    assert any("Llama-3-8B-Instruct-Medical-QLoRA" in (name or "") for name in proposed), card["items"]
    for name in (
        "deepseek_r1_openai_usmle_321_questions_synapsesocial_abstract.md",
        "chinese_medical_licensing_cross_lingual_six_llms_plos_one_abstract.md",
    ):
        reading = await read(app, name)
        assert reading["proposed"] == 0
        listed = [i for i in reading["items"] if i["kind"] == "model"]
        assert listed and all(i["action"] == "not_proposed" and i["reason"] for i in listed)
