"""The transplanted sets' wording control is taught on the other family's questions, never one it scores."""

import json

from bench.quality.sets import TRANSPLANTED, TRANSPLANTED_HELD_OUT
from bench.ranker.collect import NEWCOMER_TRANSPLANTED, set_cases
from bench.ranker.transplant_check import families


def test_the_wording_control_of_each_family_never_saw_a_question_it_scores():
    files = {
        "newcomer-transplanted": NEWCOMER_TRANSPLANTED,
        "transplanted": TRANSPLANTED,
        "transplanted-held-out": TRANSPLANTED_HELD_OUT,
    }
    for family in families():
        records = [json.loads(line) for line in files[family.transplanted].read_text().splitlines()]
        scored = {record["query"] for record in records} | {case.query for case in set_cases(family.own)}
        taught = {*family.taught_answerable, *family.taught_absent}
        assert taught and scored and not scored & taught, family.name
