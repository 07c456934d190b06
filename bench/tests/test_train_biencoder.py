"""The bi-encoder training's pure parts, without torch: the validation split holds whole packages, hard negatives
never include the answer, a resumed run replays the same order and negatives, and ranks are counted honestly."""

from itertools import pairwise

import pytest

from bench.train import biencoder, pins


def test_validation_packages_are_whole_packages_one_per_language_and_reach_the_fraction():
    packages = {f"p{i}": (("python", "go", "rust", "ruby")[i % 4], 10 + i) for i in range(40)}
    chosen = biencoder.validation_packages(packages, 0.05, seed=0)
    total = sum(count for _, count in packages.values())
    assert sum(packages[name][1] for name in chosen) >= 0.05 * total
    assert len({packages[name][0] for name in chosen}) == len(chosen)
    assert chosen == biencoder.validation_packages(packages, 0.05, seed=0)
    assert chosen != biencoder.validation_packages(packages, 0.05, seed=1)


def test_validation_packages_are_not_drawn_from_a_corpus_built_in_part():
    counts = {pin.name: ("python", 10) for pin in pins.PINS}
    assert biencoder.whole(counts) == counts
    del counts[pins.PINS[0].name]
    with pytest.raises(SystemExit, match=r"bench\.train corpus"):
        biencoder.whole(counts)


def test_hard_negatives_skip_the_gold_what_overlaps_it_and_copies_of_its_text():
    spans = [("a.py", 1, 10), ("a.py", 5, 8), ("a.py", 20, 30), ("b.py", 1, 10), ("c.py", 1, 4), ("d.py", 1, 2)]
    texts = ["gold", "method inside", "other", "other b", "gold", "last"]
    ranked = [0, 1, 4, 2, 3, 5]
    assert biencoder.hard_negatives(ranked, 0, spans, texts, 2) == [2, 3]
    assert biencoder.hard_negatives(ranked, 0, spans, texts, 9) == [2, 3, 5]


def test_epoch_order_and_negatives_are_the_same_on_resumption_and_change_by_epoch():
    assert biencoder.epoch_order(50, 0, 1) == biencoder.epoch_order(50, 0, 1)
    assert biencoder.epoch_order(50, 0, 1) != biencoder.epoch_order(50, 0, 2)
    assert sorted(biencoder.epoch_order(50, 0, 1)) == list(range(50))
    pool = [7, 8, 9]
    assert biencoder.pick_negatives(pool, 1, 0, 0, 42) == biencoder.pick_negatives(pool, 1, 0, 0, 42)
    assert biencoder.pick_negatives(pool, 1, 0, 0, 42)[0] in pool
    assert biencoder.pick_negatives([7], 2, 0, 0, 42) == [7]
    assert {biencoder.pick_negatives(pool, 1, 0, epoch, 42)[0] for epoch in range(20)} == set(pool)


def test_first_rank_counts_ties_against_the_gold_and_figures_cut_at_k():
    assert biencoder.first_rank([0.1, 0.9, 0.5], 1) == 1
    assert biencoder.first_rank([0.5, 0.9, 0.5], 2) == 3
    figures = biencoder.ranking_figures([1, 2, 11])
    assert figures == {"mrr@10": round((1 + 0.5) / 3, 4), "recall@10": round(2 / 3, 4), "queries": 3}


def test_linear_schedule_warms_up_then_decays_to_zero():
    factors = [biencoder.linear_schedule(step, 10, 2) for step in range(11)]
    assert factors[0] == 0.5 and factors[1] == 1.0
    assert factors[2] == 1.0 and factors[-1] == 0.0
    assert all(a >= b for a, b in pairwise(factors[1:]))


def test_near_misses_alter_each_row_against_its_own_answer_and_skip_rows_that_cannot_be():
    questions = ["Parse the cron schedule string", "Parse the cron schedule string", "Return the value"]
    answers = ["def parse(schedule): ...", "def parse(schedule): ...", "def value(): return hour"]
    words = [["hour", "weekday"], ["hour", "weekday"], ["hour"]]
    pairs = biencoder.near_misses(questions, answers, words, ["s:0", "s:0", "s:2"])
    assert [row for row, _ in pairs] == [0, 1]  # the last row's only replacement is in its answer: no near miss
    assert pairs[0][1] == pairs[1][1]  # the same seed gives the same near miss
    for _, near in pairs:
        changed = set(near.split()) - set(questions[0].split())
        assert len(changed) == 1 and changed <= {"hour", "weekday"}


def test_a_package_sample_takes_a_share_of_each_language_and_the_same_for_a_seed():
    packages = {f"py{i}": {"language": "python"} for i in range(10)} | {"go0": {"language": "go"}}
    packages |= {f"rs{i}": {"language": "rust"} for i in range(4)} | {f"js{i}": {"language": "js"} for i in range(5)}
    names = set(packages) - {"py9"}  # a validation package is not a training one
    half = biencoder.package_sample(packages, names, 0.5, seed=0)
    counts = {prefix: sum(n.startswith(prefix) for n in half) for prefix in ("py", "rs", "js")}
    assert counts == {"py": 5, "rs": 2, "js": 3}  # 9 and 5 packages: half rounded up
    assert "go0" in half and "py9" not in half  # a language keeps at least one package
    assert half == biencoder.package_sample(packages, names, 0.5, seed=0)
    assert any(biencoder.package_sample(packages, names, 0.5, seed=s) != half for s in range(1, 5))


def test_a_small_package_share_still_keeps_one_package_of_each_language():
    packages = {f"py{i}": {"language": "python"} for i in range(10)} | {
        "go0": {"language": "go"},
        "go1": {"language": "go"},
    }
    kept = biencoder.package_sample(packages, set(packages), 0.1, seed=0)
    assert sum(n.startswith("py") for n in kept) == 1 and sum(n.startswith("go") for n in kept) == 1
