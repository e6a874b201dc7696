#!/usr/bin/env python3
"""Writes the ai.onnx.ml models of ml.test into OUTDIR with their inputs
(NAME_in0.npy; NAME_TAG_in0.npy for other batch sizes), for comparison with
ONNX Runtime: random decision-tree ensembles in the legacy
TreeEnsembleRegressor form (what scikit-learn's converters write: SUM with
base values, AVERAGE, several targets, every branch mode, missing values)
and in opset 5's TreeEnsemble (nodes and leaves apart, set membership),
and Binarizer, Scaler, ArrayFeatureExtractor, LinearRegressor.

    make_ml_models.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1)
F, D, I64 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64


def save(name, nodes, inputs, outputs, feeds, ml_version=3, default=True, extra=None):
    graph = helper.make_graph(nodes, name, inputs, outputs)
    opsets = [helper.make_opsetid("ai.onnx.ml", ml_version)]
    if default:
        opsets.append(helper.make_opsetid("", 17))
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for k, a in enumerate(feeds):
        np.save(os.path.join(out, "%s_in%d.npy" % (name, k)), a)
    for tag, arrays in (extra or {}).items():
        for k, a in enumerate(arrays):
            np.save(os.path.join(out, "%s_%s_in%d.npy" % (name, tag, k)), a)


def info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def random_tree(depth, features, modes):
    """A random binary tree as (nodes, leaves): node = [mode, feature,
    value, true, false, missing]; children are ('n', i) or ('l', i)."""
    nodes, leaves = [], []

    def grow(level):
        if level == depth or (level > 1 and rng.random() < 0.25):
            leaves.append(len(leaves))
            return ("l", len(leaves) - 1)
        i = len(nodes)
        nodes.append(None)
        mode = modes[rng.integers(len(modes))]
        value = float(np.float32(rng.standard_normal()))
        if mode in ("BRANCH_EQ", "BRANCH_NEQ"):
            value = float(rng.integers(-2, 3))
        t = grow(level + 1)
        e = grow(level + 1)
        nodes[i] = [mode, int(rng.integers(features)), value, t, e, int(rng.random() < 0.5)]
        return ("n", i)

    grow(0)
    return nodes, leaves


def legacy_regressor(name, trees, features, targets, aggregate, base, batch, dtype=F, every=False,
                     modes=("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT",
                            "BRANCH_EQ", "BRANCH_NEQ")):
    attrs = {k: [] for k in ("nodes_treeids", "nodes_nodeids", "nodes_featureids",
                             "nodes_modes", "nodes_values", "nodes_truenodeids",
                             "nodes_falsenodeids", "nodes_missing_value_tracks_true",
                             "target_treeids", "target_nodeids", "target_ids",
                             "target_weights")}
    for t in range(trees):
        nodes, leaves = random_tree(5, features, modes)
        # Node ids: internal nodes first, then leaves.
        def nid(c):
            return c[1] if c[0] == "n" else len(nodes) + c[1]
        for i, (mode, feat, value, tc, fc, miss) in enumerate(nodes):
            for k, v in (("nodes_treeids", t), ("nodes_nodeids", i), ("nodes_featureids", feat),
                         ("nodes_modes", mode), ("nodes_values", value),
                         ("nodes_truenodeids", nid(tc)), ("nodes_falsenodeids", nid(fc)),
                         ("nodes_missing_value_tracks_true", miss)):
                attrs[k].append(v)
        for l in leaves:
            for k, v in (("nodes_treeids", t), ("nodes_nodeids", len(nodes) + l),
                         ("nodes_featureids", 0), ("nodes_modes", "LEAF"), ("nodes_values", 0.0),
                         ("nodes_truenodeids", 0), ("nodes_falsenodeids", 0),
                         ("nodes_missing_value_tracks_true", 0)):
                attrs[k].append(v)
            # One or two weights per leaf.
            count = targets if every else min(targets, 1 + int(rng.random() < 0.3))
            for tid in rng.choice(targets, size=count, replace=False):
                attrs["target_treeids"].append(t)
                attrs["target_nodeids"].append(len(nodes) + l)
                attrs["target_ids"].append(int(tid))
                attrs["target_weights"].append(float(np.float32(rng.standard_normal())))
    node = helper.make_node("TreeEnsembleRegressor", ["x"], ["y"], name="trees", domain="ai.onnx.ml",
                            n_targets=targets, aggregate_function=aggregate, **attrs,
                            **({"base_values": base} if base else {}))
    x = rng.standard_normal((batch, features)).astype(np.float32 if dtype == F else np.float64)
    x[rng.random(x.shape) < 0.1] = np.nan
    x[rng.random(x.shape) < 0.1] = rng.integers(-2, 3)  # hits for EQ / NEQ
    x2 = rng.standard_normal((3, features)).astype(x.dtype)
    save(name, [node], [info("x", dtype, ["n", features])], [info("y", F, ["n", targets])], [x],
         extra={"b3": [x2]})


legacy_regressor("forest_sum", trees=12, features=6, targets=1, aggregate="SUM", base=[0.5],
                 batch=64)
# Every leaf weighs every target here: ONNX Runtime leaves out the base
# value of a target that no tree scored, where the specification adds it.
legacy_regressor("forest_avg", trees=7, features=4, targets=3, aggregate="AVERAGE",
                 base=[0.1, -0.2, 0.3], batch=40, every=True)
legacy_regressor("forest_f64_max", trees=5, features=3, targets=2, aggregate="MAX", base=[1.0, 2.0],
                 batch=20, dtype=D, every=True)


def tree_ensemble(name, trees, features, targets, aggregate, batch, member=True):
    """Opset 5's TreeEnsemble: nodes and leaves in separate arrays."""
    modes_all = [0, 1, 2, 3, 4, 5] + ([6] if member else [])
    splits, feats, modes, tids, fids, tleaf, fleaf, miss, roots = ([] for _ in range(9))
    leaf_t, leaf_w, members = [], [], []
    for t in range(trees):
        nodes, leaves = random_tree(4, features, modes_all)
        n0, l0 = len(splits), len(leaf_w)
        roots.append(n0)
        for mode, feat, value, tc, fc, m in nodes:
            if mode == 6:
                values = sorted(set(int(v) for v in rng.choice([-2, -1, 1, 2], 2)))
                members.extend([float(v) for v in values] + [np.nan])
                value = 0.0
            elif mode in (4, 5):
                value = float(rng.integers(-2, 3))
            splits.append(value)
            feats.append(feat)
            modes.append(mode)
            miss.append(m)
            for c, ids, leafs in ((tc, tids, tleaf), (fc, fids, fleaf)):
                ids.append(c[1] + (n0 if c[0] == "n" else l0))
                leafs.append(int(c[0] == "l"))
        for _ in leaves:
            leaf_t.append(int(rng.integers(targets)))
            leaf_w.append(float(rng.standard_normal()))
    agg = {"AVERAGE": 0, "SUM": 1, "MIN": 2, "MAX": 3}[aggregate]
    t = lambda name, v, dt: helper.make_tensor(name, dt, [len(v)], v)
    attrs = dict(
        n_targets=targets, aggregate_function=agg, tree_roots=roots, nodes_featureids=feats,
        nodes_modes=t("nodes_modes", modes, TensorProto.UINT8),
        nodes_splits=t("nodes_splits", splits, D), nodes_truenodeids=tids,
        nodes_falsenodeids=fids, nodes_trueleafs=tleaf, nodes_falseleafs=fleaf,
        nodes_missing_value_tracks_true=miss, leaf_targetids=leaf_t,
        leaf_weights=t("leaf_weights", leaf_w, D))
    if members:
        attrs["membership_values"] = t("membership_values", members, D)
    node = helper.make_node("TreeEnsemble", ["x"], ["y"], name="trees", domain="ai.onnx.ml",
                            **attrs)
    x = rng.standard_normal((batch, features))
    x[rng.random(x.shape) < 0.3] = rng.integers(-2, 3)
    x[rng.random(x.shape) < 0.1] = np.nan
    save(name, [node], [info("x", D, ["n", features])], [info("y", D, ["n", targets])], [x],
         ml_version=5, default=False)
    # The expected scores, walked here as the specification reads.
    sets, it = [], iter(members)
    for mode in modes:
        group = []
        if mode == 6:
            for v in it:
                if np.isnan(v):
                    break
                group.append(v)
        sets.append(group)
    want = np.full((batch, targets), {0: 0.0, 1: 0.0, 2: np.finfo(np.float64).max,
                                      3: np.finfo(np.float64).min}[agg])
    for r in range(batch):
        for root in roots:
            i, leaf = root, None
            while leaf is None:
                v, sp, md = x[r, feats[i]], splits[i], modes[i]
                c = [v <= sp, v < sp, v >= sp, v > sp, v == sp, v != sp, v in sets[i]][md]
                c = c or (np.isnan(v) and miss[i] == 1)
                nxt, is_leaf = (tids[i], tleaf[i]) if c else (fids[i], fleaf[i])
                if is_leaf:
                    leaf = nxt
                else:
                    i = nxt
            t, w = leaf_t[leaf], leaf_w[leaf]
            if agg in (0, 1):
                want[r, t] += w / (len(roots) if agg == 0 else 1)
            else:
                want[r, t] = (min if agg == 2 else max)(want[r, t], w)
    np.save(os.path.join(out, name + "_want.npy"), want)


# Checked against the walk above (ONNX 1.23's reference evaluator agrees;
# ONNX Runtime 1.31 differs on some rows with set membership and on
# targets a MAX never scored).
tree_ensemble("ensemble_sum", trees=9, features=5, targets=2, aggregate="SUM", batch=50)
tree_ensemble("ensemble_max", trees=6, features=3, targets=3, aggregate="MAX", batch=30,
              member=False)

# A preprocessing pipeline: Scaler, Binarizer, ArrayFeatureExtractor and a
# LinearRegressor (a model of ai.onnx.ml alone).
nodes = [
    helper.make_node("Scaler", ["x"], ["s"], domain="ai.onnx.ml", offset=[0.5, -1.0, 2.0, 0.0],
                     scale=[2.0, 0.5, 1.5, -1.0]),
    helper.make_node("ArrayFeatureExtractor", ["s", "idx"], ["picked"], domain="ai.onnx.ml"),
    helper.make_node("Binarizer", ["picked"], ["bits"], domain="ai.onnx.ml", threshold=0.25),
    helper.make_node("LinearRegressor", ["s"], ["lin"], domain="ai.onnx.ml",
                     coefficients=[0.5, -1.0, 2.0, 0.25, 1.0, 0.0, -0.5, 3.0], intercepts=[0.1, -0.7],
                     targets=2),
]
x = rng.standard_normal((8, 4)).astype(np.float32)
save("pipeline", nodes, [info("x", F, [8, 4]), info("idx", I64, [3])],
     [info("bits", F, [8, 3]), info("lin", F, [8, 2])], [x, np.array([3, 0, 2], np.int64)],
     default=False)

# scikit-learn's logistic regression: LinearClassifier (one row per class;
# two classes as [-w, w]) with LOGISTIC, then Normalizer L1; multinomial
# with SOFTMAX; Normalizer MAX and L2 on an f64 input with a zero row.
w = rng.standard_normal(5).astype(np.float32)
b = float(np.float32(rng.standard_normal()))
nodes = [helper.make_node("LinearClassifier", ["x"], ["label", "raw"], domain="ai.onnx.ml",
                          classlabels_ints=[0, 1], coefficients=list(-w) + list(w),
                          intercepts=[-b, b], post_transform="LOGISTIC"),
         helper.make_node("Normalizer", ["raw"], ["p"], domain="ai.onnx.ml", norm="L1")]
save("logreg_binary", nodes, [info("x", F, ["n", 5])],
     [info("label", I64, ["n"]), info("p", F, ["n", 2])],
     [rng.standard_normal((30, 5)).astype(np.float32)])
save("logreg_multi", [helper.make_node(
        "LinearClassifier", ["x"], ["label", "p"], domain="ai.onnx.ml", classlabels_ints=[4, 5, 6],
        coefficients=[float(v) for v in rng.standard_normal(12).astype(np.float32)],
        intercepts=[0.1, -0.2, 0.3], multi_class=1, post_transform="SOFTMAX")],
     [info("x", F, ["n", 4])], [info("label", I64, ["n"]), info("p", F, ["n", 3])],
     [rng.standard_normal((30, 4)).astype(np.float32)], default=False)
xn = rng.standard_normal((6, 4))
xn[2] = 0
save("normalize", [helper.make_node("Normalizer", ["x"], ["a"], domain="ai.onnx.ml", norm="MAX"),
                   helper.make_node("Normalizer", ["x"], ["b"], domain="ai.onnx.ml", norm="L2")],
     [info("x", D, [6, 4])], [info("a", F, [6, 4]), info("b", F, [6, 4])], [xn], default=False)
# Imputer: NaNs replaced per feature (f32); a given integer replaced by
# one value (int64).
xi = rng.standard_normal((7, 3)).astype(np.float32)
xi[rng.random(xi.shape) < 0.3] = np.nan
save("impute", [helper.make_node("Imputer", ["x"], ["y"], domain="ai.onnx.ml",
                                 imputed_value_floats=[1.5, -2.0, 0.25],
                                 replaced_value_float=float("nan"))],
     [info("x", F, ["n", 3])], [info("y", F, ["n", 3])], [xi], default=False)
save("int_imputer", [helper.make_node("Imputer", ["x"], ["y"], domain="ai.onnx.ml",
                                     imputed_value_int64s=[7], replaced_value_int64=-1)],
     [info("x", I64, [4, 3])], [info("y", I64, [4, 3])],
     [rng.integers(-2, 3, (4, 3)).astype(np.int64)], default=False)
# SVMRegressor: each kernel over 12 support vectors, a symbolic batch; the
# linear form without supports; one_class.
sv = rng.standard_normal((12, 4)).astype(np.float32)
for kernel, params in (("LINEAR", [0.0, 0.0, 0.0]), ("POLY", [0.3, 0.5, 3.0]),
                       ("RBF", [0.4, 0.0, 0.0]), ("SIGMOID", [0.2, -0.1, 0.0])):
    save("svr_" + kernel.lower(), [helper.make_node(
            "SVMRegressor", ["x"], ["y"], domain="ai.onnx.ml", kernel_type=kernel,
            kernel_params=params, n_supports=12, support_vectors=[float(v) for v in sv.ravel()],
            coefficients=[float(v) for v in rng.standard_normal(12).astype(np.float32)],
            rho=[0.25])],
         [info("x", F, ["n", 4])], [info("y", F, ["n", 1])],
         [rng.standard_normal((20, 4)).astype(np.float32)], default=False)
save("svr_oneclass", [helper.make_node(
        "SVMRegressor", ["x"], ["y"], domain="ai.onnx.ml", coefficients=[0.5, -1.0, 0.25, 2.0],
        rho=[-0.1], one_class=1, kernel_type="LINEAR", kernel_params=[0.0, 0.0, 0.0], n_supports=0,
        support_vectors=[0.0])],
     [info("x", F, ["n", 4])], [info("y", F, ["n", 1])],
     [rng.standard_normal((20, 4)).astype(np.float32)], default=False)
# SVMClassifier (one-against-one, as scikit-learn's SVC converts): four
# classes over 3, 2, 4 and 3 support vectors with each kernel, int64 labels,
# a symbolic batch; three classes with f64 input and SOFTMAX; two classes
# ([-s, s] scores); probabilities (libsvm's pairwise coupling) over three
# and two classes. Errors: probabilities over 9 classes, the linear form,
# string labels.


def svc(name, kernel, params, per_class, labels, post="NONE", dtype=F, batch=24, **extra):
    supports = sum(per_class)
    k = len(per_class)
    vectors = rng.standard_normal((supports, 5)).astype(np.float32)
    coef = rng.uniform(-1, 1, (k - 1) * supports).astype(np.float32)
    rho = rng.uniform(-0.3, 0.3, k * (k - 1) // 2).astype(np.float32)
    attrs = dict(kernel_type=kernel, kernel_params=params, vectors_per_class=per_class,
                 support_vectors=[float(v) for v in vectors.ravel()],
                 coefficients=[float(v) for v in coef], rho=[float(v) for v in rho],
                 classlabels_ints=labels, post_transform=post)
    attrs.update(extra)
    npdt = np.float64 if dtype == D else np.float32
    save(name, [helper.make_node("SVMClassifier", ["x"], ["label", "scores"], name="svm",
                                 domain="ai.onnx.ml", **attrs)],
         [info("x", dtype, ["n", 5])],
         [info("label", I64, ["n"]), info("scores", F, ["n", None])],
         [rng.standard_normal((batch, 5)).astype(npdt)], default=False,
         extra={"b3": [rng.standard_normal((3, 5)).astype(npdt)]})


for kernel, params in (("LINEAR", [0.0, 0.0, 0.0]), ("POLY", [0.3, 0.5, 3.0]),
                       ("RBF", [0.4, 0.0, 0.0]), ("SIGMOID", [0.2, -0.1, 0.0])):
    svc("svc_" + kernel.lower(), kernel, params, [3, 2, 4, 3], [4, 9, 1, 7])
svc("svc_f64_softmax", "RBF", [0.25, 0.0, 0.0], [5, 4, 6], [0, 1, 2], post="SOFTMAX", dtype=D)
svc("svc_binary", "RBF", [0.5, 0.0, 0.0], [6, 5], [3, 8])
svc("svc_proba", "RBF", [0.5, 0.0, 0.0], [3, 4, 2], [0, 1, 2], batch=16,
    prob_a=[-1.0, -1.2, -0.8], prob_b=[0.1, 0.0, -0.1])
svc("svc_proba_binary", "POLY", [0.3, 0.5, 2.0], [4, 3], [5, 6], batch=16,
    prob_a=[-1.5], prob_b=[0.2])
svc("svc_proba_many", "RBF", [0.5, 0.0, 0.0], [1] * 9, list(range(9)), batch=2,
    prob_a=[-1.0] * 36, prob_b=[0.0] * 36)
svc("svc_strings", "RBF", [0.5, 0.0, 0.0], [2, 2, 2], [0, 1, 2], batch=2)
m = onnx.load(os.path.join(out, "svc_strings.onnx"))
attr = m.graph.node[0].attribute
for a in list(attr):
    if a.name == "classlabels_ints":
        attr.remove(a)
attr.append(helper.make_attribute("classlabels_strings", ["a", "b", "c"]))
onnx.save(m, os.path.join(out, "svc_strings.onnx"))
save("svc_linear_form", [helper.make_node(
        "SVMClassifier", ["x"], ["label", "scores"], name="svm", domain="ai.onnx.ml",
        classlabels_ints=[0, 1, 2], coefficients=[0.5] * 15, rho=[0.1],
        kernel_type="LINEAR")],
     [info("x", F, ["n", 5])], [info("label", I64, ["n"]), info("scores", F, ["n", 3])], [],
     default=False)
# OneHotEncoder (int64 with a repeated category, a float column with
# non-integral values; a symbolic batch), FeatureVectorizer (f64 inputs cut
# and padded; int64 ones, one a vector), numeric LabelEncoder (int64 to
# int64 of ai.onnx.ml 2, float to int64 of 2, int64 to float through
# tensors of 4). Errors: string categories, duplicate keys.
save("onehot", [helper.make_node("OneHotEncoder", ["x"], ["y"], domain="ai.onnx.ml",
                                 cats_int64s=[3, 1, 4, 1, 5, 9], zeros=1),
                helper.make_node("OneHotEncoder", ["f"], ["g"], domain="ai.onnx.ml",
                                 cats_int64s=[0, 2, -1], zeros=1)],
     [info("x", I64, ["n", 3]), info("f", F, ["n"])],
     [info("y", F, ["n", 3, 6]), info("g", F, ["n", 3])],
     [rng.integers(0, 10, (7, 3)).astype(np.int64),
      np.array([0, 2, -1, 2.7, -1.5, 1, 0.2], np.float32)], default=False,
     extra={"b2": [rng.integers(0, 10, (2, 3)).astype(np.int64),
                   np.array([2.0, 3.0], np.float32)]})
save("vectorize", [helper.make_node("FeatureVectorizer", ["a", "b", "c"], ["y"],
                                    domain="ai.onnx.ml", inputdimensions=[2, 5, 3])],
     [info("a", D, [4, 3]), info("b", D, [4, 2]), info("c", D, [4, 3])],
     [info("y", F, [4, 10])],
     [rng.standard_normal((4, 3)), rng.standard_normal((4, 2)), rng.standard_normal((4, 3))],
     default=False)
save("vectorize_row", [helper.make_node("FeatureVectorizer", ["a", "b"], ["y"],
                                        domain="ai.onnx.ml", inputdimensions=[4, 2])],
     [info("a", I64, [4]), info("b", I64, [1, 2])], [info("y", F, [1, 6])],
     [np.array([1, -2, 3, 9], np.int64), np.array([[7, -3]], np.int64)],
     default=False)
save("label_int", [helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml",
                                    keys_int64s=[10, 20, 30], values_int64s=[0, 1, 2],
                                    default_int64=-7)],
     [info("x", I64, ["n"])], [info("y", I64, ["n"])],
     [np.array([10, 30, 20, 5, 30, 11], np.int64)], ml_version=2, default=False)
save("label_float", [helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml",
                                      keys_floats=[0.5, -1.0, 2.25], values_int64s=[4, 5, 6])],
     [info("x", F, ["n", 2])], [info("y", I64, ["n", 2])],
     [np.array([[0.5, 2.25], [-1.0, 0.0], [np.nan, 0.5]], np.float32)], ml_version=2,
     default=False)
save("label_tensor", [helper.make_node(
        "LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml",
        keys_tensor=helper.make_tensor("k", I64, [3], [1, 2, 3]),
        values_tensor=helper.make_tensor("v", F, [3], [0.5, 1.5, 2.5]),
        default_tensor=helper.make_tensor("d", F, [1], [-1.0]))],
     [info("x", I64, ["n"])], [info("y", F, ["n"])],
     [np.array([3, 1, 9, 2], np.int64)], ml_version=4, default=False)
save("onehot_strings", [helper.make_node("OneHotEncoder", ["x"], ["y"], name="enc",
                                         domain="ai.onnx.ml", cats_strings=["a", "b"])],
     [info("x", I64, ["n"])], [info("y", F, ["n", 2])], [], default=False)
save("label_dup", [helper.make_node("LabelEncoder", ["x"], ["y"], name="enc", domain="ai.onnx.ml",
                                    keys_int64s=[1, 1], values_int64s=[0, 1])],
     [info("x", I64, ["n"])], [info("y", I64, ["n"])], [], ml_version=2, default=False)
# A tree ensemble given a scalar (found by tide-fuzz-onnx: it read past the
# shape).
save("trees_scalar", [helper.make_node("TreeEnsemble", ["x"], ["y"], name="trees",
                                       domain="ai.onnx.ml", n_targets=1, aggregate_function=1,
                                       nodes_featureids=[0], nodes_modes=helper.make_tensor(
                                           "m", onnx.TensorProto.UINT8, [1], [0]),
                                       nodes_splits=helper.make_tensor("s", F, [1], [0.5]),
                                       nodes_truenodeids=[0], nodes_falsenodeids=[1],
                                       nodes_trueleafs=[1], nodes_falseleafs=[1],
                                       leaf_targetids=[0, 0],
                                       leaf_weights=helper.make_tensor("w", F, [2], [1.0, 2.0]),
                                       tree_roots=[0])],
     [info("x", F, [])], [info("y", F, [1, 1])], [], ml_version=5, default=False)
save("onehot_nozeros", [helper.make_node("OneHotEncoder", ["x"], ["y"], name="enc",
                                         domain="ai.onnx.ml", cats_int64s=[1, 2], zeros=0)],
     [info("x", I64, ["n"])], [info("y", F, ["n", 2])], [], default=False)
# ZipMap after a classifier: refused with what to do instead.
seq_of_maps = onnx.TypeProto()
seq_of_maps.sequence_type.elem_type.map_type.key_type = I64
seq_of_maps.sequence_type.elem_type.map_type.value_type.tensor_type.elem_type = F
save("zipmap", [helper.make_node("ZipMap", ["p"], ["z"], name="zip", domain="ai.onnx.ml",
                                 classlabels_int64s=[0, 1])],
     [info("p", F, ["n", 2])], [helper.make_value_info("z", seq_of_maps)], [], default=False)
save("logreg_one_row", [helper.make_node(
        "LinearClassifier", ["x"], ["label", "p"], name="lin", domain="ai.onnx.ml",
        classlabels_ints=[0, 1], coefficients=[1.0, 2.0], intercepts=[0.5])],
     [info("x", F, ["n", 2])], [info("label", I64, ["n"]), info("p", F, ["n", 2])], [])

# Errors: a tree whose node reads a feature the input lacks; a cycle; a
# two-class classifier weighing both classes (below).
bad = helper.make_node(
    "TreeEnsembleRegressor", ["x"], ["y"], name="trees", domain="ai.onnx.ml", n_targets=1,
    nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[7, 0, 0],
    nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values=[0.0, 0.0, 0.0],
    nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0], target_treeids=[0],
    target_nodeids=[1], target_ids=[0], target_weights=[1.0])
save("forest_feature", [bad], [info("x", F, ["n", 3])], [info("y", F, ["n", 1])], [])
cycle = helper.make_node(
    "TreeEnsembleRegressor", ["x"], ["y"], name="trees", domain="ai.onnx.ml", n_targets=1,
    nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 1, 0],
    nodes_modes=["BRANCH_LEQ", "BRANCH_LEQ", "LEAF"], nodes_values=[0.0, 0.0, 0.0],
    nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 2, 0], target_treeids=[0],
    target_nodeids=[2], target_ids=[0], target_weights=[1.0])
save("forest_cycle", [cycle], [info("x", F, ["n", 3])], [info("y", F, ["n", 1])], [])


def legacy_classifier(name, trees, features, labels, ids_of_leaf, post, base, batch):
    """A TreeEnsembleClassifier; `ids_of_leaf(tree)` gives the (class id,
    weight) pairs of a leaf."""
    attrs = {k: [] for k in ("nodes_treeids", "nodes_nodeids", "nodes_featureids",
                             "nodes_modes", "nodes_values", "nodes_truenodeids",
                             "nodes_falsenodeids", "nodes_missing_value_tracks_true",
                             "class_treeids", "class_nodeids", "class_ids", "class_weights")}
    for t in range(trees):
        nodes, leaves = random_tree(4, features, ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GT"))
        def nid(c):
            return c[1] if c[0] == "n" else len(nodes) + c[1]
        for i, (mode, feat, value, tc, fc, miss) in enumerate(nodes):
            for k, v in (("nodes_treeids", t), ("nodes_nodeids", i), ("nodes_featureids", feat),
                         ("nodes_modes", mode), ("nodes_values", value),
                         ("nodes_truenodeids", nid(tc)), ("nodes_falsenodeids", nid(fc)),
                         ("nodes_missing_value_tracks_true", miss)):
                attrs[k].append(v)
        for l in leaves:
            for k, v in (("nodes_treeids", t), ("nodes_nodeids", len(nodes) + l),
                         ("nodes_featureids", 0), ("nodes_modes", "LEAF"), ("nodes_values", 0.0),
                         ("nodes_truenodeids", 0), ("nodes_falsenodeids", 0),
                         ("nodes_missing_value_tracks_true", 0)):
                attrs[k].append(v)
            for cid, w in ids_of_leaf(t):
                attrs["class_treeids"].append(t)
                attrs["class_nodeids"].append(len(nodes) + l)
                attrs["class_ids"].append(cid)
                attrs["class_weights"].append(float(np.float32(w)))
    extra = {"base_values": base} if base else {}
    node = helper.make_node("TreeEnsembleClassifier", ["x"], ["label", "scores"], name="trees",
                            domain="ai.onnx.ml", classlabels_int64s=labels, post_transform=post,
                            **attrs, **extra)
    x = rng.standard_normal((batch, features)).astype(np.float32)
    x[rng.random(x.shape) < 0.05] = np.nan
    save(name, [node], [info("x", F, ["n", features])],
         [info("label", I64, ["n"]), info("scores", F, ["n", len(labels)])], [x],
         extra={"b3": [rng.standard_normal((3, features)).astype(np.float32)]})


def probabilities(k):
    return lambda t: list(enumerate(rng.dirichlet(np.ones(k)) / 5))


# Random-forest style: every leaf weighs every class (probabilities).
legacy_classifier("classify_rf", 5, 4, [10, 20, 30, 40], probabilities(4), "NONE", None, 48)
# Gradient-boosting style: each tree weighs one class, base values, softmax.
legacy_classifier("classify_gb", 8, 5, [0, 1, 2], lambda t: [(t % 3, rng.standard_normal())],
                  "SOFTMAX", [0.1, -0.3, 0.2], 48)
# Two classes, the trees weighing one class only: class 0 with mixed
# weights, a base value and LOGISTIC (scikit-learn's gradient boosting);
# non-negative weights (a forest's probability of the positive class),
# with LOGISTIC.
legacy_classifier("binary_gb", 6, 3, [0, 1], lambda t: [(0, rng.standard_normal())], "LOGISTIC",
                  [0.2], 40)
legacy_classifier("binary_mixed", 6, 3, [3, 7], lambda t: [(0, rng.standard_normal())], "NONE",
                  None, 40)
legacy_classifier("binary_rf", 6, 3, [0, 1], lambda t: [(0, rng.random() / 6)], "NONE", None, 40)
legacy_classifier("binary_rf_logistic", 6, 3, [0, 1], lambda t: [(0, rng.random() / 6)],
                  "LOGISTIC", [0.1], 40)
# Errors: class 1 scored alone, two base values (ONNX Runtime's results do
# not follow its documented rules there).
legacy_classifier("binary_class1", 6, 3, [5, 9], lambda t: [(1, rng.random() / 6)], "LOGISTIC",
                  [0.3], 4)
legacy_classifier("binary_two_bases", 2, 3, [0, 1], lambda t: [(0, rng.standard_normal())],
                  "SOFTMAX", [0.4, -0.2], 4)
# Error: two classes, both weighed (ONNX Runtime's result depends on it).
legacy_classifier("binary_both", 2, 3, [0, 1], probabilities(2), "NONE", None, 4)

# Audit findings (session 33), against ONNX Runtime: an RBF SVM over
# features near 1000 close to its support vectors (the distance from the
# differences: |x|^2 - 2 x.v + |v|^2 cancelled the digits away); a POLY
# kernel of fractional degree (truncated before); SOFTMAX_ZERO with a score
# below 1e-7 (ONNX Runtime's zero test); Scaler and LinearRegressor over
# doubles give float; an ArrayFeatureExtractor index known only at run time
# past the features (a run-time error, clamped before).
sv = (1000 + rng.standard_normal((4, 3))).astype(np.float32)
xs = (sv[[0, 1, 2, 3, 0]] + np.float32(0.01) * rng.standard_normal((5, 3))).astype(np.float32)
save("svr_rbf_large", [helper.make_node(
        "SVMRegressor", ["x"], ["y"], domain="ai.onnx.ml", kernel_type="RBF",
        kernel_params=[1.0, 0.0, 0.0], n_supports=4,
        support_vectors=[float(v) for v in sv.ravel()], coefficients=[1.0, -1.0, 0.5, 2.0],
        rho=[0.0])],
     [info("x", F, [5, 3])], [info("y", F, [5, 1])], [xs], default=False)
save("svr_poly_fractional", [helper.make_node(
        "SVMRegressor", ["x"], ["y"], domain="ai.onnx.ml", kernel_type="POLY",
        kernel_params=[0.5, 3.0, 2.5], n_supports=2,
        support_vectors=[0.1, 0.2, 0.3, 0.3, 0.2, 0.1], coefficients=[1.0, -1.0], rho=[0.25])],
     [info("x", F, [4, 3])], [info("y", F, [4, 1])],
     [np.abs(rng.standard_normal((4, 3))).astype(np.float32)], default=False)
save("linear_softmax_zero_tiny", [helper.make_node(
        "LinearClassifier", ["x"], ["label", "p"], domain="ai.onnx.ml",
        classlabels_ints=[0, 1, 2], coefficients=[0.0, 0.0, 0.0, 0.0, 1.0, -1.0],
        intercepts=[1e-8, -5.0, 0.0], post_transform="SOFTMAX_ZERO")],
     [info("x", F, [3, 2])], [info("label", I64, [3]), info("p", F, [3, 3])],
     [np.array([[0, 0], [1, 0.5], [0.2, 3]], np.float32)], default=False)
xd = rng.standard_normal((4, 3))
save("scaler_f64", [helper.make_node("Scaler", ["x"], ["y"], domain="ai.onnx.ml",
                                     offset=[0.5], scale=[2.0])],
     [info("x", D, [4, 3])], [info("y", F, [4, 3])], [xd], default=False)
save("afe_runtime_oob", [helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"],
                                          domain="ai.onnx.ml")],
     [info("x", F, [2, 5]), info("i", I64, [2])], [info("y", F, [2, 2])],
     [np.arange(10, dtype=np.float32).reshape(2, 5), np.array([4, 5], np.int64)],
     default=False)
# Binarizer of integers with a fractional threshold (-0.5: 0 is above it).
# ONNX Runtime has no integer Binarizer: the test compares with NumPy.
save("binarizer_int", [helper.make_node("Binarizer", ["x"], ["y"], domain="ai.onnx.ml",
                                        threshold=-0.5)],
     [info("x", I64, [4])], [info("y", I64, [4])], [np.array([-1, 0, 1, 2], np.int64)],
     default=False)
np.save(os.path.join(out, "binarizer_int_want.npy"), np.array([0, 1, 1, 1], np.int64))
# LabelEncoder and Imputer over int64 keys and values past 2^53 (exact; they
# went through a double before: keys matched the wrong input, two distinct
# keys were "the same key twice").
big = 2 ** 53 + 1
save("label_bigint", [helper.make_node(
        "LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml",
        keys_int64s=[big, big - 1, 5], values_int64s=[2 ** 62 + 1, 3, 7],
        default_int64=2 ** 60 + 3)],
     [info("x", I64, [5])], [info("y", I64, [5])],
     [np.array([big, 5, big - 1, big - 2, 0], np.int64)], ml_version=2, default=False)
save("imputer_bigint", [helper.make_node(
        "Imputer", ["x"], ["y"], domain="ai.onnx.ml", imputed_value_int64s=[2 ** 62 + 1],
        replaced_value_int64=big)],
     [info("x", I64, [1, 3])], [info("y", I64, [1, 3])],
     [np.array([[big, big - 1, 3]], np.int64)], default=False)
# Three classes, no base values, a leaf weighing class 1 by 0 and another
# class 2: class 0 is never scored, and ONNX Runtime leaves it out of the
# argmax (a tie with 0 picked it before): refused, like negative weights.
save("classifier_unscored_tie", [helper.make_node(
        "TreeEnsembleClassifier", ["x"], ["label", "scores"], name="trees", domain="ai.onnx.ml",
        classlabels_int64s=[10, 20, 30], nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2],
        nodes_featureids=[0, 0, 0], nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"],
        nodes_values=[0.0, 0.0, 0.0], nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0],
        class_treeids=[0, 0], class_nodeids=[1, 2], class_ids=[1, 2], class_weights=[0.0, 0.5])],
     [info("x", F, [4, 2])], [info("label", I64, [4]), info("scores", F, [4, 3])],
     [np.zeros((4, 2), np.float32)], default=False)
