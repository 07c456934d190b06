"""The behavior set, split by project into a development part and a frozen held-out part.

Why a split by project: a question set that the judge's calibration, the ranker's weights or any threshold was
fitted or tuned on says how well that fit remembers it, not how the engine does on code it never saw. Every fit
and choice in this repository is made on `DEVELOPMENT`; README's quality figures are `HELD_OUT`'s. Whole projects
are held out, not random questions, because what carries over badly is a project's vocabulary, layout and
language, and questions of one project share them.

The held-out part has one project per language family the development part also covers or the training corpus
does (Python, JavaScript, Go, Rust), so a figure on it is about unseen projects, not unseen languages. Its
questions may be read to check a gold span, never to choose a feature, a weight or a threshold.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Literal

from bench.quality.metrics import QueryCase, load_cases
from smartsearch_ls.chunking.languages import LANGUAGES
from smartsearch_ls.search.symbols.imports import PY_SUFFIXES

BEHAVIOR_DIR = Path(__file__).resolve().parent / "behavior"
"""One JSON-lines file per project, `<corpus>.jsonl`, in the format of `metrics.load_cases`."""

DEVELOPMENT = (
    "click", "zod", "koa", "pflag", "thor", "ejs", "trpc", "cron", "csv", "wtforms", "structlog",
    "voluptuous", "qs", "go-ini", "humantime", "tabulate", "mustache",
    "itsdangerous", "yargs-parser", "cast", "gjson", "textwrap", "walkdir", "slop", "chronic",
    "parse", "schedule", "validator", "properties", "glob", "base64", "strsim", "liquid", "hashdiff",
    "tornado", "fastify", "redux-toolkit", "gin", "clap", "rake",
)  # fmt: skip
"""Python, TypeScript, JavaScript, Go, Ruby and Rust: what fits and choices are made on."""
HELD_OUT = ("marshmallow", "ws", "mux", "semver")
"""Python, JavaScript, Go and Rust: frozen; reported, never tuned on."""

Part = Literal["development", "held-out", "all"]
PARTS: dict[str, tuple[str, ...]] = {
    "development": DEVELOPMENT,
    "held-out": HELD_OUT,
    "all": DEVELOPMENT + HELD_OUT,
}


NEAR_MISSES = Path(__file__).resolve().parent / "near_misses.jsonl"
"""Five more absent behaviors per development project, each close to what the project does (a pager for the help of
a library that prints help, an ETag for a framework that sets headers). Nothing is fitted on them: they measure
how the question model tells a near miss from an answer, the decision that fitting on more near misses did not
improve (bench/ranker/README.md)."""


MATCHED_ABSENCES = Path(__file__).resolve().parent / "matched_absences.jsonl"
"""Six more absent behaviors per development project (four near misses, two features such a library might have),
each written to the length and form of the project's answerable questions (within three words of their mean, the
same share of questions ending in "?"), its absence checked by searching the whole tree and reading the closest
code (`closest`, `why_absent`). The written negatives and the near misses are shorter than the answerable questions
(about 14 and 16 words against 20), so a verdict given the question's length could tell them apart by it, which no
user's question would carry; these cannot be told apart that way."""


TRANSPLANTED = Path(__file__).resolve().parent / "transplanted.jsonl"
"""Answerable questions of one development project asked word for word of another of its kind (a command-line
parser's of another command-line parser), each labeled by reading the target's code: `present` (with its gold
span), `absent` (with the `closest` code and `why`) or `partial` (close, arguable either way: not scored). Every
absent behavior in the other sets was written by someone who knew it was absent, and their wording says so
(`bench/ranker/wording_check.py`); these were written by someone reading code that does them, so a verdict can tell
the absent from the present only by reading the target's code."""


TRANSPLANTED_HELD_OUT = Path(__file__).resolve().parent / "transplanted_held_out.jsonl"
"""The same for the held-out part: questions of two development projects and three training packages asked of the
held-out projects of their kind (a schema library's of marshmallow, a websocket package's of ws, a route pattern
package's of mux, a version package's of semver). Part of the frozen held-out part: read once per shipped judge,
never fitted or tuned on."""


def transplanted_cases(path: Path = TRANSPLANTED) -> list[QueryCase]:
    """The decided questions of a transplanted set (`TRANSPLANTED`, `TRANSPLANTED_HELD_OUT`, or the training
    packages' own): `present` ones with their gold, `absent` ones as negatives (`load_cases` leaves out `partial`)."""
    return load_cases(path)


def corpus_file(corpus: str) -> Path:
    """The questions of one project."""
    return BEHAVIOR_DIR / f"{corpus}.jsonl"


def behavior_cases(part: Part = "all") -> list[QueryCase]:
    """The questions of a part, project by project in the part's order."""
    return [case for corpus in PARTS[part] for case in load_cases(corpus_file(corpus))]


LANGUAGE_OF_SUFFIX = {
    **dict.fromkeys(PY_SUFFIXES, "python"),
    **{suffix: language.name for language in LANGUAGES for suffix in language.extensions},
}
"""The chunker's languages (Python's outline is `ast`'s, the rest tree-sitter's), by file suffix."""


def project_languages(cases: list[QueryCase]) -> dict[str, str]:
    """Each project's language: the one most of its answers' files are written in (a negative has no answer, so
    the language is the project's, not the question's). Read off the gold spans rather than kept by hand, so a new
    project needs no entry."""
    counts: dict[str, Counter[str]] = {}
    for case in cases:
        for path, _, _ in case.gold:
            language = LANGUAGE_OF_SUFFIX.get(PurePosixPath(path).suffix, "other")
            counts.setdefault(case.corpus, Counter())[language] += 1
    return {corpus: found.most_common(1)[0][0] for corpus, found in counts.items()}


def near_miss_cases() -> list[QueryCase]:
    """`NEAR_MISSES`, every one a negative of a development project."""
    return load_cases(NEAR_MISSES)


def matched_absence_cases() -> list[QueryCase]:
    """`MATCHED_ABSENCES`, every one a negative of a development project."""
    return load_cases(MATCHED_ABSENCES)
