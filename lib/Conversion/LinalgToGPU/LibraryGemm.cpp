//===- LibraryGemm.cpp - Matmuls through cuBLAS ---------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// 2-D f16/bf16/f32/f64 matmuls call cuBLAS through Tide's runtime; batched
// matmuls call its strided batched GEMM over 3-D views, in a host loop over
// any outer batch dims that do not join the batch with uniform strides. Which
// matmuls qualify is GemmMatchers' business.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

/// The runtime's GEMM `name` of type (`viewType` x 3, i32 accumulate),
/// declared once in `module`.
static func::FuncOp getOrDeclareGemm(ModuleOp module, StringRef name,
                                     MemRefType viewType) {
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (callee)
    return callee;
  OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
  callee = func::FuncOp::create(
      mb, module.getLoc(), name,
      mb.getFunctionType({viewType, viewType, viewType, mb.getI32Type()}, {}));
  callee.setPrivate();
  callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  mb.getUnitAttr());
  return callee;
}

/// Whether the GEMM accumulates into its output: not when the op before
/// zero-fills it, which is then erased (cuBLAS overwrites, beta 0, instead
/// of a fill kernel plus an accumulating GEMM).
static bool foldZeroFill(linalg::LinalgOp op) {
  linalg::FillOp fill = getZeroFillBefore(op);
  if (!fill)
    return true;
  fill->erase();
  return false;
}

void gpu_lowering::lowerLibraryGemm(KernelBuilder &kernels,
                                    linalg::MatmulOp op) {
  ModuleOp module = kernels.getFunction()->getParentOfType<ModuleOp>();
  OpBuilder b(op);
  Location loc = op.getLoc();
  bool accumulate = foldZeroFill(op);
  Type element =
      cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType();
  StringRef name = element.isF16()    ? TIDE_RT_GPU_GEMM_F16
                   : element.isBF16() ? TIDE_RT_GPU_GEMM_BF16
                   : element.isF32()  ? TIDE_RT_GPU_GEMM_F32
                                      : TIDE_RT_GPU_GEMM_F64;
  Attribute space = getMemorySpace(kernels.getOpDevice(op));
  // Strides as given: the right-hand operand may be column-major (see
  // getLibraryGemmElementType), which the runtime passes as transposed.
  auto dynType = MemRefType::get(
      {ShapedType::kDynamic, ShapedType::kDynamic}, element,
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                             {ShapedType::kDynamic, ShapedType::kDynamic}),
      space);
  func::FuncOp callee = getOrDeclareGemm(module, name, dynType);
  SmallVector<Value> operands;
  for (Value v : op->getOperands()) {
    // Resident arguments are device pointers in the default space: the
    // callee's type says the GPU's, which the strip pass removes later.
    Value spaced = v;
    auto type = llvm::cast<MemRefType>(v.getType());
    if (type.getMemorySpace() != dynType.getMemorySpace())
      spaced = memref::MemorySpaceCastOp::create(
          b, loc,
          MemRefType::get(type.getShape(), type.getElementType(),
                          type.getLayout(), dynType.getMemorySpace()),
          v);
    operands.push_back(memref::CastOp::create(b, loc, dynType, spaced));
  }
  operands.push_back(
      arith::ConstantIntOp::create(b, loc, accumulate ? 1 : 0, 32));
  func::CallOp::create(b, loc, callee, operands);
  op->erase();
}

void gpu_lowering::lowerLibraryBatchedGemm(
    KernelBuilder &kernels, linalg::LinalgOp op,
    ArrayRef<BatchedGemmOperand> operands) {
  ModuleOp module = kernels.getFunction()->getParentOfType<ModuleOp>();
  OpBuilder b(op);
  Location loc = op.getLoc();
  bool accumulate = foldZeroFill(op);
  Value c = op.getDpsInits()[0];
  Type element = cast<MemRefType>(c.getType()).getElementType();
  std::string name = std::string(TIDE_RT_GPU_GEMM_PREFIX) + "batched_" +
                     (element.isF16()    ? "f16"
                      : element.isBF16() ? "bf16"
                      : element.isF32()  ? "f32"
                                         : "f64");
  Attribute space = getMemorySpace(kernels.getOpDevice(op));
  int64_t dyn = ShapedType::kDynamic;
  auto viewType = MemRefType::get(
      {dyn, dyn, dyn}, element,
      StridedLayoutAttr::get(b.getContext(), dyn, {dyn, dyn, 1}), space);
  func::FuncOp callee = getOrDeclareGemm(module, name, viewType);
  int64_t batchRank = cast<MemRefType>(c.getType()).getRank() - 2;
  // Each operand's base, offset, sizes and strides (in the GPU's space:
  // resident arguments are device pointers in the default space).
  struct Meta {
    Value base, offset;
    SmallVector<Value> sizes, strides;
  };
  SmallVector<Meta> metas;
  for (const BatchedGemmOperand &operand : operands) {
    Value v = operand.value;
    auto type = cast<MemRefType>(v.getType());
    if (type.getMemorySpace() != space)
      v = memref::MemorySpaceCastOp::create(
          b, loc,
          MemRefType::get(type.getShape(), type.getElementType(),
                          type.getLayout(), space),
          v);
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, v);
    Meta m;
    m.base = meta.getBaseBuffer();
    m.offset = meta.getOffset();
    m.sizes.assign(meta.getSizes().begin(), meta.getSizes().end());
    m.strides.assign(meta.getStrides().begin(), meta.getStrides().end());
    metas.push_back(m);
  }
  const Meta &cMeta = metas[2];
  // Batch dims [inner, batchRank) run as one cuBLAS batch: outer ones join
  // it while, for every operand, they are all broadcast or all present with
  // static strides that step uniformly (a contiguous (batch, heads, ...)
  // tensor: attention's per-head matmuls in one call, not one per image).
  int64_t inner = batchRank - 1;
  SmallVector<int64_t> innerStride(operands.size(), 0), innerExtent;
  SmallVector<SmallVector<int64_t>> staticStrides;
  bool staticLayouts = true;
  for (const BatchedGemmOperand &operand : operands) {
    auto type = cast<MemRefType>(operand.value.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        !type.hasStaticShape() || llvm::any_of(strides, ShapedType::isDynamic))
      staticLayouts = false;
    staticStrides.push_back(strides);
  }
  int64_t extent = 1; // of the joined batch, static
  if (batchRank > 0 && staticLayouts) {
    extent = cast<MemRefType>(c.getType()).getDimSize(batchRank - 1);
    for (auto [i, operand] : llvm::enumerate(operands))
      if (std::optional<int64_t> dim = operand.dimOf[batchRank - 1])
        innerStride[i] = staticStrides[i][*dim];
    while (inner > 0) {
      int64_t d = inner - 1;
      bool joins = true;
      for (auto [i, operand] : llvm::enumerate(operands)) {
        bool present = operand.dimOf[d].has_value();
        for (int64_t e = inner; e < batchRank; ++e)
          if (operand.dimOf[e].has_value() != present)
            joins = false;
        if (present &&
            staticStrides[i][*operand.dimOf[d]] != innerStride[i] * extent)
          joins = false;
      }
      if (!joins)
        break;
      extent *= cast<MemRefType>(c.getType()).getDimSize(d);
      inner = d;
    }
  }
  // A right operand shared by every batch index (a linear layer's weight)
  // with lhs and result rows stepping uniformly through the batch dims: the
  // batch folds into the rows, one GEMM of (batch x m) rows (cuBLAS runs one
  // large GEMM faster than a strided batch of small ones).
  bool foldRows = false;
  if (staticLayouts && inner == 0 &&
      llvm::none_of(operands[1].dimOf,
                    [](std::optional<int64_t> d) { return d.has_value(); })) {
    foldRows = true;
    for (int64_t i : {0, 2}) {
      auto type = cast<MemRefType>(operands[i].value.getType());
      int64_t next = type.getRank() - 2; // m
      for (int64_t d = batchRank - 1; d >= 0 && foldRows; --d) {
        std::optional<int64_t> dim = operands[i].dimOf[d];
        foldRows = dim && *dim == next - 1 &&
                   staticStrides[i][next - 1] ==
                       staticStrides[i][next] * type.getDimSize(next);
        --next;
      }
      foldRows &= next == 0;
    }
  }
  // Host loops over the outer batch dims.
  SmallVector<Value> ivs;
  OpBuilder ib = b;
  for (int64_t d = 0; d < inner; ++d) {
    auto loop = scf::ForOp::create(ib, loc, index(ib, loc, 0), cMeta.sizes[d],
                                   index(ib, loc, 1));
    ivs.push_back(loop.getInductionVar());
    ib = OpBuilder::atBlockBegin(loop.getBody());
    ib.setInsertionPoint(loop.getBody()->getTerminator());
  }
  Value batch = inner + 1 < batchRank ? index(ib, loc, extent)
                                      : cMeta.sizes[batchRank - 1];
  SmallVector<Value> views;
  for (auto [i, operand, meta] : llvm::enumerate(operands, metas)) {
    Value offset = meta.offset;
    for (int64_t d = 0; d < inner; ++d)
      if (std::optional<int64_t> dim = operand.dimOf[d])
        offset = arith::AddIOp::create(
            ib, loc, offset,
            arith::MulIOp::create(ib, loc, ivs[d], meta.strides[*dim]));
    Value batchStride = index(ib, loc, 0);
    if (std::optional<int64_t> dim = operand.dimOf[batchRank - 1])
      batchStride = meta.strides[*dim];
    int64_t r = meta.sizes.size();
    OpFoldResult rows = meta.sizes[r - 2];
    if (foldRows) {
      batchStride = index(ib, loc, 0);
      if (i != 1)
        rows = ib.getIndexAttr(
            extent *
            cast<MemRefType>(operand.value.getType()).getDimSize(r - 2));
    }
    SmallVector<OpFoldResult> sizes{foldRows ? OpFoldResult(ib.getIndexAttr(1))
                                             : OpFoldResult(batch),
                                    rows, meta.sizes[r - 1]};
    SmallVector<OpFoldResult> strides{batchStride, meta.strides[r - 2],
                                      ib.getIndexAttr(1)};
    views.push_back(memref::ReinterpretCastOp::create(
        ib, loc, viewType, meta.base, OpFoldResult(offset), sizes, strides));
  }
  views.push_back(
      arith::ConstantIntOp::create(ib, loc, accumulate ? 1 : 0, 32));
  func::CallOp::create(ib, loc, callee, views);
  op->erase();
}
