"""A BERT-base-sized transformer encoder as ONNX, with a NumPy and a PyTorch
reference of the same function (used by cpu_models.py and gpu_models.py).

The graph is written with onnx.helper in the form torch.onnx.export writes
an eval-mode BERT encoder at opset 17 (no dropout): per layer

    q, k, v = x @ Wq + bq, x @ Wk + bk, x @ Wv + bv        MatMul, Add
    heads: Reshape (b, s, h, d), Transpose (0, 2, 1, 3)     (k: (0, 2, 3, 1))
    p = Softmax((q @ k^T) / sqrt(d) + mask)                 MatMul, Div, Add, Softmax
    a = Reshape(Transpose(p @ v)) @ Wo + bo                 MatMul, Transpose, Reshape, MatMul, Add
    x = LayerNormalization(x + a)
    f = gelu(x @ W1 + b1) @ W2 + b2                         gelu as Div, Erf, Add, Mul, Mul
    x = LayerNormalization(x + f)

with an additive attention mask input of shape (batch, 1, 1, seq) (zeros:
no padding; the values are the caller's). Random weights from a fixed seed
(normal, std 0.02 as BERT initializes them; LayerNorm scale 1 + noise).
"""
import numpy as np

LAYERS, HIDDEN, HEADS, FFN, SEQ = 12, 768, 12, 3072, 128


def parameters(layers=LAYERS, hidden=HIDDEN, ffn=FFN):
    """(name, shape) of every weight, in the graph's input order."""
    out = []
    for i in range(layers):
        p = "l%d." % i
        for n in ("q", "k", "v", "o"):
            out += [(p + n + ".w", (hidden, hidden)), (p + n + ".b", (hidden,))]
        out += [(p + "ln1.g", (hidden,)), (p + "ln1.b", (hidden,))]
        out += [(p + "ff1.w", (hidden, ffn)), (p + "ff1.b", (ffn,))]
        out += [(p + "ff2.w", (ffn, hidden)), (p + "ff2.b", (hidden,))]
        out += [(p + "ln2.g", (hidden,)), (p + "ln2.b", (hidden,))]
    return out


def weights(params, seed=0):
    """Float32 arrays for `params`."""
    rng = np.random.default_rng(seed)
    out = []
    for name, shape in params:
        if name.endswith(".g"):
            a = 1.0 + 0.02 * rng.standard_normal(shape)
        else:
            a = 0.02 * rng.standard_normal(shape)
        out.append(a.astype(np.float32))
    return out


def build_onnx(batch, seq=SEQ, layers=LAYERS, hidden=HIDDEN, heads=HEADS, ffn=FFN,
               dtype="f32", initializers=None):
    """The encoder as an onnx.ModelProto. Inputs: `x` (batch, seq, hidden),
    `mask` (batch, 1, 1, seq), then every weight of parameters() unless
    `initializers` (a list of arrays in that order) embeds them."""
    from onnx import TensorProto, helper, numpy_helper
    elem = {"f32": TensorProto.FLOAT, "bf16": TensorProto.BFLOAT16,
            "f16": TensorProto.FLOAT16}[dtype]
    params = parameters(layers, hidden, ffn)
    d = hidden // heads
    inputs = [helper.make_tensor_value_info("x", elem, [batch, seq, hidden]),
              helper.make_tensor_value_info("mask", elem, [batch, 1, 1, seq])]
    inits = []
    if initializers is None:
        inputs += [helper.make_tensor_value_info(n, elem, list(s)) for n, s in params]
    else:
        inits = [numpy_helper.from_array(a, n) for (n, _), a in zip(params, initializers)]

    def const(name, values, t=TensorProto.INT64):
        inits.append(helper.make_tensor(name, t, [len(values)], values))
        return name

    const("heads_shape", [batch, seq, heads, d])
    const("merge_shape", [batch, seq, hidden])
    scalar = lambda name, v: inits.append(helper.make_tensor(name, elem, [], [v])) or name
    scalar("sqrt_d", float(np.sqrt(d)))
    scalar("sqrt_2", float(np.sqrt(2.0)))
    scalar("one", 1.0)
    scalar("half", 0.5)
    nodes = []
    counter = [0]

    def node(op, ins, **attrs):
        counter[0] += 1
        out = "/%s_%d/output_0" % (op, counter[0])
        nodes.append(helper.make_node(op, ins, [out], name="/%s_%d" % (op, counter[0]),
                                      **attrs))
        return out

    def linear(x, p):
        return node("Add", [node("MatMul", [x, p + ".w"]), p + ".b"])

    def split_heads(x, perm):
        return node("Transpose", [node("Reshape", [x, "heads_shape"])], perm=perm)

    x = "x"
    for i in range(layers):
        p = "l%d." % i
        q = split_heads(linear(x, p + "q"), [0, 2, 1, 3])
        k = split_heads(linear(x, p + "k"), [0, 2, 3, 1])
        v = split_heads(linear(x, p + "v"), [0, 2, 1, 3])
        s = node("Add", [node("Div", [node("MatMul", [q, k]), "sqrt_d"]), "mask"])
        a = node("MatMul", [node("Softmax", [s], axis=-1), v])
        a = node("Reshape", [node("Transpose", [a], perm=[0, 2, 1, 3]), "merge_shape"])
        x = node("LayerNormalization", [node("Add", [x, linear(a, p + "o")]),
                                         p + "ln1.g", p + "ln1.b"], axis=-1, epsilon=1e-12)
        h = linear(x, p + "ff1")
        erf = node("Erf", [node("Div", [h, "sqrt_2"])])
        h = node("Mul", [node("Mul", [h, node("Add", [erf, "one"])]), "half"])
        x = node("LayerNormalization", [node("Add", [x, linear(h, p + "ff2")]),
                                         p + "ln2.g", p + "ln2.b"], axis=-1, epsilon=1e-12)
    nodes.append(helper.make_node("Identity", [x], ["y"], name="/output"))
    out = helper.make_tensor_value_info("y", elem, [batch, seq, hidden])
    graph = helper.make_graph(nodes, "bert_encoder", inputs, [out], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                             producer_name="tide-bench")


def numpy_reference(x, mask, ws, layers=LAYERS, heads=HEADS):
    """The encoder in float64 NumPy."""
    from math import erf
    erf = np.vectorize(erf)
    p = [w.astype(np.float64) for w in ws]
    x = x.astype(np.float64)
    b, s, hd = x.shape
    d = hd // heads

    def ln(v, g, beta):
        mu = v.mean(-1, keepdims=True)
        var = ((v - mu) ** 2).mean(-1, keepdims=True)
        return (v - mu) / np.sqrt(var + 1e-12) * g + beta

    for i in range(layers):
        (qw, qb, kw, kb, vw, vb, ow, ob, g1, b1, f1w, f1b, f2w, f2b, g2, b2) = p[16 * i:16 * i + 16]
        q = (x @ qw + qb).reshape(b, s, heads, d).transpose(0, 2, 1, 3)
        k = (x @ kw + kb).reshape(b, s, heads, d).transpose(0, 2, 3, 1)
        v = (x @ vw + vb).reshape(b, s, heads, d).transpose(0, 2, 1, 3)
        sc = (q @ k) / np.sqrt(d) + mask
        sc = np.exp(sc - sc.max(-1, keepdims=True))
        a = (sc / sc.sum(-1, keepdims=True)) @ v
        a = a.transpose(0, 2, 1, 3).reshape(b, s, hd)
        x = ln(x + a @ ow + ob, g1, b1)
        h = x @ f1w + f1b
        h = h * (1 + erf(h / np.sqrt(2))) * 0.5
        x = ln(x + h @ f2w + f2b, g2, b2)
    return x


def torch_forward(layers=LAYERS, heads=HEADS):
    """The encoder with torch.nn.functional: forward(x, mask, *weights)."""
    import torch
    import torch.nn.functional as F

    def forward(x, mask, *ws):
        b, s, hd = x.shape
        d = hd // heads
        for i in range(layers):
            (qw, qb, kw, kb, vw, vb, ow, ob, g1, b1, f1w, f1b, f2w, f2b, g2, b2) = ws[16 * i:16 * i + 16]
            q = (x @ qw + qb).view(b, s, heads, d).transpose(1, 2)
            k = (x @ kw + kb).view(b, s, heads, d).transpose(1, 2)
            v = (x @ vw + vb).view(b, s, heads, d).transpose(1, 2)
            p = torch.softmax(q @ k.transpose(-1, -2) / (d ** 0.5) + mask, dim=-1)
            a = (p @ v).transpose(1, 2).reshape(b, s, hd)
            x = F.layer_norm(x + a @ ow + ob, (hd,), g1, b1, eps=1e-12)
            h = F.gelu(x @ f1w + f1b)
            x = F.layer_norm(x + h @ f2w + f2b, (hd,), g2, b2, eps=1e-12)
        return x
    return forward
