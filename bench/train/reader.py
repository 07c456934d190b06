"""A reader taught questions like a user's: a cross-encoder over the judge's best candidates (issue 19).

Every reader trained on the corpus's doc summaries fell to chance on the quality set's questions (README.md here):
what a summary teaches is not what a newcomer's question about an absent behavior looks like. This one is taught
those questions themselves: the development part's (answerable ones and written absent behaviors), its near misses,
a sample of its questions asked of other projects, and the newcomer questions of the training packages, each with
the shipped ranker's best candidates (`bench.ranker.pairs`). Run with the training venv:

    /work/train-venv/bin/python -m bench.train.reader --out DIR [--start MODEL_DIR] [--folds 2] [--epochs 2]

The development projects are cut into `--folds` seeded folds; for each, a model is trained on every other fold's
questions plus all the newcomer questions, and scores the held fold's questions: `DIR/scores.jsonl` holds every
development, near-miss and crossed question's logits for its `TOP` best candidates, each from a model that never
saw its project, which `bench.ranker.reader_check` weighs beside the question model. `--full` trains one more model
on every fold (what a judge would ship) and saves it as `DIR/full/` (a `BertModel` with `head.json`, which
`bench.train.export` exports). Pointwise binary cross-entropy, answers weighing `POSITIVE_WEIGHT` (there are about
six non-answers to each), word embeddings frozen as in the bi-encoder's recipe, seeded throughout.
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
NEGATIVES = 4
"""Non-answers per question taught, the ranker's best first."""
CROSSED_NEGATIVES = 2
"""Fewer for a question asked of another project: those are mostly easy."""
POSITIVE_WEIGHT = 2.0
BATCH = 16
SEED = 0

Record = dict[str, Any]
Pair = tuple[str, float]


def load(name: str, folder: Path = PAIRS) -> list[Record]:
    with (folder / f"pairs-{name}.jsonl").open() as lines:
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


def training_pairs(sets: dict[str, list[Record]], held: set[str]) -> list[Pair]:
    """Every question outside the `held` projects, the newcomer questions always (none is a quality project)."""
    taught = [p for r in sets["newcomer"] for p in pairs(r)]
    taught += [p for r in sets["development"] + sets["near-misses"] if r["corpus"] not in held for p in pairs(r)]
    taught += [p for r in sets["crossed"] if r["corpus"] not in held for p in pairs(r, CROSSED_NEGATIVES)]
    return taught


def train(taught: Sequence[Pair], start: Path, epochs: int, seed: int, log: Any = print) -> CrossEncoder:
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
        log(f"  epoch {epoch + 1}: {len(taught)} pairs in {time.time() - started:.0f}s")
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
    parser.add_argument("--full", action="store_true", help="also train on every fold and save the model")
    args = parser.parse_args(argv)
    biencoder.use_project_modules()
    start = args.start or biencoder.base_model_dir()
    sets = {name: load(name) for name in ("development", "near-misses", "newcomer", "crossed")}
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "scores.jsonl").open("w") as out:
        for k, held in enumerate(folds({r["corpus"] for r in sets["development"]}, args.folds, args.seed)):
            print(f"fold {k}: holds {', '.join(sorted(held))}", flush=True)
            model = train(training_pairs(sets, held), start, args.epochs, args.seed + k)
            for name in ("development", "near-misses", "crossed"):
                for line in scored(model, (r for r in sets[name] if r["corpus"] in held), k):
                    out.write(json.dumps(line) + "\n")
    if args.full:
        model = train(training_pairs(sets, set()), start, args.epochs, args.seed)
        model.save(args.out / "full")
    return 0


if __name__ == "__main__":
    sys.exit(main())
