"""The committed behavior set: well formed always, and its gold spans checked against the corpora when prepared.

The span check is what keeps hand-written line numbers honest: each gold span must start on a declaration (or a
decorator, a doc comment, or line 1 for a whole file) and end inside the file.
"""

import re
from collections import Counter

import pytest

from bench import corpora
from bench.quality.metrics import load_cases

BEHAVIOR = corpora.BENCH_DIR / "quality" / "behavior.jsonl"
DECLARATION_START = re.compile(r"^\s*(@|def |async def |class |export |function |const |/\*\*|import )")


def test_set_size_and_shape():
    cases = load_cases(BEHAVIOR)
    positives = [c for c in cases if not c.negative]
    negatives = [c for c in cases if c.negative]
    assert len(positives) >= 40 and len(negatives) >= 8
    assert {c.corpus for c in cases} == {"click", "zod"}
    assert max(Counter(c.key for c in cases).values()) == 1, "duplicate query"
    for case in positives:
        for path, start, end in case.gold:
            assert not path.startswith("/") and 1 <= start <= end


@pytest.mark.parametrize("corpus", ["click", "zod"])
def test_gold_spans_match_the_corpus(corpus):
    if not corpora.is_prepared(corpora.CORPORA[corpus]):
        pytest.skip("corpus not prepared: python -m bench prepare --quick")
    root = corpora.CORPORA[corpus].root
    for case in load_cases(BEHAVIOR):
        if case.corpus != corpus:
            continue
        for path, start, end in case.gold:
            lines = (root / path).read_text(encoding="utf-8").split("\n")
            assert end <= len(lines), (case.query, path)
            assert start == 1 or DECLARATION_START.match(lines[start - 1]), (case.query, path, lines[start - 1])
