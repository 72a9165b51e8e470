"""BenchToward: tools package."""
