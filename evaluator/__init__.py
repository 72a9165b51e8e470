"""BenchToward: evaluator package."""
