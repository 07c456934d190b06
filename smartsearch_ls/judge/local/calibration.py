"""From a cosine and a word overlap to the two probabilities the judge answers with.

Relevance is `subject * action` against a threshold of 0.5, so the local judge has to produce probabilities
whose product means what it says: at 0.5, a match and a non-match are equally likely. Two features carry the
signal: the cosine between the query and snippet vectors (meaning), and coverage, the fraction of the query's
content words found among the snippet's identifier-split words (the names the search is about). A logistic
function of the two, fit on labeled pairs, gives p = P(relevant). The fit lives in `bench/local_judge/`.
"""

from __future__ import annotations

import math
import re

# p = sigmoid(COSINE_WEIGHT * cosine + COVERAGE_WEIGHT * coverage + BIAS), fit by
# bench/local_judge/calibrate.py: weighted logistic regression (Newton, numpy) on 2,700 pairs from 12 installed
# packages (click, attrs, fsspec, pygments, requests, urllib3, watchdog, pyyaml, pygls, anyio, packaging,
# huggingface_hub): query = a docstring's first sentence, positive = its function with the docstring removed,
# negatives = the two nearest other functions of the same package by cosine plus one at random, weighted 1/3
# so the classes balance. Fit on half the packages, on the other half: balanced accuracy 0.75 at p = 0.5
# (recall 0.74, false positives 0.24), AUC 0.82 (cosine alone 0.78, coverage alone 0.80). Refit on all.
COSINE_WEIGHT = 4.683
COVERAGE_WEIGHT = 3.12
BIAS = -3.24

STOP_WORDS = frozenset(
    """a an and any are as at be by code do does each every for from function functions get gets given how i
    if in into is it its method methods of on or some that the their them then this to uses using what when
    where which while with""".split()
)
"""Words a query uses to frame a search rather than to name what it is about."""

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SUFFIX = re.compile(r"(?:ing|ed|es|er|s|e)$")


def words(text: str) -> set[str]:
    """Lower-cased word stems of `text`, identifiers split (`parseHTTPDate`, `parse_http_date`: parse http date)."""
    return {_stem(word.lower()) for word in _WORD.findall(text)}


def _stem(word: str) -> str:
    """A crude suffix strip, so `parse`, `parsing`, `parsed` and `parser` meet; short words are left alone."""
    stemmed = _SUFFIX.sub("", word)
    return stemmed if len(stemmed) >= 3 else word


def coverage(query: str, text: str) -> float:
    """The fraction of the query's content words that appear in `text`; 0 when the query has none."""
    wanted = {_stem(word.lower()) for word in _WORD.findall(query) if word.lower() not in STOP_WORDS}
    return len(wanted & words(text)) / len(wanted) if wanted else 0.0


def relevance_probability(cosine: float, covered: float) -> float:
    """P(relevant) from the calibrated logistic."""
    return 1.0 / (1.0 + math.exp(-(COSINE_WEIGHT * cosine + COVERAGE_WEIGHT * covered + BIAS)))


def answers(probability: float) -> tuple[float, float]:
    """`(subject, action)`: each the square root of p, so their product, the relevance, is p itself.

    The model has one calibrated signal, not two: a split that gave the questions different values would
    invent a distinction the features cannot make, and any split whose product is not p would move the 0.5
    threshold off the point where a match and a non-match are equally likely.
    """
    root = math.sqrt(probability)
    return root, root
