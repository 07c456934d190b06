"""Fit the local judge's ranker on the development part, choosing its settings by leave-one-project-out.

What is fitted (`smartsearch_ls/judge/local/ranker.py`): the first look, a candidate model on rows with the
reading columns taken as if nothing were read (`features.unread`), which picks the leaders whose readings the
judge reads; then, on rows as the judge sees them (the leaders' readings alone), the candidate model on every
shortlisted candidate of the questions whose answer the shortlist holds (labels from the gold spans, natural
balance: a handful of answers among 128), and the question model on one row per question: the development
questions (label: the shortlist holds an answer), the written negatives and the development questions asked of the
other development projects (`collect.crossed`), all labeled 0, the positives weighing a share of the rows' weight
chosen from a grid (`POSITIVE_SHARES`), the negatives the rest, half written, half crossed.
Both are L2-penalized logistic regressions on standardized features (Newton's method).

Word evidence (`WORD_EVIDENCE`, `QUESTION_WORD_EVIDENCE`) is held to weights of at least 0, for the reason given
there.

What is chosen: both penalties, the positives' share and the sharpness, from the grids below (`bench/ranker/README.md`
says which values were added after development figures), by leave-one-project-out over the development projects (fit on
the others, replay the engine's cut on the one left out: `replay.replay`, threshold 0.5). The criterion (`criterion`):
MRR@10 + recall@10 / 2 + the mean of written and crossed negatives answered empty - 2 x positives answered empty,
averaged over the folds, among the settings whose answers hold at most a page of matches (`PAGE`: the median count above
the threshold on answerable questions), since a sharpness near 0 keeps every candidate of an answerable question above
the threshold, which no metric in the top 10 sees but every user of the long list would, and among those whose
answerable questions answered with nothing stay within the relevance issue's bound (`POSITIVES_EMPTY_BOUND`; `choose`).
The held-out part is never read here; `evaluate.py` scores it with what this writes. The development projects' near
misses (`collect --set near-misses`: `bench/quality/near_misses.jsonl`) and the absent behaviors written to the
answerable questions' length (`collect --set matched`: `bench/quality/matched_absences.jsonl`), once collected, are
replayed in each fold and reported beside the criterion (and `--write` records them in `ranker.json` with the other
figures); nothing is fitted on them.

    .venv/bin/python -m bench.ranker.fit [--write] [--with-train] [--tag NAME]

`--with-train` adds the training corpus's questions (`collect --set train`: doc summaries of 64 packages, none of
the quality set's) to the candidate model's rows; `--tag` fits rows collected with a candidate embedding model.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bench.ranker.collect import Rows, rows_path
from bench.ranker.replay import Scored, replay
from smartsearch_ls.judge.local.features import NAMES, unread
from smartsearch_ls.judge.local.ranker import QUESTION_NAMES, WEIGHTS, Logistic, Ranker, question_features

CANDIDATE_PENALTIES = (0.1,)
"""Without 1.0: its heavier ridge, chosen once by the criterion, shrank the weight of a test the question did not ask
for so far that a test naming the behavior word for word outranked the implementation that performs it
(`tests/judge/test_local_ranker.py`), which the relevance issue asks the ranker never to do (figures:
`bench/ranker/README.md`)."""
QUESTION_PENALTIES = (0.1, 1.0, 10.0)
"""L2 strength, per unit of total row weight, times 1/1000."""
POSITIVE_SHARES = (0.35, 0.5, 0.65, 0.8, 0.9, 0.95)
"""The answerable questions' share of the question model's row weight: below one half, it says "nothing" more often,
for absent behaviors and present ones alike; above it, less often. `choose` picks it by the goal's bound."""
POSITIVES_EMPTY_BOUND = 0.05
"""The relevance issue's bound on answerable questions answered with nothing. No evidence measured tells an absent
behavior from a present one well enough to also answer 0.80 of the absent ones with nothing, so the bound decides
where the question model stands: an empty answer reads as "it is not here", the costlier mistake for a user."""
SHARPNESS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.35)
THRESHOLD = 0.5
PAGE = 10
"""The default `limit`: an answer should not hold many more matches above the threshold than it shows."""


MEASURED = {"near_misses": "near-misses", "matched": "matched"}
"""The absent behaviors replayed beside the criterion, never fitted on: figure name -> `collect` set."""

Setting = tuple[float, float, float, float]
"""Candidate penalty, question penalty, positives' share, sharpness."""


@dataclass(frozen=True)
class Data:
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    w: npt.NDArray[np.float64]


WORD_EVIDENCE = ("coverage", "name_coverage", "path_coverage", "body_coverage", "lexical")
"""Candidate features that can only count for a candidate: the question's words in it, where and how rare."""
QUESTION_WORD_EVIDENCE = ("best_name", "best_body", "best_lexical")
"""The same evidence of the best candidates, in the question model.

Why the sign is imposed rather than learned: the quality set's questions are written without the target's names
(a newcomer does not know them), so on it a candidate named with the question's words is more often a neighbour
than the answer, and a free fit learns to hold those words against it. A user who does know a name and asks
with it would then find that very function ranked down; here such a weight is held at 0 instead."""


LEFT_OUT = ("cosine_gap", "cosine_rank")
"""Candidate features held at weight 0 in the first look and the candidate model: how a candidate's cosine stands
against the shortlist's best, and its rank by cosine. Every feature group was switched off in turn, leave-one-project-
out over the development part, by a rule written before the runs; this one alone raised the criterion, top-1 span and
MRR@10 (bench/ranker/README.md, 2026-12-06 20:47 UTC on): the cosine itself says it, and the ranks and gaps fitted
the development projects' own spreads. `cosine_gap` is still computed: a candidate whose later lines are not read
has it as its `whole_gap`, so the first look (which reads none) and the candidate model (for the candidates it does not
read) still weigh the gap through that column; what is left out is the rank, and the gap counted a second time."""


def fit(
    data: Data, penalty: float, non_negative: Sequence[int] = (), iterations: int = 60, left_out: Sequence[int] = ()
) -> Logistic:
    """Weighted, L2-penalized logistic regression by Newton's method, on standardized features; a feature of
    `non_negative` whose weight comes out below 0 is held at 0 and the rest refitted, the most negative first; those
    of `left_out` are held at 0 from the start."""
    held: set[int] = set(left_out)
    while True:
        model = _newton(data, penalty, held, iterations)
        negative = [i for i in non_negative if i not in held and model.weights[i] < 0]
        if not negative:
            return model
        held.add(min(negative, key=lambda i: model.weights[i]))


def _newton(data: Data, penalty: float, held: set[int], iterations: int) -> Logistic:
    center = np.average(data.x, axis=0, weights=data.w)
    scale = np.sqrt(np.average((data.x - center) ** 2, axis=0, weights=data.w))
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(data.x - center) / scale, np.ones((len(data.x), 1))])
    z[:, sorted(held)] = 0.0  # with a ridge, a column of zeros keeps its weight at exactly 0
    beta = np.zeros(z.shape[1])
    ridge = np.full(z.shape[1], penalty * data.w.sum() / 1000)
    ridge[sorted(held)] = 1.0
    ridge[-1] = 0.0  # the bias is not penalized
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-np.clip(z @ beta, -40, 40)))
        gradient = z.T @ (data.w * (p - data.y)) + ridge * beta
        hessian = (z * (data.w * p * (1 - p))[:, None]).T @ z + np.diag(ridge)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-7:
            break
    return Logistic(beta[:-1], float(beta[-1]), center, scale)


class Questions:
    """A set's rows cut per question."""

    def __init__(self, rows: Rows):
        self.rows = rows
        order = np.argsort(rows.question, kind="stable")
        bounds = np.searchsorted(rows.question[order], np.arange(len(rows.cases) + 1))
        self.groups = [order[bounds[q] : bounds[q + 1]] for q in range(len(rows.cases))]

    def unread(self) -> Questions:
        """The same questions with no candidate's readings read: what the first look sees."""
        return self._with(lambda rows: unread(rows, np.zeros(len(rows), dtype=bool)))

    def read_by(self, first: Logistic) -> Questions:
        """The same questions as the judge sees them: the readings of each shortlist's leaders by `first` alone."""
        return self._with(Ranker(first, first, first, 0.0).as_read)

    def _with(self, change: Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]]) -> Questions:
        features = self.rows.features.copy()
        for g in self.groups:
            if len(g):
                features[g] = change(self.rows.features[g])
        return Questions(Rows(features, self.rows.labels, self.rows.question, self.rows.spans, self.rows.cases))

    def of(self, corpora: Sequence[str]) -> list[int]:
        return [q for q, case in enumerate(self.rows.cases) if case.corpus in corpora and len(self.groups[q])]

    def answered(self, q: int) -> bool:
        return bool(self.rows.labels[self.groups[q]].any())


def candidate_data(questions: Questions, chosen: Sequence[int]) -> Data:
    rows = [g for q in chosen if questions.answered(q) for g in [questions.groups[q]]]
    keep = np.concatenate(rows)
    return Data(
        questions.rows.features[keep],
        questions.rows.labels[keep].astype(np.float64),
        np.full(len(keep), 1.0 / len(keep)),
    )


QuestionGroup = tuple[Questions, list[int], float, float]
"""Questions of one set, their label, and the share of the question model's row weight they hold together."""


def question_groups(
    development: Questions, crossed: Questions, projects: Sequence[str], positive_share: float
) -> list[QuestionGroup]:
    """The question model's rows of `projects`: the answerable ones weighing `positive_share` in all, the written
    negatives and the questions crossed into `projects` half of the rest each."""
    own = development.of(projects)
    asked = {development.rows.cases[q].query for q in own}
    others = [q for q in crossed.of(projects) if crossed.rows.cases[q].query in asked]
    return [
        (development, [q for q in own if development.answered(q)], 1.0, positive_share),
        (development, [q for q in own if not development.answered(q)], 0.0, (1 - positive_share) / 2),
        (crossed, others, 0.0, (1 - positive_share) / 2),
    ]


def question_data(
    model: Logistic, development: Questions, crossed: Questions, projects: Sequence[str], positive_share: float
) -> Data:
    """One row per question of `question_groups`, each group's rows sharing its weight."""
    x, y, w = [], [], []
    for source, chosen, label, weight in question_groups(development, crossed, projects, positive_share):
        for q in chosen:
            g = source.groups[q]
            x.append(question_features(source.rows.features[g], model.logits(source.rows.features[g])))
            y.append(label)
            w.append(weight / len(chosen))
    return Data(np.array(x), np.array(y), np.array(w))


@dataclass(frozen=True)
class Looked:
    """The candidate side of one fit: the first look, the rows as the judge then sees them (the leaders' readings
    alone), and the candidate model fitted on those. It depends on the candidate penalty alone, so the grid fits it
    once per fold and penalty, not once per setting."""

    first: Logistic
    candidate: Logistic
    development: Questions
    crossed: Questions


def fit_candidates(
    development: Questions,
    crossed: Questions,
    projects: Sequence[str],
    candidate_penalty: float,
    extra: Questions | None = None,
    extra_share: float = 1.0,
) -> Looked:
    """The first look and the candidate model fitted on `projects`; `extra` (the training corpus's questions) adds
    candidate rows weighing `extra_share` of the development ones in all."""
    word_evidence = [NAMES.index(name) for name in WORD_EVIDENCE]
    left_out = [NAMES.index(name) for name in LEFT_OUT]
    first = fit(
        candidate_data(development.unread(), development.of(projects)),
        candidate_penalty,
        word_evidence,
        left_out=left_out,
    )
    development, crossed = development.read_by(first), crossed.read_by(first)
    data = candidate_data(development, development.of(projects))
    if extra is not None:
        extra = extra.read_by(first)
        more = candidate_data(extra, list(range(len(extra.rows.cases))))
        data = Data(
            np.vstack([data.x, more.x]),
            np.concatenate([data.y, more.y]),
            np.concatenate([data.w, more.w * extra_share]),
        )
    return Looked(first, fit(data, candidate_penalty, word_evidence, left_out=left_out), development, crossed)


def fit_question(looked: Looked, projects: Sequence[str], question_penalty: float, positive_share: float) -> Logistic:
    """The question model fitted on `projects`, over the candidate model's logits."""
    return fit(
        question_data(looked.candidate, looked.development, looked.crossed, projects, positive_share),
        question_penalty,
        [QUESTION_NAMES.index(name) for name in QUESTION_WORD_EVIDENCE],
    )


def fit_ranker(
    development: Questions,
    crossed: Questions,
    projects: Sequence[str],
    setting: Setting,
    extra: Questions | None = None,
    extra_share: float = 1.0,
) -> Ranker:
    """The ranker fitted on `projects` of the development part at `setting` (`Setting`)."""
    candidate_penalty, question_penalty, positive_share, sharpness = setting
    looked = fit_candidates(development, crossed, projects, candidate_penalty, extra, extra_share)
    question = fit_question(looked, projects, question_penalty, positive_share)
    return Ranker(looked.first, looked.candidate, question, sharpness)


def scored(questions: Questions, ranker: Ranker, chosen: Sequence[int], *, read: bool = False) -> list[Scored]:
    """The `chosen` questions' candidates scored by `ranker`; their rows are taken as the judge would compute them
    (`Ranker.as_read`) unless they are already `read` by the ranker's first look."""
    found = []
    for q in chosen:
        g = questions.groups[q]
        rows = questions.rows.features[g] if read else ranker.as_read(questions.rows.features[g])
        spans = [questions.rows.spans[i] for i in g]
        found.append(Scored(questions.rows.cases[q], spans, ranker.relevance(rows), rows))
    return found


def figures_on(looked: Looked, ranker: Ranker, held: Sequence[str]) -> dict[str, float]:
    """The engine's cut on the held projects' questions, and the share of the questions crossed into them answered
    with nothing (`crossed_empty`); `ranker` shares `looked`'s first look."""
    development, crossed = looked.development, looked.crossed
    items = scored(development, ranker, development.of(held), read=True)
    figures = replay(items, THRESHOLD)
    asked_elsewhere = crossed.of(held)
    crossed_figures = replay(scored(crossed, ranker, asked_elsewhere, read=True), THRESHOLD)
    figures["crossed_empty"] = crossed_figures["negatives_empty"]
    figures["matches"] = float(np.median([(i.probabilities >= THRESHOLD).sum() for i in items if not i.case.negative]))
    figures["criterion"] = criterion(figures)
    return figures


def criterion(figures: dict[str, float]) -> float:
    """What the grid maximizes: the ranking with the cut, the written negatives and the crossed questions answered
    with nothing as two equal halves of one term (pooled by count, a project's few written negatives would weigh
    next to nothing against the many questions crossed into it, yet they are the kind of absent behavior a user asks
    about), and twice the answerable questions answered with nothing held against it."""
    negatives = (figures["negatives_empty"] + figures["crossed_empty"]) / 2
    return figures["mrr"] + figures["recall"] / 2 + negatives - 2 * figures["positives_empty"]


def choose(results: Mapping[Setting, dict[str, float]]) -> tuple[Setting, dict[str, float]]:
    """The setting to ship: of those whose answers hold at most a page of matches and answer at most
    `POSITIVES_EMPTY_BOUND` of the answerable questions with nothing, the best by the criterion; if none is within the
    bound, the one nearest it (ties: the criterion)."""
    paged = {k: v for k, v in results.items() if v["matches"] <= PAGE}
    within = {k: v for k, v in paged.items() if v["positives_empty"] <= POSITIVES_EMPTY_BOUND}
    if within:
        return max(within.items(), key=lambda item: item[1]["criterion"])
    return min(paged.items(), key=lambda item: (item[1]["positives_empty"], -item[1]["criterion"]))


def cross_validate(
    development: Questions,
    crossed: Questions,
    settings: Sequence[Setting],
    extra: Questions | None = None,
    extra_share: float = 1.0,
    measured: Mapping[str, Questions] | None = None,
) -> dict[Setting, dict[str, float]]:
    """Each setting's figures, leave-one-project-out, averaged over the folds. Within a fold the candidate side is
    fitted once per candidate penalty and the question model once per question penalty and positives' share: the
    sharpness only reshapes the scores. Each of `measured` (absent behaviors never fitted on, by figure name: the near
    misses, the matched absences) adds the share of the left-out project's answered with nothing (`<name>_empty`),
    outside the criterion."""
    projects = list(dict.fromkeys(c.corpus for c in development.rows.cases))
    folds: dict[Setting, list[dict[str, float]]] = {setting: [] for setting in settings}
    for held in projects:
        rest = [p for p in projects if p != held]
        for candidate_penalty in dict.fromkeys(s[0] for s in settings):
            looked = fit_candidates(development, crossed, rest, candidate_penalty, extra, extra_share)
            read = {name: questions.read_by(looked.first) for name, questions in (measured or {}).items()}
            for question_penalty, share in dict.fromkeys(s[1:3] for s in settings if s[0] == candidate_penalty):
                question = fit_question(looked, rest, question_penalty, share)
                for setting in settings:
                    if setting[:3] == (candidate_penalty, question_penalty, share):
                        ranker = Ranker(looked.first, looked.candidate, question, setting[3])
                        figures = figures_on(looked, ranker, [held])
                        for name, questions in read.items():
                            if asked := questions.of([held]):
                                answers = scored(questions, ranker, asked, read=True)
                                figures[f"{name}_empty"] = replay(answers, THRESHOLD)["negatives_empty"]
                        folds[setting].append(figures)
    return {setting: _mean_over_folds(figures) for setting, figures in folds.items()}


def _mean_over_folds(folds: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each figure's mean over the folds that have it (a project without near misses has no such figure)."""
    names = dict.fromkeys(name for figures in folds for name in figures)
    return {name: float(np.mean([f[name] for f in folds if name in f])) for name in names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"refit the chosen setting on all of it into {WEIGHTS}")
    parser.add_argument("--tag", help="fit the rows `bench.ranker.collect --model ... --tag NAME` collected")
    parser.add_argument("--with-train", action="store_true", help="add the training corpus's rows to the candidates")
    parser.add_argument("--train-share", type=float, default=1.0, help="their weight, against the development rows'")
    args = parser.parse_args()
    extra = Questions(Rows.load(rows_path("train", args.tag))) if args.with_train else None
    development = Questions(Rows.load(rows_path("development", args.tag)))
    crossed = Questions(Rows.load(rows_path("crossed", args.tag)))
    measured = {}
    for name, rows_set in MEASURED.items():
        path = rows_path(rows_set, args.tag)
        if path.exists():
            measured[name] = Questions(Rows.load(path))
        else:
            print(
                f"{rows_set} not collected ({path}): `collect --set {rows_set}` (with --model and --tag as for the "
                "other rows) adds their figure"
            )
    grid = list(itertools.product(CANDIDATE_PENALTIES, QUESTION_PENALTIES, POSITIVE_SHARES, SHARPNESS))
    results = cross_validate(development, crossed, grid, extra, args.train_share, measured)
    for setting, figures in results.items():
        print(f"{setting}: " + "  ".join(f"{k} {v:.3f}" for k, v in figures.items()))
    setting, best = choose(results)
    print(
        f"chosen: candidate penalty {setting[0]}, question penalty {setting[1]}, positives' share {setting[2]}, "
        f"sharpness {setting[3]}"
    )
    if args.write:
        projects = list(dict.fromkeys(c.corpus for c in development.rows.cases))
        ranker = fit_ranker(development, crossed, projects, setting, extra, args.train_share)
        recipe = {
            "fitted_on": "bench/quality development part: " + ", ".join(projects),
            "penalties": list(setting[:2]),
            "positive_share": setting[2],
            "cross_validated": {k: round(v, 3) for k, v in best.items()},
        }
        WEIGHTS.write_text(json.dumps(ranker.to_json(**recipe), indent=1) + "\n")
        for names, model in ((NAMES, ranker.first), (NAMES, ranker.candidate), (QUESTION_NAMES, ranker.question)):
            for name, weight in sorted(zip(names, model.weights, strict=True), key=lambda item: -abs(item[1])):
                print(f"  {name:16} {weight:+.3f}")


if __name__ == "__main__":
    main()
