"""The symbol side of search: declarations, imports and uses, answered from the index in milliseconds, no judge.

`index` keeps each root's declarations, imports and import graph up to date with its `RootIndex`; `imports`
parses and resolves import statements, `graph` turns them into edges and file centrality; `ranking` matches and
orders declarations for a name; `references` finds a name's uses; `intents` runs the look-ups behind
`definition`, `references`, `tests` and `file` as matches; `related` follows imports for `expandRelated`.
"""
