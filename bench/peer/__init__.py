"""The peer: pydantic-ai-harness's SmartSearch, run in its own venv by `run_peer.py` (see `venv.py`)."""
