"""BenchToward store: the only place SQL lives. `Store` owns the connections; one module per entity."""

from store.db import Store, StoreError

__all__ = ["Store", "StoreError"]
