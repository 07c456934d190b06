"""Embeddings: all-MiniLM-L6-v2 run in-process on ONNX Runtime, for the shortlist's semantic side and the local judge.

`weights` finds and verifies the pinned ONNX file, `quantize` (with `fusion`) makes and caches its faster copy,
`encoder` turns texts into unit vectors, `cache` keeps snippet vectors by content, and `loading` holds the
process's one `Encoder` (embedder and cache) that `index.dense` and `judge.local` share. `assets/` ships the
model's tokenizer with its license. Nothing here imports the judge or the index; ONNX Runtime is imported by the
first load, not with these modules.
"""
