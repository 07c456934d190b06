"""Training data for the relevance model of issue 19: (doc comment summary -> function) pairs from real packages.

Why a separate corpus: the model may never see the projects it is measured on (the quality set, and the projects
reserved for independent checks), so its training pairs come from some sixty other pinned packages in five
languages, built by one reproducible command (`python -m bench.train corpus`, see `README.md` here).
"""
