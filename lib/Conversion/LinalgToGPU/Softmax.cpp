//===- Softmax.cpp - linalg.softmax as one kernel -------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// A softmax over the last dimension (what a GPU softmax becomes) is one
// kernel. Rows of at most 1024 elements (attention scores: one row per
// query, as long as the sequence) computed in f32 take a warp each, 8 rows
// per block, the row's maximum and sum of exponentials combined by warp
// shuffles (no shared memory, no barriers); longer rows take a block each,
// combined with `gpu.all_reduce`.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

/// Softmax along the last dimension: one block per row, three passes
/// over the row (max, sum of exponentials, write), the row's later
/// passes served from cache: HBM traffic is one read and one write.
/// f16/bf16 rows compute in f32.
void gpu_lowering::lowerSoftmax(KernelBuilder &kernels, linalg::SoftmaxOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value input = op.getInput(), output = op.getOutput();
  auto type = cast<MemRefType>(input.getType());
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  Type compute = accumulatorType(element);
  // Static sizes as constants (the launch shape and the row layout are
  // chosen from them).
  auto dimOf = [&](int64_t d) -> Value {
    if (!type.isDynamicDim(d))
      return index(b, loc, type.getDimSize(d));
    return memref::DimOp::create(b, loc, input, d).getResult();
  };
  SmallVector<Value> outer;
  for (int64_t d = 0; d + 1 < rank; ++d)
    outer.push_back(dimOf(d));
  Value rows = product(b, loc, outer);
  Value cols = dimOf(rank - 1);
  std::optional<int64_t> constCols = getConstantIntValue(cols);
  // A warp per row: rows short enough that a warp's 32 lanes cover them in
  // a few steps (f32 accumulators: the shuffles move 32-bit values).
  bool byWarp = constCols && *constCols <= kWarpRowLimit && compute.isF32();
  // Otherwise a block per row; short rows get a smaller block (down to one
  // warp): no idle threads waiting at the block-wide reductions.
  int64_t threads = kBlockSize;
  if (!byWarp && constCols)
    threads =
        std::clamp<int64_t>(llvm::PowerOf2Ceil(*constCols), 32, kBlockSize);
  Value blocks =
      byWarp
          ? blocksFor(b, loc, rows, kBlockSize / kWarpSize)
          : arith::MaxUIOp::create(b, loc, rows, index(b, loc, 1)).getResult();
  Kernel k = makeKernel(b, loc, blocks, kernels.nameFor(op), threads);
  OpBuilder &kb = k.body;
  // This thread's row, its first column and the step between its columns.
  Value row = k.blockId, first = k.threadId;
  int64_t stride = threads;
  if (byWarp) {
    Value warp =
        arith::DivUIOp::create(kb, loc, k.threadId, index(kb, loc, kWarpSize));
    first =
        arith::RemUIOp::create(kb, loc, k.threadId, index(kb, loc, kWarpSize));
    row = arith::AddIOp::create(
        kb, loc,
        arith::MulIOp::create(kb, loc, k.blockId,
                              index(kb, loc, kBlockSize / kWarpSize)),
        warp);
    stride = kWarpSize;
  }
  Value live =
      arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, row, rows);
  OpBuilder tb = ifThen(kb, loc, live);
  SmallVector<Value> rowIvs = delinearize(tb, loc, row, outer);
  // The row's reduction of each thread's partial result: butterfly
  // shuffles within the warp (every lane ends with the total; a warp's
  // lanes share their row, so all 32 are active), or the block's.
  auto combine = [&](Value partial, gpu::AllReduceOperation kind) -> Value {
    if (!byWarp)
      return gpu::AllReduceOp::create(
          tb, loc, partial,
          gpu::AllReduceOperationAttr::get(tb.getContext(), kind), true);
    Value acc = partial;
    for (int32_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
      Value other = gpu::ShuffleOp::create(tb, loc, acc, offset, kWarpSize,
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      acc = kind == gpu::AllReduceOperation::MAXIMUMF
                ? arith::MaximumFOp::create(tb, loc, acc, other).getResult()
                : arith::AddFOp::create(tb, loc, acc, other).getResult();
    }
    return acc;
  };
  auto at = [&](Value col) {
    SmallVector<Value> idx(rowIvs);
    idx.push_back(col);
    return idx;
  };
  auto load = [&](OpBuilder &lb, Value col) -> Value {
    Value x = memref::LoadOp::create(lb, loc, input, at(col));
    return convertTo(lb, loc, x, compute, false);
  };
  auto fold = [&](Value init,
                  function_ref<Value(OpBuilder &, Value, Value)> step) {
    auto loop = scf::ForOp::create(tb, loc, first, cols, index(tb, loc, stride),
                                   ValueRange{init});
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    scf::YieldOp::create(lb, loc,
                         step(lb, loop.getRegionIterArgs()[0],
                              load(lb, loop.getInductionVar())));
    return loop.getResult(0);
  };
  auto fc = cast<FloatType>(compute);
  Value negInf = arith::ConstantOp::create(
      tb, loc,
      tb.getFloatAttr(fc, APFloat::getInf(fc.getFloatSemantics(), true)));
  Value zero = arith::ConstantOp::create(tb, loc, tb.getFloatAttr(fc, 0.0));
  Value localMax =
      fold(negInf, [&](OpBuilder &lb, Value acc, Value x) -> Value {
        return arith::MaximumFOp::create(lb, loc, acc, x);
      });
  Value rowMax = combine(localMax, gpu::AllReduceOperation::MAXIMUMF);
  Value localSum = fold(zero, [&](OpBuilder &lb, Value acc, Value x) -> Value {
    Value e =
        math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, x, rowMax));
    return arith::AddFOp::create(lb, loc, acc, e);
  });
  Value rowSum = combine(localSum, gpu::AllReduceOperation::ADD);
  auto loop = scf::ForOp::create(tb, loc, first, cols, index(tb, loc, stride));
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value x = load(lb, loop.getInductionVar());
    Value e =
        math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, x, rowMax));
    Value y = convertTo(lb, loc, arith::DivFOp::create(lb, loc, e, rowSum),
                        element, false);
    memref::StoreOp::create(lb, loc, y, output, at(loop.getInductionVar()));
  }
  op->erase();
}
