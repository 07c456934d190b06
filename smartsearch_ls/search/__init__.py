"""From a request to a result: route by the query's shape, look names and paths up, judge prose, merge.

Imports run one way, from the request down to the entry:

- `request` (params, `SearchRequest`, `Mode`, `Intent`), `result` (`Match`, `Coverage`, `SearchResult`) and
  `openable` are the values every step passes on; they import no step.
- `symbols/` is the symbol side: the index of declarations and imports, name ranking, references, the
  intents' look-ups and `expandRelated`; `paths` is the path look-up.
- `excerpt`, `context` and `merge` are shared by the look-ups and the judged search: what a match shows, the
  `context` re-ranking, one answer from many hits.
- `behavior` is the judged search; `engine` routes a request to all of these (`routing` reads the shape);
  `wire` writes a result as the contract's JSON for the server and the command line.
"""
