//===- MatmulToLibrary.cpp - f32/f64 GEMM through the BLAS or oneDNN -----===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "tide/Conversion/GemmMatchers.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tide {
#define GEN_PASS_DEF_MATMULTOLIBRARYPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// A batched matmul (matchBatchedGemm's `operands`: lhs, rhs, result) as
/// 2-D GEMM calls of `callee` on views of its operands. When the rhs is
/// the same matrix for every batch index (a linear layer's weight) and the
/// lhs and result rows step uniformly through the batch dims (static
/// strides), the batch folds into the rows: one GEMM of (batch x m) rows.
/// Otherwise one call per batch index, in host loops.
void lowerBatchedGemm(OpBuilder &b, linalg::LinalgOp op,
                      ArrayRef<BatchedGemmOperand> operands,
                      func::FuncOp callee, MemRefType viewType,
                      ValueRange extra) {
  Location loc = op.getLoc();
  auto cType = cast<MemRefType>(operands[2].value.getType());
  int64_t batchRank = cType.getRank() - 2;
  auto index = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  // Whether the rows of `operand` (its batch dims, then m) step by its m
  // stride: every batch dim present, static strides, each batch dim's
  // stride the next dim's stride times its size.
  auto rowsFold = [&](const BatchedGemmOperand &operand) {
    auto type = cast<MemRefType>(operand.value.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!type.hasStaticShape() ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return false;
    int64_t r = type.getRank();
    int64_t next = r - 2; // m
    for (int64_t d = batchRank - 1; d >= 0; --d) {
      if (!operand.dimOf[d] || *operand.dimOf[d] != next - 1)
        return false;
      if (strides[next - 1] != strides[next] * type.getDimSize(next))
        return false;
      --next;
    }
    return next == 0;
  };
  bool fold = llvm::none_of(operands[1].dimOf,
                            [](auto dim) { return dim.has_value(); }) &&
              rowsFold(operands[0]) && rowsFold(operands[2]);

  struct Meta {
    Value base, offset;
    SmallVector<Value> sizes, strides;
  };
  SmallVector<Meta> metas;
  for (const BatchedGemmOperand &operand : operands) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, operand.value);
    Meta m;
    m.base = meta.getBaseBuffer();
    m.offset = meta.getOffset();
    m.sizes.assign(meta.getSizes().begin(), meta.getSizes().end());
    m.strides.assign(meta.getStrides().begin(), meta.getStrides().end());
    metas.push_back(m);
  }
  SmallVector<Value> ivs;
  OpBuilder ib = b;
  if (!fold) {
    for (int64_t d = 0; d < batchRank; ++d) {
      auto loop = scf::ForOp::create(ib, loc, index(ib, 0), metas[2].sizes[d],
                                     index(ib, 1));
      ivs.push_back(loop.getInductionVar());
      ib = OpBuilder::atBlockBegin(loop.getBody());
      ib.setInsertionPoint(loop.getBody()->getTerminator());
    }
  }
  SmallVector<Value> views;
  for (auto [i, operand, meta] : llvm::enumerate(operands, metas)) {
    int64_t r = meta.sizes.size();
    Value offset = meta.offset;
    Value rows = meta.sizes[r - 2];
    if (fold && i != 1) {
      for (int64_t d = 0; d < r - 2; ++d)
        rows = arith::MulIOp::create(ib, loc, rows, meta.sizes[d]);
    } else if (!fold) {
      for (int64_t d = 0; d < batchRank; ++d)
        if (std::optional<int64_t> dim = operand.dimOf[d])
          offset = arith::AddIOp::create(
              ib, loc, offset,
              arith::MulIOp::create(ib, loc, ivs[d], meta.strides[*dim]));
    }
    SmallVector<OpFoldResult> sizes{rows, meta.sizes[r - 1]};
    SmallVector<OpFoldResult> strides{meta.strides[r - 2], ib.getIndexAttr(1)};
    views.push_back(memref::ReinterpretCastOp::create(
        ib, loc, viewType, meta.base, OpFoldResult(offset), sizes, strides));
  }
  llvm::append_range(views, extra);
  func::CallOp::create(ib, loc, callee, views);
  op->erase();
}

/// The constant buffer `rhs` is a transposed copy of, when `rhs` is an
/// allocation that `op` reads and whose only writer is that copy, a 2-D
/// transpose (linalg.transpose [1, 0], or the linalg.generic elementwise
/// fusion makes of one) earlier in `op`'s block: a linear layer's weight
/// stored (out, in), as ONNX's Gemm with transB and PyTorch's Linear keep it.
/// oneDNN reads it through a transposed view (and packs it once), so the
/// copy, which moved the whole weight at every call, goes. Null otherwise;
/// `copy` is the copy.
Value transposedConstantSource(Value rhs, Operation *op, Operation *&copy) {
  copy = nullptr;
  if (!rhs.getDefiningOp<memref::AllocOp>())
    return {};
  Value source;
  for (Operation *user : rhs.getUsers()) {
    if (user == op || isa<memref::DeallocOp>(user))
      continue;
    if (copy)
      return {}; // another reader or writer
    Value from;
    if (auto t = dyn_cast<linalg::TransposeOp>(user)) {
      if (t.getInit() == rhs && t.getPermutation() == ArrayRef<int64_t>{1, 0})
        from = t.getInput();
    } else if (auto g = dyn_cast<linalg::GenericOp>(user)) {
      MLIRContext *ctx = g.getContext();
      AffineMap swap =
          AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, ctx);
      Block &body = g.getRegion().front();
      auto yield = cast<linalg::YieldOp>(body.getTerminator());
      if (g.getNumDpsInputs() == 1 && g.getNumDpsInits() == 1 &&
          g.getDpsInits()[0] == rhs && g.getNumReductionLoops() == 0 &&
          g.getNumLoops() == 2 &&
          g.getMatchingIndexingMap(g.getDpsInputOperand(0)) == swap &&
          g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() &&
          body.getOperations().size() == 1 &&
          yield.getOperand(0) == body.getArgument(0))
        from = g.getDpsInputs()[0];
    }
    if (!from || !isa<MemRefType>(from.getType()) ||
        user->getBlock() != op->getBlock() || !user->isBeforeInBlock(op))
      return {};
    copy = user;
    source = from;
  }
  if (!copy || !isConstantBuffer(source))
    return {};
  return source;
}

/// tide_rt_cpu_matmul_f32 or tide_rt_cpu_matmul_batched_f32 (`name`,
/// oneDNN), declared once in `module`.
func::FuncOp getOrDeclareDnnlMatmul(ModuleOp module, StringRef name,
                                    MemRefType viewType) {
  if (auto callee = module.lookupSymbol<func::FuncOp>(name))
    return callee;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i32 = b.getI32Type();
  auto callee = func::FuncOp::create(
      b, module.getLoc(), name,
      b.getFunctionType({viewType, viewType, viewType, i32, i32, i32}, {}));
  callee.setPrivate();
  callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  b.getUnitAttr());
  return callee;
}

struct MatmulToLibraryPass
    : public tide::impl::MatmulToLibraryPassBase<MatmulToLibraryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
      if ((matmul && isLibraryGemm(matmul, GemmLibrary::HostBlas)) ||
          (!op->getParentOfType<gpu::LaunchOp>() &&
           !matchBatchedGemm(op, GemmLibrary::HostBlas).empty()))
        matmuls.push_back(op);
    });
    if (matmuls.empty())
      return;
    OpBuilder b(module.getContext());
    for (linalg::LinalgOp op : matmuls) {
      Type element = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType())
                         .getElementType();
      StringRef name = element.isF32() ? TIDE_RT_GEMM_F32 : TIDE_RT_GEMM_F64;
      // Dynamically shaped, strided 2-D memrefs: one declaration serves all.
      auto dynType = MemRefType::get(
          {ShapedType::kDynamic, ShapedType::kDynamic}, element,
          StridedLayoutAttr::get(module.getContext(), ShapedType::kDynamic,
                                 {ShapedType::kDynamic, 1}));
      // f32: oneDNN, which packs a constant weight (a linear layer's) once
      // and runs on Tide's OpenMP threads (OpenBLAS's own threads spun in
      // sched_yield while oneDNN's calls and Tide's loops needed the cores).
      Value rhs = isa<linalg::MatmulOp>(op)
                      ? op.getDpsInputs()[1]
                      : matchBatchedGemm(op, GemmLibrary::HostBlas)[1].value;
      if (dnnl && element.isF32()) {
        bool accumulate = true;
        Operation *init = nullptr;
        if (outputIsZero(op, init)) {
          if (init)
            init->erase();
          accumulate = false;
        }
        b.setInsertionPoint(op);
        Location loc = op.getLoc();
        SmallVector<Value> extra = {
            arith::ConstantIntOp::create(b, loc, accumulate, 32),
            arith::ConstantIntOp::create(b, loc, isConstantBuffer(rhs), 32),
            arith::ConstantIntOp::create(b, loc, threads, 32)};
        if (!isa<linalg::MatmulOp>(op)) {
          // One call for the batch (oneDNN parallelizes over it; per-batch
          // calls of attention's small per-head products each forked the
          // threads for a few microseconds of work).
          auto viewType = MemRefType::get(
              {ShapedType::kDynamic, ShapedType::kDynamic,
               ShapedType::kDynamic},
              element,
              StridedLayoutAttr::get(
                  module.getContext(), ShapedType::kDynamic,
                  {ShapedType::kDynamic, ShapedType::kDynamic, 1}));
          SmallVector<BatchedGemmOperand> batched =
              matchBatchedGemm(op, GemmLibrary::HostBlas);
          SmallVector<Value> values;
          for (const BatchedGemmOperand &operand : batched)
            values.push_back(operand.value);
          SmallVector<Value> views =
              buildBatchedGemmViews(b, loc, batched, values, viewType);
          llvm::append_range(views, extra);
          func::CallOp::create(
              b, loc,
              getOrDeclareDnnlMatmul(module, TIDE_RT_CPU_MATMUL_BATCHED_F32,
                                     viewType),
              views);
          op.erase();
          continue;
        }
        // Any strides (the runtime describes each operand by its strides):
        // a weight read through a transposed view.
        auto anyStrides = MemRefType::get(
            {ShapedType::kDynamic, ShapedType::kDynamic}, element,
            StridedLayoutAttr::get(
                module.getContext(), ShapedType::kDynamic,
                {ShapedType::kDynamic, ShapedType::kDynamic}));
        Operation *copy = nullptr;
        Value source = transposedConstantSource(rhs, op, copy);
        SmallVector<Value> operands;
        for (Value v : op->getOperands()) {
          if (source && v == rhs) {
            v = memref::TransposeOp::create(
                b, loc, source,
                AffineMapAttr::get(AffineMap::getPermutationMap(
                    ArrayRef<unsigned>{1, 0}, b.getContext())));
            extra[1] = arith::ConstantIntOp::create(b, loc, 1, 32);
          }
          operands.push_back(memref::CastOp::create(b, loc, anyStrides, v));
        }
        llvm::append_range(operands, extra);
        func::CallOp::create(
            b, loc,
            getOrDeclareDnnlMatmul(module, TIDE_RT_CPU_MATMUL_F32, anyStrides),
            operands);
        op.erase();
        if (source) {
          copy->erase();
          if (llvm::all_of(rhs.getUsers(), [](Operation *user) {
                return isa<memref::DeallocOp>(user);
              })) {
            for (Operation *user : llvm::make_early_inc_range(rhs.getUsers()))
              user->erase();
            rhs.getDefiningOp()->erase();
          }
        }
        continue;
      }
      auto callee = module.lookupSymbol<func::FuncOp>(name);
      if (!callee) {
        b.setInsertionPointToStart(module.getBody());
        callee = func::FuncOp::create(
            b, module.getLoc(), name,
            b.getFunctionType({dynType, dynType, dynType, b.getI32Type()}, {}));
        callee.setPrivate();
        callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        b.getUnitAttr());
      }
      // A zero-filled output is overwritten (beta 0): no pass over it before.
      Operation *init = nullptr;
      bool accumulate = !outputIsZero(op, init);
      if (init)
        init->erase();
      b.setInsertionPoint(op);
      Value flag = arith::ConstantIntOp::create(b, op.getLoc(), accumulate, 32);
      if (!isa<linalg::MatmulOp>(op)) {
        lowerBatchedGemm(b, op, matchBatchedGemm(op, GemmLibrary::HostBlas),
                         callee, dynType, {flag});
        continue;
      }
      SmallVector<Value> operands;
      for (Value v : op->getOperands())
        operands.push_back(memref::CastOp::create(b, op.getLoc(), dynType, v));
      operands.push_back(flag);
      func::CallOp::create(b, op.getLoc(), callee, operands);
      op.erase();
    }
  }
};
} // namespace
