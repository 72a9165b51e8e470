"""BenchToward: store package."""
