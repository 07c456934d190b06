"""Quality set, metrics and baselines."""
