"""Point estimates recomputed from a predictions table, to check what a result claims."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from evaluator import stats


def point_metrics(kind: str, table: pa.Table) -> dict[str, float | None]:
    """The metrics a task kind defines, computed from the predictions rows."""
    if table.num_rows == 0:
        return {}
    if kind == "mcq":
        return {"accuracy": stats.accuracy(table.column("correct").to_numpy(zero_copy_only=False))}
    labels = table.column("label").to_numpy().astype(np.int8)
    scores = table.column("score").to_numpy()
    if labels.min() == labels.max():  # one class only: AUROC and AUPRC are undefined
        return {"auroc": None, "auprc": None}
    return {"auroc": stats.auroc(labels, scores), "auprc": stats.auprc(labels, scores)}
