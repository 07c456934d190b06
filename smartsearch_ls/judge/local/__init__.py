"""The embedded `local` judge: MiniLM vectors (from `embedding/`) turned into a calibrated relevance, in-process.

`model.local_model()` is the judge for the name `local`: a Pydantic AI decision model that answers `Relevance`
through an ordinary `Agent` run. `calibration` maps a cosine and a word overlap to a probability; `inert` spots
snippets that perform nothing. The vectors themselves, and the cache the index's shortlist shares, are in
`smartsearch_ls.embedding`.
"""
