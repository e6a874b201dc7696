//===- TideBase.td - Tide dialect, attributes and type constraints -------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_IR_TIDEBASE_TD
#define TIDE_IR_TIDEBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Tide_Dialect : Dialect {
  let name = "tide";
  let cppNamespace = "::mlir::tide";
  let summary = "Tensor ops that Tide places on a CPU or an NVIDIA GPU";
  let description = [{
    The `tide` dialect holds value-semantic tensor operations on builtin ranked
    tensors with element types `i1`, `i8`, `i16`, `i32`, `i64`, `ui8`,
    `ui16`, `ui32`, `ui64`, `f16`, `bf16`, `f32` and `f64`. Signless integers
    (`iN`) are signed where it matters (division, comparison, widening);
    unsigned integers (`uiN`) are unsigned. Dynamic dimensions (`?`) are allowed everywhere; shape
    rules check them as far as the static information allows.

    Every op may carry a `tide.device` attribute (`#tide.device<cpu>` or
    `#tide.device<cuda:N>`) that says which device runs it; the placement
    passes set it, users may set it by hand to pin an op. A function or module
    may carry `tide.default_device`.

    Element types never change silently: an op whose operands have different
    element types is an error that asks for an explicit `tide.cast`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The attribute naming the device that runs an op.
    static constexpr ::llvm::StringLiteral getDeviceAttrName() {
      return ::llvm::StringLiteral("tide.device");
    }
    /// The attribute on a function or module giving the default device.
    static constexpr ::llvm::StringLiteral getDefaultDeviceAttrName() {
      return ::llvm::StringLiteral("tide.default_device");
    }
    /// The attribute carrying the reason for an op's placement.
    static constexpr ::llvm::StringLiteral getReasonAttrName() {
      return ::llvm::StringLiteral("tide.reason");
    }
    /// The attribute naming a colocation group: ops sharing a group share a
    /// device.
    static constexpr ::llvm::StringLiteral getColocateAttrName() {
      return ::llvm::StringLiteral("tide.colocate");
    }
    /// Argument/result attribute: the value lives on this device at the
    /// function boundary (instead of the host).
    static constexpr ::llvm::StringLiteral getResidentAttrName() {
      return ::llvm::StringLiteral("tide.resident");
    }
    /// Module attribute: the target the module is placed for
    /// (`#tide.target<...>`), set by placement and read by later passes.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("tide.target");
    }
    /// Attribute of a linalg convolution the GPU runs through cuDNN: the
    /// tide.conv's padding (begins, then ends, per spatial dim), already
    /// applied to the convolution's input.
    static constexpr ::llvm::StringLiteral getConvPadsAttrName() {
      return ::llvm::StringLiteral("tide.conv_pads");
    }
    /// Unit attribute of the memref.global through which the GPU runtime
    /// finds its device copy of a constant (one per constant of a module).
    static constexpr ::llvm::StringLiteral getDeviceCopySlotAttrName() {
      return ::llvm::StringLiteral("tide.device_copy_slot");
    }
  }];
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Tide_DeviceKind : I32EnumAttr<"DeviceKind", "kind of device", [
    I32EnumAttrCase<"CPU", 0, "cpu">,
    I32EnumAttrCase<"CUDA", 1, "cuda">
  ]> {
  let cppNamespace = "::mlir::tide";
  let genSpecializedAttr = 0;
}

def Tide_DeviceAttr : AttrDef<Tide_Dialect, "Device"> {
  let mnemonic = "device";
  let summary = "A device that runs tide ops: the host CPU or CUDA GPU N";
  let description = [{
    Names a device: `#tide.device<cpu>` is the host, `#tide.device<cuda:N>` is
    CUDA device number N (0 <= N < 64).

    ```mlir
    %0 = tide.exp %x {tide.device = #tide.device<cuda:0>} : tensor<4xf32>
    ```
  }];
  let parameters = (ins EnumParameter<Tide_DeviceKind>:$kind,
                        "unsigned":$ordinal);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isCPU() const { return getKind() == DeviceKind::CPU; }
    bool isGPU() const { return getKind() == DeviceKind::CUDA; }
    /// "cpu" or "cuda:N".
    std::string str() const;
    static DeviceAttr cpu(::mlir::MLIRContext *ctx) {
      return get(ctx, DeviceKind::CPU, 0);
    }
    static DeviceAttr cuda(::mlir::MLIRContext *ctx, unsigned ordinal = 0) {
      return get(ctx, DeviceKind::CUDA, ordinal);
    }
  }];
}

def Tide_TargetAttr : AttrDef<Tide_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The target a module is placed for";
  let description = [{
    Placement records the target it placed for on the module, as
    `tide.target`; every later pass and `tide-compile` read it from there (a
    `target=` option on them only overrides it, and must agree). `name` is
    the target's name, `source` is `built-in` or the path of the JSON target
    file it came from, and `chips` maps each device to its chip (`""` for the
    host CPU).

    ```mlir
    module attributes {tide.target = #tide.target<name = "h200",
        source = "built-in", chips = {cpu = "", "cuda:0" = "sm_90"}>} {
    }
    ```
  }];
  let parameters = (ins StringRefParameter<"the target's name">:$name,
                        StringRefParameter<"built-in or a file path">:$source,
                        "::mlir::DictionaryAttr":$chips);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The chip of `device` ("cpu", "cuda:0"), or "" when it has none.
    ::llvm::StringRef getChip(::llvm::StringRef device) const;
  }];
}

def Tide_CmpPredicate : I32EnumAttr<"CmpPredicate", "comparison predicate", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
  ]> {
  let cppNamespace = "::mlir::tide";
}

//===----------------------------------------------------------------------===//
// Per-op facts (read by the kernel registry, the cost model, placement,
// decomposition and the test harnesses; see TideInterfaces.td)
//===----------------------------------------------------------------------===//

def Tide_DType : I32EnumAttr<"DType", "element type Tide knows", [
    I32EnumAttrCase<"I1", 0, "i1">, I32EnumAttrCase<"I8", 1, "i8">,
    I32EnumAttrCase<"I16", 2, "i16">, I32EnumAttrCase<"I32", 3, "i32">,
    I32EnumAttrCase<"I64", 4, "i64">, I32EnumAttrCase<"UI8", 5, "ui8">,
    I32EnumAttrCase<"UI16", 6, "ui16">, I32EnumAttrCase<"UI32", 7, "ui32">,
    I32EnumAttrCase<"UI64", 8, "ui64">, I32EnumAttrCase<"F16", 9, "f16">,
    I32EnumAttrCase<"BF16", 10, "bf16">, I32EnumAttrCase<"F32", 11, "f32">,
    I32EnumAttrCase<"F64", 12, "f64">
  ]> {
  let cppNamespace = "::mlir::tide";
  let genSpecializedAttr = 0;
}

def Tide_ElementKind : I32EnumAttr<"ElementKind",
    "class of element types an op accepts", [
    // f16, bf16, f32, f64
    I32EnumAttrCase<"Float", 0, "float">,
    // i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64
    I32EnumAttrCase<"Integer", 1, "integer">,
    // every supported type except i1
    I32EnumAttrCase<"Numeric", 2, "numeric">,
    // every supported type
    I32EnumAttrCase<"Any", 3, "any">
  ]> {
  let cppNamespace = "::mlir::tide";
  let genSpecializedAttr = 0;
}

// The kernel group an op belongs to; target files name groups as "@<name>".
def Tide_KernelGroup : I32EnumAttr<"KernelGroup", "kernel group of an op", [
    I32EnumAttrCase<"Constant", 0, "constant">,
    I32EnumAttrCase<"Elementwise", 1, "elementwise">,
    I32EnumAttrCase<"Matmul", 2, "matmul">,
    I32EnumAttrCase<"Reductions", 3, "reductions">,
    I32EnumAttrCase<"Shape", 4, "shape">,
    I32EnumAttrCase<"Composite", 5, "composite">,
    // Not placeable: transfers are inserted by placement.
    I32EnumAttrCase<"Transfer", 6, "transfer">
  ]> {
  let cppNamespace = "::mlir::tide";
  let genSpecializedAttr = 0;
}

// How an op lowers, and how generated tests write it: ops of one family share
// an operand/attribute shape and a lowering strategy.
def Tide_LoweringFamily : I32EnumAttr<"LoweringFamily",
    "lowering family of an op", [
    I32EnumAttrCase<"Constant", 0, "constant">,
    I32EnumAttrCase<"Unary", 1, "unary">,
    I32EnumAttrCase<"Binary", 2, "binary">,
    I32EnumAttrCase<"Compare", 3, "compare">,
    I32EnumAttrCase<"Select", 4, "select">,
    I32EnumAttrCase<"Cast", 5, "cast">,
    I32EnumAttrCase<"Transfer", 6, "transfer">,
    I32EnumAttrCase<"Matmul", 7, "matmul">,
    I32EnumAttrCase<"Reduction", 8, "reduction">,
    I32EnumAttrCase<"ArgReduction", 9, "arg_reduction">,
    I32EnumAttrCase<"Reshape", 10, "reshape">,
    I32EnumAttrCase<"Transpose", 11, "transpose">,
    I32EnumAttrCase<"Broadcast", 12, "broadcast">,
    I32EnumAttrCase<"Concat", 13, "concat">,
    I32EnumAttrCase<"Slice", 14, "slice">,
    I32EnumAttrCase<"Softmax", 15, "softmax">,
    I32EnumAttrCase<"Gather", 16, "gather">,
    I32EnumAttrCase<"Cumsum", 17, "cumsum">,
    I32EnumAttrCase<"Conv", 18, "conv">,
    I32EnumAttrCase<"Pool", 19, "pool">,
    I32EnumAttrCase<"Scatter", 20, "scatter">,
    I32EnumAttrCase<"Dim", 21, "dim">,
    I32EnumAttrCase<"Iota", 22, "iota">,
    I32EnumAttrCase<"DynamicSlice", 23, "dynamic_slice">,
    I32EnumAttrCase<"NonZero", 24, "nonzero">,
    I32EnumAttrCase<"NonMaxSuppression", 25, "non_max_suppression">,
    I32EnumAttrCase<"TopK", 26, "top_k">,
    I32EnumAttrCase<"Scan", 27, "scan">,
    I32EnumAttrCase<"If", 28, "if">,
    I32EnumAttrCase<"Check", 29, "check">
  ]> {
  let cppNamespace = "::mlir::tide";
  let genSpecializedAttr = 0;
}

// How an op reads each of its operands (`Tide_OperandRoles`): placement
// keeps `host` operands on the CPU and never copies a `shape_only` operand.
def Tide_OperandRole : I32EnumAttr<"OperandRole", "how an op reads an operand", [
    // The elements, on the device that runs the op.
    I32EnumAttrCase<"Data", 0, "data">,
    // The elements, by the host code that launches the op: sizes and bounds
    // (an i64 vector) that set the shape of the result.
    I32EnumAttrCase<"Host", 1, "host">,
    // Only the shape (the tensor's metadata), never an element.
    I32EnumAttrCase<"ShapeOnly", 2, "shape_only">
  ]> {
  let cppNamespace = "::mlir::tide";
  let genSpecializedAttr = 0;
}

// How tide.scatter combines an update with the element it lands on (ONNX's
// ScatterElements/ScatterND `reduction`).
def Tide_ScatterReduction : I32EnumAttr<"ScatterReduction",
    "how tide.scatter combines updates", [
    I32EnumAttrCase<"None", 0, "none">, I32EnumAttrCase<"Add", 1, "add">,
    I32EnumAttrCase<"Mul", 2, "mul">, I32EnumAttrCase<"Max", 3, "max">,
    I32EnumAttrCase<"Min", 4, "min">
  ]> {
  let cppNamespace = "::mlir::tide";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

// Element kinds are checked by the op verifiers (see TideOps.cpp) so that the
// message can say how to fix the program; ODS only requires a ranked tensor of
// one of the supported element types.
// Unsigned integers (ui8..ui64) are their own element types: an op on them
// has unsigned semantics (division, remainder, comparison, maximum, widening
// casts), and mixing them with signless integers is an error like any other
// mix of element types.
defvar Tide_ElementTypes = [I1, I8, I16, I32, I64, UI8, UI16, UI32, UI64, F16,
                            BF16, F32, F64];
def Tide_ElementType : AnyTypeOf<Tide_ElementTypes>;
def Tide_Tensor : RankedTensorOf<Tide_ElementTypes>;
def Tide_BoolTensor : RankedTensorOf<[I1]>;
def Tide_IndexTensor : RankedTensorOf<[I64]>;

#endif // TIDE_IR_TIDEBASE_TD
