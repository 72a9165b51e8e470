"""BenchToward: server package."""
