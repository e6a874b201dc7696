//===- LibraryConv.cpp - Convolutions through cuDNN -----------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The named linalg convolutions convert-tide-to-linalg builds for GPU convs
// (marked `tide.conv_pads`) call cuDNN through Tide's runtime
// (tide_rt_gpu_conv_*), on unranked views of the NC<spatial> buffers:
//
//  - grouped 2-D convs (linalg.conv_2d_ngchw_gfchw) are handed over ungrouped:
//    the input and weights are the sources of their group-splitting
//    expand_shapes, the output is collapsed back, and cuDNN gets the count;
//  - the padding: where the padded input is a zero-filled allocation with the
//    real input copied into its interior (what tensor-level padding becomes)
//    and the padding is symmetric, cuDNN reads the real input and pads it
//    itself, and the allocation, fill and copy are erased;
//  - a zero fill right before the convolution becomes beta = 0;
//  - channels-last 1x1 convolutions with unit strides and no padding are one
//    GEMM over all pixels (cuBLAS, the weights read transposed);
//  - other channels-last 2-D convs (linalg.conv_2d_nhwc_fhwc) are handed over
//  as
//    NCHW-ordered views of their NHWC buffers (memref.transpose: sizes in
//    NCHW order, strides of the NHWC data), which cuDNN reads as NHWC
//    tensors, the weights as an NHWC-format filter;
//  - 1x1 convolutions with unit strides and no padding whose images' rows
//    (the flattened spatial size) are 16-byte aligned are batched GEMMs
//    instead (cuBLAS, through the GEMM strategy);
//  - f16/bf16 convolutions accumulate in f32 inside cuDNN and write their own
//    type: the generic ops that read (and first round) the f32 accumulator
//    the IR has read the narrow output instead, widened in their payload; or
//    where the accumulator has other uses, into a temporary widened into it
//    by one kernel (the value the IR then rounds is the one cuDNN rounded).
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

bool gpu_lowering::isLibraryConv(linalg::LinalgOp op) {
  return isa<linalg::Conv1DNcwFcwOp, linalg::Conv2DNchwFchwOp,
             linalg::Conv3DNcdhwFcdhwOp, linalg::Conv2DNgchwGfchwOp,
             linalg::Conv2DNhwcFhwcOp>(op) &&
         op->hasAttr(TideDialect::getConvPadsAttrName());
}

namespace {

/// The zero-filled allocation `padded` with the real input copied into its
/// interior, as tensor-level padding bufferizes: the ops to erase once the
/// convolution reads the real input, and that input. Fails when the
/// allocation has any other use than these, the convolution (`conv`, or
/// the expand_shape `view` feeding it and nothing else) and deallocations.
struct PaddedInput {
  Value source;
  SmallVector<Operation *> fillAndCopy;
};

FailureOr<PaddedInput> matchPaddedInput(Value padded, Operation *conv,
                                        Operation *view) {
  auto alloc = padded.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return failure();
  // The view may be shared (CSE merges the group-splitting views of two
  // convolutions of one padded input): then another reader needs the
  // padded data, and the fill and copy stay.
  if (view != conv && !llvm::all_of(view->getUsers(), [&](Operation *user) {
        return user == conv;
      }))
    return failure();
  PaddedInput result;
  for (Operation *user : alloc->getUsers()) {
    if (user == conv || user == view || isa<memref::DeallocOp>(user))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (fill.getDpsInits()[0] != padded ||
          !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
        return failure();
      result.fillAndCopy.push_back(fill);
      continue;
    }
    auto subview = dyn_cast<memref::SubViewOp>(user);
    if (!subview || !subview->hasOneUse())
      return failure();
    auto copy = dyn_cast<memref::CopyOp>(*subview->getUsers().begin());
    if (!copy || copy.getTarget() != subview.getResult() || result.source)
      return failure();
    result.source = copy.getSource();
    result.fillAndCopy.append({copy, subview});
  }
  if (!result.source || result.fillAndCopy.size() != 3)
    return failure();
  return result;
}

/// Erases `alloc` when only deallocations are left using it.
void eraseIfOnlyDeallocated(Value buffer) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || !llvm::all_of(alloc->getUsers(), [](Operation *user) {
        return isa<memref::DeallocOp>(user);
      }))
    return;
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    user->erase();
  alloc->erase();
}

/// The runtime's convolution for `element`, declared once in `module`.
func::FuncOp getOrDeclareConv(ModuleOp module, Type element, Attribute space) {
  std::string name =
      std::string(TIDE_RT_GPU_CONV_PREFIX) + (element.isF16()    ? "f16"
                                              : element.isBF16() ? "bf16"
                                              : element.isF32()  ? "f32"
                                                                 : "f64");
  if (auto callee = module.lookupSymbol<func::FuncOp>(name))
    return callee;
  OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
  Type view = UnrankedMemRefType::get(element, space);
  SmallVector<Type> inputs = {view, view, view};
  inputs.append(11, mb.getI64Type());
  auto callee = func::FuncOp::create(mb, module.getLoc(), name,
                                     mb.getFunctionType(inputs, {}));
  callee.setPrivate();
  return callee;
}

} // namespace

/// For a convolution whose f32 accumulator `y` (f16/bf16 inputs) is read
/// after it only by linalg.generic ops (the IR's rounding of the result, and
/// what elementwise fusion merged into it), those ops read the library's
/// f16/bf16 output instead, widened at the top of their payload: the values
/// they see are the rounded results they rounded themselves before, so no
/// kernel widens the output and the accumulator is never allocated. Returns
/// the narrow buffer (y's shape), or null when `y` has other uses.
static Value redirectNarrowOutput(Location loc, Operation *conv, Value y,
                                  Type narrowElement) {
  auto alloc = y.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return {};
  SmallVector<linalg::GenericOp> readers;
  SmallVector<memref::DeallocOp> deallocs;
  for (OpOperand &use : y.getUses()) {
    Operation *user = use.getOwner();
    // The convolution and the zero fill before it (which callers handle).
    if (user == conv ||
        (isa<linalg::FillOp>(user) && user->isBeforeInBlock(conv)))
      continue;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
      deallocs.push_back(dealloc);
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || !generic.isDpsInput(&use) ||
        generic->getBlock() != conv->getBlock() ||
        !conv->isBeforeInBlock(generic))
      return {};
    readers.push_back(generic);
  }
  auto type = cast<MemRefType>(y.getType());
  OpBuilder ab(alloc);
  Value narrow = memref::AllocOp::create(
      ab, loc,
      MemRefType::get(type.getShape(), narrowElement, type.getLayout(),
                      type.getMemorySpace()),
      alloc.getDynamicSizes());
  for (linalg::GenericOp generic : readers) {
    for (OpOperand &operand : generic->getOpOperands()) {
      if (operand.get() != y)
        continue;
      BlockArgument arg = generic.getMatchingBlockArgument(&operand);
      operand.set(narrow);
      Type wide = arg.getType();
      arg.setType(narrowElement);
      OpBuilder pb = OpBuilder::atBlockBegin(generic.getBlock());
      Value widened = arith::ExtFOp::create(pb, loc, wide, arg);
      arg.replaceAllUsesExcept(widened, widened.getDefiningOp());
    }
  }
  for (memref::DeallocOp dealloc : deallocs) {
    OpBuilder db(dealloc);
    memref::DeallocOp::create(db, loc, narrow);
    dealloc->erase();
  }
  return narrow;
}

/// A 1x1 f32/f64 convolution with unit strides and no padding is a GEMM per
/// image: y[n] (F x P) = w (F x C) * x[n] (C x P), P the flattened spatial
/// dims. Rewritten as a batched-matmul linalg.generic over collapsed views
/// (the weights broadcast over the batch), which the GEMM strategy sends to
/// cuBLAS's strided batched GEMM: faster than cuDNN's kernels for this shape.
static LogicalResult rewritePointwiseAsGemm(KernelBuilder &kernels,
                                            linalg::LinalgOp op) {
  auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
  if (!conv)
    return failure();
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1],
        y = op.getDpsInits()[0];
  auto xType = cast<MemRefType>(x.getType());
  auto wType = cast<MemRefType>(w.getType());
  auto yType = cast<MemRefType>(y.getType());
  Type element = xType.getElementType();
  auto isOne = [](int64_t v) { return v == 1; };
  ArrayRef<int64_t> pads =
      cast<DenseI64ArrayAttr>(op->getAttr(TideDialect::getConvPadsAttrName()))
          .asArrayRef();
  bool narrowInputs = element.isF16() || element.isBF16();
  if (!(element.isF32() || element.isF64() || narrowInputs) ||
      wType.getElementType() != element ||
      (yType.getElementType() != element && !narrowInputs) ||
      !llvm::all_of(conv.getStrides().getValues<int64_t>(), isOne) ||
      !llvm::all_of(conv.getDilations().getValues<int64_t>(), isOne) ||
      llvm::any_of(pads, [](int64_t p) { return p != 0; }) ||
      !wType.hasStaticShape() || wType.getDimSize(2) != 1 ||
      wType.getDimSize(3) != 1)
    return failure();
  // The flattened spatial size is the row stride of x[n] and y[n] in the
  // GEMM: where its rows are not 16-byte aligned cuBLAS falls back to its
  // unaligned kernels (ResNet-50's 7x7 stage in bf16 at batch 32: 75 us a
  // call, 44 TFLOP/s), and cuDNN's convolution is the better kernel.
  if (!xType.isDynamicDim(2) && !xType.isDynamicDim(3)) {
    int64_t rowBytes =
        xType.getDimSize(2) * xType.getDimSize(3) *
        static_cast<int64_t>(element.getIntOrFloatBitWidth() / 8);
    if (rowBytes % 16 != 0)
      return failure();
  }
  SmallVector<ReassociationIndices> spatial = {{0}, {1}, {2, 3}},
                                    filter = {{0}, {1, 2, 3}};
  if (!memref::CollapseShapeOp::isGuaranteedCollapsible(xType, spatial) ||
      !memref::CollapseShapeOp::isGuaranteedCollapsible(yType, spatial) ||
      !memref::CollapseShapeOp::isGuaranteedCollapsible(wType, filter))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  // f16/bf16 with an f32 accumulator: a GEMM in the inputs' type (cuBLAS
  // accumulates in f32) whose readers widen its result.
  if (yType.getElementType() != element) {
    linalg::FillOp fill = getZeroFillBefore(op);
    if (!fill)
      return failure();
    Value wide = y;
    y = redirectNarrowOutput(loc, op, wide, element);
    if (!y)
      return failure();
    // The accumulator's zero fill becomes the narrow output's.
    OpBuilder fb(fill);
    fill->setOperand(
        0, arith::ConstantOp::create(fb, loc, fb.getZeroAttr(element)));
    fill->setOperand(1, y);
    op->setOperand(2, y);
    eraseIfOnlyDeallocated(wide);
  }
  // Resident arguments are device pointers in the default space: the views
  // are made in the GPU's, which the strip pass removes later.
  Attribute space = getMemorySpace(kernels.getOpDevice(op));
  auto inSpace = [&](Value v) -> Value {
    auto type = cast<MemRefType>(v.getType());
    if (type.getMemorySpace() == space)
      return v;
    return memref::MemorySpaceCastOp::create(
        b, loc,
        MemRefType::get(type.getShape(), type.getElementType(),
                        type.getLayout(), space),
        v);
  };
  // The zero fill right before the convolution (before any view is made).
  bool zeroFilled = false;
  if (linalg::FillOp fill = getZeroFillBefore(op)) {
    fill->erase();
    zeroFilled = true;
  }
  Value xv = memref::CollapseShapeOp::create(b, loc, inSpace(x), spatial);
  Value wv = memref::CollapseShapeOp::create(b, loc, inSpace(w), filter);
  Value yv = memref::CollapseShapeOp::create(b, loc, inSpace(y), spatial);
  if (zeroFilled) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    linalg::FillOp::create(b, loc, zero, yv);
  }
  // Loops (n, f, p, c): y[n, f, p] += w[f, c] * x[n, c, p].
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{wv, xv}, ValueRange{yv},
      ArrayRef<AffineMap>{AffineMap::get(4, 0, {d(1), d(3)}, ctx),
                          AffineMap::get(4, 0, {d(0), d(3), d(2)}, ctx),
                          AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx)},
      SmallVector<utils::IteratorType>{
          utils::IteratorType::parallel, utils::IteratorType::parallel,
          utils::IteratorType::parallel, utils::IteratorType::reduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value product = arith::MulFOp::create(nb, l, args[0], args[1]);
        linalg::YieldOp::create(
            nb, l, arith::AddFOp::create(nb, l, args[2], product).getResult());
      });
  op->erase();
  return success();
}

/// A channels-last 1x1 convolution with unit strides and no padding is one
/// GEMM over every pixel of the batch: y (N*H*W x F) = x (N*H*W x C) *
/// w^T, w (F x C). Rewritten as a linalg.matmul over collapsed views, the
/// weights through a transposed (column-major) view, which cuBLAS reads
/// transposed (LibraryGemm).
static LogicalResult rewriteChannelsLastPointwiseAsGemm(KernelBuilder &kernels,
                                                        linalg::LinalgOp op) {
  auto conv = dyn_cast<linalg::Conv2DNhwcFhwcOp>(op.getOperation());
  if (!conv)
    return failure();
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1],
        y = op.getDpsInits()[0];
  auto xType = cast<MemRefType>(x.getType());
  auto wType = cast<MemRefType>(w.getType());
  auto yType = cast<MemRefType>(y.getType());
  Type element = xType.getElementType();
  auto isOne = [](int64_t v) { return v == 1; };
  ArrayRef<int64_t> pads =
      cast<DenseI64ArrayAttr>(op->getAttr(TideDialect::getConvPadsAttrName()))
          .asArrayRef();
  bool narrowInputs = element.isF16() || element.isBF16();
  if (!(element.isF32() || narrowInputs) || wType.getElementType() != element ||
      (yType.getElementType() != element && !narrowInputs) ||
      !llvm::all_of(conv.getStrides().getValues<int64_t>(), isOne) ||
      !llvm::all_of(conv.getDilations().getValues<int64_t>(), isOne) ||
      llvm::any_of(pads, [](int64_t p) { return p != 0; }) ||
      !wType.hasStaticShape() || wType.getDimSize(1) != 1 ||
      wType.getDimSize(2) != 1)
    return failure();
  SmallVector<ReassociationIndices> pixels = {{0, 1, 2}, {3}},
                                    filter = {{0}, {1, 2, 3}};
  if (!memref::CollapseShapeOp::isGuaranteedCollapsible(xType, pixels) ||
      !memref::CollapseShapeOp::isGuaranteedCollapsible(yType, pixels) ||
      !memref::CollapseShapeOp::isGuaranteedCollapsible(wType, filter))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  // f16/bf16 with an f32 accumulator: a GEMM in the inputs' type (cuBLAS
  // accumulates in f32) whose readers widen its result.
  if (yType.getElementType() != element) {
    linalg::FillOp fill = getZeroFillBefore(op);
    if (!fill)
      return failure();
    Value wide = y;
    y = redirectNarrowOutput(loc, op, wide, element);
    if (!y)
      return failure();
    OpBuilder fb(fill);
    fill->setOperand(
        0, arith::ConstantOp::create(fb, loc, fb.getZeroAttr(element)));
    fill->setOperand(1, y);
    op->setOperand(2, y);
    eraseIfOnlyDeallocated(wide);
  }
  Attribute space = getMemorySpace(kernels.getOpDevice(op));
  auto inSpace = [&](Value v) -> Value {
    auto type = cast<MemRefType>(v.getType());
    if (type.getMemorySpace() == space)
      return v;
    return memref::MemorySpaceCastOp::create(
        b, loc,
        MemRefType::get(type.getShape(), type.getElementType(),
                        type.getLayout(), space),
        v);
  };
  bool zeroFilled = false;
  if (linalg::FillOp fill = getZeroFillBefore(op)) {
    fill->erase();
    zeroFilled = true;
  }
  Value xv = memref::CollapseShapeOp::create(b, loc, inSpace(x), pixels);
  Value wv = memref::CollapseShapeOp::create(b, loc, inSpace(w), filter);
  Value wt = memref::TransposeOp::create(
      b, loc, wv,
      AffineMapAttr::get(AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0},
                                                      b.getContext())));
  Value yv = memref::CollapseShapeOp::create(b, loc, inSpace(y), pixels);
  if (zeroFilled) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    linalg::FillOp::create(b, loc, zero, yv);
  }
  linalg::MatmulOp::create(b, loc, ValueRange{xv, wt}, ValueRange{yv});
  op->erase();
  return success();
}

LogicalResult gpu_lowering::lowerLibraryConv(KernelBuilder &kernels,
                                             linalg::LinalgOp op) {
  if (succeeded(rewritePointwiseAsGemm(kernels, op)) ||
      succeeded(rewriteChannelsLastPointwiseAsGemm(kernels, op)))
    return success();
  ModuleOp module = kernels.getFunction()->getParentOfType<ModuleOp>();
  Location loc = op.getLoc();
  bool grouped = isa<linalg::Conv2DNgchwGfchwOp>(op);
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1],
        y = op.getDpsInits()[0];
  auto yType = cast<MemRefType>(y.getType());
  Type element = cast<MemRefType>(x.getType()).getElementType();
  int64_t rank = yType.getRank() - (grouped ? 1 : 0), k = rank - 2;
  int64_t groups = 1;
  Operation *xView = nullptr;
  if (grouped) {
    // Ungrouped views: the sources of the group-splitting expand_shapes.
    auto xExpand = x.getDefiningOp<memref::ExpandShapeOp>();
    auto wExpand = w.getDefiningOp<memref::ExpandShapeOp>();
    SmallVector<ReassociationIndices> merge = {{0}, {1, 2}, {3}, {4}};
    if (!xExpand || !wExpand ||
        !memref::CollapseShapeOp::isGuaranteedCollapsible(yType, merge))
      return failure();
    groups = cast<MemRefType>(w.getType()).getDimSize(0);
    xView = xExpand;
    x = xExpand.getSrc();
    w = wExpand.getSrc();
  }
  if (ShapedType::isDynamic(groups))
    return failure();

  ArrayRef<int64_t> pads =
      cast<DenseI64ArrayAttr>(op->getAttr(TideDialect::getConvPadsAttrName()))
          .asArrayRef();
  if (static_cast<int64_t>(pads.size()) != 2 * k)
    return failure();
  bool padded = llvm::any_of(pads, [](int64_t p) { return p != 0; });
  bool symmetric = pads.take_front(k) == pads.drop_front(k);
  SmallVector<int64_t> cudnnPads(3, 0);
  Value paddedBuffer;
  if (padded && symmetric) {
    FailureOr<PaddedInput> input =
        matchPaddedInput(x, op, xView ? xView : op.getOperation());
    if (succeeded(input)) {
      for (Operation *dead : input->fillAndCopy)
        dead->erase();
      paddedBuffer = x;
      x = input->source;
      for (int64_t i = 0; i < k; ++i)
        cudnnPads[i] = pads[i];
    }
  }

  OpBuilder b(op);
  bool accumulate = true;
  if (linalg::FillOp fill = getZeroFillBefore(op)) {
    fill->erase();
    accumulate = false;
  }
  Attribute space = getMemorySpace(kernels.getOpDevice(op));
  // cuDNN's output: the op's own, ungrouped; for f16/bf16, the narrow
  // buffer its readers now read, or else a temporary of the input type
  // widened into the accumulator.
  Value wide = y;
  if (!accumulate && cast<MemRefType>(y.getType()).getElementType() != element)
    if (Value redirected = redirectNarrowOutput(loc, op, y, element))
      y = redirected;
  Value out = y;
  if (grouped)
    out = memref::CollapseShapeOp::create(
        b, loc, y, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  Value narrow;
  auto outType = cast<MemRefType>(out.getType());
  if (outType.getElementType() != element) {
    SmallVector<Value> dynamic;
    for (int64_t d = 0; d < outType.getRank(); ++d)
      if (outType.isDynamicDim(d))
        dynamic.push_back(memref::DimOp::create(b, loc, out, d));
    narrow = memref::AllocOp::create(b, loc,
                                     MemRefType::get(outType.getShape(),
                                                     element, AffineMap(),
                                                     outType.getMemorySpace()),
                                     dynamic);
  }

  bool channelsLast = isa<linalg::Conv2DNhwcFhwcOp>(op);
  auto unranked = [&](Value v) -> Value {
    // (N, H, W, C) -> (N, C, H, W) view: cuDNN's NCHW-ordered sizes with
    // the NHWC strides (likewise (F, KH, KW, C) weights).
    if (channelsLast)
      v = memref::TransposeOp::create(
          b, loc, v,
          AffineMapAttr::get(AffineMap::getPermutationMap(
              ArrayRef<unsigned>{0, 3, 1, 2}, b.getContext())));
    auto type = cast<MemRefType>(v.getType());
    // Resident arguments are device pointers in the default space.
    if (type.getMemorySpace() != space)
      v = memref::MemorySpaceCastOp::create(
          b, loc,
          MemRefType::get(type.getShape(), type.getElementType(),
                          type.getLayout(), space),
          v);
    return memref::CastOp::create(
        b, loc, UnrankedMemRefType::get(type.getElementType(), space), v);
  };
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  };
  auto attrValues = [&](StringRef name) {
    SmallVector<int64_t> values(3, 1);
    auto attr = op->getAttrOfType<DenseIntElementsAttr>(name);
    for (auto [i, v] : llvm::enumerate(attr.getValues<int64_t>()))
      values[i] = v;
    return values;
  };
  SmallVector<int64_t> strides = attrValues("strides"),
                       dilations = attrValues("dilations");
  SmallVector<Value> operands = {unranked(x), unranked(w),
                                 unranked(narrow ? narrow : out)};
  operands.push_back(i64(groups));
  operands.push_back(i64(narrow ? 0 : accumulate));
  for (const SmallVector<int64_t> *values : {&cudnnPads, &strides, &dilations})
    for (int64_t v : *values)
      operands.push_back(i64(v));
  func::CallOp::create(b, loc, getOrDeclareConv(module, element, space),
                       operands);

  if (narrow) {
    // out (+)= extf(narrow), one elementwise kernel.
    MLIRContext *ctx = b.getContext();
    int64_t outRank = outType.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(outRank, ctx);
    SmallVector<utils::IteratorType> parallel(outRank,
                                              utils::IteratorType::parallel);
    linalg::GenericOp::create(
        b, loc, TypeRange{}, ValueRange{narrow}, ValueRange{out},
        ArrayRef<AffineMap>{id, id}, parallel,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value wide = arith::ExtFOp::create(nb, l, args[1].getType(), args[0]);
          if (accumulate)
            wide = arith::AddFOp::create(nb, l, args[1], wide);
          linalg::YieldOp::create(nb, l, wide);
        });
    memref::DeallocOp::create(b, loc, narrow);
  }
  op->erase();
  if (wide != y)
    eraseIfOnlyDeallocated(wide);
  if (xView && xView->use_empty())
    xView->erase();
  if (paddedBuffer)
    eraseIfOnlyDeallocated(paddedBuffer);
  return success();
}
