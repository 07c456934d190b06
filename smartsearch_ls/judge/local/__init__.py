"""The embedded `local` judge: MiniLM vectors (from `embedding/`) and a learned ranker, in-process.

`model.local_judge()` is the judge for the name `local`: it scores a whole shortlist in one call from the
evidence the shortlist gathered. `features` turns each candidate into the numbers `ranker` weighs (fitted in
`bench/ranker/`); `inert` spots snippets that perform nothing. The vectors themselves, and the cache the index's
shortlist shares, are in `smartsearch_ls.embedding`.
"""
