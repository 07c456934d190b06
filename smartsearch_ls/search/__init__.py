"""One function from a query to a result: `search.engine.search`."""
