//===- LibraryGemm.cpp - Matmuls through cuBLAS ---------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// 2-D f16/bf16/f32/f64 matmuls call cuBLAS through Tide's runtime; batched
// matmuls call its strided batched GEMM over 3-D views, in a host loop over
// any outer batch dims that do not join the batch with uniform strides. Which
// matmuls qualify, and those views, are GemmMatchers' business.
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
  SmallVector<Value> values;
  for (const BatchedGemmOperand &operand : operands) {
    // Resident arguments are device pointers in the default space.
    Value v = operand.value;
    auto type = cast<MemRefType>(v.getType());
    if (type.getMemorySpace() != space)
      v = memref::MemorySpaceCastOp::create(
          b, loc,
          MemRefType::get(type.getShape(), type.getElementType(),
                          type.getLayout(), space),
          v);
    values.push_back(v);
  }
  SmallVector<Value> views =
      buildBatchedGemmViews(b, loc, operands, values, viewType);
  views.push_back(arith::ConstantIntOp::create(b, loc, accumulate ? 1 : 0, 32));
  func::CallOp::create(b, loc, callee, views);
  op->erase();
}
