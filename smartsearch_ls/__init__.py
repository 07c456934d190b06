"""smartsearch-ls: code search by behavior, as a language server and a command line.

The package folders follow the pipeline: `discovery` (which files), `chunking` (which snippets),
`embedding` (MiniLM vectors, for the shortlist and the local judge), `index` (the warm lexical index and the
shortlist), `judge` (is this snippet what was asked for), `search` (one function from query to result), then
the two front ends, `server` and `cli`. The engine never imports the server (`tests/test_layout.py`).
"""

__version__ = "0.1.0"
