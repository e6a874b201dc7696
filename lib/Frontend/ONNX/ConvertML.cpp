//===- ConvertML.cpp - ONNX-ML (ai.onnx.ml) ops ---------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The classical machine-learning ops of the ai.onnx.ml domain that
// scikit-learn converters (skl2onnx, onnxmltools) write, in tide ops:
//
// - Binarizer (x > threshold), Scaler ((x - offset) * scale),
//   ArrayFeatureExtractor (a gather along the last axis), LinearRegressor
//   (a product with the coefficients plus the intercepts), LinearClassifier
//   (the same, an argmax and a post transform), Normalizer (MAX, L1, L2),
//   Imputer, SVMRegressor, SVMClassifier (one-against-one decision values
//   and votes, without probabilities), OneHotEncoder, FeatureVectorizer and
//   LabelEncoder between numbers;
// - tree ensembles: TreeEnsemble (ai.onnx.ml 5) and TreeEnsembleRegressor
//   (1 and 3). Every tree is walked by all samples at once, one level per
//   step: the trees' nodes and leaves are flattened into constant tables
//   (feature, split value, mode, where a missing value goes, true and false
//   successor; a leaf is its own successor), each sample holds one position
//   per tree (batch, trees), and a step gathers the nodes' fields, gathers
//   the feature values from the input, compares by the node's mode, and
//   selects the successor. After as many steps as the deepest tree has
//   levels every position is a leaf; a table of (leaf, target) weights
//   gathered at the leaves and reduced over the trees (sum, average,
//   minimum, maximum) gives the scores, then the base values and the post
//   transform. The work is (batch x trees x depth), with no branches.
//
// Errors name the node: malformed trees (a successor out of range, a
// cycle), features past the input's width, and the forms not converted
// (TreeEnsembleClassifier, PROBIT). MIN and MAX start every target from the
// type's extremes and base values are always added, as the specification
// and ONNX's reference evaluator do (ONNX Runtime leaves a target no tree
// scored at 0 and without its base value).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

using Shape = SmallVector<int64_t>;

#define TRY(x)                                                                 \
  do {                                                                         \
    if (!(x))                                                                  \
      return failure();                                                        \
  } while (false)

Shape shapeOf(Value v) {
  return Shape(cast<RankedTensorType>(v.getType()).getShape());
}
int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}
Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// The floats of attribute `name` (its `floats`, or with `asTensor` its
/// tensor form `<name>_as_tensor`); empty if absent.
FailureOr<std::vector<double>> floatsAttr(NodeImporter &n, StringRef name,
                                          bool asTensor = false) {
  std::vector<double> out;
  if (asTensor) {
    std::string tname = (name + "_as_tensor").str();
    if (const onnx::AttributeProto *a = n.attr(tname)) {
      if (!a->has_t())
        return (void)n.fail("'" + tname + "' must be a tensor"), failure();
      std::string error;
      ElementsAttr value = n.readTensor(a->t(), tname, error);
      if (!value)
        return (void)n.fail(error), failure();
      std::optional<HostValues> v =
          readHostValues(value, std::numeric_limits<int64_t>::max());
      if (!v)
        return (void)n.fail("'" + tname + "' is not numeric"), failure();
      for (int64_t i = 0; i < v->size(); ++i)
        out.push_back(v->at(i));
      return out;
    }
  }
  if (const onnx::AttributeProto *a = n.attr(name)) {
    if (a->has_t()) {
      std::string error;
      ElementsAttr value = n.readTensor(a->t(), name, error);
      std::optional<HostValues> v =
          value ? readHostValues(value, std::numeric_limits<int64_t>::max())
                : std::nullopt;
      if (!v)
        return (void)n.fail("'" + name + "' is not a numeric tensor"),
               failure();
      for (int64_t i = 0; i < v->size(); ++i)
        out.push_back(v->at(i));
      return out;
    }
    out.assign(a->floats().begin(), a->floats().end());
  }
  return out;
}

std::vector<int64_t> intsAttr(NodeImporter &n, StringRef name) {
  std::vector<int64_t> out;
  if (const onnx::AttributeProto *a = n.attr(name)) {
    if (a->has_t()) {
      std::string error;
      ElementsAttr value = n.readTensor(a->t(), name, error);
      std::optional<HostValues> v =
          value ? readHostValues(value, std::numeric_limits<int64_t>::max())
                : std::nullopt;
      if (v)
        for (int64_t i = 0; i < v->size(); ++i)
          out.push_back(v->intAt(i));
      return out;
    }
    out.assign(a->ints().begin(), a->ints().end());
  }
  return out;
}

std::vector<std::string> stringsAttr(NodeImporter &n, StringRef name) {
  std::vector<std::string> out;
  if (const onnx::AttributeProto *a = n.attr(name))
    out.assign(a->strings().begin(), a->strings().end());
  return out;
}

/// The input as (batch, features): a vector is one sample. Other ranks are
/// errors (null, reported). Integer inputs are compared and weighted as
/// `compute`.
Value asMatrix(NodeImporter &n, Value x) {
  if (!x)
    return {};
  if (rankOf(x) == 1)
    return n.reshapeTo(x, {SymDim::constant(1), n.dimOf(x, 0)});
  if (rankOf(x) != 2) {
    (void)n.fail("the input must be a (batch, features) matrix or one "
                 "sample's feature vector; it has rank " +
                 Twine(rankOf(x)));
    return {};
  }
  return x;
}

//===----------------------------------------------------------------------===//
// Small ops
//===----------------------------------------------------------------------===//

LogicalResult convertBinarizer(NodeImporter &n) {
  if (failed(n.checkAttrs({"threshold"})))
    return failure();
  if (!n.has(0))
    return n.fail("Binarizer needs X");
  Value x = n.in(0);
  Type t = elemOf(x);
  if (!isa<FloatType>(t) && !isa<IntegerType>(t))
    return n.fail("Binarizer needs a numeric input");
  // An integer above a fractional threshold is above its floor (the
  // threshold as the type would truncate it toward zero: -0.5 to 0).
  double threshold = n.attrFloat("threshold", 0);
  if (isa<IntegerType>(t))
    threshold = std::clamp(std::floor(threshold), -9.2e18, 9.2e18);
  Value above = n.create<CmpOp>(CmpPredicate::gt, x, n.scalar(t, threshold));
  TRY(above);
  n.setOut(0, n.cast(above, t));
  return success();
}

LogicalResult convertScaler(NodeImporter &n) {
  if (failed(n.checkAttrs({"offset", "scale"})))
    return failure();
  if (!n.has(0))
    return n.fail("Scaler needs X");
  Value x = n.in(0);
  Type t = elemOf(x);
  Type f = t.isF64() ? t : Float32Type::get(n.ctx);
  int64_t features = shapeOf(x).back();
  auto offset = floatsAttr(n, "offset"), scale = floatsAttr(n, "scale");
  if (failed(offset) || failed(scale))
    return failure();
  auto vectorOf = [&](const std::vector<double> &v,
                      double dflt) -> FailureOr<Value> {
    if (v.empty())
      return n.scalar(f, dflt);
    if (v.size() == 1)
      return n.scalar(f, v[0]);
    if (static_cast<int64_t>(v.size()) != features)
      return (void)n.fail("Scaler's offset and scale must have 1 or " +
                          Twine(features) + " values (one per feature)"),
             failure();
    return n.constant(makeDense(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, f), {}, v));
  };
  auto o = vectorOf(*offset, 0), s = vectorOf(*scale, 1);
  if (failed(o) || failed(s))
    return failure();
  Value y = n.create<MulOp>(n.create<SubOp>(n.cast(x, f), *o), *s);
  TRY(y);
  // Y is float whatever X is (ONNX-ML; ONNX Runtime's too).
  n.setOut(0, n.cast(y, Float32Type::get(n.ctx)));
  return success();
}

LogicalResult convertArrayFeatureExtractor(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  if (!n.has(0) || !n.has(1))
    return n.fail("ArrayFeatureExtractor needs X and Y (the indices)");
  Value x = n.in(0), idx = n.in(1);
  if (!isa<IntegerType>(elemOf(idx)))
    return n.fail("ArrayFeatureExtractor's indices must be integers");
  std::optional<ElementsAttr> known = n.constIn(1);
  if (rankOf(x) == 1)
    TRY(x = n.reshapeTo(x, {SymDim::constant(1), n.dimOf(x, 0)}));
  int64_t last = shapeOf(x).back();
  // The indices flattened; known ones are checked here (ONNX Runtime
  // refuses an index past the last feature).
  int64_t count = 1;
  for (int64_t d : shapeOf(idx))
    count = ShapedType::isDynamic(d) || ShapedType::isDynamic(count)
                ? ShapedType::kDynamic
                : count * d;
  if (ShapedType::isDynamic(count))
    return n.fail("ArrayFeatureExtractor needs the number of indices known "
                  "while importing");
  if (known) {
    if (auto v = readHostValues(*known, std::numeric_limits<int64_t>::max()))
      for (int64_t i = 0; i < v->size(); ++i)
        if (!ShapedType::isDynamic(last) &&
            (v->ints[i] < 0 || v->ints[i] >= last))
          return n.fail("ArrayFeatureExtractor's index " + Twine(v->ints[i]) +
                        " is outside the " + Twine(last) + " features");
  }
  Value flat = n.reshape(n.cast(idx, IntegerType::get(n.ctx, 64)), {count});
  // Indices known only at run time are checked then (ONNX Runtime fails the
  // call; a gather would clamp them).
  if (!known)
    TRY(flat = checkedIndices(n, flat, {n.dimOf(x, rankOf(x) - 1)},
                              "the features", /*negative=*/false));
  Value y = takeAlong(n, x, flat, rankOf(x) - 1);
  TRY(y);
  n.setOut(0, y);
  return success();
}

LogicalResult convertLinearRegressor(NodeImporter &n) {
  if (failed(n.checkAttrs(
          {"coefficients", "intercepts", "post_transform", "targets"})))
    return failure();
  if (!n.has(0))
    return n.fail("LinearRegressor needs X");
  std::string post = n.attrString("post_transform", "NONE");
  if (post != "NONE")
    return n.fail("LinearRegressor's post_transform '" + post +
                  "' is not supported (ONNX Runtime supports NONE only)");
  Value x = n.in(0);
  Type t = elemOf(x);
  Type f = t.isF64() ? t : Float32Type::get(n.ctx);
  TRY(x = asMatrix(n, n.cast(x, f)));
  int64_t targets = n.attrInt("targets", 1);
  auto coef = floatsAttr(n, "coefficients");
  auto inter = floatsAttr(n, "intercepts");
  if (failed(coef) || failed(inter))
    return failure();
  int64_t features = shapeOf(x)[1];
  if (targets < 1 || ShapedType::isDynamic(features) ||
      static_cast<int64_t>(coef->size()) != targets * features)
    return n.fail(
        "LinearRegressor has " + Twine(coef->size()) + " coefficients for " +
        Twine(targets) + " targets; the input has " +
        (ShapedType::isDynamic(features) ? Twine("a dynamic number of")
                                         : Twine(features)) +
        " features");
  // coefficients are (targets, features); the product takes (features,
  // targets).
  std::vector<double> transposed(coef->size());
  for (int64_t r = 0; r < targets; ++r)
    for (int64_t c = 0; c < features; ++c)
      transposed[c * targets + r] = (*coef)[r * features + c];
  Value w = n.constant(
      makeDense(RankedTensorType::get({features, targets}, f), {}, transposed));
  Value y = n.create<MatmulOp>(x, w);
  if (!inter->empty()) {
    if (static_cast<int64_t>(inter->size()) != targets)
      return n.fail("LinearRegressor has " + Twine(inter->size()) +
                    " intercepts for " + Twine(targets) + " targets");
    y = n.create<AddOp>(
        y,
        n.constant(makeDense(RankedTensorType::get({targets}, f), {}, *inter)));
  }
  TRY(y);
  // Y is float whatever X is (ONNX-ML).
  n.setOut(0, n.cast(y, Float32Type::get(n.ctx)));
  return success();
}

//===----------------------------------------------------------------------===//
// Tree ensembles
//===----------------------------------------------------------------------===//

enum class Mode : int64_t { LEQ, LT, GTE, GT, EQ, NEQ, MEMBER };
enum class Aggregate { Sum, Average, Min, Max };

/// An ensemble flattened: positions 0..size-1 are nodes and leaves; a leaf
/// is its own successor.
struct Forest {
  std::vector<int64_t> feature, mode, missingTrue, trueNext, falseNext;
  std::vector<double> split;
  std::vector<std::vector<double>> members; // MEMBER nodes' sets
  std::vector<int64_t> roots;
  /// (position, target, weight) of every leaf weight.
  std::vector<std::tuple<int64_t, int64_t, double>> weights;
  int64_t targets = 1;
  Aggregate aggregate = Aggregate::Sum;
  std::vector<double> base;
  std::string post = "NONE";

  int64_t size() const { return static_cast<int64_t>(feature.size()); }
  int64_t addLeaf() {
    int64_t p = size();
    feature.push_back(0);
    mode.push_back(static_cast<int64_t>(Mode::LEQ));
    missingTrue.push_back(0);
    trueNext.push_back(p);
    falseNext.push_back(p);
    split.push_back(0);
    members.emplace_back();
    return p;
  }
};

/// The most levels walked, and the most table entries.
constexpr int64_t kMaxTreeDepth = 1024;
constexpr int64_t kMaxForestTable = int64_t(1) << 26;

/// The levels of the deepest tree (0 for a tree that is a leaf); fails on
/// a successor out of range or a cycle.
FailureOr<int64_t> forestDepth(NodeImporter &n, const Forest &f) {
  int64_t size = f.size(), deepest = 0;
  // Depth of each position by iterating from the roots (iterative DFS with
  // a path marker to find cycles).
  std::vector<int8_t> state(size, 0); // 0 new, 1 on the path, 2 done
  std::vector<int64_t> depth(size, 0);
  for (int64_t root : f.roots) {
    if (root < 0 || root >= size)
      return (void)n.fail("a tree root is out of range"), failure();
    std::vector<std::pair<int64_t, int>> stack = {{root, 0}};
    while (!stack.empty()) {
      auto &[p, child] = stack.back();
      bool leaf = f.trueNext[p] == p && f.falseNext[p] == p;
      if (child == 0) {
        if (state[p] == 1)
          return (void)n.fail("the trees have a cycle"), failure();
        if (state[p] == 2 || leaf) {
          state[p] = 2;
          stack.pop_back();
          continue;
        }
        state[p] = 1;
      }
      if (child < 2) {
        int64_t next = child == 0 ? f.trueNext[p] : f.falseNext[p];
        ++child;
        if (next < 0 || next >= size)
          return (void)n.fail("a tree node's successor is out of range"),
                 failure();
        if (state[next] == 1)
          return (void)n.fail("the trees have a cycle"), failure();
        if (state[next] == 0)
          stack.push_back({next, 0});
        continue;
      }
      depth[p] = 1 + std::max(depth[f.trueNext[p]], depth[f.falseNext[p]]);
      state[p] = 2;
      stack.pop_back();
    }
    deepest = std::max(deepest, depth[root]);
  }
  if (deepest > kMaxTreeDepth)
    return (void)n.fail("a tree is " + Twine(deepest) +
                        " levels deep; Tide walks at most " +
                        Twine(kMaxTreeDepth)),
           failure();
  return deepest;
}

/// Walks every tree of `f` for each row of `x` and returns the aggregated
/// scores plus the base values (batch, targets), in f64 for an f64 `x`,
/// else f32; no post transform.
Value evaluateForest(NodeImporter &n, Value x, const Forest &f) {
  Type xt = elemOf(x);
  Type ct = xt.isF64() ? xt : Float32Type::get(n.ctx);
  Type i64 = IntegerType::get(n.ctx, 64);
  x = asMatrix(n, n.cast(x, ct));
  if (!x)
    return {};
  int64_t features = shapeOf(x)[1];
  if (ShapedType::isDynamic(features)) {
    (void)n.fail("tree ensembles need the number of features known while "
                 "importing");
    return {};
  }
  for (int64_t p = 0; p < f.size(); ++p)
    if (!(f.trueNext[p] == p && f.falseNext[p] == p) &&
        (f.feature[p] < 0 || f.feature[p] >= features)) {
      (void)n.fail("a tree node reads feature " + Twine(f.feature[p]) +
                   "; the input has " + Twine(features));
      return {};
    }
  int64_t size = f.size(), trees = f.roots.size(), nt = f.targets;
  if (size * std::max<int64_t>(nt, 1) > kMaxForestTable || trees == 0) {
    (void)n.fail(trees == 0 ? Twine("the ensemble has no trees")
                            : Twine("the ensemble's tables would exceed ") +
                                  Twine(kMaxForestTable) + " entries");
    return {};
  }
  FailureOr<int64_t> depth = forestDepth(n, f);
  if (failed(depth))
    return {};
  auto intTable = [&](const std::vector<int64_t> &v) {
    return n.constant(makeDense(RankedTensorType::get({size}, i64), v, {}));
  };
  SymDim batch = n.dimOf(x, 0);
  SymDim treesD = SymDim::constant(trees);
  Value pos = n.broadcastToDims(
      n.constant(
          makeDense(RankedTensorType::get({1, trees}, i64), f.roots, {})),
      {batch, treesD});
  Value featureT = intTable(f.feature), modeT = intTable(f.mode),
        missingT = intTable(f.missingTrue), trueT = intTable(f.trueNext),
        falseT = intTable(f.falseNext);
  Value splitT =
      n.constant(makeDense(RankedTensorType::get({size}, ct), {}, f.split));
  // Set membership: each MEMBER node's values in a row, NaN-padded.
  size_t widest = 0;
  for (const auto &m : f.members)
    widest = std::max(widest, m.size());
  Value memberT;
  if (widest) {
    std::vector<double> table(size * widest,
                              std::numeric_limits<double>::quiet_NaN());
    for (int64_t p = 0; p < size; ++p)
      for (size_t k = 0; k < f.members[p].size(); ++k)
        table[p * widest + k] = f.members[p][k];
    memberT = n.constant(makeDense(
        RankedTensorType::get({size, static_cast<int64_t>(widest)}, ct), {},
        table));
  }
  auto is = [&](Value modes, Mode m) {
    return n.create<CmpOp>(CmpPredicate::eq, modes,
                           n.scalar(i64, static_cast<double>(m)));
  };
  for (int64_t level = 0; level < *depth; ++level) {
    Value feat = takeAlong(n, featureT, pos, 0);
    Value v = n.create<GatherOp>(x, feat, 1); // (batch, trees)
    Value s = takeAlong(n, splitT, pos, 0);
    Value m = takeAlong(n, modeT, pos, 0);
    if (!v || !s || !m)
      return {};
    Value cond = n.create<CmpOp>(CmpPredicate::le, v, s);
    std::pair<Mode, CmpPredicate> others[] = {{Mode::LT, CmpPredicate::lt},
                                              {Mode::GTE, CmpPredicate::ge},
                                              {Mode::GT, CmpPredicate::gt},
                                              {Mode::EQ, CmpPredicate::eq},
                                              {Mode::NEQ, CmpPredicate::ne}};
    for (auto [mode, pred] : others)
      cond = n.create<SelectOp>(is(m, mode), n.create<CmpOp>(pred, v, s), cond);
    if (memberT) {
      // (batch, trees, widest) == value, any of them.
      Value rows = takeAlong(n, memberT, pos, 0);
      Value v3 = n.reshapeTo(v, {batch, treesD, SymDim::constant(1)});
      Value hit = n.cast(n.create<CmpOp>(CmpPredicate::eq, rows, v3), ct);
      Value any = n.create<CmpOp>(
          CmpPredicate::gt,
          n.create<ReduceMaxOp>(hit, Shape{2}, /*keepdims=*/false),
          n.scalar(ct, 0));
      cond = n.create<SelectOp>(is(m, Mode::MEMBER), any, cond);
    }
    // A missing value (NaN) also goes to the true side where the node says
    // so (its comparisons are false, but for NEQ).
    Value missing = n.create<CmpOp>(CmpPredicate::ne, v, v);
    Value track = n.create<CmpOp>(
        CmpPredicate::ne, takeAlong(n, missingT, pos, 0), n.scalar(i64, 0));
    cond = n.create<OrOp>(cond, n.create<AndOp>(missing, track));
    pos = n.create<SelectOp>(cond, takeAlong(n, trueT, pos, 0),
                             takeAlong(n, falseT, pos, 0));
    if (!pos)
      return {};
  }
  // The leaves' weights per target; for a minimum or a maximum, the other
  // targets hold the identity so they never win.
  double fill = 0;
  if (f.aggregate == Aggregate::Min)
    fill = ct.isF64() ? std::numeric_limits<double>::max()
                      : std::numeric_limits<float>::max();
  if (f.aggregate == Aggregate::Max)
    fill = ct.isF64() ? std::numeric_limits<double>::lowest()
                      : std::numeric_limits<float>::lowest();
  std::vector<double> table(size * nt, fill);
  std::vector<bool> set(size * nt, false);
  for (auto [p, target, w] : f.weights) {
    double &slot = table[p * nt + target];
    if (!set[p * nt + target] || f.aggregate == Aggregate::Sum ||
        f.aggregate == Aggregate::Average)
      slot = set[p * nt + target] ? slot + w : w;
    else if (f.aggregate == Aggregate::Min)
      slot = std::min(slot, w);
    else
      slot = std::max(slot, w);
    set[p * nt + target] = true;
  }
  Value weightT =
      n.constant(makeDense(RankedTensorType::get({size, nt}, ct), {}, table));
  Value picked = takeAlong(n, weightT, pos, 0); // (batch, trees, nt)
  Value y;
  switch (f.aggregate) {
  case Aggregate::Sum:
  case Aggregate::Average:
    y = n.create<ReduceSumOp>(picked, Shape{1}, /*keepdims=*/false);
    if (y && f.aggregate == Aggregate::Average)
      y = n.create<DivOp>(y, n.scalar(ct, static_cast<double>(trees)));
    break;
  case Aggregate::Min:
    y = n.create<ReduceMinOp>(picked, Shape{1}, /*keepdims=*/false);
    break;
  case Aggregate::Max:
    y = n.create<ReduceMaxOp>(picked, Shape{1}, /*keepdims=*/false);
    break;
  }
  if (y && !f.base.empty())
    y = n.create<AddOp>(
        y, n.constant(makeDense(RankedTensorType::get({nt}, ct), {}, f.base)));
  if (!y)
    return {};
  return y;
}

/// The post transform `post` of scores `y` (batch, classes) along the
/// classes.
Value postTransform(NodeImporter &n, Value y, StringRef post) {
  Type ct = elemOf(y);
  if (post == "NONE")
    return y;
  if (post == "LOGISTIC")
    return n.make<SigmoidOp>(y);
  if (post == "SOFTMAX")
    return n.make<SoftmaxOp>(y, 1);
  if (post == "SOFTMAX_ZERO") {
    // ONNX Runtime's: a softmax over the scores above 1e-7 in magnitude
    // (shifted by the largest of all scores); the others become v *
    // exp(-max) over the same sum (0 for a score of 0; a row of zeros
    // divides 0 by 0).
    Value zero = n.scalar(ct, 0);
    Value vmax = n.create<ReduceMaxOp>(y, Shape{1}, true);
    Value nonzero =
        n.create<CmpOp>(CmpPredicate::gt, n.make<AbsOp>(y), n.scalar(ct, 1e-7));
    Value e = n.make<ExpOp>(n.create<SubOp>(y, vmax));
    Value small = n.create<MulOp>(y, n.make<ExpOp>(n.create<NegOp>(vmax)));
    Value sum = n.create<ReduceSumOp>(n.create<SelectOp>(nonzero, e, zero),
                                      Shape{1}, true);
    Value v = n.create<SelectOp>(nonzero, e, small);
    return v && sum ? n.create<DivOp>(v, sum) : Value();
  }
  (void)n.fail("the post_transform '" + post +
               "' is not supported (NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO "
               "are)");
  return {};
}

/// evaluateForest with the post transform, as type `out`.
Value forestScores(NodeImporter &n, Value x, const Forest &f, Type out) {
  Value y = evaluateForest(n, x, f);
  y = y ? postTransform(n, y, f.post) : Value();
  return y ? n.cast(y, out) : Value();
}

/// Imputer: the values equal to replaced_value (NaN: the NaNs) replaced by
/// the imputed value of their feature (one value, or one per feature along
/// the last axis); floats with the float attributes, integers with the
/// int64 ones.
LogicalResult convertImputer(NodeImporter &n) {
  if (failed(n.checkAttrs({"imputed_value_floats", "imputed_value_int64s",
                           "replaced_value_float", "replaced_value_int64"})))
    return failure();
  if (!n.has(0))
    return n.fail("Imputer needs X");
  Value x = n.in(0);
  Type t = elemOf(x);
  bool isFloat = isa<FloatType>(t);
  if (!isFloat && !isa<IntegerType>(t))
    return n.fail("Imputer needs a numeric X");
  if (rankOf(x) < 1)
    return n.fail("Imputer needs an input of rank 1 or more");
  // (Integers as they are: int64 values past 2^53 do not survive a double.)
  std::vector<double> values;
  std::vector<int64_t> ints;
  if (isFloat) {
    auto floats = floatsAttr(n, "imputed_value_floats");
    if (failed(floats))
      return failure();
    values = *floats;
  } else {
    ints = intsAttr(n, "imputed_value_int64s");
    values.resize(ints.size());
  }
  auto intScalar = [&](int64_t v) {
    return n.constant(makeDense(RankedTensorType::get({}, t), {v}, {}));
  };
  if (values.empty())
    return n.fail(Twine("Imputer needs imputed_value_") +
                  (isFloat ? "floats" : "int64s") + " for its " +
                  (isFloat ? "floating-point" : "integer") + " input");
  int64_t features = shapeOf(x).back();
  Value imputed;
  if (values.size() == 1) {
    imputed = isFloat ? n.scalar(t, values[0]) : intScalar(ints[0]);
  } else if (!ShapedType::isDynamic(features) &&
             static_cast<int64_t>(values.size()) == features) {
    auto type = RankedTensorType::get({features}, t);
    imputed = isFloat ? n.constant(makeDense(type, {}, values))
                      : n.constant(makeDense(type, ints, {}));
  } else {
    return n.fail("Imputer has " + Twine(values.size()) +
                  " imputed values; expected 1 or one per feature (" +
                  (ShapedType::isDynamic(features) ? Twine("a dynamic count")
                                                   : Twine(features)) +
                  ")");
  }
  Value hit;
  if (isFloat) {
    double replaced = n.attrFloat("replaced_value_float", 0);
    hit = std::isnan(replaced)
              ? n.create<CmpOp>(CmpPredicate::ne, x, x)
              : n.create<CmpOp>(CmpPredicate::eq, x, n.scalar(t, replaced));
  } else {
    hit = n.create<CmpOp>(CmpPredicate::eq, x,
                          intScalar(n.attrInt("replaced_value_int64", 0)));
  }
  Value y = n.create<SelectOp>(hit, n.broadcastToDims(imputed, n.dimsOf(x)), x);
  TRY(y);
  n.setOut(0, y);
  return success();
}

/// SVMRegressor: with support vectors, sum_j coefficients[j] K(x, sv_j) +
/// rho (K linear, poly, rbf or sigmoid: one product with the support vectors,
/// rbf from the differences); without, the linear x.coefficients
/// + rho; `one_class` gives the sign (1 or -1). In f32 for f32 input, as ONNX
/// Runtime computes it; Y is float.
bool isSvmKernel(StringRef kernel) {
  return kernel == "LINEAR" || kernel == "POLY" || kernel == "RBF" ||
         kernel == "SIGMOID";
}

/// The kernel values (batch, supports) of the samples `x` (batch, features)
/// against the support vectors `sv` (supports x features, row-major), in
/// x's element type: LINEAR x.v, POLY (gamma x.v + coef0)^degree (the
/// degree as given, fractional too, as ONNX Runtime's pow), SIGMOID
/// tanh(gamma x.v + coef0), RBF exp(-gamma |x - v|^2) (the differences
/// squared and summed, as ONNX Runtime does: |x|^2 - 2 x.v + |v|^2 cancels
/// away the digits of features around 1000 near a support vector); params =
/// [gamma, coef0, degree].
Value svmKernel(NodeImporter &n, Value x, ArrayRef<double> sv, int64_t supports,
                StringRef kernel, ArrayRef<double> params) {
  Type f = elemOf(x);
  int64_t features = shapeOf(x)[1];
  double gamma = params.size() > 0 ? params[0] : 0,
         coef0 = params.size() > 1 ? params[1] : 0,
         degree = params.size() > 2 ? params[2] : 0;
  if (kernel == "RBF") {
    Value x3 = n.reshapeTo(
        x, {n.dimOf(x, 0), SymDim::constant(1), SymDim::constant(features)});
    Value v = n.constant(
        makeDense(RankedTensorType::get({1, supports, features}, f), {}, sv));
    Value d = x3 ? n.create<SubOp>(x3, v) : Value();
    Value dist =
        d ? n.create<ReduceSumOp>(n.create<MulOp>(d, d), Shape{2}, false)
          : Value();
    return dist ? n.make<ExpOp>(n.create<MulOp>(dist, n.scalar(f, -gamma)))
                : Value();
  }
  std::vector<double> svT(sv.size());
  for (int64_t j = 0; j < supports; ++j)
    for (int64_t c = 0; c < features; ++c)
      svT[c * supports + j] = sv[j * features + c];
  Value dot = n.create<MatmulOp>(
      x, n.constant(makeDense(RankedTensorType::get({features, supports}, f),
                              {}, svT)));
  if (!dot)
    return {};
  if (kernel == "LINEAR")
    return dot;
  Value a = n.create<AddOp>(n.create<MulOp>(dot, n.scalar(f, gamma)),
                            n.scalar(f, coef0));
  return kernel == "POLY" ? n.create<PowOp>(a, n.scalar(f, degree))
                          : n.make<TanhOp>(a);
}

LogicalResult convertSVMRegressor(NodeImporter &n) {
  if (failed(n.checkAttrs({"coefficients", "kernel_params", "kernel_type",
                           "n_supports", "one_class", "post_transform", "rho",
                           "support_vectors"})))
    return failure();
  if (!n.has(0))
    return n.fail("SVMRegressor needs X");
  std::string post = n.attrString("post_transform", "NONE");
  if (post != "NONE")
    return n.fail("SVMRegressor's post_transform '" + post +
                  "' is not supported (NONE is)");
  Value x = n.in(0);
  Type t = elemOf(x);
  if (!isa<FloatType>(t) && !isa<IntegerType>(t))
    return n.fail("SVMRegressor needs a numeric X");
  Type f = t.isF64() ? t : Float32Type::get(n.ctx);
  TRY(x = asMatrix(n, n.cast(x, f)));
  int64_t features = shapeOf(x)[1];
  if (ShapedType::isDynamic(features))
    return n.fail("SVMRegressor needs the number of features known while "
                  "importing");
  auto coef = floatsAttr(n, "coefficients"), rho = floatsAttr(n, "rho"),
       params = floatsAttr(n, "kernel_params"),
       sv = floatsAttr(n, "support_vectors");
  if (failed(coef) || failed(rho) || failed(params) || failed(sv))
    return failure();
  if (rho->size() != 1)
    return n.fail("SVMRegressor needs one rho");
  int64_t supports = n.attrInt("n_supports", 0);
  std::string kernel = n.attrString("kernel_type", "LINEAR");
  Value s;
  if (supports > 0) {
    if (static_cast<int64_t>(sv->size()) != supports * features ||
        static_cast<int64_t>(coef->size()) != supports)
      return n.fail("SVMRegressor has " + Twine(sv->size()) +
                    " support-vector values and " + Twine(coef->size()) +
                    " coefficients for " + Twine(supports) + " supports of " +
                    Twine(features) + " features");
    if (!isSvmKernel(kernel))
      return n.fail("SVMRegressor's kernel_type '" + kernel +
                    "' is not one of LINEAR, POLY, RBF, SIGMOID");
    Value k = svmKernel(n, x, *sv, supports, kernel, *params);
    TRY(k);
    s = n.create<MatmulOp>(
        k, n.constant(
               makeDense(RankedTensorType::get({supports, 1}, f), {}, *coef)));
  } else {
    if (static_cast<int64_t>(coef->size()) != features)
      return n.fail("SVMRegressor (linear, no supports) has " +
                    Twine(coef->size()) + " coefficients for " +
                    Twine(features) + " features");
    s = n.create<MatmulOp>(
        x, n.constant(
               makeDense(RankedTensorType::get({features, 1}, f), {}, *coef)));
  }
  TRY(s = n.create<AddOp>(s, n.scalar(f, (*rho)[0])));
  if (n.attrInt("one_class", 0))
    TRY(s = n.create<SelectOp>(
            n.create<CmpOp>(CmpPredicate::gt, s, n.scalar(f, 0)),
            n.scalar(f, 1), n.scalar(f, -1)));
  n.setOut(0, n.cast(s, Float32Type::get(n.ctx)));
  return success();
}

/// libsvm's pairwise coupling (Wu, Lin and Weng's second method, as ONNX
/// Runtime runs it): from the pairs' decision values `s` (batch, pairs) and
/// Platt's sigmoid parameters, the pairwise probabilities r_ij, the matrix
/// Q, then up to 100 rounds of the fixed-point update of p (batch,
/// classes), each sample stopping at the first round whose error is below
/// 0.005 / classes. The rounds are unrolled; a sample that has stopped has
/// its update scaled to 0, which leaves its p exactly as it was.
Value pairwiseCoupling(NodeImporter &n, Value s, ArrayRef<double> probA,
                       ArrayRef<double> probB, int64_t classes) {
  Type f32 = Float32Type::get(n.ctx), i1 = IntegerType::get(n.ctx, 1);
  int64_t pairs = classes * (classes - 1) / 2, k = classes;
  SymDim batch = n.dimOf(s, 0);
  auto vec = [&](ArrayRef<double> v) {
    return n.constant(makeDense(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, f32), {}, v));
  };
  // r_ij = clamp(1 - logistic(s A + B), 1e-7, 1 - 1e-7); r_ji = 1 - r_ij.
  Value val = n.make<SigmoidOp>(n.create<NegOp>(
      n.create<AddOp>(n.create<MulOp>(s, vec(probA)), vec(probB))));
  val = n.create<MinimumOp>(n.create<MaximumOp>(val, n.scalar(f32, 1e-7)),
                            n.scalar(f32, 1 - 1e-7));
  if (!val)
    return {};
  std::vector<double> upper(pairs * k * k, 0), lower(pairs * k * k, 0);
  int64_t p = 0;
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = i + 1; j < k; ++j, ++p) {
      upper[p * k * k + i * k + j] = 1;
      lower[p * k * k + j * k + i] = 1;
    }
  auto table = [&](const std::vector<double> &v) {
    return n.constant(
        makeDense(RankedTensorType::get({pairs, k * k}, f32), {}, v));
  };
  Value r = n.create<AddOp>(
      n.create<MatmulOp>(val, table(upper)),
      n.create<MatmulOp>(n.create<SubOp>(n.scalar(f32, 1), val), table(lower)));
  Value r3 = n.reshapeTo(r, {batch, SymDim::constant(k), SymDim::constant(k)});
  if (!r3)
    return {};
  // Q_tt = sum_j r_jt^2; Q_tj = -r_jt r_tj (the diagonal of r is 0).
  Value rt = n.create<TransposeOp>(r3, ArrayRef<int64_t>{0, 2, 1});
  Value off = n.create<NegOp>(n.create<MulOp>(rt, r3));
  Value diag = n.create<ReduceSumOp>(n.create<MulOp>(r3, r3), Shape{1},
                                     /*keepdims=*/false); // (batch, k)
  std::vector<double> eye(k * k, 0);
  for (int64_t t = 0; t < k; ++t)
    eye[t * k + t] = 1;
  Value q3 = n.create<AddOp>(
      off,
      n.create<MulOp>(
          n.reshapeTo(diag, {batch, SymDim::constant(k), SymDim::constant(1)}),
          n.constant(makeDense(RankedTensorType::get({k, k}, f32), {}, eye))));
  Value q = n.reshapeTo(q3, {batch, SymDim::constant(k * k)});
  if (!q)
    return {};
  SmallVector<Value> qtt, qrow;
  SmallVector<Value> unit;
  for (int64_t t = 0; t < k; ++t) {
    qtt.push_back(sliceAlong(n, q, 1, t * k + t, t * k + t + 1));
    qrow.push_back(sliceAlong(n, q, 1, t * k, (t + 1) * k));
    std::vector<double> e(k, 0);
    e[t] = 1;
    unit.push_back(vec(e));
  }
  Value prob =
      n.broadcastToDims(n.scalar(f32, 1.0 / k), {batch, SymDim::constant(k)});
  Value active = n.broadcastToDims(n.cast(n.scalar(f32, 1), i1),
                                   {batch, SymDim::constant(1)});
  double eps = 0.005 / k;
  for (int round = 0; round < 100; ++round) {
    Value qp = n.create<ReduceSumOp>(
        n.create<MulOp>(q3, n.reshapeTo(prob, {batch, SymDim::constant(1),
                                               SymDim::constant(k)})),
        Shape{2}, /*keepdims=*/false);
    Value pqp = n.create<ReduceSumOp>(n.create<MulOp>(prob, qp), Shape{1},
                                      /*keepdims=*/true);
    Value err = n.create<ReduceMaxOp>(n.make<AbsOp>(n.create<SubOp>(qp, pqp)),
                                      Shape{1}, /*keepdims=*/true);
    active = n.create<AndOp>(
        active, n.create<CmpOp>(CmpPredicate::ge, err, n.scalar(f32, eps)));
    if (!active)
      return {};
    for (int64_t t = 0; t < k; ++t) {
      Value qpt = sliceAlong(n, qp, 1, t, t + 1);
      Value diff =
          n.create<DivOp>(n.create<SubOp>(pqp, qpt), qtt[t]); // (batch, 1)
      diff = n.create<SelectOp>(active, diff, n.scalar(f32, 0));
      Value onePlus = n.create<AddOp>(n.scalar(f32, 1), diff);
      prob = n.create<AddOp>(prob, n.create<MulOp>(diff, unit[t]));
      Value grow = n.create<MulOp>(
          diff, n.create<AddOp>(n.create<MulOp>(diff, qtt[t]),
                                n.create<MulOp>(qpt, n.scalar(f32, 2))));
      pqp = n.create<DivOp>(
          n.create<DivOp>(n.create<AddOp>(pqp, grow), onePlus), onePlus);
      qp = n.create<DivOp>(n.create<AddOp>(qp, n.create<MulOp>(diff, qrow[t])),
                           onePlus);
      prob = n.create<DivOp>(prob, onePlus);
      if (!prob || !qp || !pqp)
        return {};
    }
  }
  return prob;
}

/// SVMClassifier with support vectors (scikit-learn's SVC, one-against-one):
/// the kernel values K (batch, supports) against every support vector, then
/// one decision value per pair of classes i < j,
///   s_ij = rho_p + sum_{v of class i} coef[j-1][v] K_v
///                + sum_{v of class j} coef[i][v] K_v,
/// which is one product of K with a constant (supports, pairs) matrix. Each
/// pair votes for i when s_ij > 0, else for j; the label is the first class
/// with the most votes. Scores: the decision values through the post
/// transform; with two classes (one pair) [-s, s]; with prob_a and prob_b,
/// the classes' probabilities by libsvm's pairwise coupling
/// (pairwiseCoupling). As ONNX Runtime does, the work is in f32 whatever
/// X's type. The linear form without support vectors (where ONNX Runtime's
/// labels and ONNX's reference evaluator's differ) is refused with a
/// message.
/// The most classes whose probability coupling is unrolled (100 rounds of
/// about 20 ops per class).
constexpr int64_t kMaxCoupledClasses = 8;

LogicalResult convertSVMClassifier(NodeImporter &n) {
  if (failed(n.checkAttrs({"classlabels_ints", "classlabels_strings",
                           "coefficients", "kernel_params", "kernel_type",
                           "post_transform", "prob_a", "prob_b", "rho",
                           "support_vectors", "vectors_per_class"})))
    return failure();
  if (!n.has(0))
    return n.fail("SVMClassifier needs X");
  if (n.attr("classlabels_strings"))
    return n.fail("SVMClassifier with classlabels_strings gives string "
                  "labels, which Tide does not support (strings are out of "
                  "scope); convert with integer labels (classlabels_ints)");
  Value x = n.in(0);
  Type t = elemOf(x);
  if (!isa<FloatType>(t) && !isa<IntegerType>(t))
    return n.fail("SVMClassifier needs a numeric X");
  std::vector<int64_t> labels = intsAttr(n, "classlabels_ints");
  std::vector<int64_t> perClass = intsAttr(n, "vectors_per_class");
  auto coef = floatsAttr(n, "coefficients"), rho = floatsAttr(n, "rho"),
       params = floatsAttr(n, "kernel_params"),
       sv = floatsAttr(n, "support_vectors"), probA = floatsAttr(n, "prob_a"),
       probB = floatsAttr(n, "prob_b");
  if (failed(coef) || failed(rho) || failed(params) || failed(sv) ||
      failed(probA) || failed(probB))
    return failure();
  int64_t classes = labels.size();
  if (classes < 2)
    return n.fail("SVMClassifier needs at least two class labels "
                  "(classlabels_ints)");
  int64_t supports = 0;
  for (int64_t c : perClass) {
    if (c < 0)
      return n.fail("SVMClassifier has a negative count in vectors_per_class");
    supports += c;
  }
  if (supports == 0)
    return n.fail("SVMClassifier without support vectors (the linear form) "
                  "is not supported: ONNX Runtime's labels for it and ONNX's "
                  "reference evaluator's differ; a LinearClassifier computes "
                  "the same scores");
  bool proba = !probA->empty() || !probB->empty();
  std::string kernel = n.attrString("kernel_type", "LINEAR");
  if (!isSvmKernel(kernel))
    return n.fail("SVMClassifier's kernel_type '" + kernel +
                  "' is not one of LINEAR, POLY, RBF, SIGMOID");
  Type f32 = Float32Type::get(n.ctx), i64 = IntegerType::get(n.ctx, 64);
  TRY(x = asMatrix(n, n.cast(x, f32)));
  int64_t features = shapeOf(x)[1];
  int64_t pairs = classes * (classes - 1) / 2;
  if (static_cast<int64_t>(perClass.size()) != classes)
    return n.fail("SVMClassifier has " + Twine(perClass.size()) +
                  " vectors_per_class entries for " + Twine(classes) +
                  " classes");
  if (ShapedType::isDynamic(features) ||
      static_cast<int64_t>(sv->size()) != supports * features)
    return n.fail("SVMClassifier has " + Twine(sv->size()) +
                  " support-vector values for " + Twine(supports) +
                  " support vectors; the input has " +
                  (ShapedType::isDynamic(features)
                       ? Twine("a dynamic number of")
                       : Twine(features)) +
                  " features");
  if (static_cast<int64_t>(coef->size()) != (classes - 1) * supports)
    return n.fail("SVMClassifier has " + Twine(coef->size()) +
                  " coefficients; " + Twine(classes) + " classes and " +
                  Twine(supports) + " support vectors need " +
                  Twine((classes - 1) * supports));
  if (static_cast<int64_t>(rho->size()) != pairs)
    return n.fail("SVMClassifier has " + Twine(rho->size()) + " rho values; " +
                  Twine(classes) + " classes need one per pair, " +
                  Twine(pairs));
  if (proba && (static_cast<int64_t>(probA->size()) != pairs ||
                static_cast<int64_t>(probB->size()) != pairs))
    return n.fail("SVMClassifier has " + Twine(probA->size()) + " prob_a and " +
                  Twine(probB->size()) + " prob_b values; " + Twine(classes) +
                  " classes need one of each per pair, " + Twine(pairs));
  if (proba && classes > kMaxCoupledClasses)
    return n.fail("SVMClassifier with probabilities over " + Twine(classes) +
                  " classes is not supported: libsvm's pairwise coupling is "
                  "unrolled over its 100 rounds, which Tide does for at most " +
                  Twine(kMaxCoupledClasses) +
                  " classes; decision values and labels are supported for any "
                  "number (convert without probability estimates)");
  std::string post = n.attrString("post_transform", "NONE");
  if (classes == 2 && !proba && post != "NONE")
    return n.fail("this two-class SVMClassifier (post_transform " + post +
                  ") is not supported: ONNX does not define its second "
                  "score; post_transform NONE is");
  bool positive = llvm::all_of(*coef, [](double c) { return c >= 0; });
  if (classes == 2 && !proba && positive)
    return n.fail("this two-class SVMClassifier (no negative coefficient) is "
                  "not supported: ONNX Runtime's label for it and ONNX's "
                  "reference evaluator's differ");

  // The pairs' weights of the kernel values and their votes.
  std::vector<int64_t> start(classes, 0);
  for (int64_t c = 1; c < classes; ++c)
    start[c] = start[c - 1] + perClass[c - 1];
  std::vector<double> weights(supports * pairs, 0), forI(pairs * classes, 0),
      forJ(pairs * classes, 0);
  int64_t p = 0;
  for (int64_t i = 0; i < classes; ++i)
    for (int64_t j = i + 1; j < classes; ++j, ++p) {
      for (int64_t v = start[i]; v < start[i] + perClass[i]; ++v)
        weights[v * pairs + p] = (*coef)[(j - 1) * supports + v];
      for (int64_t v = start[j]; v < start[j] + perClass[j]; ++v)
        weights[v * pairs + p] = (*coef)[i * supports + v];
      forI[p * classes + i] = 1;
      forJ[p * classes + j] = 1;
    }
  Value k = svmKernel(n, x, *sv, supports, kernel, *params);
  TRY(k);
  Value s = n.create<AddOp>(
      n.create<MatmulOp>(
          k, n.constant(makeDense(RankedTensorType::get({supports, pairs}, f32),
                                  {}, weights))),
      n.constant(makeDense(RankedTensorType::get({pairs}, f32), {}, *rho)));
  TRY(s);
  // votes = [s > 0] forI + [s <= 0] forJ, exact small integers in f32.
  Value win =
      n.cast(n.create<CmpOp>(CmpPredicate::gt, s, n.scalar(f32, 0)), f32);
  TRY(win);
  Value lose = n.create<SubOp>(n.scalar(f32, 1), win);
  auto table = [&](const std::vector<double> &v) {
    return n.constant(
        makeDense(RankedTensorType::get({pairs, classes}, f32), {}, v));
  };
  Value votes = n.create<AddOp>(n.create<MatmulOp>(win, table(forI)),
                                n.create<MatmulOp>(lose, table(forJ)));
  TRY(votes);
  Value best = n.create<ArgmaxOp>(votes, Shape{1}, /*keepdims=*/false);
  TRY(best);
  Value labelTable =
      n.constant(makeDense(RankedTensorType::get({classes}, i64), labels, {}));
  n.setOut(0, takeAlong(n, labelTable, best, 0));
  Value z =
      proba ? postTransform(n, pairwiseCoupling(n, s, *probA, *probB, classes),
                            post)
      : classes == 2 ? n.create<ConcatOp>(ValueRange{n.create<NegOp>(s), s}, 1)
                     : postTransform(n, s, post);
  TRY(z);
  n.setOut(1, z);
  return success();
}

/// `x` with a trailing axis of size 1 (to compare every element with a list).
Value withTrailingOne(NodeImporter &n, Value x) {
  SmallVector<SymDim> dims = n.dimsOf(x);
  dims.push_back(SymDim::constant(1));
  return n.reshapeTo(x, dims);
}

/// OneHotEncoder over integer categories: each element of X (any rank;
/// floats cast to int64 by truncation, as ONNX Runtime does; NaN matches
/// nothing) becomes a row of len(cats_int64s) floats with a 1 at its
/// category's position. A category listed twice counts at its last
/// position. Unknown values give all-zero rows; with zeros=0, where ONNX
/// Runtime fails the call, Tide says at compile time that it cannot (a
/// warning) and gives zeros.
LogicalResult convertOneHotEncoder(NodeImporter &n) {
  if (failed(n.checkAttrs({"cats_int64s", "cats_strings", "zeros"})))
    return failure();
  if (!n.has(0))
    return n.fail("OneHotEncoder needs X");
  if (n.attr("cats_strings"))
    return n.fail("OneHotEncoder with cats_strings reads strings, which Tide "
                  "does not support (strings are out of scope)");
  std::vector<int64_t> cats = intsAttr(n, "cats_int64s");
  if (cats.empty())
    return n.fail("OneHotEncoder needs categories (cats_int64s)");
  Value x = n.in(0);
  Type t = elemOf(x);
  if (!isa<FloatType>(t) && !isa<IntegerType>(t))
    return n.fail("OneHotEncoder needs a numeric X");
  if (!n.attrInt("zeros", 1))
    mlir::emitWarning(n.loc)
        << "OneHotEncoder has zeros=0, which makes a value outside the "
           "categories an error at run time; Tide's compiled code cannot "
           "fail a call, so such values give rows of zeros";
  Type i64 = IntegerType::get(n.ctx, 64), f32 = Float32Type::get(n.ctx);
  Value valid;
  if (isa<FloatType>(t))
    valid = withTrailingOne(n, n.create<CmpOp>(CmpPredicate::eq, x, x));
  Value xi = withTrailingOne(n, n.cast(x, i64));
  TRY(xi);
  int64_t c = cats.size();
  Value eq = n.create<CmpOp>(
      CmpPredicate::eq, xi,
      n.constant(makeDense(RankedTensorType::get({c}, i64), cats, {})));
  if (valid)
    eq = n.create<AndOp>(eq, valid);
  TRY(eq);
  Value y = n.cast(eq, f32);
  std::set<int64_t> seen;
  std::vector<double> last(c, 1);
  for (int64_t k = c - 1; k >= 0; --k)
    if (!seen.insert(cats[k]).second)
      last[k] = 0;
  if (seen.size() != cats.size())
    y = n.create<MulOp>(
        y, n.constant(makeDense(RankedTensorType::get({c}, f32), {}, last)));
  TRY(y);
  n.setOut(0, y);
  return success();
}

/// FeatureVectorizer: the inputs as (batch, width) rows (a vector is one
/// row; higher ranks flattened after the batch), in f32, each cut or padded
/// with zeros to its inputdimensions entry, then concatenated along the
/// features.
LogicalResult convertFeatureVectorizer(NodeImporter &n) {
  if (failed(n.checkAttrs({"inputdimensions"})))
    return failure();
  std::vector<int64_t> widths = intsAttr(n, "inputdimensions");
  if (widths.size() != n.numInputs())
    return n.fail("FeatureVectorizer has " + Twine(widths.size()) +
                  " inputdimensions values for " + Twine(n.numInputs()) +
                  " inputs");
  Type f32 = Float32Type::get(n.ctx);
  SmallVector<Value> parts;
  std::optional<SymDim> batch;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (!n.has(i))
      return n.fail("FeatureVectorizer's input " + Twine(i) + " is missing");
    if (widths[i] < 0)
      return n.fail("FeatureVectorizer has a negative inputdimensions value");
    Value v = n.in(i);
    Type t = elemOf(v);
    if (!isa<FloatType>(t) && !isa<IntegerType>(t))
      return n.fail("FeatureVectorizer needs numeric inputs");
    if (rankOf(v) == 0)
      return n.fail("FeatureVectorizer's input " + Twine(i) + " is a scalar");
    v = n.cast(v, f32);
    TRY(v);
    SymDim rows = rankOf(v) == 1 ? SymDim::constant(1) : n.dimOf(v, 0);
    int64_t width = 1;
    for (int64_t d = rankOf(v) == 1 ? 0 : 1; d < rankOf(v); ++d) {
      int64_t size = shapeOf(v)[d];
      if (ShapedType::isDynamic(size))
        return n.fail("FeatureVectorizer needs the widths of its inputs "
                      "known while importing (input " +
                      Twine(i) + " has a dynamic dimension " + Twine(d) + ")");
      width *= size;
    }
    v = n.reshapeTo(v, {rows, SymDim::constant(width)});
    TRY(v);
    if (!batch) {
      batch = rows;
    } else if (batch->isConst() && rows.isConst() &&
               batch->value != rows.value) {
      return n.fail("FeatureVectorizer's inputs have " + Twine(batch->value) +
                    " and " + Twine(rows.value) +
                    " rows (a vector is one row); they must agree");
    }
    if (width > widths[i])
      v = sliceAlong(n, v, 1, 0, widths[i]);
    else if (width < widths[i])
      v = n.create<ConcatOp>(
          ValueRange{v, n.broadcastToDims(
                            n.scalar(f32, 0),
                            {rows, SymDim::constant(widths[i] - width)})},
          1);
    TRY(v);
    if (widths[i] > 0)
      parts.push_back(v);
  }
  if (parts.empty())
    return n.fail("FeatureVectorizer has no features to write");
  Value y = parts.size() == 1 ? parts[0] : n.create<ConcatOp>(parts, 1);
  TRY(y);
  n.setOut(0, y);
  return success();
}

/// The numeric keys or values of a LabelEncoder: `<prefix>_int64s`,
/// `<prefix>_floats` or `<prefix>_tensor`, with their element type.
/// A LabelEncoder's keys or values: `ints` for an integer type (exact:
/// int64 values past 2^53 do not survive a double), else `floats`.
struct LabelList {
  std::vector<double> floats;
  std::vector<int64_t> ints;
  Type type;
  bool present = false;
  size_t size() const {
    return isa<IntegerType>(type) ? ints.size() : floats.size();
  }
};

FailureOr<LabelList> readLabelList(NodeImporter &n, StringRef prefix) {
  LabelList out;
  std::string ints = (prefix + "_int64s").str(),
              floats = (prefix + "_floats").str(),
              strings = (prefix + "_strings").str(),
              tensor = (prefix + "_tensor").str();
  if (n.attr(strings))
    return (void)n.fail("LabelEncoder with " + strings +
                        " maps strings, which Tide does not support (strings "
                        "are out of scope)"),
           failure();
  if (const onnx::AttributeProto *a = n.attr(tensor)) {
    std::string error;
    ElementsAttr value =
        a->has_t() ? n.readTensor(a->t(), tensor, error) : ElementsAttr();
    if (!value)
      return (void)n.fail("LabelEncoder's " + tensor +
                          " is not a numeric tensor" +
                          (error.empty() ? "" : " (" + error + ")")),
             failure();
    std::optional<HostValues> v =
        readHostValues(value, std::numeric_limits<int64_t>::max());
    if (!v)
      return (void)n.fail("LabelEncoder's " + tensor + " is not numeric"),
             failure();
    out.type = value.getElementType();
    for (int64_t i = 0; i < v->size(); ++i) {
      if (isa<IntegerType>(out.type))
        out.ints.push_back(v->intAt(i));
      else
        out.floats.push_back(v->at(i));
    }
    out.present = true;
    return out;
  }
  if (n.attr(ints)) {
    out.ints = intsAttr(n, ints);
    out.type = IntegerType::get(n.ctx, 64);
    out.present = true;
  } else if (n.attr(floats)) {
    auto v = floatsAttr(n, floats);
    if (failed(v))
      return failure();
    out.floats = *v;
    out.type = Float32Type::get(n.ctx);
    out.present = true;
  }
  return out;
}

/// LabelEncoder between numbers (ai.onnx.ml 2-4): each element of X equal to
/// a key becomes that key's value, any other the default. The keys are
/// compared with every element at once (X's shape x keys), the first match
/// picks the value. Keys given twice or NaN keys are refused (which one
/// wins is not defined); strings are out of scope.
LogicalResult convertLabelEncoder(NodeImporter &n) {
  if (failed(
          n.checkAttrs({"default_float", "default_int64", "default_string",
                        "default_tensor", "keys_floats", "keys_int64s",
                        "keys_strings", "keys_tensor", "values_floats",
                        "values_int64s", "values_strings", "values_tensor"})))
    return failure();
  if (!n.has(0))
    return n.fail("LabelEncoder needs X");
  auto keys = readLabelList(n, "keys");
  if (failed(keys))
    return failure();
  auto values = readLabelList(n, "values");
  if (failed(values))
    return failure();
  if (!keys->present || !values->present)
    return n.fail("LabelEncoder needs keys and values (keys_int64s, "
                  "keys_floats or keys_tensor; values_int64s, values_floats "
                  "or values_tensor)");
  if (keys->size() != values->size() || keys->size() == 0)
    return n.fail("LabelEncoder has " + Twine(keys->size()) + " keys and " +
                  Twine(values->size()) +
                  " values; it needs as many of each, at least one");
  Value x = n.in(0);
  if (elemOf(x) != keys->type)
    return n.fail("LabelEncoder's keys are " +
                  Twine(isa<FloatType>(keys->type) ? "floats" : "integers") +
                  " of another type than X's elements");
  std::set<double> seen;
  for (double k : keys->floats) {
    if (std::isnan(k))
      return n.fail("LabelEncoder has a NaN key, which ONNX does not define "
                    "a match for");
    if (!seen.insert(k).second)
      return n.fail("LabelEncoder has the key " +
                    Twine(llvm::formatv("{0}", k).str()) +
                    " twice; which value it maps to is not defined");
  }
  std::set<int64_t> seenInts;
  for (int64_t k : keys->ints)
    if (!seenInts.insert(k).second)
      return n.fail("LabelEncoder has the key " + Twine(k) +
                    " twice; which value it maps to is not defined");
  Type out = values->type;
  double dflt = 0;
  int64_t dfltInt = 0;
  if (n.attr("default_tensor")) {
    const onnx::AttributeProto *a = n.attr("default_tensor");
    std::string error;
    ElementsAttr value = a->has_t()
                             ? n.readTensor(a->t(), "default_tensor", error)
                             : ElementsAttr();
    std::optional<HostValues> v =
        value ? readHostValues(value, 1) : std::nullopt;
    if (!v || v->size() != 1 || value.getElementType() != out)
      return n.fail("LabelEncoder's default_tensor must be one value of the "
                    "values' type");
    dflt = v->at(0);
    dfltInt = v->intAt(0);
  } else if (isa<FloatType>(out)) {
    dflt = n.attrFloat("default_float", -0.0);
  } else {
    dfltInt = n.attrInt("default_int64", -1);
  }
  auto dense = [&](const LabelList &list) {
    auto type =
        RankedTensorType::get({static_cast<int64_t>(list.size())}, list.type);
    return n.constant(makeDense(type, list.ints, list.floats));
  };
  Value eq =
      n.create<CmpOp>(CmpPredicate::eq, withTrailingOne(n, x), dense(*keys));
  TRY(eq);
  int64_t last = rankOf(eq) - 1;
  Value hit = n.cast(eq, IntegerType::get(n.ctx, 32));
  Value which = n.create<ArgmaxOp>(hit, Shape{last}, /*keepdims=*/false);
  Value found =
      n.cast(n.create<ReduceMaxOp>(hit, Shape{last}, /*keepdims=*/false),
             IntegerType::get(n.ctx, 1));
  TRY(which);
  TRY(found);
  Value picked = takeAlong(n, dense(*values), which, 0);
  Value fallback =
      isa<IntegerType>(out)
          ? n.constant(makeDense(RankedTensorType::get({}, out), {dfltInt}, {}))
          : n.scalar(out, dflt);
  Value y = n.create<SelectOp>(found, picked, fallback);
  TRY(y);
  n.setOut(0, y);
  return success();
}

/// Normalizer: each row divided by its maximum (MAX), its sum of absolute
/// values (L1) or its Euclidean norm (L2), computed in f32; a row whose norm
/// is 0 is kept (as ONNX Runtime does).
LogicalResult convertNormalizer(NodeImporter &n) {
  if (failed(n.checkAttrs({"norm"})))
    return failure();
  if (!n.has(0))
    return n.fail("Normalizer needs X");
  Value x = n.in(0);
  if (rankOf(x) != 1 && rankOf(x) != 2)
    return n.fail("Normalizer needs an input of rank 1 or 2");
  std::string norm = n.attrString("norm", "MAX");
  if (norm != "MAX" && norm != "L1" && norm != "L2")
    return n.fail("Normalizer's norm '" + norm + "' is not one of MAX, L1, L2");
  Type f32 = Float32Type::get(n.ctx);
  Value v = n.cast(x, f32);
  TRY(v);
  int64_t axis = rankOf(x) - 1;
  Value z;
  if (norm == "MAX")
    z = n.create<ReduceMaxOp>(v, Shape{axis}, /*keepdims=*/true);
  else if (norm == "L1")
    z = n.create<ReduceSumOp>(n.make<AbsOp>(v), Shape{axis}, true);
  else
    z = n.make<SqrtOp>(
        n.create<ReduceSumOp>(n.create<MulOp>(v, v), Shape{axis}, true));
  TRY(z);
  Value zero = n.create<CmpOp>(CmpPredicate::eq, z, n.scalar(f32, 0));
  Value y = n.create<DivOp>(v, n.create<SelectOp>(zero, n.scalar(f32, 1), z));
  TRY(y);
  n.setOut(0, y);
  return success();
}

/// LinearClassifier (two or more classes): scores X W^T + b in f32 (as
/// ONNX Runtime computes them), the label of the largest score (the first
/// one on a tie), and the scores through the post transform.
LogicalResult convertLinearClassifier(NodeImporter &n) {
  if (failed(n.checkAttrs({"classlabels_ints", "classlabels_strings",
                           "coefficients", "intercepts", "multi_class",
                           "post_transform"})))
    return failure();
  if (!n.has(0))
    return n.fail("LinearClassifier needs X");
  if (n.attr("classlabels_strings"))
    return n.fail("LinearClassifier with classlabels_strings gives string "
                  "labels, which Tide does not support (strings are out of "
                  "scope); convert with integer labels (classlabels_ints)");
  std::vector<int64_t> labels = intsAttr(n, "classlabels_ints");
  auto coef = floatsAttr(n, "coefficients");
  auto inter = floatsAttr(n, "intercepts");
  if (failed(coef) || failed(inter))
    return failure();
  int64_t classes = inter->size();
  if (classes < 2)
    return n.fail("LinearClassifier with " + Twine(classes) +
                  " score (a two-class model written with one row of "
                  "coefficients) is not supported: ONNX does not define its "
                  "second score; models with one row per class are");
  if (static_cast<int64_t>(labels.size()) != classes)
    return n.fail("LinearClassifier has " + Twine(labels.size()) +
                  " class labels for " + Twine(classes) + " intercepts");
  Type f32 = Float32Type::get(n.ctx);
  Value x = asMatrix(n, n.cast(n.in(0), f32));
  TRY(x);
  int64_t features = shapeOf(x)[1];
  if (ShapedType::isDynamic(features) ||
      static_cast<int64_t>(coef->size()) != classes * features)
    return n.fail(
        "LinearClassifier has " + Twine(coef->size()) + " coefficients for " +
        Twine(classes) + " classes; the input has " +
        (ShapedType::isDynamic(features) ? Twine("a dynamic number of")
                                         : Twine(features)) +
        " features");
  std::vector<double> transposed(coef->size());
  for (int64_t r = 0; r < classes; ++r)
    for (int64_t c = 0; c < features; ++c)
      transposed[c * classes + r] = (*coef)[r * features + c];
  Value scores = n.create<AddOp>(
      n.create<MatmulOp>(x, n.constant(makeDense(
                                RankedTensorType::get({features, classes}, f32),
                                {}, transposed))),
      n.constant(makeDense(RankedTensorType::get({classes}, f32), {}, *inter)));
  TRY(scores);
  Value best = n.create<ArgmaxOp>(scores, Shape{1}, /*keepdims=*/false);
  Value table = n.constant(
      makeDense(RankedTensorType::get({classes}, IntegerType::get(n.ctx, 64)),
                labels, {}));
  TRY(best);
  n.setOut(0, takeAlong(n, table, best, 0));
  Value z = postTransform(n, scores, n.attrString("post_transform", "NONE"));
  TRY(z);
  n.setOut(1, z);
  return success();
}

FailureOr<Aggregate> readAggregate(NodeImporter &n, const std::string &name) {
  if (name == "SUM")
    return Aggregate::Sum;
  if (name == "AVERAGE")
    return Aggregate::Average;
  if (name == "MIN")
    return Aggregate::Min;
  if (name == "MAX")
    return Aggregate::Max;
  return (void)n.fail("aggregate_function '" + name +
                      "' is not one of SUM, AVERAGE, MIN, MAX"),
         failure();
}

/// TreeEnsemble (ai.onnx.ml 5): nodes and leaves in separate arrays; a
/// node's successor is a leaf index when its `*leafs` flag is set.
LogicalResult convertTreeEnsemble(NodeImporter &n) {
  if (failed(
          n.checkAttrs({"aggregate_function", "leaf_targetids", "leaf_weights",
                        "membership_values", "n_targets", "nodes_falseleafs",
                        "nodes_falsenodeids", "nodes_featureids",
                        "nodes_hitrates", "nodes_missing_value_tracks_true",
                        "nodes_modes", "nodes_splits", "nodes_trueleafs",
                        "nodes_truenodeids", "post_transform", "tree_roots"})))
    return failure();
  if (!n.has(0))
    return n.fail("TreeEnsemble needs X");
  Value x = n.in(0);
  if (!isa<FloatType>(elemOf(x)))
    return n.fail("TreeEnsemble needs a floating-point X");
  auto splits = floatsAttr(n, "nodes_splits"),
       leafWeights = floatsAttr(n, "leaf_weights"),
       memberValues = floatsAttr(n, "membership_values");
  if (failed(splits) || failed(leafWeights) || failed(memberValues))
    return failure();
  std::vector<int64_t> features = intsAttr(n, "nodes_featureids"),
                       modes = intsAttr(n, "nodes_modes"),
                       trueIds = intsAttr(n, "nodes_truenodeids"),
                       falseIds = intsAttr(n, "nodes_falsenodeids"),
                       trueLeaf = intsAttr(n, "nodes_trueleafs"),
                       falseLeaf = intsAttr(n, "nodes_falseleafs"),
                       missing = intsAttr(n, "nodes_missing_value_tracks_true"),
                       leafTargets = intsAttr(n, "leaf_targetids"),
                       roots = intsAttr(n, "tree_roots");
  size_t nodes = splits->size(), leaves = leafWeights->size();
  if (features.size() != nodes || modes.size() != nodes ||
      trueIds.size() != nodes || falseIds.size() != nodes ||
      trueLeaf.size() != nodes || falseLeaf.size() != nodes ||
      (!missing.empty() && missing.size() != nodes) ||
      leafTargets.size() != leaves || roots.empty())
    return n.fail("TreeEnsemble's node attributes must all have one entry "
                  "per node, its leaf attributes one per leaf, and there "
                  "must be tree_roots");
  Forest f;
  f.targets = n.attrInt("n_targets", 0);
  if (f.targets < 1)
    return n.fail("TreeEnsemble needs a positive n_targets");
  int64_t agg = n.attrInt("aggregate_function", 1);
  if (agg < 0 || agg > 3)
    return n.fail("TreeEnsemble's aggregate_function must be 0 to 3");
  f.aggregate = agg == 0   ? Aggregate::Average
                : agg == 1 ? Aggregate::Sum
                : agg == 2 ? Aggregate::Min
                           : Aggregate::Max;
  int64_t post = n.attrInt("post_transform", 0);
  const char *posts[] = {"NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO",
                         "PROBIT"};
  if (post < 0 || post > 4)
    return n.fail("TreeEnsemble's post_transform must be 0 to 4");
  f.post = posts[post];
  // Positions: nodes first, then leaves.
  for (size_t i = 0; i < nodes + leaves; ++i)
    f.addLeaf();
  size_t nextMember = 0;
  for (size_t i = 0; i < nodes; ++i) {
    if (modes[i] < 0 || modes[i] > 6)
      return n.fail("TreeEnsemble's node " + Twine(i) + " has mode " +
                    Twine(modes[i]) + " (0 to 6 are defined)");
    auto successor = [&](int64_t id, int64_t leaf) -> int64_t {
      if (leaf)
        return id >= 0 && id < static_cast<int64_t>(leaves) ? nodes + id : -1;
      return id >= 0 && id < static_cast<int64_t>(nodes) ? id : -1;
    };
    f.feature[i] = features[i];
    f.mode[i] = modes[i];
    f.split[i] = (*splits)[i];
    f.missingTrue[i] = missing.empty() ? 0 : missing[i];
    f.trueNext[i] = successor(trueIds[i], trueLeaf[i]);
    f.falseNext[i] = successor(falseIds[i], falseLeaf[i]);
    if (f.trueNext[i] < 0 || f.falseNext[i] < 0)
      return n.fail("TreeEnsemble's node " + Twine(i) +
                    " has a successor out of range");
    if (modes[i] == static_cast<int64_t>(Mode::MEMBER)) {
      // The node's set: membership values up to the next NaN.
      while (nextMember < memberValues->size() &&
             !std::isnan((*memberValues)[nextMember]))
        f.members[i].push_back((*memberValues)[nextMember++]);
      if (nextMember >= memberValues->size())
        return n.fail("TreeEnsemble's membership_values must give each "
                      "set-membership node its values, each set ended by a "
                      "NaN");
      ++nextMember;
    }
  }
  for (size_t l = 0; l < leaves; ++l) {
    if (leafTargets[l] < 0 || leafTargets[l] >= f.targets)
      return n.fail("TreeEnsemble's leaf " + Twine(l) + " has target " +
                    Twine(leafTargets[l]) + " outside the " + Twine(f.targets) +
                    " targets");
    f.weights.emplace_back(nodes + l, leafTargets[l], (*leafWeights)[l]);
  }
  for (int64_t r : roots) {
    if (r < 0 || r >= static_cast<int64_t>(nodes))
      return n.fail("TreeEnsemble's tree root " + Twine(r) + " is not a node");
    // A tree that is one leaf: both successors the same leaf.
    if (trueLeaf[r] && falseLeaf[r] && trueIds[r] == falseIds[r])
      f.roots.push_back(f.trueNext[r]);
    else
      f.roots.push_back(r);
  }
  // MIN and MAX start from the type's extremes, as the reference does.
  Value y = forestScores(n, x, f, elemOf(x));
  TRY(y);
  n.setOut(0, y);
  return success();
}

/// The trees of the legacy TreeEnsembleRegressor/Classifier (ai.onnx.ml 1
/// and 3): nodes named by (tree id, node id), LEAF nodes holding the
/// weights `<w>_treeids`, `<w>_nodeids`, `<w>_ids`, `<w>_weights` (w is
/// "target" or "class") for `f.targets` targets. Fills `f` but its targets,
/// aggregate, base and post transform.
LogicalResult readLegacyForest(NodeImporter &n, StringRef w, Forest &f,
                               bool &everyLeafWeighed) {
  std::string op = n.opType().str();
  auto values = floatsAttr(n, "nodes_values", /*asTensor=*/true);
  auto weights = floatsAttr(n, (w + "_weights").str(), /*asTensor=*/true);
  if (failed(values) || failed(weights))
    return failure();
  std::vector<int64_t> treeIds = intsAttr(n, "nodes_treeids"),
                       nodeIds = intsAttr(n, "nodes_nodeids"),
                       features = intsAttr(n, "nodes_featureids"),
                       trueIds = intsAttr(n, "nodes_truenodeids"),
                       falseIds = intsAttr(n, "nodes_falsenodeids"),
                       missing = intsAttr(n, "nodes_missing_value_tracks_true"),
                       weightTrees = intsAttr(n, (w + "_treeids").str()),
                       weightNodes = intsAttr(n, (w + "_nodeids").str()),
                       weightIds = intsAttr(n, (w + "_ids").str());
  std::vector<std::string> modes = stringsAttr(n, "nodes_modes");
  size_t count = treeIds.size();
  if (nodeIds.size() != count || features.size() != count ||
      trueIds.size() != count || falseIds.size() != count ||
      modes.size() != count || values->size() != count ||
      (!missing.empty() && missing.size() != count) || count == 0)
    return n.fail(op + "'s nodes_* attributes must all have one entry per "
                       "node");
  if (weightNodes.size() != weightTrees.size() ||
      weightIds.size() != weightTrees.size() ||
      weights->size() != weightTrees.size())
    return n.fail(op + "'s " + w +
                  "_* attributes must all have one entry per weight");
  std::map<std::pair<int64_t, int64_t>, int64_t> position;
  for (size_t i = 0; i < count; ++i) {
    if (!position.emplace(std::pair(treeIds[i], nodeIds[i]), i).second)
      return n.fail(op + "'s node " + Twine(nodeIds[i]) + " of tree " +
                    Twine(treeIds[i]) + " is defined twice");
    f.addLeaf();
  }
  static const std::pair<const char *, Mode> names[] = {
      {"BRANCH_LEQ", Mode::LEQ}, {"BRANCH_LT", Mode::LT},
      {"BRANCH_GTE", Mode::GTE}, {"BRANCH_GT", Mode::GT},
      {"BRANCH_EQ", Mode::EQ},   {"BRANCH_NEQ", Mode::NEQ}};
  // Each tree's root is its first node listed (as ONNX Runtime takes it).
  std::map<int64_t, int64_t> rootOf;
  std::vector<int64_t> treeOrder;
  for (size_t i = 0; i < count; ++i) {
    if (rootOf.emplace(treeIds[i], i).second)
      treeOrder.push_back(treeIds[i]);
    if (modes[i] == "LEAF")
      continue;
    auto mode = llvm::find_if(
        names, [&](const auto &p) { return modes[i] == p.first; });
    if (mode == std::end(names))
      return n.fail(op + "'s node mode '" + modes[i] +
                    "' is not one of BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, "
                    "BRANCH_GT, BRANCH_EQ, BRANCH_NEQ, LEAF");
    auto t = position.find({treeIds[i], trueIds[i]});
    auto e = position.find({treeIds[i], falseIds[i]});
    if (t == position.end() || e == position.end())
      return n.fail(op + "'s node " + Twine(nodeIds[i]) + " of tree " +
                    Twine(treeIds[i]) +
                    " has a successor that is not a node of its tree");
    f.mode[i] = static_cast<int64_t>(mode->second);
    f.feature[i] = features[i];
    f.split[i] = (*values)[i];
    f.missingTrue[i] = missing.empty() ? 0 : missing[i];
    f.trueNext[i] = t->second;
    f.falseNext[i] = e->second;
  }
  for (int64_t tree : treeOrder)
    f.roots.push_back(rootOf[tree]);
  std::vector<bool> weighed(count, false);
  for (size_t k = 0; k < weightTrees.size(); ++k) {
    auto p = position.find({weightTrees[k], weightNodes[k]});
    if (p == position.end() || modes[p->second] != "LEAF")
      return n.fail(op + "'s " + w + " weight " + Twine(k) + " names node " +
                    Twine(weightNodes[k]) + " of tree " +
                    Twine(weightTrees[k]) + ", which is not a leaf");
    if (weightIds[k] < 0 || weightIds[k] >= f.targets)
      return n.fail(op + "'s " + w + " id " + Twine(weightIds[k]) +
                    " is outside the " + Twine(f.targets) +
                    (w == "class" ? " classes" : " targets"));
    f.weights.emplace_back(p->second, weightIds[k], (*weights)[k]);
    weighed[p->second] = true;
  }
  everyLeafWeighed = true;
  for (size_t i = 0; i < count; ++i)
    everyLeafWeighed &= modes[i] != "LEAF" || weighed[i];
  return success();
}

const std::vector<StringRef> kLegacyNodeAttrs = {
    "base_values",
    "base_values_as_tensor",
    "nodes_falsenodeids",
    "nodes_featureids",
    "nodes_hitrates",
    "nodes_hitrates_as_tensor",
    "nodes_missing_value_tracks_true",
    "nodes_modes",
    "nodes_nodeids",
    "nodes_treeids",
    "nodes_truenodeids",
    "nodes_values",
    "nodes_values_as_tensor",
    "post_transform"};

/// TreeEnsembleRegressor (ai.onnx.ml 1 and 3).
LogicalResult convertTreeEnsembleRegressor(NodeImporter &n) {
  SmallVector<StringRef> known(kLegacyNodeAttrs.begin(),
                               kLegacyNodeAttrs.end());
  known.append({"aggregate_function", "n_targets", "target_ids",
                "target_nodeids", "target_treeids", "target_weights",
                "target_weights_as_tensor"});
  if (failed(n.checkAttrs(known)))
    return failure();
  if (!n.has(0))
    return n.fail("TreeEnsembleRegressor needs X");
  Value x = n.in(0);
  Type xt = elemOf(x);
  if (!isa<FloatType>(xt) && !isa<IntegerType>(xt))
    return n.fail("TreeEnsembleRegressor needs a numeric X");
  Forest f;
  std::string agg = n.attrString("aggregate_function", "SUM");
  auto aggregate = readAggregate(n, agg);
  if (failed(aggregate))
    return failure();
  f.aggregate = *aggregate;
  f.post = n.attrString("post_transform", "NONE");
  f.targets = n.attrInt("n_targets", 1);
  if (f.targets < 1)
    return n.fail("TreeEnsembleRegressor needs a positive n_targets");
  auto base = floatsAttr(n, "base_values", /*asTensor=*/true);
  if (failed(base))
    return failure();
  if (!base->empty() && static_cast<int64_t>(base->size()) != f.targets)
    return n.fail("TreeEnsembleRegressor has " + Twine(base->size()) +
                  " base_values for " + Twine(f.targets) + " targets");
  f.base = *base;
  bool everyLeaf;
  if (failed(readLegacyForest(n, "target", f, everyLeaf)))
    return failure();
  // Y is float (ONNX's definition), computed in double for a double X.
  Value y = forestScores(n, x, f, Float32Type::get(n.ctx));
  TRY(y);
  n.setOut(0, y);
  return success();
}

/// TreeEnsembleClassifier (ai.onnx.ml 1 and 3): the class scores are the
/// sum over the trees plus the base values. With more than two classes the
/// label is the class of the largest score and the scores go through the
/// post transform. Two classes follow ONNX Runtime's rules, which the
/// specification leaves open, for the form scikit-learn's converters write:
/// the trees weigh class 0 only, every leaf; the score v of that class
/// (plus its base value) decides the label (v > 0.5 when every weight is
/// non-negative, else v > 0) and the two outputs are derived from v.
LogicalResult convertTreeEnsembleClassifier(NodeImporter &n) {
  SmallVector<StringRef> known(kLegacyNodeAttrs.begin(),
                               kLegacyNodeAttrs.end());
  known.append({"class_ids", "class_nodeids", "class_treeids", "class_weights",
                "class_weights_as_tensor", "classlabels_int64s",
                "classlabels_strings"});
  if (failed(n.checkAttrs(known)))
    return failure();
  if (!n.has(0))
    return n.fail("TreeEnsembleClassifier needs X");
  Value x = n.in(0);
  Type xt = elemOf(x);
  if (!isa<FloatType>(xt) && !isa<IntegerType>(xt))
    return n.fail("TreeEnsembleClassifier needs a numeric X");
  if (n.attr("classlabels_strings"))
    return n.fail("TreeEnsembleClassifier with classlabels_strings gives "
                  "string labels, which Tide does not support (strings are "
                  "out of scope); convert with integer labels "
                  "(classlabels_int64s)");
  std::vector<int64_t> labels = intsAttr(n, "classlabels_int64s");
  int64_t classes = labels.size();
  if (classes < 2)
    return n.fail("TreeEnsembleClassifier needs at least two class labels");
  Forest f;
  f.targets = classes;
  f.post = n.attrString("post_transform", "NONE");
  auto base = floatsAttr(n, "base_values", /*asTensor=*/true);
  if (failed(base))
    return failure();
  bool everyLeaf;
  if (failed(readLegacyForest(n, "class", f, everyLeaf)))
    return failure();
  std::set<int64_t> used;
  bool positive = true;
  for (auto [p, id, w] : f.weights) {
    used.insert(id);
    positive &= w > 0;
  }
  Type f32 = Float32Type::get(n.ctx), i64 = IntegerType::get(n.ctx, 64);
  Value labelTable =
      n.constant(makeDense(RankedTensorType::get({classes}, i64), labels, {}));
  if (classes > 2) {
    if (!base->empty() && static_cast<int64_t>(base->size()) != classes)
      return n.fail("TreeEnsembleClassifier has " + Twine(base->size()) +
                    " base_values for " + Twine(classes) + " classes");
    f.base = *base;
    // ONNX Runtime leaves a class that no tree scored out of the argmax when
    // there are no base values; that matters only with weights of 0 or
    // below (an unscored class's 0 can then tie or win).
    if (base->empty() && !positive) {
      std::map<int64_t, std::set<int64_t>> classesOf;
      for (auto [p, id, w] : f.weights)
        classesOf[p].insert(id);
      bool everyClass =
          everyLeaf && llvm::all_of(classesOf, [&](auto &e) {
            return static_cast<int64_t>(e.second.size()) == classes;
          });
      if (!everyClass)
        return n.fail("this TreeEnsembleClassifier (weights of 0 or below, no "
                      "base values, leaves that do not weigh every class) "
                      "is not supported: ONNX Runtime leaves the classes a "
                      "sample's trees did not score out of its label, which "
                      "ONNX does not define");
    }
    Value raw = evaluateForest(n, x, f);
    TRY(raw);
    Value best = n.create<ArgmaxOp>(raw, Shape{1}, /*keepdims=*/false);
    TRY(best);
    n.setOut(0, takeAlong(n, labelTable, best, 0));
    Value z = postTransform(n, raw, f.post);
    TRY(z);
    n.setOut(1, n.cast(z, f32));
    return success();
  }
  if (used.size() != 1 || !everyLeaf)
    return n.fail(
        "this two-class TreeEnsembleClassifier (its leaves weigh " +
        Twine(used.size() == 1 ? "one class, not every leaf" : "both classes") +
        ") is not supported: ONNX's result for it is not defined "
        "and ONNX Runtime's depends on which leaves have weights; "
        "two-class ensembles whose every leaf weighs one class "
        "are");
  int64_t id = *used.begin();
  if (f.post == "PROBIT")
    return n.fail("TreeEnsembleClassifier's post_transform PROBIT is not "
                  "supported");
  // The scored class's value v.
  Value raw = evaluateForest(n, x, f);
  TRY(raw);
  Type ct = elemOf(raw);
  SymDim batch = n.dimOf(raw, 0);
  Value v = sliceAlong(n, raw, 1, id, id + 1); // (batch, 1)
  TRY(v);
  double b0 = base->size() >= 1 ? (*base)[0] : 0;
  Value z;
  if (id != 0)
    return n.fail("this two-class TreeEnsembleClassifier (its leaves weigh "
                  "class 1 only) is not supported: ONNX's result for it is "
                  "not defined and ONNX Runtime's does not follow its "
                  "documented rules; ensembles weighing class 0 (as "
                  "scikit-learn's converters write them) are");
  if (base->size() > 1 || (f.post != "NONE" && f.post != "LOGISTIC"))
    return n.fail("this two-class TreeEnsembleClassifier (" +
                  Twine(base->size() > 1 ? "two base values"
                                         : "post_transform " + f.post) +
                  ") is not supported: ONNX's result for it is not defined "
                  "and ONNX Runtime's does not follow its documented rules; "
                  "one base value and NONE or LOGISTIC are");
  {
    // One score v (+ b0): with LOGISTIC [sigmoid(-v), sigmoid(v)]; else
    // [1 - v, v] for non-negative weights, [-v, v] for mixed ones (as
    // ONNX Runtime 1.31 computes them).
    TRY(v = n.create<AddOp>(v, n.scalar(ct, b0)));
    Value first, second = v;
    if (f.post == "LOGISTIC") {
      first = n.make<SigmoidOp>(n.create<NegOp>(v));
      second = n.make<SigmoidOp>(v);
    } else if (positive) {
      first = n.create<SubOp>(n.scalar(ct, 1), v);
    } else {
      first = n.create<NegOp>(v);
    }
    z = n.create<ConcatOp>(ValueRange{first, second}, 1);
  }
  TRY(z);
  Value decide =
      n.create<CmpOp>(CmpPredicate::gt, v, n.scalar(ct, positive ? 0.5 : 0.0));
  Value label = n.create<SelectOp>(decide, n.scalar(i64, labels[1]),
                                   n.scalar(i64, labels[0]));
  TRY(label);
  n.setOut(0, n.reshapeTo(label, {batch}));
  n.setOut(1, n.cast(z, f32));
  return success();
}

/// The ai.onnx.ml ops over maps and sequences (out of scope): a message that
/// says why, and what a converter can write instead.
LogicalResult convertMapOp(NodeImporter &n) {
  StringRef op = n.opType();
  if (op == "ZipMap")
    return n.fail("ZipMap returns a sequence of maps, which Tide does not "
                  "support (maps and sequences are out of scope); the "
                  "scores tensor before it is what Tide can return: "
                  "scikit-learn's converters leave ZipMap out with "
                  "options={'zipmap': False}");
  if (op == "CategoryMapper")
    return n.fail("CategoryMapper maps strings to integers and back, which "
                  "Tide does not support (strings are out of scope)");
  return n.fail(op + " reads a map, which Tide does not support (maps and "
                     "sequences are out of scope); give the model a tensor "
                     "input instead");
}

} // namespace

void onnx_import::addMLConverters(llvm::StringMap<Converter> &table) {
  // ai.onnx.ml ops are keyed "ai.onnx.ml:<op type>".
  table["ai.onnx.ml:Binarizer"] = convertBinarizer;
  table["ai.onnx.ml:Scaler"] = convertScaler;
  table["ai.onnx.ml:ArrayFeatureExtractor"] = convertArrayFeatureExtractor;
  table["ai.onnx.ml:LinearRegressor"] = convertLinearRegressor;
  table["ai.onnx.ml:LinearClassifier"] = convertLinearClassifier;
  table["ai.onnx.ml:Normalizer"] = convertNormalizer;
  table["ai.onnx.ml:Imputer"] = convertImputer;
  table["ai.onnx.ml:SVMRegressor"] = convertSVMRegressor;
  table["ai.onnx.ml:SVMClassifier"] = convertSVMClassifier;
  table["ai.onnx.ml:OneHotEncoder"] = convertOneHotEncoder;
  table["ai.onnx.ml:FeatureVectorizer"] = convertFeatureVectorizer;
  table["ai.onnx.ml:LabelEncoder"] = convertLabelEncoder;
  for (const char *op :
       {"ZipMap", "DictVectorizer", "CastMap", "CategoryMapper"})
    table[std::string("ai.onnx.ml:") + op] = convertMapOp;
  table["ai.onnx.ml:TreeEnsemble"] = convertTreeEnsemble;
  table["ai.onnx.ml:TreeEnsembleRegressor"] = convertTreeEnsembleRegressor;
  table["ai.onnx.ml:TreeEnsembleClassifier"] = convertTreeEnsembleClassifier;
}
