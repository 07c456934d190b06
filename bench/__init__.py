"""Benchmarks for smartsearch-ls: pinned corpora, a behavior quality set, metrics, baselines and the peer.

Run `python -m bench --help` for the commands; `bench/README.md` says what each fetches and how long it takes.
"""
