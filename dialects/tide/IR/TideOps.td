//===- TideOps.td - Tide operations --------------------------*- tablegen -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_IR_TIDEOPS_TD
#define TIDE_IR_TIDEOPS_TD

include "tide/IR/TideBase.td"
include "tide/IR/TideInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// Type inference with one error per mistake. InferTypeOpInterface's own
// verifier runs late (with the region traits) and follows any failure with a
// generic "failed to infer returned types"; Tide_InferTypeFirst (TideOps.h)
// runs the same inference earlier, with the other traits, so an op whose
// types cannot be inferred fails there with only its own message (mixed
// element types, shapes that do not broadcast, ...).
def Tide_InferTypeFirst : NativeOpTrait<"InferTypeFirstTrait"> {
  let cppNamespace = "::mlir::tide";
}
def Tide_InferTypeOpAdaptor
    : TraitList<[InferTypeOpAdaptor, Tide_InferTypeFirst]>;

// Every tide op is pure and declares its facts (`Tide_Facts`, see
// TideInterfaces.td) among its traits.
class Tide_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tide_Dialect, mnemonic,
         !listconcat(traits, [Pure, Tide_OpFactsInterface])>;

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

def Tide_ConstantOp : Tide_Op<"constant", [ConstantLike,
    Tide_Facts<"Constant", "Constant", "Any", 0>]> {
  let summary = "A tensor constant";
  let description = [{
    Produces a tensor whose elements are given by a dense elements attribute.

    ```mlir
    %c = tide.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tide_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

// `kind` names the ElementKind the op accepts (see TideOps.h).
// `flops` is the arithmetic per element the cost model assumes
// (transcendentals are polynomial evaluations of roughly that many
// operations).
// `notes` is appended to the description (edge cases, conventions).
class Tide_UnaryOp<string mnemonic, string kind, string what,
                   list<Trait> traits = [], int flops = 1, string notes = "">
    : Tide_Op<mnemonic, !listconcat(traits, [SameOperandsAndResultType,
          Tide_Facts<"Unary", "Elementwise", kind, flops>])> {
  let summary = "Elementwise " # what;
  let description = [{
    Applies }] # what # [{ to every element. Accepts }] # kind # [{ element
    types; the result has the operand's type.}] # notes # [{

    ```mlir
    %y = tide.}] # mnemonic # [{ %x : tensor<4x?xf32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::tide::verifyElementKind(
          getOperation(), getInput().getType(),
          ::mlir::tide::ElementKind::}] # kind # [{);
    }
  }];
}

def Tide_NegOp : Tide_UnaryOp<"neg", "Numeric", "negation", [], 1, [{
    Integers wrap: the negation of an unsigned `x` is `2^N - x` (NumPy's
    `negative` on unsigned arrays).}]> { let hasFolder = 1; }
def Tide_AbsOp : Tide_UnaryOp<"abs", "Numeric", "absolute value", [], 1, [{
    On unsigned integers it is the identity.}]> { let hasFolder = 1; }
// The transcendental functions' FLOPs per element, as the cost model counts
// them, are relative to exp's 10: the time of Tide's CPU loop over 16384 f32
// in cache on one thread, less a negation's (2.0 us), on the AVX-512 build
// machine: exp 2.8 us, log 3.0, sin 3.5, cos 3.3, cosh 3.9, tanh 4.2,
// sigmoid 4.5, sinh 5.0, asin 5.4, acos 5.6, tan and atan 6.3, atanh 8.2,
// erf 9.6, asinh 13.2 (acosh: the same as asinh's form, not measurable on
// the inputs below 1 that were used).
def Tide_ExpOp : Tide_UnaryOp<"exp", "Float", "the exponential e^x", [], 10> { let hasFolder = 1; }
def Tide_LogOp : Tide_UnaryOp<"log", "Float", "the natural logarithm", [], 11>;
def Tide_SqrtOp : Tide_UnaryOp<"sqrt", "Float", "the square root", [], 4> { let hasFolder = 1; }
def Tide_RsqrtOp : Tide_UnaryOp<"rsqrt", "Float", "the reciprocal square root", [], 4>;
def Tide_TanhOp : Tide_UnaryOp<"tanh", "Float", "the hyperbolic tangent", [], 15>;
def Tide_SigmoidOp : Tide_UnaryOp<"sigmoid", "Float", "the logistic sigmoid 1/(1+e^-x)", [], 16>;
def Tide_ReluOp : Tide_UnaryOp<"relu", "Numeric", "the rectifier max(x, 0)", [], 1, [{
    On unsigned integers it is the identity.}]> { let hasFolder = 1; }
def Tide_FloorOp : Tide_UnaryOp<"floor", "Float", "rounding toward -inf"> { let hasFolder = 1; }
def Tide_CeilOp : Tide_UnaryOp<"ceil", "Float", "rounding toward +inf"> { let hasFolder = 1; }
def Tide_RoundOp : Tide_UnaryOp<"round", "Float", "rounding to the nearest integer, halves to even">;
def Tide_SinOp : Tide_UnaryOp<"sin", "Float", "the sine", [], 12>;
def Tide_CosOp : Tide_UnaryOp<"cos", "Float", "the cosine", [], 12>;
def Tide_ErfOp : Tide_UnaryOp<"erf", "Float", "the error function", [], 34>;
// Inverse and hyperbolic trigonometry: libm on the CPU, libdevice on the GPU
// (both correctly handle small arguments, e.g. sinh(x) ~ x, without
// cancellation).
def Tide_TanOp : Tide_UnaryOp<"tan", "Float", "the tangent", [], 22>;
def Tide_AsinOp : Tide_UnaryOp<"asin", "Float", "the arcsine", [], 19, [{
    Outside [-1, 1] the result is NaN.}]>;
def Tide_AcosOp : Tide_UnaryOp<"acos", "Float", "the arccosine", [], 20, [{
    Outside [-1, 1] the result is NaN.}]>;
def Tide_AtanOp : Tide_UnaryOp<"atan", "Float", "the arctangent", [], 22>;
def Tide_SinhOp : Tide_UnaryOp<"sinh", "Float", "the hyperbolic sine", [], 18>;
def Tide_CoshOp : Tide_UnaryOp<"cosh", "Float", "the hyperbolic cosine", [], 14>;
def Tide_AsinhOp : Tide_UnaryOp<"asinh", "Float", "the inverse hyperbolic sine", [], 47>;
def Tide_AcoshOp : Tide_UnaryOp<"acosh", "Float", "the inverse hyperbolic cosine", [], 47, [{
    Below 1 the result is NaN.}]>;
def Tide_AtanhOp : Tide_UnaryOp<"atanh", "Float", "the inverse hyperbolic tangent", [], 29, [{
    At -1 and 1 the result is -inf and +inf; outside [-1, 1] it is NaN.}]>;
def Tide_SignOp : Tide_UnaryOp<"sign", "Numeric", "the sign", [], 1, [{

    The result is -1 for negative elements, 1 for positive ones and 0 for
    zeros (a float `-0` gives `+0`); NaN stays NaN (as NumPy's `sign`). On
    unsigned integers it is 1 for non-zero elements and 0 for zeros.}]>;
def Tide_NotOp : Tide_UnaryOp<"not", "Integer", "logical (i1) or bitwise (iN) negation"> { let hasFolder = 1; }

def Tide_EluOp : Tide_Op<"elu", [SameOperandsAndResultType,
    Tide_Facts<"Unary", "Elementwise", "Float", 10>]> {
  let summary = "Elementwise exponential linear unit";
  let description = [{
    `x > 0 ? x : alpha * expm1(x)` elementwise, for floating-point
    tensors, where `expm1(x)` is `e^x - 1` computed without cancellation
    (accurate for `x` near 0, unlike `exp(x) - 1`). `alpha` defaults to 1.0.

    ```mlir
    %y = tide.elu %x alpha = 0.5 : tensor<256x256xf32>
    %z = tide.elu %x : tensor<256x256xf64>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = "$input (`alpha` `=` $alpha^)? attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Binary elementwise with NumPy broadcasting
//===----------------------------------------------------------------------===//

class Tide_BinaryOp<string mnemonic, string kind, string what,
                    list<Trait> traits = [], int flops = 1, string notes = "">
    : Tide_Op<mnemonic, !listconcat(traits, [Tide_InferTypeOpAdaptor,
          Tide_Facts<"Binary", "Elementwise", kind, flops>])> {
  let summary = "Elementwise " # what # " with NumPy broadcasting";
  let description = [{
    Computes }] # what # [{ elementwise. The operands must have the same
    element type (}] # kind # [{); their shapes broadcast by NumPy's rules
    (trailing dimensions are aligned; a dimension of 1 stretches). The result
    type is inferred. When both operands have the same type it is written
    once.}] # notes # [{

    ```mlir
    %z = tide.}] # mnemonic # [{ %x, %y : tensor<4x3xf32>
    %w = tide.}] # mnemonic # [{ %x, %b : tensor<4x3xf32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$lhs, Tide_Tensor:$rhs);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<OperandTypes>(type($lhs), type($rhs))
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tide::inferBroadcastResult(
          context, loc, "}] # mnemonic # [{", {adaptor.getLhs(), adaptor.getRhs()},
          ::mlir::tide::ElementKind::}] # kind # [{, /*boolResult=*/false, types);
    }
  }];
}

def Tide_AddOp : Tide_BinaryOp<"add", "Numeric", "addition", [Commutative]> { let hasFolder = 1; }
def Tide_SubOp : Tide_BinaryOp<"sub", "Numeric", "subtraction"> { let hasFolder = 1; }
def Tide_MulOp : Tide_BinaryOp<"mul", "Numeric", "multiplication", [Commutative]> { let hasFolder = 1; }
def Tide_DivOp : Tide_BinaryOp<"div", "Numeric", "division (truncating for integers; an integer division by 0 gives 0, and the minimum integer by -1 wraps)", [], 4, [{

    Unsigned integers divide as unsigned numbers.}]> { let hasFolder = 1; }
def Tide_PowOp : Tide_BinaryOp<"pow", "Float", "power x^y", [], 10>;
def Tide_MaximumOp : Tide_BinaryOp<"maximum", "Numeric", "maximum", [Commutative]> { let hasFolder = 1; }
def Tide_MinimumOp : Tide_BinaryOp<"minimum", "Numeric", "minimum", [Commutative]> { let hasFolder = 1; }
def Tide_AndOp : Tide_BinaryOp<"and", "Integer", "logical (i1) or bitwise (iN) and", [Commutative]> { let hasFolder = 1; }
def Tide_OrOp : Tide_BinaryOp<"or", "Integer", "logical (i1) or bitwise (iN) or", [Commutative]> { let hasFolder = 1; }
def Tide_XorOp : Tide_BinaryOp<"xor", "Integer", "logical (i1) or bitwise (iN) exclusive or", [Commutative]>;
def Tide_RemOp : Tide_BinaryOp<"rem", "Numeric", "truncated remainder", [], 4, [{

    `lhs - trunc(lhs / rhs) * rhs`, computed exactly: C's `fmod` for floats
    and `%` for integers, so a non-zero result has the sign of `lhs` (ONNX
    `Mod` with `fmod = 1`, NumPy's `fmod`). A float remainder by 0 is NaN;
    an integer remainder by 0 is 0 (as in NumPy; it never traps), and so is
    the minimum integer by -1. Unsigned integers take the unsigned
    remainder.}]>;
def Tide_ModOp : Tide_BinaryOp<"mod", "Numeric", "floored modulo", [], 4, [{

    `lhs - floor(lhs / rhs) * rhs`: Python's and NumPy's `%` (`np.mod`), so
    a non-zero result has the sign of `rhs` (ONNX `Mod` with `fmod = 0`).
    Floats follow NumPy: the truncated remainder, plus `rhs` when it is not
    zero and its sign differs from `rhs`'s; a zero result takes the sign of
    `rhs`; a modulo by 0 is NaN. An integer modulo by 0 is 0 (as in NumPy; it never traps).
    On unsigned integers it is the unsigned remainder (the same as `rem`).}]>;
def Tide_ShlOp : Tide_BinaryOp<"shl", "Integer", "left shift", [], 1, [{

    Shifts `lhs` left by `rhs` bits, zeros shifting in (the bits shifted
    out are lost: the result wraps). A shift amount that is negative or at
    least the bit width gives 0, the limit of shifting one bit at a time
    (ONNX `BitShift` with `direction = "LEFT"`).}]>;
def Tide_ShrOp : Tide_BinaryOp<"shr", "Integer", "logical right shift", [], 1, [{

    Shifts `lhs` right by `rhs` bits with zeros shifting in: the bits of
    `lhs` are read as an unsigned number, which is NumPy's `>>` on unsigned
    types and ONNX `BitShift` with `direction = "RIGHT"` (defined on
    `ui8`..`ui64`). On a signless `lhs` it is still logical: a negative
    `lhs` shifted by 1 or more becomes non-negative, `shr(-1 : i8, 1)` is
    127 (not an arithmetic shift, `x >> n` on signed NumPy integers). A
    shift amount that is negative or at least the bit width gives 0 (an
    unsigned amount is never negative).}]>;

def Tide_CmpOp : Tide_Op<"cmp", [Tide_InferTypeOpAdaptor,
    Tide_Facts<"Compare", "Elementwise", "Any">]> {
  let summary = "Elementwise comparison with NumPy broadcasting";
  let description = [{
    Compares the operands elementwise with `predicate` (eq, ne, lt, le, gt,
    ge) and produces an `i1` tensor of the broadcast shape. Operands must have
    the same element type; signless integers compare as signed, unsigned
    integers (`ui8`..`ui64`) as unsigned, `i1` as false < true.

    ```mlir
    %m = tide.cmp lt, %x, %y : tensor<4xf32>
    ```
  }];
  let arguments = (ins Tide_CmpPredicate:$predicate, Tide_Tensor:$lhs,
                       Tide_Tensor:$rhs);
  let results = (outs Tide_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:`
    custom<OperandTypes>(type($lhs), type($rhs))
  }];
}

def Tide_SelectOp : Tide_Op<"select", [Tide_InferTypeOpAdaptor,
    Tide_Facts<"Select", "Elementwise", "Any">]> {
  let summary = "Elementwise choice with NumPy broadcasting";
  let description = [{
    `cond ? on_true : on_false` elementwise. `cond` is an `i1` tensor; the
    two value operands share an element type; all three shapes broadcast.

    ```mlir
    %r = tide.select %m, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Tide_BoolTensor:$cond, Tide_Tensor:$on_true,
                       Tide_Tensor:$on_false);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $on_true `,` $on_false attr-dict `:` type($cond) `,`
    type($on_true) `,` type($on_false)
  }];
}

//===----------------------------------------------------------------------===//
// Cast and transfer
//===----------------------------------------------------------------------===//

def Tide_CastOp : Tide_Op<"cast", [
    Tide_Facts<"Cast", "Elementwise", "Any">]> {
  let summary = "Explicit element type conversion";
  let description = [{
    Converts every element to the result's element type. Shapes must match.
    This is the only op that changes an element type: Tide never promotes or
    demotes implicitly. Float to integer truncates toward zero; to `i1` means
    `!= 0`. Widening an integer sign-extends a signless source and
    zero-extends an unsigned (or `i1`) one; narrowing keeps the low bits; a
    cast between `iN` and `uiN` keeps the bits. Unsigned to float converts
    the unsigned value; float to unsigned truncates toward zero (a negative
    or too large float gives an unspecified value, as in C).

    ```mlir
    %d = tide.cast %x : tensor<230400xf32> to tensor<230400xf64>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tide_BitcastOp : Tide_Op<"bitcast", [
    Tide_Facts<"Cast", "Elementwise", "Any">]> {
  let summary = "Each element's bits read as another type of the same width";
  let description = [{
    ONNX's `BitCast`: every element keeps its bits (little-endian, as stored)
    and is read as the result's element type, which must have the same bit
    width (f32 <-> i32/ui32, f64 <-> i64/ui64, f16/bf16 <-> i16/ui16, i8 <->
    ui8, ...; `i1` only to `i1`). No value is converted: `tide.cast` does
    that. Shapes must match.

    ```mlir
    %bits = tide.bitcast %x : tensor<4xf32> to tensor<4xi32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tide_TransferOp : Tide_Op<"transfer", [SameOperandsAndResultType,
    Tide_Facts<"Transfer", "Transfer", "Any", 0>]> {
  let summary = "Copy a tensor to another device";
  let description = [{
    Makes the value available on device `to`. Placement inserts transfers
    where a value crosses devices (and at the function boundary); they become
    real host<->device copies when lowered.

    ```mlir
    %g = tide.transfer %x : tensor<230400xf32> to #tide.device<cuda:0>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, Tide_DeviceAttr:$to);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `to` custom<DeviceRef>($to)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// Contractions are costed from their shapes (2 * K per output element).
def Tide_MatmulOp : Tide_Op<"matmul", [Tide_InferTypeOpAdaptor,
    Tide_Facts<"Matmul", "Matmul", "Numeric", 2>]> {
  let summary = "Matrix product, batched with broadcasting batch dimensions";
  let description = [{
    `lhs` is `[..., M, K]`, `rhs` is `[..., K, N]`, the result is
    `[broadcast(...), M, N]`; both operands have rank >= 2 and the same
    numeric element type. Leading (batch) dimensions broadcast like NumPy's
    `matmul`. f16 and bf16 products accumulate in f32 and are rounded once.

    ```mlir
    %c = tide.matmul %a, %b : tensor<256x784xf32>, tensor<784x256xf32>
    %d = tide.matmul %p, %q : tensor<8x?x4x5xf32>, tensor<5x6xf32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$lhs, Tide_Tensor:$rhs);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<OperandTypes>(type($lhs), type($rhs))
  }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Tide_ReduceOp<string mnemonic, string kind, string what,
                    list<string> decomposition = []>
    : Tide_Op<mnemonic, [Tide_InferTypeOpAdaptor,
          Tide_Facts<!if(!eq(!substr(mnemonic, 0, 3), "arg"), "ArgReduction",
                         "Reduction"), "Reductions", kind, 1,
                     decomposition>]> {
  let summary = "Reduction: " # what # " over `axes`";
  let description = !if(!eq(!substr(mnemonic, 0, 3), "arg"), [{
    Computes }] # what # [{. `axes` lists exactly one axis (negative values
    count from the end, as in NumPy). With `keepdims` the reduced dimension
    stays as size 1. Accepts }] # kind # [{ element types.

    ```mlir
    %s = tide.}] # mnemonic # [{ %x axes = [1] : tensor<256x10xf32>
    %k = tide.}] # mnemonic # [{ %x axes = [-1] keepdims : tensor<256x10xf32>
    ```
  }], [{
    Computes }] # what # [{ over the dimensions listed in `axes` (negative
    values count from the end, as in NumPy; each axis at most once). With
    `keepdims` the reduced dimensions stay as size 1. Accepts }] # kind #
    [{ element types. f16 and bf16 sums, products and means accumulate in
    f32 and are rounded once, at the end.

    ```mlir
    %s = tide.}] # mnemonic # [{ %x axes = [1] : tensor<256x10xf32>
    %k = tide.}] # mnemonic # [{ %x axes = [0, 1] keepdims : tensor<256x10xf32>
    ```
  }]);
  let arguments = (ins Tide_Tensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input `axes` `=` $axes (`keepdims` $keepdims^)? attr-dict `:` type($input)
  }];
  let extraClassDeclaration = [{
    /// `axes` made non-negative and sorted.
    ::llvm::SmallVector<int64_t> getNormalizedAxes() {
      return ::mlir::tide::normalizeAxes(getAxes(),
                                         getInput().getType().getRank());
    }
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tide::inferReductionResult(
          context, loc, "}] # mnemonic # [{", adaptor.getInput(),
          adaptor.getAxes(), adaptor.getKeepdims(),
          ::mlir::tide::ElementKind::}] # kind # [{,
          /*indexResult=*/}] # !if(!eq(!substr(mnemonic, 0, 3), "arg"),
                                   "true", "false") # [{, types);
    }
  }];
}

def Tide_ReduceSumOp : Tide_ReduceOp<"reduce_sum", "Numeric", "the sum">;
def Tide_ReduceMeanOp : Tide_ReduceOp<"reduce_mean", "Float", "the arithmetic mean",
    ["reduce_sum", "div", "constant"]>;
def Tide_ReduceMaxOp : Tide_ReduceOp<"reduce_max", "Numeric", "the maximum">;
def Tide_ReduceMinOp : Tide_ReduceOp<"reduce_min", "Numeric", "the minimum">;
def Tide_ReduceProdOp : Tide_ReduceOp<"reduce_prod", "Numeric", "the product">;
def Tide_ArgmaxOp : Tide_ReduceOp<"argmax", "Numeric",
    "the index (i64) of the first maximum along one axis">;
def Tide_ArgminOp : Tide_ReduceOp<"argmin", "Numeric",
    "the index (i64) of the first minimum along one axis">;

// Cumulative sums and products: costed as one add or multiply per element (it
// does one per element and input element it combines; see the lowering).
class Tide_CumulativeOp<string mnemonic>
    : Tide_Op<mnemonic, [SameOperandsAndResultType,
                         Tide_Facts<"Cumsum", "Reductions", "Numeric", 1>]> {
  let arguments = (ins Tide_Tensor:$input, I64Attr:$axis, UnitAttr:$exclusive,
                       UnitAttr:$reverse);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input `axis` `=` $axis (`exclusive` $exclusive^)? (`reverse` $reverse^)?
    attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `axis` made non-negative.
    int64_t getNormalizedAxis() {
      int64_t axis = static_cast<int64_t>(getAxis());
      return axis < 0 ? axis + getInput().getType().getRank() : axis;
    }
  }];
}

def Tide_CumsumOp : Tide_CumulativeOp<"cumsum"> {
  let summary = "Cumulative sum along one axis";
  let description = [{
    NumPy's `cumsum` and ONNX's `CumSum` along `axis` (negative counts from
    the end): element `i` of the result is the sum of the input's elements
    `0..i` along the axis. With `exclusive` it leaves out element `i` itself
    (the first result is 0); with `reverse` it sums from the end (`i..n-1`,
    or `i+1..n-1` with both). Integers wrap on overflow; f16 and bf16
    accumulate in f32 and are rounded once.

    Each result element is summed on its own, so the work grows with the
    square of the axis length (correct on every device, meant for the axis
    lengths of real models, not for very long scans).

    ```mlir
    %s = tide.cumsum %x axis = 1 : tensor<4x16xf32>
    %t = tide.cumsum %x axis = -1 exclusive reverse : tensor<4x16xi64>
    ```
  }];
}

def Tide_CumprodOp : Tide_CumulativeOp<"cumprod"> {
  let summary = "Cumulative product along one axis";
  let description = [{
    NumPy's `cumprod` and ONNX's `CumProd` along `axis` (negative counts from
    the end): element `i` of the result is the product of the input's
    elements `0..i` along the axis. With `exclusive` it leaves out element
    `i` itself (the first result is 1); with `reverse` it multiplies from
    the end (`i..n-1`, or `i+1..n-1` with both). Integers wrap on overflow;
    f16 and bf16 multiply in f32 and are rounded once.

    As `tide.cumsum`, each result element is computed on its own (work
    quadratic in the axis length).

    ```mlir
    %p = tide.cumprod %x axis = 0 : tensor<8x3xf64>
    %q = tide.cumprod %x axis = -1 exclusive : tensor<5xi32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Tide_ReshapeOp : Tide_Op<"reshape", [
    Tide_Facts<"Reshape", "Shape", "Any", 0>,
    Tide_OperandRoles<["data", "host"]>]> {
  let summary = "Same elements, new shape";
  let description = [{
    Reinterprets the elements (row-major) with the result's shape. Element
    type and element count must agree; with dynamic dimensions the counts are
    checked at run time.

    The sizes of the result's dynamic dimensions come from the optional
    `shape` operand, an i64 vector with one entry per result dimension that
    the host reads at run time (ONNX `Reshape` with a shape computed from
    `Shape`): entry `i` is the size of dimension `i`, or -1 (at most one
    entry) for the size that keeps the element count, as in NumPy. Entries
    of static dimensions must equal them. Without `shape`, at most one
    result dimension may be dynamic: its size is the element count divided
    by the static sizes.

    ```mlir
    %y = tide.reshape %x : tensor<2x3xf32> to tensor<6xf32>
    %z = tide.reshape %x, %s : tensor<?x64xf32>, tensor<4xi64>
        to tensor<?x?x4x16xf32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, Optional<Tide_IndexTensor>:$shape);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $shape^)? attr-dict `:` type($input) (`,` type($shape)^)?
    `to` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$input), [{
      build($_builder, $_state, result, input, ::mlir::Value());
    }]>
  ];
  let hasFolder = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tide_TransposeOp : Tide_Op<"transpose", [Tide_InferTypeOpAdaptor,
    Tide_Facts<"Transpose", "Shape", "Any", 0>]> {
  let summary = "Permute dimensions";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`; `perm` is a
    permutation of `[0, rank)`.

    ```mlir
    %t = tide.transpose %x perm = [1, 0] : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = "$input `perm` `=` $perm attr-dict `:` type($input)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tide_BroadcastToOp : Tide_Op<"broadcast_to", [
    Tide_Facts<"Broadcast", "Shape", "Any", 0>,
    Tide_OperandRoles<["data", "host"]>]> {
  let summary = "Broadcast to a shape by NumPy's rules";
  let description = [{
    Stretches size-1 dimensions and prepends dimensions so the input takes
    the result's shape. A dynamic input dimension has the size of the result
    dimension it lines up with (it is not stretched at run time).

    A dynamic result dimension takes its size from the input dimension it
    lines up with, or, when that one is static or missing, from the optional
    `shape` operand: an i64 vector with the result's size in every dimension,
    read by the host at run time (ONNX `Expand` and `ConstantOfShape` with a
    shape computed from `Shape`).

    With `stretch_dynamic` (and a `shape`), a dynamic input dimension of size
    1 at run time is stretched too, as NumPy does: the result's size there is
    the `shape` entry when the input's size is 1, else the input's, and the
    entry must then be 1 or that size (checked when it runs). ONNX's
    broadcasting ops use it where importing cannot tell whether a size
    known only at run time is 1 (two symbolic sizes of different names). It
    reads its input element by element, not in vectors.

    ```mlir
    %b = tide.broadcast_to %x : tensor<3xf32> to tensor<4x3xf32>
    %m = tide.broadcast_to %c, %s : tensor<f32>, tensor<2xi64>
        to tensor<?x?xf32>
    %n = tide.broadcast_to %y, %t stretch_dynamic
        : tensor<?x4xf32>, tensor<2xi64> to tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, Optional<Tide_IndexTensor>:$shape,
                       UnitAttr:$stretch_dynamic);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $shape^)? (`stretch_dynamic` $stretch_dynamic^)? attr-dict
    `:` type($input) (`,` type($shape)^)? `to` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$input), [{
      build($_builder, $_state, result, input, ::mlir::Value());
    }]>
  ];
  let hasFolder = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tide_ConcatOp : Tide_Op<"concat", [Tide_InferTypeOpAdaptor,
    Tide_Facts<"Concat", "Shape", "Any", 0>]> {
  let summary = "Join tensors along an axis";
  let description = [{
    All inputs have the same rank and element type, and equal sizes except
    along `axis`.

    ```mlir
    %c = tide.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Tide_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = "$inputs `axis` `=` $axis attr-dict `:` type($inputs)";
  let hasFolder = 1;
}

def Tide_SliceOp : Tide_Op<"slice", [Tide_InferTypeOpAdaptor,
    Tide_Facts<"Slice", "Shape", "Any", 0>]> {
  let summary = "Strided slice with static bounds";
  let description = [{
    Takes elements `start[i], start[i] + strides[i], ...` below `limit[i]` in
    every dimension (NumPy's `x[start:limit:stride]` with non-negative
    bounds and positive strides).

    ```mlir
    %s = tide.slice %x start = [0, 1] limit = [2, 3] strides = [1, 1]
        : tensor<4x5xf32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$strides);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input `start` `=` $start `limit` `=` $limit `strides` `=` $strides
    attr-dict `:` type($input)
  }];
}

def Tide_DynamicSliceOp : Tide_Op<"dynamic_slice", [
    AllTypesMatch<["start", "limit"]>,
    Tide_Facts<"DynamicSlice", "Shape", "Any", 0>,
    Tide_OperandRoles<["data", "host", "host"]>]> {
  let summary = "Strided slice with bounds known at run time";
  let description = [{
    `tide.slice` with its bounds given as operands: `start` and `limit` are
    i64 vectors with one entry per dimension, read by the host at run time
    (ONNX `Slice` of a dynamic dimension, or with ends computed from
    `Shape`). Dimension `d` of the result has
    `max(0, ceil((limit[d] - start[d]) / strides[d]))` elements, taken at
    `start[d], start[d] + strides[d], ...`. The bounds must lie in
    `[0, size]` of their dimension (the importer clamps them as ONNX
    does; checked when the function runs: a dimension that takes elements
    must take them inside the input); strides are static and positive.

    ```mlir
    %s = tide.dynamic_slice %x, %start, %limit strides = [1, 1]
        : tensor<1x512xi64>, tensor<2xi64> to tensor<1x?xi64>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, Tide_IndexTensor:$start,
                       Tide_IndexTensor:$limit, DenseI64ArrayAttr:$strides);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $start `,` $limit `strides` `=` $strides attr-dict `:`
    type($input) `,` type($start) `to` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tide_GatherOp : Tide_Op<"gather", [Tide_InferTypeOpAdaptor,
    Tide_Facts<"Gather", "Shape", "Any", 1>]> {
  let summary = "Take elements along an axis at given indices";
  let description = [{
    NumPy's `take_along_axis` and ONNX's `GatherElements`: the result has the
    shape of `indices` and the element type of `input`, and

    ```
    result[i0, ..., ik, ..., in] = input[i0, ..., indices[i0, ..., in], ..., in]
    ```

    with the index taken along dimension `axis` (negative counts from the
    end). `indices` is an `i32` or `i64` tensor of the same rank as `input`;
    along the other dimensions it may be smaller than `input` (only the
    leading part of `input` is read) but not larger (checked while compiling
    where both sizes are static, when the program runs otherwise).

    An index `k` in `[-n, 0)`, where `n` is the size of `input` along
    `axis`, counts from the end (`k + n`). Out-of-range indices never read
    outside `input`: after that wrap they are clamped to `[0, n - 1]` (so
    `n` and above read the last element, below `-n` the first). When `n` is
    0 there is nothing to read and every element of the result is 0 (`false`
    for `i1`).

    ```mlir
    %r = tide.gather %x, %i axis = 1 : tensor<3x5xf32>, tensor<3x2xi64>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, Tide_Tensor:$indices, I64Attr:$axis);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices `axis` `=` $axis attr-dict `:` type($input) `,`
    type($indices)
  }];
  let extraClassDeclaration = [{
    /// `axis` made non-negative.
    int64_t getNormalizedAxis() {
      int64_t axis = static_cast<int64_t>(getAxis());
      return axis < 0 ? axis + getInput().getType().getRank() : axis;
    }
  }];
}

// Costed from the shapes: one compare-and-combine per result element and
// update along the axis (see the lowering).
def Tide_ScatterOp : Tide_Op<"scatter", [Tide_InferTypeOpAdaptor,
    Tide_Facts<"Scatter", "Shape", "Any", 1>]> {
  let summary = "Write or combine updates into a tensor at given indices";
  let description = [{
    ONNX's `ScatterElements` (and, through a linearized index, `ScatterND`):
    the result is `data` where, for every element of `updates`,

    ```
    result[i0, ..., indices[i0, ..., in], ..., in] (op)= updates[i0, ..., in]
    ```

    with the index taken along dimension `axis` (negative counts from the
    end). `indices` is an `i32` or `i64` tensor of the shape of `updates`
    and of the rank of `data`; along the other dimensions it may be smaller
    than `data` (only the leading part of `data` is written), not larger
    (sizes known only at run time are checked then, as is the updates'
    shape).

    `reduction` says how an update combines with the element it lands on:
    `none` replaces it (where several updates land on one element, the last
    one along the axis wins), `add`, `mul`, `max` and `min` combine every
    update that lands there with the element of `data`. `add` and `mul` need
    a numeric element type. An index `k` in `[-n, 0)` counts from the end;
    indices outside `[-n, n)` write nothing. f16 and bf16 combine in f32 and
    are rounded once.

    On the host the updates are combined in order, one pass over them (the
    work of a copy of the data plus one step per update). On a GPU each result
    element looks at every update along the axis, so the work is the result's
    size times the updates' length along the axis: deterministic and parallel,
    with no atomics.

    ```mlir
    %r = tide.scatter %x, %i, %u axis = 1
        : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>
    %s = tide.scatter %x, %i, %u axis = 0 reduction = add
        : tensor<8x4xf32>, tensor<3x4xi64>, tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$data, Tide_Tensor:$indices,
                       Tide_Tensor:$updates, I64Attr:$axis,
                       DefaultValuedAttr<Tide_ScatterReduction,
                         "::mlir::tide::ScatterReduction::None">:$reduction);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates `axis` `=` $axis
    (`reduction` `=` $reduction^)? attr-dict `:` type($data) `,`
    type($indices) `,` type($updates)
  }];
  let extraClassDeclaration = [{
    /// `axis` made non-negative.
    int64_t getNormalizedAxis() {
      int64_t axis = static_cast<int64_t>(getAxis());
      return axis < 0 ? axis + getData().getType().getRank() : axis;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Run-time sizes
//===----------------------------------------------------------------------===//

def Tide_DimOp : Tide_Op<"dim", [Tide_InferTypeOpAdaptor,
    Tide_Facts<"Dim", "Shape", "Any", 0>,
    Tide_OperandRoles<["shape_only"]>]> {
  let summary = "The size of one dimension, as a one-element i64 tensor";
  let description = [{
    The size of dimension `axis` (`0 <= axis < rank`) of `input`: the start
    of every shape computed at run time (ONNX `Shape` of a tensor with a
    dynamic dimension becomes a `tide.concat` of `tide.dim`s and constants).
    It reads only the input's shape, never an element, so placement never
    copies its input; it runs on the host and folds to a constant when the
    dimension is static.

    ```mlir
    %b = tide.dim %x axis = 0 : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, I64Attr:$axis);
  let results = (outs Tide_IndexTensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Tide_CheckOp : Tide_Op<"check", [AllTypesMatch<["input", "result"]>,
    Tide_Facts<"Check", "Shape", "Any", 0>,
    Tide_OperandRoles<["data", "host"]>]> {
  let summary = "Pass a tensor on if a condition holds when the program runs";
  let description = [{
    The result is `input`, unchanged, when `holds` (a one-element `i1`
    tensor, read by the host at run time) is true; when it is false the call
    ends with an error carrying `message` and the op's location. Importers
    put it where a program is only meaningful for some values, and where a
    kernel would otherwise quietly do something else: ONNX's `Gather` and
    `ScatterElements` with an index outside the data are errors, and
    `tide.gather` would clamp it. The check sits on the value it guards, so
    it runs before any op that uses that value, and goes away with it when
    nothing does. It folds to `input` when `holds` is a constant true.

    ```mlir
    %i2 = tide.check %i, %ok, "an index is outside the data" :
        tensor<4xi64>, tensor<1xi1>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, Tide_BoolTensor:$holds,
                       StrAttr:$message);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $holds `,` $message attr-dict `:` type($input) `,` type($holds)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tide_IotaOp : Tide_Op<"iota", [
    Tide_Facts<"Iota", "Shape", "Numeric", 1>,
    Tide_OperandRoles<["host"]>]> {
  let summary = "Indices along one dimension, of a shape known at run time";
  let description = [{
    Element `[i0, ..., in]` of the result is `i_axis`, converted to the
    result's element type. `shape` is an i64 vector with one entry per
    result dimension, read by the host at run time: the sizes of the
    result's dynamic dimensions (entries of static dimensions must equal
    them). ONNX `Range` with a limit computed from `Shape` is
    `start + iota * delta`.

    ```mlir
    %r = tide.iota %n axis = 0 : tensor<1xi64> to tensor<?xi64>
    ```
  }];
  let arguments = (ins Tide_IndexTensor:$shape, I64Attr:$axis);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $shape `axis` `=` $axis attr-dict `:` type($shape) `to` type($result)
  }];
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Results whose size depends on the data (host code only)
//===----------------------------------------------------------------------===//

// One compare per input element, then one write per coordinate of each
// non-zero element.
def Tide_NonZeroOp : Tide_Op<"nonzero", [
    Tide_Facts<"NonZero", "Shape", "Any", 1>]> {
  let summary = "Coordinates of the non-zero elements";
  let description = [{
    NumPy's `nonzero` stacked (`numpy.array(numpy.nonzero(x))`) and ONNX's
    `NonZero`: column `j` of the result holds the coordinates of the `j`-th
    non-zero element of `input` in row-major order, so the result has one
    row per input dimension and one column per non-zero element (NaN counts
    as non-zero, `-0.0` as zero). A rank-0 input gives a `0 x n` result with
    `n` 1 or 0.

    The number of columns is known only once the input's values are: it is
    the op whose result size depends on data, the start of ONNX's `Compress`,
    `Unique` and of detection post-processing. Its kernel is host code (two
    passes over the input: a count, then the coordinates); placement runs it
    on the CPU and copies a GPU-resident input there.

    ```mlir
    %i = tide.nonzero %mask : tensor<4x5xi1> to tensor<2x?xi64>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input);
  let results = (outs Tide_IndexTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
}

// Costed per score: a greedy pass per selected box reads every box once.
def Tide_NonMaxSuppressionOp : Tide_Op<"non_max_suppression", [
    Tide_Facts<"NonMaxSuppression", "Shape", "Float", 4>]> {
  let summary = "Greedy non-maximum suppression of boxes, per batch and class";
  let description = [{
    ONNX's `NonMaxSuppression` (and torchvision's `batched_nms` per class):
    `boxes` is `(B, N, 4)` (the 4 static), `scores` is `(B, C, N)`. For every batch entry
    `b` and class `c`, boxes are taken greedily in order of decreasing score
    (equal scores: the lower index first); a box is selected unless its
    intersection over union with a box already selected for `(b, c)` is
    greater than `iou_threshold`, and at most `max_output_boxes_per_class`
    boxes are selected. With `score_threshold`, only boxes whose score is
    greater than it take part. The result has one row `(b, c, box index)`
    per selected box, ordered by `b`, then `c`, then selection order: its
    row count is known only at run time.

    Boxes are `[y1, x1, y2, x2]` (any two opposite corners) or, with
    `center_point_box`, `[x_center, y_center, width, height]`. A pair whose
    intersection or either area is not positive never suppresses (ONNX
    Runtime's rule). `max_output_boxes_per_class` is a one-element i64
    tensor (0 or less selects nothing), the thresholds one-element tensors of
    the boxes' type; all are read by the host at run time. f16 and bf16
    compute in f32. Host code: a pass over the class's boxes per selected
    box.

    ```mlir
    %s = tide.non_max_suppression %boxes, %scores, %max, %iou, %thr
        : tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>,
          tensor<1xf32>, tensor<1xf32> to tensor<?x3xi64>
    ```
  }];
  let arguments = (ins Tide_Tensor:$boxes, Tide_Tensor:$scores,
                       Tide_IndexTensor:$max_output_boxes_per_class,
                       Tide_Tensor:$iou_threshold,
                       Optional<Tide_Tensor>:$score_threshold,
                       UnitAttr:$center_point_box);
  let results = (outs Tide_IndexTensor:$result);
  let assemblyFormat = [{
    $boxes `,` $scores `,` $max_output_boxes_per_class `,` $iou_threshold
    (`,` $score_threshold^)? (`center_point_box` $center_point_box^)?
    attr-dict `:` type($boxes) `,` type($scores) `,`
    type($max_output_boxes_per_class) `,` type($iou_threshold)
    (`,` type($score_threshold)^)? `to` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

// Costed per input element: one compare against the worst kept element, and
// now and then a step of the heap. Composite: on a device without its kernel
// (the GPU) it becomes an all-pairs comparison of primitives.
def Tide_TopKOp : Tide_Op<"top_k", [
    Tide_Facts<"TopK", "Composite", "Numeric", 4,
               ["reshape", "cmp", "select", "cast", "reduce_sum"]>,
    Tide_OperandRoles<["data", "host"]>]> {
  let summary = "Indices of the k largest (or smallest) elements along an axis";
  let description = [{
    ONNX's `TopK` and PyTorch's `topk` (sorted), as indices: the result has
    the input's shape but along `axis` (negative counts from the end), where
    position `r` holds the index of the element of rank `r`. Elements are
    ranked by decreasing value (increasing with `smallest`), equal values by
    increasing index; NaN counts as the largest value (after every number
    with `smallest`, as in NumPy's sort). The values themselves are a
    `tide.gather` of the input at these indices.

    `k` is a one-element i64 tensor the host reads at run time; the result's
    size along `axis` is `k` (a static size there must equal it), and
    positions past the axis length hold 0. The other dimensions are the
    input's.

    The CPU kernel is host code: a heap of the `k` best elements per row, so
    `n log k` work for a row of `n`, and a heap sort of the kept ones. Placed
    on a GPU, `tide-decompose` rewrites it into primitives (an all-pairs
    comparison: `n^2` work per row, in parallel), for a static axis and `k`.

    ```mlir
    %i = tide.top_k %x, %k axis = -1 : tensor<2x100xf32>, tensor<1xi64>
        to tensor<2x5xi64>
    %j = tide.top_k %x, %k axis = 0 smallest : tensor<?xf16>, tensor<1xi64>
        to tensor<?xi64>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, Tide_IndexTensor:$k,
                       I64Attr:$axis, UnitAttr:$smallest);
  let results = (outs Tide_IndexTensor:$result);
  let assemblyFormat = [{
    $input `,` $k `axis` `=` $axis (`smallest` $smallest^)? attr-dict `:`
    type($input) `,` type($k) `to` type($result)
  }];
  let extraClassDeclaration = [{
    /// `axis` made non-negative.
    int64_t getNormalizedAxis() {
      int64_t axis = static_cast<int64_t>(getAxis());
      return axis < 0 ? axis + getInput().getType().getRank() : axis;
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling (NCHW or channels-last)
//===----------------------------------------------------------------------===//

// Costed from the shapes (2 * C/groups * kernel elements per output element;
// see estimateWork). Kernel group matmul: a convolution is a contraction.
def Tide_ConvOp : Tide_Op<"conv", [Tide_InferTypeOpAdaptor,
    Tide_Facts<"Conv", "Matmul", "Float", 2>]> {
  let summary = "N-D convolution, NCHW or channels-last (cross-correlation, grouped)";
  let description = [{
    The convolution of deep learning (ONNX `Conv`, PyTorch `conv2d`; no
    kernel flip). `input` is `(N, C, D1, ..., Dk)` with k >= 1 spatial
    dimensions, `weight` is `(F, C / groups, K1, ..., Kk)`; the result is
    `(N, F, O1, ..., Ok)` with

    ```
    Oi = floor((Di + pads[i] + pads[k + i] - dilations[i] * (Ki - 1) - 1) / strides[i]) + 1
    ```

    `pads` lists the zeros added before each spatial dimension, then those
    added after (ONNX's order: `[begin_1, ..., begin_k, end_1, ..., end_k]`).
    The channels are split into `groups` groups (C and F are multiples of
    `groups`); output channel `f` reads the input channels of its group only.
    `groups == C` is a depthwise convolution. N and the spatial sizes may be
    dynamic (a spatial size known only at run time gives a result size
    computed at run time, 0 where the window is larger than the padded
    input). The weight's sizes may be dynamic too when `groups` is 1 and the
    layout channels-first (a weight that is an argument or computed, ONNX's
    Conv of a weight of run-time shape): the result's channels and spatial
    sizes then come from it at run time, and what a static weight has checked
    while compiling is checked when the convolution runs (its channels are
    the input's, each kernel size is positive, each window fits the padded
    input). Such a convolution is one generic loop nest, not a library call.
    f16 and bf16 products accumulate in f32 and are rounded once.

    With `channels_last` the channels are the last dimension instead
    (NHWC): `input` is `(N, D1, ..., Dk, C)`, `weight` is
    `(F, K1, ..., Kk, C / groups)` and the result `(N, O1, ..., Ok, F)`; the
    values are those of the NCHW convolution of the transposed operands,
    transposed back. The GPU's tensor-core convolutions read and write this
    layout; `tide-channels-last` rewrites GPU convolutions into it.

    ```mlir
    %y = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1]
        : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>
    %z = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1]
        channels_last : tensor<?x32x32x3xbf16>, tensor<16x3x3x3xbf16>
    %d = tide.conv %x, %k strides = [2] dilations = [1] pads = [0, 0] groups = 8
        : tensor<1x8x100xf16>, tensor<8x1x5xf16>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, Tide_Tensor:$weight,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       UnitAttr:$channels_last);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight `strides` `=` $strides `dilations` `=` $dilations
    `pads` `=` $pads (`groups` `=` $groups^)? (`channels_last` $channels_last^)?
    attr-dict `:` type($input) `,` type($weight)
  }];
  let extraClassDeclaration = [{
    /// The dimension of `input` (and of the result) that holds the channels.
    int64_t getChannelDim() {
      return getChannelsLast() ? getType().getRank() - 1 : 1;
    }
  }];
}

// Costed as one operation per window element (see estimateWork).
class Tide_PoolOp<string mnemonic, string kind, string what, string pad,
                  dag extra, string extraSyntax, string notes>
    : Tide_Op<mnemonic, [Tide_InferTypeOpAdaptor,
          Tide_Facts<"Pool", "Reductions", kind, 1>]> {
  let summary = "N-D " # what # " pooling, NCHW or channels-last";
  let description = [{
    The }] # what # [{ of each window (ONNX `}] # !if(!eq(mnemonic, "max_pool"),
    "MaxPool", "AveragePool") # [{`). `input` is `(N, C, D1, ..., Dk)` with
    k >= 1 spatial dimensions; windows of `kernel` elements (spaced by
    `dilations`) move by `strides`; the result is `(N, C, O1, ..., Ok)` with

    ```
    Oi = floor((Di + pads[i] + pads[k + i] - dilations[i] * (Ki - 1) - 1) / strides[i]) + 1
    ```

    (`ceil` instead of `floor` with `ceil_mode`; a last window that would
    start in the end padding is dropped, as in ONNX and PyTorch). `pads`
    lists the padding before each spatial dimension, then after it
    (`[begin_1, ..., begin_k, end_1, ..., end_k]`). Every size may be
    dynamic (a spatial size known only at run time gives a result size
    computed at run time, 0 where the window is larger than the padded
    input). }] # pad # notes # [{

    With `channels_last` the channels are the last dimension instead
    (NHWC): `input` is `(N, D1, ..., Dk, C)` and the result
    `(N, O1, ..., Ok, C)`, the values those of the NCHW pooling of the
    transposed input, transposed back (`tide-channels-last` moves pools
    between channels-last GPU convolutions into this layout).

    ```mlir
    %y = tide.}] # mnemonic # [{ %x kernel = [3, 3] strides = [2, 2]
        dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<?x64x56x56xf32>
    %z = tide.}] # mnemonic # [{ %x kernel = [3, 3] strides = [2, 2]
        dilations = [1, 1] pads = [1, 1, 1, 1] channels_last
        : tensor<?x56x56x64xbf16>
    ```
  }];
  let arguments = !con((ins Tide_Tensor:$input, DenseI64ArrayAttr:$kernel,
                            DenseI64ArrayAttr:$strides,
                            DenseI64ArrayAttr:$dilations,
                            DenseI64ArrayAttr:$pads, UnitAttr:$ceil_mode),
                       extra, (ins UnitAttr:$channels_last));
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = [{
    $input `kernel` `=` $kernel `strides` `=` $strides `dilations` `=`
    $dilations `pads` `=` $pads (`ceil_mode` $ceil_mode^)? }] # extraSyntax # [{
    (`channels_last` $channels_last^)? attr-dict `:` type($input)
  }];
  let extraClassDeclaration = [{
    /// The dimension of `input` (and of the result) that holds the channels.
    int64_t getChannelDim() {
      return getChannelsLast() ? getType().getRank() - 1 : 1;
    }
    /// The first spatial dimension of `input` and of the result.
    int64_t getFirstSpatialDim() { return getChannelsLast() ? 1 : 2; }
  }];
}

def Tide_MaxPoolOp : Tide_PoolOp<"max_pool", "Numeric", "maximum",
    "Padding never wins: it is -inf (the lowest integer for integer types).",
    (ins), "", [{ NaN propagates (as NumPy's `max`).}]>;
def Tide_AvgPoolOp : Tide_PoolOp<"avg_pool", "Float", "average",
    "Padding adds zeros to the sum.", (ins UnitAttr:$count_include_pad),
    "(`count_include_pad` $count_include_pad^)?", [{ The sum is divided by
    the number of window elements inside the input, or with
    `count_include_pad` by the number inside the padded input (elements
    past the end padding, which `ceil_mode` may add, never count). f16 and
    bf16 sum in f32 and are rounded once.}]>;

//===----------------------------------------------------------------------===//
// Composite ops
//===----------------------------------------------------------------------===//

class Tide_SoftmaxBase<string mnemonic, string what, list<string> decomposition>
    : Tide_Op<mnemonic, [SameOperandsAndResultType,
          Tide_Facts<"Softmax", "Composite", "Float", 16, decomposition>]> {
  let summary = what # " along one axis (composite, decomposable)";
  let description = [{
    Computes }] # what # [{ along `axis` (negative counts from the end) of a
    floating-point tensor, in the numerically stable form that subtracts the
    maximum first. `tide-decompose` rewrites it into reduce_max, sub, exp,
    reduce_sum, div and mul (softmax multiplies by the sum's reciprocal, as
    PyTorch and ONNX Runtime do) or log (log_softmax) when that enables a
    better placement; the CPU lowering uses the same decomposition. f16
    and bf16 compute in f32 and are rounded once (they are never
    decomposed: the primitives would round every intermediate).

    ```mlir
    %p = tide.}] # mnemonic # [{ %x axis = 1 : tensor<256x10xf32>
    ```
  }];
  let arguments = (ins Tide_Tensor:$input, I64Attr:$axis);
  let results = (outs Tide_Tensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tide_SoftmaxOp : Tide_SoftmaxBase<"softmax", "softmax",
    ["reduce_max", "sub", "exp", "reduce_sum", "div", "mul"]>;
def Tide_LogSoftmaxOp : Tide_SoftmaxBase<"log_softmax", "log-softmax",
    ["reduce_max", "sub", "exp", "reduce_sum", "log"]>;

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

def Tide_ScanOp : Tide_Op<"scan", [IsolatedFromAbove, SingleBlock,
    AttrSizedOperandSegments, Tide_Facts<"Scan", "Shape", "Any", 0>]> {
  let summary = "A loop over the leading axis of its sequences, carrying state";
  let description = [{
    Runs its body once per element of the leading axis of `sequences` (all
    of one length `T`, known at run time or not), in order, or last to first
    with `reverse`. Step `k` sees the state `states` (the `inits` at the first
    step, then what the previous step yielded), slice `t` of every sequence
    (without the leading axis) and the `invariants`; it yields the new
    states, then one tensor per scan output. The results are the states
    after the last step, then each scan output stacked along a new leading
    axis of length `T` at the position of the slice it was computed from
    (with `reverse` too, as ONNX's Scan and recurrent ops write them).

    The body's arguments are: `t` (`tensor<i64>`, the position read at this
    step: `k`, or `T - 1 - k` with `reverse`), the states, the slices, the
    invariants. The body is isolated from above: what it reads from outside
    is an invariant. Canonicalization copies constant invariants into the
    body (a product there then sees constant weights) and drops unused
    ones. Loops whose length is known only at run time (ONNX's
    recurrent ops over a run-time sequence length) need it; a length known
    while importing is unrolled instead.

    With `conditional`, the loop is a while loop too: the first state is a
    `tensor<i1>` condition, and a step runs only while it is true (the init
    decides whether the first step runs, each step's yield whether the next
    does). The loop stops at the first false condition or at the end of the
    sequences; a conditional scan may have no sequences, and then only the
    condition ends it (ONNX's Loop with a condition computed at run time).
    Its scan outputs stack as many steps as ran, so their leading size is
    dynamic. A scan output whose step has a run-time size has size 0 there
    when no step ran (conditional or not: with `T` = 0). `reverse` needs no
    condition.

    Its kernel is the host's: the scan and every op in its body run on the
    CPU (placement copies GPU-resident operands there). Run-time sizes of the
    sequences' leading axes must agree (checked when the loop runs).

    ```mlir
    %sum, %partial = tide.scan inits(%zero : tensor<4xf32>)
        sequences(%x : tensor<?x4xf32>) {
    ^bb0(%t: tensor<i64>, %acc: tensor<4xf32>, %xt: tensor<4xf32>):
      %next = tide.add %acc, %xt : tensor<4xf32>, tensor<4xf32>
      tide.yield %next, %next : tensor<4xf32>, tensor<4xf32>
    } : tensor<4xf32>, tensor<?x4xf32>
    ```

    A while loop: doubles `%x` while its sum is below 100, stacking each
    step's value.

    ```mlir
    %go, %y, %all = tide.scan conditional
        inits(%true, %x : tensor<i1>, tensor<4xf32>)
        invariants(%limit : tensor<f32>) {
    ^bb0(%t: tensor<i64>, %c: tensor<i1>, %v: tensor<4xf32>, %l: tensor<f32>):
      %twice = tide.add %v, %v : tensor<4xf32>, tensor<4xf32>
      %s = tide.reduce_sum %twice axes = [0] : tensor<4xf32>
      %more = tide.cmp lt, %s, %l : tensor<f32>, tensor<f32>
      tide.yield %more, %twice, %twice
          : tensor<i1>, tensor<4xf32>, tensor<4xf32>
    } : tensor<i1>, tensor<4xf32>, tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Tide_Tensor>:$inits,
                       Variadic<Tide_Tensor>:$sequences,
                       Variadic<Tide_Tensor>:$invariants,
                       UnitAttr:$reverse,
                       UnitAttr:$conditional);
  let results = (outs Variadic<Tide_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`conditional` $conditional^)?
    (`inits` `(` $inits^ `:` type($inits) `)`)?
    (`sequences` `(` $sequences^ `:` type($sequences) `)`)?
    (`invariants` `(` $invariants^ `:` type($invariants) `)`)?
    (`reverse` $reverse^)? attr-dict-with-keyword $body `:` type($results)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The body's block and its arguments by role.
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::BlockArgument getPositionArg() { return getBodyBlock().getArgument(0); }
    ::mlir::Block::BlockArgListType getStateArgs() {
      return getBodyBlock().getArguments().slice(1, getInits().size());
    }
    ::mlir::Block::BlockArgListType getSliceArgs() {
      return getBodyBlock().getArguments().slice(1 + getInits().size(),
                                                 getSequences().size());
    }
    ::mlir::Block::BlockArgListType getInvariantArgs() {
      return getBodyBlock().getArguments().drop_front(
          1 + getInits().size() + getSequences().size());
    }
    /// The final states, then the stacked scan outputs.
    ::mlir::ResultRange getFinalStates() {
      return getResults().take_front(getInits().size());
    }
    ::mlir::ResultRange getScanOutputs() {
      return getResults().drop_front(getInits().size());
    }
  }];
}

def Tide_IfOp : Tide_Op<"if", [IsolatedFromAbove,
    Tide_Facts<"If", "Shape", "Any", 0>]> {
  let summary = "Runs one of two regions, chosen by a boolean known at run time";
  let description = [{
    Runs `then` when `cond` (a `tensor<i1>`) is true and `else` otherwise;
    the results are what the region that ran yields. Only that region runs:
    what the other would compute (or a run-time check it would fail) never
    happens. Each region has one block whose arguments are the `invariants`
    (the op is isolated from above: what a region reads from outside is an
    invariant) and ends with `tide.yield`, one value per result.

    The two regions may yield tensors of different sizes: a result has the
    element type and rank of both yields, and a size that is static in the
    result is static and equal in both (a size where they differ, or that
    either knows only at run time, is dynamic in the result).

    Its kernel is the host's: the branch and every op in its regions run on
    the CPU (placement copies GPU-resident operands there). ONNX's If whose
    condition is computed at run time is one `tide.if`.

    ```mlir
    %r = tide.if %c invariants(%x : tensor<4xf32>) {
    ^bb0(%a: tensor<4xf32>):
      %e = tide.exp %a : tensor<4xf32>
      tide.yield %e : tensor<4xf32>
    } else {
    ^bb0(%a: tensor<4xf32>):
      %s = tide.slice %a start = [0] limit = [2] strides = [1]
          : tensor<4xf32>
      tide.yield %s : tensor<2xf32>
    } : tensor<i1> -> (tensor<?xf32>)
    ```
  }];
  let arguments = (ins Tide_Tensor:$cond, Variadic<Tide_Tensor>:$invariants);
  let results = (outs Variadic<Tide_Tensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion,
                        SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $cond (`invariants` `(` $invariants^ `:` type($invariants) `)`)?
    $thenRegion `else` $elseRegion attr-dict `:` type($cond) `->`
    `(` type($results) `)`
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getThenBlock() { return getThenRegion().front(); }
    ::mlir::Block &getElseBlock() { return getElseRegion().front(); }
  }];
}

// Not a Tide_Op: a terminator has no kernel and no facts (placement never
// sees it; it runs where its scan or if runs).
def Tide_YieldOp : Op<Tide_Dialect, "yield", [Pure, Terminator,
    ParentOneOf<["ScanOp", "IfOp"]>]> {
  let summary = "The values a step of tide.scan or a region of tide.if gives";
  let description = [{
    Ends the body of a `tide.scan`: the states for the next step (the types
    of the scan's `inits`), then one tensor per scan output. Ends a region of
    `tide.if`: one tensor per result.
  }];
  let arguments = (ins Variadic<Tide_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // TIDE_IR_TIDEOPS_TD
