"""Writes real Inspect eval logs (JSON and .eval) for BenchToward's evidence tests.

Run with inspect-ai 0.3.285 in its own venv, offline. Inspect estimates prompt sizes with tiktoken's o200k_base,
which it downloads on first use; this machine has no network, so the estimate is replaced by len(text) // 4 before
the run (it only sizes context budgets; it does not touch the model's outputs, the scores or the log format).
"""

import inspect_ai.model._model as model_module
import inspect_ai.model._tokens as tokens
from inspect_ai import eval as inspect_eval

tokens.count_text_tokens = lambda text: len(text) // 4
model_module.count_text_tokens = tokens.count_text_tokens

for log_format, folder in (("json", "logs-json"), ("eval", "logs-eval")):
    inspect_eval("inspect_task.py", model="mockllm/model", log_format=log_format, log_dir=folder, display="none")
