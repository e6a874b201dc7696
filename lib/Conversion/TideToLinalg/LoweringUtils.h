//===- LoweringUtils.h - Helpers shared by the tide -> linalg patterns ----===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Small helpers of convert-tide-to-linalg used by more than one of its source
// files: unsigned integers computed on signless types, scalar constants, and
// the f16/bf16 rule (compute in f32, round once).
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LIB_CONVERSION_TIDETOLINALG_LOWERINGUTILS_H
#define TIDE_LIB_CONVERSION_TIDETOLINALG_LOWERINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

namespace mlir::tide::to_linalg {

bool isFloat(Type t);
/// f16 and bf16 compute in f32 and are rounded once, at the end of an op.
bool isNarrowFloat(Type t);

/// `type` with unsigned integers (as element types too) made signless.
Type signless(Type type);
/// `v` cast to `type` with builtin.unrealized_conversion_cast (a no-op when it
/// has that type already).
Value castTo(OpBuilder &b, Location loc, Value v, Type type);
SmallVector<Value> toSignless(OpBuilder &b, Location loc, ValueRange values);
/// Replaces `op` by `results` (computed on signless types), cast back to
/// the op's own result types.
void replaceFromSignless(RewriterBase &rewriter, Operation *op,
                         ValueRange results);
/// Whether `v`'s elements are unsigned integers.
bool isUnsignedValue(Value v);

/// Whether `op` runs on a GPU. The GPU lowering accumulates f16/bf16
/// reductions in f32 itself (convert-linalg-to-gpu), and f16/bf16 GEMMs go to
/// cuBLAS with f32 compute, so those keep their element type in the IR.
bool placedOnGPU(Operation *op);

using NestBody = function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                 ValueRange ivs, ValueRange)>;
/// A nest of scf.for loops over `sizes` (row-major order) carrying
/// `iterArgs`; `body` returns the values to carry on. No loops for no sizes
/// (the body runs once).
SmallVector<Value> buildNest(OpBuilder &b, Location loc, ArrayRef<Value> sizes,
                             ValueRange iterArgs, NestBody body,
                             SmallVector<Value> ivs = {});

/// A scalar constant of `type` (float or integer) with `value`.
Value constantOf(OpBuilder &b, Location loc, Type type, double value);
/// The lowest value of `type`: -inf, or the minimum signed integer.
Value lowestOf(OpBuilder &b, Location loc, Type type);

/// A check at run time that `got` and `want` (index values) are equal: a
/// cf.assert naming `op` and `what` (nothing when both are the same constant).
/// The host lowering turns a failed check into an error of the call
/// (tide-lower-host-asserts): sizes that are only known at run time and
/// disagree never read or write out of bounds.
void assertSameSize(OpBuilder &b, Location loc, Operation *op, Value got,
                    Value want, const Twine &what);
/// A check at run time that `holds` (i1) is true, with the same message form.
void assertThat(OpBuilder &b, Location loc, Operation *op, Value holds,
                const Twine &what);

/// The size of a conv's or pool's result along spatial dimension `dim` of
/// `input` (tide::getWindowOutputSize): a constant for a static size,
/// computed at run time for a dynamic one; 0 where the window is larger than
/// the padded input.
OpFoldResult windowOutputSize(OpBuilder &b, Location loc, Value input,
                              int64_t dim, int64_t kernel, int64_t stride,
                              int64_t dilation, int64_t padBegin,
                              int64_t padEnd, bool ceilMode);
/// The sizes of a conv's or pool's result of `shape` over `input`, whose
/// dimensions line up with the result's (N, channels, spatial, or
/// channels-last): static sizes as they are, the spatial dimensions from
/// `firstSpatial` on by windowOutputSize, the others read from `input`.
SmallVector<OpFoldResult> windowResultSizes(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> shape,
    int64_t firstSpatial, ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
    ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads, bool ceilMode);
/// A tensor of `sizes` filled with `value`.
Value filledOfSizes(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                    Value value);

/// Run-time sizes (ShapeOperands.cpp). Replaces every `host` operand of a
/// tide op under `root` by a tensor.from_elements of scalars computed from
/// tensor.dim and constants wherever the operand's tide ops allow, read from
/// the operand at run time elsewhere. Runs before any op is lowered.
void scalarizeHostOperands(Operation *root);
/// Entry `i` of the i64 vector `shape` (a host operand) as an index.
Value getShapeEntry(OpBuilder &b, Location loc, Value shape, int64_t i);
/// True when the integer or index `v` is never negative (sizes, non-negative
/// constants, and sums, products and quotients of them).
bool isKnownNonNegative(Value v, int depth = 0);

/// A binary heap of (value, index) pairs held in two 1-D tensors, built as
/// scf loops over tensors (Selection.cpp): its root is the pair that comes
/// last in the order `before` gives ("worst first"), so a top-k keeps the k
/// best by replacing the root, and a heap sort leaves the pairs best first.
class PairHeap {
public:
  /// Whether (va, ia) comes before (vb, ib).
  using Before =
      std::function<Value(OpBuilder &, Value va, Value ia, Value vb, Value ib)>;
  /// A heap of at most `capacity` pairs.
  PairHeap(OpBuilder &b, Location loc, Value capacity, Before before);
  /// Moves the pair at `start` down the heap of its first `size` pairs until
  /// no child comes after it. `heap` is (values, indices); returns them.
  SmallVector<Value> siftDown(OpBuilder &b, Value start, Value size,
                              ValueRange heap) const;
  /// Makes the first `size` pairs a heap.
  SmallVector<Value> heapify(OpBuilder &b, Value size, ValueRange heap) const;
  /// Sorts the first `size` pairs, the best first (a heap sort).
  SmallVector<Value> sort(OpBuilder &b, Value size, ValueRange heap) const;

private:
  Location loc;
  Value depth;
  Before before;
};

} // namespace mlir::tide::to_linalg
namespace mlir::tide {
class ConvOp;
} // namespace mlir::tide
namespace mlir::tide::to_linalg {

/// tide.conv as TideToLinalg.cpp lowers it: padding, then one linalg.generic,
/// or for the convs a library runs (placed on a GPU, or `cpuLibrary`: the
/// CPU's oneDNN; float, 1-3-D, grouped only in 2-D, static weights) the named
/// linalg convolution marked with `tide.conv_pads`.
LogicalResult lowerConv(PatternRewriter &rewriter, ConvOp op, bool cpuLibrary);

} // namespace mlir::tide::to_linalg

namespace mlir::tide {
/// The patterns of take-along-axis and scatter (Indexing.cpp).
void populateIndexingPatterns(RewritePatternSet &patterns);
/// The patterns of tide.dim, tide.iota and tide.dynamic_slice
/// (ShapeOperands.cpp).
void populateShapeOperandPatterns(RewritePatternSet &patterns);
/// The patterns of tide.nonzero and tide.non_max_suppression, host loops
/// whose results are sized by the data (DataDependent.cpp).
void populateDataDependentPatterns(RewritePatternSet &patterns);
/// The pattern of tide.top_k on the CPU, a heap per row (Selection.cpp).
void populateSelectionPatterns(RewritePatternSet &patterns);
/// The pattern of tide.scan: an scf.for over the sequences (Scan.cpp).
void populateScanPatterns(RewritePatternSet &patterns);
/// The pattern of tide.if: an scf.if on its condition (If.cpp).
void populateIfPatterns(RewritePatternSet &patterns);
/// The CPU convolutions through GEMMs and the direct depthwise loops
/// (ConvCpu.cpp); they take precedence over the generic conv lowering. Their
/// patterns carry the debug label kCpuConvPatternLabel (the pass disables
/// them by it with conv-gemm=false).
void populateCpuConvPatterns(RewritePatternSet &patterns);
inline constexpr const char *kCpuConvPatternLabel = "tide-cpu-conv";
/// The oneDNN convolution pattern also carries this label (the pass disables
/// it when oneDNN is not to be used: GPU modules, which must load where only
/// the NVIDIA driver is).
inline constexpr const char *kCpuLibraryConvPatternLabel =
    "tide-cpu-library-conv";
} // namespace mlir::tide

#endif // TIDE_LIB_CONVERSION_TIDETOLINALG_LOWERINGUTILS_H
