"""The cross-encoder recipe's pure steps: summaries asked as questions, and BM25's rank of the gold."""

from __future__ import annotations

from bench.train.crossencoder import as_question, lexical_rank


def test_a_summary_is_asked_as_a_question_in_the_base_form():
    assert as_question("Returns the user's name.", "where do we ") == "where do we return the user's name"
    assert as_question("Matches a route against the path", "how do we ") == "how do we match a route against the path"
    assert as_question("Parse the header", "find where we ") == "find where we parse the header"
    assert as_question("Access the store", "where do we ") == "where do we access the store"


def test_the_gold_rank_counts_only_shortlisted_snippets_ranked_before_it():
    ranked = [4, 9, 2, 7, 5]
    assert lexical_rank(ranked, 2, [4, 7, 5]) == 2  # 9 overlaps the gold and is not in its shortlist
    assert lexical_rank(ranked, 3, [4, 9, 2]) == 4  # BM25 never found it: after the whole shortlist
