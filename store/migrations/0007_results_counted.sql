-- 0007: indexes for reads that run on every cache miss under load (found by bench/load_bench.py at 200 models
-- x 10 task versions). Counting and listing a task version's published, complete results, and finding one
-- model's result on it, read this index alone; a model's aliases no longer scan every alias.

CREATE INDEX results_counted ON results (task_slug, task_version, status, partial, model_slug);
CREATE INDEX model_aliases_by_model ON model_aliases (model_slug);
