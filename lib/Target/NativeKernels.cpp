//===- NativeKernels.cpp - What Tide's own lowering can generate ---------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// This table is the truth that every target file is checked against: a file
// may remove kernels, never add one this table does not have. The CPU and GPU
// lowerings own it: each claimed pair must lower (their tests walk it).
//
//===----------------------------------------------------------------------===//

#include "tide/Target/Target.h"

#include "tide/IR/TideOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::tide;

namespace {
struct OpInfo {
  const char *name;
  ElementKind kind;
  const char *group;
};
} // namespace

/// Every placeable tide op (all but transfer), the element types its verifier
/// accepts, and its group.
static const OpInfo kOps[] = {
    {"constant", ElementKind::Any, "@constant"},
    // Unary elementwise.
    {"neg", ElementKind::Numeric, "@elementwise"},
    {"abs", ElementKind::Numeric, "@elementwise"},
    {"exp", ElementKind::Float, "@elementwise"},
    {"log", ElementKind::Float, "@elementwise"},
    {"sqrt", ElementKind::Float, "@elementwise"},
    {"rsqrt", ElementKind::Float, "@elementwise"},
    {"tanh", ElementKind::Float, "@elementwise"},
    {"sigmoid", ElementKind::Float, "@elementwise"},
    {"relu", ElementKind::Numeric, "@elementwise"},
    {"elu", ElementKind::Float, "@elementwise"},
    {"floor", ElementKind::Float, "@elementwise"},
    {"ceil", ElementKind::Float, "@elementwise"},
    {"sin", ElementKind::Float, "@elementwise"},
    {"cos", ElementKind::Float, "@elementwise"},
    {"erf", ElementKind::Float, "@elementwise"},
    {"not", ElementKind::Integer, "@elementwise"},
    // Binary elementwise.
    {"add", ElementKind::Numeric, "@elementwise"},
    {"sub", ElementKind::Numeric, "@elementwise"},
    {"mul", ElementKind::Numeric, "@elementwise"},
    {"div", ElementKind::Numeric, "@elementwise"},
    {"pow", ElementKind::Float, "@elementwise"},
    {"maximum", ElementKind::Numeric, "@elementwise"},
    {"minimum", ElementKind::Numeric, "@elementwise"},
    {"and", ElementKind::Integer, "@elementwise"},
    {"or", ElementKind::Integer, "@elementwise"},
    {"cmp", ElementKind::Any, "@elementwise"},
    {"select", ElementKind::Any, "@elementwise"},
    {"cast", ElementKind::Any, "@elementwise"},
    // Contractions and reductions.
    {"matmul", ElementKind::Numeric, "@matmul"},
    {"reduce_sum", ElementKind::Numeric, "@reductions"},
    {"reduce_mean", ElementKind::Float, "@reductions"},
    {"reduce_max", ElementKind::Numeric, "@reductions"},
    {"reduce_min", ElementKind::Numeric, "@reductions"},
    {"reduce_prod", ElementKind::Numeric, "@reductions"},
    {"argmax", ElementKind::Numeric, "@reductions"},
    {"argmin", ElementKind::Numeric, "@reductions"},
    // Shape manipulation.
    {"reshape", ElementKind::Any, "@shape"},
    {"transpose", ElementKind::Any, "@shape"},
    {"broadcast_to", ElementKind::Any, "@shape"},
    {"concat", ElementKind::Any, "@shape"},
    {"slice", ElementKind::Any, "@shape"},
    // Composites (decomposable).
    {"softmax", ElementKind::Float, "@composite"},
    {"log_softmax", ElementKind::Float, "@composite"},
};

static const OpInfo *findOp(StringRef name) {
  for (const OpInfo &info : kOps)
    if (name == info.name)
      return &info;
  return nullptr;
}

static bool dtypeInKind(DType dtype, ElementKind kind) {
  bool isFloat = dtype == DType::F16 || dtype == DType::BF16 ||
                 dtype == DType::F32 || dtype == DType::F64;
  switch (kind) {
  case ElementKind::Float:
    return isFloat;
  case ElementKind::Integer:
    return !isFloat;
  case ElementKind::Numeric:
    return dtype != DType::I1;
  case ElementKind::Any:
    return true;
  }
  return false;
}

std::vector<DType> mlir::tide::getAcceptedDTypes(StringRef op) {
  std::vector<DType> result;
  const OpInfo *info = findOp(op);
  if (!info)
    return result;
  for (unsigned i = 0; i < kNumDTypes; ++i)
    if (dtypeInKind(static_cast<DType>(i), info->kind))
      result.push_back(static_cast<DType>(i));
  return result;
}

const std::vector<std::string> &mlir::tide::getKnownOps() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> names;
    for (const OpInfo &info : kOps)
      names.push_back(info.name);
    llvm::sort(names);
    return names;
  }();
  return ops;
}

bool mlir::tide::expandOpGroup(StringRef group, std::vector<std::string> &ops) {
  if (group == "@all") {
    ops = getKnownOps();
    return true;
  }
  bool known = false;
  for (const OpInfo &info : kOps) {
    if (group == info.group) {
      ops.push_back(info.name);
      known = true;
    }
  }
  return known;
}

KernelKind mlir::tide::getNativeKernel(DeviceKind kind, StringRef op,
                                       DType dtype) {
  const OpInfo *info = findOp(op);
  if (!info || !dtypeInKind(dtype, info->kind))
    return KernelKind::None;
  bool isFloat = dtype == DType::F16 || dtype == DType::BF16 ||
                 dtype == DType::F32 || dtype == DType::F64;
  if (op == "matmul") {
    if (kind == DeviceKind::CUDA)
      // cuBLAS GEMM (f16, bf16, f32, f64); no integer GEMM on the GPU.
      return isFloat ? KernelKind::Library : KernelKind::None;
    // BLAS for f32/f64; generated loops for the other types.
    return (dtype == DType::F32 || dtype == DType::F64) ? KernelKind::Library
                                                        : KernelKind::Codegen;
  }
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
  if (op->getNumOperands() > 0)
    return elementOf(op->getOperand(0));
  if (op->getNumResults() > 0)
    return elementOf(op->getResult(0));
  return std::nullopt;
}
