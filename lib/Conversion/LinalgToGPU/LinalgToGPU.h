//===- LinalgToGPU.h - Internals of convert-linalg-to-gpu -------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Shared by the files of convert-linalg-to-gpu: the per-function kernel
// builder (which buffers are on which GPU, kernel names), index and launch
// helpers, and one entry point per lowering strategy:
//
//   KernelBuilder.cpp  the builder, index math, payload cloning, launches
//   Elementwise.cpp    parallel loops: one thread per point or per vector
//   Reductions.cpp     the block-parallel (split) reduction emitter, plain
//                      reductions, one thread per output
//   ArgReductions.cpp  argmax/argmin on the shared emitter
//   Softmax.cpp        linalg.softmax: one block per row
//   Rows.cpp           row groups: reductions over trailing dimensions and
//                      the elementwise work around them, one kernel
//   LibraryGemm.cpp    2-D and batched matmuls through cuBLAS
//   MemoryToGPU.cpp    memref.alloc/dealloc/copy on GPU memory to gpu ops
//   LinalgToGPU.cpp    the pass
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LIB_CONVERSION_LINALGTOGPU_LINALGTOGPU_H
#define TIDE_LIB_CONVERSION_LINALGTOGPU_LINALGTOGPU_H

#include "tide/Conversion/GemmMatchers.h"
#include "tide/IR/TideDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <string>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::tide::gpu_lowering {

/// Threads per block of the kernels (but short softmax rows).
constexpr int64_t kBlockSize = 256;
/// Threads of a warp (every NVIDIA GPU).
constexpr int32_t kWarpSize = 32;
/// The longest softmax row that a warp computes alone (lowerSoftmax).
constexpr int64_t kWarpRowLimit = 1024;

/// Per-function state of the lowering: which buffers live in which GPU's
/// memory, and the names of the kernels made so far.
class KernelBuilder {
public:
  /// Collects the GPU-resident arguments of `func` and the views of them.
  explicit KernelBuilder(func::FuncOp func);

  func::FuncOp getFunction() const { return func; }

  /// The GPU whose memory holds the buffer `v`: the memory space of its type
  /// (`#tide.device<cuda:N>`), or for a GPU-resident argument (`tide.resident`,
  /// a device pointer in the default space) and views of it, its residence.
  /// Null for host memory and values that are not buffers.
  DeviceAttr getBufferDevice(Value v) const;
  bool onDevice(Value v) const { return static_cast<bool>(getBufferDevice(v)); }
  /// The GPU of the first GPU buffer `op` reads or writes, or null.
  DeviceAttr getOpDevice(Operation *op) const;

  /// A fresh kernel name: `<function>_<first payload op>_<n>`.
  std::string nameFor(Operation *op);

private:
  func::FuncOp func;
  /// Resident arguments and views of them: device pointers whose type has
  /// the default memory space.
  DenseMap<Value, DeviceAttr> resident;
  unsigned counter = 0;
};

//===----------------------------------------------------------------------===//
// Index math and payloads
//===----------------------------------------------------------------------===//

/// An index constant.
Value index(OpBuilder &b, Location loc, int64_t v);
/// The product of index values, folded where they are constants.
Value product(OpBuilder &b, Location loc, ArrayRef<Value> values);
/// Row-major indices of `linear` over `sizes`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<Value> sizes);
/// The results of `map` at the loop indices `ivs`.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs);
/// The loop sizes of `op`, computed before it.
SmallVector<Value> loopSizes(OpBuilder &b, linalg::LinalgOp op);
/// Loop sizes split into the parallel and the reduction loops' sizes.
std::pair<SmallVector<Value>, SmallVector<Value>>
splitSizes(ArrayRef<Value> sizes, ArrayRef<utils::IteratorType> iters);
/// The loops of a linalg op with reductions, sized before the op.
struct ReductionLoops {
  SmallVector<utils::IteratorType> iters;
  /// The sizes of the parallel and of the reduction loops.
  SmallVector<Value> pSizes, rSizes;
  /// The number of outputs and of elements reduced into each.
  Value p, r;
};
ReductionLoops getReductionLoops(OpBuilder &b, linalg::LinalgOp op);
/// Full loop indices from the parallel and the reduction loops' indices.
SmallVector<Value> mergeIvs(ArrayRef<utils::IteratorType> iters,
                            ArrayRef<Value> pIvs, ArrayRef<Value> rIvs);

/// Maps the payload's block arguments to loaded elements (inputs, and inits
/// when `inits`) at `ivs`.
void loadOperands(OpBuilder &b, Location loc, linalg::LinalgOp op,
                  ArrayRef<Value> ivs, IRMapping &mapping, bool inits);
/// Clones the payload but its terminator (and `skip`); linalg.index reads
/// `ivs`.
void clonePayload(OpBuilder &b, linalg::LinalgOp op, ArrayRef<Value> ivs,
                  IRMapping &mapping, Operation *skip = nullptr);
/// Stores `values` into the inits of `op` at `ivs`.
void storeResults(OpBuilder &b, Location loc, linalg::LinalgOp op,
                  ArrayRef<Value> ivs, ValueRange values);

/// The accumulator type of a block reduction over `type`: f32 for f16/bf16,
/// i32 for narrower integers.
Type accumulatorType(Type type);
/// `v` extended or truncated to `to`.
Value convertTo(OpBuilder &b, Location loc, Value v, Type to, bool isUnsigned);
/// The identity of the block reduction `kind` over `type`.
Value identityOf(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
                 Type type);

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

/// A 1-D `gpu.launch` and a builder at the start of its body.
struct Kernel {
  gpu::LaunchOp launch;
  OpBuilder body;
  Value blockId, threadId;
};

/// A launch of `blocks` blocks of `blockSize` threads, outlined later as
/// `@tide_kernels::@<name>`.
Kernel makeKernel(OpBuilder &b, Location loc, Value blocks, StringRef name,
                  int64_t blockSize = kBlockSize);
/// blockIdx.x * blockDim.x + threadIdx.x of a kernel's 1-D launch.
Value globalThreadId(Kernel &k, Location loc, int64_t blockSize = kBlockSize);
/// A builder inside `if (cond)` at the current point of `b`.
OpBuilder ifThen(OpBuilder &b, Location loc, Value cond);
/// max(ceil(n / d), 1): a launch needs at least one block.
Value blocksFor(OpBuilder &b, Location loc, Value n, int64_t d);
/// A launch of one thread per item below `n` (kBlockSize threads per
/// block): a builder inside its `if (item < n)`, and the item.
std::pair<OpBuilder, Value> launchPerItem(OpBuilder &b, Location loc, Value n,
                                          StringRef name);

//===----------------------------------------------------------------------===//
// Strategies: each replaces `op` with GPU code.
//===----------------------------------------------------------------------===//

/// Only parallel loops: one thread per iteration point, or over contiguous
/// buffers without broadcasting one thread per 16-byte vector.
void lowerParallel(KernelBuilder &kernels, linalg::LinalgOp op);

/// What a block-parallel reduction computes, for emitBlockReduction. The
/// reduced range of each output is folded by the threads of one block (or,
/// split, of several blocks, then by one block over their partial results).
struct BlockReduction {
  /// The types of the values a block reduces (its partial results).
  SmallVector<Type> partialTypes;
  /// A thread's fold over the reduced positions start, start + step, ...
  /// of the output at `pIvs`.
  function_ref<SmallVector<Value>(OpBuilder &b, ArrayRef<Value> pIvs,
                                  Value start, Value step)>
      reduceRange;
  /// The identities of the partial results.
  function_ref<SmallVector<Value>(OpBuilder &b)> identities;
  /// One step of a thread's fold over partial results (`partials`, loaded
  /// at one position) into `acc`.
  function_ref<SmallVector<Value>(OpBuilder &b, ValueRange acc,
                                  ValueRange partials)>
      foldPartial;
  /// The threads' folds combined over the block (every thread gets them).
  function_ref<SmallVector<Value>(OpBuilder &b, ValueRange folded)>
      combineBlock;
  /// Stores the output at `pIvs` from the block's results, in thread `tid`
  /// of the block.
  function_ref<void(OpBuilder &b, Value tid, ArrayRef<Value> pIvs,
                    ValueRange results)>
      finish;
};

/// The launches of a block-parallel reduction of `op` with `p` outputs
/// (parallel loop sizes `pSizes`) of `r` elements each: one block per output,
/// or with few outputs and long rows, several blocks per output (partials
/// in temporary GPU buffers) and a second kernel over their partials.
void emitBlockReduction(KernelBuilder &kernels, linalg::LinalgOp op,
                        ArrayRef<Value> pSizes, Value p, Value r,
                        const BlockReduction &reduction);

/// How a reduction's payload folds each element into its one accumulator:
/// with one associative op that gpu.all_reduce has.
struct ReductionCombiner {
  /// The payload op that folds (`acc = op(acc, element)` or the reverse).
  Operation *op;
  /// The accumulator's operand position in `op`.
  unsigned accPos;
  gpu::AllReduceOperation kind;
  /// The element folded in, computed by the rest of the payload.
  Value element;
};
/// The combiner of a reduction with one output, if it has one.
std::optional<ReductionCombiner> matchCombiner(linalg::LinalgOp op);
/// `combiner`'s op (with its attributes) applied to (x, y).
Value combineWith(OpBuilder &b, Location loc, Operation *combiner, Value x,
                  Value y);

/// A reduction whose payload folds each element into its accumulator with
/// one associative op; false (nothing changed) for other payloads.
bool lowerReduction(KernelBuilder &kernels, linalg::LinalgOp op,
                    linalg::FillOp initFill = {});
/// argmax/argmin as convert-tide-to-linalg writes them; false (nothing
/// changed) for other payloads.
bool lowerArgReduction(KernelBuilder &kernels, linalg::LinalgOp op);
/// Any other reduction: one thread per output point.
void lowerSequential(KernelBuilder &kernels, linalg::LinalgOp op);

/// Softmax along the last dimension: one block per row.
void lowerSoftmax(KernelBuilder &kernels, linalg::SoftmaxOp op);

/// Lowers the row groups of `block` (Rows.cpp): runs of linalg ops on GPU
/// memory over one [rows x cols] space (reductions of the trailing dims,
/// elementwise ops over the rows or over the per-row values, softmax),
/// each group one kernel with a warp or a block per row.
void lowerRowGroups(KernelBuilder &kernels, Block &block);

/// Replaces each attention in `block` (batched matmul, optional scale and
/// mask, softmax over the keys, batched matmul by V, on f16/bf16) with one
/// call of the runtime's fused attention (Attention.cpp).
void lowerAttention(KernelBuilder &kernels, Block &block);

/// A 2-D matmul through Tide's cuBLAS GEMM (isLibraryGemm with CuBlas).
void lowerLibraryGemm(KernelBuilder &kernels, linalg::MatmulOp op);
/// A batched matmul (matchBatchedGemm's `operands`) through cuBLAS's strided
/// batched GEMM.
void lowerLibraryBatchedGemm(KernelBuilder &kernels, linalg::LinalgOp op,
                             ArrayRef<BatchedGemmOperand> operands);

/// Whether `op` is a convolution for cuDNN: a named linalg convolution that
/// convert-tide-to-linalg marked with `tide.conv_pads` (LibraryConv.cpp).
bool isLibraryConv(linalg::LinalgOp op);
/// Replaces the library convolution `op` with a call of the runtime's cuDNN
/// convolution; fails, changing nothing, when its buffers are not the views
/// the tensor lowering produces (the op is then lowered as a kernel).
LogicalResult lowerLibraryConv(KernelBuilder &kernels, linalg::LinalgOp op);

/// Patterns that turn memref.alloc/dealloc/copy on the GPU memory of
/// `kernels`'s function into gpu.alloc/dealloc/memcpy (a copy between
/// strided GPU views into a linalg.copy, lowered like other linalg ops).
void populateMemoryToGPUPatterns(RewritePatternSet &patterns,
                                 const KernelBuilder &kernels);
/// Constants copied into GPU buffers that the function then only reads use
/// the runtime's device copy of the constant itself (tide_rt_gpu_constant):
/// no allocation and no copy per call. Runs before the other lowerings,
/// while every reader is still a linalg op.
void useDeviceConstantsInPlace(const KernelBuilder &kernels, func::FuncOp func);
/// Moves host allocations that sit between GPU work in `block` up before its
/// first GPU op, so that the stream does not stop for them.
void hoistHostAllocations(const KernelBuilder &kernels, Block &block);

} // namespace mlir::tide::gpu_lowering

#endif // TIDE_LIB_CONVERSION_LINALGTOGPU_LINALGTOGPU_H
