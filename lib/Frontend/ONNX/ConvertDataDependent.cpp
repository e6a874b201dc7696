//===- ConvertDataDependent.cpp - NonZero, Compress, Unique, NMS ----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// ONNX ops whose output sizes depend on the input values. Two tide ops hold
// that dependence (host code, sizes counted at run time): tide.nonzero and
// tide.non_max_suppression. The rest is composed from tensor ops:
//
// - NonZero: tide.nonzero;
// - Compress: the positions of the true conditions (tide.nonzero), then a
//   take along the axis (the flattened input without one);
// - Unique of elements (no axis, or a vector): a stable sort (tide.top_k of
//   all of them), the starts of the runs of equal values (tide.nonzero), a
//   cumulative sum for each element's run; n log n work;
// - Unique of slices along an axis: every pair of items compared once:
//   equality gives each item's first occurrence and count, order gives each
//   first occurrence's rank among the distinct items; the first occurrences
//   (tide.nonzero) in rank order (sorted) or input order are the outputs'
//   positions. Work and memory grow with the square of the item count, fine
//   for the sizes of real models' vocabularies of a batch, not for millions
//   of slices;
// - NonMaxSuppression: tide.non_max_suppression.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

#define TRY(x)                                                                 \
  do {                                                                         \
    if (!(x))                                                                  \
      return failure();                                                        \
  } while (false)

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}
Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// The float value of input `i` when it is a narrow float (float8/float4
/// bits): compared as values, not as bits (-0.0 is zero).
Value valueIn(NodeImporter &n, unsigned i) {
  Value x = n.in(i);
  int32_t dt = n.narrowIn(i);
  if (dt && narrow::isFloat(dt))
    return narrow::decodeFloat(n, x, dt);
  return x;
}

/// The positions of the non-zero elements of the rank-1 `v`, as a vector.
Value positionsOf(NodeImporter &n, Value v) {
  MLIRContext *ctx = v.getContext();
  auto type = RankedTensorType::get({1, ShapedType::kDynamic},
                                    IntegerType::get(ctx, 64));
  Value columns = n.make<NonZeroOp>(type, v);
  if (!columns)
    return {};
  return n.reshapeTo(columns, {n.dimOf(columns, 1)});
}

/// 0, 1, ..., len - 1 (i64).
Value iotaOf(NodeImporter &n, const SymDim &len) {
  Type i64 = IntegerType::get(n.ctx, 64);
  Value shape = n.shapeOperand({len});
  return shape ? n.make<IotaOp>(n.typeOf({len}, i64), shape, 0) : Value();
}

LogicalResult convertNonZero(NodeImporter &n) {
  if (failed(n.checkAttrs({})) || !n.has(0) || !n.in(0))
    return n.fail("needs input 0");
  Value x = valueIn(n, 0);
  TRY(x);
  auto type = RankedTensorType::get({rankOf(x), ShapedType::kDynamic},
                                    IntegerType::get(n.ctx, 64));
  Value r = n.make<NonZeroOp>(type, x);
  TRY(r);
  n.setOut(0, r);
  return success();
}

LogicalResult convertCompress(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis"})))
    return failure();
  if (!n.has(0) || !n.has(1) || !n.in(0) || !n.in(1))
    return n.fail("needs an input and a condition");
  Value x = n.in(0), cond = n.in(1);
  if (rankOf(cond) != 1)
    return n.fail("the condition must be a vector (rank 1)");
  if (!elemOf(cond).isInteger(1))
    cond = n.create<CmpOp>(CmpPredicate::ne, cond, n.scalar(elemOf(cond), 0));
  TRY(cond);
  int64_t axis = 0;
  if (n.attr("axis")) {
    auto a = n.normAxis(n.attrInt("axis", 0), rankOf(x));
    if (failed(a))
      return failure();
    axis = *a;
  } else {
    SymDim count = SymDim::constant(1);
    for (const SymDim &d : n.dimsOf(x))
      count = n.combine("Mul", count, d);
    TRY(x = n.reshapeTo(x, {count}));
  }
  // A condition longer than the axis: ONNX keeps the slices the condition
  // covers, so its extra entries select nothing that exists.
  int64_t length = cast<RankedTensorType>(x.getType()).getDimSize(axis);
  int64_t condLength = cast<RankedTensorType>(cond.getType()).getDimSize(0);
  if (!ShapedType::isDynamic(length) && !ShapedType::isDynamic(condLength)) {
    if (condLength > length)
      TRY(cond = sliceAlong(n, cond, 0, 0, length));
  } else {
    // One of them known only at run time: entries at or past the axis's
    // length are masked off (they selected clamped positions before).
    Type i64 = IntegerType::get(n.ctx, 64);
    SymDim condDim = n.dimOf(cond, 0);
    Value shape = n.shapeOperand({condDim});
    TRY(shape);
    Value at = n.make<IotaOp>(n.typeOf({condDim}, i64), shape, 0);
    TRY(at);
    Value inside =
        n.create<CmpOp>(CmpPredicate::lt, at, n.scalarOf(n.dimOf(x, axis)));
    TRY(inside);
    TRY(cond = n.create<AndOp>(cond, inside));
  }
  Value positions = positionsOf(n, cond);
  TRY(positions);
  Value r = takeAlong(n, x, positions, axis);
  TRY(r);
  n.setOut(0, r);
  return success();
}

/// The stable ascending order of the vector `v` (i64 indices): tide.top_k
/// of all of it, smallest first (equal values by index).
Value argsortOf(NodeImporter &n, Value v, const SymDim &len) {
  Type i64 = IntegerType::get(n.ctx, 64);
  if (elemOf(v).isInteger(1))
    v = n.cast(v, IntegerType::get(n.ctx, 8, IntegerType::Unsigned));
  Value k = len.isConst() ? n.scalarOf(len) : n.shapeOperand({len});
  if (!v || !k)
    return {};
  return n.make<TopKOp>(n.typeOf({len}, i64), v, k, int64_t(0), true);
}

/// Unique of single items (the vector `data` of `count`): sorted, the first
/// of each run of equal values is a distinct item, and the first
/// occurrence (the sort keeps equal values in index order). n log n work.
/// Sets the outputs.
LogicalResult uniqueBySort(NodeImporter &n, Value data, const SymDim &count,
                           bool sorted) {
  Type i64 = IntegerType::get(n.ctx, 64);
  SymDim one = SymDim::constant(1);
  Value perm = argsortOf(n, data, count);
  TRY(perm);
  Value sortedValues = takeAlong(n, data, perm, 0);
  Value position = iotaOf(n, count);
  TRY(sortedValues && position);
  // A run starts where the value differs from the one before (NaN never
  // equals: each NaN is its own item, as with the pairs) or at 0.
  Value previous =
      takeAlong(n, sortedValues,
                n.create<MaximumOp>(n.create<SubOp>(position, n.scalar(i64, 1)),
                                    n.scalar(i64, 0)),
                0);
  TRY(previous);
  Value starts = n.create<OrOp>(
      n.create<CmpOp>(CmpPredicate::ne, sortedValues, previous),
      n.create<CmpOp>(CmpPredicate::eq, position, n.scalar(i64, 0)));
  TRY(starts);
  // The run of each sorted position, and where each run starts.
  Value run =
      n.create<SubOp>(n.create<CumsumOp>(n.cast(starts, i64), 0, false, false),
                      n.scalar(i64, 1));
  Value runStarts = positionsOf(n, starts);
  TRY(run && runStarts);
  SymDim distinct = n.dimOf(runStarts, 0);
  Value firsts = takeAlong(n, perm, runStarts, 0);
  // Counts: the next run's start (the count after the last) minus this one's.
  Value runIndex = iotaOf(n, distinct);
  TRY(firsts && runIndex);
  Value last = n.create<SubOp>(n.scalarOf(distinct), n.scalar(i64, 1));
  Value nextStart =
      takeAlong(n, runStarts,
                n.create<MinimumOp>(n.create<AddOp>(runIndex, n.scalar(i64, 1)),
                                    n.reshapeTo(last, {one})),
                0);
  TRY(nextStart);
  Value isLast =
      n.create<CmpOp>(CmpPredicate::eq, runIndex, n.reshapeTo(last, {one}));
  Value ends = n.create<SelectOp>(isLast, n.scalarOf(count), nextStart);
  Value counts = n.create<SubOp>(ends, runStarts);
  TRY(counts);
  // Each input position's run: the run of its sorted position (the inverse
  // of the permutation is the order of the permutation).
  Value inverse = takeAlong(n, run, argsortOf(n, perm, count), 0);
  TRY(inverse);
  if (!sorted) {
    // Runs in order of first occurrence.
    Value byFirst = argsortOf(n, firsts, distinct);
    TRY(byFirst);
    inverse = takeAlong(n, argsortOf(n, byFirst, distinct), inverse, 0);
    firsts = takeAlong(n, firsts, byFirst, 0);
    counts = takeAlong(n, counts, byFirst, 0);
    TRY(inverse && firsts && counts);
  }
  Value y = takeAlong(n, data, firsts, 0);
  TRY(y);
  n.setOut(0, y);
  if (n.wantsOutput(1))
    n.setOut(1, firsts);
  if (n.wantsOutput(2))
    n.setOut(2, inverse);
  if (n.wantsOutput(3))
    n.setOut(3, counts);
  return success();
}

/// Unique: see the file comment. Items are rows of `items` (n x m).
LogicalResult convertUnique(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "sorted"})))
    return failure();
  if (!n.has(0) || !n.in(0))
    return n.fail("needs input 0");
  Value x = n.in(0);
  if (n.narrowIn(0))
    return n.fail("Unique of float8, float4, int4 or int2 is not supported");
  bool sorted = n.attrInt("sorted", 1) != 0;
  Type i64 = IntegerType::get(n.ctx, 64);
  SymDim one = SymDim::constant(1);
  SmallVector<SymDim> dims = n.dimsOf(x);
  std::optional<int64_t> axis;
  if (n.attr("axis")) {
    auto a = n.normAxis(n.attrInt("axis", 0), rankOf(x));
    if (failed(a))
      return failure();
    axis = *a;
  }
  // The data as a table of items along dimension 0: `data` (the axis first),
  // `items` (n x m).
  Value data = x;
  SymDim count = one, width = one;
  if (axis) {
    SmallVector<int64_t> perm{*axis};
    for (int64_t d = 0; d < rankOf(x); ++d)
      if (d != *axis)
        perm.push_back(d);
    if (*axis != 0)
      TRY(data = n.create<TransposeOp>(x, perm));
    count = dims[*axis];
    for (int64_t d = 0; d < rankOf(x); ++d)
      if (d != *axis)
        width = n.combine("Mul", width, dims[d]);
  } else {
    for (const SymDim &d : dims)
      count = n.combine("Mul", count, d);
    TRY(data = n.reshapeTo(x, {count}));
  }
  Value items = n.reshapeTo(data, {count, width});
  TRY(items);
  if (!width.isConst())
    return n.fail("Unique along an axis needs the other dimensions' sizes "
                  "known while importing");
  int64_t m = width.value;
  if (m == 1 && (!axis || rankOf(x) == 1))
    return uniqueBySort(n, n.reshapeTo(data, {count}), count, sorted);
  // Every pair of items is compared: refuse what cannot be done that way.
  constexpr int64_t kMaxItems = int64_t(1) << 15;
  if (count.isConst() && count.value > kMaxItems)
    return n.fail("Unique of " + llvm::Twine(count.value) +
                  " items: Tide compares every pair of items (work and "
                  "memory growing with the square of the count), at most " +
                  llvm::Twine(kMaxItems));
  // Pairs (i, j) of items: equal, and item j before item i in order.
  Value a = n.reshapeTo(items, {count, one, width});
  Value b = n.reshapeTo(items, {one, count, width});
  TRY(a && b);
  // equal[i, j]; before[i, j]: item j sorts before item i (lexicographically,
  // at the first position where they differ).
  // NaN equals NaN here and sorts after every number (as NumPy's unique
  // and ONNX's reference; an item holding a NaN was never its own first
  // occurrence before, and was dropped).
  bool floats = isa<FloatType>(elemOf(items));
  auto isNan = [&](Value v) { return n.create<CmpOp>(CmpPredicate::ne, v, v); };
  auto same = [&](Value u, Value v) -> Value {
    Value eq = n.create<CmpOp>(CmpPredicate::eq, u, v);
    return floats ? n.create<OrOp>(eq, n.create<AndOp>(isNan(u), isNan(v)))
                  : eq;
  };
  // v sorts before u.
  auto sortsBefore = [&](Value v, Value u) -> Value {
    Value lt = n.create<CmpOp>(CmpPredicate::lt, v, u);
    if (!floats)
      return lt;
    Value vNumber = n.create<CmpOp>(CmpPredicate::eq, v, v);
    return n.create<OrOp>(lt, n.create<AndOp>(isNan(u), vNumber));
  };
  Value equal, before;
  if (m == 1) {
    equal = n.reshapeTo(same(a, b), {count, count});
    before = n.reshapeTo(sortsBefore(b, a), {count, count});
    TRY(equal && before);
  } else {
    SmallVector<SymDim> full{count, count, width};
    Value differ = n.create<XorOp>(
        same(n.broadcastToDims(a, full), n.broadcastToDims(b, full)),
        n.broadcastToDims(n.scalar(IntegerType::get(n.ctx, 1), 1), full));
    TRY(differ);
    Value differCount = n.create<ReduceSumOp>(n.cast(differ, i64),
                                              SmallVector<int64_t>{2}, false);
    TRY(differCount);
    equal = n.create<CmpOp>(CmpPredicate::eq, differCount, n.scalar(i64, 0));
    TRY(equal);
    Value at =
        n.create<ArgmaxOp>(n.cast(differ, i64), SmallVector<int64_t>{2}, true);
    TRY(at);
    Value ai = n.create<GatherOp>(n.broadcastToDims(a, full), at, 2);
    Value bj = n.create<GatherOp>(n.broadcastToDims(b, full), at, 2);
    TRY(ai && bj);
    before = n.create<AndOp>(
        n.reshapeTo(sortsBefore(bj, ai), {count, count}),
        n.create<CmpOp>(CmpPredicate::gt, differCount, n.scalar(i64, 0)));
    TRY(before);
  }
  // Each item's first occurrence; the first occurrences themselves.
  Value firstAt =
      n.create<ArgmaxOp>(n.cast(equal, i64), SmallVector<int64_t>{1}, false);
  Value position = iotaOf(n, count);
  TRY(firstAt && position);
  Value isFirst = n.create<CmpOp>(CmpPredicate::eq, firstAt, position);
  TRY(isFirst);
  Value firsts = positionsOf(n, isFirst);
  TRY(firsts);
  Value counts =
      n.create<ReduceSumOp>(n.cast(equal, i64), SmallVector<int64_t>{1}, false);
  TRY(counts);
  Value order, inverse;
  if (sorted) {
    // rank[i]: the distinct items before item i.
    Value firstRow = n.reshapeTo(isFirst, {one, count});
    Value rank =
        n.create<ReduceSumOp>(n.cast(n.create<AndOp>(before, firstRow), i64),
                              SmallVector<int64_t>{1}, false);
    TRY(rank);
    inverse = rank;
    // order[r]: the first occurrence of rank r.
    SymDim distinct = n.dimOf(firsts, 0);
    Value firstRank = takeAlong(n, rank, firsts, 0);
    Value r = iotaOf(n, distinct);
    TRY(firstRank && r);
    Value match =
        n.create<CmpOp>(CmpPredicate::eq, n.reshapeTo(r, {distinct, one}),
                        n.reshapeTo(firstRank, {one, distinct}));
    TRY(match);
    order = n.create<ReduceSumOp>(
        n.create<MulOp>(n.cast(match, i64),
                        n.reshapeTo(firsts, {one, distinct})),
        SmallVector<int64_t>{1}, false);
    TRY(order);
  } else {
    order = firsts;
    // inverse[i]: the first occurrences before item i's own.
    Value earlier = n.create<CumsumOp>(n.cast(isFirst, i64), 0, true, false);
    TRY(earlier);
    inverse = takeAlong(n, earlier, firstAt, 0);
    TRY(inverse);
  }
  Value y = takeAlong(n, data, order, 0);
  TRY(y);
  if (axis && *axis != 0) {
    // Back to the input's order of dimensions.
    SmallVector<int64_t> back(rankOf(x));
    for (int64_t d = 1; d <= *axis; ++d)
      back[d - 1] = d;
    back[*axis] = 0;
    for (int64_t d = *axis + 1; d < rankOf(x); ++d)
      back[d] = d;
    TRY(y = n.create<TransposeOp>(y, back));
  }
  n.setOut(0, y);
  if (n.wantsOutput(1))
    n.setOut(1, order);
  if (n.wantsOutput(2))
    n.setOut(2, inverse);
  if (n.wantsOutput(3)) {
    Value c = takeAlong(n, counts, order, 0);
    TRY(c);
    n.setOut(3, c);
  }
  return success();
}

LogicalResult convertNonMaxSuppression(NodeImporter &n) {
  if (failed(n.checkAttrs({"center_point_box"})))
    return failure();
  if (!n.has(0) || !n.has(1) || !n.in(0) || !n.in(1))
    return n.fail("needs boxes and scores");
  Value boxes = n.in(0), scores = n.in(1);
  Type t = elemOf(boxes);
  if (!isa<FloatType>(t) || elemOf(scores) != t)
    return n.fail("boxes and scores must be floats of one type");
  if (rankOf(boxes) != 3 || rankOf(scores) != 3)
    return n.fail("boxes must be (batch, boxes, 4) and scores (batch, "
                  "classes, boxes)");
  if (cast<RankedTensorType>(boxes.getType()).isDynamicDim(2))
    // Four coordinates a box (a reshape checks the element count at run
    // time).
    TRY(boxes = n.reshapeTo(boxes, {n.dimOf(boxes, 0), n.dimOf(boxes, 1),
                                    SymDim::constant(4)}));
  else if (cast<RankedTensorType>(boxes.getType()).getDimSize(2) != 4)
    return n.fail("boxes must have 4 coordinates each (the last dimension)");
  int64_t center = n.attrInt("center_point_box", 0);
  if (center != 0 && center != 1)
    return n.fail("center_point_box must be 0 or 1");
  Type i64 = IntegerType::get(n.ctx, 64);
  auto oneElement = [&](unsigned i, Type type, double dflt,
                        StringRef role) -> Value {
    if (!n.has(i) || !n.in(i))
      return n.reshape(n.scalar(type, dflt), {1});
    Value v = n.in(i);
    auto shape = cast<RankedTensorType>(v.getType()).getShape();
    if (!llvm::all_of(shape, [](int64_t d) { return d == 1; })) {
      (void)n.fail(role + " must be a scalar or a one-element tensor");
      return {};
    }
    return n.cast(n.reshape(v, {1}), type);
  };
  // No limit given: nothing is selected (ONNX's default of 0).
  Value limit = oneElement(2, i64, 0, "max_output_boxes_per_class");
  Value iou = oneElement(3, t, 0, "iou_threshold");
  TRY(limit && iou);
  Value score;
  if (n.has(4))
    TRY(score = oneElement(4, t, 0, "score_threshold"));
  // ONNX Runtime refuses an IoU threshold outside [0, 1]: here a constant
  // one is refused while importing.
  if (auto c = n.constIn(3)) {
    if (auto values = readHostValues(*c);
        values && values->size() == 1 &&
        (values->at(0) < 0 || values->at(0) > 1))
      return n.fail("iou_threshold must be in [0, 1], got " +
                    std::to_string(values->at(0)));
  }
  auto type = RankedTensorType::get({ShapedType::kDynamic, 3}, i64);
  // (Built directly: the optional threshold may be absent.)
  Value r = n.finish(NonMaxSuppressionOp::create(
      n.b, n.loc, type, boxes, scores, limit, iou, score, center == 1));
  TRY(r);
  n.setOut(0, r);
  return success();
}

} // namespace

void onnx_import::addDataDependentConverters(
    llvm::StringMap<Converter> &table) {
  table["NonZero"] = convertNonZero;
  table["Compress"] = convertCompress;
  table["Unique"] = convertUnique;
  table["NonMaxSuppression"] = convertNonMaxSuppression;
}
