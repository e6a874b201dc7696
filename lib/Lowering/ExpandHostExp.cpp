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
/// e^r = 1 + r * (1 + r * (1/2 + r * (...))) on [-ln(2)/2, ln(2)/2]: the
/// coefficients of r^7 ... r^2 are Cephes' expf ones.
constexpr float kP[] = {1.9875691500e-4f,
                        1.3981999507e-3f,
                        8.3334519073e-3f,
                        4.1665795894e-2f,
                        1.6666665459e-1f,
                        5.0000001201e-1f,
                        1.0f,
                        1.0f};
/// Beyond these, e^x is 0 (below e^-103.97, half the smallest subnormal) or
/// inf (above 88.73); inside them k stays in [-150, 129].
constexpr float kLowest = -104.0f;
constexpr float kHighest = 89.0f;
/// 1.5 * 2^23: adding it rounds a float of magnitude below 2^22 to an
/// integer (to nearest, ties to even) held in the low mantissa bits.
constexpr float kRound = 12582912.0f;

Value expandExp(ImplicitLocOpBuilder &b, Value x, bool ldexp) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  auto f = [&](float v) -> Value {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  };
  auto i = [&](int32_t v) -> Value {
    return arith::ConstantOp::create(b, b.getI32IntegerAttr(v));
  };
  // Clamped with ordered compares and selects, which keep a NaN: it goes
  // through every step below as a NaN (no float-to-integer conversion sees
  // it), so the result is NaN.
  Value low = f(kLowest), high = f(kHighest);
  Value xc = arith::SelectOp::create(
      b, arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x, low), low, x);
  xc = arith::SelectOp::create(
      b, arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, xc, high), high,
      xc);
  // k = round(x * log2(e)), as a float and in the bits of `shifted`.
  Value round = f(kRound);
  Value shifted = math::FmaOp::create(b, xc, f(kLog2E), round);
  Value k = arith::SubFOp::create(b, shifted, round);
  Value r = math::FmaOp::create(b, k, f(-kLn2Hi), xc);
  r = math::FmaOp::create(b, k, f(-kLn2Lo), r);
  Value p = f(kP[0]);
  for (float c : ArrayRef<float>(kP).drop_front())
    p = math::FmaOp::create(b, p, r, f(c));
  Value ki = arith::SubIOp::create(b, arith::BitcastOp::create(b, i32, shifted),
                                   arith::BitcastOp::create(b, i32, round));
  // p * 2^k: one VSCALEFPS where the CPU has AVX-512 (exact, subnormal
  // results rounded once); elsewhere two normal powers of two built from
  // the bits, 2^(k >> 1) and 2^(k - (k >> 1)), since one would not reach
  // the subnormal range.
  if (ldexp)
    return LLVM::CallIntrinsicOp::create(
               b, f32, b.getStringAttr("llvm.ldexp.f32.i32"), ValueRange{p, ki})
        .getResult(0);
  Value k1 = arith::ShRSIOp::create(b, ki, i(1));
  Value k2 = arith::SubIOp::create(b, ki, k1);
  auto pow2 = [&](Value e) -> Value {
    Value biased = arith::AddIOp::create(b, e, i(127));
    return arith::BitcastOp::create(b, f32,
                                    arith::ShLIOp::create(b, biased, i(23)));
  };
  return arith::MulFOp::create(b, arith::MulFOp::create(b, p, pow2(k1)),
                               pow2(k2));
}

struct ExpandHostExpPass
    : public tide::impl::ExpandHostExpPassBase<ExpandHostExpPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<math::ExpOp> exps;
    getOperation()->walk([&](math::ExpOp op) {
      if (op->getParentOfType<gpu::GPUModuleOp>() ||
          op->getParentOfType<gpu::LaunchOp>())
        return; // GPU code calls libdevice (ex2.approx-based __nv_expf).
      if (op.getType().isF32())
        exps.push_back(op);
    });
    for (math::ExpOp op : exps) {
      ImplicitLocOpBuilder b(op.getLoc(), op);
      Value y = expandExp(b, op.getOperand(), ldexp);
      op.replaceAllUsesWith(y);
      op.erase();
    }
  }
};

} // namespace
