"""Inside one result: accuracy per item category, the ROC curve and operating points of a binary task, and a
paged view of the items with the model's answers.

Item texts are shown only when the task file says the dataset's licence allows it (`meta.items_public`), and
categories only when it names the item field that holds them (`meta.item_category`); both are read from the
shipped task files, so a task added later shows neither until its file says so. Per-category intervals are
cluster-bootstrap percentile intervals like the result's own, seeded from the run key and the category name.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import Field

from evaluator import stats
from evaluator.kinds import Section, TaskKind
from evaluator.specs import TaskMeta, TaskSpec, load_task_files
from store.results import Result
from tools.registry import Registry
from tools.schemas import Shape

TARGET_SPECIFICITIES = (0.80, 0.90, 0.95)
ROC_POINTS = 200  # at most this many vertices drawn
RAW_OUTPUT_CHARS = 600
PAGE_SIZE = 25


class CategoryScore(Shape):
    name: str
    n: int
    value: float
    ci_low: float | None
    ci_high: float | None


class OperatingPoint(Shape):
    """The lowest threshold whose specificity reaches `target_specificity` (flag when score >= threshold)."""

    target_specificity: float
    threshold: float
    sensitivity: float
    specificity: float
    ppv: float | None


class Roc(Shape):
    fpr: list[float]
    tpr: list[float]
    patients: int
    windows: int
    positive_windows: int
    patients_with_event: int
    operating_points: list[OperatingPoint]


class ItemText(Shape):
    question: str
    exam: str
    options: list[str]
    category: str | None


class ItemRow(Shape):
    instance_id: str
    label: str
    prediction: str | None
    correct: bool
    parsed: bool
    raw_output: str | None = Field(description=f"The model's answer, cut at {RAW_OUTPUT_CHARS} characters.")
    text: ItemText | None


class ItemPage(Shape):
    rows: list[ItemRow]
    total: int
    matching: int
    page: int
    pages: int
    wrong_only: bool
    search: str
    texts_shown: bool


@dataclass(frozen=True)
class Insights:
    categories: list[CategoryScore] | None
    roc: Roc | None
    items_public: bool


def task_meta(registry: Registry, ref: str) -> TaskMeta | None:
    """The meta block of a shipped task file (None for a task version added to the store otherwise)."""
    metas = registry.remember(("task_metas",), lambda: {f.spec.task: f for f in load_task_files()})
    found = metas.get(ref)
    return found.meta if found is not None else None


def shipped_spec(registry: Registry, ref: str) -> TaskSpec | None:
    metas = registry.remember(("task_metas",), lambda: {f.spec.task: f for f in load_task_files()})
    found = metas.get(ref)
    return found.spec if found is not None else None


def item_texts(registry: Registry, spec: TaskSpec, category_field: str | None) -> dict[str, ItemText]:
    """Texts of the items shipped with the repository for `spec`, by instance id (empty when none ship)."""
    kind = registry.kinds.get(spec.kind)
    return registry.remember(("item_texts", spec.spec_hash), lambda: read_item_texts(kind, spec, category_field))


def read_item_texts(kind: TaskKind | None, spec: TaskSpec, category_field: str | None) -> dict[str, ItemText]:
    shipped = kind.item_texts(spec, category_field) if kind is not None else {}
    return {
        instance_id: ItemText(question=t.question, exam=t.exam, options=list(t.options), category=t.category)
        for instance_id, t in shipped.items()
    }


def predictions_table(registry: Registry, result: Result) -> pa.Table:
    """The result's predictions sorted by instance id (pinned by their sha256, so cached as they are)."""
    path = registry.predictions_path(result.predictions_path)
    key = ("predictions_table", result.run_id, result.predictions_sha256)
    return registry.remember(key, lambda: pq.read_table(path).sort_by("instance_id"))


async def result_insights(registry: Registry, result: Result, sections: frozenset[Section]) -> Insights:
    """The insight `sections` a result's task kind shows (its `Display`), computed once per predictions file."""
    key = ("insights", result.run_id, result.predictions_sha256)
    cached: Insights | None = registry.cache.peek(registry.store, key)
    if cached is not None:
        return cached
    meta, spec = task_meta(registry, result.task_ref), shipped_spec(registry, result.task_ref)
    items_public = bool(meta and meta.items_public)
    insights = await asyncio.to_thread(compute_insights, registry, result, sections, meta, spec)
    insights = Insights(insights.categories, insights.roc, items_public)
    registry.cache.put(registry.store, key, insights)
    return insights


def compute_insights(
    registry: Registry, result: Result, sections: frozenset[Section], meta: TaskMeta | None, spec: TaskSpec | None
) -> Insights:
    table = predictions_table(registry, result)
    if "roc" in sections:
        return Insights(None, roc_curve(table), False)
    if "categories" not in sections or meta is None or spec is None or meta.item_category is None:
        return Insights(None, None, False)
    texts = item_texts(registry, spec, meta.item_category)
    ids = table.column("instance_id").to_pylist()
    names = [texts[i].category if i in texts else None for i in ids]
    correct = np.asarray(table.column("correct").to_pylist(), dtype=bool)
    units = np.asarray(table.column("unit_id").to_pylist())
    replicates = int(spec.bootstrap.get("replicates", 1000))
    return Insights(category_scores(result.run_key, names, correct, units, replicates), None, False)


def category_scores(
    run_key: str, names: Sequence[str | None], correct: np.ndarray, units: np.ndarray, replicates: int
) -> list[CategoryScore]:
    """Accuracy per category with its 95% cluster-bootstrap interval, largest category first."""
    labels = np.array([name or "(no category)" for name in names])
    scores = []
    for name in sorted(set(labels.tolist())):
        chosen = labels == name
        estimate = stats.bootstrap_metric(
            "accuracy",
            units=units[chosen],
            replicates=replicates,
            rng=stats.rng_from_key(f"{run_key}\ncategory:{name}"),
            correct=correct[chosen],
        )
        scores.append(
            CategoryScore(
                name=name, n=int(chosen.sum()), value=estimate.value, ci_low=estimate.ci_low, ci_high=estimate.ci_high
            )
        )
    return sorted(scores, key=lambda s: (-s.n, s.name))


def roc_curve(table: pa.Table) -> Roc | None:
    labels = np.asarray(table.column("label").to_numpy(), dtype=bool)
    scores = np.asarray(table.column("score").to_numpy(), dtype=np.float64)
    units = np.asarray(table.column("unit_id").to_pylist())
    if labels.all() or not labels.any():
        return None
    order = np.argsort(-scores, kind="stable")
    ordered, hits = scores[order], labels[order]
    last_of_level = np.r_[ordered[1:] != ordered[:-1], True]  # one point per distinct threshold
    tp, fp = np.cumsum(hits)[last_of_level], np.cumsum(~hits)[last_of_level]
    thresholds = ordered[last_of_level]
    positives, negatives = int(labels.sum()), int((~labels).sum())
    tpr, fpr = np.r_[0.0, tp / positives], np.r_[0.0, fp / negatives]
    keep = np.unique(np.linspace(0, tpr.size - 1, min(tpr.size, ROC_POINTS)).round().astype(int))
    return Roc(
        fpr=[round(float(v), 4) for v in fpr[keep]],
        tpr=[round(float(v), 4) for v in tpr[keep]],
        patients=int(np.unique(units).size),
        windows=int(labels.size),
        positive_windows=positives,
        patients_with_event=int(np.unique(units[labels]).size),
        operating_points=operating_points(thresholds, tp, fp, positives, negatives),
    )


def operating_points(
    thresholds: np.ndarray, tp: np.ndarray, fp: np.ndarray, positives: int, negatives: int
) -> list[OperatingPoint]:
    points = []
    specificity = 1.0 - fp / negatives
    for target in TARGET_SPECIFICITIES:
        reaching = np.flatnonzero(specificity >= target)
        if reaching.size == 0:
            continue
        at = int(reaching[-1])  # the lowest threshold (most flagged) that still reaches the target
        flagged = int(tp[at] + fp[at])
        points.append(
            OperatingPoint(
                target_specificity=target,
                threshold=float(thresholds[at]),
                sensitivity=float(tp[at] / positives),
                specificity=float(specificity[at]),
                ppv=float(tp[at] / flagged) if flagged else None,
            )
        )
    return points


def item_page(
    registry: Registry, result: Result, *, page: int, wrong_only: bool, search: str, items_public: bool
) -> ItemPage:
    """One page of a multiple-choice result's items: wrong answers only and an id search narrow it."""
    table = predictions_table(registry, result)
    ids = table.column("instance_id").to_pylist()
    correct = table.column("correct").to_pylist()
    wanted = [
        i
        for i, (name, right) in enumerate(zip(ids, correct, strict=True))
        if (not wrong_only or not right) and (not search or search.casefold() in name.casefold())
    ]
    pages = max(1, -(-len(wanted) // PAGE_SIZE))
    page = min(max(page, 1), pages)
    chosen = wanted[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    spec, meta = shipped_spec(registry, result.task_ref), task_meta(registry, result.task_ref)
    texts = item_texts(registry, spec, meta.item_category) if items_public and spec and meta else {}
    rows = table.take(pa.array(chosen, type=pa.int64())).to_pylist() if chosen else []
    return ItemPage(
        rows=[item_row(row, texts.get(row["instance_id"])) for row in rows],
        total=len(ids),
        matching=len(wanted),
        page=page,
        pages=pages,
        wrong_only=wrong_only,
        search=search,
        texts_shown=bool(texts),
    )


def item_row(row: dict[str, object], text: ItemText | None) -> ItemRow:
    raw = row.get("raw_output")
    return ItemRow(
        instance_id=str(row["instance_id"]),
        label=str(row["label"]),
        prediction=row.get("prediction"),  # type: ignore[arg-type]
        correct=bool(row["correct"]),
        parsed=bool(row.get("parsed", True)),
        raw_output=str(raw)[:RAW_OUTPUT_CHARS] if raw is not None else None,
        text=text,
    )
