"""Tests of the benchmark tooling: `.venv/bin/python -m pytest bench/tests`."""
