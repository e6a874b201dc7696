//===- Decompose.cpp - Composite ops into primitives, before placement ---===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/Passes.h"

#include "tide/IR/TideOps.h"
#include "tide/Placement/Placement.h"
#include "tide/Target/Target.h"
#include "tide/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tide {
#define GEN_PASS_DEF_DECOMPOSEPASS
#include "tide/Placement/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

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
      std::string why;
      FailureOr<Value> done = decomposeCompositeOp(op, b, &why);
      if (succeeded(done)) {
        op->getResult(0).replaceAllUsesWith(*done);
        op->erase();
      } else
        op->emitRemark() << "not decomposed: " << why;
    }
    if (mode != DecomposeMode::Never)
      speculate(module, *loaded);
    if (demoteF64)
      demote(module, *loaded);
    if (reducePrecision != ReducedPrecision::None)
      reduce(module, *loaded);
  }

  /// Whether the ops of `block` can run unconditionally on `gpu`: tide ops
  /// with a kernel there, no regions, every size static (so no run-time
  /// check that the branch not taken would fail), yielding `types`.
  static bool speculatable(Block &block, TypeRange types,
                           const DeviceSpec &gpu) {
    auto isStatic = [](Type t) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      return tensor && tensor.hasStaticShape();
    };
    if (block.getTerminator()->getOperandTypes() != types)
      return false;
    for (Operation &op : block.without_terminator())
      if (!isa<OpFactsInterface>(op) || op.getNumRegions() != 0 ||
          !llvm::all_of(op.getOperandTypes(), isStatic) ||
          !llvm::all_of(op.getResultTypes(), isStatic) ||
          (!isa<ConstantOp>(op) && !hasKernelOn(&op, gpu)))
        return false;
    return true;
  }

  /// A tide.if (a host branch) whose preferred device is a GPU and whose
  /// regions that GPU can run unconditionally: both regions computed and
  /// each result selected (tide.select), so that placement can keep the
  /// work on the GPU. The results are the same (the ops have no effects and
  /// no run-time checks); the cost is both regions'.
  void speculate(ModuleOp module, const Target &target) {
    SmallVector<IfOp> ifs;
    module->walk([&](IfOp op) {
      if (isPlaceable(op))
        ifs.push_back(op);
    });
    OpBuilder b(module.getContext());
    for (IfOp op : ifs) {
      const DeviceSpec *device = preferredDevice(op, target);
      if (!device || device->kind != DeviceKind::CUDA ||
          !speculatable(op.getThenBlock(), op.getResultTypes(), *device) ||
          !speculatable(op.getElseBlock(), op.getResultTypes(), *device))
        continue;
      b.setInsertionPoint(op);
      SmallVector<Value> yielded[2];
      for (auto [k, block] : llvm::enumerate(std::array<Block *, 2>{
               &op.getThenBlock(), &op.getElseBlock()})) {
        IRMapping map;
        map.map(block->getArguments(), op.getInvariants());
        for (Operation &inner : block->without_terminator()) {
          Operation *copy = b.clone(inner, map);
          if (!copy->hasAttr(kDecomposedAttrName))
            copy->setAttr(kDecomposedAttrName, b.getStringAttr("speculate-if"));
        }
        for (Value v : block->getTerminator()->getOperands())
          yielded[k].push_back(map.lookupOrDefault(v));
      }
      SmallVector<Value> results;
      for (auto [type, t, f] :
           llvm::zip(op.getResultTypes(), yielded[0], yielded[1])) {
        auto select =
            SelectOp::create(b, op.getLoc(), type, op.getCond(), t, f);
        select->setAttr(kDecomposedAttrName, b.getStringAttr("speculate-if"));
        results.push_back(select);
      }
      op->replaceAllUsesWith(results);
      op->erase();
    }
  }

  /// f32 matmuls and convolutions placed on a GPU read bf16 (f16) operands
  /// and accumulate in f32 (reduce-precision, asked for explicitly). A
  /// constant operand is converted here, once; the result is cast back to
  /// f32. Every rewrite is reported.
  void reduce(ModuleOp module, const Target &target) {
    bool bf16 = reducePrecision == ReducedPrecision::BF16;
    StringRef typeName = bf16 ? "bf16" : "f16";
    DType narrowDType = bf16 ? DType::BF16 : DType::F16;
    SmallVector<Operation *> ops;
    module->walk([&](Operation *op) {
      if (isa<MatmulOp, ConvOp>(op))
        ops.push_back(op);
    });
    OpBuilder b(module.getContext());
    Type narrowElement = bf16 ? Type(b.getBF16Type()) : Type(b.getF16Type());
    const llvm::fltSemantics &semantics =
        bf16 ? llvm::APFloat::BFloat() : llvm::APFloat::IEEEhalf();
    for (Operation *op : ops) {
      std::optional<DType> dtype = getKernelDType(op);
      const DeviceSpec *device = preferredDevice(op, target);
      StringRef name = op->getName().stripDialect();
      if (!dtype || *dtype != DType::F32 || !device ||
          device->kind != DeviceKind::CUDA ||
          device->kernels.lookup(name, narrowDType) == KernelKind::None)
        continue;
      b.setInsertionPoint(op);
      auto mark = [&](Operation *made) {
        made->setAttr(kDecomposedAttrName, b.getStringAttr("reduce-precision"));
      };
      SmallVector<Value> operands;
      for (Value operand : op->getOperands()) {
        auto type = cast<RankedTensorType>(operand.getType());
        auto narrow = type.clone(narrowElement);
        DenseElementsAttr value;
        if (auto constant = operand.getDefiningOp<ConstantOp>())
          value = dyn_cast<DenseElementsAttr>(constant.getValue());
        if (value && value.getElementType().isF32()) {
          // Round to nearest even, as the GPU's conversion does.
          auto converted = value.mapValues(narrowElement, [&](APFloat v) {
            bool lost;
            v.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
            return v.bitcastToAPInt();
          });
          auto made = ConstantOp::create(b, op->getLoc(), narrow, converted);
          mark(made);
          operands.push_back(made);
          continue;
        }
        auto castOp = CastOp::create(b, op->getLoc(), narrow, operand);
        mark(castOp);
        operands.push_back(castOp);
      }
      OperationState state(op->getLoc(), op->getName());
      state.addOperands(operands);
      state.addAttributes(op->getAttrs());
      state.addTypes(cast<RankedTensorType>(op->getResult(0).getType())
                         .clone(narrowElement));
      Operation *narrowOp = b.create(state);
      mark(narrowOp);
      auto widen = CastOp::create(b, op->getLoc(), op->getResult(0).getType(),
                                  narrowOp->getResult(0));
      mark(widen);
      op->getResult(0).replaceAllUsesWith(widen.getResult());
      narrowOp->emitWarning()
          << "computing '" << op->getName() << "' with " << typeName
          << " operands and f32 accumulation instead of f32 (reduce-precision="
          << typeName << ", requested) on " << device->name()
          << "; results lose precision";
      op->erase();
    }
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
      auto cast = [&](Type type, Value value) -> Value {
        auto castOp = CastOp::create(b, op->getLoc(), type, value);
        castOp->setAttr(kDecomposedAttrName, b.getStringAttr("demote-f64"));
        return castOp.getResult();
      };
      SmallVector<Value> operands;
      for (Value operand : op->getOperands()) {
        Type narrow = demoteType(operand.getType());
        operands.push_back(narrow == operand.getType() ? operand
                                                       : cast(narrow, operand));
      }
      OperationState state(op->getLoc(), op->getName());
      state.addOperands(operands);
      state.addAttributes(op->getAttrs());
      for (Type type : op->getResultTypes())
        state.addTypes(demoteType(type));
      Operation *narrowOp = b.create(state);
      narrowOp->setAttr(kDecomposedAttrName, b.getStringAttr("demote-f64"));
      for (auto [oldResult, newResult] :
           llvm::zip(op->getResults(), narrowOp->getResults())) {
        Value widened = newResult;
        if (newResult.getType() != oldResult.getType())
          widened = cast(oldResult.getType(), newResult);
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
