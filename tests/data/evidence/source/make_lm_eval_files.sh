#!/usr/bin/env bash
# Writes a real lm-eval results file and samples file for BenchToward's evidence tests: lm-eval 0.4.13 with its
# built-in `dummy` model (random log-likelihoods, no weights) on the 12 demo items, offline.
set -euo pipefail
cd "$(dirname "$0")"
export HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1
lm_eval --model dummy --tasks clinicalqa_demo_items --include_path . --output_path lm-eval-out --log_samples --seed 0
