//===- NativeKernels.cpp - What Tide's own lowering can generate ---------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// This table is the truth that every target file is checked against: a file
// may remove kernels, never add one this table does not have. It is derived
// from the ops' facts in ODS (Tide_Facts: element kind, kernel group,
// lowering family), so a new op needs no entry here. The CPU and GPU lowerings
// own it: each claimed pair must lower (their tests walk it).
//
//===----------------------------------------------------------------------===//

#include "tide/Target/Target.h"

#include "tide/IR/TideOps.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tide;

/// The facts of a placeable op named `name`, or null.
static const OpFacts *findOp(StringRef name) {
  const OpFacts *facts = lookupOpFacts(name);
  return facts && facts->isPlaceable() ? facts : nullptr;
}

std::vector<DType> mlir::tide::getAcceptedDTypes(StringRef op) {
  std::vector<DType> result;
  const OpFacts *facts = findOp(op);
  if (!facts)
    return result;
  for (unsigned i = 0; i < kNumDTypes; ++i)
    if (isDTypeOfKind(static_cast<DType>(i), facts->elementKind))
      result.push_back(static_cast<DType>(i));
  return result;
}

const std::vector<std::string> &mlir::tide::getKnownOps() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> names;
    for (const OpFacts &facts : getAllOpFacts())
      if (facts.isPlaceable())
        names.push_back(facts.name.str());
    return names; // getAllOpFacts() is sorted by name
  }();
  return ops;
}

bool mlir::tide::expandOpGroup(StringRef group, std::vector<std::string> &ops) {
  if (group == "@all") {
    ops = getKnownOps();
    return true;
  }
  if (!group.consume_front("@"))
    return false;
  std::optional<KernelGroup> kernelGroup = symbolizeKernelGroup(group);
  if (!kernelGroup || *kernelGroup == KernelGroup::Transfer)
    return false;
  for (const OpFacts &facts : getAllOpFacts())
    if (facts.kernelGroup == *kernelGroup)
      ops.push_back(facts.name.str());
  return true;
}

KernelKind mlir::tide::getNativeKernel(DeviceKind kind, StringRef op,
                                       DType dtype) {
  const OpFacts *facts = findOp(op);
  if (!facts || !isDTypeOfKind(dtype, facts->elementKind))
    return KernelKind::None;
  // tide.dim reads a size from a tensor's metadata for the host code: there
  // is nothing for a GPU to run.
  if (facts->loweringFamily == LoweringFamily::Dim)
    return kind == DeviceKind::CUDA ? KernelKind::None : KernelKind::Codegen;
  // Results sized by the data: host loops (a count, then the writes); a GPU
  // version would need a scan and a size read back before the allocation.
  if (facts->loweringFamily == LoweringFamily::NonZero ||
      facts->loweringFamily == LoweringFamily::NonMaxSuppression)
    return kind == DeviceKind::CUDA ? KernelKind::None : KernelKind::Codegen;
  // top_k's kernel is a heap per row, host code; on a GPU it is decomposed
  // into an all-pairs comparison (tide-decompose).
  if (facts->loweringFamily == LoweringFamily::TopK)
    return kind == DeviceKind::CUDA ? KernelKind::None : KernelKind::Codegen;
  // A scan is a host loop (its body's ops are called once per step), an if
  // a host branch.
  if (facts->loweringFamily == LoweringFamily::Scan ||
      facts->loweringFamily == LoweringFamily::If)
    return kind == DeviceKind::CUDA ? KernelKind::None : KernelKind::Codegen;
  if (facts->loweringFamily == LoweringFamily::Matmul) {
    if (kind == DeviceKind::CUDA)
      // cuBLAS GEMM (f16, bf16, f32, f64); no integer GEMM on the GPU.
      return isFloatDType(dtype) ? KernelKind::Library : KernelKind::None;
    // BLAS for f32/f64 (oneDNN for f32 with a constant right operand);
    // generated loops for the other types.
    return (dtype == DType::F32 || dtype == DType::F64) ? KernelKind::Library
                                                        : KernelKind::Codegen;
  }
  if (facts->loweringFamily == LoweringFamily::Conv && kind == DeviceKind::CUDA)
    // cuDNN (f16, bf16, f32, f64); integer convs are generated kernels.
    return isFloatDType(dtype) ? KernelKind::Library : KernelKind::Codegen;
  if (facts->loweringFamily == LoweringFamily::Conv &&
      kind == DeviceKind::CPU && (dtype == DType::F32 || dtype == DType::F64))
    // CPU convolutions: oneDNN for f32 (1-3-D, grouped only in 2-D; the
    // others im2col and BLAS GEMMs), im2col and BLAS GEMMs for f64
    // (depthwise f64 ones are generated loops).
    return KernelKind::Library;
  return KernelKind::Codegen;
}

std::optional<DType> mlir::tide::getKernelDType(Operation *op,
                                                std::optional<DType> *extra) {
  auto elementOf = [](Value v) -> std::optional<DType> {
    if (auto shaped = dyn_cast<ShapedType>(v.getType()))
      return getDType(shaped.getElementType());
    return std::nullopt;
  };
  if (extra)
    *extra = std::nullopt;
  if (auto cast = dyn_cast<CastOp>(op)) {
    if (extra)
      *extra = elementOf(cast.getResult());
    return elementOf(cast.getInput());
  }
  if (auto select = dyn_cast<SelectOp>(op))
    return elementOf(select.getOnTrue());
  // iota's operand is its shape (i64 sizes): the result picks the kernel.
  if (auto iota = dyn_cast<IotaOp>(op))
    return elementOf(iota.getResult());
  if (op->getNumOperands() > 0)
    return elementOf(op->getOperand(0));
  if (op->getNumResults() > 0)
    return elementOf(op->getResult(0));
  return std::nullopt;
}
