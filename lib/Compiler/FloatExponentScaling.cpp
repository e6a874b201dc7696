//===- FloatExponentScaling.cpp - VSCALEF with the exponent as a float ----===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// tide-expand-host-exp computes e^x as p * 2^k, k = round(x log2(e)) read
// from the bits of s = x log2(e) + R (R = 1.5 * 2^23, or 1.5 * 2^52 for
// f64): k = bits(s) - bits(R), exact while s stays in R's binade. With
// AVX-512 the scale is llvm.ldexp, which x86 lowers to VSCALEFPS after
// converting the integer exponent back to a float (VCVTDQ2PS): VSCALEF takes
// its exponent as a float. That float is s - R, which the reduction has
// already computed. Here, after LLVM's vectorizers, each vector ldexp whose
// exponent is bits(s) - bits(R) becomes VSCALEF of s - R: two vector
// instructions fewer per vector of exponentials (the integer subtraction and
// the conversion), out of about 16.
//
// The two agree wherever s is in R's binade (|x log2(e)| < 2^22), the range
// the expansion keeps its lanes in: it clamps x above and discards the lanes
// below its zero bound, the only ones that could leave it. LLVM itself cannot
// do this: it would have to know that k is an integer-valued float.
//
//===----------------------------------------------------------------------===//

#include "tide/Compiler/Compile.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace {

/// 1.5 * 2^(mantissa bits): adding it rounds to an integer held in the low
/// mantissa bits.
APFloat roundingConstant(Type *element) {
  return element->isFloatTy() ? APFloat(12582912.0f)
                              : APFloat(6755399441055744.0);
}

/// Whether `s` is fma(a, b, R) (or fmuladd): the expansion's rounding step.
bool isRoundedProduct(Value *s, Type *element) {
  auto *call = dyn_cast<IntrinsicInst>(s);
  if (!call || (call->getIntrinsicID() != Intrinsic::fma &&
                call->getIntrinsicID() != Intrinsic::fmuladd))
    return false;
  const APFloat *addend;
  return match(call->getArgOperand(2), m_APFloat(addend)) &&
         addend->bitwiseIsEqual(roundingConstant(element));
}

/// The s of an exponent `e` computed as bits(s) - bits(R), in the forms
/// InstCombine leaves: add of -bits(R) or sub of bits(R), with truncations
/// (f64: the exponent is i32, and bits(R)'s low 32 bits are 0, so the
/// subtraction may be gone); null if `e` is not such an exponent.
Value *roundedSource(Value *e) {
  Value *v = e;
  unsigned width =
      cast<VectorType>(e->getType())->getElementType()->getIntegerBitWidth();
  APInt offset(width, 0); // What was added to the (truncated) bits.
  match(v, m_Trunc(m_Value(v)));
  const APInt *c;
  Value *inner;
  if (match(v, m_Add(m_Value(inner), m_APInt(c)))) {
    offset = c->trunc(width);
    v = inner;
  } else if (match(v, m_Sub(m_Value(inner), m_APInt(c)))) {
    offset = -c->trunc(width);
    v = inner;
  }
  match(v, m_Trunc(m_Value(v)));
  Value *s;
  if (!match(v, m_BitCast(m_Value(s))) || !s->getType()->isVectorTy())
    return nullptr;
  Type *element = cast<VectorType>(s->getType())->getElementType();
  if (!element->isFloatTy() && !element->isDoubleTy())
    return nullptr;
  APInt rounding = roundingConstant(element).bitcastToAPInt().trunc(width);
  if (offset != -rounding || !isRoundedProduct(s, element))
    return nullptr;
  return s;
}

/// The AVX-512 VSCALEF intrinsic for `type`, and whether it takes a rounding
/// operand; not_intrinsic where there is none (or it needs AVX512VL and the
/// CPU has not).
std::pair<Intrinsic::ID, bool> scalefFor(FixedVectorType *type, bool vl) {
  bool f32 = type->getElementType()->isFloatTy();
  unsigned lanes = type->getNumElements();
  if (lanes * type->getScalarSizeInBits() == 512)
    return {f32 ? Intrinsic::x86_avx512_mask_scalef_ps_512
                : Intrinsic::x86_avx512_mask_scalef_pd_512,
            true};
  if (!vl)
    return {Intrinsic::not_intrinsic, false};
  if (lanes * type->getScalarSizeInBits() == 256)
    return {f32 ? Intrinsic::x86_avx512_mask_scalef_ps_256
                : Intrinsic::x86_avx512_mask_scalef_pd_256,
            false};
  if (lanes * type->getScalarSizeInBits() == 128)
    return {f32 ? Intrinsic::x86_avx512_mask_scalef_ps_128
                : Intrinsic::x86_avx512_mask_scalef_pd_128,
            false};
  return {Intrinsic::not_intrinsic, false};
}

unsigned rewriteScales(Module &module, bool avx512vl) {
  SmallVector<IntrinsicInst *> calls;
  for (Function &f : module)
    for (Instruction &inst : instructions(f))
      if (auto *call = dyn_cast<IntrinsicInst>(&inst))
        if (call->getIntrinsicID() == Intrinsic::ldexp &&
            isa<FixedVectorType>(call->getType()))
          calls.push_back(call);
  unsigned rewritten = 0;
  for (IntrinsicInst *call : calls) {
    auto *type = cast<FixedVectorType>(call->getType());
    auto [id, rounding] = scalefFor(type, avx512vl);
    Value *s = roundedSource(call->getArgOperand(1));
    if (id == Intrinsic::not_intrinsic || !s || s->getType() != type)
      continue;
    IRBuilder<> b(call);
    Value *k = b.CreateFSub(
        s, ConstantFP::get(type, roundingConstant(type->getElementType())));
    SmallVector<Value *> args = {
        call->getArgOperand(0), k, Constant::getNullValue(type),
        b.getIntN(std::max(8u, unsigned(type->getNumElements())), -1)};
    if (rounding)
      args.push_back(b.getInt32(4)); // The current rounding direction.
    Value *scaled = b.CreateIntrinsic(id, {}, args);
    call->replaceAllUsesWith(scaled);
    call->eraseFromParent();
    ++rewritten;
  }
  return rewritten;
}

} // namespace

unsigned mlir::tide::scaleByFloatExponents(llvm::Module &module,
                                           bool avx512vl) {
  return rewriteScales(module, avx512vl);
}
