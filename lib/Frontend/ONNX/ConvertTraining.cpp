//===- ConvertTraining.cpp - ai.onnx.preview.training optimizers ----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The optimizer steps of the ai.onnx.preview.training domain, elementwise
// update rules over any number of tensors at once:
//
// - Adagrad(R, T, X..., G..., H...) -> (X'..., H'...);
// - Momentum(R, T, X..., G..., V...) -> (X'..., V'...), standard and
//   Nesterov;
// - Adam(R, T, X..., G..., V..., H...) -> (X'..., V'..., H'...).
//
// R (the learning rate, a float scalar) and T (the step count, an int64
// scalar) are values at run time: the rules' conditions on T (the first
// step, Adam's bias correction) are selects, its powers tide.pow. Each rule
// is computed in the tensors' type (f16 and bf16 in f32), as ONNX's
// reference does in their type; T enters as that type.
//
// (Gradient, the domain's automatic differentiation, is not converted.)
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

#define TRY(x)                                                                 \
  do {                                                                         \
    if (!(x))                                                                  \
      return failure();                                                        \
  } while (false)

Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// The inputs of an optimizer with `groups` groups of tensors after R and T
/// (X, G, and the `groups - 2` states): checks them and sets `count`, the
/// number of tensors optimized.
LogicalResult readOptimizerInputs(NodeImporter &n, unsigned groups,
                                  unsigned &count) {
  StringRef op = n.opType();
  unsigned inputs = n.numInputs();
  if (inputs < 2 + groups || (inputs - 2) % groups != 0)
    return n.fail(op + " needs R, T and " + Twine(groups) +
                  " tensors per optimized tensor; it has " + Twine(inputs) +
                  " inputs");
  count = (inputs - 2) / groups;
  if (n.numOutputs() > (groups - 1) * count)
    return n.fail(op + " has " + Twine(n.numOutputs()) + " outputs for " +
                  Twine(count) + " optimized tensors; at most " +
                  Twine((groups - 1) * count));
  for (unsigned i = 0; i < inputs; ++i)
    if (!n.has(i))
      return n.fail(op + "'s input " + Twine(i) + " is missing");
  for (unsigned i : {0u, 1u})
    if (n.inType(i).getNumElements() != 1)
      return n.fail(op + "'s " + (i == 0 ? "R" : "T") +
                    " must be one value (a scalar)");
  if (!isa<FloatType>(elemOf(n.in(0))))
    return n.fail(op + "'s learning rate R must be a float");
  if (!elemOf(n.in(1)).isInteger(64))
    return n.fail(op + "'s step count T must be int64");
  for (unsigned k = 0; k < count; ++k) {
    Value x = n.in(2 + k);
    if (!isa<FloatType>(elemOf(x)))
      return n.fail(op + " optimizes float tensors; input " + Twine(2 + k) +
                    " is not one");
    for (unsigned g = 1; g < groups; ++g) {
      Value other = n.in(2 + g * count + k);
      if (other.getType() != x.getType())
        return n.fail(op + "'s input " + Twine(2 + g * count + k) +
                      " does not have the type of the tensor it belongs to "
                      "(input " +
                      Twine(2 + k) + ")");
    }
  }
  return success();
}

/// The compute type of `x` (f16 and bf16 in f32).
Type computeType(NodeImporter &n, Value x) {
  Type t = elemOf(x);
  return t.isF16() || t.isBF16() ? Float32Type::get(n.ctx) : t;
}

/// A scalar input as a rank-0 value of type `t`.
Value scalarIn(NodeImporter &n, unsigned i, Type t) {
  return n.reshape(n.cast(n.in(i), t), {});
}

/// Sets output `i` to `v` in `like`'s type when the node has that output.
void setOutputAs(NodeImporter &n, unsigned i, Value v, Value like) {
  if (i < n.numOutputs())
    n.setOut(i, n.cast(v, elemOf(like)));
}

LogicalResult convertAdagrad(NodeImporter &n) {
  if (failed(n.checkAttrs({"decay_factor", "epsilon", "norm_coefficient"})))
    return failure();
  unsigned count;
  if (failed(readOptimizerInputs(n, 3, count)))
    return failure();
  double decay = n.attrFloat("decay_factor", 0.0),
         eps = n.attrFloat("epsilon", 1e-6),
         norm = n.attrFloat("norm_coefficient", 0.0);
  for (unsigned k = 0; k < count; ++k) {
    Value x0 = n.in(2 + k);
    Type c = computeType(n, x0);
    Value r = scalarIn(n, 0, c), t = scalarIn(n, 1, c);
    Value x = n.cast(x0, c), g = n.cast(n.in(2 + count + k), c),
          h = n.cast(n.in(2 + 2 * count + k), c);
    // r / (1 + t * decay); g + norm * x; h + g^2; x - r' g / (sqrt(h') + eps)
    Value rate = n.create<DivOp>(
        r, n.create<AddOp>(n.scalar(c, 1),
                           n.create<MulOp>(t, n.scalar(c, decay))));
    Value greg = n.create<AddOp>(n.create<MulOp>(x, n.scalar(c, norm)), g);
    TRY(rate && greg);
    Value hNew = n.create<AddOp>(h, n.create<MulOp>(greg, greg));
    TRY(hNew);
    Value denom = n.create<AddOp>(n.make<SqrtOp>(hNew), n.scalar(c, eps));
    Value xNew =
        n.create<SubOp>(x, n.create<DivOp>(n.create<MulOp>(rate, greg), denom));
    TRY(xNew);
    setOutputAs(n, k, xNew, x0);
    setOutputAs(n, count + k, hNew, x0);
  }
  return success();
}

LogicalResult convertMomentum(NodeImporter &n) {
  if (failed(n.checkAttrs({"alpha", "beta", "mode", "norm_coefficient"})))
    return failure();
  for (StringRef a : {"alpha", "beta", "mode", "norm_coefficient"})
    if (!n.attr(a))
      return n.fail("Momentum needs the attribute '" + a + "'");
  std::string mode = n.attrString("mode", "");
  if (mode != "standard" && mode != "nesterov")
    return n.fail("Momentum's mode '" + mode +
                  "' is not one of standard, nesterov");
  unsigned count;
  if (failed(readOptimizerInputs(n, 3, count)))
    return failure();
  double alpha = n.attrFloat("alpha", 0), beta = n.attrFloat("beta", 0),
         norm = n.attrFloat("norm_coefficient", 0);
  for (unsigned k = 0; k < count; ++k) {
    Value x0 = n.in(2 + k);
    Type c = computeType(n, x0);
    Value r = scalarIn(n, 0, c), t = scalarIn(n, 1, c);
    Value x = n.cast(x0, c), g = n.cast(n.in(2 + count + k), c),
          v = n.cast(n.in(2 + 2 * count + k), c);
    // The gradient's coefficient is 1 at the first step (T = 0).
    Value first = n.create<CmpOp>(CmpPredicate::gt, t, n.scalar(c, 0));
    Value b = n.create<SelectOp>(first, n.scalar(c, beta), n.scalar(c, 1));
    Value greg = n.create<AddOp>(n.create<MulOp>(x, n.scalar(c, norm)), g);
    TRY(b && greg);
    Value vNew = n.create<AddOp>(n.create<MulOp>(v, n.scalar(c, alpha)),
                                 n.create<MulOp>(greg, b));
    TRY(vNew);
    Value step =
        mode == "standard"
            ? vNew
            : n.create<AddOp>(greg, n.create<MulOp>(vNew, n.scalar(c, alpha)));
    Value xNew = n.create<SubOp>(x, n.create<MulOp>(step, r));
    TRY(xNew);
    setOutputAs(n, k, xNew, x0);
    setOutputAs(n, count + k, vNew, x0);
  }
  return success();
}

LogicalResult convertAdam(NodeImporter &n) {
  if (failed(n.checkAttrs({"alpha", "beta", "epsilon", "norm_coefficient",
                           "norm_coefficient_post"})))
    return failure();
  unsigned count;
  if (failed(readOptimizerInputs(n, 4, count)))
    return failure();
  double alpha = n.attrFloat("alpha", 0.9), beta = n.attrFloat("beta", 0.999),
         eps = n.attrFloat("epsilon", 1e-6),
         norm = n.attrFloat("norm_coefficient", 0.0),
         post = n.attrFloat("norm_coefficient_post", 0.0);
  for (unsigned k = 0; k < count; ++k) {
    Value x0 = n.in(2 + k);
    Type c = computeType(n, x0);
    Value r = scalarIn(n, 0, c), t = scalarIn(n, 1, c);
    Value x = n.cast(x0, c), g = n.cast(n.in(2 + count + k), c),
          v = n.cast(n.in(2 + 2 * count + k), c),
          h = n.cast(n.in(2 + 3 * count + k), c);
    Value greg = n.create<AddOp>(n.create<MulOp>(x, n.scalar(c, norm)), g);
    TRY(greg);
    Value vNew = n.create<AddOp>(n.create<MulOp>(v, n.scalar(c, alpha)),
                                 n.create<MulOp>(greg, n.scalar(c, 1 - alpha)));
    Value hNew = n.create<AddOp>(
        n.create<MulOp>(h, n.scalar(c, beta)),
        n.create<MulOp>(n.create<MulOp>(greg, greg), n.scalar(c, 1 - beta)));
    TRY(vNew && hNew);
    // Bias correction after the first step: r sqrt(1 - beta^T) / (1 -
    // alpha^T).
    Value corrected = n.create<DivOp>(
        n.create<MulOp>(
            r, n.make<SqrtOp>(n.create<SubOp>(
                   n.scalar(c, 1), n.create<PowOp>(n.scalar(c, beta), t)))),
        n.create<SubOp>(n.scalar(c, 1),
                        n.create<PowOp>(n.scalar(c, alpha), t)));
    Value later = n.create<CmpOp>(CmpPredicate::gt, t, n.scalar(c, 0));
    Value rate = n.create<SelectOp>(later, corrected, r);
    TRY(rate);
    Value denom = n.create<AddOp>(n.make<SqrtOp>(hNew), n.scalar(c, eps));
    Value xNew =
        n.create<SubOp>(x, n.create<MulOp>(rate, n.create<DivOp>(vNew, denom)));
    TRY(xNew);
    xNew = n.create<MulOp>(xNew, n.scalar(c, 1 - post));
    TRY(xNew);
    setOutputAs(n, k, xNew, x0);
    setOutputAs(n, count + k, vNew, x0);
    setOutputAs(n, 2 * count + k, hNew, x0);
  }
  return success();
}

} // namespace

void onnx_import::addTrainingConverters(llvm::StringMap<Converter> &table) {
  table["ai.onnx.preview.training:Adagrad"] = convertAdagrad;
  table["ai.onnx.preview.training:Momentum"] = convertMomentum;
  table["ai.onnx.preview.training:Adam"] = convertAdam;
}
