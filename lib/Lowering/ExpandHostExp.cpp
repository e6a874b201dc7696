//===- ExpandHostExp.cpp - Host f32 exponentials computed inline ----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::tide {
#define GEN_PASS_DEF_EXPANDHOSTEXPPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;

namespace {

/// ln(2) in two parts: the high one exact in 9 bits, so that k * high is
/// exact for |k| < 2^15 (Cody and Waite).
constexpr float kLog2E = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
/// e^r = 1 + r * (1 + r * (c2 + r * (...))) on [-ln(2)/2, ln(2)/2], for
/// exp: the coefficients of r^6 ... r^2 minimize the largest relative error
/// (Lawson's iteration over 20001 points, 3.1e-9: 0.05 of half an ulp),
/// one FMA fewer than Cephes' degree 7.
constexpr float kExpP[] = {1.3814592966809869e-3f,
                           8.3687081933021545e-3f,
                           4.1668388992547989e-2f,
                           1.6666521131992340e-1f,
                           4.9999994039535522e-1f,
                           1.0f,
                           1.0f};
/// The same for expm1, Cephes' expf coefficients of r^7 ... r^2: its first
/// six give q(r) = (e^r - 1 - r) / r^2, which expm1 keeps apart from r.
constexpr float kP[] = {1.9875691500e-4f,
                        1.3981999507e-3f,
                        8.3334519073e-3f,
                        4.1665795894e-2f,
                        1.6666665459e-1f,
                        5.0000001201e-1f,
                        1.0f,
                        1.0f};
/// The same steps for f64 exp: ln(2) as fdlibm splits it (the high part's
/// low 32 bits zero, so k * high is exact for every k here), and e^r by its
/// Taylor polynomial of degree 13 (the first term left out, 1/14! r^14, is
/// below 4e-18 of e^r on [-ln(2)/2, ln(2)/2]), 13 FMAs. Below ln(2^-1075)
/// e^x rounds to 0; from 710 on, k = 1024 and the scaling gives inf.
constexpr double kLog2E64 = 1.4426950408889634;
constexpr double kLn2Hi64 = 6.93147180369123816490e-01;
constexpr double kLn2Lo64 = 1.90821492927058770002e-10;
constexpr double kExpP64[] = {1.0 / 6227020800.0,
                              1.0 / 479001600.0,
                              1.0 / 39916800.0,
                              1.0 / 3628800.0,
                              1.0 / 362880.0,
                              1.0 / 40320.0,
                              1.0 / 5040.0,
                              1.0 / 720.0,
                              1.0 / 120.0,
                              1.0 / 24.0,
                              1.0 / 6.0,
                              0.5,
                              1.0,
                              1.0};
constexpr double kZeroBelow64 = -745.13321910194110842;
constexpr double kHighest64 = 710.0;
/// 1.5 * 2^52.
constexpr double kRound64 = 6755399441055744.0;

/// Below kZeroBelow (the float nearest ln(2^-150), half the smallest
/// subnormal), e^x rounds to 0; above kHighest it is inf. In between, k
/// stays in [-150, 129].
constexpr float kZeroBelow = -103.972076416015625f;
constexpr float kHighest = 89.0f;
/// Below this, e^x is under half an ulp of 1: e^x - 1 rounds to -1.
constexpr float kMinusOneBelow = -18.0f;
/// 1.5 * 2^23: adding it rounds a float of magnitude below 2^22 to an
/// integer (to nearest, ties to even) held in the low mantissa bits.
constexpr float kRound = 12582912.0f;

/// The steps exp and expm1 share: x clamped above, k = round(x * log2(e))
/// (as an integer, read from the bits of x * log2(e) + 1.5 * 2^23: no
/// float-to-integer conversion sees a NaN), and r = x - k * ln(2) in
/// [-ln(2)/2, ln(2)/2].
struct Reduced {
  Value r, k;
};

class Expander {
public:
  /// Computes in `type`, f32 or f64 (f64: exp only), or vectors of them
  /// (the loops tide-stream-stores vectorizes).
  Expander(ImplicitLocOpBuilder &b, Type type, bool ldexp)
      : b(b), type(type), element(cast<FloatType>(getElementTypeOrSelf(type))),
        ldexp(ldexp) {}

  Value f(double v) { return constant(b.getFloatAttr(element, v), type); }
  Value i(int64_t v) {
    Type scalar = wide() ? b.getI64Type() : b.getI32Type();
    return constant(b.getIntegerAttr(scalar, v), intType());
  }

  /// Lanes where x < `bound` (their result is the constant `value`, 0 or
  /// -1) compute from 0 instead: a vector loop computes every lane, and a
  /// lane whose steps underflowed (e^-1000 through subnormal powers of two)
  /// would cost a microcode assist of about a hundred cycles on x86, for a
  /// result known in advance (a softmax row far below its maximum, ELU of
  /// large negative inputs: measured 1.2 ms against 0.15 for a 2048x10
  /// softmax and log-softmax with such rows). Ordered compares keep a NaN.
  struct Split {
    Value below, x;
  };
  Split splitBelow(Value x, float bound) {
    Value below =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x, f(bound));
    return {below, arith::SelectOp::create(b, below, f(0.0f), x)};
  }

  Reduced reduce(Value x) {
    // Clamped with an ordered compare and a select, which keep a NaN: it
    // goes through every step as a NaN, so the result is NaN.
    Value high = f(wide() ? kHighest64 : kHighest);
    Value xc = arith::SelectOp::create(
        b, arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, x, high), high,
        x);
    Value round = f(wide() ? kRound64 : kRound);
    Value shifted =
        math::FmaOp::create(b, xc, f(wide() ? kLog2E64 : kLog2E), round);
    Value k = arith::SubFOp::create(b, shifted, round);
    Value r = math::FmaOp::create(b, k, f(wide() ? -kLn2Hi64 : -kLn2Hi), xc);
    r = math::FmaOp::create(b, k, f(wide() ? -kLn2Lo64 : -kLn2Lo), r);
    Value ki = arith::SubIOp::create(
        b, arith::BitcastOp::create(b, intType(), shifted),
        arith::BitcastOp::create(b, intType(), round));
    return {r, ki};
  }

  /// The polynomial of `coefficients` (the highest degree first), Horner
  /// form.
  template <typename T>
  Value polynomial(Value r, ArrayRef<T> coefficients) {
    Value p = f(coefficients.front());
    for (T c : coefficients.drop_front())
      p = math::FmaOp::create(b, p, r, f(c));
    return p;
  }

  /// p * 2^k for k in [-150, 129]: one VSCALEFPS where the CPU has AVX-512
  /// (exact, subnormal results rounded once); elsewhere two normal powers
  /// of two built from the bits, 2^(k >> 1) and 2^(k - (k >> 1)), since one
  /// would not reach the subnormal range.
  Value scale(Value p, Value k) {
    if (ldexp) {
      // llvm.ldexp takes an i32 exponent (k is in [-1075, 1024] for f64).
      if (wide())
        k = arith::TruncIOp::create(b, like(b.getI32Type()), k);
      std::string name = wide() ? "llvm.ldexp.f64.i32" : "llvm.ldexp.f32.i32";
      if (auto vector = dyn_cast<VectorType>(type)) {
        std::string lanes = "v" + std::to_string(vector.getNumElements());
        name =
            "llvm.ldexp." + lanes + (wide() ? "f64." : "f32.") + lanes + "i32";
      }
      return LLVM::CallIntrinsicOp::create(b, type, b.getStringAttr(name),
                                           ValueRange{p, k})
          .getResult(0);
    }
    Value k1 = arith::ShRSIOp::create(b, k, i(1));
    Value k2 = arith::SubIOp::create(b, k, k1);
    return arith::MulFOp::create(b, arith::MulFOp::create(b, p, pow2(k1)),
                                 pow2(k2));
  }

  /// 2^e for e in [-126, 127] (f64: [-1022, 1023]), from the bits.
  Value pow2(Value e) {
    Value biased = arith::AddIOp::create(b, e, i(wide() ? 1023 : 127));
    return arith::BitcastOp::create(
        b, type, arith::ShLIOp::create(b, biased, i(wide() ? 52 : 23)));
  }

  /// Lanes kept are those not below kZeroBelow (an unordered compare: a NaN
  /// is kept), so that the selects take the kept value where the mask is
  /// set: with AVX-512 the result's becomes a zero-masked VSCALEFPS (two
  /// vector instructions fewer a vector than selecting 0 where the lane is
  /// below: 6% of a 4096x1000 softmax, with the shorter polynomial), and the
  /// input needs none (3-4% more).
  Value exp(Value x) {
    Value keep = arith::CmpFOp::create(b, arith::CmpFPredicate::UGE, x,
                                       f(wide() ? kZeroBelow64 : kZeroBelow));
    // (With VSCALEFPS the dropped lanes need no zeroed input: the
    // reduction and the polynomial stay normal whatever x, and the one step
    // that could go subnormal, the scaling, is masked.)
    Reduced red =
        reduce(ldexp ? x : arith::SelectOp::create(b, keep, x, f(0.0f)));
    Value p = wide() ? polynomial(red.r, ArrayRef<double>(kExpP64))
                     : polynomial(red.r, ArrayRef<float>(kExpP));
    Value y = scale(p, red.k);
    return arith::SelectOp::create(b, keep, y, f(0.0f));
  }

  /// e^x - 1 = 2^k (e^r - 1) + (2^k - 1): for k in [-25, 24], one FMA whose
  /// addend 2^k - 1 is exact (-1 once 2^k is below half an ulp of 1), so
  /// the result keeps its digits near 0 (e^r - 1 = r + r^2 q(r) is never
  /// computed as a difference); above, (e^r - 1 + 1) 2^k - 1, where the
  /// -1 no longer matters. -0 stays -0.
  Value expm1(Value x) {
    Split split = splitBelow(x, kMinusOneBelow);
    Reduced red = reduce(split.x);
    Value q = polynomial(red.r, ArrayRef<float>(kP).drop_back(2));
    Value em1r = math::FmaOp::create(
        b, q, arith::MulFOp::create(b, red.r, red.r), red.r);
    Value kSmall = arith::MinSIOp::create(
        b, arith::MaxSIOp::create(b, red.k, i(-25)), i(24));
    Value t = pow2(kSmall);
    Value small =
        math::FmaOp::create(b, t, em1r, arith::SubFOp::create(b, t, f(1.0f)));
    Value large = arith::SubFOp::create(
        b, scale(arith::AddFOp::create(b, em1r, f(1.0f)), red.k), f(1.0f));
    Value y = arith::SelectOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, red.k, i(24)),
        large, small);
    y = arith::SelectOp::create(b, split.below, f(-1.0f), y);
    Value zero = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, x, f(0));
    return arith::SelectOp::create(b, zero, x, y);
  }

private:
  bool wide() const { return element.isF64(); }
  /// `scalar` in the shape of `type` (itself for scalars).
  Type like(Type scalar) {
    if (auto vector = dyn_cast<VectorType>(type))
      return vector.clone(scalar);
    return scalar;
  }
  Type intType() { return like(wide() ? b.getI64Type() : b.getI32Type()); }
  /// `value` as a constant of `shape` (a splat for vectors).
  Value constant(TypedAttr value, Type shape) {
    if (auto vector = dyn_cast<VectorType>(shape))
      return arith::ConstantOp::create(
          b, DenseElementsAttr::get(vector, cast<Attribute>(value)));
    return arith::ConstantOp::create(b, value);
  }

  ImplicitLocOpBuilder &b;
  Type type;
  FloatType element;
  bool ldexp;
};

struct ExpandHostExpPass
    : public tide::impl::ExpandHostExpPassBase<ExpandHostExpPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      // f32 exp and expm1, f64 exp with `f64` (f64 expm1 stays libm's).
      Type type = isa<math::ExpOp, math::ExpM1Op>(op)
                      ? getElementTypeOrSelf(op->getResult(0).getType())
                      : Type();
      if (!type ||
          !(type.isF32() || (f64 && type.isF64() && isa<math::ExpOp>(op))))
        return;
      auto vector = dyn_cast<VectorType>(op->getResult(0).getType());
      if (vector && (vector.getRank() != 1 || vector.isScalable()))
        return;
      if (op->getParentOfType<gpu::GPUModuleOp>() ||
          op->getParentOfType<gpu::LaunchOp>())
        return; // GPU code calls libdevice (__nv_expf, __nv_expm1f).
      ops.push_back(op);
    });
    for (Operation *op : ops) {
      ImplicitLocOpBuilder b(op->getLoc(), op);
      Expander expand(b, op->getResult(0).getType(), ldexp);
      Value y = isa<math::ExpOp>(op) ? expand.exp(op->getOperand(0))
                                     : expand.expm1(op->getOperand(0));
      op->getResult(0).replaceAllUsesWith(y);
      op->erase();
    }
  }
};

} // namespace
