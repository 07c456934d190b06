"""The local judge's ranker: the shipped weights load and keep to their promises on small fixed shortlists."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bench.quality.sets import HELD_OUT
from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.discovery.file_kinds import implementation_first, is_test
from smartsearch_ls.judge.contract import Evidence
from smartsearch_ls.judge.local.features import NAMES, READING_COLUMNS, features, query_terms, root_idf
from smartsearch_ls.judge.local.ranker import LEADERS, WEIGHTS, Logistic, Ranker, RankerMismatch, shipped_ranker

IMPLEMENTATION = Snippet(
    "src/auth/sessions.py",
    40,
    52,
    "def drop_stale(store, now):\n    for key, session in list(store.items()):\n"
    "        if session.expires_at < now:\n            del store[key]\n            log.info('expired %s', key)\n",
    "drop_stale",
)
TEST = Snippet(
    "tests/test_sessions.py",
    10,
    20,
    "def test_reject_expired_sessions():\n    store = {'a': Session(expires_at=0)}\n"
    "    reject_expired_sessions(store, now=5)\n    assert 'a' not in store  # expired sessions rejected\n",
    "test_reject_expired_sessions",
)
HEADER = Snippet(
    "src/auth/sessions.py", 1, 6, "import time\nimport logging\n\nlog = logging.getLogger(__name__)\n", None
)
DOCUMENTED_SETTER = Snippet(
    "src/auth/options.rs",
    60,
    74,
    "/// Reject expired sessions when they are read.\n///\n/// When set, a session whose expiry is past is\n"
    "/// rejected and removed from the store:\n///\n/// ```\n/// let store = Store::new().reject_expired(true);\n"
    '/// assert!(store.get("old").is_none());\n/// ```\n'
    "pub fn reject_expired(mut self, yes: bool) -> Self {\n    self.reject = yes;\n    self\n}\n",
    "reject_expired",
)
QUERY = "where do we reject expired sessions"


def relevance(query: str, shortlist: list[Evidence], idf: dict[str, float] | None = None) -> list[float]:
    known = idf if idf is not None else dict.fromkeys(query_terms(query), 3.0)
    return list(shipped_ranker().relevance(features(query, shortlist, known)))


def test_the_shipped_weights_match_the_features_and_were_fitted_on_development_projects_only():
    document = json.loads(WEIGHTS.read_text())
    assert tuple(document["candidate"]["features"]) == NAMES
    assert not any(project in document["fitted_on"] for project in HELD_OUT)
    ranker = shipped_ranker()
    assert len(ranker.candidate.weights) == len(NAMES) and 0 < ranker.sharpness <= 1


def test_an_implementation_ranks_above_its_test_that_names_the_behavior():
    # The test names the behavior word for word and scores higher on both signals; the implementation does it.
    shortlist = [Evidence(TEST, lexical=9.0, cosine=0.62), Evidence(IMPLEMENTATION, lexical=4.0, cosine=0.55)]
    test_score, implementation_score = relevance(QUERY, shortlist)
    assert implementation_score > test_score


def test_a_rust_unit_test_in_its_implementation_s_file_is_a_test_to_the_ranker():
    body = 'fn parses_a_version() {\n    assert_eq!(parse_version("1.2"), vec![1, 2]);\n}\n'
    inline = Snippet("src/version.rs", 20, 23, body, "tests.parses_a_version")
    function = Snippet("src/version.rs", 1, 4, body, "parse_version")
    shortlist = [Evidence(inline, lexical=3.0, cosine=0.5), Evidence(function, lexical=3.0, cosine=0.5)]
    rows = features("where do we parse a version", shortlist, dict.fromkeys(query_terms("parse a version"), 3.0))
    assert list(rows[:, NAMES.index("test_unasked")]) == [1.0, 0.0]


def test_tests_come_after_the_implementation_unless_the_question_asks_for_tests():
    answer = ["tests/test_sessions.py", "src/auth/sessions.py", "spec/session_spec.rb", "lib/store.rb"]
    assert implementation_first(answer, is_test, QUERY) == ["src/auth/sessions.py", "lib/store.rb", *answer[::2]]
    assert implementation_first(answer, is_test, "where do we test that expired sessions are rejected") == answer


def test_a_module_header_of_imports_ranks_below_the_code():
    shortlist = [Evidence(HEADER, lexical=3.0, cosine=0.58), Evidence(IMPLEMENTATION, lexical=3.0, cosine=0.55)]
    header, code = relevance(QUERY, shortlist)
    assert code > header


def test_a_snippet_that_is_mostly_doc_comment_is_told_apart_from_code():
    # A setter under a tutorial in its doc comment repeats the question's words; the code that does it does not.
    rows = features(QUERY, [Evidence(DOCUMENTED_SETTER, 4.0, 0.55), Evidence(IMPLEMENTATION, 4.0, 0.55)], {})
    column = NAMES.index("comment_heavy")
    documented, code = rows[:, column]
    assert documented > 0.6 and code == 0.0
    # All else equal, being mostly comment counts against a candidate in the shipped weights.
    as_if_code = rows.copy()
    as_if_code[0, column] = 0.0
    candidate = shipped_ranker().candidate
    assert candidate.logits(rows)[0] < candidate.logits(as_if_code)[0]


def test_the_question_s_own_words_in_a_name_never_count_against_a_candidate():
    # The quality set's questions avoid the target's names; a user who knows them must still find the function.
    shortlist = [Evidence(IMPLEMENTATION, lexical=4.0, cosine=0.5)]
    rows = features("drop stale sessions", shortlist, dict.fromkeys(query_terms("drop stale sessions"), 3.0))
    column = NAMES.index("name_coverage")
    assert rows[0, column] > 0
    unnamed = rows.copy()
    unnamed[0, column] = 0.0
    ranker = shipped_ranker()
    assert ranker.candidate.logits(rows)[0] >= ranker.candidate.logits(unnamed)[0]
    assert ranker.relevance(rows)[0] >= ranker.relevance(unnamed)[0]


def test_words_the_root_never_uses_lower_the_verdict_on_the_whole_question():
    shortlist = [Evidence(IMPLEMENTATION, lexical=4.0, cosine=0.45), Evidence(HEADER, lexical=1.0, cosine=0.3)]
    query = "send the expired sessions report over smtp"
    everywhere = dict.fromkeys(query_terms(query), 3.0)
    no_smtp = {term: weight for term, weight in everywhere.items() if term != "smtp"}
    assert max(relevance(query, shortlist, no_smtp)) < max(relevance(query, shortlist, everywhere))


def test_relevance_is_a_probability_and_the_best_candidate_carries_the_question_verdict():
    rng = np.random.default_rng(0)
    shortlist = [
        Evidence(IMPLEMENTATION, lexical=float(rng.uniform(0, 9)), cosine=float(rng.uniform(0.1, 0.7)))
        for _ in range(40)
    ]
    scores = relevance(QUERY, shortlist)
    assert all(0.0 <= s <= 1.0 for s in scores)
    rows = features(QUERY, shortlist, dict.fromkeys(query_terms(QUERY), 3.0))
    best = int(np.argmax(shipped_ranker().candidate.logits(rows)))
    assert scores[best] == max(scores)


def test_idf_is_bm25s_and_absent_terms_are_left_out():
    frequency = {"session": 10, "expir": 2}
    idf = root_idf(lambda term: frequency.get(term, 0), 100, ("session", "expir", "smtp"))
    assert set(idf) == {"session", "expir"} and idf["expir"] > idf["session"]


def test_weights_fitted_on_other_features_are_refused():
    ranker = shipped_ranker()
    document = ranker.to_json()
    document["candidate"]["features"] = ["cosine", "coverage"]
    with pytest.raises(RankerMismatch):
        Ranker.from_json(document)
    assert Logistic.from_json(ranker.to_json()["question"], tuple(document["question"]["features"]))


def test_a_candidate_whose_comments_say_what_is_asked_ranks_above_one_whose_comments_do_not():
    # Two implementations alike in code, words and place: the doc comment that means the question tells them apart.
    said, unsaid = (
        Evidence(IMPLEMENTATION, lexical=4.0, cosine=0.5, commentary_cosine=cosine) for cosine in (0.7, 0.2)
    )
    rows = features(QUERY, [said, unsaid], dict.fromkeys(query_terms(QUERY), 3.0))
    assert rows[0, NAMES.index("commented")] == rows[1, NAMES.index("commented")] == 1.0
    said_score, unsaid_score = shipped_ranker().relevance(rows)
    assert said_score > unsaid_score
    silent = features(QUERY, [Evidence(IMPLEMENTATION, lexical=4.0, cosine=0.5)], {})[0]
    assert silent[NAMES.index("commented")] == silent[NAMES.index("commentary_cosine")] == 0.0


def test_a_candidate_whose_lines_past_the_head_do_what_is_asked_ranks_above_one_whose_lines_do_not():
    # Alike in head, words and place: what the rest of the function does tells them apart.
    does, does_not = (Evidence(IMPLEMENTATION, lexical=4.0, cosine=0.4, passage_cosine=cosine) for cosine in (0.7, 0.2))
    rows = features(QUERY, [does, does_not], dict.fromkeys(query_terms(QUERY), 3.0))
    assert rows[0, NAMES.index("whole_cosine")] == pytest.approx(0.7)
    assert rows[1, NAMES.index("whole_cosine")] == pytest.approx(0.4)  # its own cosine, the better of the two
    does_score, does_not_score = shipped_ranker().relevance(rows)
    assert does_score > does_not_score
    short = features(QUERY, [Evidence(IMPLEMENTATION, lexical=4.0, cosine=0.5)], {})[0]
    assert short[NAMES.index("whole_cosine")] == pytest.approx(0.5)  # a head that holds it all


def test_an_empty_shortlist_is_answered_with_nothing():
    ranker = shipped_ranker()
    assert len(ranker.relevance(ranker.as_read(np.zeros((0, len(NAMES)))))) == 0


def test_the_why_of_a_candidate_outside_the_leaders_names_nothing_it_was_not_read_for():
    ranker = shipped_ranker()
    rows = np.tile(ranker.candidate.center, (LEADERS + 8, 1))
    rows[:, NAMES.index("cosine")] += np.linspace(0.2, 0.0, len(rows))  # the first ones lead
    rows[:, NAMES.index("whole_gap")] = -0.5  # what the passages say would weigh most, were they read
    leaders = ranker.leaders(rows)
    reading = {NAMES[i] for i in READING_COLUMNS}
    named = [bool(reading & {name for name, _, _ in factors}) for factors in ranker.factors(rows)]
    assert named == list(leaders) and sum(named) == LEADERS
