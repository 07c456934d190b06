"""Which files and declarations are tests, and which questions ask for them.

A test names the behavior it checks in its own name and repeats the calls it makes, so on words alone it
outranks the code it tests. Tests stay in the answer, labeled `kind: "test"`, but after the implementation
unless the question is about tests; both the label and the ranking read the same conventions from here. Most
languages keep tests in files of their own; Rust keeps its unit tests in the implementation's file, in a module
named by convention, so there the declaration's qualified name says it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec|specs)/|(^|/)test_[^/]*$|_test\.[^/.]+$|[._-](test|spec)\.[^/]+$|(^|/)conftest\.py$"
)
"""Test files by the conventions of pytest, Go, Jest and RSpec."""

ASKS_FOR_TESTS = re.compile(
    r"\b(?:(?:unit|integration|end[- ]to[- ]end|e2e|regression|snapshot)[- ]?tests?"
    r"|tests? (?:suites?|cases?|files?|fixtures?|helpers?)|spec files?|fixtures?"
    r"|tested|(?:do|does|did) we test|(?:test|tests|testing) (?:that|whether|which|for (?:the|a|an|our|its))"
    r"|(?:the|our|its|their|which|what|any|in|existing|some) tests|specs? (?:for|that|of (?:the|a|an|our|its)))\b",
    re.IGNORECASE,
)
"""A question about tests (`where do we test that retries stop`, `unit tests for the parser`, `which tests cover
X`): then a test is what it wants, not a lesser answer. The word alone does not say so: code tests things too (`a
filter value makes matching test truthiness`, `simplified into an ends-with test`, `testing for numbers`, `passes
a test`, `a type spec`), and read as asking for tests such questions kept the test files that repeat their words
ahead of the code that answers. So it takes tests as the thing sought: a kind of test, tests with a determiner,
something tested, a test of or that."""

T = TypeVar("T")


TEST_MODULES = frozenset({"tests", "test"})
"""Rust's unit tests sit in `#[cfg(test)] mod tests` (or `mod test`) of the file they test: a declaration in it is
`tests.<name>`, and a module small enough to be one snippet is `tests` itself."""


def is_test(path: str, symbol: str | None = None) -> bool:
    """Whether a root-relative path is a test file or, when the declaration's qualified `symbol` is known, whether it
    is a Rust unit test in its implementation's own file."""
    return is_test_file(path) or in_test_module(path, symbol)


def is_test_file(path: str) -> bool:
    """Whether a root-relative path is a test file: the part of `is_test` that a file's every declaration shares."""
    return TEST_PATH.search(path) is not None


def in_test_module(path: str, symbol: str | None) -> bool:
    """Whether the declaration `symbol` of `path` sits in a Rust unit-test module (`TEST_MODULES`)."""
    return symbol is not None and path.endswith(".rs") and not TEST_MODULES.isdisjoint(symbol.split("."))


def asks_for_tests(query: str) -> bool:
    """Whether a plain-English question is about tests."""
    return ASKS_FOR_TESTS.search(query) is not None


def implementation_first(items: Sequence[T], tested: Callable[[T], bool], query: str) -> list[T]:
    """`items` (best first) with the tests (`tested`) moved after the rest, each side in its order, unless the
    question asks for tests. A rule on the final answer, not a penalty on scores: a test that matched stays in it."""
    if asks_for_tests(query):
        return list(items)
    return [i for i in items if not tested(i)] + [i for i in items if tested(i)]
