//===- ConvCpu.cpp - CPU convolutions as GEMMs the BLAS computes ----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// tide.conv placed on the CPU (or unplaced), f32 or f64, not depthwise: per
// image and per group one linalg.matmul, which tide-matmul-to-library sends
// to the host BLAS:
//
//   out[n, group g] (F/G x O1*..*Ok) =
//       weight[group g] (F/G x C/G*K1*..*Kk) @ col (C/G*K1*..*Kk x O1*..*Ok)
//
// `col` is the image's input itself (collapsed) when the convolution is
// GEMM-shaped (every kernel size 1, stride 1, no padding), and otherwise an
// im2col matrix: a parallel linalg.generic that copies
// input[n, g*C/G + c, o_i * stride_i + k_i * dilation_i] (zero-padded) to
// col[c, k_1..k_k, o_1..o_k], whose loops the CPU pipeline spreads over the
// threads. Images and groups are scf.for loops over slices of one result
// tensor (updated in place by bufferization); a loop of one trip is folded
// away by the canonicalizer. The BLAS calls thus stay outside every parallel
// region.
//
// Depthwise convolutions (one input channel per group) are direct loops
// instead (a GEMM of one row per group is all call overhead): one
// linalg.generic whose innermost loops run over the output's spatial
// dimensions (the window loops outside them), so the innermost loop is a
// vectorizable run along an output row rather than a window of a few taps.
//
// f32 convolutions oneDNN takes (1-3-D, grouped only in 2-D, static weight
// shape; and the 2-D channels-last ones tide-channels-last made, grouped ones
// as linalg.conv_2d_nhwgc_gfhwc)
// come first: the generic lowering's named linalg convolution marked
// with `tide.conv_pads`, as for cuDNN on the GPU, which
// tide-conv-to-library turns into a call of Tide's runtime
// (tide_rt_cpu_conv_f32, oneDNN) after bufferization. The GEMMs and the
// depthwise loops below are what the other f32 and the f64 convolutions get.
//
// GPU-placed convolutions, f16/bf16 and integer ones keep the generic
// lowering of TideToLinalg.cpp (LowerConv).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "tide/IR/TideOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::to_linalg;

namespace {

/// Whether the CPU lowering of this file takes `op`: f32/f64, not placed on
/// a GPU, and no static size 0 (no work; the generic lowering handles it
/// without slicing into an empty dimension).
bool isCpuBlasConv(ConvOp op) {
  DeviceAttr device = getDevice(op);
  // (A weight of run-time sizes takes the generic lowering.)
  if ((device && device.isGPU()) || op.getChannelsLast() ||
      !op.getWeight().getType().hasStaticShape())
    return false;
  for (Value v : {op.getInput(), op.getWeight(), op.getResult()})
    if (llvm::is_contained(cast<RankedTensorType>(v.getType()).getShape(), 0))
      return false;
  Type element = op.getType().getElementType();
  return element.isF32() || element.isF64();
}

/// Whether the input's and the result's spatial sizes are static (the GEMMs
/// and the depthwise loops below size their slices by them; a conv over
/// run-time spatial sizes takes oneDNN or the generic lowering).
bool hasStaticSpatialSizes(ConvOp op) {
  for (Value v : {op.getInput(), op.getResult()})
    if (llvm::any_of(
            cast<RankedTensorType>(v.getType()).getShape().drop_front(2),
            ShapedType::isDynamic))
      return false;
  return true;
}

/// Whether oneDNN runs `op` on the CPU (see the file comment).
bool isCpuLibraryConv(ConvOp op) {
  if (!isCpuBlasConv(op) || !op.getType().getElementType().isF32())
    return false;
  auto weightType = op.getWeight().getType();
  int64_t k = op.getType().getRank() - 2;
  return k >= 1 && k <= 3 && weightType.hasStaticShape() &&
         (op.getGroups() == 1 || k == 2);
}

/// Whether oneDNN runs the channels-last conv `op` on the CPU in that layout
/// (tide-channels-last's `host` rewrite): 2-D (grouped or not), f32, static
/// non-empty weights, not placed on a GPU.
bool isCpuChannelsLastLibraryConv(ConvOp op) {
  DeviceAttr device = getDevice(op);
  if ((device && device.isGPU()) || !op.getChannelsLast() ||
      op.getType().getRank() != 4 || !op.getType().getElementType().isF32() ||
      !op.getWeight().getType().hasStaticShape())
    return false;
  for (Value v : {op.getInput(), op.getWeight(), op.getResult()})
    if (llvm::is_contained(cast<RankedTensorType>(v.getType()).getShape(), 0))
      return false;
  return true;
}

/// `x` (N, C, spatial...) zero-padded by `pads` ([begin..., end...]) around
/// its spatial dimensions: a fill of the padded shape with `x` inserted.
Value padInput(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> pads) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank(), k = rank - 2;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> padded(sizes), offsets(rank, b.getIndexAttr(0)),
      strides(rank, b.getIndexAttr(1));
  SmallVector<Value> dyn;
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t i = 0; i < k; ++i) {
    shape[i + 2] += pads[i] + pads[k + i];
    offsets[i + 2] = b.getIndexAttr(pads[i]);
  }
  for (int64_t d = 0; d < rank; ++d)
    if (type.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, x, d));
  Value empty =
      tensor::EmptyOp::create(b, loc, shape, type.getElementType(), dyn);
  Value zero = constantOf(b, loc, type.getElementType(), 0);
  Value filled = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  return tensor::InsertSliceOp::create(b, loc, x, filled, offsets, sizes,
                                       strides);
}

/// The convolutions oneDNN runs: see the file comment.
struct LowerCpuLibraryConv : OpRewritePattern<ConvOp> {
  LowerCpuLibraryConv(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/3) {
    addDebugLabels({kCpuConvPatternLabel, kCpuLibraryConvPatternLabel});
  }

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (!isCpuLibraryConv(op) && !isCpuChannelsLastLibraryConv(op))
      return rewriter.notifyMatchFailure(op, "not a conv oneDNN runs");
    return lowerConv(rewriter, op, /*cpuLibrary=*/true);
  }
};

/// Convolution through GEMMs: see the file comment.
struct LowerCpuConvToGemm : OpRewritePattern<ConvOp> {
  LowerCpuConvToGemm(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {
    addDebugLabels(kCpuConvPatternLabel);
  }

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (!isCpuBlasConv(op) || !hasStaticSpatialSizes(op))
      return rewriter.notifyMatchFailure(
          op, "not an f32/f64 CPU conv of static spatial sizes");
    auto type = op.getType();
    auto weightType = op.getWeight().getType();
    int64_t groups = op.getGroups();
    int64_t channels = weightType.getDimSize(1); // per group
    if (channels == 1 && groups != 1)
      return rewriter.notifyMatchFailure(op, "depthwise: direct loops");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type element = type.getElementType();
    int64_t k = type.getRank() - 2;
    int64_t filters = weightType.getDimSize(0) / groups; // per group
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(),
                      pads = op.getPads();
    ArrayRef<int64_t> kernel = weightType.getShape().drop_front(2);
    ArrayRef<int64_t> outSpatial = type.getShape().drop_front(2);
    int64_t pixels = 1, depth = channels;
    for (int64_t i = 0; i < k; ++i) {
      pixels *= outSpatial[i];
      depth *= kernel[i];
    }
    bool gemmShaped = llvm::all_of(kernel, [](int64_t s) { return s == 1; }) &&
                      llvm::all_of(strides, [](int64_t s) { return s == 1; }) &&
                      llvm::all_of(pads, [](int64_t p) { return p == 0; });

    Value x = padInput(rewriter, loc, op.getInput(), pads);
    auto xType = cast<RankedTensorType>(x.getType());
    // The weight as (F, C/G * K1 * .. * Kk).
    SmallVector<ReassociationIndices> wMap = {{0}, {}};
    for (int64_t d = 1; d < weightType.getRank(); ++d)
      wMap[1].push_back(d);
    Value weight = tensor::CollapseShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({weightType.getDimSize(0), depth}, element),
        op.getWeight(), wMap);

    auto index = [&](OpBuilder &b, int64_t v) -> OpFoldResult {
      return b.getIndexAttr(v);
    };
    // The GEMM of image `n`, group `g` (an index value; null without groups)
    // into `acc`, a (F/G, O1 * .. * Ok) tensor; returns the product.
    auto imageGemm = [&](OpBuilder &b, OpFoldResult n, Value g,
                         Value acc) -> Value {
      // The image's channels of group g: (C/G, D1, .., Dk).
      OpFoldResult c0 = index(b, 0);
      if (groups != 1)
        c0 = arith::MulIOp::create(
                 b, loc, g, arith::ConstantIndexOp::create(b, loc, channels))
                 .getResult();
      SmallVector<OpFoldResult> offsets = {n, c0},
                                sizes = {index(b, 1), index(b, channels)};
      SmallVector<OpFoldResult> ones(k + 2, index(b, 1));
      SmallVector<int64_t> sliceShape = {channels};
      for (int64_t i = 0; i < k; ++i) {
        offsets.push_back(index(b, 0));
        sizes.push_back(index(b, xType.getDimSize(i + 2)));
        sliceShape.push_back(xType.getDimSize(i + 2));
      }
      Value image = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get(sliceShape, element), x, offsets, sizes,
          ones);
      Value col;
      auto colType = RankedTensorType::get({depth, pixels}, element);
      if (gemmShaped) {
        SmallVector<ReassociationIndices> map = {{0}, {}};
        for (int64_t i = 0; i < k; ++i)
          map[1].push_back(i + 1);
        col = tensor::CollapseShapeOp::create(b, loc, colType, image, map);
      } else {
        // im2col: loops (c, k_1..k_k, o_1..o_k), all parallel.
        SmallVector<int64_t> colShape = {channels};
        llvm::append_range(colShape, kernel);
        llvm::append_range(colShape, outSpatial);
        int64_t loops = 1 + 2 * k;
        SmallVector<AffineExpr> inExprs = {getAffineDimExpr(0, ctx)};
        for (int64_t i = 0; i < k; ++i)
          inExprs.push_back(getAffineDimExpr(1 + k + i, ctx) * strides[i] +
                            getAffineDimExpr(1 + i, ctx) * dilations[i]);
        Value empty = tensor::EmptyOp::create(b, loc, colShape, element);
        auto copy = linalg::GenericOp::create(
            b, loc, TypeRange{empty.getType()}, ValueRange{image},
            ValueRange{empty},
            ArrayRef<AffineMap>{AffineMap::get(loops, 0, inExprs, ctx),
                                b.getMultiDimIdentityMap(loops)},
            SmallVector<utils::IteratorType>(loops,
                                             utils::IteratorType::parallel),
            [](OpBuilder &nb, Location l, ValueRange args) {
              linalg::YieldOp::create(nb, l, args[0]);
            });
        SmallVector<ReassociationIndices> map = {{}, {}};
        for (int64_t i = 0; i <= k; ++i)
          map[0].push_back(i);
        for (int64_t i = 0; i < k; ++i)
          map[1].push_back(1 + k + i);
        col = tensor::CollapseShapeOp::create(b, loc, colType,
                                              copy.getResult(0), map);
      }
      Value w = weight;
      if (groups != 1) {
        Value f0 = arith::MulIOp::create(
            b, loc, g, arith::ConstantIndexOp::create(b, loc, filters));
        w = tensor::ExtractSliceOp::create(
            b, loc, weight, ArrayRef<OpFoldResult>{f0, index(b, 0)},
            ArrayRef<OpFoldResult>{index(b, filters), index(b, depth)},
            ArrayRef<OpFoldResult>{index(b, 1), index(b, 1)});
      }
      Value zero = constantOf(b, loc, element, 0);
      Value init = linalg::FillOp::create(b, loc, zero, acc).getResult(0);
      return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                      ValueRange{w, col}, ValueRange{init})
          .getResult(0);
    };

    int64_t batch = type.getDimSize(0);
    auto gemmType = RankedTensorType::get({filters, pixels}, element);
    Value result;
    if (batch == 1 && groups == 1) {
      // One GEMM straight into a fresh (F, O1 * .. * Ok) tensor.
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, gemmType.getShape(), element);
      Value product = imageGemm(rewriter, index(rewriter, 0), Value(), empty);
      SmallVector<ReassociationIndices> map = {{0, 1}, {}};
      for (int64_t i = 0; i < k; ++i)
        map[1].push_back(2 + i);
      result = tensor::ExpandShapeOp::create(rewriter, loc, type, product, map);
    } else {
      // Loops over images and groups, each GEMM into its slice of
      // (N, F, O1 * .. * Ok).
      SmallVector<Value> dyn;
      if (type.isDynamicDim(0))
        dyn.push_back(tensor::DimOp::create(rewriter, loc, op.getInput(), 0));
      Value all = tensor::EmptyOp::create(
          rewriter, loc, {batch, weightType.getDimSize(0), pixels}, element,
          dyn);
      Value zeroIndex = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      Value numImages =
          type.isDynamicDim(0)
              ? dyn.front()
              : arith::ConstantIndexOp::create(rewriter, loc, batch)
                    .getResult();
      Value numGroups = arith::ConstantIndexOp::create(rewriter, loc, groups);
      auto images = scf::ForOp::create(
          rewriter, loc, zeroIndex, numImages, one, ValueRange{all},
          [&](OpBuilder &b, Location, Value n, ValueRange outer) {
            auto perGroup = scf::ForOp::create(
                b, loc, zeroIndex, numGroups, one, ValueRange{outer[0]},
                [&](OpBuilder &gb, Location, Value g, ValueRange inner) {
                  Value f0 = arith::MulIOp::create(
                      gb, loc, g,
                      arith::ConstantIndexOp::create(gb, loc, filters));
                  SmallVector<OpFoldResult> offsets = {n, f0, index(gb, 0)};
                  SmallVector<OpFoldResult> sizes = {
                      index(gb, 1), index(gb, filters), index(gb, pixels)};
                  SmallVector<OpFoldResult> ones(3, index(gb, 1));
                  Value slice = tensor::ExtractSliceOp::create(
                      gb, loc, gemmType, inner[0], offsets, sizes, ones);
                  Value product =
                      imageGemm(gb, n, groups != 1 ? g : Value(), slice);
                  Value updated = tensor::InsertSliceOp::create(
                      gb, loc, product, inner[0], offsets, sizes, ones);
                  scf::YieldOp::create(gb, loc, updated);
                });
            scf::YieldOp::create(b, loc, perGroup.getResult(0));
          });
      result = images.getResult(0);
      if (k != 1) {
        SmallVector<ReassociationIndices> map = {{0}, {1}, {}};
        for (int64_t i = 0; i < k; ++i)
          map[2].push_back(2 + i);
        result =
            tensor::ExpandShapeOp::create(rewriter, loc, type, result, map);
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Depthwise convolution as direct loops: see the file comment. Loops
/// (n, g, f, k_1..k_k, o_1..o_k), the window loops reductions; the result
/// accumulates in place from a zero fill.
struct LowerCpuDepthwiseConv : OpRewritePattern<ConvOp> {
  LowerCpuDepthwiseConv(MLIRContext *ctx)
      : OpRewritePattern(ctx, /*benefit=*/2) {
    addDebugLabels(kCpuConvPatternLabel);
  }

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (!isCpuBlasConv(op) || !hasStaticSpatialSizes(op))
      return rewriter.notifyMatchFailure(
          op, "not an f32/f64 CPU conv of static spatial sizes");
    auto type = op.getType();
    auto weightType = op.getWeight().getType();
    int64_t groups = op.getGroups();
    if (weightType.getDimSize(1) != 1 || groups == 1)
      return rewriter.notifyMatchFailure(op, "not depthwise");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type element = type.getElementType();
    int64_t k = type.getRank() - 2;
    int64_t multiplier = weightType.getDimSize(0) / groups;
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations();
    Value x = padInput(rewriter, loc, op.getInput(), op.getPads());
    // The weight as (G, F/G, 1, K...); the result (N, G, F/G, O...).
    SmallVector<int64_t> wShape = {groups, multiplier};
    SmallVector<ReassociationIndices> wMap = {{0, 1}};
    for (int64_t d = 1; d < weightType.getRank(); ++d) {
      wShape.push_back(weightType.getDimSize(d));
      wMap.push_back({d + 1});
    }
    Value w = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(wShape, element), op.getWeight(),
        wMap);
    SmallVector<int64_t> outShape = {type.getDimSize(0), groups, multiplier};
    llvm::append_range(outShape, type.getShape().drop_front(2));
    // Loops: n, g, f, k_1..k_k, o_1..o_k.
    int64_t numLoops = 3 + 2 * k;
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    SmallVector<AffineExpr> inExprs = {dim(0), dim(1)},
                            wExprs = {dim(1), dim(2),
                                      getAffineConstantExpr(0, ctx)},
                            outExprs = {dim(0), dim(1), dim(2)};
    for (int64_t i = 0; i < k; ++i) {
      inExprs.push_back(dim(3 + k + i) * strides[i] +
                        dim(3 + i) * dilations[i]);
      wExprs.push_back(dim(3 + i));
      outExprs.push_back(dim(3 + k + i));
    }
    SmallVector<utils::IteratorType> iterators(3,
                                               utils::IteratorType::parallel);
    iterators.append(k, utils::IteratorType::reduction);
    iterators.append(k, utils::IteratorType::parallel);
    SmallVector<Value> dyn;
    if (type.isDynamicDim(0))
      dyn.push_back(tensor::DimOp::create(rewriter, loc, op.getInput(), 0));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, outShape, element, dyn);
    Value init =
        linalg::FillOp::create(rewriter, loc,
                               constantOf(rewriter, loc, element, 0), empty)
            .getResult(0);
    // The input is read as (N, G, D...): one channel per group.
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{x, w},
        ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::get(numLoops, 0, inExprs, ctx),
                            AffineMap::get(numLoops, 0, wExprs, ctx),
                            AffineMap::get(numLoops, 0, outExprs, ctx)},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value product = arith::MulFOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(
              b, l, arith::AddFOp::create(b, l, args[2], product).getResult());
        });
    SmallVector<ReassociationIndices> map = {{0}, {1, 2}};
    for (int64_t i = 0; i < k; ++i)
      map.push_back({3 + i});
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, type, generic.getResult(0), map);
    return success();
  }
};

} // namespace

void mlir::tide::populateCpuConvPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerCpuLibraryConv, LowerCpuConvToGemm, LowerCpuDepthwiseConv>(
      patterns.getContext());
}
