//===- ConvertNN.cpp - ONNX convolution, pooling and resize ---------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Converters of the neural-network ops of ONNX (Conv, ConvTranspose,
// MaxPool, AveragePool, Resize, Upsample, GridSample), kept apart from the
// elementwise and shape ops of ConvertOps.cpp.
//
// Conv, MaxPool and AveragePool map onto tide.conv, tide.max_pool and
// tide.avg_pool (NCHW, like ONNX); `auto_pad` is resolved into explicit pads
// here, and Conv's bias is added per channel with tide.add. ConvTranspose is
// a tide.conv over the input with zeros inserted; Resize/Upsample gather
// constant source indices per axis and weigh them; GridSample computes its
// indices at run time (each section says how).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

using Shape = SmallVector<int64_t>;

/// The window attributes of a Conv or pool node, resolved.
struct Window {
  Shape kernel, strides, dilations, pads;
  /// auto_pad SAME over a run-time size with a stride above 1, per spatial
  /// dimension: its padding depends on the size, so it is not in `pads` (0
  /// there) but made explicit at run time (padSameAtRunTime).
  SmallVector<bool> sameAtRunTime;
  bool sameUpper = true;
  /// Kernel sizes known only at run time (a Conv's weight of run-time
  /// shape), per spatial dimension where `kernel` is dynamic.
  SmallVector<SymDim> runTimeKernel;
};

/// Reads `name` (one value per spatial dimension, default `dflt`), or reports.
FailureOr<Shape> perDim(NodeImporter &n, StringRef name, int64_t count,
                        int64_t dflt) {
  std::optional<Shape> values = n.attrInts(name);
  if (!values)
    return Shape(count, dflt);
  if (static_cast<int64_t>(values->size()) != count)
    return n.fail("'" + name + "' has " + Twine(values->size()) +
                  " entries; the input has " + Twine(count) +
                  " spatial dimensions");
  return *values;
}

/// Strides, dilations and pads of `n` (kernel already set), with `auto_pad`
/// resolved against the static spatial sizes of `input`. With
/// `sameAtRunTime`, SAME over a run-time size with a stride above 1 is
/// marked in `w.sameAtRunTime` for the caller to pad (padSameAtRunTime);
/// without, it is refused.
LogicalResult readWindow(NodeImporter &n, RankedTensorType input, Window &w,
                         bool sameAtRunTime = false) {
  int64_t k = input.getRank() - 2;
  auto strides = perDim(n, "strides", k, 1);
  auto dilations = perDim(n, "dilations", k, 1);
  if (failed(strides) || failed(dilations))
    return failure();
  w.strides = *strides;
  w.dilations = *dilations;
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    auto pads = perDim(n, "pads", 2 * k, 0);
    if (failed(pads))
      return failure();
    w.pads = *pads;
    return success();
  }
  w.pads.assign(2 * k, 0);
  w.sameAtRunTime.assign(k, false);
  w.sameUpper = autoPad == "SAME_UPPER";
  if (autoPad == "VALID")
    return success();
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return n.fail("auto_pad '" + autoPad +
                  "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  for (int64_t i = 0; i < k; ++i) {
    int64_t size = input.getDimSize(i + 2);
    if (w.strides[i] < 1)
      return n.fail("strides must be positive");
    // A kernel size known only at run time: padded by what it reaches.
    if (ShapedType::isDynamic(w.kernel[i]) && sameAtRunTime) {
      w.sameAtRunTime[i] = true;
      continue;
    }
    // With stride 1 the padding does not depend on the size (the window's
    // extent less one); with larger strides it does.
    if (ShapedType::isDynamic(size) && w.strides[i] != 1 && sameAtRunTime) {
      w.sameAtRunTime[i] = true;
      continue;
    }
    if (ShapedType::isDynamic(size) && w.strides[i] != 1)
      return n.fail("auto_pad " + autoPad + " with a stride of " +
                    Twine(w.strides[i]) +
                    " needs static spatial sizes (the padding depends on "
                    "the size); bind the input's shape with --bind-shape");
    if (ShapedType::isDynamic(size)) {
      int64_t total = w.dilations[i] * (w.kernel[i] - 1);
      int64_t small = total / 2, large = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[k + i] = autoPad == "SAME_UPPER" ? large : small;
      continue;
    }
    // The output has ceil(size / stride) elements; pad what its windows
    // reach past the input, the odd element at the end (SAME_UPPER) or the
    // beginning (SAME_LOWER).
    int64_t out = (size + w.strides[i] - 1) / w.strides[i];
    int64_t extent = w.dilations[i] * (w.kernel[i] - 1) + 1;
    int64_t total =
        std::max<int64_t>(0, (out - 1) * w.strides[i] + extent - size);
    int64_t small = total / 2, large = total - small;
    w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
    w.pads[k + i] = autoPad == "SAME_UPPER" ? large : small;
  }
  return success();
}

/// `x` padded with `fill` along the spatial dimensions marked in
/// `w.sameAtRunTime`, by what auto_pad SAME adds there: ceil(size / stride)
/// windows, the total padding they reach past the input split in two, the
/// odd element at the end (SAME_UPPER) or the beginning (SAME_LOWER); sizes
/// computed at run time. The window op after it pads nothing there.
Value padSameAtRunTime(NodeImporter &n, Value x, const Window &w, double fill) {
  auto c = [](int64_t v) { return SymDim::constant(v); };
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  for (auto [i, atRunTime] : llvm::enumerate(w.sameAtRunTime)) {
    if (!atRunTime)
      continue;
    int64_t axis = i + 2, stride = w.strides[i];
    SymDim extent =
        ShapedType::isDynamic(w.kernel[i])
            ? n.combine("Add",
                        n.combine("Mul",
                                  n.combine("Sub", w.runTimeKernel[i], c(1)),
                                  c(w.dilations[i])),
                        c(1))
            : c(w.dilations[i] * (w.kernel[i] - 1) + 1);
    SymDim size = n.dimOf(x, axis);
    SymDim out =
        n.combine("Div", n.combine("Add", size, c(stride - 1)), c(stride));
    SymDim reach = n.combine(
        "Add", n.combine("Mul", n.combine("Sub", out, c(1)), c(stride)),
        extent);
    SymDim total = n.combine("Max", c(0), n.combine("Sub", reach, size));
    SymDim small = n.combine("Div", total, c(2));
    SymDim large = n.combine("Sub", total, small);
    SmallVector<SymDim> dims = n.dimsOf(x);
    dims[axis] = w.sameUpper ? small : large;
    Value before = n.broadcastToDims(n.scalar(elem, fill), dims);
    dims[axis] = w.sameUpper ? large : small;
    Value after = n.broadcastToDims(n.scalar(elem, fill), dims);
    if (!before || !after)
      return {};
    x = n.create<ConcatOp>(SmallVector<Value>{before, x, after}, axis);
    if (!x)
      return {};
  }
  return x;
}

/// The data input of a Conv or pool: a ranked tensor with a spatial
/// dimension, or reports.
RankedTensorType windowInput(NodeImporter &n) {
  if (!n.has(0) || !n.in(0)) {
    (void)n.fail("needs input 0");
    return {};
  }
  auto type = cast<RankedTensorType>(n.in(0).getType());
  if (type.getRank() < 3) {
    (void)n.fail(n.opType() + " needs an input of rank 3 or more (N, C and "
                              "at least one spatial dimension)");
    return {};
  }
  return type;
}

/// Groups of a convolution over a weight of run-time shape, each imported as
/// a convolution of its own (tide.conv groups static channels only).
constexpr int64_t kMaxRunTimeGroups = 64;

/// A grouped convolution whose weight's shape is known only at run time: the
/// input's channels and the weight's filters are reshaped into (groups,
/// per group), each group convolved alone and the results concatenated along
/// the channels. The reshapes check at run time that both counts are
/// multiples of `groups`; each convolution checks its weight's channels.
Value convByGroups(NodeImporter &n, Value x, Value weight, const Window &w,
                   int64_t groups) {
  SymDim g = SymDim::constant(groups);
  SmallVector<SymDim> xd = n.dimsOf(x), wd = n.dimsOf(weight);
  SymDim channels = n.combine("Div", xd[1], g);
  SymDim filters = n.combine("Div", wd[0], g);
  SmallVector<SymDim> xs = {xd[0], g, channels}, ws = {g, filters};
  xs.append(xd.begin() + 2, xd.end());
  ws.append(wd.begin() + 1, wd.end());
  Value xg = n.reshapeTo(x, xs), wg = n.reshapeTo(weight, ws);
  if (!xg || !wg)
    return {};
  SmallVector<SymDim> xOne = {xd[0], channels}, wOne = {filters};
  xOne.append(xd.begin() + 2, xd.end());
  wOne.append(wd.begin() + 1, wd.end());
  SmallVector<Value> parts;
  for (int64_t i = 0; i < groups; ++i) {
    Value xi = n.reshapeTo(n.sliceAxis(xg, 1, i, i + 1), xOne);
    Value wi = n.reshapeTo(n.sliceAxis(wg, 0, i, i + 1), wOne);
    if (!xi || !wi)
      return {};
    Value yi = n.create<ConvOp>(xi, wi, w.strides, w.dilations, w.pads, 1);
    if (!yi)
      return {};
    parts.push_back(yi);
  }
  return parts.size() == 1 ? parts.front() : n.create<ConcatOp>(parts, 1);
}

LogicalResult convertConv(NodeImporter &n) {
  if (failed(n.checkAttrs({"auto_pad", "dilations", "group", "kernel_shape",
                           "pads", "strides"})))
    return failure();
  RankedTensorType input = windowInput(n);
  if (!input)
    return failure();
  if (!n.has(1) || !n.in(1))
    return n.fail("needs input 1 (the weight)");
  Value x = n.in(0), weight = n.in(1);
  auto weightType = cast<RankedTensorType>(weight.getType());
  int64_t k = input.getRank() - 2;
  if (weightType.getRank() != input.getRank())
    return n.fail("the weight has rank " + Twine(weightType.getRank()) +
                  "; the input has rank " + Twine(input.getRank()));
  Window w;
  w.kernel = Shape(weightType.getShape().drop_front(2));
  if (std::optional<Shape> kernel = n.attrInts("kernel_shape")) {
    if (kernel->size() != w.kernel.size())
      return n.fail("kernel_shape does not match the weight's spatial sizes");
    for (auto [given, size] : llvm::zip(*kernel, w.kernel))
      if (!ShapedType::isDynamic(size) && given != size)
        return n.fail("kernel_shape does not match the weight's spatial "
                      "sizes");
  }
  int64_t groups = n.attrInt("group", 1);
  if (groups < 1)
    return n.fail("group must be positive, got " + Twine(groups));
  // A weight of run-time shape (a graph input or a computed tensor): one
  // convolution whose sizes are checked when it runs (grouped: one per
  // group, convByGroups).
  if (!weightType.hasStaticShape()) {
    if (groups > kMaxRunTimeGroups)
      return n.fail("a convolution of " + Twine(groups) +
                    " groups over a weight of run-time shape is imported as "
                    "one convolution per group; at most " +
                    Twine(kMaxRunTimeGroups) +
                    " are supported (bind the weight's shape with "
                    "--bind-shape)");
    // (auto_pad SAME pads by the kernel's run-time sizes.)
    for (int64_t i = 0; i < k; ++i)
      w.runTimeKernel.push_back(n.dimOf(weight, i + 2));
  }
  if (failed(readWindow(n, input, w, /*sameAtRunTime=*/true)))
    return failure();
  if (!(x = padSameAtRunTime(n, x, w, 0.0)))
    return failure();
  // A grouped convolution's channel count is the weight's per group times
  // the groups: a run-time count is taken as that (tide.conv splits static
  // channels into groups).
  if (groups > 1 && input.isDynamicDim(1) && weightType.hasStaticShape()) {
    SmallVector<SymDim> dims = n.dimsOf(x);
    dims[1] = SymDim::constant(groups * weightType.getDimSize(1));
    x = n.reshapeTo(x, dims);
    if (!x)
      return failure();
  }
  Value y =
      weightType.hasStaticShape() || groups == 1
          ? n.create<ConvOp>(x, weight, w.strides, w.dilations, w.pads, groups)
          : convByGroups(n, x, weight, w, groups);
  if (!y)
    return failure();
  if (n.has(2)) {
    // The bias, one value per output channel: (F) -> (F, 1, ..., 1).
    Value bias = n.in(2);
    if (!bias)
      return failure();
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1)
      return n.fail("the bias B must have rank 1");
    // One value per output channel (a single value broadcast to every
    // channel; ONNX Runtime refuses it).
    int64_t channels = cast<RankedTensorType>(y.getType()).getDimSize(1),
            values = biasType.getDimSize(0);
    if (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic(values) &&
        values != channels)
      return n.fail("the bias B has " + Twine(values) +
                    " values; the output has " + Twine(channels) + " channels");
    Shape shape = {biasType.getDimSize(0)};
    shape.append(k, 1);
    y = n.create<AddOp>(y, n.reshape(bias, shape));
    if (!y)
      return failure();
  }
  n.setOut(0, y);
  return success();
}

/// Windows of more slots than this (output positions x kernel elements)
/// make MaxPool's Indices an error rather than a huge gather.
constexpr int64_t kMaxPoolIndexSlots = int64_t(1) << 22;

/// MaxPool's second output: for every output element, the index of the
/// maximum in the flattened input (N, C and the spatial dimensions, row-major;
/// with `columnMajor`, the spatial part column-major), the first maximum of
/// the window when several are equal. Built from the primitive ops: the
/// windows are gathered from the flattened planes into (N, C, positions,
/// kernel) with a constant table of input positions (a slot in the padding
/// repeats a valid position of its window, which never changes the maximum
/// or its position), argmax picks the slot, a second table maps the slot to
/// its spatial index, and each plane adds its offset.
Value maxPoolIndices(NodeImporter &n, Value x, Value y, const Window &w,
                     bool columnMajor) {
  auto inType = cast<RankedTensorType>(x.getType());
  auto outType = cast<RankedTensorType>(y.getType());
  int64_t k = inType.getRank() - 2;
  ArrayRef<int64_t> in = inType.getShape().drop_front(2);
  ArrayRef<int64_t> out = outType.getShape().drop_front(2);
  // The tables of window positions are built here, from static sizes.
  if (llvm::any_of(in, ShapedType::isDynamic) ||
      llvm::any_of(out, ShapedType::isDynamic)) {
    (void)n.fail("the Indices output of MaxPool needs static spatial sizes; "
                 "bind the input's shape with --bind-shape");
    return {};
  }
  int64_t planeSize = 1, positions = 1, slots = 1;
  for (int64_t i = 0; i < k; ++i) {
    planeSize *= in[i];
    positions *= out[i];
    slots *= w.kernel[i];
  }
  if (positions == 0 || slots == 0 || planeSize == 0) {
    (void)n.fail("the Indices output of MaxPool of an empty window or input "
                 "is not supported");
    return {};
  }
  if (positions > kMaxPoolIndexSlots / slots) {
    (void)n.fail("the Indices output of MaxPool needs " + Twine(positions) +
                 " x " + Twine(slots) + " window slots; at most " +
                 Twine(kMaxPoolIndexSlots) + " are supported");
    return {};
  }
  // gatherAt[p][s]: the flat (row-major) plane position read by slot s of
  // output position p; indexOf[p][s]: its index in the output's convention.
  SmallVector<int64_t> gatherAt(positions * slots), indexOf(positions * slots);
  SmallVector<int64_t> o(k), kk(k);
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t i = k - 1, r = p; i >= 0; --i) {
      o[i] = r % out[i];
      r /= out[i];
    }
    int64_t firstValid = -1, firstIndex = 0;
    for (int64_t s = 0; s < slots; ++s) {
      for (int64_t i = k - 1, r = s; i >= 0; --i) {
        kk[i] = r % w.kernel[i];
        r /= w.kernel[i];
      }
      int64_t flat = 0, index = 0, stride = 1;
      bool valid = true;
      for (int64_t i = 0; i < k; ++i) {
        int64_t at = o[i] * w.strides[i] - w.pads[i] + kk[i] * w.dilations[i];
        valid &= at >= 0 && at < in[i];
        flat = flat * in[i] + at;
        index += at * stride;
        stride *= in[i];
      }
      if (!columnMajor)
        index = flat;
      gatherAt[p * slots + s] = valid ? flat : -1;
      indexOf[p * slots + s] = valid ? index : -1;
      if (valid && firstValid < 0) {
        firstValid = flat;
        firstIndex = index;
      }
    }
    if (firstValid < 0) {
      (void)n.fail("a window of MaxPool lies wholly in the padding; its "
                   "Indices output is undefined");
      return {};
    }
    for (int64_t s = 0; s < slots; ++s)
      if (gatherAt[p * slots + s] < 0) {
        gatherAt[p * slots + s] = firstValid;
        indexOf[p * slots + s] = firstIndex;
      }
  }
  Type i64 = IntegerType::get(n.ctx, 64);
  auto table = [&](ArrayRef<int64_t> shape, ArrayRef<int64_t> values) {
    return n.constant(
        DenseElementsAttr::get(RankedTensorType::get(shape, i64), values));
  };
  // (N, C, plane) -> (N, C, positions, slots) -> argmax over the slots.
  SmallVector<SymDim> dims = n.dimsOf(x);
  SmallVector<SymDim> flatDims = {dims[0], dims[1],
                                  SymDim::constant(planeSize)};
  Value planes = n.reshapeTo(x, flatDims);
  if (!planes)
    return {};
  Value windows =
      takeAlong(n, planes, table({positions, slots}, gatherAt), /*axis=*/2);
  if (!windows)
    return {};
  Value slot = n.create<ArgmaxOp>(windows, Shape{3}, /*keepdims=*/false);
  if (!slot)
    return {};
  // Slot -> spatial index: indexOf[p * slots + slot].
  SmallVector<int64_t> rowStarts;
  for (int64_t p = 0; p < positions; ++p)
    rowStarts.push_back(p * slots);
  Value flatSlot = n.create<AddOp>(slot, table({positions}, rowStarts));
  if (!flatSlot)
    return {};
  Value index =
      takeAlong(n, table({positions * slots}, indexOf), flatSlot, /*axis=*/0);
  if (!index)
    return {};
  // Plus (n * C + c) * plane.
  SymDim count = n.combine("Mul", dims[0], dims[1]);
  SmallVector<SymDim> byPlane = {count, SymDim::constant(positions)};
  index = n.reshapeTo(index, byPlane);
  Value shape = n.shapeOperand({count, SymDim::constant(1)});
  if (!index || !shape)
    return {};
  Value plane =
      n.make<IotaOp>(n.typeOf({count, SymDim::constant(1)}, i64), shape, 0);
  if (!plane)
    return {};
  plane = n.create<MulOp>(plane, n.scalar(i64, planeSize));
  if (!plane)
    return {};
  index = n.create<AddOp>(index, plane);
  if (!index)
    return {};
  SmallVector<SymDim> result = n.dimsOf(y);
  return n.reshapeTo(index, result);
}

template <bool IsMax>
LogicalResult convertPool(NodeImporter &n) {
  SmallVector<StringRef> known = {"auto_pad",     "ceil_mode", "dilations",
                                  "kernel_shape", "pads",      "strides"};
  known.push_back(IsMax ? "storage_order" : "count_include_pad");
  if (failed(n.checkAttrs(known)))
    return failure();
  RankedTensorType input = windowInput(n);
  if (!input)
    return failure();
  int64_t k = input.getRank() - 2;
  Window w;
  std::optional<Shape> kernel = n.attrInts("kernel_shape");
  if (!kernel)
    return n.fail(n.opType() + " needs 'kernel_shape'");
  if (static_cast<int64_t>(kernel->size()) != k)
    return n.fail("'kernel_shape' has " + Twine(kernel->size()) +
                  " entries; the input has " + Twine(k) +
                  " spatial dimensions");
  // (INT64_MIN is MLIR's marker of a run-time size: it passed the pools'
  // verifier; a negative size built an invalid type.)
  if (llvm::any_of(*kernel, [](int64_t d) { return d < 1; }))
    return n.fail("'kernel_shape' entries must be positive");
  w.kernel = *kernel;
  bool ceilMode = n.attrInt("ceil_mode", 0) != 0;
  if (failed(readWindow(n, input, w, /*sameAtRunTime=*/true)))
    return failure();
  bool padded = llvm::is_contained(w.sameAtRunTime, true);
  if (padded && IsMax && n.wantsOutput(1))
    return n.fail("the Indices output of MaxPool needs static spatial "
                  "sizes; bind the input's shape with --bind-shape");
  if (padded && !isa<FloatType>(input.getElementType()))
    return n.fail(n.opType() +
                  " with auto_pad SAME over a run-time size and a stride "
                  "above 1 needs a floating-point input; bind the input's "
                  "shape with --bind-shape");
  // Max: the padding never wins. Average: what it adds is zero; without
  // count_include_pad the sum is divided by the same window op's sum over
  // a mask of ones padded with zeros (the count of input elements).
  bool countPads = n.attrInt("count_include_pad", 0) != 0;
  Value x = padSameAtRunTime(n, n.in(0), w, IsMax ? -INFINITY : 0.0);
  if (!x)
    return failure();
  Value y;
  if constexpr (IsMax)
    y = n.create<MaxPoolOp>(x, w.kernel, w.strides, w.dilations, w.pads,
                            ceilMode);
  else
    y = n.create<AvgPoolOp>(x, w.kernel, w.strides, w.dilations, w.pads,
                            ceilMode, countPads);
  if (!y)
    return failure();
  if (!IsMax && padded && !countPads) {
    SmallVector<SymDim> dims = n.dimsOf(n.in(0));
    dims[0] = dims[1] = SymDim::constant(1);
    Value mask = n.broadcastToDims(n.scalar(input.getElementType(), 1), dims);
    mask = mask ? padSameAtRunTime(n, mask, w, 0.0) : Value();
    Value count =
        mask ? n.create<AvgPoolOp>(mask, w.kernel, w.strides, w.dilations,
                                   w.pads, ceilMode, countPads)
             : Value();
    if (!count || !(y = n.create<DivOp>(y, count)))
      return failure();
  }
  n.setOut(0, y);
  if constexpr (IsMax) {
    if (n.wantsOutput(1)) {
      Value indices =
          maxPoolIndices(n, n.in(0), y, w, n.attrInt("storage_order", 0) != 0);
      if (!indices)
        return failure();
      n.setOut(1, indices);
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

Shape shapeOf(Value v) {
  return Shape(cast<RankedTensorType>(v.getType()).getShape());
}
Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// A constant of `type` (static shape) from host values: integers for
/// integer and bool element types, floats otherwise.
Value hostConstant(NodeImporter &n, ArrayRef<int64_t> shape, Type elem,
                   ArrayRef<int64_t> ints, ArrayRef<double> floats) {
  return n.constant(
      makeDense(RankedTensorType::get(shape, elem), ints, floats));
}

/// The type arithmetic on `elem` runs in: `elem` for f32 and f64, f32 for
/// f16, bf16 and narrow integers, f64 for 32- and 64-bit integers.
Type computeTypeOf(Type elem) {
  if (elem.isF32() || elem.isF64())
    return elem;
  if (isa<IntegerType>(elem) && elem.getIntOrFloatBitWidth() >= 32)
    return Float64Type::get(elem.getContext());
  return Float32Type::get(elem.getContext());
}

//===----------------------------------------------------------------------===//
// Resize and Upsample
//===----------------------------------------------------------------------===//
//
// Separable: every resized axis maps each output position to a few source
// positions (1 for nearest, 2 for linear, 4 for cubic, more for antialiased
// downsampling) with weights, all computed here on the host, following the
// ONNX reference implementation (onnx/reference/ops/op_resize.py). An axis
// is resized by, per tap, a tide.gather of its indices (constant, clamped
// into the input: the reference's edge padding) times its constant weights,
// the taps added. tf_crop_and_resize's extrapolation is a select with a
// constant mask at the end.

struct ResizeAttrs {
  std::string mode = "nearest"; // nearest, linear, cubic
  std::string coord = "half_pixel";
  std::string nearest = "round_prefer_floor"; // or "legacy" (before 11)
  double cubicA = -0.75;
  bool excludeOutside = false;
  bool antialias = false;
  double extrapolation = 0.0;
};

/// How one axis is resized: for every tap t and output position i, the
/// source index index[t * out + i] (clamped) and its weight.
struct AxisResize {
  int64_t in = 0, out = 0, taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<int64_t> outside; // 1 where the extrapolation value is taken
  bool anyOutside = false;

  /// True when output i reads input i with weight 1 (nothing to do).
  bool identity() const {
    if (in != out || anyOutside)
      return false;
    for (int64_t i = 0; i < out; ++i) {
      double self = 0;
      for (int64_t t = 0; t < taps; ++t) {
        double w = weight[t * out + i];
        if (index[t * out + i] == i)
          self += w;
        else if (w != 0)
          return false;
      }
      if (std::abs(self - 1) > 1e-12)
        return false;
    }
    return true;
  }

  /// Drops the taps whose weights are 0 at every output position.
  void dropEmptyTaps() {
    std::vector<int64_t> idx;
    std::vector<double> w;
    int64_t kept = 0;
    for (int64_t t = 0; t < taps; ++t) {
      bool used = false;
      for (int64_t i = 0; i < out && !used; ++i)
        used = weight[t * out + i] != 0;
      if (!used && !(t == taps - 1 && kept == 0))
        continue;
      idx.insert(idx.end(), index.begin() + t * out,
                 index.begin() + (t + 1) * out);
      w.insert(w.end(), weight.begin() + t * out,
               weight.begin() + (t + 1) * out);
      ++kept;
    }
    index = std::move(idx);
    weight = std::move(w);
    taps = kept;
  }
};

/// The Keys cubic kernel of parameter A (antialiased cubic).
double cubicKernel(double x, double A) {
  x = std::abs(x);
  if (x <= 1)
    return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2)
    return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0;
}

/// Plans one axis of `in` elements resized to `out` at `scale` (roi in
/// [roiStart, roiEnd] for tf_crop_and_resize).
AxisResize planAxis(int64_t in, int64_t out, double scale, double roiStart,
                    double roiEnd, const ResizeAttrs &a) {
  AxisResize r;
  r.in = in;
  r.out = out;
  // The taps' offsets from the source position just below (or at, when it
  // is fractional) the mapped coordinate.
  std::vector<int64_t> offsets;
  double s = std::min(scale, 1.0);
  if (a.mode == "nearest") {
    offsets = {0};
  } else if (a.mode == "linear") {
    int64_t start = a.antialias ? int64_t(std::floor(-1 / s)) + 1 : 0;
    for (int64_t o = start; o <= 1 - start; ++o)
      offsets.push_back(o);
  } else {
    int64_t start = a.antialias ? int64_t(std::floor(-2 / s)) + 1 : -1;
    for (int64_t o = start; o <= 1 - start; ++o)
      offsets.push_back(o);
  }
  int64_t taps = offsets.size();
  r.taps = taps;
  r.index.assign(taps * out, 0);
  r.weight.assign(taps * out, 0);
  r.outside.assign(out, 0);
  double width = scale * static_cast<double>(in); // may be fractional
  double last = static_cast<double>(in - 1);
  // A scale that is out / in (sizes given) divides as v * in / out: one
  // rounding, so a coordinate whose exact value is an integer or a half
  // comes out exactly (4.5 / (9 / 7.) is 3.4999999999999996, 4.5 * 7 / 9 is
  // 3.5) and nearest rounding picks the pixel exact arithmetic picks.
  bool ratio = scale == static_cast<double>(out) / static_cast<double>(in);
  auto unscale = [&](double v) {
    return ratio ? v * static_cast<double>(in) / static_cast<double>(out)
                 : v / scale;
  };
  for (int64_t i = 0; i < out; ++i) {
    double x = static_cast<double>(i), xo;
    if (a.coord == "align_corners") {
      xo = width == 1 ? 0.0 : x * last / (width - 1);
    } else if (a.coord == "asymmetric") {
      xo = unscale(x);
    } else if (a.coord == "tf_crop_and_resize") {
      xo = width == 1 ? (roiEnd - roiStart) * last / 2
                      : x * (roiEnd - roiStart) * last / (width - 1);
      xo += roiStart * last;
      if (xo < 0 || xo > last) {
        r.outside[i] = 1;
        r.anyOutside = true;
        continue; // index 0, weight 0: the select takes over
      }
    } else if (a.coord == "pytorch_half_pixel") {
      // The operator's formula (and ONNX Runtime) map a single output to
      // 0; the Python reference maps it to -0.5 (the same for nearest and
      // linear, not for cubic).
      xo = out > 1 ? unscale(x + 0.5) - 0.5 : 0.0;
    } else if (a.coord == "half_pixel_symmetric") {
      double adjustment = static_cast<double>(out) / width;
      double offset = static_cast<double>(in) / 2 * (1 - adjustment);
      xo = offset + unscale(x + 0.5) - 0.5;
    } else if (a.coord == "tf_half_pixel_for_nn") {
      xo = unscale(x + 0.5);
    } else { // half_pixel
      xo = unscale(x + 0.5) - 0.5;
    }
    // The reference's ratio is in (0, 1]: an integral coordinate is the
    // right end of the interval below it.
    double fl = std::floor(xo);
    bool integral = xo == fl;
    double ratio = integral ? 1.0 : xo - fl;
    int64_t left = saturatingInt64(fl) - (integral ? 1 : 0);
    std::vector<double> w(taps);
    if (a.mode == "nearest") {
      // Before Resize-11, nearest rounds down when upsampling and up when
      // downsampling (as ONNX Runtime does).
      std::string rounding = a.nearest;
      if (rounding == "legacy")
        rounding = scale < 1 ? "ceil" : "floor";
      bool up;
      if (integral || rounding == "ceil")
        up = true;
      else if (rounding == "floor")
        up = false;
      else if (rounding == "round_prefer_ceil")
        up = ratio >= 0.5;
      else // round_prefer_floor
        up = ratio > 0.5;
      offsets[0] = up ? 1 : 0;
      w[0] = 1;
    } else if (a.mode == "linear") {
      if (a.antialias) {
        double sum = 0;
        for (int64_t t = 0; t < taps; ++t) {
          double arg = (static_cast<double>(offsets[t]) - ratio) * s;
          w[t] = std::clamp(1 - std::abs(arg), 0.0, 1.0);
          sum += w[t];
        }
        for (double &v : w)
          v /= sum;
      } else {
        w = {1 - ratio, ratio};
      }
    } else {
      double A = a.cubicA;
      if (a.antialias) {
        double sum = 0;
        for (int64_t t = 0; t < taps; ++t) {
          w[t] = cubicKernel(s * (static_cast<double>(offsets[t]) - ratio), A);
          sum += w[t];
        }
        for (double &v : w)
          v /= sum;
      } else {
        double p = ratio + 1, q = 1 - ratio, q1 = q + 1;
        w = {((A * p - 5 * A) * p + 8 * A) * p - 4 * A,
             ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1,
             ((A + 2) * q - (A + 3)) * q * q + 1,
             ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A};
      }
    }
    if (a.excludeOutside && a.mode != "nearest") {
      double sum = 0;
      for (int64_t t = 0; t < taps; ++t) {
        int64_t src = left + offsets[t];
        if (src < 0 || src >= in)
          w[t] = 0;
        sum += w[t];
      }
      if (sum != 0)
        for (double &v : w)
          v /= sum;
    }
    for (int64_t t = 0; t < taps; ++t) {
      r.index[t * out + i] = std::clamp<int64_t>(left + offsets[t], 0, in - 1);
      r.weight[t * out + i] = w[t];
    }
  }
  r.dropEmptyTaps();
  return r;
}

/// Resizes `x` (static shape) along `axis` by `r`: per tap, a gather of its
/// indices times its weights, the taps added (elementwise ops that fuse; a
/// gather of every tap then a reduce_sum over them was 10 times slower on
/// the GPU). `nearest` results are the gather itself (weights of 1; any
/// element type).
Value resizeAxis(NodeImporter &n, Value x, int64_t axis, const AxisResize &r,
                 bool nearest) {
  SmallVector<SymDim> full = n.dimsOf(x);
  int64_t rank = full.size();
  Shape tapShape(rank, 1);
  tapShape[axis] = r.out;
  full[axis] = SymDim::constant(r.out);
  Value acc;
  for (int64_t t = 0; t < r.taps; ++t) {
    ArrayRef<int64_t> index(r.index.data() + t * r.out, r.out);
    ArrayRef<double> weight(r.weight.data() + t * r.out, r.out);
    Value idx = hostConstant(n, tapShape, n.b.getI64Type(), index, {});
    idx = n.broadcastToDims(idx, full);
    if (!idx)
      return {};
    Value g = n.create<GatherOp>(x, idx, axis);
    if (!g || nearest)
      return g;
    if (llvm::any_of(weight, [](double w) { return w != 1; }))
      g = n.create<MulOp>(g, hostConstant(n, tapShape, elemOf(x), {}, weight));
    acc = acc && g ? n.create<AddOp>(acc, g) : g;
    if (!acc)
      return {};
  }
  return acc;
}

/// Resizes axis `axis` of `x` from `in` to `out` elements where either is
/// known only at run time: the source coordinate of every output position is
/// computed (in f64, from an iota) as planAxis computes it on the host, then
/// nearest takes one index per output and linear two, with weights. `scale`
/// is the given scale, or 0 where sizes were given (the scale is then out /
/// in, and coordinates divide as v * in / out, as planAxis does).
/// Antialiasing and tf_crop_and_resize are refused before.
Value resizeAxisAtRunTime(NodeImporter &n, Value x, int64_t axis, SymDim in,
                          SymDim out, double scale, const ResizeAttrs &a,
                          Type compute) {
  Type f64 = n.b.getF64Type(), i64 = n.b.getI64Type();
  Value outShape = n.shapeOperand({out});
  if (!outShape)
    return {};
  Value iota = n.make<IotaOp>(n.typeOf({out}, i64), outShape, 0);
  Value pos = n.cast(iota, f64);
  Value inF = n.cast(n.scalarOf(in), f64), outF = n.cast(n.scalarOf(out), f64);
  if (!pos || !inF || !outF)
    return {};
  auto c = [&](double v) { return n.scalar(f64, v); };
  auto unscale = [&](Value v) -> Value {
    if (scale > 0)
      return n.create<DivOp>(v, c(scale));
    return n.create<DivOp>(n.create<MulOp>(v, inF), outF);
  };
  Value width = scale > 0 ? n.create<MulOp>(inF, c(scale)) : outF;
  Value half = n.create<AddOp>(pos, c(0.5));
  Value xo;
  if (a.coord == "align_corners") {
    Value mapped =
        n.create<DivOp>(n.create<MulOp>(pos, n.create<SubOp>(inF, c(1))),
                        n.create<SubOp>(width, c(1)));
    xo = n.create<SelectOp>(n.create<CmpOp>(CmpPredicate::eq, width, c(1)),
                            c(0), mapped);
  } else if (a.coord == "asymmetric") {
    xo = unscale(pos);
  } else if (a.coord == "pytorch_half_pixel") {
    xo = n.create<SelectOp>(n.create<CmpOp>(CmpPredicate::gt, outF, c(1)),
                            n.create<SubOp>(unscale(half), c(0.5)), c(0));
  } else if (a.coord == "half_pixel_symmetric") {
    Value adjustment = n.create<DivOp>(outF, width);
    Value offset = n.create<MulOp>(n.create<DivOp>(inF, c(2)),
                                   n.create<SubOp>(c(1), adjustment));
    xo = n.create<SubOp>(n.create<AddOp>(offset, unscale(half)), c(0.5));
  } else if (a.coord == "tf_half_pixel_for_nn") {
    xo = unscale(half);
  } else { // half_pixel
    xo = n.create<SubOp>(unscale(half), c(0.5));
  }
  if (!xo)
    return {};
  // Source indices clamped into the input (the reference's edge padding).
  Value last = n.scalarOf(n.combine("Sub", in, SymDim::constant(1)));
  auto clampIndex = [&](Value v) -> Value {
    Value i = n.cast(v, i64);
    return n.create<MinimumOp>(n.create<MaximumOp>(i, n.scalar(i64, 0)), last);
  };
  if (a.mode == "nearest") {
    std::string rounding = a.nearest;
    if (rounding == "legacy")
      rounding = scale < 1 ? "ceil" : "floor";
    Value rounded = rounding == "floor"  ? n.create<FloorOp>(xo)
                    : rounding == "ceil" ? n.create<CeilOp>(xo)
                    : rounding == "round_prefer_ceil"
                        ? n.create<FloorOp>(n.create<AddOp>(xo, c(0.5)))
                        : n.create<CeilOp>(n.create<SubOp>(xo, c(0.5)));
    return takeAlong(n, x, clampIndex(rounded), axis);
  }
  // linear: the two source positions around the coordinate, weighted by
  // the distance to them; cubic: the four around it, with the Keys
  // weights of planAxis (exclude_outside: those outside the input zeroed,
  // the rest scaled to sum to 1).
  Value fl = n.create<FloorOp>(xo);
  Value r = n.create<SubOp>(xo, fl);
  SmallVector<int64_t> offsets;
  SmallVector<Value> weights;
  if (a.mode == "linear") {
    offsets = {0, 1};
    weights = {n.create<SubOp>(c(1), r), r};
  } else {
    double A = a.cubicA;
    Value p = n.create<AddOp>(r, c(1)), q = n.create<SubOp>(c(1), r);
    Value q1 = n.create<AddOp>(q, c(1));
    // ((A v - 5A) v + 8A) v - 4A, and ((A + 2) v - (A + 3)) v v + 1.
    auto outer = [&](Value v) -> Value {
      Value t = n.create<SubOp>(n.create<MulOp>(v, c(A)), c(5 * A));
      t = n.create<AddOp>(n.create<MulOp>(t, v), c(8 * A));
      return n.create<SubOp>(n.create<MulOp>(t, v), c(4 * A));
    };
    auto inner = [&](Value v) -> Value {
      Value t = n.create<SubOp>(n.create<MulOp>(v, c(A + 2)), c(A + 3));
      return n.create<AddOp>(n.create<MulOp>(n.create<MulOp>(t, v), v), c(1));
    };
    offsets = {-1, 0, 1, 2};
    weights = {outer(p), inner(r), inner(q), outer(q1)};
  }
  SmallVector<Value> positions;
  for (int64_t o : offsets)
    positions.push_back(o ? n.create<AddOp>(fl, c(static_cast<double>(o)))
                          : fl);
  if (a.excludeOutside) {
    Value inF1 = n.create<SubOp>(inF, c(1)), sum;
    for (auto [w, pos] : llvm::zip(weights, positions)) {
      Value inside =
          n.create<AndOp>(n.create<CmpOp>(CmpPredicate::ge, pos, c(0)),
                          n.create<CmpOp>(CmpPredicate::le, pos, inF1));
      w = n.create<SelectOp>(inside, w, c(0));
      sum = sum ? n.create<AddOp>(sum, w) : w;
    }
    Value safe = n.create<SelectOp>(
        n.create<CmpOp>(CmpPredicate::eq, sum, c(0)), c(1), sum);
    for (Value &w : weights)
      w = n.create<DivOp>(w, safe);
  }
  Value acc;
  SmallVector<SymDim> weightDims(shapeOf(x).size(), SymDim::constant(1));
  for (auto [w, pos] : llvm::zip(weights, positions)) {
    Value g = takeAlong(n, x, clampIndex(pos), axis);
    if (!g || !w)
      return {};
    weightDims[axis] = n.dimOf(g, axis);
    Value term =
        n.create<MulOp>(g, n.reshapeTo(n.cast(w, compute), weightDims));
    acc = acc ? n.create<AddOp>(acc, term) : term;
  }
  return acc;
}

LogicalResult convertResize(NodeImporter &n) {
  bool upsample = n.opType() == "Upsample";
  if (failed(n.checkAttrs({"mode", "coordinate_transformation_mode",
                           "cubic_coeff_a", "exclude_outside",
                           "extrapolation_value", "nearest_mode", "antialias",
                           "axes", "keep_aspect_ratio_policy", "scales"})))
    return failure();
  if (upsample && n.opset < 7)
    return n.fail("Upsample before opset 7 (experimental) is not supported");
  if (!n.has(0) || !n.in(0))
    return n.fail("needs input 0");
  Value x = n.in(0);
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();

  // Attributes. Before Resize-11 (Upsample, Resize-10) the coordinates are
  // asymmetric and nearest rounds down.
  ResizeAttrs a;
  bool legacy = upsample || n.opset < 11;
  a.mode = n.attrString("mode", "nearest");
  if (a.mode == "bilinear" && upsample)
    a.mode = "linear";
  if (a.mode != "nearest" && a.mode != "linear" &&
      !(a.mode == "cubic" && !legacy))
    return n.fail("mode '" + a.mode + "' is not one of nearest, linear" +
                  (legacy ? "" : ", cubic"));
  a.coord = legacy
                ? "asymmetric"
                : n.attrString("coordinate_transformation_mode", "half_pixel");
  static const char *coords[] = {"half_pixel",          "half_pixel_symmetric",
                                 "pytorch_half_pixel",  "align_corners",
                                 "asymmetric",          "tf_crop_and_resize",
                                 "tf_half_pixel_for_nn"};
  if (!llvm::is_contained(coords, a.coord))
    return n.fail("coordinate_transformation_mode '" + a.coord +
                  "' is not supported");
  a.nearest =
      legacy ? "legacy" : n.attrString("nearest_mode", "round_prefer_floor");
  if (a.nearest != "round_prefer_floor" && a.nearest != "round_prefer_ceil" &&
      a.nearest != "floor" && a.nearest != "ceil" && a.nearest != "legacy")
    return n.fail("nearest_mode '" + a.nearest + "' is not supported");
  a.cubicA = n.attrFloat("cubic_coeff_a", -0.75);
  a.excludeOutside = n.attrInt("exclude_outside", 0) != 0;
  a.extrapolation = n.attrFloat("extrapolation_value", 0.0);
  a.antialias = n.attrInt("antialias", 0) != 0 && a.mode != "nearest";
  std::string policy = n.attrString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return n.fail("keep_aspect_ratio_policy '" + policy +
                  "' is not one of stretch, not_larger, not_smaller");

  Shape axes;
  if (std::optional<Shape> given = n.attrInts("axes")) {
    for (int64_t axis : *given) {
      auto norm = n.normAxis(axis, rank);
      if (failed(norm))
        return failure();
      if (llvm::is_contained(axes, *norm))
        return n.fail("axis " + Twine(axis) + " is repeated in 'axes'");
      axes.push_back(*norm);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  int64_t count = axes.size();

  // Scales or sizes (one of them), known while importing.
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  SmallVector<SymDim> runSizes;
  auto readScales = [&](unsigned i) -> LogicalResult {
    auto v = n.requireConstIn(i, "scales");
    if (failed(v))
      return failure();
    for (int64_t k = 0; k < v->size(); ++k)
      scales.push_back(v->at(k));
    return success();
  };
  if (upsample && n.opset < 9) {
    const onnx::AttributeProto *attr = n.attr("scales");
    if (!attr)
      return n.fail("Upsample needs the 'scales' attribute");
    scales.assign(attr->floats().begin(), attr->floats().end());
  } else if (legacy) {
    if (!n.has(1))
      return n.fail("needs input 1 (the scales)");
    if (failed(readScales(1)))
      return failure();
  } else {
    if (n.has(2) && failed(readScales(2)))
      return failure();
    if (n.has(3)) {
      // Sizes computed from run-time sizes (F.interpolate(size=y.shape[2:]))
      // are taken as such; other values must be known while importing.
      std::optional<ShapeValue> known = n.shapeIn(3);
      if (known && !known->isConstant() && known->type.getRank() == 1) {
        runSizes = known->elems;
      } else {
        auto v = n.requireInts(3, "sizes");
        if (failed(v))
          return failure();
        sizes.assign(v->begin(), v->end());
      }
    }
    bool haveSizes = !sizes.empty() || !runSizes.empty();
    if (!scales.empty() && haveSizes)
      return n.fail("give either scales or sizes, not both");
    if (scales.empty() && !haveSizes)
      return n.fail("needs scales (input 2) or sizes (input 3)");
  }
  int64_t given = !scales.empty()  ? scales.size()
                  : !sizes.empty() ? sizes.size()
                                   : runSizes.size();
  if (given != count)
    return n.fail(Twine(scales.empty() ? "sizes" : "scales") + " has " +
                  Twine(given) + " values; the input has " + Twine(count) +
                  (count == rank ? " dimensions" : " axes to resize"));

  // Axes whose input or output size is known only at run time: resized
  // by resizeAxisAtRunTime (in, out, the given scale or 0 for out / in).
  struct RunTimeAxis {
    int64_t axis;
    SymDim in, out;
    double scale;
  };
  SmallVector<RunTimeAxis> runTime;
  Shape in(type.getShape()), outSize = in;
  std::vector<double> scale(rank, 1.0), roiStart(rank, 0.0), roiEnd(rank, 1.0);
  if (!scales.empty()) {
    for (int64_t k = 0; k < count; ++k) {
      int64_t d = axes[k];
      if (!(scales[k] > 0))
        return n.fail("scales must be positive; scale " + Twine(k) + " is " +
                      std::to_string(scales[k]));
      scale[d] = scales[k];
      if (ShapedType::isDynamic(in[d])) {
        // floor(scale * in) in float, as below; an integral scale
        // multiplies exactly.
        if (scales[k] == 1)
          continue;
        SymDim inD = n.dimOf(x, d), outD;
        if (scales[k] == std::floor(scales[k]) && scales[k] < 1e9) {
          outD = n.combine("Mul", inD,
                           SymDim::constant(static_cast<int64_t>(scales[k])));
        } else {
          Type f32 = n.b.getF32Type();
          Value product = n.create<FloorOp>(n.create<MulOp>(
              n.cast(n.scalarOf(inD), f32), n.scalar(f32, scales[k])));
          outD = SymDim::expr(n.cast(product, n.b.getI64Type()));
          if (!outD.scalar)
            return failure();
        }
        runTime.push_back({d, inD, outD, scales[k]});
        continue;
      }
      // The product in float, as ONNX Runtime computes it (20 * 0.35f is 7,
      // not 6.99..).
      outSize[d] = saturatingInt64(std::floor(static_cast<float>(scales[k]) *
                                              static_cast<float>(in[d])));
    }
  } else if (!runSizes.empty()) {
    for (int64_t k = 0; k < count; ++k) {
      int64_t d = axes[k];
      SymDim inD = n.dimOf(x, d);
      if (runSizes[k] == inD)
        continue;
      if (runSizes[k].isConst() && runSizes[k].value < 0)
        return n.fail("sizes must not be negative");
      runTime.push_back({d, inD, runSizes[k], 0.0});
    }
  } else {
    for (int64_t k = 0; k < count; ++k) {
      int64_t d = axes[k];
      if (sizes[k] < 0)
        return n.fail("sizes must not be negative");
      if (ShapedType::isDynamic(in[d])) {
        runTime.push_back({d, n.dimOf(x, d), SymDim::constant(sizes[k]), 0.0});
        continue;
      }
      if (in[d] == 0 && sizes[k] != 0)
        return n.fail("cannot resize an empty dimension");
      outSize[d] = sizes[k];
      scale[d] = in[d] ? double(sizes[k]) / double(in[d]) : 1.0;
    }
    if (policy != "stretch" && runTime.empty()) {
      double common = scale[axes[0]];
      for (int64_t d : axes)
        common = policy == "not_larger" ? std::min(common, scale[d])
                                        : std::max(common, scale[d]);
      for (int64_t d : axes) {
        scale[d] = common;
        outSize[d] = static_cast<int64_t>(common * double(in[d]) + 0.5);
      }
    }
  }
  if (!runTime.empty() || !runSizes.empty()) {
    // What resizeAxisAtRunTime does not compute.
    std::string what = a.antialias                       ? "antialias"
                       : a.coord == "tf_crop_and_resize" ? "tf_crop_and_resize"
                       : policy != "stretch"
                           ? "keep_aspect_ratio_policy " + policy
                           : "";
    if (!what.empty())
      return n.fail(n.opType() + " with " + what +
                    " needs the resized sizes known while importing (an "
                    "axis's size is known only at run time); bind the "
                    "input's shape with --bind-shape");
  }
  if (a.coord == "tf_crop_and_resize") {
    if (!n.has(1))
      return n.fail("tf_crop_and_resize needs input 1 (the roi)");
    auto roi = n.requireConstIn(1, "roi");
    if (failed(roi))
      return failure();
    if (roi->size() != 2 * count)
      return n.fail("roi has " + Twine(roi->size()) + " values; " +
                    Twine(2 * count) +
                    " are needed (a start and an end per "
                    "resized axis)");
    for (int64_t k = 0; k < count; ++k) {
      roiStart[axes[k]] = roi->at(k);
      roiEnd[axes[k]] = roi->at(count + k);
    }
  }

  // Plan every axis; resize the ones that change, those that shrink first.
  Type elem = type.getElementType();
  bool nearest = a.mode == "nearest";
  if (!nearest && !isa<FloatType>(elem) && !isa<IntegerType>(elem))
    return n.fail("unsupported element type");
  if (!nearest && elem.isInteger(1))
    return n.fail(a.mode + " interpolation needs numbers, not booleans");
  std::vector<std::pair<int64_t, AxisResize>> plans;
  for (int64_t d = 0; d < rank; ++d) {
    // (Run-time sizes: the axes not resized, and those of `runTime`.)
    if (ShapedType::isDynamic(in[d]) ||
        llvm::any_of(runTime,
                     [&](const RunTimeAxis &r) { return r.axis == d; }))
      continue;
    if (in[d] == 0 || outSize[d] == 0) {
      if (in[d] != outSize[d])
        plans.push_back({d, AxisResize{in[d], outSize[d], 0, {}, {}, {}, 0}});
      continue;
    }
    // The tap tables are host constants of (taps x out) entries: a size
    // past the importer's table limit is an error, not an allocation of
    // terabytes (sizes of 2^40, or a scale of inf).
    if (overComputedLimit(outSize[d], 64) || overComputedLimit(in[d], 64))
      return n.fail("Resize to a size of " + Twine(outSize[d]) +
                    " along axis " + Twine(d) +
                    " is larger than Tide's limit for a resized axis (" +
                    Twine(kComputedTableLimit / 64) + ")");
    AxisResize r =
        planAxis(in[d], outSize[d], scale[d], roiStart[d], roiEnd[d], a);
    if (!r.identity())
      plans.push_back({d, std::move(r)});
  }
  llvm::sort(plans, [](const auto &l, const auto &r) {
    int64_t lhs = l.second.out * r.second.in, rhs = r.second.out * l.second.in;
    return lhs != rhs ? lhs < rhs : l.first < r.first;
  });
  Type compute = nearest ? elem : computeTypeOf(elem);
  Value y = n.cast(x, compute);
  for (auto &[d, r] : plans) {
    if (r.in == 0 || r.out == 0) {
      // Nothing to read or nothing to write: zeros (none when empty).
      SmallVector<SymDim> dims = n.dimsOf(y);
      dims[d] = SymDim::constant(r.out);
      y = n.broadcastToDims(n.scalar(compute, 0), dims);
    } else {
      y = resizeAxis(n, y, d, r, nearest);
    }
    if (!y)
      return failure();
  }
  for (const RunTimeAxis &r : runTime) {
    y = resizeAxisAtRunTime(n, y, r.axis, r.in, r.out, r.scale, a, compute);
    if (!y)
      return failure();
  }
  for (auto &[d, r] : plans) {
    if (!r.anyOutside)
      continue;
    Shape maskShape(rank, 1);
    maskShape[d] = r.out;
    Value mask = hostConstant(n, maskShape, n.b.getI1Type(), r.outside, {});
    y = n.create<SelectOp>(mask, n.scalar(compute, a.extrapolation), y);
    if (!y)
      return failure();
  }
  y = n.cast(y, elem);
  if (!y)
    return failure();
  n.setOut(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//
//
// The gradient of a convolution, computed as a convolution (stride 1) over
// the input with stride - 1 zeros inserted between its elements, padded by
// dilation * (kernel - 1) - pads on each side (plus output_padding at the
// end), with the kernel flipped spatially and its channel axes swapped per
// group ([C, M / group, k..] -> [M, C / group, k..]).
//
// The zeros are inserted by a select against a constant mask, which leaves
// stride - 1 zeros around the elements: `lead` before the first, the others
// after the last; they count as padding. Where that makes a pad negative
// (pads larger than the kernel's reach, or a kernel narrower than the
// stride), the spread-out input is cropped there instead. (It was once the
// kernel extended with zero taps, which multiplied the input's NaN and
// infinities into outputs they do not reach.)

/// How one spatial axis of a ConvTranspose becomes a convolution.
struct TransposedAxis {
  int64_t stride, dilation, kernel;
  int64_t lead = 0;               // zeros before the first element
  int64_t padLo = 0, padHi = 0;   // the convolution's pads
  int64_t cropLo = 0, cropHi = 0; // elements cropped off the spread input
  /// The index into the original kernel that convolution kernel index `u`
  /// reads (the kernel flipped).
  int64_t source(int64_t u) const { return kernel - 1 - u; }
};

/// The flat index of the element of `w` ([C, M/g, k..]) that element `flat`
/// of the convolution's kernel ([M, C/g, K..]) copies, or -1 for a zero.
int64_t kernelSource(int64_t flat, ArrayRef<int64_t> oldShape,
                     ArrayRef<int64_t> newShape,
                     ArrayRef<TransposedAxis> axes) {
  int64_t rank = newShape.size();
  Shape idx(rank);
  for (int64_t d = rank - 1; d >= 0; --d) {
    idx[d] = flat % newShape[d];
    flat /= newShape[d];
  }
  int64_t mg = oldShape[1], cg = newShape[1];
  Shape src(rank);
  src[0] = idx[0] / mg * cg + idx[1];
  src[1] = idx[0] % mg;
  for (int64_t d = 2; d < rank; ++d) {
    src[d] = axes[d - 2].source(idx[d]);
    if (src[d] < 0)
      return -1;
  }
  int64_t old = 0;
  for (int64_t d = 0; d < rank; ++d)
    old = old * oldShape[d] + src[d];
  return old;
}

/// The convolution's kernel from a constant weight, rearranged on the host;
/// null if its storage cannot be read.
ElementsAttr constantKernel(ElementsAttr attr, RankedTensorType newType,
                            ArrayRef<TransposedAxis> axes) {
  auto oldType = cast<RankedTensorType>(attr.getShapedType());
  Type elem = oldType.getElementType();
  if (!elem.isIntOrFloat() || elem.isInteger(1))
    return {};
  int64_t width = (elem.getIntOrFloatBitWidth() + 7) / 8;
  int64_t oldCount = oldType.getNumElements();
  int64_t count = newType.getNumElements();
  ArrayRef<char> data;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return dense.reshape(newType);
    data = dense.getRawData();
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    if (!resource.getRawHandle().getBlob())
      return {};
    data = resource.getRawHandle().getBlob()->getData();
  } else {
    return {};
  }
  if (static_cast<int64_t>(data.size()) != oldCount * width)
    return {};
  // Too large to make here (a huge dilation, found by tide-fuzz-onnx: a
  // 2^45-byte vector): the kernel is computed at run time instead, whose
  // own limits report what cannot be done.
  if (overComputedLimit(count))
    return {};
  std::vector<char> out(count * width, 0); // 0 is all-zero bits
  for (int64_t i = 0; i < count; ++i) {
    int64_t src = kernelSource(i, oldType.getShape(), newType.getShape(), axes);
    if (src >= 0)
      std::memcpy(out.data() + i * width, data.data() + src * width, width);
  }
  ArrayRef<char> bytes(out.data(), out.size());
  if (count <= 64)
    return DenseElementsAttr::getFromRawBuffer(newType, bytes);
  return DenseResourceElementsAttr::get(
      newType, "convtranspose_weight",
      HeapAsmResourceBlob::allocateAndCopyInferAlign(bytes));
}

/// Zeros inserted after every element along the axes where `every` > 1:
/// element i lands at i * every + at. `x` keeps its other dimensions
/// (the first two may be dynamic).
Value spreadOut(NodeImporter &n, Value x, int64_t firstAxis,
                ArrayRef<int64_t> every, ArrayRef<int64_t> at) {
  SmallVector<SymDim> s = n.dimsOf(x);
  SmallVector<SymDim> expanded(s.begin(), s.begin() + firstAxis),
      flat(s.begin(), s.begin() + firstAxis);
  Shape maskShape(firstAxis, 1);
  for (size_t i = 0; i < every.size(); ++i) {
    const SymDim &size = s[firstAxis + i];
    expanded.append({size, SymDim::constant(1)});
    maskShape.append({1, every[i]});
    flat.push_back(n.combine("Mul", size, SymDim::constant(every[i])));
  }
  int64_t maskCount = 1;
  for (int64_t m : maskShape) {
    if (overComputedLimit(maskCount, m)) {
      (void)n.fail("strides or dilations of this size need a mask larger "
                   "than Tide computes while importing (" +
                   Twine(kComputedTableLimit) + " elements)");
      return {};
    }
    maskCount *= m;
  }
  // True where every strided coordinate is at its `at`.
  std::vector<int64_t> mask(maskCount, 0);
  for (int64_t flatIdx = 0; flatIdx < maskCount; ++flatIdx) {
    int64_t rest = flatIdx;
    bool on = true;
    for (int64_t i = every.size() - 1; i >= 0; --i) {
      on &= rest % every[i] == at[i];
      rest /= every[i];
    }
    mask[flatIdx] = on;
  }
  Value m = hostConstant(n, maskShape, n.b.getI1Type(), mask, {});
  Value e = n.reshapeTo(x, expanded);
  if (!e)
    return {};
  Value y = n.create<SelectOp>(m, e, n.scalar(elemOf(x), 0));
  if (!y)
    return {};
  return n.reshapeTo(y, flat);
}

/// The convolution's kernel from a weight computed at run time, with tide
/// ops: channels swapped per group, flipped, extended where asked.
Value computedKernel(NodeImporter &n, Value w, int64_t groups,
                     ArrayRef<TransposedAxis> axes) {
  Shape s = shapeOf(w);
  int64_t rank = s.size();
  int64_t c = s[0], mg = s[1], cg = c / groups;
  // [C, M/g, k..] -> [g, C/g, M/g, k..] -> [g, M/g, C/g, k..] -> [M, C/g, k..]
  Shape split = {groups, cg, mg};
  split.append(s.begin() + 2, s.end());
  Shape perm = {0, 2, 1};
  for (int64_t d = 3; d < rank + 1; ++d)
    perm.push_back(d);
  Shape swapped = {groups * mg, cg};
  swapped.append(s.begin() + 2, s.end());
  Value v = n.reshape(w, split);
  if (!v)
    return {};
  v = n.create<TransposeOp>(v, perm);
  if (!v)
    return {};
  v = n.reshape(v, swapped);
  // Flip each spatial axis: a gather of reversed indices.
  for (int64_t d = 2; d < rank && v; ++d) {
    int64_t k = swapped[d];
    if (k == 1)
      continue;
    if (overComputedLimit(k)) {
      (void)n.fail("a kernel of " + Twine(k) +
                   " taps is larger than Tide computes while importing");
      return {};
    }
    std::vector<int64_t> rev(k);
    for (int64_t i = 0; i < k; ++i)
      rev[i] = k - 1 - i;
    Shape idxShape(rank, 1);
    idxShape[d] = k;
    Value idx = hostConstant(n, idxShape, n.b.getI64Type(), rev, {});
    idx = n.broadcastTo(idx, swapped);
    if (!idx)
      return {};
    v = n.create<GatherOp>(v, idx, d);
  }
  return v;
}

/// `x` without its first `lo` and last `hi` elements along `axis` (whose
/// size may be known only at run time; what is left is checked to be
/// non-negative when it runs).
Value cropAxis(NodeImporter &n, Value x, int64_t axis, int64_t lo, int64_t hi) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  if (!type.isDynamicDim(axis)) {
    if (type.getDimSize(axis) < lo + hi) {
      (void)n.fail("the pads remove more than the whole output");
      return {};
    }
    return n.sliceAxis(x, axis, lo, type.getDimSize(axis) - hi);
  }
  SmallVector<SymDim> starts(rank, SymDim::constant(0)), limits = n.dimsOf(x);
  starts[axis] = SymDim::constant(lo);
  limits[axis] = n.combine("Sub", limits[axis], SymDim::constant(hi));
  SmallVector<int64_t> shape(type.getShape());
  Value startV = n.shapeOperand(starts), limitV = n.shapeOperand(limits);
  if (!startV || !limitV)
    return {};
  return n.make<DynamicSliceOp>(type.clone(shape), x, startV, limitV,
                                SmallVector<int64_t>(rank, 1));
}

int64_t floorDiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

LogicalResult convertConvTranspose(NodeImporter &n) {
  if (failed(
          n.checkAttrs({"auto_pad", "dilations", "group", "kernel_shape",
                        "output_padding", "output_shape", "pads", "strides"})))
    return failure();
  RankedTensorType input = windowInput(n);
  if (!input)
    return failure();
  if (!n.has(1) || !n.in(1))
    return n.fail("needs input 1 (the weight)");
  Value x = n.in(0);
  RankedTensorType weightType = n.inType(1);
  int64_t k = input.getRank() - 2;
  if (weightType.getRank() != input.getRank())
    return n.fail("the weight has rank " + Twine(weightType.getRank()) +
                  "; the input has rank " + Twine(input.getRank()));
  if (!weightType.hasStaticShape())
    return n.fail("the weight's shape must be static");
  bool dynamicSpatial =
      llvm::any_of(input.getShape().drop_front(2), ShapedType::isDynamic);
  int64_t groups = n.attrInt("group", 1);
  int64_t c = weightType.getDimSize(0), mg = weightType.getDimSize(1);
  if (groups < 1 || c % groups != 0)
    return n.fail("the weight's first dimension (" + Twine(c) +
                  ") is not a multiple of group (" + Twine(groups) + ")");
  if (!input.isDynamicDim(1) && input.getDimSize(1) != c)
    return n.fail("the input has " + Twine(input.getDimSize(1)) +
                  " channels; the weight expects " + Twine(c));
  if (groups > 1 && input.isDynamicDim(1)) {
    // A run-time channel count is the weight's (the grouped convolution
    // splits static channels).
    SmallVector<SymDim> dims = n.dimsOf(x);
    dims[1] = SymDim::constant(c);
    x = n.reshapeTo(x, dims);
    if (!x)
      return failure();
  }
  Shape kernel(weightType.getShape().drop_front(2));
  if (std::optional<Shape> given = n.attrInts("kernel_shape");
      given && *given != kernel)
    return n.fail("kernel_shape does not match the weight's spatial sizes");
  auto strides = perDim(n, "strides", k, 1);
  auto dilations = perDim(n, "dilations", k, 1);
  auto outPad = perDim(n, "output_padding", k, 0);
  if (failed(strides) || failed(dilations) || failed(outPad))
    return failure();
  for (int64_t i = 0; i < k; ++i)
    if ((*strides)[i] < 1 || (*dilations)[i] < 1 || kernel[i] < 1)
      return n.fail("strides, dilations and kernel sizes must be positive");

  // Pads: given, or from output_shape / auto_pad (the ONNX formulas, with
  // Python's floor division).
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return n.fail("auto_pad '" + autoPad +
                  "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  Shape pads(2 * k, 0);
  std::optional<Shape> outputShape = n.attrInts("output_shape");
  if (outputShape && static_cast<int64_t>(outputShape->size()) == k + 2)
    outputShape = Shape(outputShape->begin() + 2, outputShape->end());
  if (outputShape && static_cast<int64_t>(outputShape->size()) != k)
    return n.fail("'output_shape' has " + Twine(outputShape->size()) +
                  " entries; the input has " + Twine(k) +
                  " spatial dimensions");
  if (outputShape && dynamicSpatial)
    return n.fail("ConvTranspose with 'output_shape' needs static spatial "
                  "sizes (the pads depend on them); bind the input's shape "
                  "with --bind-shape");
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (outputShape || same) {
    for (int64_t i = 0; i < k; ++i) {
      // SAME: the output is input * stride, which leaves a total padding
      // that does not depend on the input's size.
      int64_t total =
          outputShape
              ? (*strides)[i] * (input.getDimSize(i + 2) - 1) + (*outPad)[i] +
                    (kernel[i] - 1) * (*dilations)[i] + 1 - (*outputShape)[i]
              : (*outPad)[i] + (kernel[i] - 1) * (*dilations)[i] + 1 -
                    (*strides)[i];
      int64_t half = floorDiv2(total);
      pads[i] = autoPad == "SAME_UPPER" ? half : total - half;
      // An output_shape larger than the natural output: the extra positions
      // go at the end (ONNX Runtime's rule; the ONNX test data's single
      // extra position is there too).
      if (total < 0)
        pads[i] = 0;
      pads[k + i] = total - pads[i];
    }
  } else if (autoPad == "NOTSET") {
    auto given = perDim(n, "pads", 2 * k, 0);
    if (failed(given))
      return failure();
    pads = *given;
  }

  // Each axis: where the inserted zeros go, the convolution's pads, and the
  // kernel's extension where a pad would be negative.
  SmallVector<TransposedAxis> axes;
  Shape every(k), lead(k);
  for (int64_t i = 0; i < k; ++i) {
    TransposedAxis a{(*strides)[i], (*dilations)[i], kernel[i]};
    int64_t reach = a.dilation * (a.kernel - 1);
    int64_t lo = reach - pads[i];
    int64_t hi = reach - pads[k + i] + (*outPad)[i];
    // (A run-time size whose output the pads remove leaves an empty
    // result: the convolution's window is larger than its input.)
    if (!input.isDynamicDim(i + 2) &&
        (input.getDimSize(i + 2) - 1) * a.stride + 1 + lo + hi - reach < 0)
      return n.fail("the pads remove more than the whole output");
    a.lead = std::clamp<int64_t>(lo, 0, a.stride - 1);
    int64_t loE = lo - a.lead, hiE = hi - (a.stride - 1 - a.lead);
    a.padLo = std::max<int64_t>(loE, 0);
    a.padHi = std::max<int64_t>(hiE, 0);
    a.cropLo = std::max<int64_t>(-loE, 0);
    a.cropHi = std::max<int64_t>(-hiE, 0);
    every[i] = a.stride;
    lead[i] = a.lead;
    axes.push_back(a);
  }

  // The kernel of the equivalent convolution.
  Shape newShape = {groups * mg, c / groups};
  for (const TransposedAxis &a : axes)
    newShape.push_back(a.kernel);
  auto newType = RankedTensorType::get(newShape, weightType.getElementType());
  Value weight;
  if (std::optional<ElementsAttr> attr = n.constIn(1))
    if (ElementsAttr kernelAttr = constantKernel(*attr, newType, axes))
      weight = ConstantOp::create(n.b, n.loc, newType, kernelAttr);
  if (!weight) {
    if (!n.in(1))
      return failure();
    weight = computedKernel(n, n.in(1), groups, axes);
    if (!weight)
      return failure();
  }

  if (llvm::any_of(every, [](int64_t s) { return s > 1; })) {
    x = spreadOut(n, x, 2, every, lead);
    if (!x)
      return failure();
  }
  for (int64_t i = 0; i < k; ++i)
    if (axes[i].cropLo > 0 || axes[i].cropHi > 0)
      if (!(x = cropAxis(n, x, i + 2, axes[i].cropLo, axes[i].cropHi)))
        return failure();
  Shape convPads(2 * k), convDilations(k);
  for (int64_t i = 0; i < k; ++i) {
    convPads[i] = axes[i].padLo;
    convPads[k + i] = axes[i].padHi;
    convDilations[i] = axes[i].dilation;
  }
  Value y =
      n.create<ConvOp>(x, weight, Shape(k, 1), convDilations, convPads, groups);
  if (!y)
    return failure();
  if (n.has(2)) {
    Value bias = n.in(2);
    if (!bias)
      return failure();
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1)
      return n.fail("the bias B must have rank 1");
    // One value per output channel (a single value broadcast to every
    // channel; ONNX Runtime refuses it).
    int64_t channels = cast<RankedTensorType>(y.getType()).getDimSize(1),
            values = biasType.getDimSize(0);
    if (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic(values) &&
        values != channels)
      return n.fail("the bias B has " + Twine(values) +
                    " values; the output has " + Twine(channels) + " channels");
    Shape shape = {biasType.getDimSize(0)};
    shape.append(k, 1);
    y = n.create<AddOp>(y, n.reshape(bias, shape));
    if (!y)
      return failure();
  }
  n.setOut(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// AffineGrid
//===----------------------------------------------------------------------===//
//
// The sampling grid of an affine transform (opset 20; PyTorch's affine_grid):
// for every output position its normalized coordinates (x, y[, z], 1), a
// constant of the sizes `size` gives, times theta transposed, one batched
// product: grid[n, p, :] = theta[n] (x_p, y_p[, z_p], 1).

LogicalResult convertAffineGrid(NodeImporter &n) {
  if (failed(n.checkAttrs({"align_corners"})))
    return failure();
  if (!n.has(0) || !n.in(0) || !n.has(1))
    return n.fail("needs inputs 0 (theta) and 1 (size)");
  Value theta = n.in(0);
  auto tType = cast<RankedTensorType>(theta.getType());
  if (!isa<FloatType>(tType.getElementType()))
    return n.fail("theta must be floating-point");
  auto size = n.requireInts(1, "size");
  if (failed(size))
    return failure();
  int64_t r = static_cast<int64_t>(size->size()) - 2;
  if (r != 2 && r != 3)
    return n.fail("size must have 4 entries (N, C, H, W) or 5 (N, C, D, H, "
                  "W), got " +
                  Twine(size->size()));
  if (tType.getRank() != 3 || tType.getDimSize(1) != r ||
      tType.getDimSize(2) != r + 1)
    return n.fail("theta must be (N, " + Twine(r) + ", " + Twine(r + 1) +
                  ") for a " + Twine(r) + "-D size");
  int64_t batch = tType.getDimSize(0);
  if (!ShapedType::isDynamic(batch) && batch != (*size)[0])
    return n.fail("theta has a batch of " + Twine(batch) + " but size says " +
                  Twine((*size)[0]));
  Shape spatial(size->begin() + 2, size->end());
  int64_t points = 1;
  constexpr int64_t kMaxPoints = int64_t(1) << 24;
  for (int64_t d : spatial) {
    if (d <= 0)
      return n.fail("the sizes must be positive");
    if (d > kMaxPoints / points)
      return n.fail("a grid of more than " + Twine(kMaxPoints) +
                    " points is not supported");
    points *= d;
  }
  bool align = n.attrInt("align_corners", 0) != 0;
  auto coord = [&](int64_t i, int64_t length) {
    if (align)
      return length == 1 ? -1.0 : -1.0 + 2.0 * i / (length - 1);
    return -1.0 + (2.0 * i + 1.0) / length;
  };
  // (x, y[, z], 1) of every position, the last spatial axis fastest.
  SmallVector<double> base;
  base.reserve(points * (r + 1));
  SmallVector<int64_t> at(r, 0);
  for (int64_t p = 0; p < points; ++p) {
    for (int64_t k = r - 1; k >= 0; --k) // x from W, y from H, z from D
      base.push_back(coord(at[k], spatial[k]));
    base.push_back(1.0);
    for (int64_t k = r - 1; k >= 0; --k) {
      if (++at[k] < spatial[k])
        break;
      at[k] = 0;
    }
  }
  Value grid = n.constant(makeDense(
      RankedTensorType::get({1, points, r + 1}, tType.getElementType()), {},
      base));
  SmallVector<SymDim> dims = n.dimsOf(theta);
  grid = n.broadcastToDims(
      grid, {dims[0], SymDim::constant(points), SymDim::constant(r + 1)});
  Value thetaT = n.create<TransposeOp>(theta, Shape{0, 2, 1});
  if (!grid || !thetaT)
    return failure();
  Value y = n.create<MatmulOp>(grid, thetaT);
  if (!y)
    return failure();
  SmallVector<SymDim> outDims{dims[0]};
  for (int64_t d : spatial)
    outDims.push_back(SymDim::constant(d));
  outDims.push_back(SymDim::constant(r));
  Value grid2 = n.reshapeTo(y, outDims);
  if (!grid2)
    return failure();
  n.setOut(0, grid2);
  return success();
}

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//
//
// PyTorch's grid_sample: every output position reads the input at the
// coordinates its grid entry gives (data-dependent). The coordinates are
// unnormalized and padded (border: clamped; reflection: mirrored) with
// elementwise ops, and every tap (2 per spatial dimension for linear, 4 for
// cubic, 1 for nearest) becomes a linear index into the flattened spatial
// axis, read with tide.gather; taps outside the input read 0.

/// DeformConv (opset 19, 2-D): a convolution whose every kernel tap samples
/// the input at its regular position plus a learned offset (bilinear, zero
/// outside the image, as GridSample with align_corners), scaled by an
/// optional mask. Built as im2col: the sample coordinates (batch, offset
/// group, taps, output positions) are the constant grid plus the offsets;
/// each of the four neighbours is a gather from the flattened image (every
/// channel of an offset group uses that group's coordinates) times its
/// weight; the columns (batch, group, channels x taps, positions) are then
/// one batched product with the weight.
LogicalResult convertDeformConv(NodeImporter &n) {
  if (failed(n.checkAttrs({"dilations", "group", "kernel_shape", "offset_group",
                           "pads", "strides"})))
    return failure();
  if (!n.has(0) || !n.has(1) || !n.has(2))
    return n.fail("DeformConv needs X, W and offset");
  Value x = n.in(0), w = n.in(1), off = n.in(2);
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  auto ot = cast<RankedTensorType>(off.getType());
  Type elem = xt.getElementType();
  if (!isa<FloatType>(elem) || wt.getElementType() != elem ||
      ot.getElementType() != elem)
    return n.fail("DeformConv needs floating-point X, W and offset of one "
                  "type");
  if (xt.getRank() != 4 || wt.getRank() != 4 || ot.getRank() != 4)
    return n.fail("DeformConv supports 2-D convolutions: X, W and offset of "
                  "rank 4");
  Shape xs(xt.getShape()), ws(wt.getShape()), os(ot.getShape());
  if (llvm::any_of(ArrayRef(xs).drop_front(), ShapedType::isDynamic) ||
      !wt.hasStaticShape() ||
      llvm::any_of(ArrayRef(os).drop_front(), ShapedType::isDynamic))
    return n.fail("DeformConv needs every size but the batch known while "
                  "importing");
  int64_t channels = xs[1], height = xs[2], width = xs[3];
  int64_t outC = ws[0], kh = ws[2], kw = ws[3];
  int64_t group = n.attrInt("group", 1), og = n.attrInt("offset_group", 1);
  if (group < 1 || og < 1 || channels % group || outC % group ||
      ws[1] * group != channels || channels % og)
    return n.fail("DeformConv: " + Twine(channels) + " input channels, a " +
                  "weight of " + Twine(ws[1]) + " channels per group, " +
                  Twine(group) + " groups and " + Twine(og) +
                  " offset groups do not fit together");
  if (std::optional<Shape> kernel = n.attrInts("kernel_shape");
      kernel && *kernel != Shape{kh, kw})
    return n.fail("kernel_shape does not match the weight's spatial sizes");
  Shape strides = n.attrInts("strides").value_or(Shape{1, 1});
  Shape dil = n.attrInts("dilations").value_or(Shape{1, 1});
  Shape pads = n.attrInts("pads").value_or(Shape{0, 0, 0, 0});
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4 ||
      llvm::any_of(strides, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(dil, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(pads, [](int64_t v) { return v < 0; }))
    return n.fail("DeformConv needs 2 positive strides and dilations and 4 "
                  "non-negative pads");
  int64_t taps = kh * kw, outH = os[2], outW = os[3], positions = outH * outW;
  int64_t wantH = (height + pads[0] + pads[2] - (kh - 1) * dil[0] - 1) /
                      strides[0] +
                  1,
          wantW =
              (width + pads[1] + pads[3] - (kw - 1) * dil[1] - 1) / strides[1] +
              1;
  if (os[1] != og * taps * 2 || outH != wantH || outW != wantW)
    return n.fail("DeformConv's offset has shape (N, " + Twine(os[1]) + ", " +
                  Twine(outH) + ", " + Twine(outW) + "); expected (N, " +
                  Twine(og * taps * 2) + ", " + Twine(wantH) + ", " +
                  Twine(wantW) + ")");
  if (overComputedLimit(taps * positions * 2))
    return n.fail("DeformConv's sampling grid is larger than Tide computes "
                  "while importing");
  Type ct = computeTypeOf(elem);
  Type i64 = IntegerType::get(n.ctx, 64);
  SymDim batch = n.dimOf(x, 0);
  auto c = [](int64_t v) { return SymDim::constant(v); };
  // The regular grid: (1, 1, taps, positions) per axis.
  SmallVector<double> gridY, gridX;
  for (int64_t a = 0; a < kh; ++a)
    for (int64_t b = 0; b < kw; ++b)
      for (int64_t i = 0; i < outH; ++i)
        for (int64_t j = 0; j < outW; ++j) {
          gridY.push_back(-pads[0] + strides[0] * i + a * dil[0]);
          gridX.push_back(-pads[1] + strides[1] * j + b * dil[1]);
        }
  auto gridType = RankedTensorType::get({1, 1, taps, positions}, ct);
  // offset (N, og * taps * 2, oH, oW) -> (N, og, taps, 2, positions).
  Value o =
      n.reshapeTo(n.cast(off, ct), {batch, c(og), c(taps), c(2), c(positions)});
  if (!o)
    return failure();
  auto coordinate = [&](int64_t axis, ArrayRef<double> grid) -> Value {
    Value part = sliceAlong(n, o, 3, axis, axis + 1);
    part = n.reshapeTo(part, {batch, c(og), c(taps), c(positions)});
    return n.create<AddOp>(part, n.constant(makeDense(gridType, {}, grid)));
  };
  Value cy = coordinate(0, gridY), cx = coordinate(1, gridX);
  if (!cy || !cx)
    return failure();
  Value maskV;
  if (n.has(4)) {
    Value m = n.in(4);
    auto mt = cast<RankedTensorType>(m.getType());
    if (mt.getElementType() != elem || mt.getRank() != 4 ||
        mt.getDimSize(1) != og * taps || mt.getDimSize(2) != outH ||
        mt.getDimSize(3) != outW)
      return n.fail("DeformConv's mask must be (N, " + Twine(og * taps) + ", " +
                    Twine(outH) + ", " + Twine(outW) + ") of X's type");
    maskV = n.reshapeTo(n.cast(m, ct), {batch, c(og), c(taps), c(positions)});
    if (!maskV)
      return failure();
  }
  Value y0 = n.create<FloorOp>(cy), x0 = n.create<FloorOp>(cx);
  if (!y0 || !x0)
    return failure();
  Value fy = n.create<SubOp>(cy, y0), fx = n.create<SubOp>(cx, x0);
  Value one = n.scalar(ct, 1), zero = n.scalar(ct, 0);
  // The image as (N, C, H * W); an offset group's coordinates for each of its
  // channels: (N, og, taps * positions) -> (N, C, taps * positions).
  Value flat =
      n.reshapeTo(n.cast(x, ct), {batch, c(channels), c(height * width)});
  int64_t perGroup = channels / og;
  auto perChannel = [&](Value v) -> Value {
    Value r = n.reshapeTo(v, {batch, c(og), c(1), c(taps * positions)});
    r = n.broadcastToDims(r, {batch, c(og), c(perGroup), c(taps * positions)});
    return n.reshapeTo(r, {batch, c(channels), c(taps * positions)});
  };
  Value sampled;
  for (int64_t dy = 0; dy < 2; ++dy)
    for (int64_t dx = 0; dx < 2; ++dx) {
      Value yc = dy ? n.create<AddOp>(y0, one) : y0;
      Value xc = dx ? n.create<AddOp>(x0, one) : x0;
      Value wy = dy ? fy : n.create<SubOp>(one, fy);
      Value wx = dx ? fx : n.create<SubOp>(one, fx);
      Value inside = n.create<AndOp>(
          n.create<AndOp>(
              n.create<CmpOp>(CmpPredicate::ge, yc, zero),
              n.create<CmpOp>(CmpPredicate::le, yc, n.scalar(ct, height - 1))),
          n.create<AndOp>(
              n.create<CmpOp>(CmpPredicate::ge, xc, zero),
              n.create<CmpOp>(CmpPredicate::le, xc, n.scalar(ct, width - 1))));
      Value weight = n.create<SelectOp>(inside, n.create<MulOp>(wy, wx), zero);
      if (maskV)
        weight = n.create<MulOp>(weight, maskV);
      // Outside positions read pixel 0 with weight 0; indices in i64.
      Value yi = n.cast(n.create<SelectOp>(inside, yc, zero), i64);
      Value xi = n.cast(n.create<SelectOp>(inside, xc, zero), i64);
      Value index =
          n.create<AddOp>(n.create<MulOp>(yi, n.scalar(i64, width)), xi);
      Value taken = n.create<GatherOp>(flat, perChannel(index), 2);
      Value term = n.create<MulOp>(taken, perChannel(weight));
      sampled = sampled ? n.create<AddOp>(sampled, term) : term;
      if (!sampled)
        return failure();
    }
  // Columns (N, group, C / group * taps, positions) times the weight
  // (1, group, outC / group, C / group * taps).
  int64_t inPer = channels / group, outPer = outC / group;
  Value cols =
      n.reshapeTo(sampled, {batch, c(group), c(inPer * taps), c(positions)});
  Value wm = n.reshape(n.cast(w, ct), {1, group, outPer, inPer * taps});
  Value y = cols && wm ? n.create<MatmulOp>(wm, cols) : Value();
  if (y)
    y = n.reshapeTo(y, {batch, c(outC), c(outH), c(outW)});
  if (y && n.has(3)) {
    Value bias = n.in(3);
    auto bt = cast<RankedTensorType>(bias.getType());
    if (bt.getRank() != 1 || bt.getDimSize(0) != outC ||
        bt.getElementType() != elem)
      return n.fail("DeformConv's bias B must be (" + Twine(outC) +
                    ") of X's type");
    y = n.create<AddOp>(y, n.reshape(n.cast(bias, ct), {outC, 1, 1}));
  }
  if (y && ct != elem)
    y = n.cast(y, elem);
  if (!y)
    return failure();
  n.setOut(0, y);
  return success();
}

LogicalResult convertGridSample(NodeImporter &n) {
  if (failed(n.checkAttrs({"align_corners", "mode", "padding_mode"})))
    return failure();
  if (!n.has(0) || !n.in(0) || !n.has(1) || !n.in(1))
    return n.fail("needs inputs 0 (X) and 1 (the grid)");
  Value x = n.in(0), grid = n.in(1);
  auto xType = cast<RankedTensorType>(x.getType());
  auto gType = cast<RankedTensorType>(grid.getType());
  int64_t rank = xType.getRank(), r = rank - 2;
  if (rank < 3)
    return n.fail("X needs rank 3 or more (N, C and spatial dimensions)");
  if (!xType.hasStaticShape() || !gType.hasStaticShape())
    return n.fail("GridSample needs static shapes; bind the inputs' shapes "
                  "with --bind-shape");
  if (gType.getRank() != rank || gType.getDimSize(0) != xType.getDimSize(0) ||
      gType.getDimSize(rank - 1) != r)
    return n.fail("the grid must be (N, D1_out, .., " + Twine(r) +
                  ") for X of rank " + Twine(rank));
  Type elem = xType.getElementType();
  if (!isa<FloatType>(elem) || !isa<FloatType>(gType.getElementType()))
    return n.fail("GridSample needs floating-point X and grid");
  std::string mode =
      n.attrString("mode", n.opset >= 20 ? "linear" : "bilinear");
  if (mode == "bilinear")
    mode = "linear";
  if (mode == "bicubic")
    mode = "cubic";
  if (mode != "linear" && mode != "nearest" && mode != "cubic")
    return n.fail("mode '" + mode + "' is not one of " +
                  (n.opset >= 20 ? "linear, nearest, cubic"
                                 : "bilinear, nearest, bicubic"));
  std::string padding = n.attrString("padding_mode", "zeros");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return n.fail("padding_mode '" + padding +
                  "' is not one of zeros, border, reflection");
  bool align = n.attrInt("align_corners", 0) != 0;

  Type ct = computeTypeOf(elem);
  Shape xs(xType.getShape()), gs(gType.getShape());
  int64_t batch = xs[0], channels = xs[1], spatial = 1, outCount = 1;
  for (int64_t d = 0; d < r; ++d) {
    spatial *= xs[d + 2];
    outCount *= gs[d + 1];
  }
  Value table = n.reshape(n.cast(x, ct), {batch, channels, spatial});
  Value g = n.reshape(n.cast(grid, ct), {batch, outCount, r});
  if (!table || !g)
    return failure();
  auto c = [&](double v) { return n.scalar(ct, v); };
  auto add = [&](Value a, Value b) { return n.create<AddOp>(a, b); };
  auto sub = [&](Value a, Value b) { return n.create<SubOp>(a, b); };
  auto mul = [&](Value a, Value b) { return n.create<MulOp>(a, b); };
  auto div = [&](Value a, Value b) { return n.create<DivOp>(a, b); };
  auto clampTo = [&](Value v, double hi) {
    return n.create<MinimumOp>(n.create<MaximumOp>(v, c(0)), c(hi));
  };
  // PyTorch's reflect_coordinates: mirrored about twiceLow/2 and
  // twiceHigh/2.
  auto reflect = [&](Value v, double twiceLow, double twiceHigh) -> Value {
    if (twiceLow == twiceHigh)
      return mul(v, c(0));
    double low = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
    Value a = n.make<AbsOp>(sub(v, c(low)));
    Value flips = n.make<FloorOp>(div(a, c(span)));
    Value extra = sub(a, mul(flips, c(span)));
    Value half = n.make<FloorOp>(mul(flips, c(0.5)));
    Value even =
        n.create<CmpOp>(CmpPredicate::eq, sub(flips, mul(half, c(2))), c(0));
    return n.create<SelectOp>(even, add(extra, c(low)),
                              add(sub(c(span), extra), c(low)));
  };
  auto pad = [&](Value v, int64_t size) -> Value {
    if (padding == "border")
      return clampTo(v, size - 1);
    if (padding == "reflection") {
      v = align ? reflect(v, 0, 2.0 * (size - 1))
                : reflect(v, -1, 2.0 * size - 1);
      return clampTo(v, size - 1);
    }
    return v;
  };

  // The taps of every spatial dimension: a float index ([N, 1, M]) and its
  // weight (null: 1).
  struct Tap {
    Value index, weight;
  };
  std::vector<std::vector<Tap>> taps(r);
  const double A = -0.75;
  for (int64_t d = 0; d < r; ++d) {
    int64_t size = xs[d + 2];
    int64_t comp = r - 1 - d; // the grid lists x (the last dimension) first
    Shape start = {0, 0, comp}, limit = {batch, outCount, comp + 1};
    Value gd = n.create<SliceOp>(g, start, limit, Shape{1, 1, 1});
    if (!gd)
      return failure();
    gd = n.reshape(gd, {batch, 1, outCount});
    Value coord = align ? mul(div(add(gd, c(1)), c(2)), c(size - 1))
                        : div(sub(mul(add(gd, c(1)), c(size)), c(1)), c(2));
    if (!coord)
      return failure();
    if (mode == "nearest") {
      taps[d].push_back({n.make<RoundOp>(pad(coord, size)), {}});
    } else if (mode == "linear") {
      coord = pad(coord, size);
      Value i0 = n.make<FloorOp>(coord);
      Value w1 = sub(coord, i0);
      taps[d].push_back({i0, sub(c(1), w1)});
      taps[d].push_back({add(i0, c(1)), w1});
    } else {
      Value i0 = n.make<FloorOp>(coord);
      Value t = sub(coord, i0);
      auto far = [&](Value u) { // ((A u - 5A) u + 8A) u - 4A, 1 < u < 2
        return sub(mul(add(mul(sub(mul(u, c(A)), c(5 * A)), u), c(8 * A)), u),
                   c(4 * A));
      };
      auto near = [&](Value u) { // ((A + 2) u - (A + 3)) u u + 1, u <= 1
        return add(mul(mul(sub(mul(u, c(A + 2)), c(A + 3)), u), u), c(1));
      };
      Value omt = sub(c(1), t);
      Value weights[4] = {far(add(t, c(1))), near(t), near(omt),
                          far(sub(c(2), t))};
      for (int64_t o = -1; o <= 2; ++o)
        taps[d].push_back({pad(add(i0, c(double(o))), size), weights[o + 1]});
    }
    for (Tap &tap : taps[d])
      if (!tap.index || (mode != "nearest" && !tap.weight))
        return failure();
  }

  // Every combination of taps: a gather of the flattened spatial index.
  Shape strides(r, 1);
  for (int64_t d = r - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * xs[d + 3];
  Type i64 = n.b.getI64Type();
  Value acc;
  Shape pick(r, 0);
  while (true) {
    Value valid, lin, weight;
    for (int64_t d = 0; d < r; ++d) {
      const Tap &tap = taps[d][pick[d]];
      int64_t size = xs[d + 2];
      Value inside = n.create<AndOp>(
          n.create<CmpOp>(CmpPredicate::ge, tap.index, c(0)),
          n.create<CmpOp>(CmpPredicate::le, tap.index, c(size - 1)));
      valid = valid ? n.create<AndOp>(valid, inside) : inside;
      Value idx = n.cast(clampTo(tap.index, size - 1), i64);
      if (strides[d] != 1)
        idx = mul(idx, n.scalar(i64, strides[d]));
      lin = lin ? add(lin, idx) : idx;
      if (tap.weight)
        weight = weight ? mul(weight, tap.weight) : tap.weight;
      if (!valid || !lin)
        return failure();
    }
    Value idx = n.broadcastTo(lin, {batch, channels, outCount});
    if (!idx)
      return failure();
    Value v = n.create<GatherOp>(table, idx, 2);
    if (!v)
      return failure();
    v = n.create<SelectOp>(valid, v, c(0));
    if (v && weight)
      v = mul(v, weight);
    if (!v)
      return failure();
    acc = acc ? add(acc, v) : v;
    if (!acc)
      return failure();
    int64_t d = r - 1;
    while (d >= 0 && ++pick[d] == static_cast<int64_t>(taps[d].size()))
      pick[d--] = 0;
    if (d < 0)
      break;
  }
  Shape outShape = {batch, channels};
  outShape.append(gs.begin() + 1, gs.end() - 1);
  Value y = n.cast(n.reshape(acc, outShape), elem);
  if (!y)
    return failure();
  n.setOut(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// LpPool, GlobalLpPool
//===----------------------------------------------------------------------===//

/// |x|^p, and y^(1/p), with the exact forms for p = 1 and 2.
Value lpPower(NodeImporter &n, Value x, int64_t p) {
  Value a = n.create<AbsOp>(x);
  if (!a || p == 1)
    return a;
  if (p == 2)
    return n.create<MulOp>(a, a);
  return n.create<PowOp>(a, n.scalar(elemOf(x), static_cast<double>(p)));
}
Value lpRoot(NodeImporter &n, Value y, int64_t p) {
  if (p == 1)
    return y;
  if (p == 2)
    return n.create<SqrtOp>(y);
  return n.create<PowOp>(y, n.scalar(elemOf(y), 1.0 / static_cast<double>(p)));
}

/// The p-norm of each window: |x|^p summed by a depthwise convolution with
/// a kernel of ones (padding adds zeros, as ONNX defines it; ceil_mode pads
/// the end so the last partial window counts), then the p-th root.
/// CausalConvWithState (opset 27): a depthwise 1-D convolution over
/// (batch, channels, length) whose left context is the previous call's state
/// (zeros when there is none): padded = concat(past_state, input) along the
/// length, y = conv(padded, weight, groups = channels) (+ bias), optionally
/// SiLU (computed in f32 for narrower types, as the reference does); the new
/// state is the last k - 1 positions of `padded`.
LogicalResult convertCausalConvWithState(NodeImporter &n) {
  if (failed(n.checkAttrs({"activation"})))
    return failure();
  if (!n.has(0) || !n.has(1))
    return n.fail("CausalConvWithState needs the input and the weight");
  Value x = n.in(0), weight = n.in(1);
  auto xType = cast<RankedTensorType>(x.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  Type elem = xType.getElementType();
  if (!isa<FloatType>(elem) || wType.getElementType() != elem)
    return n.fail("CausalConvWithState needs a floating-point input and a "
                  "weight of the same type");
  if (xType.getRank() != 3 || wType.getRank() != 3)
    return n.fail("CausalConvWithState needs an input (batch, channels, "
                  "length) and a weight (channels, 1, k)");
  int64_t channels = xType.getDimSize(1), length = xType.getDimSize(2),
          k = wType.getDimSize(2);
  if (ShapedType::isDynamic(channels) || ShapedType::isDynamic(length) ||
      !wType.hasStaticShape())
    return n.fail("CausalConvWithState needs the channel count, the length "
                  "and the weight's shape known while importing");
  if (wType.getDimSize(0) != channels || wType.getDimSize(1) != 1 || k < 1)
    return n.fail("CausalConvWithState's weight has shape (" +
                  Twine(wType.getDimSize(0)) + ", " +
                  Twine(wType.getDimSize(1)) + ", " + Twine(k) +
                  "); expected (" + Twine(channels) + ", 1, k) with k >= 1");
  std::string activation = n.attrString("activation", "none");
  if (activation != "none" && activation != "silu" && activation != "swish")
    return n.fail("CausalConvWithState's activation '" + activation +
                  "' is not one of none, silu, swish");
  SmallVector<SymDim> dims = n.dimsOf(x);
  SmallVector<SymDim> stateDims = {dims[0], dims[1], SymDim::constant(k - 1)};
  Value padded = x;
  if (k > 1) {
    Value state;
    if (n.has(3)) {
      state = n.in(3);
      auto sType = cast<RankedTensorType>(state.getType());
      if (sType.getElementType() != elem || sType.getRank() != 3 ||
          sType.getDimSize(1) != channels || sType.getDimSize(2) != k - 1)
        return n.fail("CausalConvWithState's past_state must be (batch, " +
                      Twine(channels) + ", " + Twine(k - 1) +
                      ") of the input's type");
    } else {
      state = n.broadcastToDims(n.scalar(elem, 0), stateDims);
    }
    padded = n.create<ConcatOp>(ValueRange{state, x}, 2);
    if (!padded)
      return failure();
  }
  Value y = n.create<ConvOp>(padded, weight, Shape{1}, Shape{1}, Shape{0, 0},
                             channels);
  if (!y)
    return failure();
  if (n.has(2)) {
    Value bias = n.in(2);
    auto bType = cast<RankedTensorType>(bias.getType());
    if (bType.getRank() != 1 || bType.getDimSize(0) != channels ||
        bType.getElementType() != elem)
      return n.fail("CausalConvWithState's bias must be (" + Twine(channels) +
                    ") of the input's type");
    if (!(y = n.create<AddOp>(y, n.reshape(bias, {channels, 1}))))
      return failure();
  }
  if (activation != "none") {
    Type f32 = Float32Type::get(n.ctx);
    bool widen = elem.getIntOrFloatBitWidth() < 32;
    Value wide = widen ? n.cast(y, f32) : y;
    Value silu = n.create<MulOp>(wide, n.make<SigmoidOp>(wide));
    if (!(y = widen ? n.cast(silu, elem) : silu))
      return failure();
  }
  n.setOut(0, y);
  if (n.wantsOutput(1)) {
    Value present = k > 1 ? sliceAlong(n, padded, 2, length, length + k - 1)
                          : n.broadcastToDims(n.scalar(elem, 0), stateDims);
    if (!present)
      return failure();
    n.setOut(1, present);
  }
  return success();
}

LogicalResult convertLpPool(NodeImporter &n) {
  if (failed(n.checkAttrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape",
                           "p", "pads", "strides"})))
    return failure();
  RankedTensorType input = windowInput(n);
  if (!input)
    return failure();
  if (!isa<FloatType>(input.getElementType()))
    return n.fail("LpPool needs a floating-point input");
  int64_t k = input.getRank() - 2, channels = input.getDimSize(1);
  int64_t p = n.attrInt("p", 2);
  if (p < 1)
    return n.fail("'p' must be at least 1");
  Window w;
  std::optional<Shape> kernel = n.attrInts("kernel_shape");
  if (!kernel)
    return n.fail("LpPool needs 'kernel_shape'");
  if (static_cast<int64_t>(kernel->size()) != k)
    return n.fail("'kernel_shape' has " + Twine(kernel->size()) +
                  " entries; the input has " + Twine(k) +
                  " spatial dimensions");
  // (INT64_MIN is MLIR's marker of a run-time size: it passed the pools'
  // verifier; a negative size built an invalid type.)
  if (llvm::any_of(*kernel, [](int64_t d) { return d < 1; }))
    return n.fail("'kernel_shape' entries must be positive");
  w.kernel = *kernel;
  if (failed(readWindow(n, input, w, /*sameAtRunTime=*/true)))
    return failure();
  if (n.attrInt("ceil_mode", 0) != 0) {
    for (int64_t i = 0; i < k; ++i) {
      int64_t size = input.getDimSize(i + 2);
      if (ShapedType::isDynamic(size))
        return n.fail("ceil_mode needs static spatial sizes");
      int64_t extent = w.dilations[i] * (w.kernel[i] - 1) + 1;
      int64_t span = size + w.pads[i] + w.pads[k + i] - extent;
      if (span < 0 || w.strides[i] < 1)
        continue; // The convolution reports it.
      int64_t floorOut = span / w.strides[i] + 1;
      int64_t ceilOut = (span + w.strides[i] - 1) / w.strides[i] + 1;
      // As for the other pools: the last window starts inside the input or
      // its start padding.
      if ((ceilOut - 1) * w.strides[i] >= size + w.pads[i])
        --ceilOut;
      w.pads[k + i] += (ceilOut - floorOut) * w.strides[i];
    }
  }
  // A depthwise convolution with a window of ones; with a run-time channel
  // count, the channels folded into the batch and one filter.
  bool dynamicChannels = ShapedType::isDynamic(channels);
  Shape ones = {dynamicChannels ? 1 : channels, 1};
  ones.append(w.kernel.begin(), w.kernel.end());
  Type elem = input.getElementType();
  Value weight = n.constant(DenseElementsAttr::get(
      RankedTensorType::get(ones, elem), FloatAttr::get(elem, 1.0).getValue()));
  // (auto_pad SAME over a run-time size with a stride above 1: zeros, which
  // add nothing to the sum of powers, padded first.)
  Value x = lpPower(n, n.in(0), p);
  if (x)
    x = padSameAtRunTime(n, x, w, 0.0);
  if (!x || !weight)
    return failure();
  SmallVector<SymDim> dims = n.dimsOf(x);
  if (dynamicChannels) {
    SmallVector<SymDim> folded = {n.combine("Mul", dims[0], dims[1]),
                                  SymDim::constant(1)};
    folded.append(dims.begin() + 2, dims.end());
    x = n.reshapeTo(x, folded);
  }
  Value sum = n.create<ConvOp>(x, weight, w.strides, w.dilations, w.pads,
                               dynamicChannels ? 1 : channels);
  if (sum && dynamicChannels) {
    SmallVector<SymDim> unfolded = {dims[0], dims[1]};
    for (int64_t i = 0; i < k; ++i)
      unfolded.push_back(n.dimOf(sum, i + 2));
    sum = n.reshapeTo(sum, unfolded);
  }
  Value y = sum ? lpRoot(n, sum, p) : Value();
  if (!y)
    return failure();
  n.setOut(0, y);
  return success();
}

LogicalResult convertGlobalLpPool(NodeImporter &n) {
  if (failed(n.checkAttrs({"p"})))
    return failure();
  RankedTensorType input = windowInput(n);
  if (!input)
    return failure();
  if (!isa<FloatType>(input.getElementType()))
    return n.fail("GlobalLpPool needs a floating-point input");
  int64_t p = n.attrInt("p", 2);
  if (p < 1)
    return n.fail("'p' must be at least 1");
  Shape axes;
  for (int64_t i = 2; i < input.getRank(); ++i)
    axes.push_back(i);
  Value x = lpPower(n, n.in(0), p);
  Value sum = x ? n.create<ReduceSumOp>(x, axes, /*keepdims=*/true) : Value();
  Value y = sum ? lpRoot(n, sum, p) : Value();
  if (!y)
    return failure();
  n.setOut(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

/// Interpolation matrices of one axis, above this many elements (regions x
/// samples x input size), make RoiAlign an error rather than a huge
/// intermediate.
constexpr int64_t kRoiAlignMatrixLimit = int64_t(1) << 26;

/// The two neighbouring positions of sample coordinates `c` (R, S) along an
/// input axis of `size` and their bilinear weights, following ONNX's
/// reference (and ONNX Runtime): a sample below -1 or above `size` weighs
/// nothing, one in [-1, 0] is clamped to 0, one at or past the last position
/// takes it. The positions are always inside the axis.
struct RoiSamples {
  Value low, high;             // positions, of c's type
  Value lowWeight, highWeight; // their weights
};

FailureOr<RoiSamples> roiAxisSamples(NodeImporter &n, Value c, int64_t size,
                                     Type ct) {
  Value sz = n.scalar(ct, static_cast<double>(size));
  Value valid =
      n.create<AndOp>(n.create<CmpOp>(CmpPredicate::ge, c, n.scalar(ct, -1)),
                      n.create<CmpOp>(CmpPredicate::le, c, sz));
  Value c0 = n.create<MaximumOp>(c, n.scalar(ct, 0));
  Value low = n.create<FloorOp>(c0);
  Value last = n.scalar(ct, static_cast<double>(size - 1));
  Value edge = n.create<CmpOp>(CmpPredicate::ge, low, last);
  if (!valid || !low || !edge)
    return failure();
  low = n.create<SelectOp>(edge, last, low);
  c0 = n.create<SelectOp>(edge, last, c0);
  Value high =
      n.create<SelectOp>(edge, last, n.create<AddOp>(low, n.scalar(ct, 1)));
  if (!low || !c0 || !high)
    return failure();
  Value lw = n.create<SubOp>(c0, low);
  Value hw = n.create<SubOp>(n.scalar(ct, 1), lw);
  Value zero = n.scalar(ct, 0);
  lw = n.create<SelectOp>(valid, lw, zero);
  hw = n.create<SelectOp>(valid, hw, zero);
  if (!lw || !hw)
    return failure();
  return RoiSamples{low, high, hw, lw};
}

/// The bilinear weights of sample coordinates `c` (R, S) along an input axis
/// of `size`, as a matrix (R, S, size) whose row holds the two weights at
/// the two neighbouring positions (roiAxisSamples).
Value roiAxisWeights(NodeImporter &n, Value c, int64_t size, Type ct) {
  FailureOr<RoiSamples> samples = roiAxisSamples(n, c, size, ct);
  if (failed(samples))
    return {};
  Value low = samples->low, high = samples->high, hw = samples->lowWeight,
        lw = samples->highWeight, zero = n.scalar(ct, 0);
  // One-hot of the two positions along a new last axis.
  SmallVector<double> iota(size);
  for (int64_t i = 0; i < size; ++i)
    iota[i] = static_cast<double>(i);
  Value positions =
      n.constant(makeDense(RankedTensorType::get({1, 1, size}, ct), {}, iota));
  SmallVector<SymDim> dims = n.dimsOf(c);
  dims.push_back(SymDim::constant(1));
  auto expand = [&](Value v) { return n.reshapeTo(v, dims); };
  Value atLow = n.create<CmpOp>(CmpPredicate::eq, expand(low), positions);
  Value atHigh = n.create<CmpOp>(CmpPredicate::eq, expand(high), positions);
  if (!atLow || !atHigh)
    return {};
  Value a = n.create<SelectOp>(atLow, expand(hw), zero);
  Value b = n.create<SelectOp>(atHigh, expand(lw), zero);
  return a && b ? n.create<AddOp>(a, b) : Value();
}

/// RoiAlign's max mode: each sample is the largest of its four weighted
/// neighbours (not their sum), and each bin the largest of its samples, as
/// ONNX's reference and ONNX Runtime compute it. The neighbours are gathered:
/// rows at the samples' two y positions, then columns at the two x
/// positions, from the region's image (R, C, H, W).
Value roiAlignMax(NodeImporter &n, Value picked, Value cy, Value cx,
                  int64_t height, int64_t width, int64_t outH, int64_t outW,
                  int64_t ratio, Type ct) {
  FailureOr<RoiSamples> sy = roiAxisSamples(n, cy, height, ct);
  FailureOr<RoiSamples> sx = roiAxisSamples(n, cx, width, ct);
  if (failed(sy) || failed(sx))
    return {};
  Type i64 = IntegerType::get(n.ctx, 64);
  SmallVector<SymDim> pd = n.dimsOf(picked); // (R, C, H, W)
  SymDim one = SymDim::constant(1), samplesY = SymDim::constant(outH * ratio),
         samplesX = SymDim::constant(outW * ratio);
  // (R, Sy) -> (R, 1, Sy, 1); (R, Sx) -> (R, 1, 1, Sx).
  auto asY = [&](Value v) {
    return n.reshapeTo(v, {pd[0], one, samplesY, one});
  };
  auto asX = [&](Value v) {
    return n.reshapeTo(v, {pd[0], one, one, samplesX});
  };
  auto rows = [&](Value pos) {
    return n.create<GatherOp>(
        picked,
        n.broadcastToDims(asY(n.cast(pos, i64)),
                          {pd[0], pd[1], samplesY, pd[3]}),
        2);
  };
  Value best;
  for (auto [yPos, yWeight] : {std::pair(sy->low, sy->lowWeight),
                               std::pair(sy->high, sy->highWeight)}) {
    Value r = rows(yPos);
    if (!r)
      return {};
    for (auto [xPos, xWeight] : {std::pair(sx->low, sx->lowWeight),
                                 std::pair(sx->high, sx->highWeight)}) {
      Value v = n.create<GatherOp>(
          r,
          n.broadcastToDims(asX(n.cast(xPos, i64)),
                            {pd[0], pd[1], samplesY, samplesX}),
          3);
      Value w = n.create<MulOp>(asY(yWeight), asX(xWeight));
      v = n.create<MulOp>(v, w);
      best = best && v ? n.create<MaximumOp>(best, v) : v;
      if (!best)
        return {};
    }
  }
  Value v = n.reshapeTo(best, {pd[0], pd[1], SymDim::constant(outH),
                               SymDim::constant(ratio), SymDim::constant(outW),
                               SymDim::constant(ratio)});
  return v ? n.create<ReduceMaxOp>(v, Shape{3, 5}, /*keepdims=*/false)
           : Value();
}

/// RoiAlign (a fixed sampling_ratio): every region's samples are bilinear
/// interpolations. In average mode they separate into a product along each
/// axis: V = Ay X Ax^T with Ay (samples, H) and Ax (samples, W) holding each
/// sample's two weights; the region's image is gathered by batch index, the
/// two products are batched matmuls, and each output bin averages its
/// sampling_ratio^2 samples. Max mode gathers (roiAlignMax).
LogicalResult convertRoiAlign(NodeImporter &n) {
  if (failed(n.checkAttrs({"coordinate_transformation_mode", "mode",
                           "output_height", "output_width", "sampling_ratio",
                           "spatial_scale"})))
    return failure();
  if (!n.has(0) || !n.in(0) || !n.has(1) || !n.in(1) || !n.has(2) || !n.in(2))
    return n.fail("needs inputs X, rois and batch_indices");
  Value x = n.in(0), rois = n.in(1), batch = n.in(2);
  auto xType = cast<RankedTensorType>(x.getType());
  auto rType = cast<RankedTensorType>(rois.getType());
  auto bType = cast<RankedTensorType>(batch.getType());
  if (xType.getRank() != 4)
    return n.fail("RoiAlign needs X of rank 4 (N, C, H, W)");
  if (ShapedType::isDynamic(xType.getDimSize(2)) ||
      ShapedType::isDynamic(xType.getDimSize(3)))
    return n.fail("RoiAlign needs static spatial sizes; bind X's shape with "
                  "--bind-shape");
  if (rType.getRank() != 2 || rType.getDimSize(1) != 4)
    return n.fail("rois must be (num_rois, 4)");
  if (bType.getRank() != 1 || !isa<IntegerType>(bType.getElementType()))
    return n.fail("batch_indices must be an integer vector (num_rois)");
  // An image past the batch is an error (ONNX Runtime: "batch_indices value
  // out of range").
  batch = checkedIndices(n, n.cast(batch, IntegerType::get(n.ctx, 64)),
                         {n.dimOf(x, 0)}, "the batch size of X",
                         /*negative=*/false);
  if (!batch)
    return failure();
  Type elem = xType.getElementType();
  if (!isa<FloatType>(elem) || rType.getElementType() != elem)
    return n.fail("RoiAlign needs floating-point X and rois of one type");
  std::string mode = n.attrString("mode", "avg");
  if (mode != "avg" && mode != "max")
    return n.fail("mode '" + mode + "' is not one of avg, max");
  std::string transform =
      n.attrString("coordinate_transformation_mode",
                   n.opset >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return n.fail("coordinate_transformation_mode '" + transform +
                  "' is not one of half_pixel, output_half_pixel");
  bool halfPixel = transform == "half_pixel";
  int64_t outH = n.attrInt("output_height", 1);
  int64_t outW = n.attrInt("output_width", 1);
  int64_t ratio = n.attrInt("sampling_ratio", 0);
  double scale = n.attrFloat("spatial_scale", 1.0);
  if (outH < 1 || outW < 1)
    return n.fail("output_height and output_width must be positive");
  if (ratio < 0)
    return n.fail("sampling_ratio must not be negative");
  if (ratio == 0)
    return n.fail("RoiAlign with sampling_ratio 0 (a sample count computed "
                  "from each region's size at run time) is not supported; "
                  "set a positive sampling_ratio");
  int64_t height = xType.getDimSize(2), width = xType.getDimSize(3);
  int64_t samplesY = outH * ratio, samplesX = outW * ratio;
  int64_t regions = rType.getDimSize(0);
  int64_t known = ShapedType::isDynamic(regions) ? 1 : regions;
  if (ratio > 1024 || samplesY > (1 << 20) || samplesX > (1 << 20) ||
      known * samplesY * height > kRoiAlignMatrixLimit ||
      known * samplesX * width > kRoiAlignMatrixLimit)
    return n.fail("RoiAlign's interpolation matrices would exceed " +
                  Twine(kRoiAlignMatrixLimit) + " elements");

  Type ct = computeTypeOf(elem);
  Value r = n.cast(rois, ct), image = n.cast(x, ct);
  if (!r || !image)
    return failure();
  double offset = halfPixel ? 0.5 : 0.0;
  auto column = [&](int64_t i) -> Value {
    Value v = sliceAlong(n, r, 1, i, i + 1);
    if (!v)
      return {};
    v = n.create<MulOp>(v, n.scalar(ct, scale));
    return v ? n.create<SubOp>(v, n.scalar(ct, offset)) : Value();
  };
  Value x1 = column(0), y1 = column(1), x2 = column(2), y2 = column(3);
  if (!x1 || !y1 || !x2 || !y2)
    return failure();
  // Sample coordinates: start + bin * (p + (i + 0.5) / ratio).
  auto coords = [&](Value start, Value end, int64_t out) -> Value {
    Value extent = n.create<SubOp>(end, start);
    if (extent && !halfPixel)
      extent = n.create<MaximumOp>(extent, n.scalar(ct, 1));
    if (!extent)
      return {};
    Value bin = n.create<DivOp>(extent, n.scalar(ct, static_cast<double>(out)));
    SmallVector<double> steps;
    for (int64_t p = 0; p < out; ++p)
      for (int64_t i = 0; i < ratio; ++i)
        steps.push_back(p + (i + 0.5) / ratio);
    Value table = n.constant(
        makeDense(RankedTensorType::get({1, out * ratio}, ct), {}, steps));
    Value c = bin ? n.create<MulOp>(bin, table) : Value();
    return c ? n.create<AddOp>(c, start) : Value();
  };
  Value cy = coords(y1, y2, outH), cx = coords(x1, x2, outW);
  if (!cy || !cx)
    return failure();
  if (mode == "max") {
    Value picked = takeAlong(n, image, batch, 0);
    Value v = picked ? roiAlignMax(n, picked, cy, cx, height, width, outH, outW,
                                   ratio, ct)
                     : Value();
    if (v && ct != elem)
      v = n.cast(v, elem);
    if (!v)
      return failure();
    n.setOut(0, v);
    return success();
  }
  Value ay = roiAxisWeights(n, cy, height, ct);
  Value ax = roiAxisWeights(n, cx, width, ct);
  if (!ay || !ax)
    return failure();
  // (R, 1, Sy, H) x (R, C, H, W) x (R, 1, W, Sx) -> (R, C, Sy, Sx).
  SmallVector<SymDim> rdims = n.dimsOf(ay);
  Value picked = takeAlong(n, image, batch, 0);
  if (!picked)
    return failure();
  Value ay4 =
      n.reshapeTo(ay, {rdims[0], SymDim::constant(1),
                       SymDim::constant(samplesY), SymDim::constant(height)});
  Value axT = n.create<TransposeOp>(ax, ArrayRef<int64_t>{0, 2, 1});
  Value ax4 = axT ? n.reshapeTo(axT, {rdims[0], SymDim::constant(1),
                                      SymDim::constant(width),
                                      SymDim::constant(samplesX)})
                  : Value();
  if (!ay4 || !ax4)
    return failure();
  Value v = n.create<MatmulOp>(ay4, picked);
  if (v)
    v = n.create<MatmulOp>(v, ax4);
  if (!v)
    return failure();
  // Average each bin's ratio x ratio samples.
  SmallVector<SymDim> vdims = n.dimsOf(v);
  v = n.reshapeTo(v, {vdims[0], vdims[1], SymDim::constant(outH),
                      SymDim::constant(ratio), SymDim::constant(outW),
                      SymDim::constant(ratio)});
  if (!v)
    return failure();
  v = n.create<ReduceSumOp>(v, Shape{3, 5}, /*keepdims=*/false);
  if (v)
    v = n.create<MulOp>(v,
                        n.scalar(ct, 1.0 / static_cast<double>(ratio * ratio)));
  if (v && ct != elem)
    v = n.cast(v, elem);
  if (!v)
    return failure();
  n.setOut(0, v);
  return success();
}

} // namespace

LogicalResult onnx_import::readConvWindow(NodeImporter &n,
                                          RankedTensorType input,
                                          ArrayRef<int64_t> kernel,
                                          SmallVectorImpl<int64_t> &strides,
                                          SmallVectorImpl<int64_t> &dilations,
                                          SmallVectorImpl<int64_t> &pads) {
  Window w;
  w.kernel = Shape(kernel);
  if (failed(readWindow(n, input, w)))
    return failure();
  strides.assign(w.strides);
  dilations.assign(w.dilations);
  pads.assign(w.pads);
  return success();
}

void onnx_import::addNNConverters(llvm::StringMap<Converter> &table) {
  table["Conv"] = convertConv;
  table["MaxPool"] = convertPool<true>;
  table["AveragePool"] = convertPool<false>;
  table["ConvTranspose"] = convertConvTranspose;
  table["Resize"] = convertResize;
  table["Upsample"] = convertResize;
  table["GridSample"] = convertGridSample;
  table["DeformConv"] = convertDeformConv;
  table["AffineGrid"] = convertAffineGrid;
  table["RoiAlign"] = convertRoiAlign;
  table["LpPool"] = convertLpPool;
  table["CausalConvWithState"] = convertCausalConvWithState;
  table["GlobalLpPool"] = convertGlobalLpPool;
}
