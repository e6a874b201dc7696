//===- ConvertMisc.cpp - ONNX LRN, ReverseSequence, MaxUnpool, Det --------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Ops that decompose into several tide ops with index tensors computed while
// importing:
//
// - LRN: the sum of squares over the channel window is a tide.conv with a
//   window of ones over the channels (the input seen as (N, 1, C, rest));
// - ReverseSequence: a tide.gather along the time axis whose indices
//   (len - 1 - t below each sequence's length, t past it) are computed from
//   the sequence_lens input with tide ops;
// - MaxUnpool: every output element compares its position with the indices
//   of its (n, c) plane (one-hot) and takes the matching input value;
// - Det: Gaussian elimination with partial pivoting, unrolled over the
//   (static) matrix size.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <limits>

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
bool isStatic(Value v) {
  return cast<RankedTensorType>(v.getType()).hasStaticShape();
}
int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

/// 0, 1, ..., count - 1 of integer type `t`, laid out along `axis` of a
/// rank-`rank` tensor (size 1 elsewhere).
Value iota(NodeImporter &n, Type t, int64_t count, int64_t axis, int64_t rank) {
  if (overComputedLimit(count)) {
    (void)n.fail("an index table of " + Twine(count) +
                 " elements is larger than Tide computes while importing (" +
                 Twine(kComputedTableLimit) + ")");
    return {};
  }
  Shape shape(rank, 1);
  shape[axis] = count;
  std::vector<int64_t> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = i;
  return n.constant(makeDense(RankedTensorType::get(shape, t), values, {}));
}

//===----------------------------------------------------------------------===//
// LRN
//===----------------------------------------------------------------------===//

LogicalResult convertLRN(NodeImporter &n) {
  if (failed(n.checkAttrs({"alpha", "beta", "bias", "size"})))
    return failure();
  if (!n.has(0) || !n.in(0))
    return n.fail("needs input 0");
  Value x = n.in(0);
  Type t = elemOf(x);
  if (!isa<FloatType>(t))
    return n.fail("LRN needs a floating-point input");
  Shape s = shapeOf(x);
  if (s.size() < 2)
    return n.fail("LRN needs an input of rank 2 or more (N, C, ...)");
  int64_t size = n.attrInt("size", 0);
  if (size < 1)
    return n.fail("LRN needs a positive 'size'");
  if (overComputedLimit(size))
    return n.fail("LRN's 'size' " + Twine(size) + " is larger than Tide " +
                  "computes while importing (" + Twine(kComputedTableLimit) +
                  ")");
  double alpha = n.attrFloat("alpha", 1e-4), beta = n.attrFloat("beta", 0.75),
         bias = n.attrFloat("bias", 1.0);
  // Sum of squares over channels [c - (size-1)/2, c + ceil((size-1)/2)]: a
  // convolution over (N, 1, C, rest), whose "spatial" sizes C and rest may
  // be known only at run time.
  SmallVector<SymDim> dims = n.dimsOf(x);
  SymDim rest = SymDim::constant(1);
  for (size_t i = 2; i < dims.size(); ++i)
    rest = n.combine("Mul", rest, dims[i]);
  Value sq = n.create<MulOp>(x, x);
  TRY(sq);
  TRY(sq = n.reshapeTo(sq, {dims[0], SymDim::constant(1), dims[1], rest}));
  auto ones = makeDense(RankedTensorType::get({1, 1, size, 1}, t), {},
                        std::vector<double>(size, 1.0));
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Value sum = n.create<ConvOp>(sq, n.constant(ones), Shape{1, 1}, Shape{1, 1},
                               Shape{before, 0, after, 0}, 1);
  TRY(sum);
  TRY(sum = n.reshapeTo(sum, dims));
  // x / (bias + alpha / size * sum) ^ beta.
  Value d = n.create<MulOp>(sum, n.scalar(t, alpha / size));
  TRY(d);
  TRY(d = n.create<AddOp>(d, n.scalar(t, bias)));
  TRY(d = n.create<PowOp>(d, n.scalar(t, beta)));
  Value y = n.create<DivOp>(x, d);
  TRY(y);
  n.setOut(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// ReverseSequence
//===----------------------------------------------------------------------===//

LogicalResult convertReverseSequence(NodeImporter &n) {
  if (failed(n.checkAttrs({"batch_axis", "time_axis"})))
    return failure();
  if (!n.has(0) || !n.in(0) || !n.has(1) || !n.in(1))
    return n.fail("needs inputs input and sequence_lens");
  Value x = n.in(0), lens = n.in(1);
  int64_t rank = rankOf(x);
  if (rank < 2)
    return n.fail("ReverseSequence needs an input of rank 2 or more");
  int64_t batchAxis = n.attrInt("batch_axis", 1),
          timeAxis = n.attrInt("time_axis", 0);
  if ((batchAxis != 0 && batchAxis != 1) || (timeAxis != 0 && timeAxis != 1) ||
      batchAxis == timeAxis)
    return n.fail("batch_axis and time_axis must be 0 and 1 or 1 and 0");
  if (!isStatic(x))
    return n.fail("ReverseSequence needs a static input shape; bind it with "
                  "--bind-shape");
  Type it = elemOf(lens);
  if (!it.isInteger(32) && !it.isInteger(64))
    return n.fail("sequence_lens must be int32 or int64");
  Shape s = shapeOf(x);
  if (shapeOf(lens) != Shape{s[batchAxis]})
    return n.fail("sequence_lens must have one value per batch element (" +
                  Twine(s[batchAxis]) + ")");
  // Each length in [0, T] (ONNX Runtime fails on one past the time axis;
  // the gather below would clamp it, a silently wrong result).
  TRY(lens = checkedIndices(n, lens, {SymDim::constant(s[timeAxis] + 1)},
                            "the time axis's size plus one (a sequence "
                            "length in [0, T])",
                            /*negative=*/false));
  // index[b, t] = t < len[b] ? len[b] - 1 - t : t, along the time axis.
  Value t = iota(n, it, s[timeAxis], timeAxis, rank);
  Shape lensShape(rank, 1);
  lensShape[batchAxis] = s[batchAxis];
  Value len = n.reshape(lens, lensShape);
  TRY(t && len);
  Value inside = n.create<CmpOp>(CmpPredicate::lt, t, len);
  Value rev = n.create<SubOp>(n.create<SubOp>(len, n.scalar(it, 1)), t);
  TRY(inside && rev);
  Value idx = n.create<SelectOp>(inside, rev, t);
  TRY(idx);
  TRY(idx = n.broadcastTo(idx, s));
  Value y = n.create<GatherOp>(x, idx, timeAxis);
  TRY(y);
  n.setOut(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// MaxUnpool
//===----------------------------------------------------------------------===//

/// The one-hot decomposition compares every output element with every input
/// element of its plane; larger planes are an error rather than a huge
/// intermediate.
constexpr int64_t kMaxUnpoolOneHotLimit = int64_t(1) << 26;

LogicalResult convertMaxUnpool(NodeImporter &n) {
  if (failed(n.checkAttrs({"kernel_shape", "pads", "strides"})))
    return failure();
  if (!n.has(0) || !n.in(0) || !n.has(1) || !n.in(1))
    return n.fail("needs inputs X and I");
  Value x = n.in(0), indices = n.in(1);
  int64_t rank = rankOf(x);
  if (rank < 3)
    return n.fail("MaxUnpool needs an input of rank 3 or more");
  if (!isStatic(x) || shapeOf(indices) != shapeOf(x))
    return n.fail("X and I need the same static shape; bind the input's "
                  "shape with --bind-shape");
  Type it = elemOf(indices);
  if (!it.isInteger(64) && !it.isInteger(32))
    return n.fail("the indices I must be int64");
  int64_t k = rank - 2;
  std::optional<Shape> kernel = n.attrInts("kernel_shape");
  if (!kernel || static_cast<int64_t>(kernel->size()) != k)
    return n.fail("MaxUnpool needs 'kernel_shape' with one entry per spatial "
                  "dimension");
  Shape strides = n.attrInts("strides").value_or(Shape(k, 1));
  Shape pads = n.attrInts("pads").value_or(Shape(2 * k, 0));
  if (static_cast<int64_t>(strides.size()) != k ||
      static_cast<int64_t>(pads.size()) != 2 * k)
    return n.fail("'strides' needs " + Twine(k) + " entries and 'pads' " +
                  Twine(2 * k));
  // The indices address the inferred shape (pads applied); an output_shape
  // pads that at the end, as ONNX's reference and ONNX Runtime do.
  Shape given;
  if (n.has(2)) {
    auto v = n.requireInts(2, "output_shape");
    if (failed(v))
      return failure();
    given = *v;
  }
  Shape s = shapeOf(x), outShape(s.begin(), s.begin() + 2);
  for (int64_t i = 0; i < k; ++i)
    outShape.push_back((s[i + 2] - 1) * strides[i] - pads[i] - pads[k + i] +
                       (*kernel)[i]);
  if (n.has(2)) {
    bool fits = static_cast<int64_t>(given.size()) == rank &&
                given[0] == s[0] && given[1] == s[1];
    for (int64_t i = 2; fits && i < rank; ++i)
      fits = given[i] >= outShape[i];
    if (!fits)
      return n.fail("output_shape must list N, C and spatial sizes no "
                    "smaller than the unpooled ones");
  }
  int64_t planes = s[0] * s[1];
  int64_t in = product(ArrayRef<int64_t>(s).drop_front(2));
  int64_t out = product(ArrayRef<int64_t>(outShape).drop_front(2));
  if (planes * in * out > kMaxUnpoolOneHotLimit)
    return n.fail(
        "MaxUnpool's one-hot decomposition needs " + Twine(planes * in * out) +
        " elements, more than the limit of " + Twine(kMaxUnpoolOneHotLimit));
  // The index within each (n, c) plane: I - plane * out.
  Value xr = n.reshape(x, {planes, in, 1});
  Value ir = n.reshape(indices, {planes, in, 1});
  TRY(xr && ir);
  Value base = n.create<MulOp>(iota(n, it, planes, 0, 3), n.scalar(it, out));
  TRY(base);
  TRY(ir = n.create<SubOp>(ir, base));
  // An index outside its own (n, c) plane of the result is an error (ONNX
  // Runtime fails on one past the result; MaxPool's indices never leave
  // their plane).
  TRY(ir = checkedIndices(n, ir, {SymDim::constant(out)},
                          "the size of one (n, c) plane of the result, "
                          "after the plane's offset",
                          /*negative=*/false));
  Value hit = n.create<CmpOp>(CmpPredicate::eq, ir, iota(n, it, out, 2, 3));
  TRY(hit); // [planes, in, out]
  // Several windows may select the same input element (overlapping
  // windows): they carry the same value, so take the maximum.
  Type t = elemOf(x);
  double lowest = isa<FloatType>(t) ? -std::numeric_limits<double>::infinity()
                                    : std::numeric_limits<double>::lowest();
  if (auto i = dyn_cast<IntegerType>(t))
    lowest = i.isUnsigned() ? 0 : -std::ldexp(1.0, i.getWidth() - 1);
  Value picked = n.create<SelectOp>(hit, xr, n.scalar(t, lowest));
  TRY(picked);
  TRY(picked = n.create<ReduceMaxOp>(picked, Shape{1}, false));
  Type i8 = IntegerType::get(n.ctx, 8);
  Value any = n.create<ReduceMaxOp>(n.cast(hit, i8), Shape{1}, false);
  TRY(any);
  TRY(any = n.create<CmpOp>(CmpPredicate::ne, any, n.scalar(i8, 0)));
  Value y = n.create<SelectOp>(any, picked, n.scalar(t, 0));
  TRY(y);
  TRY(y = n.reshape(y, outShape));
  for (int64_t i = 2; !given.empty() && i < rank; ++i) {
    if (given[i] == outShape[i])
      continue;
    Shape zeros = shapeOf(y);
    zeros[i] = given[i] - outShape[i];
    SmallVector<Value> parts = {y, n.broadcastTo(n.scalar(t, 0), zeros)};
    TRY(parts[1] && (y = n.create<ConcatOp>(parts, i)));
  }
  n.setOut(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Det
//===----------------------------------------------------------------------===//

LogicalResult convertDet(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  if (!n.has(0) || !n.in(0))
    return n.fail("needs input 0");
  Value x = n.in(0);
  Type t = elemOf(x);
  if (!isa<FloatType>(t))
    return n.fail("Det needs a floating-point input");
  Shape s = shapeOf(x);
  if (s.size() < 2 || !isStatic(x) || s.back() != s[s.size() - 2])
    return n.fail("Det needs static square matrices in the last two "
                  "dimensions; bind the input's shape with --bind-shape");
  int64_t size = s.back();
  if (size < 1)
    return n.fail("Det needs matrices of size 1 or more");
  Shape batchShape(s.begin(), s.end() - 2);
  int64_t batch = product(batchShape);
  Type i64 = IntegerType::get(n.ctx, 64);
  Value a = n.reshape(x, {batch, size, size});
  Value det = n.broadcastTo(n.scalar(t, 1), {batch});
  TRY(a && det);
  // Step k: A is the [m, m] trailing block (m = size - k); its first column
  // gives the pivot (largest magnitude), whose row is swapped to the top.
  for (int64_t m = size; m >= 1; --m) {
    Value pivotRow = n.sliceAxis(a, 1, 0, 1); // [B, 1, m]
    TRY(pivotRow);
    Value rest;
    if (m > 1) {
      Value col = n.sliceAxis(a, 2, 0, 1); // [B, m, 1]
      TRY(col);
      Value p = n.create<ArgmaxOp>(n.make<AbsOp>(col), Shape{1}, true);
      TRY(p); // [B, 1, 1]
      Value onehot = n.create<CmpOp>(CmpPredicate::eq, iota(n, i64, m, 1, 3),
                                     n.cast(p, i64));
      TRY(onehot); // [B, m, 1]
      Value top = pivotRow;
      TRY(pivotRow = n.create<ReduceSumOp>(
              n.create<SelectOp>(onehot, a, n.scalar(t, 0)), Shape{1}, true));
      // Rows 1..m-1 after the swap: the old top row replaces the pivot row.
      Value swapped = n.create<SelectOp>(onehot, top, a);
      TRY(swapped);
      TRY(rest = n.sliceAxis(swapped, 1, 1, m)); // [B, m-1, m]
      // A swap flips the sign.
      Value moved =
          n.create<CmpOp>(CmpPredicate::ne, n.cast(p, i64), n.scalar(i64, 0));
      TRY(moved && (moved = n.reshape(moved, {batch})));
      Value sign = n.create<SelectOp>(moved, n.scalar(t, -1), n.scalar(t, 1));
      TRY(sign && (det = n.create<MulOp>(det, sign)));
    }
    Value pivot = n.sliceAxis(pivotRow, 2, 0, 1); // [B, 1, 1]
    TRY(pivot);
    Value flat = n.reshape(pivot, {batch});
    TRY(flat && (det = n.create<MulOp>(det, flat)));
    if (m == 1)
      break;
    // Eliminate the first column below the pivot. A zero pivot means a
    // zero column (the determinant is 0): divide by 1 instead of 0.
    Value zero = n.create<CmpOp>(CmpPredicate::eq, pivot, n.scalar(t, 0));
    TRY(zero);
    Value safe = n.create<SelectOp>(zero, n.scalar(t, 1), pivot);
    Value factors = n.create<DivOp>(n.sliceAxis(rest, 2, 0, 1), safe);
    TRY(safe && factors); // [B, m-1, 1]
    Value next = n.create<SubOp>(rest, n.create<MulOp>(factors, pivotRow));
    TRY(next);
    TRY(a = n.sliceAxis(next, 2, 1, m)); // [B, m-1, m-1]
  }
  TRY(det = n.reshape(det, batchShape));
  n.setOut(0, det);
  return success();
}

} // namespace

void onnx_import::addMiscConverters(llvm::StringMap<Converter> &table) {
  table["LRN"] = convertLRN;
  table["ReverseSequence"] = convertReverseSequence;
  table["MaxUnpool"] = convertMaxUnpool;
  table["Det"] = convertDet;
}
