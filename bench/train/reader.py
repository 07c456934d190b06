"""A reader taught questions like a user's: a cross-encoder over the judge's best candidates (issue 19).

Every reader trained on the corpus's doc summaries fell to chance on the quality set's questions (README.md here):
what a summary teaches is not what a newcomer's question about an absent behavior looks like. This one is taught
those questions themselves: the development part's (answerable ones and written absent behaviors), its near misses,
a sample of its questions asked of other projects, and the newcomer questions of the training packages, each with
the shipped ranker's best candidates (`bench.ranker.pairs`); with `--absent matched` or `matched-newcomer`, of the
absent behaviors only those written as long as the answerable questions, with `--absent transplanted` only questions
found absent in another project (`ABSENT`). Run with the training venv:

    /work/train-venv/bin/python -m bench.train.reader --out DIR [--start MODEL_DIR] [--folds 2] [--epochs 2] [--seed 0]
        [--absent written|matched|matched-newcomer|transplanted]

The development projects are cut into `--folds` seeded folds; for each, a model is trained on the questions that
touch no project of the fold (a question asked of another project touches both) plus all the newcomer questions, and
scores the fold's questions: `DIR/scores.jsonl` holds every development, near-miss and matched question's logits for
its `TOP` best candidates, and those of the crossed questions whose two projects are both in the fold, each from a
model that saw neither the question nor the code; `bench.ranker.reader_check` weighs them beside the question model.
Pointwise binary cross-entropy, answers weighing `POSITIVE_WEIGHT` (there are about six non-answers to each), word
embeddings frozen as in the bi-encoder's recipe, seeded throughout. Measured and not kept: README.md here.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bench.train import biencoder
from bench.train.crossencoder import HEAD_LEARNING_RATE, LEARNING_RATE, CrossEncoder, pair_text

REPO = Path(__file__).resolve().parents[2]
PAIRS = REPO / "bench" / "out" / "ranker"
TOP = 8
"""`bench.ranker.pairs.TOP`, repeated: this venv reads the pairs before the project's modules are importable."""
NEGATIVES = 4
"""Non-answers per question taught, the ranker's best first."""
CROSSED_NEGATIVES = 2
"""Fewer for a question asked of another project: those are mostly easy."""
POSITIVE_WEIGHT = 2.0
BATCH = 16
SEED = 0

Record = dict[str, Any]
Pair = tuple[str, float]


def load(name: str, folder: Path = PAIRS, *, missing_ok: bool = False) -> list[Record]:
    path = folder / f"pairs-{name}.jsonl"
    if missing_ok and not path.exists():
        return []
    with path.open() as lines:
        return [json.loads(line) for line in lines]


def folds(projects: Iterable[str], count: int, seed: int) -> list[set[str]]:
    """The development projects in `count` seeded folds of (nearly) equal size."""
    ordered = sorted(projects)
    random.Random(seed).shuffle(ordered)
    return [set(ordered[k::count]) for k in range(count)]


def pairs(record: Record, negatives: int = NEGATIVES) -> list[Pair]:
    """What one question teaches: its answers among the candidates (two at most) and its best non-answers."""
    answers = [c for c in record["cands"] if c["label"]][:2]
    others = [c for c in record["cands"] if not c["label"]][:negatives]
    return [(pair_text(record["query"], c["text"]), 1.0) for c in answers] + [
        (pair_text(record["query"], c["text"]), 0.0) for c in others
    ]


def origins(development: Iterable[Record]) -> dict[str, str]:
    """Each development question's own project, by its words: where a crossed question comes from."""
    return {record["query"]: record["corpus"] for record in development}


MOVED = ("crossed", "transplanted")
"""The sets whose questions are a development project's asked of another (`origins` says whose)."""


def touches(record: Record, held: set[str], origin: dict[str, str]) -> bool:
    """Whether a question is asked of a `held` project or, asked of another, comes from one."""
    return record["corpus"] in held or (record["set"] in MOVED and origin.get(record["query"]) in held)


ABSENT = ("written", "matched", "matched-newcomer", "transplanted")
"""Which absent behaviors a reader is taught. `written`: the development part's written negatives, its near misses,
the newcomer questions' absent behaviors and the written negatives in the crossed sample, all written shorter than
the answerable questions; `matched`: only the absences written to the answerable questions' length and form
(`bench/quality/matched_absences.jsonl`, 204), so that length cannot be what it learns; `matched-newcomer`: those
and the newcomer packages' own (`bench/train/newcomer_matched.jsonl`, all the file holds), written the same way;
`transplanted`: no absent behavior anybody wrote, only answerable questions asked of another project of their kind and
found absent there by reading it (`bench.quality.sets.transplanted_cases`: the development part's and the newcomer
packages'), with those found present, so that how a question is worded cannot tell its label. All are taught the
answerable questions and the crossed sample's answerable questions asked of other projects."""


def training_pairs(sets: dict[str, list[Record]], held: set[str], absent: str = "written") -> list[Pair]:
    """Every question that touches no `held` project, the newcomer questions always (none is a quality project); the
    absent behaviors `absent` names (`ABSENT`)."""
    origin = origins(sets["development"])
    short = absent == "written"
    written_absent = {r["query"] for r in sets["development"] if not has_gold(r)}
    taught = [p for r in sets["newcomer"] if short or has_gold(r) for p in pairs(r)]
    if absent == "matched-newcomer":
        taught += [p for r in sets["newcomer-matched"] for p in pairs(r)]
    if absent == "transplanted":
        taught += [p for r in sets["newcomer-transplanted"] for p in pairs(r)]
    absences = {"written": "near-misses", "transplanted": "transplanted"}.get(absent, "matched")
    labeled = {(r["corpus"], r["query"]) for r in sets.get("transplanted", ())}
    for name, negatives in (
        ("development", NEGATIVES),
        (absences, NEGATIVES),
        ("crossed", CROSSED_NEGATIVES),
    ):
        records = [r for r in sets[name] if not touches(r, held, origin)]
        if name == "crossed" and absent == "transplanted":  # labeled by reading: not taught as absent blindly too
            records = [r for r in records if (r["corpus"], r["query"]) not in labeled]
        if not short and name in ("development", "crossed"):  # no written negative, of its project or of another
            records = [r for r in records if r["query"] not in written_absent]
        taught += [p for r in records for p in pairs(r, negatives)]
    return taught


def has_gold(record: Record) -> bool:
    """Whether a question has an answer in its project at all (records without the field are answerable ones)."""
    return bool(record.get("has_gold", True))


def held_records(sets: dict[str, list[Record]], held: set[str]) -> Iterable[Record]:
    """The questions a model that never saw `held` may score: asked of a held project, and a crossed one also coming
    from one (its words were not taught, and neither was the code)."""
    origin = origins(sets["development"])
    for name in ("development", "near-misses", "matched", "transplanted", "crossed"):
        for record in sets.get(name, ()):
            if record["corpus"] in held and (name not in MOVED or origin.get(record["query"]) in held):
                yield record


def train(taught: Sequence[Pair], start: Path, epochs: int, seed: int) -> CrossEncoder:
    import torch

    torch.set_num_threads(2)
    torch.manual_seed(seed)
    model = CrossEncoder(start)
    model.model.embeddings.word_embeddings.weight.requires_grad_(False)
    params = [p for p in model.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        [{"params": params, "lr": LEARNING_RATE}, {"params": list(model.head.parameters()), "lr": HEAD_LEARNING_RATE}],
        weight_decay=0.01,
    )
    steps = math.ceil(len(taught) / BATCH) * epochs
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: biencoder.linear_schedule(step, steps, max(1, steps // 10))
    )
    weight = torch.tensor(POSITIVE_WEIGHT)
    for epoch in range(epochs):
        model.model.train()
        order = random.Random(f"{seed}:{epoch}").sample(range(len(taught)), len(taught))
        started = time.time()
        for first in range(0, len(order), BATCH):
            batch = [taught[i] for i in order[first : first + BATCH]]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                model.logits([text for text, _ in batch]),
                torch.tensor([label for _, label in batch]),
                pos_weight=weight,
            )
            biencoder.apply_gradients(torch, loss, params, optimizer, scheduler)
        print(f"  epoch {epoch + 1}: {len(taught)} pairs in {time.time() - started:.0f}s", flush=True)
    return model


def scored(model: CrossEncoder, records: Iterable[Record], fold: int) -> Iterable[Record]:
    """Each question's logits for its `TOP` best candidates, with their labels and ranks."""
    for record in records:
        read = [c for c in record["cands"] if c["rank"] < TOP]
        logits = model.score([pair_text(record["query"], c["text"]) for c in read])
        yield {
            "set": record["set"],
            "corpus": record["corpus"],
            "query": record["query"],
            "fold": fold,
            "logits": logits,
            "labels": [c["label"] for c in read],
            "ranks": [c["rank"] for c in read],
        }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train.reader", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--start", type=Path, help="the encoder to start from (default: base all-MiniLM-L6-v2)")
    parser.add_argument("--folds", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--absent", choices=ABSENT, default="written", help="the absent behaviors it is taught")
    args = parser.parse_args(argv)
    biencoder.use_project_modules()
    start = args.start or biencoder.base_model_dir()
    sets = {name: load(name) for name in ("development", "near-misses", "newcomer", "crossed")}
    sets["matched"] = load("matched", missing_ok=True)  # collected since the first runs
    for name in ("newcomer-matched", "transplanted", "newcomer-transplanted"):
        sets[name] = load(name, missing_ok=True)
    needed = {
        "matched": ["matched"],
        "matched-newcomer": ["matched", "newcomer-matched"],
        "transplanted": ["transplanted", "newcomer-transplanted"],
    }
    for name in needed.get(args.absent, []):
        if not sets[name]:
            parser.error(f"--absent {args.absent} needs `bench.ranker.pairs --set {name}` first")
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "scores.jsonl").open("w") as out:
        for k, held in enumerate(folds({r["corpus"] for r in sets["development"]}, args.folds, args.seed)):
            print(f"fold {k}: holds {', '.join(sorted(held))}", flush=True)
            model = train(training_pairs(sets, held, args.absent), start, args.epochs, args.seed + k)
            for line in scored(model, held_records(sets, held), k):
                out.write(json.dumps(line) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
