"""What a question's wording alone says about whether its behavior exists: the control an absence verdict must beat.

Every absent behavior in these sets was written by someone who knew it was absent, and many read as feature requests
(the words and pairs this model finds leaning absent include "such as", "instead of", "rather than", "so that"),
where the answerable questions describe code that was read ("if", "otherwise", "and how"). A verdict taught
questions can learn that wording instead of reading the code, and nothing in a user's question about a behavior they
cannot see would carry it. So this model reads no code: a logistic regression over the words and word pairs of the
question, taught the newcomer packages' answerable questions against their absent behaviors written as long
(`bench/train/newcomer_matched.jsonl`), and scored on the development part's answerable questions against each kind
of absent behavior. A reader's area against a kind is evidence of reading only where it beats this one's:

    .venv/bin/python -m bench.ranker.wording_check
"""

from __future__ import annotations

import argparse
import itertools
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from bench.quality import metrics
from bench.quality.sets import behavior_cases, matched_absence_cases, near_miss_cases
from bench.ranker.collect import NEWCOMER, NEWCOMER_MATCHED
from bench.ranker.fit import Data, fit
from bench.ranker.reader_check import area
from smartsearch_ls.judge.local.ranker import Logistic

MIN_QUESTIONS = 3
"""A word or word pair is an input only if at least this many taught questions hold it."""
PENALTY = 1.0
"""`fit`'s ridge, as the ranker's own fits use it; the control is a measurement, not tuned on what it measures."""


def terms(question: str) -> set[str]:
    """The question's lower-case words and adjacent word pairs."""
    words = re.findall(r"[a-z]+", question.lower())
    return set(words) | {f"{a} {b}" for a, b in itertools.pairwise(words)}


class WordingModel:
    """Answerable (1) against absent (0) from the question's words alone."""

    def __init__(self, answerable: Sequence[str], absent: Sequence[str]) -> None:
        counts = Counter(term for question in (*answerable, *absent) for term in terms(question))
        self.vocabulary = sorted(term for term, count in counts.items() if count >= MIN_QUESTIONS)
        self._column = {term: i for i, term in enumerate(self.vocabulary)}
        x = self.inputs([*answerable, *absent])
        y = np.r_[np.ones(len(answerable)), np.zeros(len(absent))]
        w = np.r_[np.full(len(answerable), 0.5 / len(answerable)), np.full(len(absent), 0.5 / len(absent))]
        self.model: Logistic = fit(Data(x, y, w * len(y)), PENALTY)

    def inputs(self, questions: Sequence[str]) -> npt.NDArray[np.float64]:
        x = np.zeros((len(questions), len(self.vocabulary)))
        for row, question in enumerate(questions):
            x[row, [self._column[t] for t in terms(question) if t in self._column]] = 1.0
        return x

    def scores(self, questions: Sequence[str]) -> npt.NDArray[np.float64]:
        return self.model.probabilities(self.inputs(questions))

    def leaning(self, count: int) -> tuple[list[str], list[str]]:
        """The `count` inputs that lean most toward absent, and toward answerable."""
        order = np.argsort(self.model.weights)
        return [self.vocabulary[i] for i in order[:count]], [self.vocabulary[i] for i in order[::-1][:count]]


def queries(cases: Sequence[metrics.QueryCase], *, negative: bool) -> list[str]:
    return [case.query for case in cases if case.negative == negative]


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    taught_answerable = queries(metrics.load_cases(NEWCOMER), negative=False)
    taught_absent = queries(metrics.load_cases(NEWCOMER_MATCHED), negative=True)
    model = WordingModel(taught_answerable, taught_absent)
    development = behavior_cases("development")
    kinds = {
        "written negatives": queries(development, negative=True),
        "near misses": queries(near_miss_cases(), negative=True),
        "matched absences": queries(matched_absence_cases(), negative=True),
    }
    scored = {*queries(development, negative=False), *(q for questions in kinds.values() for q in questions)}
    assert not scored & {*taught_answerable, *taught_absent}, "a scored question was taught"
    answerable = model.scores(queries(development, negative=False))
    print(
        f"taught: {len(taught_answerable)} answerable newcomer questions, {len(taught_absent)} absent written as "
        f"long; {len(model.vocabulary)} inputs"
    )
    print("| the question's wording alone, development part | " + " | ".join(f"AUC vs {k}" for k in kinds) + " |")
    print("| --- |" + " ---: |" * len(kinds))
    areas = [f"{area(answerable, model.scores(questions)):.3f}" for questions in kinds.values()]
    print("| answerable against each kind | " + " | ".join(areas) + " |")
    absent_words, answerable_words = model.leaning(15)
    print(f"leaning absent: {', '.join(absent_words)}")
    print(f"leaning answerable: {', '.join(answerable_words)}")


if __name__ == "__main__":
    main()
