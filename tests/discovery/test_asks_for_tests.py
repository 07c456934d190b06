"""Which questions ask for tests: the word "test" alone does not, since code tests things too."""

from __future__ import annotations

import pytest

from smartsearch_ls.discovery.file_kinds import asks_for_tests, implementation_first, is_test

ASKING = [
    "where do we test that expired sessions are rejected",
    "unit tests for the parser",
    "which tests cover retries",
    "test that a zero increment in an expression with a time zone yields an error",
    "in unit tests, collect every emitted log entry into a list",
    "where is session expiry tested",
    "spec files for the router",
    "tests for the config loader",
]

# Questions of the quality set's development part and of the training packages (none held out) in which "test" or
# "spec" is something the code does or reads.
NOT_ASKING = [
    "how does a filter value starting with a tilde make array element matching test truthiness?",
    "where is it simplified into a plain ends-with test?",
    "where are terminal color codes removed before testing for numbers?",
    "pause a side effect until a later dispatched action passes a test",
    "accept an action only when every one of several given tests or action makers accepts it",
    "translate each percent-style date directive in a type spec into an equivalent regular expression",
    "run a command-line program from a test with fake input and capture its output",
    "which methods of a grouped test type get run, based on a name prefix",
]


@pytest.mark.parametrize("question", ASKING)
def test_a_question_about_tests_asks_for_them(question: str) -> None:
    assert asks_for_tests(question)


@pytest.mark.parametrize("question", NOT_ASKING)
def test_code_that_tests_something_is_not_a_question_about_tests(question: str) -> None:
    assert not asks_for_tests(question)


def test_the_code_that_tests_a_value_comes_before_the_test_files_that_repeat_the_words() -> None:
    answer = ["tests/test_cells.py", "tabulate/__init__.py"]
    assert implementation_first(answer, is_test, NOT_ASKING[2]) == ["tabulate/__init__.py", "tests/test_cells.py"]
