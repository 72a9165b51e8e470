"""BenchToward: web package."""
