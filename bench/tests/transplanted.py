"""What holds for every transplanted set (`bench.quality.sets.transplanted_cases`), whichever projects it is about.

The set's worth is that its questions were written by someone describing code they had read, not knowing they would
be asked of another project: so each must be, word for word, an answerable question of the project it names in
`asked_from`, asked of another project, and labeled with the evidence its label needs.
"""

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.quality.metrics import QueryCase, load_cases
from bench.quality.sets import corpus_file
from bench.ranker.collect import NEWCOMER
from bench.tests.spans import check_closest, check_gold_spans

LABELS = ("present", "absent", "partial")
CLOSEST = re.compile(r"none|[^:]+:\d+-\d+")


def answerable_questions(project: str) -> set[str]:
    """The answerable questions of a quality-set project, or of a training package (`train/<name>`)."""
    path = (
        NEWCOMER / f"{project.removeprefix('train/')}.jsonl" if project.startswith("train/") else corpus_file(project)
    )
    return {case.query for case in load_cases(path) if case.gold}


def check_records(records: Sequence[Mapping[str, Any]]) -> None:
    """Each record asks another project's answerable question word for word, once, and carries its label's evidence:
    a gold span if present, the closest code (or `none`) if not, and why."""
    assert len({(r["corpus"], r["query"]) for r in records}) == len(records), "a question asked twice of a project"
    for record in records:
        assert record["asked_from"] != record["corpus"], record["query"]
        assert record["query"] in answerable_questions(record["asked_from"]), (record["asked_from"], record["query"])
        assert record["label"] in LABELS and record["why"], record["query"]
        assert bool(record["gold"]) == (record["label"] == "present"), record["query"]
        if record["label"] != "present":
            assert CLOSEST.fullmatch(record["closest"]), record["closest"]


def check_against_code(root: Path, records: Sequence[Mapping[str, Any]], cases: Sequence[QueryCase]) -> None:
    """The present questions' gold spans start on declarations of the target (`check_gold_spans`), and every closest
    code named lies inside its file."""
    check_gold_spans(root, [case for case in cases if case.gold])
    for record in records:
        if record["label"] != "present":
            check_closest(root, record["closest"])
