"""Fine-tune all-MiniLM-L6-v2 as a cross-encoder to re-score the local judge's best candidates (issue 19, item 4).

Measured and not shipped: `bench/train/README.md` has the figures.

The bi-encoder sees a question and a snippet apart, so its cosine says how alike two texts are, not whether one
answers the other; a cross-encoder reads them together. `python -m bench.train.crossencoder --out DIR`, run with
the training venv (torch is never a runtime dependency of the product; see `DIR/log.jsonl`):

1. **Data** (`data.json`, built once): every snippet of every training package, as `bench.train.biencoder` cuts
   and embeds them, and for each query its gold snippet and its `SHORTLIST` best BM25 snippets (the project's own
   baseline, `bench.quality.baselines.Bm25Baseline`) that neither overlap the gold nor have its text. The
   validation packages are the bi-encoder's (`biencoder.validation_packages`).
2. **Input**: one sequence, `question [SEP] snippet text`, cut at the product encoder's 128 tokens, so the
   product could run the exported file with its own `Embedder` (the same tokenizer, cut and pooling): the pair's
   relevance logit is `HEAD . embedding + bias`, the head fitted here and written beside the weights.
3. **Questions, not summaries**: the corpus's queries are doc-comment summaries ("Returns the user's name"); half
   of them (seeded) are asked as a newcomer asks (`as_question`: "where do we return the user's name").
4. **Training**: pointwise binary cross-entropy (a probability, not only an order: the question model needs to
   know when nothing answers) over the gold, `HARD_NEGATIVES` of the BM25 shortlist and `RANDOM_NEGATIVES`
   snippet of the same package per query (`--hard`, `--random`) and, with `--altered`, the query's own snippet
   asked with one word changed to one it lacks (`altering`: a near miss), word embeddings frozen as the
   bi-encoder's were, 2 torch threads, from base MiniLM or `--start`. Seeded throughout, so a run is reproducible.
5. **Validation** after each epoch: each validation query's
   BM25 shortlist with the gold, re-ranked by the logit: MRR@10 against the BM25 order's; and how often its
   altered question scores below the original on the same snippet. Each epoch's encoder is
   saved as `epoch-N/` (a `BertModel`, which `bench.train.export` exports unchanged) with `head.json`.

`python -m bench.train.export --run DIR` then makes the int8 ONNX file, as for the bi-encoder.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.train import biencoder
from bench.train.altering import altered, vocabularies

SHORTLIST = 16
HARD_NEGATIVES = 2
RANDOM_NEGATIVES = 1
QUESTION_SHARE = 0.5
BATCH = 32
EPOCHS = 2
LEARNING_RATE = 3e-5
HEAD_LEARNING_RATE = 1e-3
HEAD_SCALE = 20.0
"""The pooled vector is a unit vector, so a head of small initial weights can only say ~0.5: it reads the vector
times this (folded into the saved head) and starts able to say yes and no."""
SEED = 0
DATA_VERSION = 1

QUESTION_OPENINGS = (
    "where do we ",
    "how do we ",
    "where is the code that ",
    "which function should ",
    "find where we ",
)
_THIRD_PERSON_ES = re.compile(r"(?:ss|sh|ch|x|z)es$")


def as_question(summary: str, opening: str) -> str:
    """A doc summary asked as a question: `Returns the name.` with `where do we ` -> `where do we return the name`."""
    words = summary.rstrip(" .").split(" ")
    first = words[0].lower()
    if _THIRD_PERSON_ES.search(first):
        first = first[:-2]
    elif first.endswith("s") and not first.endswith("ss"):
        first = first[:-1]
    return opening + " ".join([first, *words[1:]])


def pair_text(question: str, snippet: str) -> str:
    """The one sequence the cross-encoder reads (the tokenizer keeps `[SEP]` as its special token)."""
    return f"{question} [SEP] {snippet}"


def asked(query: str, seed: int, key: str) -> str:
    """The query as trained: a seeded half of them rewritten as questions."""
    chooser = random.Random(f"question:{seed}:{key}")
    if chooser.random() >= QUESTION_SHARE:
        return query
    return as_question(query, chooser.choice(QUESTION_OPENINGS))


def lexical_rank(ranked: list[int], gold: int, shortlist: list[int]) -> int:
    """The gold's 1-based rank among itself and its shortlist in the BM25 order (last when BM25 missed it)."""
    if gold not in ranked:
        return len(shortlist) + 1
    cut = ranked.index(gold)
    return 1 + sum(1 for index in shortlist if ranked.index(index) < cut)


def prepare(out: Path, seed: int) -> dict[str, Any]:
    """Build (or reuse) `out/data.json`: packages, snippets, and per query its gold and BM25 shortlist."""
    path = out / "data.json"
    if (data := biencoder.reusable_data(path, seed, DATA_VERSION)) is not None:
        return data
    by_package, _, held_out = biencoder.training_queries(seed)
    packages: dict[str, Any] = {}
    queries: list[dict[str, Any]] = []
    for name in sorted(by_package):
        ranked = biencoder.rank_package(name, by_package[name], depth=64)
        for row, gold, order in ranked.found:
            shortlist = biencoder.hard_negatives(order, gold, ranked.spans, ranked.texts, SHORTLIST)
            queries.append(
                {
                    "package": name,
                    "query": row["query"],
                    "gold": gold,
                    "shortlist": shortlist,
                    "lexical_rank": lexical_rank(order, gold, shortlist),
                    "split": "validation" if name in held_out else "train",
                }
            )
        packages[name] = {"snippets": ranked.texts}
        print(f"data: {name}: {len(ranked.snippets)} snippets, {len(by_package[name])} queries", flush=True)
    data = {
        "version": DATA_VERSION,
        "seed": seed,
        "queries_sha256": biencoder.queries_digest(),
        "validation_packages": held_out,
        "packages": packages,
        "queries": queries,
    }
    biencoder.save_data(path, data)
    return data


class CrossEncoder:
    """MiniLM over `pair_text`, pooled as the product pools (mean under the mask, L2), then a linear head."""

    def __init__(self, model_dir: Path) -> None:
        import torch
        from transformers import AutoModel

        self.torch = torch
        self.model = AutoModel.from_pretrained(str(model_dir), attn_implementation="sdpa")
        self.head = torch.nn.Linear(self.model.config.hidden_size, 1)
        self.tokenizer = biencoder.product_encoder().load_tokenizer()

    def logits(self, texts: Sequence[str]) -> Any:
        torch = self.torch
        encodings = self.tokenizer.encode_batch(list(texts))
        ids = torch.tensor([e.ids for e in encodings], dtype=torch.long)
        mask = torch.tensor([e.attention_mask for e in encodings], dtype=torch.long)
        states = self.model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids))[0]
        return self.head(HEAD_SCALE * biencoder.mean_pooled(torch, states, mask)).squeeze(-1)

    def score(self, texts: Sequence[str], batch: int = 32) -> list[float]:
        torch = self.torch
        was_training = self.model.training
        self.model.eval()
        scores: list[float] = []
        with torch.inference_mode():
            for start in range(0, len(texts), batch):
                scores += self.logits(texts[start : start + batch]).tolist()
        self.model.train(was_training)
        return scores

    def save(self, target: Path) -> None:
        self.model.save_pretrained(str(target))
        weight = (HEAD_SCALE * self.head.weight.detach()[0]).tolist()
        head = {"weight": weight, "bias": float(self.head.bias.detach()[0])}
        (target / "head.json").write_text(json.dumps(head))


def candidates(query: dict[str, Any]) -> list[int]:
    """A validation query's candidates: the gold and its BM25 shortlist."""
    return [query["gold"], *query["shortlist"]]


def validate(model: CrossEncoder, data: dict[str, Any]) -> dict[str, Any]:
    """MRR@10 of the validation queries' shortlists re-ranked by the logit, beside the BM25 order's, and how
    well a logit of 0 parts the gold from the rest (the share of each on the right side)."""
    reranked: list[int] = []
    lexical: list[int] = []
    gold_positive = negatives_negative = negatives = 0
    altered_count = altered_below_gold = altered_below_0 = 0
    words = vocabularies(data, str)
    for query in (q for q in data["queries"] if q["split"] == "validation"):
        snippets = data["packages"][query["package"]]["snippets"]
        texts = [pair_text(query["query"], snippets[i]) for i in candidates(query)]
        scores = model.score(texts)
        chooser = random.Random(f"validation:{query['package']}:{query['gold']}")
        near = altered(query["query"], snippets[query["gold"]], words[query["package"]], chooser)
        if near is not None:
            (near_score,) = model.score([pair_text(near, snippets[query["gold"]])])
            altered_count += 1
            altered_below_gold += near_score < scores[0]
            altered_below_0 += near_score <= 0
        reranked.append(biencoder.first_rank(scores, 0))
        lexical.append(query["lexical_rank"])
        gold_positive += scores[0] > 0
        negatives += len(scores) - 1
        negatives_negative += sum(s <= 0 for s in scores[1:])
    count = max(1, len(reranked))
    return {
        "reranked": biencoder.ranking_figures(reranked),
        "bm25": biencoder.ranking_figures(lexical),
        "gold_above_0": round(gold_positive / count, 4),
        "negatives_below_0": round(negatives_negative / max(1, negatives), 4),
        "altered_below_gold": round(altered_below_gold / max(1, altered_count), 4),
        "altered_below_0": round(altered_below_0 / max(1, altered_count), 4),
    }


def batches(data: dict[str, Any], train: list[dict[str, Any]], epoch: int, args: argparse.Namespace):
    """The epoch's batches of `args.batch` queries as (pair text, label): per query its gold, `args.hard` BM25
    and `args.random` random negatives and, with `args.altered`, its gold asked with one word changed; all
    seeded by `args.seed`."""
    seed, size = args.seed, args.batch
    words = vocabularies(data, str)
    order = biencoder.epoch_order(len(train), seed, epoch)
    for start in range(0, len(order), size):
        texts: list[str] = []
        labels: list[float] = []
        for position in order[start : start + size]:
            query = train[position]
            snippets = data["packages"][query["package"]]["snippets"]
            key = f"{query['package']}:{query['gold']}"
            question = asked(query["query"], seed, key)
            chooser = random.Random(f"negatives:{seed}:{epoch}:{key}")
            hard = chooser.sample(query["shortlist"], min(args.hard, len(query["shortlist"])))
            taken = {query["gold"], *query["shortlist"]}
            pool = [i for i in range(len(snippets)) if i not in taken]
            easy = chooser.sample(pool, min(args.random, len(pool)))
            texts.append(pair_text(question, snippets[query["gold"]]))
            labels.append(1.0)
            for index in [*hard, *easy]:
                texts.append(pair_text(question, snippets[index]))
                labels.append(0.0)
            if args.altered:
                near = altered(question, snippets[query["gold"]], words[query["package"]], chooser)
                if near is not None:
                    texts.append(pair_text(near, snippets[query["gold"]]))
                    labels.append(0.0)
        yield texts, labels


def train(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(biencoder.THREADS)
    torch.set_num_interop_threads(1)
    torch.manual_seed(args.seed)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    data = prepare(out, args.seed)
    train_queries = [q for q in data["queries"] if q["split"] == "train"]
    if args.limit:
        train_queries = random.Random(f"limit:{args.seed}").sample(train_queries, min(args.limit, len(train_queries)))
    model = CrossEncoder(args.start or biencoder.base_model_dir())
    model.model.embeddings.word_embeddings.weight.requires_grad_(False)
    encoder_parameters = [p for p in model.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        [
            {"params": encoder_parameters, "lr": args.lr},
            {"params": list(model.head.parameters()), "lr": HEAD_LEARNING_RATE},
        ],
        weight_decay=biencoder.WEIGHT_DECAY,
    )
    steps_per_epoch = math.ceil(len(train_queries) / args.batch)
    total = steps_per_epoch * args.epochs
    warmup = max(1, int(biencoder.WARMUP * total))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: biencoder.linear_schedule(s, total, warmup))
    if (out / "log.jsonl").exists():
        (out / "log.jsonl").unlink()
    biencoder.log(out, {"event": "start", "config": config(args, len(train_queries)), "steps": total})
    history: list[dict[str, Any]] = []
    trained = 0.0
    for epoch in range(args.epochs):
        progress = biencoder.ProgressLog(out)
        model.model.train()
        for step, (texts, labels) in enumerate(batches(data, train_queries, epoch, args), 1):
            started = time.monotonic()
            loss = torch.nn.functional.binary_cross_entropy_with_logits(model.logits(texts), torch.tensor(labels))
            biencoder.apply_gradients(torch, loss, encoder_parameters, optimizer, scheduler)
            now = time.monotonic()
            trained += now - started
            progress.step(now, len(texts), float(loss.detach()), epoch=epoch + 1, step=step, of=steps_per_epoch)
        target = out / f"epoch-{epoch + 1}"
        model.save(target)
        figures = validate(model, data)
        history.append({"epoch": epoch + 1, "validation": figures})
        biencoder.log(out, {"event": "validation", "epoch": epoch + 1, "trained_seconds": round(trained), **figures})
        best = max(history, key=lambda h: (h["validation"]["reranked"]["mrr@10"], -h["epoch"]))
        (out / "best.json").write_text(json.dumps({"epoch": best["epoch"], "validation": best["validation"]}))
    biencoder.log(out, {"event": "done", "trained_seconds": round(trained)})
    return 0


def config(args: argparse.Namespace, train_count: int) -> dict[str, Any]:
    """What fixes a run's result: the shared schedule and this trainer's own settings."""
    return {
        **biencoder.schedule(args, train_count),
        "head_lr": HEAD_LEARNING_RATE,
        "hard_negatives": args.hard,
        "random_negatives": args.random,
        "question_share": QUESTION_SHARE,
        "head_scale": HEAD_SCALE,
        "frozen": "word_embeddings",
        "altered": args.altered,
        "start": str(args.start or "base"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train.crossencoder", description=__doc__.split("\n")[0])
    biencoder.training_arguments(parser, epochs=EPOCHS, batch=BATCH, lr=LEARNING_RATE)
    parser.add_argument("--hard", type=int, default=HARD_NEGATIVES, help="BM25 negatives per query")
    parser.add_argument("--random", type=int, default=RANDOM_NEGATIVES, help="random negatives per query")
    parser.add_argument("--altered", action="store_true", help="add each query's altered question (a near miss)")
    parser.add_argument("--start", type=Path, help="the encoder to start from (a BertModel folder; base MiniLM)")
    args = parser.parse_args(argv)
    biencoder.use_project_modules()
    return train(args)


if __name__ == "__main__":
    sys.exit(main())
