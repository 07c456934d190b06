"""Rewrite the exported MiniLM graph's attention blocks and GELUs into ONNX Runtime's fused kernels.

The pinned file's attention is exported as some twenty small ops per layer (reshapes, transposes, a float mask
built with `Where`, a NaN guard after the softmax), and its GELU as the exact `x * 0.5 * (1 + erf(x / sqrt 2))`.
`fuse` replaces each attention block with one `com.microsoft` `Attention` node (the query, key and value
projections packed into one matrix; quantized later as `QAttention`) and each GELU with `FastGelu` plus its bias
(the tanh form: 3% faster at the same agreement). ONNX Runtime's own `transformers.optimizer` cannot do this
here: it needs `sympy`, and it does not recognize this export's attention pattern.

The rewrite is strict: unless it finds exactly one attention block and one GELU per layer in the shape of the
pinned export, it raises `FusionMismatch` and leaves the graph untouched, and `quantize.requantize` goes on without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from onnx import ModelProto, NodeProto, TensorProto

HEADS = 12
HIDDEN = 384
MICROSOFT = "com.microsoft"


class FusionMismatch(ValueError):
    """The folded graph is not shaped as the rewrite expects; nothing was changed."""


def fuse(model: ModelProto) -> None:
    """Rewrite, in place, every attention block into `Attention` and every exact GELU into `FastGelu`.

    Raises `FusionMismatch`, with `model` untouched, unless it finds exactly one attention block and one
    GELU per layer in the shape the pinned file's export has.
    """
    import onnx
    from onnx import helper, numpy_helper

    graph = _Graph(model)
    if "attention_mask" not in {tensor.name for tensor in model.graph.input}:
        raise FusionMismatch("no attention_mask input")
    mask = "attention_mask_int32"
    new = [helper.make_node("Cast", ["attention_mask"], [mask], "attention_mask_to_int32", to=onnx.TensorProto.INT32)]
    initializers: list[TensorProto] = []
    for softmax in graph.nodes("Softmax"):
        x, weight, bias, output = _attention(graph, softmax)
        name = softmax.name or output
        initializers += [
            numpy_helper.from_array(weight, f"{name}_qkv_weight"),
            numpy_helper.from_array(bias, f"{name}_qkv_bias"),
        ]
        inputs = [x, initializers[-2].name, initializers[-1].name, mask]
        new.append(
            helper.make_node("Attention", inputs, [output], f"{name}_attention", domain=MICROSOFT, num_heads=HEADS)
        )
    attention = len(new) - 1
    for erf in graph.nodes("Erf"):
        x, bias, output = _gelu(graph, erf)
        new.append(helper.make_node("FastGelu", [x, bias], [output], f"{erf.name or output}_gelu", domain=MICROSOFT))
    layers = len(new) - 1 - attention
    if attention == 0 or attention != layers:
        raise FusionMismatch(f"{attention} attention blocks and {layers} GELUs")
    graph.replace(new, initializers)
    if not any(opset.domain == MICROSOFT for opset in model.opset_import):
        model.opset_import.append(helper.make_opsetid(MICROSOFT, 1))


class _Graph:
    """Who produces and who consumes each tensor of a graph, its constants, and in-place rewriting."""

    def __init__(self, model: ModelProto) -> None:
        from onnx import numpy_helper

        self.graph = model.graph
        self.producer = {name: node for node in self.graph.node for name in node.output}
        self.consumers: dict[str, list[NodeProto]] = {}
        for node in self.graph.node:
            for name in node.input:
                self.consumers.setdefault(name, []).append(node)
        self.constants = {tensor.name: tensor for tensor in self.graph.initializer}
        self._to_array = numpy_helper.to_array

    def nodes(self, op_type: str) -> list[NodeProto]:
        return [node for node in self.graph.node if node.op_type == op_type]

    def constant(self, name: str) -> np.ndarray | None:
        tensor = self.constants.get(name)
        return None if tensor is None else self._to_array(tensor)

    def made_by(self, name: str, *op_types: str) -> NodeProto:
        node = self.producer.get(name)
        if node is None or node.op_type not in op_types:
            raise FusionMismatch(f"{name} is not made by {'/'.join(op_types)}")
        return node

    def only_consumer(self, name: str, *op_types: str) -> NodeProto:
        found = [node for node in self.consumers.get(name, []) if node.op_type in op_types]
        if len(found) != 1:
            raise FusionMismatch(f"{name} has {len(found)} {'/'.join(op_types)} consumers")
        return found[0]

    def is_scalar(self, name: str, value: float) -> bool:
        import numpy as np

        array = self.constant(name)
        return array is not None and array.size == 1 and bool(np.isclose(array.item(), value, rtol=1e-5))

    def replace(self, new: list[NodeProto], initializers: list[TensorProto]) -> None:
        """Add `new` nodes (they take over their outputs' old producers), drop what is dead, sort topologically."""
        taken = {name for node in new for name in node.output}
        nodes = [node for node in self.graph.node if not taken.intersection(node.output)] + new
        producer = {name: index for index, node in enumerate(nodes) for name in node.output}
        live: set[int] = set()
        stack = [output.name for output in self.graph.output]
        while stack:
            index = producer.get(stack.pop())
            if index is not None and index not in live:
                live.add(index)
                stack.extend(name for name in nodes[index].input if name)
        nodes = [node for index, node in enumerate(nodes) if index in live]
        used = {name for node in nodes for name in node.input}
        constants = [tensor for tensor in [*self.graph.initializer, *initializers] if tensor.name in used]
        ordered = _topological(nodes, {tensor.name for tensor in [*self.graph.input, *constants]})
        del self.graph.initializer[:]
        self.graph.initializer.extend(constants)
        del self.graph.node[:]
        self.graph.node.extend(ordered)


def _topological(nodes: list[NodeProto], available: set[str]) -> list[NodeProto]:
    """`nodes` ordered so each comes after the producers of its inputs (original order kept where possible)."""
    ready, done, pending = set(available) | {""}, [], list(nodes)
    while pending:
        waiting = []
        for node in pending:
            if all(name in ready for name in node.input):
                done.append(node)
                ready.update(node.output)
            else:
                waiting.append(node)
        if len(waiting) == len(pending):
            raise FusionMismatch("the rewritten graph has a cycle or a missing input")
        pending = waiting
    return done


def _attention(graph: _Graph, softmax: NodeProto) -> tuple[str, np.ndarray, np.ndarray, str]:
    """The input, packed QKV weight and bias, and output of the attention block around `softmax`."""
    import numpy as np

    masked = graph.made_by(softmax.input[0], "Add")
    products = [graph.producer[name] for name in masked.input if _op(graph.producer.get(name)) == "MatMul"]
    if len(products) != 1:
        raise FusionMismatch(f"{softmax.name}: no single query-key product before the softmax")
    scores = products[0]
    query, key = (_projection(graph, name) for name in scores.input)
    probabilities = softmax.output[0]
    guard = [node for node in graph.consumers.get(probabilities, []) if node.op_type == "IsNaN"]
    if guard:  # the export zeroes fully masked rows: Where(IsNaN(p), 0, p)
        probabilities = graph.only_consumer(guard[0].output[0], "Where").output[0]
    mixed = graph.only_consumer(probabilities, "MatMul")
    if mixed.input[0] != probabilities:
        raise FusionMismatch(f"{softmax.name}: probabilities are not the left operand of the value product")
    value = _projection(graph, mixed.input[1], scaled=False)
    heads_back = graph.only_consumer(mixed.output[0], "Transpose")
    merged = graph.only_consumer(heads_back.output[0], "Reshape")
    if not query[0] == key[0] == value[0]:
        raise FusionMismatch(f"{softmax.name}: query, key and value do not read the same input")
    weight = np.concatenate([query[1], key[1], value[1]], axis=1)
    bias = np.concatenate([query[2], key[2], value[2]])
    if weight.shape != (HIDDEN, 3 * HIDDEN) or bias.shape != (3 * HIDDEN,):
        raise FusionMismatch(f"{softmax.name}: projections of shape {weight.shape}, {bias.shape}")
    return query[0], weight, bias, merged.output[0]


def _projection(graph: _Graph, name: str, *, scaled: bool = True) -> tuple[str, np.ndarray, np.ndarray]:
    """Follow a head split (Reshape, Transpose, the export's 1/sqrt(sqrt(head size)) Mul) back to x @ W + b."""
    node = graph.made_by(name, "Mul", "Transpose", "Reshape")
    seen_scale = False
    while node.op_type in ("Mul", "Transpose", "Reshape"):
        if node.op_type == "Mul":
            if not graph.is_scalar(node.input[1], (HIDDEN // HEADS) ** -0.25) or seen_scale:
                raise FusionMismatch(f"{node.name}: not the export's query/key scale")
            seen_scale = True
        node = graph.made_by(node.input[0], "Mul", "Transpose", "Reshape", "Add")
    if seen_scale != scaled:
        raise FusionMismatch(f"{name}: scale {'missing' if scaled else 'unexpected'}")
    product = graph.made_by(node.input[0], "MatMul")
    weight, bias = graph.constant(product.input[1]), graph.constant(node.input[1])
    if weight is None or bias is None:
        raise FusionMismatch(f"{node.name}: projection without constant weight and bias")
    return product.input[0], weight, bias


def _gelu(graph: _Graph, erf: NodeProto) -> tuple[str, str, str]:
    """The pre-bias input, bias and output of `x * (0.5 * (erf(x / sqrt 2) + 1))` where x = y + bias."""
    divide = graph.made_by(erf.input[0], "Div")
    plus_one = graph.only_consumer(erf.output[0], "Add")
    half = graph.only_consumer(plus_one.output[0], "Mul")
    product = graph.only_consumer(half.output[0], "Mul")
    x = divide.input[0]
    if not (
        graph.is_scalar(divide.input[1], 2**0.5)
        and graph.is_scalar(_other(plus_one, erf.output[0]), 1.0)
        and graph.is_scalar(_other(half, plus_one.output[0]), 0.5)
        and _other(product, half.output[0]) == x
    ):
        raise FusionMismatch(f"{erf.name}: not an exact GELU")
    biased = graph.made_by(x, "Add")
    if graph.constant(biased.input[1]) is None:
        raise FusionMismatch(f"{erf.name}: GELU input without a constant bias")
    return biased.input[0], biased.input[1], product.output[0]


def _op(node: NodeProto | None) -> str | None:
    return None if node is None else node.op_type


def _other(node: NodeProto, name: str) -> str:
    """The input of a binary `node` that is not `name`."""
    first, second = node.input
    return second if first == name else first
