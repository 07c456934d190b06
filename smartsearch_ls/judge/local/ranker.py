"""The local judge's verdict on a shortlist: is the asked behavior here, and which snippets are it.

Logistic models over `features`, fitted by `bench/ranker/fit.py` on the development part of the quality set
(never on the held-out part) and stored beside this module as `ranker.json` with their recipe:

- the candidate model, P(this snippet is the answer | the answer is in the shortlist), fitted on the questions
  whose answer the shortlist holds: it orders the candidates;
- the question model, P(the answer is in the shortlist), from how the best candidates stand (their scores, their
  lead over the rest, how much of the question's wording the code holds at all), fitted on written negatives and
  on questions asked of projects they were not written for, the answerable questions' share of the weight chosen
  by the fit (`positive_share` in `ranker.json`; 0.5, the shipped choice, weighs the classes even: a question is
  taken to be as likely to name a behavior that exists as one that does not).

What a candidate's readings say (its comments' and its later lines' vectors, `embedding.readings`) is read for the
leaders of the shortlist only: a third logistic, the first look, orders the candidates by everything else, and the
`LEADERS` best by it are read (`unread` says how the rest look). Reading costs up to four runs of the model per
candidate, and a first search in a folder nothing has embedded pays them all, while an answer is nearly always
among the leaders (`bench/ranker/README.md`). The rule is the same whatever is cached, so a given shortlist is
answered the same whatever background embedding had reached.

A snippet's relevance is the question's probability times the snippet's odds against the best candidate, raised
to a small power (`sharpness`, fitted): the best match carries P(the asked behavior is here), so 0.5 means even
odds that it is and the default threshold can answer "nothing"; candidates nearly as good as the best stay above
the threshold with it, and clearly worse ones fall below. Logistic because the outputs are probabilities by
construction and a whole shortlist is a few matrix products.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from smartsearch_ls.judge.local.features import NAMES, READING_COLUMNS, unread

WEIGHTS = Path(__file__).with_name("ranker.json")

LEADERS = 32
"""Candidates of a shortlist whose readings the judge reads: the best by the first look."""

QUESTION_NAMES = (
    "best_logit",
    "best_gap",
    "best_lead",
    "best_cosine",
    "cosine_spread",
    "best_body",
    "best_name",
    "root_coverage",
    "best_lexical",
    "best_commentary",
    "commentary_of_best",
    "best_whole",
    "whole_of_best",
)
"""The question model's inputs, in order (`question_features`)."""

Rows = npt.NDArray[np.float64]


class RankerMismatch(RuntimeError):
    """The stored weights were fitted on other features than the judge computes: refit with `bench/ranker/fit.py`."""


@dataclass(frozen=True, slots=True)
class Logistic:
    """`sigmoid(weights . (x - center) / scale + bias)`."""

    weights: Rows
    bias: float
    center: Rows
    scale: Rows

    def logits(self, rows: Rows) -> Rows:
        return ((rows - self.center) / self.scale) @ self.weights + self.bias

    def probabilities(self, rows: Rows) -> Rows:
        return 1.0 / (1.0 + np.exp(-np.clip(self.logits(rows), -40.0, 40.0)))

    def contributions(self, rows: Rows) -> Rows:
        """Each feature's share of each row's logit, against a row at the fitted center."""
        return ((rows - self.center) / self.scale) * self.weights

    @classmethod
    def from_json(cls, document: dict[str, object], names: tuple[str, ...]) -> Logistic:
        if tuple(document["features"]) != names:  # type: ignore[arg-type]
            raise RankerMismatch(f"{WEIGHTS.name} was fitted on {document['features']}, the judge computes {names}")
        return cls(
            np.array(document["weights"], dtype=np.float64),
            float(document["bias"]),  # type: ignore[arg-type]
            np.array(document["center"], dtype=np.float64),
            np.array(document["scale"], dtype=np.float64),
        )

    def to_json(self, names: tuple[str, ...]) -> dict[str, object]:
        return {
            "features": list(names),
            "weights": [round(float(w), 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "center": [round(float(c), 6) for c in self.center],
            "scale": [round(float(s), 6) for s in self.scale],
        }


def question_features(rows: Rows, logits: Rows) -> Rows:
    """How the shortlist's best candidates stand, from their rows of `features` and candidate-model logits."""
    column = {name: i for i, name in enumerate(NAMES)}
    order = np.argsort(-logits, kind="stable")
    best = order[0]
    ranked = logits[order]
    cosines = rows[:, column["cosine"]]
    return np.array(
        [
            ranked[0],
            ranked[0] - ranked[1] if len(ranked) > 1 else 0.0,
            ranked[0] - float(ranked[:10].mean()),
            float(cosines.max()),
            float(cosines.max() - cosines.mean()),
            rows[best, column["body_coverage"]],
            rows[best, column["name_coverage"]],
            rows[best, column["root_coverage"]],
            rows[best, column["lexical"]],
            float(rows[:, column["commentary_cosine"]].max()),
            rows[best, column["commentary_cosine"]],
            float(rows[:, column["whole_cosine"]].max()),
            rows[best, column["whole_cosine"]],
        ]
    )


@dataclass(frozen=True, slots=True)
class Ranker:
    """The first look, the candidate model, the question model and how sharply relevance falls below the best
    candidate."""

    first: Logistic
    """The candidate model without the reading columns' evidence: which candidates are worth reading."""
    candidate: Logistic
    question: Logistic
    sharpness: float

    def leaders(self, rows: Rows) -> npt.NDArray[np.bool_]:
        """Which candidates to read, from rows of `features` (whatever was read for them: the first look sees none
        of it)."""
        chosen = np.zeros(len(rows), dtype=bool)
        seen = unread(rows, np.zeros(len(rows), dtype=bool))
        chosen[np.argsort(-self.first.logits(seen), kind="stable")[:LEADERS]] = True
        return chosen

    def as_read(self, rows: Rows) -> Rows:
        """Rows of a shortlist computed with every candidate's readings (as the ranker's fit collects them), as the
        judge computes them: with the leaders' readings alone."""
        return unread(rows, self.leaders(rows))

    def relevance(self, rows: Rows) -> Rows:
        """Each candidate's relevance, from its row of `features` within its shortlist."""
        if len(rows) == 0:
            return np.zeros(0)
        logits = self.candidate.logits(rows)
        answered = float(self.question.probabilities(question_features(rows, logits)[None, :])[0])
        odds = np.exp(np.clip(logits - logits.max(), -40.0, 0.0))  # against the best, through the sigmoid's odds
        return answered * odds**self.sharpness

    def factors(self, rows: Rows, top: int = 3) -> list[tuple[tuple[str, float, float], ...]]:
        """For each row, the `top` features of the candidate model that moved its score most, as `(feature, its
        value, its effect on the log-odds)`, largest effect first; what a candidate's readings say is named only for
        the leaders, the candidates whose readings were read."""
        effects = self.candidate.contributions(rows)
        effects[np.ix_(~self.leaders(rows), READING_COLUMNS)] = 0.0
        order = np.argsort(-np.abs(effects), axis=1)[:, :top]
        return [tuple((NAMES[j], float(rows[i, j]), float(effects[i, j])) for j in order[i]) for i in range(len(rows))]

    @classmethod
    def from_json(cls, document: dict[str, object]) -> Ranker:
        if "first" not in document:
            raise RankerMismatch(f"{WEIGHTS.name} has no first look: refit it with `bench/ranker/fit.py`")
        return cls(
            Logistic.from_json(document["first"], NAMES),  # type: ignore[arg-type]
            Logistic.from_json(document["candidate"], NAMES),  # type: ignore[arg-type]
            Logistic.from_json(document["question"], QUESTION_NAMES),  # type: ignore[arg-type]
            float(document["sharpness"]),  # type: ignore[arg-type]
        )

    def to_json(self, **recipe: object) -> dict[str, object]:
        return {
            "first": self.first.to_json(NAMES),
            "candidate": self.candidate.to_json(NAMES),
            "question": self.question.to_json(QUESTION_NAMES),
            "sharpness": self.sharpness,
            **recipe,
        }


_loaded: list[Ranker] = []
_loading = threading.Lock()


def shipped_ranker() -> Ranker:
    """The ranker that ships with the package, read once per process."""
    with _loading:
        if not _loaded:
            _loaded.append(Ranker.from_json(json.loads(WEIGHTS.read_text(encoding="utf-8"))))
        return _loaded[0]
