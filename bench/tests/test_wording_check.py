"""The wording control learns what a question's words alone say, and nothing it was not shown."""

from bench.ranker.reader_check import area
from bench.ranker.wording_check import WordingModel, terms


def test_terms_are_the_words_and_adjacent_pairs_in_lower_case():
    assert terms("Reject an EXPIRED token") == {
        "reject",
        "an",
        "expired",
        "token",
        "reject an",
        "an expired",
        "expired token",
    }


def test_a_word_only_absent_questions_use_tells_them_apart_and_an_unseen_one_does_not():
    topics = ["tokens", "sessions", "headers", "cookies", "paths", "dates"]
    answerable = [f"what happens when {t} are read twice" for t in topics]
    absent = [f"let the caller choose how {t} are read instead of the default" for t in topics]
    model = WordingModel(answerable, absent)
    assert "instead of" in model.vocabulary and "tokens" not in model.vocabulary  # held by too few questions
    present = model.scores(["what happens when files are read twice"])
    missing = model.scores(["let the caller choose how files are read instead of the default"])
    assert present[0] > 0.5 > missing[0]
    unseen = model.scores(["widgets glow brightly", "gadgets blink"])
    assert abs(unseen[0] - unseen[1]) < 1e-9  # no word it was taught: the same score whatever the question
    assert area(model.scores(answerable), model.scores(absent)) == 1.0
    absent_words, answerable_words = model.leaning(3)
    assert set(absent_words) <= terms(absent[0]) - terms(answerable[0])
    assert set(answerable_words) <= terms(answerable[0]) - terms(absent[0])
