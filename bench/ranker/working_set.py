"""What the editor's working set costs and gains, replayed on the quality set's cached shortlists.

The server ranks snippets of files the user edited this session as if `WORKING_SET_BONUS` more
relevant (`search.behavior`). Whether that is worth having depends on where the user works, so each question is
replayed with three working sets of `FILES` files drawn (seeded) from its own shortlist's files: none; unrelated
(files that hold no gold span: the user works elsewhere, the case where the signal can only cost); related (the
gold file and others: the user works where the answer is). The bonus was chosen on the development part; the
held-out part is reported beside it as a check, never to choose.

    .venv/bin/python -m bench.ranker.working_set
"""

from __future__ import annotations

import random

from bench.ranker.collect import Rows, rows_path
from bench.ranker.fit import THRESHOLD, Questions, scored
from bench.ranker.replay import Scored, replay
from smartsearch_ls.judge.local.ranker import shipped_ranker
from smartsearch_ls.search.behavior import WORKING_SET_BONUS

FILES = 5
BONUSES = (0.02, 0.05, 0.1, 0.2)
"""The shipped one (`WORKING_SET_BONUS`) among them: the largest whose unrelated working sets cost development
no top-1 and at most 0.002 of MRR@10."""
SEED = 0


def working_sets(items: list[Scored], related: bool) -> list[frozenset[str]]:
    sets = []
    for item in items:
        rng = random.Random(f"{SEED}:{item.case.key}")
        gold = {span[0] for span in item.case.gold}
        others = sorted({span[0] for span in item.spans} - gold)
        chosen = set(rng.sample(others, min(len(others), FILES - (1 if related and gold else 0))))
        if related and gold:
            chosen.add(sorted(gold)[0])
        sets.append(frozenset(chosen))
    return sets


def main() -> None:
    ranker = shipped_ranker()
    print(f"shipped bonus: {WORKING_SET_BONUS:g}")
    keys = ("top1_span", "mrr", "recall", "negatives_empty")
    print("| part | working set | bonus | " + " | ".join(keys) + " |")
    print("| --- | --- | ---: |" + " ---: |" * len(keys))
    for part in ("development", "held-out"):
        questions = Questions(Rows.load(rows_path(part)))
        items = scored(questions, ranker, list(range(len(questions.rows.cases))))
        rows = {("none", 0.0): replay(items, THRESHOLD)}
        for name, related in (("unrelated", False), ("related", True)):
            sets = working_sets(items, related)
            for bonus in BONUSES:
                rows[(name, bonus)] = replay(items, THRESHOLD, working_sets=sets, bonus=bonus)
        for (name, bonus), figures in rows.items():
            print(f"| {part} | {name} | {bonus:g} | " + " | ".join(f"{figures[k]:.3f}" for k in keys) + " |")


if __name__ == "__main__":
    main()
