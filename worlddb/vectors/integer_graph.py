"""The embedding model's graph, rewritten to run its products in integer arithmetic.

The model package ships all-MiniLM-L6-v2 with int8 weights and a float scale per output
column; its graph casts each weight to float32 and scales it, so all 36 weight products of
the six layers run as fp32 GEMMs, the bulk of a run's time. `rewrite` runs each of them as
integer GEMMs on the same int8 weights instead, which the CPU does several times faster
(VNNI), and without changing the vectors:

- The weights are used exactly as shipped: they are integers already.
- The activation A entering a product is written as two 8-bit digits: a high digit
  (`DynamicQuantizeLinear`: u8 with a scale s and zero point chosen from A's range) and a
  low digit, the remainder A - dequantize(high) quantized with scale s / 255 around 128. So A
  is represented to about 16 bits, where one digit (ordinary dynamic quantization) gives 8
  and moves vectors to cosine 0.95-0.99 of today's.
- Each digit is one u8 x s8 GEMM accumulated in int32 and scaled to float
  (`com.microsoft.MatMulIntegerToFloat`, the bias added with the high digit's); the two are
  added. Products that share an input (a layer's query, key and value) share its digits and
  run as one GEMM, split after.
- Each layer's attention, exported as some twenty small operators, becomes one
  `com.microsoft.MultiHeadAttention` over the same query, key and value (the attention mask
  as its key padding mask), and the erf GELU chain one `com.microsoft.Gelu` (the same erf
  formula). These change no arithmetic that matters (cosine >= 0.9999999 alone) and save the
  per-operator overhead a short text pays.

Measured against the fp32 graph on 4,000 LoCoMo dev texts (worst cosine 0.9999994; one text
per call, multi-window texts, pooled spans and odd strings all >= 0.9999995): 1.46x the
tokens per CPU-second in batches and 1.8x the speed for one short text alone
(`python -m bench.embed`; docs/performance.md). tests/vectors/test_embedder.py holds the
vectors to cosine >= 0.9999 of those recorded from the fp32 graph and >= 0.99999 of the fp32
graph's own. Used only where the CPU multiplies u8 by s8 exactly
(worlddb.vectors.embedder.integer_products_exact), and only once it reproduces the recorded
fp32 vectors of the embedder's canary texts.

The rewrite reads the graph by its structure and the pinned model's tensor names; on a graph
it does not recognise (another model file) it returns None and the caller runs the graph as
it is. It needs the `onnx` package, imported only here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

__all__ = ["rewrite"]

#: all-MiniLM-L6-v2: 6 layers, hidden 384 in 12 heads of 32
LAYERS = 6
HEADS = 12
#: the bias of each weight product, by what the product is (layer number in the middle)
_BIAS = re.compile(r"^inner\.encoder\.layer\.(\d+)\.(attention\.self\.(query|key|value)|attention\.output\.dense"
                   r"|intermediate\.dense|output\.dense)\.bias$")


@dataclass
class _Product:
    """One weight product A x W + b of the exported graph."""

    layer: int
    kind: str  # query, key, value, attention_out, ffn_in, ffn_out
    source: str  # A
    output: str  # the bias Add's output
    weight: np.ndarray  # int8, (in, out)
    scale: np.ndarray  # float32, (out,)
    bias: np.ndarray  # float32, (out,)
    nodes: tuple  # the MatMul, Mul, Cast and Add it replaces


def rewrite(model_bytes: bytes) -> bytes | None:
    """The model's graph with integer products, fused attention and GELU (see the module
    docstring), serialised; None when the graph is not the one this rewrite knows."""
    import onnx

    model = onnx.load_from_string(model_bytes)
    graph = model.graph
    products = _products(graph)
    if products is None:
        return None
    _fuse_attention_and_gelu(graph, products)
    for group in _by_source(products):
        _integer_product(graph, group)
    _prune(graph)
    _sort(graph)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(onnx.helper.make_opsetid("com.microsoft", 1))
    return model.SerializeToString()


def _products(graph) -> list[_Product] | None:
    from onnx import numpy_helper

    inits = {i.name: i for i in graph.initializer}
    made_by = {o: n for n in graph.node for o in n.output}
    used_by: dict[str, list] = {}
    for n in graph.node:
        for i in n.input:
            used_by.setdefault(i, []).append(n)
    kinds = {"query": "query", "key": "key", "value": "value", "attention.output.dense": "attention_out",
             "intermediate.dense": "ffn_in", "output.dense": "ffn_out"}
    found = []
    for node in graph.node:
        if node.op_type != "MatMul":
            continue
        adds = used_by.get(node.output[0], [])
        mul = made_by.get(node.input[1])
        if len(adds) != 1 or adds[0].op_type != "Add" or mul is None or mul.op_type != "Mul":
            continue
        add = adds[0]
        bias = next((i for i in add.input if i in inits), None)
        match = _BIAS.match(bias or "")
        cast = next((made_by.get(i) for i in mul.input if made_by.get(i) is not None), None)
        scale = next((i for i in mul.input if i in inits), None)
        if match is None or cast is None or cast.op_type != "Cast" or scale is None or cast.input[0] not in inits:
            continue
        weight = numpy_helper.to_array(inits[cast.input[0]])
        if weight.dtype != np.int8 or weight.ndim != 2:
            continue
        columns = weight.shape[1]
        scales = numpy_helper.to_array(inits[scale]).astype(np.float32).reshape(-1)
        scales = np.broadcast_to(scales, (columns,)).copy() if scales.size in (1, columns) else None
        if scales is None:
            continue
        what = match.group(3) or re.sub(r"^attention\.self\.", "", match.group(2))
        found.append(_Product(layer=int(match.group(1)), kind=kinds[what], source=node.input[0], output=add.output[0],
                              weight=weight, scale=scales,
                              bias=numpy_helper.to_array(inits[bias]).astype(np.float32).reshape(-1),
                              nodes=(node, mul, cast, add)))
    layers = {p.layer for p in found}
    if len(found) != 6 * LAYERS or layers != set(range(LAYERS)) or any(
            sorted(p.kind for p in found if p.layer == k) != sorted(kinds.values()) for k in layers):
        return None
    return found


def _by_source(products: list[_Product]) -> list[list[_Product]]:
    groups: dict[str, list[_Product]] = {}
    for p in products:
        groups.setdefault(p.source, []).append(p)
    return list(groups.values())


def _fuse_attention_and_gelu(graph, products: list[_Product]) -> None:
    """Each layer's attention becomes one MultiHeadAttention producing the tensor the
    attention's output product reads, and its GELU one Gelu producing the tensor the
    feed-forward's second product reads; the operators they replace lose their consumers
    and are pruned."""
    from onnx import TensorProto, helper

    made_by = {o: n for n in graph.node for o in n.output}
    mask = "worlddb_mask_int32"
    new = [helper.make_node("Cast", ["attention_mask"], [mask], to=TensorProto.INT32, name="worlddb_mask")]
    for layer in range(LAYERS):
        mine = {p.kind: p for p in products if p.layer == layer}
        context, activated = mine["attention_out"].source, mine["ffn_out"].source
        for tensor in (context, activated):
            producer = made_by[tensor]
            producer.output[list(producer.output).index(tensor)] = f"{tensor}_replaced"
        new.append(helper.make_node(
            "MultiHeadAttention", [mine["query"].output, mine["key"].output, mine["value"].output, "", mask],
            [context], domain="com.microsoft", num_heads=HEADS, name=f"worlddb_attention_{layer}"))
        new.append(helper.make_node("Gelu", [mine["ffn_in"].output], [activated], domain="com.microsoft",
                                    name=f"worlddb_gelu_{layer}"))
    graph.node.extend(new)


def _integer_product(graph, group: list[_Product]) -> None:
    """The products of one source, as two integer GEMMs on its two digits (module docstring)."""
    from onnx import helper, numpy_helper

    a, name = group[0].source, f"worlddb_product_{group[0].layer}_{group[0].kind}"
    weight = np.concatenate([p.weight for p in group], axis=1)
    graph.initializer.extend([
        numpy_helper.from_array(weight, f"{name}_w"),
        numpy_helper.from_array(np.concatenate([p.scale for p in group]), f"{name}_ws"),
        numpy_helper.from_array(np.concatenate([p.bias for p in group]), f"{name}_b"),
        numpy_helper.from_array(np.array(1.0 / 255.0, np.float32), f"{name}_fraction"),
        numpy_helper.from_array(np.array(128, np.uint8), f"{name}_middle"),
    ])
    out = group[0].output if len(group) == 1 else f"{name}_y"
    nodes = [
        helper.make_node("DynamicQuantizeLinear", [a], [f"{name}_hi", f"{name}_s", f"{name}_zp"]),
        helper.make_node("MatMulIntegerToFloat", [f"{name}_hi", f"{name}_w", f"{name}_s", f"{name}_ws",
                                                  f"{name}_zp", "", f"{name}_b"], [f"{name}_y_hi"],
                         domain="com.microsoft"),
        helper.make_node("DequantizeLinear", [f"{name}_hi", f"{name}_s", f"{name}_zp"], [f"{name}_a_hi"]),
        helper.make_node("Sub", [a, f"{name}_a_hi"], [f"{name}_rest"]),
        helper.make_node("Mul", [f"{name}_s", f"{name}_fraction"], [f"{name}_s_lo"]),
        helper.make_node("QuantizeLinear", [f"{name}_rest", f"{name}_s_lo", f"{name}_middle"], [f"{name}_lo"]),
        helper.make_node("MatMulIntegerToFloat", [f"{name}_lo", f"{name}_w", f"{name}_s_lo", f"{name}_ws",
                                                  f"{name}_middle"], [f"{name}_y_lo"], domain="com.microsoft"),
        helper.make_node("Add", [f"{name}_y_hi", f"{name}_y_lo"], [out]),
    ]
    if len(group) > 1:
        sizes = np.array([p.weight.shape[1] for p in group], np.int64)
        graph.initializer.append(numpy_helper.from_array(sizes, f"{name}_sizes"))
        nodes.append(helper.make_node("Split", [out, f"{name}_sizes"], [p.output for p in group], axis=-1))
    for k, node in enumerate(nodes):
        node.name = f"{name}_{k}"
    for p in group:
        for node in p.nodes:
            if node in graph.node:
                graph.node.remove(node)
    graph.node.extend(nodes)


def _prune(graph) -> None:
    """Drop operators whose outputs nothing reads, then initializers nothing reads."""
    outputs = {o.name for o in graph.output}
    while True:
        read = {i for n in graph.node for i in n.input} | outputs
        dead = [n for n in graph.node if not any(o in read for o in n.output)]
        if not dead:
            break
        for n in dead:
            graph.node.remove(n)
    read = {i for n in graph.node for i in n.input}
    kept = [i for i in graph.initializer if i.name in read]
    del graph.initializer[:]
    graph.initializer.extend(kept)


def _sort(graph) -> None:
    """Operators in an order where each comes after what it reads (ONNX requires it)."""
    ready = {i.name for i in graph.input} | {i.name for i in graph.initializer} | {""}
    order, waiting = [], list(graph.node)
    while waiting:
        still = []
        for node in waiting:
            if all(i in ready for i in node.input):
                order.append(node)
                ready.update(node.output)
            else:
                still.append(node)
        if len(still) == len(waiting):
            raise ValueError("the rewritten graph has a cycle")
        waiting = still
    del graph.node[:]
    graph.node.extend(order)
