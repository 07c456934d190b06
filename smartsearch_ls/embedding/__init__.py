"""Embeddings: all-MiniLM-L6-v2 run in-process on ONNX Runtime, for the shortlist's semantic side and the local judge.

`weights` finds and verifies the pinned ONNX file (shipped in `assets/`, ready to run), `encoder` turns texts into
unit vectors, `cache` keeps snippet vectors by content, and `loading` holds the process's one `Encoder` (embedder
and cache) that `index.dense` and `judge.local` share. `assets/` ships the model and its tokenizer with their
license; `bench/model/` holds the recipe that made the model from its source file. Nothing here imports the judge or
the index; ONNX Runtime is imported by the first load, not with these modules.
"""
