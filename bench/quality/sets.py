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

from pathlib import Path
from typing import Literal

from bench.quality.metrics import QueryCase, load_cases

BEHAVIOR_DIR = Path(__file__).resolve().parent / "behavior"
"""One JSON-lines file per project, `<corpus>.jsonl`, in the format of `metrics.load_cases`."""

DEVELOPMENT = (
    "click", "zod", "koa", "pflag", "thor", "ejs", "trpc", "cron", "csv", "wtforms", "structlog",
    "voluptuous", "qs", "go-ini", "humantime", "tabulate", "mustache",
    "itsdangerous", "yargs-parser", "cast", "gjson", "textwrap", "walkdir", "slop", "chronic",
    "parse", "schedule", "validator", "properties", "glob", "base64", "strsim", "liquid", "hashdiff",
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


def corpus_file(corpus: str) -> Path:
    """The questions of one project."""
    return BEHAVIOR_DIR / f"{corpus}.jsonl"


def behavior_cases(part: Part = "all") -> list[QueryCase]:
    """The questions of a part, project by project in the part's order."""
    return [case for corpus in PARTS[part] for case in load_cases(corpus_file(corpus))]


def near_miss_cases() -> list[QueryCase]:
    """`NEAR_MISSES`, every one a negative of a development project."""
    return load_cases(NEAR_MISSES)
