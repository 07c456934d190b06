"""The words that make a name a secret's: one list for every place that finds secrets by their names.

The chunker marks YAML block scalars under such a name (`secret_blocks`), and the judge's redaction finds
assignments, XML elements and Dockerfile `ENV` lines by them (`judge.secret_assignments`). Written once, a word
added for one of them cannot be missed by the others. It sits with the chunker, the first step that needs it:
imports run from the chunker to the judge, never back.
"""

SECRET_NAME_WORDS = "pass|pwd|pw|secret|cred|token|key|auth"
"""A regular expression's alternation of the words, matched anywhere in a name and in any case by those who use it:
`password`, `DB_PWD`, `clientSecret`, `credentials`, `apiKey`, `AUTH_HEADER`."""
