"""What the local judge knows about one shortlisted snippet, as the numbers its ranker weighs.

A cosine alone cannot tell a function that does the asked thing from its test (which names the behavior in its
own name), from a file's header of imports, or from a table of literals that repeats the query's words. The
engine already holds the evidence that can: where the query's words occur (the declaration's name, the path, the
body) and how rare they are in the root, the BM25 score and both ranks in the shortlist, what kind of snippet and
file it is. `features` turns a shortlist into one row of numbers per candidate, the same code at search time and
when the ranker is fitted (`bench/ranker/`), so the weights mean at run time what they meant when fitted.

`root_coverage` is the same for every candidate of a question: the share of the question's words that
occur anywhere in the root. It does not rank; it tells the judge's verdict on the question as a whole ("is the
asked behavior here at all?") that a question naming SMTP in a project that never says SMTP is likely absent.

The last three weigh what a snippet says of itself in comments and docstrings (`embedding.commentary`): the
question's cosine with it, whether there is any, and how it stands against the best of the shortlist's; a
snippet that says nothing has 0 for all three.

The last two read a long snippet past its head (`embedding.passages`): the better of its own cosine and its
passages', and how that stands against the shortlist's best; a snippet whose head holds all of it has its own
cosine there.

Every feature is bounded or log-scaled so a weight learned on one project's scale carries to another's; ranks and
gaps are taken within the shortlist, which says how a candidate stands against its rivals for the same question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from smartsearch_ls.chunking.snippet import is_module_header
from smartsearch_ls.discovery.documentation import is_documentation
from smartsearch_ls.discovery.file_kinds import asks_for_tests, is_test
from smartsearch_ls.index.terms import QUERY_STOP_WORDS, distinct_terms, identifier_terms, meta_terms
from smartsearch_ls.judge.contract import Evidence

NAMES = (
    "cosine",
    "cosine_gap",
    "cosine_rank",
    "lexical",
    "lexical_rank",
    "coverage",
    "name_coverage",
    "path_coverage",
    "body_coverage",
    "declaration",
    "module_header",
    "test_unasked",
    "documentation",
    "data_file",
    "example_path",
    "data_heavy",
    "comment_heavy",
    "lines",
    "root_coverage",
    "commentary_cosine",
    "commented",
    "commentary_gap",
    "whole_cosine",
    "whole_gap",
)
"""The columns of `features`, in order; the ranker's weights are stored by these names."""

READING_COLUMNS = [
    NAMES.index(name) for name in ("commentary_cosine", "commented", "commentary_gap", "whole_cosine", "whole_gap")
]
"""The columns of what a snippet's readings say (`embedding.readings`: its commentary, its passages): the only
features that need a candidate's readings, so the judge can read them for the leaders of a shortlist alone."""
_OWN_COLUMNS = [i for i in range(len(NAMES)) if i not in READING_COLUMNS]

LABELS = {
    "cosine": "meaning (cosine)",
    "cosine_gap": "meaning, against the best candidate",
    "cosine_rank": "rank by meaning",
    "lexical": "words (BM25), against the best candidate",
    "lexical_rank": "rank by words",
    "coverage": "share of the question's words in it",
    "name_coverage": "question's words in the name",
    "path_coverage": "question's words in the path",
    "body_coverage": "question's rare words in the code",
    "declaration": "a whole declaration",
    "module_header": "a file's header",
    "test_unasked": "a test",
    "documentation": "documentation",
    "data_file": "a data or config file",
    "example_path": "under examples, fixtures or docs",
    "data_heavy": "mostly literals",
    "comment_heavy": "mostly comments",
    "lines": "size",
    "root_coverage": "question's words in the project",
    "commentary_cosine": "meaning of its comments (cosine)",
    "commented": "commented",
    "commentary_gap": "meaning of its comments, against the best",
    "whole_cosine": "meaning of the whole snippet (cosine)",
    "whole_gap": "meaning of the whole snippet, against the best",
}
"""How each feature reads in a match's `why`."""

_FLAGS = frozenset(
    {"declaration", "module_header", "test_unasked", "documentation", "data_file", "example_path", "commented"}
)


def label(name: str, value: float) -> str:
    """A feature as a person reads it: a flag that is off is said as such (`not a test`), since a weight is
    measured against the average candidate and being no test is then what counted."""
    return f"not {LABELS[name]}" if name in _FLAGS and value == 0 else LABELS[name]


_DATA_SUFFIXES = frozenset(
    ".json .jsonl .yaml .yml .toml .ini .cfg .conf .xml .html .htm .csv .tsv .txt .lock .svg .css .scss .map"
    " .properties .env .sql".split()
)
_DATA_NAMES = frozenset({"pkg-info", "setup.cfg", "package.json", "package-lock.json", "cargo.lock", "go.sum"})
_EXAMPLE_FOLDERS = re.compile(r"(^|/)(examples?|samples?|fixtures?|benchmarks?|benches|docs?|demo|scripts)/")
_LITERAL_LINE = re.compile(r"""^\s*(?:[\w$.\-]+\s*[:=]\s*)?(?:["'`][^"'`]*["'`]|[-+]?[\d.]+|true|false|null|None)"""
                           r"""\s*[,;)\]}]*\s*$|^\s*[\[\]{}(),;]+\s*$""", re.IGNORECASE)  # fmt: skip
_BLANK_OR_COMMENT = re.compile(r"^\s*(?:$|#|//|/\*|\*|--)")
_DOCSTRING_QUOTES = re.compile(r'"""|\'\'\'')


def query_terms(query: str) -> tuple[str, ...]:
    """The index's terms of the words the query names (stop words out), in order, once each."""
    found: dict[str, None] = {}
    for word in re.findall(r"[A-Za-z0-9_]+", query):
        if word.lower() not in QUERY_STOP_WORDS:
            found.update(dict.fromkeys(identifier_terms(word)))
    return tuple(found)


def features(query: str, shortlist: Sequence[Evidence], idf: Mapping[str, float]) -> npt.NDArray[np.float64]:
    """One row of `NAMES` per candidate, whose cosines must be known; `idf` gives each of the query's terms
    (`query_terms`) its rarity in the candidates' root (a term it lacks counts as rare: no snippet holds it)."""
    rows = np.zeros((len(shortlist), len(NAMES)))
    if not shortlist:
        return rows
    terms = query_terms(query)
    rarest = max(idf.values(), default=1.0)
    weights = {t: idf.get(t, rarest) for t in terms}
    total = sum(weights.values()) or 1.0
    cosines = np.array([e.cosine if e.cosine is not None else 0.0 for e in shortlist])
    lexical = np.array([e.lexical for e in shortlist])
    cosine_rank = _ranks(cosines)
    lexical_rank = _ranks(lexical)
    best_cosine = float(cosines.max())
    best_lexical = float(lexical.max())
    tests_wanted = asks_for_tests(query)
    known = sum(1 for t in terms if t in idf) / len(terms) if terms else 0.0
    for row, item in enumerate(shortlist):
        s = item.snippet
        text = s.text  # unpacked once: a snippet holds its text compressed
        body = distinct_terms(text)
        named = distinct_terms(s.symbol) if s.symbol else frozenset()
        path_terms = meta_terms(s.path, None)
        test = is_test(s.path, s.symbol)
        rows[row, _OWN_COLUMNS] = (
            cosines[row],
            cosines[row] - best_cosine,
            math.log1p(cosine_rank[row]),
            item.lexical / best_lexical if best_lexical > 0 else 0.0,
            math.log1p(lexical_rank[row]) if item.lexical > 0 else math.log1p(len(shortlist)),
            sum(1 for t in terms if t in body or t in named) / len(terms) if terms else 0.0,
            sum(w for t, w in weights.items() if t in named) / total,
            sum(w for t, w in weights.items() if t in path_terms) / total,
            sum(w for t, w in weights.items() if t in body) / total,
            float(s.symbol is not None),
            float(is_module_header(s)),
            float(test and not tests_wanted),
            float(is_documentation(s.path)),
            float(_is_data_file(s.path)),
            float(_EXAMPLE_FOLDERS.search(s.path) is not None and not test),
            *_line_shares(text),
            math.log1p(s.end_line - s.start_line + 1),
            known,
        )
    return with_readings(rows, shortlist)


def with_readings(rows: npt.NDArray[np.float64], shortlist: Sequence[Evidence]) -> npt.NDArray[np.float64]:
    """`rows` of `features` with their reading columns taken again from the shortlist's readings (their cosines;
    None: not read, or nothing to read), the rest as they were."""
    said = np.array([e.commentary_cosine if e.commentary_cosine is not None else np.nan for e in shortlist])
    cosines = [e.cosine if e.cosine is not None else 0.0 for e in shortlist]
    whole = np.array(
        [
            max(c, e.passage_cosine) if e.passage_cosine is not None else c
            for c, e in zip(cosines, shortlist, strict=True)
        ]
    )
    read = rows.copy()
    read[:, READING_COLUMNS] = _reading_features(said, whole)
    return read


def unread(rows: npt.NDArray[np.float64], kept: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """The rows of `features` as they are when only the `kept` candidates' readings were read: the others say
    nothing in comments and are their head, and every gap is taken again against what was read. A shortlist's
    rows computed with every reading (the ranker's fit collects them so) give what the judge computes with the
    readings of the kept ones alone."""
    cosines = rows[:, NAMES.index("cosine")]
    commented = rows[:, NAMES.index("commented")] > 0
    said = np.where(kept & commented, rows[:, NAMES.index("commentary_cosine")], np.nan)
    whole = np.where(kept, rows[:, NAMES.index("whole_cosine")], cosines)
    fewer = rows.copy()
    fewer[:, READING_COLUMNS] = _reading_features(said, whole)
    return fewer


def _reading_features(said: npt.NDArray[np.float64], whole: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The reading columns from each candidate's commentary cosine (nan: it says nothing, or was not read) and its
    whole-snippet cosine (the better of its head's and its passages')."""
    if not len(said):
        return np.zeros((0, len(READING_COLUMNS)))
    commented = ~np.isnan(said)
    best_said = float(said[commented].max()) if commented.any() else 0.0
    return np.column_stack(
        [
            np.where(commented, said, 0.0),
            commented.astype(np.float64),
            np.where(commented, said - best_said, 0.0),
            whole,
            whole - float(whole.max()),
        ]
    )


def _ranks(values: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """0 for the best, in a stable order."""
    order = np.argsort(-values, kind="stable")
    ranks = np.empty(len(values), dtype=np.int64)
    ranks[order] = np.arange(len(values))
    return ranks


def _is_data_file(path: str) -> bool:
    name = path.rpartition("/")[2].lower()
    return name in _DATA_NAMES or any(name.endswith(suffix) for suffix in _DATA_SUFFIXES)


def _line_shares(text: str) -> tuple[float, float]:
    """Two shares of a snippet's lines, from one pass over them: of its code lines, those that hold only a
    literal (a table, a fixture, a list of codes); of its non-blank lines, those that are comments or
    docstring (a tutorial in a doc comment repeats a question's words without doing what it asks)."""
    code = literal = prose = written = 0
    in_docstring = False
    for line in text.split("\n"):
        if not line.strip():
            continue
        written += 1
        quotes = len(_DOCSTRING_QUOTES.findall(line))
        commented = _BLANK_OR_COMMENT.match(line) is not None
        if in_docstring or quotes or commented:
            prose += 1
        if quotes % 2:
            in_docstring = not in_docstring
        if not commented:
            code += 1
            literal += _LITERAL_LINE.match(line) is not None
    return (literal / code if code else 0.0, prose / written if written else 0.0)


def root_idf(frequency: Callable[[str], int], documents: int, terms: Sequence[str]) -> dict[str, float]:
    """BM25's idf of each term that occurs, from `frequency(term)` (snippets holding it) among `documents`."""
    return {t: math.log(1 + (documents - f + 0.5) / (f + 0.5)) for t in terms if (f := frequency(t)) > 0}
