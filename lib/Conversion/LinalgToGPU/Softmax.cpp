//===- Softmax.cpp - linalg.softmax as one kernel -------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// A softmax over the last dimension (what a GPU softmax becomes) is one
// kernel: one block per row, the row's maximum and sum of exponentials
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
  SmallVector<Value> outer;
  for (int64_t d = 0; d + 1 < rank; ++d)
    outer.push_back(memref::DimOp::create(b, loc, input, d).getResult());
  for (Value &v : outer)
    if (std::optional<int64_t> c = getConstantIntValue(v))
      v = index(b, loc, *c);
  Value rows = product(b, loc, outer);
  Value cols = memref::DimOp::create(b, loc, input, rank - 1);
  if (std::optional<int64_t> c = getConstantIntValue(cols))
    cols = index(b, loc, *c);
  // Short rows get a smaller block (down to one warp): no idle threads
  // waiting at the block-wide reductions.
  int64_t threads = kBlockSize;
  if (std::optional<int64_t> c = getConstantIntValue(cols))
    threads = std::clamp<int64_t>(llvm::PowerOf2Ceil(*c), 32, kBlockSize);
  Kernel k =
      makeKernel(b, loc, arith::MaxUIOp::create(b, loc, rows, index(b, loc, 1)),
                 kernels.nameFor(op), threads);
  OpBuilder &kb = k.body;
  Value live = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                     k.blockId, rows);
  OpBuilder tb = ifThen(kb, loc, live);
  SmallVector<Value> rowIvs = delinearize(tb, loc, k.blockId, outer);
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
    auto loop = scf::ForOp::create(tb, loc, k.threadId, cols,
                                   index(tb, loc, threads), ValueRange{init});
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
  Value rowMax = gpu::AllReduceOp::create(
      tb, loc, localMax,
      gpu::AllReduceOperationAttr::get(tb.getContext(),
                                       gpu::AllReduceOperation::MAXIMUMF),
      true);
  Value localSum = fold(zero, [&](OpBuilder &lb, Value acc, Value x) -> Value {
    Value e =
        math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, x, rowMax));
    return arith::AddFOp::create(lb, loc, acc, e);
  });
  Value rowSum = gpu::AllReduceOp::create(
      tb, loc, localSum,
      gpu::AllReduceOperationAttr::get(tb.getContext(),
                                       gpu::AllReduceOperation::ADD),
      true);
  auto loop =
      scf::ForOp::create(tb, loc, k.threadId, cols, index(tb, loc, threads));
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
