"""Fit the local judge's logistic calibration on labeled (docstring summary -> function body) pairs.

Queries are the first sentence of real docstrings from packages installed in the venv; the snippet is the
function with its docstring removed, framed as the judge frames it (`path :: symbol` header, 128 tokens).
Each query has its own function as the positive and, as negatives, the two functions of the same package
whose bodies are nearest to it by cosine (hard negatives) plus one at random. Negatives are weighted 1/3 so
the classes weigh the same: p = 0.5 then means a match and a non-match are equally likely.

Packages are split into a fit half and a held-out half for the reported accuracy and AUC; the constants
written into `calibration.py` are refit on all of them. The pairs are rebuilt from the installed packages
(not committed: it is third-party code); they are written to bench/out/local_judge_pairs.jsonl for inspection.

    .venv/bin/python bench/local_judge/calibrate.py
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import random
import re
import sys
import textwrap
from pathlib import Path

import numpy as np

from smartsearch_ls.embedding.encoder import Embedder, snippet_text
from smartsearch_ls.judge.local.calibration import coverage

SITE = Path(np.__file__).parent.parent
PACKAGES = {
    # import name: distribution name (for the version recorded with the result)
    "click": "click",
    "attr": "attrs",
    "fsspec": "fsspec",
    "pygments": "Pygments",
    "requests": "requests",
    "urllib3": "urllib3",
    "watchdog": "watchdog",
    "yaml": "PyYAML",
    "pygls": "pygls",
    "anyio": "anyio",
    "packaging": "packaging",
    "huggingface_hub": "huggingface_hub",
}
PER_PACKAGE = 60
MAX_LINES = 40
OUT = Path(__file__).parents[2] / "bench" / "out" / "local_judge_pairs.jsonl"


def summary(docstring: str) -> str | None:
    """The docstring's first sentence, if it reads like a description (4 to 25 words, no markup)."""
    first = re.split(r"(?<=[.!?])\s|\n\s*\n", docstring.strip(), maxsplit=1)[0]
    first = " ".join(first.split()).rstrip(".")
    count = len(first.split())
    return first if 4 <= count <= 25 and not re.search(r"[`:>{}]|^\W", first) else None


def functions(package: str) -> list[dict[str, str]]:
    """Documented functions of a package: query from the docstring, code without it."""
    found: list[dict[str, str]] = []
    for path in sorted((SITE / package).rglob("*.py")):
        if "test" in path.parts[-1] or "tests" in path.parts or "vendor" in str(path):
            continue
        source = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines = source.splitlines()
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name.startswith("__"):
                continue
            doc = ast.get_docstring(node)
            query = summary(doc) if doc else None
            if query is None:
                continue
            body = node.body[0]
            code = lines[node.lineno - 1 : body.lineno - 1] + lines[body.end_lineno : node.end_lineno]
            if len(code) < 3:
                continue
            owner = parents.get(node)
            symbol = f"{owner.name}.{node.name}" if isinstance(owner, ast.ClassDef) else node.name
            found.append(
                {
                    "package": package,
                    "query": query,
                    "path": str(path.relative_to(SITE)),
                    "symbol": symbol,
                    "code": textwrap.dedent("\n".join(code[:MAX_LINES])),
                }
            )
    return found


def build(embedder: Embedder, rng: random.Random) -> list[dict[str, object]]:
    """Labeled pairs with their features: cosine and coverage."""
    pairs: list[dict[str, object]] = []
    for package in PACKAGES:
        pool = functions(package)
        rng.shuffle(pool)
        # one query per distinct summary, so near-identical overloads do not label each other negative
        chosen = list({item["query"]: item for item in pool}.values())[:PER_PACKAGE]
        texts = [snippet_text(item["path"], item["symbol"], item["code"]) for item in chosen]
        snippets = embedder.embed_snippets(texts)
        queries = embedder.embed_snippets([item["query"] for item in chosen])
        cosines = queries @ snippets.T
        for i, item in enumerate(chosen):
            ranked = [j for j in np.argsort(-cosines[i]) if j != i]
            negatives = [*ranked[:2], rng.choice(ranked[2:])]
            for j, label in [(i, 1), *((j, 0) for j in negatives)]:
                pairs.append(
                    {
                        "package": package,
                        "query": item["query"],
                        "path": chosen[j]["path"],
                        "symbol": chosen[j]["symbol"],
                        "label": label,
                        "cosine": float(cosines[i, j]),
                        "coverage": coverage(item["query"], texts[j]),
                    }
                )
    return pairs


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, steps: int = 200) -> np.ndarray:
    """Weighted logistic regression by Newton's method; x has a trailing column of ones for the bias."""
    theta = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ theta))
        gradient = x.T @ (weight * (p - y))
        hessian = (x * (weight * p * (1 - p))[:, None]).T @ x + 1e-6 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return theta


def auc(score: np.ndarray, y: np.ndarray) -> float:
    """Probability that a random positive outscores a random negative (ties count half)."""
    pos, neg = score[y == 1], score[y == 0]
    return float(
        ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    )


def evaluate(theta: np.ndarray, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    p = 1 / (1 + np.exp(-x @ theta))
    decided = p >= 0.5
    return {
        "balanced_accuracy": float((decided[y == 1].mean() + (~decided[y == 0]).mean()) / 2),
        "accuracy": float((decided == (y == 1)).mean()),
        "recall": float(decided[y == 1].mean()),
        "false_positive_rate": float(decided[y == 0].mean()),
        "auc": auc(p, y),
    }


def design(pairs: list[dict[str, object]], columns: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.array([[float(pair[c]) for c in columns] + [1.0] for pair in pairs])
    y = np.array([int(pair["label"]) for pair in pairs])
    weight = np.where(y == 1, 1.0, 1 / 3)
    return x, y, weight


def main() -> None:
    rng = random.Random(20261130)
    pairs = build(Embedder.load(), rng)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(pair) + "\n" for pair in pairs))
    packages = list(PACKAGES)
    held_out = set(packages[1::2])
    train = [pair for pair in pairs if pair["package"] not in held_out]
    test = [pair for pair in pairs if pair["package"] in held_out]
    print(f"{len(pairs)} pairs ({sum(int(p['label']) for p in pairs)} positive) from", file=sys.stderr)
    for module, dist in PACKAGES.items():
        print(f"  {module} ({dist} {importlib.metadata.version(dist)})", file=sys.stderr)
    report: dict[str, object] = {}
    for name, columns in {"cosine": ("cosine",), "coverage": ("coverage",), "both": ("cosine", "coverage")}.items():
        theta = fit(*design(train, columns))
        report[name] = {
            "held_out": evaluate(theta, *design(test, columns)[:2]),
            "fit_on_all": [round(float(v), 3) for v in fit(*design(pairs, columns))],
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
