"""Would a reader's verdict tell absent behaviors from present ones better? Its scores beside the question model.

`bench.train.reader` scores each development, near-miss, matched-absence and crossed question's best candidates with
a model that never saw its project. Here the question model is fitted leave-one-project-out as `fit` folds it (at
the shipped recipe's penalties and positives' share), without more inputs, with the reader's best logit among the
candidates, with a control that reads no code at all (the number of the question's content words, `question_words`),
and with both; each left-out project's questions are scored by each. Printed: the area under the curve of the
answerable questions' probability against each kind of negative's (the written negatives, the near misses, the
crossed questions and, once collected, the matched absences and the transplanted questions found absent; a kind
without questions prints nan), and the shares
answered with nothing at 0.5. Every side sees the same questions, those the reader scored (so the crossed ones are
its sample, and the side without more inputs is not `fit`'s figure, which fits on every crossed question); an
answerable question whose shortlist misses its answer is fitted on as the fit does (a negative) and counted in
neither kind.

Before that, each verdict alone: the best logit, its mean over the candidates, the best less that mean (what sets
one candidate apart), the word count; and how the mean follows the word count. A reader whose gain the word count
gives as well, and adds nothing beside it, has learned how the questions are written.

    .venv/bin/python -m bench.ranker.reader_check --scores DIR/scores.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bench.quality.sets import transplanted_cases
from bench.ranker import fit as F
from bench.ranker.collect import Rows, rows_path
from bench.ranker.pairs import pairs_path
from smartsearch_ls.index.terms import QUERY_STOP_WORDS
from smartsearch_ls.judge.local.ranker import QUESTION_NAMES, WEIGHTS, question_features

Key = tuple[str, str, str]
KINDS = ("answerable", "written", "near misses", "crossed", "matched", "transplanted")
SETS = {"near-misses": "near misses", "crossed": "crossed", "matched": "matched", "transplanted": "transplanted"}
"""Each `collect` set of negatives other than the development part's own, by the kind it is counted as (of the
transplanted questions, those found absent: `bench.quality.sets.transplanted_cases`)."""


def readings(path: Path) -> dict[Key, list[float]]:
    """(set, corpus, question) -> the reader's logits for the question's candidates."""
    found: dict[Key, list[float]] = {}
    with path.open() as lines:
        for line in lines:
            record = json.loads(line)
            found[(record["set"], record["corpus"], record["query"])] = record["logits"]
    return found


def question_words(query: str) -> int:
    """The question's words that are not stop words: how long it was written."""
    return sum(1 for word in re.findall(r"[A-Za-z0-9_]+", query) if word.lower() not in QUERY_STOP_WORDS)


READER = "the reader's best logit"
MEAN = "its mean over the candidates"
WORDS = "the question's content words (no reader)"
VERDICTS: dict[str, Callable[[Key, list[float]], float]] = {
    READER: lambda _, logits: max(logits),
    MEAN: lambda _, logits: float(np.mean(logits)),
    "its best less that mean": lambda _, logits: max(logits) - float(np.mean(logits)),
    WORDS: lambda key, _: float(question_words(key[2])),
}


def verdicts(read: dict[Key, list[float]], name: str) -> dict[Key, float]:
    return {key: VERDICTS[name](key, logits) for key, logits in read.items() if logits}


NAN = float("nan")
"""What a kind with no questions prints (the matched absences before `collect --set matched`)."""


def area_or_nan(positives: Sequence[float], negatives: Sequence[float]) -> float:
    return area(positives, negatives) if len(negatives) else NAN


def area(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """The probability that an answerable question scores above a negative (ties count half)."""
    pos, neg = np.asarray(positives)[:, None], np.asarray(negatives)[None, :]
    return float((pos > neg).mean() + 0.5 * (pos == neg).mean())


class Side:
    """The question rows of some questions of one set, with more inputs (`columns`, one verdict each) beside them;
    a question some verdict has no value for is left out."""

    def __init__(self, name: str, questions: F.Questions, chosen: Sequence[int], columns: Sequence[dict[Key, float]]):
        self.questions = questions
        keys = [(name, questions.rows.cases[q].corpus, questions.rows.cases[q].query) for q in chosen]
        kept = [all(key in column for column in columns) for key in keys]
        self.chosen = [q for q, keep in zip(chosen, kept, strict=True) if keep]
        values = [[column[key] for column in columns] for key, keep in zip(keys, kept, strict=True) if keep]
        self.extra = np.array(values).reshape(len(self.chosen), len(columns))

    def rows(self, candidate: F.Logistic) -> npt.NDArray[np.float64]:
        groups = [self.questions.rows.features[self.questions.groups[q]] for q in self.chosen]
        base = [question_features(g, candidate.logits(g)) for g in groups]
        return np.array(base).reshape(len(self.chosen), len(QUESTION_NAMES))


def check(sides: dict[str, list[int]], columns: Sequence[dict[Key, float]]) -> dict[str, dict[str, list]]:
    """Leave-one-project-out probabilities of each kind of question, for each side: the question model fitted with
    the `columns` its side names (by position) beside the question's own inputs, at the shipped recipe's penalties
    and positives' share. Every side is fitted and scored on the same questions: those every column has a value for
    (so the crossed questions are the reader's sample, not every crossed question as `fit` fits on)."""
    recipe = json.loads(WEIGHTS.read_text())
    penalty, question_penalty = recipe["penalties"]
    share = recipe["positive_share"]
    development = F.Questions(Rows.load(rows_path("development")))
    crossed = F.Questions(Rows.load(rows_path("crossed")))
    near = F.Questions(Rows.load(rows_path("near-misses")))
    absences = {
        name: F.Questions(Rows.load(rows_path(name)))
        for name in ("matched", "transplanted")
        if rows_path(name).exists()
    }
    projects = list(dict.fromkeys(c.corpus for c in development.rows.cases))
    held_signs = [QUESTION_NAMES.index(name) for name in F.QUESTION_WORD_EVIDENCE]
    scores: dict[str, dict[str, list]] = {side: {kind: [] for kind in KINDS} for side in sides}
    for held in projects:
        rest = [p for p in projects if p != held]
        looked = F.fit_candidates(development, crossed, rest, penalty)
        dev = looked.development
        taught = [
            (Side("development" if source is dev else "crossed", source, chosen, columns), label, weight)
            for source, chosen, label, weight in F.question_groups(dev, looked.crossed, rest, share)
        ]
        x = np.vstack([side.rows(looked.candidate) for side, _, _ in taught])
        extra = np.vstack([side.extra for side, _, _ in taught])
        y = np.concatenate([np.full(len(side.chosen), label) for side, label, _ in taught])
        w = np.concatenate([np.full(len(side.chosen), weight / len(side.chosen)) for side, _, weight in taught])
        models = {
            name: F.fit(F.Data(np.hstack([x, extra[:, used]]), y, w), question_penalty, held_signs)
            for name, used in sides.items()
        }
        mine = dev.of([held])
        near_read = near.read_by(looked.first)
        kinds = {
            "answerable": Side("development", dev, [q for q in mine if dev.answered(q)], columns),
            "written": Side("development", dev, [q for q in mine if not dev.rows.cases[q].gold], columns),
            "near misses": Side("near-misses", near_read, near_read.of([held]), columns),
            "crossed": Side("crossed", looked.crossed, looked.crossed.of([held]), columns),
        }
        for name, questions in absences.items():
            read_by = questions.read_by(looked.first)
            chosen = [q for q in read_by.of([held]) if read_by.rows.cases[q].negative]
            kinds[SETS[name]] = Side(name, read_by, chosen, columns)
        for kind, side in kinds.items():
            if not side.chosen:
                continue
            rows = side.rows(looked.candidate)
            for name, used in sides.items():
                scores[name][kind] += list(models[name].probabilities(np.hstack([rows, side.extra[:, used]])))
    return scores


def alone(
    read: dict[Key, float],
    answered: set[tuple[str, str]],
    absent: set[tuple[str, str]],
    present_elsewhere: set[tuple[str, str]] = frozenset(),  # type: ignore[assignment]
) -> list[float]:
    """A verdict's own areas against written negatives, near misses, crossed questions, matched absences and
    transplanted ones (nan for a kind it scored none of); `answered` and `absent` are the development questions
    (corpus, words) whose shortlist holds an answer, and those that have none; `present_elsewhere` the transplanted
    questions found present where they were asked (counted in no kind)."""
    by_kind: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for (name, corpus, query), value in read.items():
        if name == "development":
            kind = "answerable" if (corpus, query) in answered else "written" if (corpus, query) in absent else None
        elif name == "transplanted" and (corpus, query) in present_elsewhere:
            kind = None
        else:
            kind = SETS.get(name)
        if kind is not None:
            by_kind[kind].append(value)
    return [area_or_nan(by_kind["answerable"], by_kind[kind]) for kind in KINDS[1:]]


def report(scores: dict[str, dict[str, list]]) -> str:
    lines = [
        "| question model | "
        + " | ".join([*(f"AUC vs {kind}" for kind in KINDS[1:]), *(f"{kind} empty" for kind in KINDS)])
        + " |",
        "| --- |" + " ---: |" * (2 * len(KINDS) - 1),
    ]
    for side, by_kind in scores.items():
        answerable = by_kind["answerable"]
        areas = [area_or_nan(answerable, by_kind[kind]) for kind in KINDS[1:]]
        empty = [float(np.mean(np.asarray(by_kind[kind]) < F.THRESHOLD)) if by_kind[kind] else NAN for kind in KINDS]
        lines.append(f"| {side} | " + " | ".join(f"{v:.3f}" for v in areas + empty) + " |")
    counts = ", ".join(f"{len(v)} {k}" for k, v in next(iter(scores.values())).items())
    return "\n".join(lines) + f"\n\n({counts})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scores", type=Path, required=True)
    args = parser.parse_args()
    read = readings(args.scores)
    with pairs_path("development").open() as lines:
        development = [json.loads(line) for line in lines]
    unread = sum(("development", q["corpus"], q["query"]) not in read for q in development)
    if unread:
        raise SystemExit(
            f"{args.scores} scores {len(development) - unread} of the {len(development)} development questions: "
            "a run of bench.train.reader that finished every fold scores them all"
        )
    answered = {(q["corpus"], q["query"]) for q in development if q["answered"]}
    absent = {(q["corpus"], q["query"]) for q in development if not q["has_gold"]}
    present_elsewhere = {(case.corpus, case.query) for case in transplanted_cases() if case.gold}
    print("| alone | " + " | ".join(f"AUC vs {kind}" for kind in KINDS[1:]) + " |")
    print("| --- |" + " ---: |" * (len(KINDS) - 1))
    for name in VERDICTS:
        areas = alone(verdicts(read, name), answered, absent, present_elsewhere)
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in areas) + " |")
    best, words = verdicts(read, READER), verdicts(read, WORDS)
    mean = verdicts(read, MEAN)
    keys = sorted(mean)
    correlation = np.corrcoef([mean[k] for k in keys], [words[k] for k in keys])[0, 1]
    print(f"\ncorrelation of {MEAN} with {WORDS}: {correlation:.2f}\n")
    sides = {"without them (the same questions)": [], f"with {READER}": [0], f"with {WORDS}": [1], "with both": [0, 1]}
    print(report(check(sides, [best, words])))


if __name__ == "__main__":
    main()
