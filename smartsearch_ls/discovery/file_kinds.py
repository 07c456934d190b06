"""Which files are tests, and which questions ask for them.

A test names the behavior it checks in its own name and repeats the calls it makes, so on words alone it
outranks the code it tests. Tests stay in the answer, labeled `kind: "test"`, but after the implementation
unless the question is about tests; both the label and the ranking read the same conventions from here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec|specs)/|(^|/)test_[^/]*$|_test\.[^/.]+$|[._-](test|spec)\.[^/]+$|(^|/)conftest\.py$"
)
"""Test files by the conventions of pytest, Go, Jest and RSpec."""

ASKS_FOR_TESTS = re.compile(r"\b(tests?|tested|testing|specs?|unit ?tests?|fixtures?|asserts?)\b", re.IGNORECASE)
"""A question about tests (`where do we test retries`): then a test is what it wants, not a lesser answer."""

T = TypeVar("T")


def is_test(path: str) -> bool:
    """Whether a root-relative path is a test file."""
    return TEST_PATH.search(path) is not None


def asks_for_tests(query: str) -> bool:
    """Whether a plain-English question is about tests."""
    return ASKS_FOR_TESTS.search(query) is not None


def implementation_first(items: Sequence[T], path: Callable[[T], str], query: str) -> list[T]:
    """`items` (best first) with test files moved after the rest, each side in its order, unless the question asks
    for tests. A rule on the final answer, not a penalty on scores: a test that matched stays in it."""
    if asks_for_tests(query):
        return list(items)
    return [i for i in items if not is_test(path(i))] + [i for i in items if is_test(path(i))]
