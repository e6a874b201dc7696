//===- FoldAffineIntoWeights.cpp - Per-channel scales into convolution weights
//---===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/Passes.h"

#include "tide/IR/TideOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <optional>
#include <vector>

namespace mlir::tide {
#define GEN_PASS_DEF_FOLDAFFINEINTOWEIGHTSPASS
#include "tide/Placement/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// The values of a constant f32 or f64 tensor in f64, or nothing when it is
/// neither, or its data is not in memory.
std::optional<std::vector<double>> readConstant(Attribute attr) {
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr)) {
    Type element = dense.getElementType();
    if (!element.isF32() && !element.isF64())
      return std::nullopt;
    // The element type's own values (a model's weights: millions of them;
    // APFloat per element would be slow).
    if (element.isF32()) {
      auto range = dense.getValues<float>();
      return std::vector<double>(range.begin(), range.end());
    }
    auto range = dense.getValues<double>();
    return std::vector<double>(range.begin(), range.end());
  }
  if (auto blob = dyn_cast<DenseF32ResourceElementsAttr>(attr)) {
    std::optional<ArrayRef<float>> data = blob.tryGetAsArrayRef();
    if (!data)
      return std::nullopt;
    return std::vector<double>(data->begin(), data->end());
  }
  if (auto blob = dyn_cast<DenseF64ResourceElementsAttr>(attr)) {
    std::optional<ArrayRef<double>> data = blob.tryGetAsArrayRef();
    if (!data)
      return std::nullopt;
    return std::vector<double>(data->begin(), data->end());
  }
  return std::nullopt;
}

/// The values of `v` when it holds one value per channel (`channels` of
/// them) or a single one, and is a constant or computed from such constants
/// by elementwise ops and reshapes; evaluated in f64. Every value on the way
/// must have 1 or `channels` elements, so that the data of each is its
/// per-channel vector (an op combining two vectors laid along different
/// dimensions would have channels^2 elements).
std::optional<std::vector<double>> evaluatePerChannel(Value v, int64_t channels,
                                                      int depth = 0) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (depth > 16 || !type || !type.hasStaticShape() ||
      (type.getNumElements() != 1 && type.getNumElements() != channels))
    return std::nullopt;
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr)))
    return readConstant(attr);
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  auto unary = [&](Value input,
                   double (*f)(double)) -> std::optional<std::vector<double>> {
    std::optional<std::vector<double>> x =
        evaluatePerChannel(input, channels, depth + 1);
    if (!x)
      return std::nullopt;
    for (double &e : *x)
      e = f(e);
    return x;
  };
  if (auto reshape = dyn_cast<ReshapeOp>(op))
    return evaluatePerChannel(reshape.getInput(), channels, depth + 1);
  if (auto neg = dyn_cast<NegOp>(op))
    return unary(neg.getInput(), [](double x) { return -x; });
  if (auto sqrt = dyn_cast<SqrtOp>(op))
    return unary(sqrt.getInput(), [](double x) { return std::sqrt(x); });
  if (auto rsqrt = dyn_cast<RsqrtOp>(op))
    return unary(rsqrt.getInput(), [](double x) { return 1.0 / std::sqrt(x); });
  if (!isa<AddOp, SubOp, MulOp, DivOp>(op))
    return std::nullopt;
  std::optional<std::vector<double>> a =
      evaluatePerChannel(op->getOperand(0), channels, depth + 1);
  std::optional<std::vector<double>> b =
      evaluatePerChannel(op->getOperand(1), channels, depth + 1);
  if (!a || !b)
    return std::nullopt;
  size_t n = std::max(a->size(), b->size());
  if (type.getNumElements() != static_cast<int64_t>(n))
    return std::nullopt;
  std::vector<double> result(n);
  for (size_t i = 0; i < n; ++i) {
    double x = (*a)[a->size() == 1 ? 0 : i], y = (*b)[b->size() == 1 ? 0 : i];
    result[i] = isa<AddOp>(op)   ? x + y
                : isa<SubOp>(op) ? x - y
                : isa<MulOp>(op) ? x * y
                                 : x / y;
  }
  return result;
}

/// True when a constant of `type` broadcast against the convolution's result
/// (`resultType`, channels at `channelDim`) varies along the channels only.
bool isPerChannelShape(RankedTensorType type, RankedTensorType resultType,
                       int64_t channelDim) {
  int64_t rank = resultType.getRank();
  if (type.getRank() > rank)
    return false;
  int64_t offset = rank - type.getRank();
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t d = type.getDimSize(i);
    if (d == 1)
      continue;
    if (i + offset != channelDim || d != resultType.getDimSize(channelDim))
      return false;
  }
  return true;
}

/// Erases the ops of `ops` that nothing uses any more, and then those that
/// computed their operands, likewise.
void eraseDeadOps(SmallVector<Operation *> ops) {
  llvm::SmallPtrSet<Operation *, 16> erased;
  while (!ops.empty()) {
    Operation *op = ops.pop_back_val();
    if (erased.contains(op) || !op->getDialect() ||
        !isa<TideDialect>(op->getDialect()) || !isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        ops.push_back(def);
    erased.insert(op);
    op->erase();
  }
}

/// Where the weight of a convolution or matrix product is, and how its
/// elements map to the result's channels.
struct Weighted {
  Operation *op = nullptr;
  int64_t channelDim = 0;
  /// The constant holding the weight (operand 1, or what it transposes).
  Value source;
  bool transposed = false;
  /// Elements of `source` per channel, and whether the channel is the
  /// slowest-varying index of `source` (else the fastest: a (K, N) product
  /// weight).
  bool channelMajor = true;
};

/// The weighted op `op` is, when its weight is a constant whose elements
/// belong to one output channel each: a convolution (weight (F, ...)), a
/// product by a constant 2-D right operand (K, N), or by the transpose of a
/// constant (N, K) (ONNX Gemm's transB, PyTorch's Linear).
std::optional<Weighted> matchWeighted(Operation *op) {
  Weighted w;
  w.op = op;
  if (auto conv = dyn_cast<ConvOp>(op)) {
    w.channelDim = conv.getChannelDim();
    w.source = conv.getWeight();
    return w;
  }
  auto matmul = dyn_cast<MatmulOp>(op);
  if (!matmul)
    return std::nullopt;
  auto rhsType = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
  auto resultType = dyn_cast<RankedTensorType>(matmul.getType());
  if (!rhsType || rhsType.getRank() != 2 || !resultType ||
      resultType.getRank() < 1)
    return std::nullopt;
  w.channelDim = resultType.getRank() - 1;
  w.source = matmul.getRhs();
  w.channelMajor = false;
  if (auto transpose = w.source.getDefiningOp<TransposeOp>();
      transpose && transpose.getPerm() == ArrayRef<int64_t>{1, 0} &&
      transpose->hasOneUse()) {
    w.source = transpose.getInput();
    w.transposed = true;
    w.channelMajor = true;
  }
  return w;
}

/// Folds the per-channel chain after `weighted.op`, if any; returns true
/// when the IR changed.
bool foldChain(const Weighted &weighted) {
  Operation *conv = weighted.op;
  auto resultType = dyn_cast<RankedTensorType>(conv->getResult(0).getType());
  if (!resultType)
    return false;
  Type element = resultType.getElementType();
  if (!element.isF32() && !element.isF64())
    return false;
  int64_t channelDim = weighted.channelDim;
  int64_t channels = resultType.getDimSize(channelDim);
  if (ShapedType::isDynamic(channels) || channels == 0)
    return false;
  DictionaryAttr attrs = conv->getDiscardableAttrDictionary();

  // y = scale * conv + shift, per channel, along the chain.
  std::vector<double> scale(channels, 1.0), shift(channels, 0.0);
  SmallVector<Operation *> chain;
  Value current = conv->getResult(0);
  while (current.hasOneUse()) {
    Operation *user = *current.getUsers().begin();
    if (!isa<AddOp, SubOp, MulOp, DivOp>(user) ||
        user->getResult(0).getType() != resultType ||
        user->getDiscardableAttrDictionary() != attrs ||
        user->getOperand(0) == user->getOperand(1))
      break;
    bool first = user->getOperand(0) == current;
    Value other = user->getOperand(first ? 1 : 0);
    auto otherType = dyn_cast<RankedTensorType>(other.getType());
    if (!otherType || !isPerChannelShape(otherType, resultType, channelDim))
      break;
    std::optional<std::vector<double>> k = evaluatePerChannel(other, channels);
    if (!k)
      break;
    auto at = [&](int64_t c) { return (*k)[k->size() == 1 ? 0 : c]; };
    if (isa<DivOp>(user)) {
      bool finite = first;
      for (int64_t c = 0; finite && c < channels; ++c)
        finite = at(c) != 0.0 && std::isfinite(at(c));
      if (!finite) // k / y, or a division by 0: not affine, or not exact.
        break;
    }
    for (int64_t c = 0; c < channels; ++c) {
      double v = at(c);
      if (isa<AddOp>(user)) {
        shift[c] += v;
      } else if (isa<SubOp>(user)) {
        if (first) {
          shift[c] -= v;
        } else {
          scale[c] = -scale[c];
          shift[c] = v - shift[c];
        }
      } else if (isa<MulOp>(user)) {
        scale[c] *= v;
        shift[c] *= v;
      } else {
        scale[c] /= v;
        shift[c] /= v;
      }
    }
    chain.push_back(user);
    current = user->getResult(0);
  }
  if (chain.empty())
    return false;
  for (int64_t c = 0; c < channels; ++c)
    if (!std::isfinite(scale[c]) || !std::isfinite(shift[c]))
      return false;
  // Shifts only: a layer's own bias add is left as it is; several adds
  // become one, the weight untouched.
  bool scaled = llvm::any_of(scale, [](double v) { return v != 1.0; });
  if (!scaled && chain.size() == 1)
    return false;

  // The weight, scaled per output channel.
  Attribute weightAttr;
  std::optional<std::vector<double>> weight;
  if (scaled && matchPattern(weighted.source, m_Constant(&weightAttr)))
    weight = readConstant(weightAttr);
  auto weightType = cast<RankedTensorType>(weighted.source.getType());
  int64_t channelAxis = weighted.channelMajor ? 0 : weightType.getRank() - 1;
  if (scaled && (!weight || weightType.getElementType() != element ||
                 weightType.getDimSize(channelAxis) != channels))
    return false;
  int64_t perFilter =
      weight ? static_cast<int64_t>(weight->size()) / channels : 0;
  auto channelOf = [&](size_t i) -> size_t {
    return weighted.channelMajor ? i / perFilter : i % channels;
  };
  Location loc = FusedLoc::get(
      conv->getContext(),
      {conv->getLoc(), chain.front()->getLoc(), chain.back()->getLoc()});
  OpBuilder b(chain.back());
  auto withAttrs = [&](Operation *op) {
    for (NamedAttribute a : attrs)
      op->setAttr(a.getName(), a.getValue());
    return op;
  };
  Operation *newConv = conv;
  if (scaled) {
    DenseElementsAttr scaledWeight;
    if (element.isF32()) {
      std::vector<float> data(weight->size());
      for (size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<float>((*weight)[i] * scale[channelOf(i)]);
      scaledWeight = DenseElementsAttr::get(weightType, ArrayRef<float>(data));
    } else {
      std::vector<double> data(weight->size());
      for (size_t i = 0; i < data.size(); ++i)
        data[i] = (*weight)[i] * scale[channelOf(i)];
      scaledWeight = DenseElementsAttr::get(weightType, ArrayRef<double>(data));
    }
    Value newWeight =
        withAttrs(ConstantOp::create(b, loc, weightType, scaledWeight))
            ->getResult(0);
    if (weighted.transposed)
      newWeight = withAttrs(TransposeOp::create(b, loc, newWeight,
                                                ArrayRef<int64_t>{1, 0}))
                      ->getResult(0);
    newConv = withAttrs(b.clone(*conv));
    newConv->setLoc(loc);
    newConv->setOperand(1, newWeight);
  }
  Value result = newConv->getResult(0);
  if (llvm::any_of(shift, [](double v) { return v != 0.0; })) {
    // One value per channel, shaped to broadcast along the channels.
    SmallVector<int64_t> shape(resultType.getRank() - channelDim, 1);
    shape[0] = channels;
    auto shiftType = RankedTensorType::get(shape, element);
    DenseElementsAttr shiftAttr;
    if (element.isF32()) {
      std::vector<float> data(shift.begin(), shift.end());
      shiftAttr = DenseElementsAttr::get(shiftType, ArrayRef<float>(data));
    } else {
      shiftAttr = DenseElementsAttr::get(shiftType, ArrayRef<double>(shift));
    }
    Value bias = withAttrs(ConstantOp::create(b, loc, shiftType, shiftAttr))
                     ->getResult(0);
    result = withAttrs(AddOp::create(b, loc, result, bias))->getResult(0);
  }
  chain.back()->getResult(0).replaceAllUsesWith(result);
  // What computed the constants and the old weight, once nothing reads it.
  SmallVector<Operation *> maybeDead;
  for (Operation *op : chain)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && def != conv && !llvm::is_contained(chain, def))
        maybeDead.push_back(def);
  if (Operation *def = conv->getOperand(1).getDefiningOp();
      def && newConv != conv)
    maybeDead.push_back(def);
  for (Operation *op : llvm::reverse(chain))
    op->erase();
  if (newConv != conv)
    conv->erase();
  eraseDeadOps(maybeDead);
  return true;
}

struct FoldAffineIntoWeightsPass
    : public tide::impl::FoldAffineIntoWeightsPassBase<
          FoldAffineIntoWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Weighted> ops;
    getOperation().walk([&](Operation *op) {
      if (std::optional<Weighted> weighted = matchWeighted(op))
        ops.push_back(*weighted);
    });
    for (const Weighted &weighted : ops)
      foldChain(weighted);
  }
};

} // namespace
