"""The harness version: one string in one place, part of every run key.

Bump it whenever a change to the evaluator could change any number it produces (parsing, scoring,
statistics, windowing); results computed under an earlier harness keep their own run keys.
"""

HARNESS_VERSION = "0.1.0"
