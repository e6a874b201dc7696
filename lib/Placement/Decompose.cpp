//===- Decompose.cpp - Composite ops into primitives, before placement ---===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/Passes.h"

#include "tide/IR/TideOps.h"
#include "tide/Placement/Placement.h"
#include "tide/Target/Target.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tide {
#define GEN_PASS_DEF_DECOMPOSEPASS
#include "tide/Placement/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

constexpr StringLiteral kDecomposedAttr = "tide.decomposed";

/// Builds the primitives of one composite, marking each new op with its
/// origin and the original op's pin and colocation.
struct Emitter {
  OpBuilder &b;
  Operation *origin;
  StringRef originName;
  /// Whether new ops inherit the origin's pin and colocation group.
  bool inherit = true;

  template <typename OpTy, typename... Args>
  Value make(Args &&...args) {
    auto op = OpTy::create(b, origin->getLoc(), std::forward<Args>(args)...);
    op->setAttr(kDecomposedAttr, b.getStringAttr(originName));
    if (!inherit)
      return op.getResult();
    if (DeviceAttr pin = getDevice(origin))
      setDevice(op, pin);
    if (StringRef group = getColocationGroup(origin); !group.empty())
      op->setAttr(TideDialect::getColocateAttrName(), b.getStringAttr(group));
    return op.getResult();
  }
};

/// reduce_mean -> reduce_sum / count. Fails for dynamic reduced dimensions.
FailureOr<Value> decomposeMean(ReduceMeanOp op, OpBuilder &b) {
  auto type = op.getInput().getType();
  double count = 1;
  for (int64_t axis : op.getNormalizedAxes()) {
    if (type.isDynamicDim(axis))
      return failure();
    count *= type.getDimSize(axis);
  }
  // The count must be exact in the element type (f16 tops out at 65504, bf16
  // rounds above 256): otherwise the rewrite would change the result.
  APFloat countValue(count);
  bool lost = false;
  countValue.convert(cast<FloatType>(type.getElementType()).getFloatSemantics(),
                     APFloat::rmNearestTiesToEven, &lost);
  if (lost || countValue.isInfinity())
    return failure();
  Emitter e{b, op, "reduce_mean"};
  Value sum = e.make<ReduceSumOp>(op.getInput(), op.getAxesAttr(),
                                  op.getKeepdimsAttr());
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  auto countAttr = DenseElementsAttr::get(
      scalarType, b.getFloatAttr(type.getElementType(), count));
  Value n = e.make<ConstantOp>(scalarType, countAttr);
  return e.make<DivOp>(sum, n);
}

/// softmax / log_softmax -> max-subtracted exponentials and a sum.
template <typename OpTy>
FailureOr<Value> decomposeSoftmax(OpTy op, OpBuilder &b, bool log) {
  int64_t rank = op.getInput().getType().getRank();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  Emitter e{b, op, log ? "log_softmax" : "softmax"};
  auto axes = b.getDenseI64ArrayAttr({axis});
  auto keep = b.getUnitAttr();
  Value max = e.make<ReduceMaxOp>(op.getInput(), axes, keep);
  Value shifted = e.make<SubOp>(op.getInput(), max);
  Value exp = e.make<ExpOp>(shifted);
  Value sum = e.make<ReduceSumOp>(exp, axes, keep);
  return log ? e.make<SubOp>(shifted, e.make<LogOp>(sum))
             : e.make<DivOp>(exp, sum);
}

/// softmax / log_softmax -> primitives, as a pattern for other passes.
template <typename OpTy>
struct DecomposeSoftmaxPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    FailureOr<Value> result = decomposeSoftmax(
        op, rewriter, std::is_same_v<OpTy, LogSoftmaxOp>);
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// The primitives a composite op becomes (its ODS facts).
ArrayRef<StringLiteral> primitivesOf(Operation *op) {
  if (auto facts = dyn_cast<OpFactsInterface>(op))
    return facts.getDecomposition();
  return {};
}

/// The device an op would ask for first (its pin, the default, the GPU).
const DeviceSpec *preferredDevice(Operation *op, const Target &target) {
  if (DeviceAttr pin = getDevice(op))
    return target.getDevice(pin);
  if (DeviceAttr def = getDefaultDevice(op))
    return target.getDevice(def);
  if (const DeviceSpec *gpu = target.getFirstGPU())
    return gpu;
  return &target.getCPU();
}

struct DecomposePass : public tide::impl::DecomposePassBase<DecomposePass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *) override {
    warmTargetCache(target);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<const Target *> resolved = resolveTarget(module, target);
    if (failed(resolved))
      return signalPassFailure();
    const Target *loaded = *resolved;
    SmallVector<Operation *> ops;
    module->walk([&](Operation *op) {
      if (isPlaceable(op))
        ops.push_back(op);
    });
    OpBuilder b(module.getContext());
    for (Operation *op : ops) {
      ArrayRef<StringLiteral> primitives = primitivesOf(op);
      if (primitives.empty() || mode == DecomposeMode::Never)
        continue;
      if (mode == DecomposeMode::Auto) {
        const DeviceSpec *device = preferredDevice(op, *loaded);
        std::optional<DType> dtype = getKernelDType(op);
        if (!device || !dtype || hasKernelOn(op, *device))
          continue;
        if (!llvm::all_of(primitives, [&](StringRef p) {
              return device->kernels.lookup(p, *dtype) != KernelKind::None;
            }))
          continue;
      }
      b.setInsertionPoint(op);
      FailureOr<Value> done = failure();
      if (auto mean = dyn_cast<ReduceMeanOp>(op))
        done = decomposeMean(mean, b);
      else if (auto softmax = dyn_cast<SoftmaxOp>(op))
        done = decomposeSoftmax(softmax, b, /*log=*/false);
      else if (auto logSoftmax = dyn_cast<LogSoftmaxOp>(op))
        done = decomposeSoftmax(logSoftmax, b, /*log=*/true);
      if (succeeded(done)) {
        op->getResult(0).replaceAllUsesWith(*done);
        op->erase();
      } else
        op->emitRemark() << "not decomposed: a reduced dimension is dynamic, "
                            "or the element count is not exact in "
                         << describeKernelDType(op);
    }
    if (demoteF64)
      demote(module, *loaded);
  }

  /// f64 ops whose preferred device has only an f32 kernel run in f32
  /// between casts. Every rewrite is reported: precision changes are never
  /// silent.
  void demote(ModuleOp module, const Target &target) {
    SmallVector<Operation *> ops;
    module->walk([&](Operation *op) {
      if (isPlaceable(op) && !isa<CastOp, ConstantOp>(op))
        ops.push_back(op);
    });
    OpBuilder b(module.getContext());
    Type f32 = b.getF32Type();
    auto demoteType = [&](Type type) -> Type {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (tensor && tensor.getElementType().isF64())
        return tensor.clone(f32);
      return type;
    };
    for (Operation *op : ops) {
      std::optional<DType> dtype = getKernelDType(op);
      const DeviceSpec *device = preferredDevice(op, target);
      StringRef name = op->getName().stripDialect();
      if (!dtype || *dtype != DType::F64 || !device ||
          hasKernelOn(op, *device) ||
          device->kernels.lookup(name, DType::F32) == KernelKind::None)
        continue;
      b.setInsertionPoint(op);
      // The casts go wherever they have kernels (placement decides); only
      // the narrowed op keeps the pin and the group.
      Emitter e{b, op, "demote-f64", /*inherit=*/false};
      SmallVector<Value> operands;
      for (Value operand : op->getOperands()) {
        Type narrow = demoteType(operand.getType());
        operands.push_back(narrow == operand.getType()
                               ? operand
                               : e.make<CastOp>(narrow, operand));
      }
      OperationState state(op->getLoc(), op->getName());
      state.addOperands(operands);
      state.addAttributes(op->getAttrs());
      for (Type type : op->getResultTypes())
        state.addTypes(demoteType(type));
      Operation *narrowOp = b.create(state);
      narrowOp->setAttr(kDecomposedAttr, b.getStringAttr("demote-f64"));
      for (auto [oldResult, newResult] :
           llvm::zip(op->getResults(), narrowOp->getResults())) {
        Value widened = newResult;
        if (newResult.getType() != oldResult.getType())
          widened = e.make<CastOp>(oldResult.getType(), newResult);
        oldResult.replaceAllUsesWith(widened);
      }
      narrowOp->emitWarning()
          << "computing '" << op->getName() << "' in f32 instead of f64 ("
          << "demote-f64): " << device->name() << " has no f64 kernel for "
          << name << "; results lose precision";
      op->erase();
    }
  }
};

} // namespace

void mlir::tide::populateDecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeSoftmaxPattern<SoftmaxOp>,
               DecomposeSoftmaxPattern<LogSoftmaxOp>>(patterns.getContext());
}
