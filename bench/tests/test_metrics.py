"""The metrics on hand-computed cases, so a change in a number is a change in the engine, not in the ruler."""

import json

import pytest

from bench.quality.metrics import (
    QueryCase,
    QueryResult,
    evaluate,
    first_hit_rank,
    is_hit,
    load_cases,
    load_results,
    overlaps,
    recall_at,
    reciprocal_rank,
    shortlist_hit,
    top1_file,
    top1_span,
    write_results,
)

GOLD = (("a.py", 10, 20), ("b.py", 5, 8))


def test_overlap_is_same_file_and_inclusive_ranges():
    assert overlaps(("a.py", 20, 30), ("a.py", 10, 20))  # touching at one line counts
    assert overlaps(("a.py", 12, 13), ("a.py", 10, 20))  # inside
    assert overlaps(("a.py", 1, 100), ("a.py", 10, 20))  # around
    assert not overlaps(("a.py", 21, 30), ("a.py", 10, 20))
    assert not overlaps(("c.py", 10, 20), ("a.py", 10, 20))
    assert is_hit(("b.py", 8, 9), GOLD)


def test_top1_and_rank_metrics():
    hits = [("a.py", 30, 40), ("x.py", 1, 5), ("b.py", 1, 5), ("a.py", 15, 15)]
    assert top1_file(hits, GOLD)  # right file, wrong lines
    assert not top1_span(hits, GOLD)
    assert first_hit_rank(hits, GOLD) == 3
    assert reciprocal_rank(hits, GOLD) == pytest.approx(1 / 3)
    assert reciprocal_rank(hits, GOLD, k=2) == 0.0
    assert recall_at(hits, GOLD) == 1.0
    assert recall_at(hits, GOLD, k=3) == 0.5
    assert not top1_file([], GOLD)
    assert recall_at([], ()) == 1.0


def test_shortlist_hit_looks_at_first_k_only():
    shortlist = [("x.py", 1, 2)] * 5 + [("a.py", 18, 25)]
    assert not shortlist_hit(shortlist, GOLD, 5)
    assert shortlist_hit(shortlist, GOLD, 6)


def test_evaluate_averages_positives_and_counts_empty_negatives():
    cases = [
        QueryCase("c", "q1", GOLD),
        QueryCase("c", "q2", (("z.py", 1, 3),)),
        QueryCase("c", "neg1", ()),
        QueryCase("c", "neg2", ()),
    ]
    results = {
        ("c", "q1"): QueryResult((("a.py", 11, 12),), shortlist=(("a.py", 11, 12),)),
        ("c", "q2"): QueryResult(
            (("y.py", 1, 3), ("z.py", 3, 9)), shortlist=(("y.py", 1, 3),) * 40 + (("z.py", 1, 1),)
        ),
        ("c", "neg1"): QueryResult(()),
        ("c", "neg2"): QueryResult((("y.py", 1, 2),)),
    }
    report = evaluate(cases, results, shortlist_ks=(16, 64))
    assert (report.positives, report.negatives, report.missing) == (2, 2, 0)
    assert report.top1_file == 0.5
    assert report.top1_span == 0.5
    assert report.mrr == pytest.approx((1 + 1 / 2) / 2)
    assert report.recall == pytest.approx((0.5 + 1.0) / 2)
    assert report.shortlist_recall == {16: 0.5, 64: 1.0}
    assert report.negatives_empty == 0.5
    assert report.summary()["mrr@10"] == 0.75


def test_missing_results_count_as_empty_and_no_shortlist_means_no_shortlist_metric():
    cases = [QueryCase("c", "q", GOLD), QueryCase("c", "neg", ())]
    report = evaluate(cases, {})
    assert report.missing == 2
    assert report.top1_file == 0.0
    assert report.negatives_empty == 1.0
    assert report.shortlist_recall == {}


def test_files_round_trip_and_peer_reports_load(tmp_path):
    cases_path = tmp_path / "cases.jsonl"
    gold = [{"path": "./a.py", "start_line": 10, "end_line": 20}]
    cases_path.write_text(json.dumps({"corpus": "c", "query": "q", "gold": gold}) + "\n\n")
    cases = load_cases(cases_path)
    assert cases == [QueryCase("c", "q", (("a.py", 10, 20),))]

    results_path = tmp_path / "r.jsonl"
    write_results(results_path, cases, [QueryResult((("a.py", 1, 10),), (("a.py", 1, 10),))])
    assert load_results(results_path) == {("c", "q"): QueryResult((("a.py", 1, 10),), (("a.py", 1, 10),))}

    peer_path = tmp_path / "peer.json"
    peer = {
        "summary": {},
        "queries": [{"corpus": "c", "query": "q", "hits": [["a.py", 9, 9]], "judged": [["a.py", 9, 9]]}],
    }
    peer_path.write_text(json.dumps(peer))
    loaded = load_results(peer_path)
    assert loaded[("c", "q")].shortlist == (("a.py", 9, 9),)
    assert evaluate(cases, loaded).top1_span == 0.0


def test_each_language_is_scored_on_its_own_projects_questions_and_reported():
    from bench import report, suite

    cases = [
        QueryCase("go-lib", "parse a flag", (("flag.go", 1, 5),)),
        QueryCase("go-lib", "a behavior it lacks", ()),
        QueryCase("py-lib", "render a table", (("table.py", 10, 20),)),
    ]
    hit, miss, empty = QueryResult((("flag.go", 2, 3),)), QueryResult((("other.py", 1, 2),)), QueryResult(())
    table_hit = QueryResult((("table.py", 15, 16),))
    results = {"ours-hybrid+local": [hit, empty, miss], "bm25-code (rank-bm25)": [miss, hit, table_hit]}
    found = suite.by_language(cases, results, candidates=128)
    assert found["go"]["projects"] == ["go-lib"] and found["python"]["projects"] == ["py-lib"]
    assert found["go"]["rows"]["ours-hybrid+local"]["mrr@10"] == 1.0
    assert found["go"]["rows"]["ours-hybrid+local"]["negatives_empty"] == 1.0
    assert found["python"]["rows"]["ours-hybrid+local"]["mrr@10"] == 0.0
    assert found["python"]["rows"]["bm25-code (rank-bm25)"]["mrr@10"] == 1.0
    table = report.language_table(found)
    assert any(line.startswith("| go | go-lib | 1 | 1.00 (1.00) | 0.00 (0.00) | 1.00 |") for line in table), table
