//===- ConvertNN.cpp - ONNX convolution, pooling and resize ---------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Converters of the neural-network ops of ONNX (Conv, ConvTranspose,
// MaxPool, AveragePool, ...), kept apart from the elementwise and shape ops
// of ConvertOps.cpp.
//
// Conv, MaxPool and AveragePool map onto tide.conv, tide.max_pool and
// tide.avg_pool (NCHW, like ONNX); `auto_pad` is resolved into explicit pads
// here, and Conv's bias is added per channel with tide.add.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

using Shape = SmallVector<int64_t>;

/// The window attributes of a Conv or pool node, resolved.
struct Window {
  Shape kernel, strides, dilations, pads;
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
/// resolved against the static spatial sizes of `input`.
LogicalResult readWindow(NodeImporter &n, RankedTensorType input, Window &w) {
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
  if (autoPad == "VALID")
    return success();
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return n.fail("auto_pad '" + autoPad +
                  "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  for (int64_t i = 0; i < k; ++i) {
    int64_t size = input.getDimSize(i + 2);
    if (ShapedType::isDynamic(size))
      return n.fail("auto_pad " + autoPad +
                    " needs static spatial sizes; bind the input's shape "
                    "with --bind-shape");
    if (w.strides[i] < 1)
      return n.fail("strides must be positive");
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
  if (std::optional<Shape> kernel = n.attrInts("kernel_shape");
      kernel && *kernel != w.kernel)
    return n.fail("kernel_shape does not match the weight's spatial sizes");
  if (failed(readWindow(n, input, w)))
    return failure();
  Value y = n.create<ConvOp>(x, weight, w.strides, w.dilations, w.pads,
                             n.attrInt("group", 1));
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
    Shape shape = {biasType.getDimSize(0)};
    shape.append(k, 1);
    y = n.create<AddOp>(y, n.reshape(bias, shape));
    if (!y)
      return failure();
  }
  n.setOut(0, y);
  return success();
}

template <bool IsMax>
LogicalResult convertPool(NodeImporter &n) {
  SmallVector<StringRef> known = {"auto_pad",     "ceil_mode", "dilations",
                                  "kernel_shape", "pads",      "strides"};
  known.push_back(IsMax ? "storage_order" : "count_include_pad");
  if (failed(n.checkAttrs(known)))
    return failure();
  if (IsMax && n.wantsOutput(1))
    return n.fail("the Indices output of MaxPool is not supported");
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
  w.kernel = *kernel;
  bool ceilMode = n.attrInt("ceil_mode", 0) != 0;
  if (failed(readWindow(n, input, w)))
    return failure();
  Value y;
  if constexpr (IsMax)
    y = n.create<MaxPoolOp>(n.in(0), w.kernel, w.strides, w.dilations, w.pads,
                            ceilMode);
  else
    y = n.create<AvgPoolOp>(n.in(0), w.kernel, w.strides, w.dilations, w.pads,
                            ceilMode, n.attrInt("count_include_pad", 0) != 0);
  if (!y)
    return failure();
  n.setOut(0, y);
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
}
