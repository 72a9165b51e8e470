"""bench/reader_eval.py as a researcher runs it: per-file lines by default, totals only for held-out texts, and a
total per listed group of files (one fresh split); a group file it cannot read is a clear error, not a traceback;
and the scorer it uses matches model names by their words, Hangul words too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from evaluator.papers.scoring import in_split, load_gold, same_model

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "reader_corpus"


def reader_eval(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(ROOT / "bench" / "reader_eval.py"), *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, cwd=ROOT)


def test_totals_only_prints_no_line_per_file_and_a_total_for_each_group(tmp_path: Path) -> None:
    first = [gold.file for gold in in_split(load_gold(CORPUS), "dev")[:3]]
    group = tmp_path / "three.json"
    group.write_text(json.dumps({"files": first[1:]}), encoding="utf-8")
    done = reader_eval("--split", "dev", "--limit", "3", "--totals-only", "--group", str(group))
    assert done.returncode == 0, done.stderr
    assert not any(name in done.stdout for name in first)
    assert "dev: 3 files" in done.stdout and "three.json: 2 files" in done.stdout
    shown = reader_eval("--split", "dev", "--limit", "3")
    assert all(name[:52] in shown.stdout for name in first)


def test_a_group_file_it_cannot_read_is_an_error_without_a_traceback(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    for group in (broken, tmp_path / "absent.json"):
        done = reader_eval("--split", "dev", "--limit", "1", "--totals-only", "--group", str(group))
        assert done.returncode == 2
        assert done.stderr.startswith(f"error: group {group}") and "Traceback" not in done.stderr


def test_the_scorer_matches_model_names_written_in_hangul_by_their_words() -> None:
    assert same_model("랜덤 포레스트", "랜덤 포레스트") and same_model(
        "그래디언트 부스팅", "익스트림 그래디언트 부스팅"
    )
    assert not same_model("펌메드GPT", "펍메드GPT")  # another name that shares only its Latin part
    assert not same_model("서포트 벡터 머신", "랜덤 포레스트")
