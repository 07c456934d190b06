"""Altered questions: one word of a summary changed to a word of the package its answer does not use."""

import random

from bench.train.altering import altered, content_words, package_vocabulary, vocabularies


def test_content_words_skip_stop_words_filler_and_code():
    assert content_words("Returns the month name for all `month_name` 42 keys.") == ["returns", "month", "name", "keys"]


def test_the_vocabulary_is_the_query_words_the_code_uses():
    queries = ["Returns the month name", "Whether the specified hour is valid"]
    code = ["def month_name(hour):\n    yield NAMES[hour]"]
    assert package_vocabulary(queries, code) == ["hour", "month", "name"]


def test_an_altered_question_asks_a_word_its_answer_lacks():
    answer = "def month_name(month):\n    return MONTHS[month]"
    vocabulary = ["hour", "minute", "month", "name"]
    for seed in range(20):
        question = altered("Returns the month name", answer, vocabulary, random.Random(seed))
        assert question is not None
        changed = set(question.split()) - {"Returns", "the", "month", "name"}
        assert len(changed) == 1
        assert changed <= {"hour", "minute"}
        assert len(question.split()) == 4


def test_no_altered_question_when_every_word_is_in_the_answer():
    answer = "def month_name(hour, minute):\n    return MONTHS[month]"
    assert altered("Returns the month name", answer, ["hour", "minute", "month"], random.Random(0)) is None


def test_vocabularies_are_per_package_from_its_own_queries_and_snippets():
    data = {
        "queries": [
            {"package": "cron", "query": "Parse the hour field"},
            {"package": "csv", "query": "Write one record"},
        ],
        "packages": {
            "cron": {"snippets": [{"text": "def parse(hour): ..."}]},
            "csv": {"snippets": [{"text": "fn write_record(record, hour) {}"}]},
        },
    }
    assert vocabularies(data, lambda snippet: snippet["text"]) == {
        "cron": ["hour", "parse"],
        "csv": ["record", "write"],
    }
