//===- ImportONNX.cpp - ONNX models to the tide dialect -------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The model, its main graph, tensors (initializers, Constant nodes, bound
// inputs) and the per-node context. The op converters are in ConvertOps.cpp;
// shape subgraphs are evaluated by FoldShapes.cpp.
//
//===----------------------------------------------------------------------===//

#include "tide/Frontend/ONNX/ImportONNX.h"

#include "Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <unistd.h>

#include <cstring>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

/// The newest default-domain opset whose semantics the converters know.
/// Opsets 24 to 28 (ONNX 1.19 to 1.23) changed, of the ops Tide imports:
/// element types only (float8e8m0, int2/uint2, float6: refused as element
/// types; bfloat16 for Celu, Compress, Einsum, OneHot, TopK, Unique,
/// ReverseSequence), Cast's `round_mode` (for float8e8m0 only), Range's
/// `stash_type` (f16/bf16 computed in f32: what Tide does), SpaceToDepth's
/// `mode`, Mod's fmod = 0 on floats and BitShift on signed integers (the
/// converters handle those by opset); and they added Swish and SwiGLU
/// (imported), BitCast, CumProd, TensorScatter, CausalConvWithState and
/// LinearAttention (not yet: "not supported").
static constexpr int64_t kMaxOpset = 28;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

std::string onnx_import::dataTypeName(int32_t dataType) {
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return "float";
  case onnx::TensorProto::UINT8:
    return "uint8";
  case onnx::TensorProto::INT8:
    return "int8";
  case onnx::TensorProto::UINT16:
    return "uint16";
  case onnx::TensorProto::INT16:
    return "int16";
  case onnx::TensorProto::INT32:
    return "int32";
  case onnx::TensorProto::INT64:
    return "int64";
  case onnx::TensorProto::STRING:
    return "string";
  case onnx::TensorProto::BOOL:
    return "bool";
  case onnx::TensorProto::FLOAT16:
    return "float16";
  case onnx::TensorProto::DOUBLE:
    return "double";
  case onnx::TensorProto::UINT32:
    return "uint32";
  case onnx::TensorProto::UINT64:
    return "uint64";
  case onnx::TensorProto::COMPLEX64:
    return "complex64";
  case onnx::TensorProto::COMPLEX128:
    return "complex128";
  case onnx::TensorProto::BFLOAT16:
    return "bfloat16";
  default:
    if (narrow::isNarrow(dataType))
      return narrow::name(dataType);
    return "data type " + std::to_string(dataType);
  }
}

Type onnx_import::convertElementType(MLIRContext *ctx, int32_t dataType,
                                     std::string &why) {
  Builder b(ctx);
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getIntegerType(32);
  case onnx::TensorProto::INT64:
    return b.getIntegerType(64);
  case onnx::TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case onnx::TensorProto::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case onnx::TensorProto::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  default:
    if (narrow::isNarrow(dataType))
      return narrow::carrierType(ctx, dataType);
    why = "element type " + dataTypeName(dataType) +
          " is not supported (Tide has bool, int8-int64, uint8-uint64, "
          "float16, bfloat16, float and double)";
    return {};
  }
}

static int64_t byteWidth(Type type) {
  if (type.isInteger(1))
    return 1;
  return type.getIntOrFloatBitWidth() / 8;
}

std::optional<int64_t> onnx_import::checkedByteSize(RankedTensorType type) {
  int64_t bytes = std::max<int64_t>(1, byteWidth(type.getElementType()));
  for (int64_t d : type.getShape()) {
    if (d == 0)
      return 0;
  }
  for (int64_t d : type.getShape())
    if (!ShapedType::isDynamic(d) && llvm::MulOverflow(bytes, d, bytes))
      return std::nullopt;
  return bytes;
}

//===----------------------------------------------------------------------===//
// Host values
//===----------------------------------------------------------------------===//

std::optional<HostValues> onnx_import::readHostValues(ElementsAttr attr,
                                                      int64_t limit) {
  auto type = dyn_cast<RankedTensorType>(attr.getShapedType());
  if (!type || !type.hasStaticShape() || !checkedByteSize(type) ||
      type.getNumElements() > limit)
    return std::nullopt;
  HostValues v;
  v.type = type;
  Type elem = type.getElementType();
  int64_t n = type.getNumElements();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (isa<FloatType>(elem)) {
      for (APFloat f : dense.getValues<APFloat>())
        v.floats.push_back(f.convertToDouble());
    } else if (elem.isInteger(1)) {
      for (bool x : dense.getValues<bool>())
        v.ints.push_back(x);
    } else {
      // Unsigned values zero-extend (a uint8 200 is 200, not -56).
      bool isUnsigned = elem.isUnsignedInteger();
      for (APInt x : dense.getValues<APInt>())
        v.ints.push_back(isUnsigned ? static_cast<int64_t>(x.getZExtValue())
                                    : x.getSExtValue());
    }
    return v;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource || !resource.getRawHandle().getBlob())
    return std::nullopt;
  ArrayRef<char> data = resource.getRawHandle().getBlob()->getData();
  int64_t width = byteWidth(elem);
  if (static_cast<int64_t>(data.size()) != n * width)
    return std::nullopt;
  const char *p = data.data();
  for (int64_t i = 0; i < n; ++i, p += width) {
    if (elem.isF32()) {
      float f;
      std::memcpy(&f, p, 4);
      v.floats.push_back(f);
    } else if (elem.isF64()) {
      double d;
      std::memcpy(&d, p, 8);
      v.floats.push_back(d);
    } else if (isa<FloatType>(elem)) {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      APFloat f(llvm::cast<FloatType>(elem).getFloatSemantics(),
                APInt(16, bits));
      v.floats.push_back(f.convertToDouble());
    } else {
      int64_t x = 0;
      bool isUnsigned = elem.isUnsignedInteger();
      switch (width) {
      case 1:
        x = isUnsigned ? static_cast<int64_t>(static_cast<uint8_t>(*p))
                       : static_cast<int8_t>(*p);
        break;
      case 2: {
        int16_t y;
        std::memcpy(&y, p, 2);
        x = isUnsigned ? static_cast<uint16_t>(y) : y;
        break;
      }
      case 4: {
        int32_t y;
        std::memcpy(&y, p, 4);
        x = isUnsigned ? static_cast<int64_t>(static_cast<uint32_t>(y)) : y;
        break;
      }
      default:
        std::memcpy(&x, p, 8);
      }
      v.ints.push_back(elem.isInteger(1) ? (x != 0) : x);
    }
  }
  return v;
}

DenseElementsAttr onnx_import::makeDense(RankedTensorType type,
                                         ArrayRef<int64_t> ints,
                                         ArrayRef<double> floats) {
  Type elem = type.getElementType();
  // f32 and f64 from their native values (a DFT table of 2^24 elements
  // took over a minute one APFloat at a time; found by tide-fuzz-onnx).
  if (elem.isF32()) {
    std::vector<float> values(floats.begin(), floats.end());
    return DenseElementsAttr::get(type, ArrayRef<float>(values));
  }
  if (elem.isF64())
    return DenseElementsAttr::get(type, floats);
  if (auto ft = dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> values;
    for (double d : floats) {
      APFloat f(d);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(f);
    }
    return DenseElementsAttr::get(type, values);
  }
  if (elem.isInteger(1)) {
    SmallVector<bool> values;
    for (int64_t x : ints)
      values.push_back(x != 0);
    return DenseElementsAttr::get(type, values);
  }
  SmallVector<APInt> values;
  for (int64_t x : ints)
    values.push_back(APInt(elem.getIntOrFloatBitWidth(), x, /*isSigned=*/true,
                           /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, values);
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

namespace {
/// Reads TensorProtos (initializers, Constant values, bound inputs).
struct TensorReader {
  MLIRContext *ctx;
  std::string baseDir;
  int64_t inlineLimit;
  /// External data files, read (mapped) once; shared with the blobs that
  /// point into them.
  llvm::StringMap<std::shared_ptr<llvm::MemoryBuffer>> files;

  /// Returns the tensor as an attribute, or an error message in `error`.
  /// `raw`, when given, holds the tensor's raw_data taken out of the
  /// protobuf: a large tensor's blob then owns it instead of copying it.
  ElementsAttr read(const onnx::TensorProto &t, llvm::StringRef what,
                    std::string &error,
                    std::unique_ptr<std::string> raw = nullptr);
};
} // namespace

template <typename T, typename Field>
static void appendAs(std::vector<char> &out, const Field &field) {
  out.resize(field.size() * sizeof(T));
  char *p = out.data();
  for (auto x : field) {
    T y = static_cast<T>(x);
    std::memcpy(p, &y, sizeof(T));
    p += sizeof(T);
  }
}

ElementsAttr TensorReader::read(const onnx::TensorProto &t,
                                llvm::StringRef what, std::string &error,
                                std::unique_ptr<std::string> raw) {
  std::string why;
  Type elem = convertElementType(ctx, t.data_type(), why);
  if (!elem) {
    error = what.str() + ": " + why;
    return {};
  }
  if (t.has_segment()) {
    error = what.str() + ": segmented tensors are not supported";
    return {};
  }
  SmallVector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) {
      error = what.str() + ": negative dimension " + std::to_string(d);
      return {};
    }
    shape.push_back(d);
    if (d != 0 && count > (int64_t(1) << 40) / d) {
      error = what.str() + ": too many elements";
      return {};
    }
    count *= d;
  }
  auto type = RankedTensorType::get(shape, elem);
  int64_t width = byteWidth(elem);
  int64_t need = count * width;

  // The bytes, in Tide's layout (little-endian, bool as one byte).
  std::vector<char> owned;
  llvm::StringRef bytes;
  // What keeps `bytes` alive if a blob may point into it without a copy.
  std::shared_ptr<const void> keeper;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &kv : t.external_data()) {
      if (kv.key() == "location")
        location = kv.value();
      else if (kv.key() == "offset" || kv.key() == "length") {
        int64_t x;
        if (llvm::StringRef(kv.value()).getAsInteger(10, x) || x < 0) {
          error = what.str() + ": bad external data " + kv.key() + " '" +
                  kv.value() + "'";
          return {};
        }
        (kv.key() == "offset" ? offset : length) = x;
      }
    }
    if (location.empty()) {
      error = what.str() + ": external data without a location";
      return {};
    }
    // Inside the model's folder only (ONNX Runtime refuses an absolute
    // location or one that leaves the folder; a model could otherwise read
    // any file into its weights).
    llvm::SmallString<256> relative(location);
    llvm::sys::path::remove_dots(relative, /*remove_dot_dot=*/true);
    if (llvm::sys::path::is_absolute(location) ||
        llvm::sys::path::has_root_name(location) ||
        llvm::StringRef(relative).starts_with("..")) {
      error = what.str() + ": external data location '" + location +
              "' is outside the model's folder";
      return {};
    }
    llvm::SmallString<256> file(baseDir);
    llvm::sys::path::append(file, relative);
    auto &buffer = files[file];
    if (!buffer) {
      auto loaded = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                                /*RequiresNullTerminator=*/
                                                false);
      if (!loaded) {
        error = what.str() + ": cannot read external data file '" +
                file.str().str() + "': " + loaded.getError().message();
        return {};
      }
      buffer = std::shared_ptr<llvm::MemoryBuffer>(std::move(*loaded));
    }
    keeper = buffer;
    int64_t size = buffer->getBufferSize();
    if (length < 0)
      length = size - std::min(offset, size);
    if (offset > size || length > size - offset) {
      error = what.str() + ": external data [" + std::to_string(offset) +
              ", +" + std::to_string(length) + ") lies outside '" +
              file.str().str() + "' (" + std::to_string(size) + " bytes)";
      return {};
    }
    bytes = buffer->getBuffer().substr(offset, length);
  } else if (raw) {
    bytes = *raw;
    keeper = std::shared_ptr<const std::string>(std::move(raw));
  } else if (t.has_raw_data()) {
    bytes = t.raw_data();
  } else {
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      appendAs<float>(owned, t.float_data());
      break;
    case onnx::TensorProto::DOUBLE:
      appendAs<double>(owned, t.double_data());
      break;
    case onnx::TensorProto::INT64:
      appendAs<int64_t>(owned, t.int64_data());
      break;
    case onnx::TensorProto::INT32:
      appendAs<int32_t>(owned, t.int32_data());
      break;
    // uint32 and uint64 are stored in uint64_data; uint8 and uint16 in
    // int32_data, like the other narrow types.
    case onnx::TensorProto::UINT64:
      appendAs<uint64_t>(owned, t.uint64_data());
      break;
    case onnx::TensorProto::UINT32:
      appendAs<uint32_t>(owned, t.uint64_data());
      break;
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
      appendAs<uint16_t>(owned, t.int32_data());
      break;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      appendAs<uint8_t>(owned, t.int32_data());
      break;
    default:
      // The narrow types: a byte (float8) or a packed byte (4- and 2-bit
      // types) per int32_data entry.
      if (narrow::isNarrow(t.data_type()))
        appendAs<uint8_t>(owned, t.int32_data());
      break;
    }
    bytes = llvm::StringRef(owned.data(), owned.size());
  }
  // 4- and 2-bit types are packed, the first element in the low bits: one
  // element per byte for Tide (INT4 and INT2 sign-extended).
  std::vector<char> unpacked;
  if (unsigned bits =
          narrow::isNarrow(t.data_type()) ? narrow::bitsOf(t.data_type()) : 8;
      bits < 8) {
    int64_t perByte = 8 / bits;
    int64_t packed = (count + perByte - 1) / perByte;
    if (static_cast<int64_t>(bytes.size()) != packed) {
      error = what.str() + " has " + std::to_string(bytes.size()) +
              " bytes of data; its shape and type (" + std::to_string(count) +
              " x " + dataTypeName(t.data_type()) + ", " +
              std::to_string(perByte) + " to a byte) need " +
              std::to_string(packed);
      return {};
    }
    bool isSigned = narrow::intRange(t.data_type()).first < 0 &&
                    !narrow::isFloat(t.data_type());
    unpacked.resize(count);
    for (int64_t i = 0; i < count; ++i) {
      unsigned v =
          (static_cast<uint8_t>(bytes[i / perByte]) >> (bits * (i % perByte))) &
          ((1u << bits) - 1);
      if (isSigned && (v & (1u << (bits - 1))))
        v |= ~((1u << bits) - 1);
      unpacked[i] = static_cast<char>(v);
    }
    bytes = llvm::StringRef(unpacked.data(), unpacked.size());
    keeper.reset(); // a copy: no blob may point into it
  }
  if (static_cast<int64_t>(bytes.size()) != need) {
    error = what.str() + " has " + std::to_string(bytes.size()) +
            " bytes of data; its shape and type (" + std::to_string(count) +
            " x " + dataTypeName(t.data_type()) + ") need " +
            std::to_string(need);
    return {};
  }
  ArrayRef<char> data(bytes.data(), bytes.size());
  if (elem.isInteger(1)) {
    SmallVector<bool> values;
    for (char c : data)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, values);
  }
  if (count <= inlineLimit)
    return DenseElementsAttr::getFromRawBuffer(type, data);
  std::string name = t.name().empty() ? what.str() : t.name();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  // The blob points into the mapped file or the taken raw_data where their
  // alignment allows (no second copy of the weights), else holds a copy.
  size_t align = llvm::PowerOf2Ceil(std::max<int64_t>(width, 1));
  if (keeper && reinterpret_cast<uintptr_t>(data.data()) % align == 0)
    return DenseResourceElementsAttr::get(
        type, name,
        AsmResourceBlob(
            data, align,
            [keeper = std::move(keeper)](void *, size_t, size_t) {},
            /*dataIsMutable=*/false));
  return DenseResourceElementsAttr::get(
      type, name, HeapAsmResourceBlob::allocateAndCopyInferAlign(data));
}

//===----------------------------------------------------------------------===//
// NodeImporter
//===----------------------------------------------------------------------===//

NodeImporter::NodeImporter(GraphImporter &graph, const onnx::NodeProto &node,
                           Location loc, int64_t opset)
    : node(node), loc(loc), opset(opset), b(graph.b), ctx(graph.ctx),
      graph(graph) {}

unsigned NodeImporter::numInputs() const {
  unsigned n = node.input_size();
  while (n > 0 && node.input(n - 1).empty())
    --n;
  return n;
}

bool NodeImporter::has(unsigned i) const {
  return static_cast<int>(i) < node.input_size() && !node.input(i).empty();
}

Value NodeImporter::in(unsigned i) const {
  if (!has(i))
    return {};
  Value v = graph.values.lookup(node.input(i));
  if (v)
    return v;
  auto shape = graph.shapes.find(node.input(i));
  if (shape != graph.shapes.end()) {
    // Computed at run time from sizes: built the first time an op reads it.
    OpBuilder::InsertionGuard guard(b);
    NodeImporter &self = const_cast<NodeImporter &>(*this);
    Value value = self.materialize(shape->second);
    graph.values[node.input(i)] = value;
    return value;
  }
  auto c = graph.constants.find(node.input(i));
  if (c == graph.constants.end())
    return {};
  // Materialize a constant the first time a non-folding op uses it.
  OpBuilder::InsertionGuard guard(b);
  Value value =
      ConstantOp::create(b, loc, c->second.getShapedType(), c->second);
  graph.values[node.input(i)] = value;
  return value;
}

RankedTensorType NodeImporter::inType(unsigned i) const {
  if (auto c = constIn(i))
    return llvm::cast<RankedTensorType>(c->getShapedType());
  if (has(i) && !graph.values.count(node.input(i))) {
    auto shape = graph.shapes.find(node.input(i));
    if (shape != graph.shapes.end())
      return shape->second.type;
  }
  Value v = in(i);
  return v ? llvm::cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

std::optional<ElementsAttr> NodeImporter::constIn(unsigned i) const {
  if (!has(i))
    return std::nullopt;
  auto it = graph.constants.find(node.input(i));
  if (it == graph.constants.end())
    return std::nullopt;
  return it->second;
}

FailureOr<HostValues> NodeImporter::requireConstIn(unsigned i,
                                                   llvm::StringRef role) {
  if (!has(i)) {
    error() << "needs input " << i << " (the " << role << ")";
    return failure();
  }
  if (auto c = constIn(i))
    if (auto v = readHostValues(*c))
      return *v;
  auto diag = error();
  diag << "input " << i << " ('" << node.input(i) << "', the " << role
       << ") must be known while importing: it sets a result shape";
  auto shape = graph.shapes.find(node.input(i));
  if (shape != graph.shapes.end()) {
    diag << ", but it depends on " << describeDynamic(shape->second)
         << ", known only at run time (this input of " << opType()
         << " takes no run-time sizes); fix the size with --bind-shape";
    return failure();
  }
  if (graph.graphInputs.count(node.input(i))) {
    diag << ". It is a graph input: bind it with --bind-input " << node.input(i)
         << "=FILE";
    return failure();
  }
  // Which graph inputs does it depend on?
  SmallVector<std::string> sources;
  SmallVector<Value> work{in(i)};
  llvm::DenseSet<Value> seen;
  while (!work.empty() && seen.size() < 10000) {
    Value v = work.pop_back_val();
    if (!v || !seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      // (A loop body's block is not in an op yet while it is built.)
      Operation *owner = arg.getOwner()->getParentOp();
      auto func = owner ? dyn_cast<func::FuncOp>(owner) : func::FuncOp();
      if (auto name = func ? func.getArgAttrOfType<StringAttr>(
                                 arg.getArgNumber(), "onnx.name")
                           : StringAttr())
        sources.push_back(name.str());
      continue;
    }
    for (Value operand : v.getDefiningOp()->getOperands())
      work.push_back(operand);
  }
  llvm::sort(sources);
  if (sources.empty()) {
    diag << ", but it is computed at run time";
    return failure();
  }
  diag << ", but it is computed at run time from graph input";
  diag << (sources.size() > 1 ? "s " : " ");
  for (auto [k, name] : llvm::enumerate(sources))
    diag << (k ? ", '" : "'") << name << "'";
  diag << ": bind " << (sources.size() > 1 ? "them" : "it")
       << " with --bind-input " << sources.front() << "=FILE";
  return failure();
}

FailureOr<SmallVector<int64_t>>
NodeImporter::requireInts(unsigned i, llvm::StringRef role) {
  auto v = requireConstIn(i, role);
  if (failed(v))
    return failure();
  SmallVector<int64_t> out;
  for (int64_t k = 0; k < v->size(); ++k)
    out.push_back(v->intAt(k));
  return out;
}

const onnx::AttributeProto *NodeImporter::attr(llvm::StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

namespace {
const char *attributeTypeName(int type) {
  switch (type) {
  case onnx::AttributeProto::FLOAT:
    return "FLOAT";
  case onnx::AttributeProto::INT:
    return "INT";
  case onnx::AttributeProto::STRING:
    return "STRING";
  case onnx::AttributeProto::TENSOR:
    return "TENSOR";
  case onnx::AttributeProto::GRAPH:
    return "GRAPH";
  case onnx::AttributeProto::FLOATS:
    return "FLOATS";
  case onnx::AttributeProto::INTS:
    return "INTS";
  case onnx::AttributeProto::STRINGS:
    return "STRINGS";
  default:
    return "another type";
  }
}

/// `a` if it holds `type` (or says no type, as very old models do); else
/// reports at `n` (once) and returns null, so that the default is used and
/// the node fails. (Read as another type, the field is 0: LeakyRelu's alpha
/// stored as an INT 2 was 0, where ONNX Runtime refuses the model.)
const onnx::AttributeProto *typed(const NodeImporter &n,
                                  const onnx::AttributeProto *a, int type) {
  if (!a || a->type() == type || a->type() == onnx::AttributeProto::UNDEFINED)
    return a;
  if (!n.badAttribute)
    emitError(n.loc) << "attribute '" << a->name() << "' is "
                     << attributeTypeName(a->type()) << "; "
                     << attributeTypeName(type) << " expected";
  n.badAttribute = true;
  return nullptr;
}
} // namespace

int64_t NodeImporter::attrInt(llvm::StringRef name, int64_t dflt) const {
  const auto *a = typed(*this, attr(name), onnx::AttributeProto::INT);
  return a ? a->i() : dflt;
}

double NodeImporter::attrFloat(llvm::StringRef name, double dflt) const {
  const auto *a = typed(*this, attr(name), onnx::AttributeProto::FLOAT);
  return a ? a->f() : dflt;
}

std::string NodeImporter::attrString(llvm::StringRef name,
                                     llvm::StringRef dflt) const {
  const auto *a = typed(*this, attr(name), onnx::AttributeProto::STRING);
  return a ? a->s() : dflt.str();
}

std::optional<SmallVector<int64_t>>
NodeImporter::attrInts(llvm::StringRef name) const {
  const auto *a = typed(*this, attr(name), onnx::AttributeProto::INTS);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

LogicalResult NodeImporter::checkAttrs(ArrayRef<llvm::StringRef> known) {
  for (const auto &a : node.attribute())
    if (!llvm::is_contained(known, a.name()))
      return fail("attribute '" + a.name() + "' is not supported");
  return success();
}

bool NodeImporter::wantsOutput(unsigned i) const {
  return static_cast<int>(i) < node.output_size() && !node.output(i).empty();
}

void NodeImporter::setOut(unsigned i, Value v) {
  if (wantsOutput(i)) {
    graph.values[node.output(i)] = v;
    graph.constants.erase(node.output(i));
    graph.shapes.erase(node.output(i));
  }
}

void NodeImporter::setConstOut(unsigned i, DenseElementsAttr value) {
  if (wantsOutput(i)) {
    graph.constants[node.output(i)] = value;
    graph.values.erase(node.output(i));
    graph.shapes.erase(node.output(i));
  }
}

/// Ops that move elements without computing on them: a narrow type
/// (narrow::isNarrow) passes through them in its carrier.
static bool movesElements(llvm::StringRef op) {
  static const llvm::StringSet<> ops = {
      "Identity",       "Reshape",  "Flatten", "Squeeze", "Unsqueeze",
      "Transpose",      "Concat",   "Split",   "Slice",   "Gather",
      "GatherElements", "GatherND", "Expand",  "Tile",    "DepthToSpace",
      "SpaceToDepth",   "Shape",    "Size",    "Where",   "Constant"};
  return ops.contains(op);
}

/// Whether `n` converts to or from a narrow type (Cast, CastLike,
/// QuantizeLinear, DequantizeLinear with a narrow input, `to` or
/// `output_dtype`).
static bool isNarrowConversion(NodeImporter &n) {
  llvm::StringRef op = n.opType();
  if (op != "Cast" && op != "CastLike" && op != "QuantizeLinear" &&
      op != "DequantizeLinear")
    return false;
  for (unsigned i = 0; i < n.numInputs(); ++i)
    if (n.narrowIn(i))
      return true;
  const char *attr = op == "Cast" ? "to" : "output_dtype";
  const auto *a = n.attr(attr);
  return a && a->type() != onnx::AttributeProto::STRING &&
         narrow::isNarrow(static_cast<int32_t>(a->i()));
}

LogicalResult NodeImporter::convertAs(const onnx::NodeProto &other,
                                      Converter convert) {
  NodeImporter inner(graph, other, loc, opset);
  inner.callGraph = callGraph;
  return convert(inner);
}

int32_t NodeImporter::narrowIn(unsigned i) const {
  return has(i) ? graph.narrowTypes.lookup(node.input(i)) : 0;
}

void NodeImporter::setNarrowOut(unsigned i, int32_t dt) {
  if (!wantsOutput(i))
    return;
  if (dt)
    graph.narrowTypes[node.output(i)] = dt;
  else
    graph.narrowTypes.erase(node.output(i));
}

Value NodeImporter::outValue(unsigned i) const {
  return wantsOutput(i) ? graph.values.lookup(node.output(i)) : Value();
}

ElementsAttr NodeImporter::readTensor(const onnx::TensorProto &t,
                                      llvm::StringRef what,
                                      std::string &error) {
  return graph.readTensor(t, what, error);
}

InFlightDiagnostic NodeImporter::error() { return emitError(loc); }

LogicalResult NodeImporter::fail(const llvm::Twine &message) {
  return emitError(loc) << message;
}

Value NodeImporter::finish(Operation *op) {
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    return {};
  }
  return op->getResult(0);
}

Value NodeImporter::constant(DenseElementsAttr value) {
  return ConstantOp::create(b, loc, value.getType(), value);
}

Value NodeImporter::scalar(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  if (auto ft = dyn_cast<FloatType>(elementType))
    return constant(makeDense(type, {}, {value}));
  // Saturated into int64 (a float attribute such as Clip's bound can be out
  // of its range, or NaN: converting those is undefined).
  return constant(makeDense(type, {saturatingInt64(value)}, {}));
}

Value NodeImporter::cast(Value v, Type elementType) {
  if (!v) // an error was reported where it was made
    return {};
  auto type = llvm::cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elementType)
    return v;
  return make<CastOp>(type.clone(elementType), v);
}

Value NodeImporter::reshape(Value v, ArrayRef<int64_t> shape) {
  if (!v) // an error was reported where it was made
    return {};
  auto type = llvm::cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return make<ReshapeOp>(type.clone(shape), v);
}

Value NodeImporter::broadcastTo(Value v, ArrayRef<int64_t> shape) {
  if (!v) // an error was reported where it was made
    return {};
  auto type = llvm::cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return make<BroadcastToOp>(type.clone(shape), v);
}

FailureOr<int64_t> NodeImporter::normAxis(int64_t axis, int64_t rank) {
  // Strictly in [0, rank): a scalar has no axis. (Axis 0 of a scalar was
  // once accepted, and converters indexed their empty per-axis vectors with
  // it: tide-fuzz-onnx's use-after-free, docs/reliability.md.)
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    if (rank == 0)
      error() << "axis " << axis
              << " is out of range: the input is a scalar (rank 0), which "
                 "has no axes";
    else
      error() << "axis " << axis << " is out of range for rank " << rank;
    return failure();
  }
  return a;
}

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

Location GraphImporter::fileLoc() {
  return FileLineColLoc::get(ctx, path, 0, 0);
}

std::string GraphImporter::stash(llvm::StringRef name) {
  std::string fresh = freshName();
  if (Value v = values.lookup(name))
    values[fresh] = v;
  if (auto c = constants.find(name); c != constants.end())
    constants[fresh] = c->second;
  if (auto sv = shapes.find(name); sv != shapes.end())
    shapes[fresh] = sv->second;
  if (auto a = aggregates.find(name); a != aggregates.end())
    aggregates[fresh] = a->second;
  if (int32_t dt = narrowTypes.lookup(name))
    narrowTypes[fresh] = dt;
  return fresh;
}

std::string GraphImporter::stash(Value v) {
  std::string fresh = freshName();
  values[fresh] = v;
  return fresh;
}

Location GraphImporter::nodeLoc(const onnx::NodeProto &node, int index) {
  std::string name =
      node.name().empty() ? "#" + std::to_string(index) : node.name();
  return NameLoc::get(StringAttr::get(ctx, name + " (" + node.op_type() + ")"),
                      fileLoc());
}

namespace {
/// What a name is bound to while importing: a value, a constant or a
/// size-derived shape value (any of them may be set).
struct Binding {
  Value value;
  std::optional<ElementsAttr> constant;
  std::optional<ShapeValue> shape;
  std::optional<Aggregate> aggregate;
  bool empty() const { return !value && !constant && !shape && !aggregate; }
};

Binding lookupBinding(GraphImporter &graph, llvm::StringRef name) {
  Binding b;
  b.value = graph.values.lookup(name);
  if (auto c = graph.constants.find(name); c != graph.constants.end())
    b.constant = c->second;
  if (auto sv = graph.shapes.find(name); sv != graph.shapes.end())
    b.shape = sv->second;
  if (auto a = graph.aggregates.find(name); a != graph.aggregates.end())
    b.aggregate = a->second;
  return b;
}

void bindName(GraphImporter &graph, llvm::StringRef name, const Binding &b) {
  graph.values.erase(name);
  graph.constants.erase(name);
  graph.shapes.erase(name);
  graph.aggregates.erase(name);
  if (b.value)
    graph.values[name] = b.value;
  if (b.constant)
    graph.constants[name] = *b.constant;
  if (b.shape)
    graph.shapes[name] = *b.shape;
  if (b.aggregate)
    graph.aggregates[name] = *b.aggregate;
}

/// The names a subgraph binds over the outer graph's (its inputs and
/// initializers may shadow outer names of the same spelling): their outer
/// bindings are put back when the scope ends, so that a node after the
/// subgraph reads the outer value.
class ShadowScope {
public:
  explicit ShadowScope(GraphImporter &graph) : graph(graph) {}
  ShadowScope(const ShadowScope &) = delete;
  ShadowScope &operator=(const ShadowScope &) = delete;
  ~ShadowScope() {
    for (auto &[name, b] : llvm::reverse(saved))
      bindName(graph, name, b);
  }
  void bind(llvm::StringRef name, const Binding &b) {
    if (seen.insert(name).second)
      saved.push_back({name.str(), lookupBinding(graph, name)});
    bindName(graph, name, b);
  }

private:
  GraphImporter &graph;
  llvm::StringSet<> seen;
  SmallVector<std::pair<std::string, Binding>> saved;
};

/// A boolean (or integer) scalar known while importing, if it is one.
std::optional<int64_t> knownScalar(const Binding &b) {
  if (b.constant && b.constant->getNumElements() == 1)
    if (auto values = readHostValues(*b.constant))
      return values->intAt(0);
  if (b.shape && b.shape->isConstant() && b.shape->elems.size() == 1)
    return b.shape->elems.front().value;
  return std::nullopt;
}

/// The binding as a value (constants and shape values built as ops).
Value valueOf(NodeImporter &n, const Binding &b) {
  if (b.aggregate) {
    (void)n.fail(std::string("a ") +
                 (b.aggregate->isOptional ? "optional" : "sequence") +
                 " passes where Tide needs a tensor (a run-time If or Loop "
                 "carries tensors only)");
    return {};
  }
  if (b.value)
    return b.value;
  if (b.shape)
    return n.materialize(*b.shape);
  if (b.constant)
    return n.constant(cast<DenseElementsAttr>(*b.constant));
  return {};
}

/// Imports the nodes (and initializers) of an If's branch `g` in place; the
/// bindings of its outputs in `outputs`.
LogicalResult importBranch(
    GraphImporter &graph, NodeImporter &n, const ImportedNode &entry,
    const onnx::GraphProto &g, ShadowScope &shadow,
    SmallVectorImpl<std::pair<std::string, std::string>> &names,
    const std::function<LogicalResult(const ImportedNode &)> &importNode) {
  for (const onnx::TensorProto &t : g.initializer()) {
    std::string error;
    ElementsAttr value =
        graph.readTensor(t, "an initializer of the branch", error);
    if (!value)
      return n.fail(error);
    Binding b;
    b.constant = value;
    shadow.bind(t.name(), b);
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &inner = g.node(i);
    if (failed(importNode({&inner, entry.opset, graph.nodeLoc(inner, i)})))
      return failure();
  }
  for (int i = 0; i < g.output_size(); ++i)
    names.push_back({g.output(i).name(), n.node.output(i)});
  return success();
}

/// An If. When its condition is known while importing (a constant, or a
/// comparison of sizes that importing decides: PyTorch's TorchScript
/// exporter turns a Python `if` on sizes into an If when the sizes are
/// dynamic) it is the nodes of the branch it takes, imported in place; the
/// branch's outputs become the If's. When the condition is computed at run
/// time, it is one tide.if whose regions are the two branches (only the one
/// taken runs); an output whose sizes differ between the branches has
/// run-time sizes there.
LogicalResult
importIf(GraphImporter &graph, NodeImporter &n, const ImportedNode &entry,
         const std::function<LogicalResult(const ImportedNode &)> &importNode) {
  if (failed(n.checkAttrs({"then_branch", "else_branch"})))
    return failure();
  std::optional<bool> cond;
  if (n.has(0)) {
    if (auto c = n.constIn(0); c && c->getNumElements() == 1) {
      if (auto values = readHostValues(*c))
        cond = values->at(0) != 0;
    } else if (auto sym = n.shapeIn(0);
               sym && sym->isConstant() && sym->elems.size() == 1) {
      cond = sym->elems.front().value != 0;
    }
  }
  auto branchGraph = [&](bool which) -> FailureOr<const onnx::GraphProto *> {
    const onnx::AttributeProto *branch =
        n.attr(which ? "then_branch" : "else_branch");
    if (!branch || !branch->has_g()) {
      (void)n.fail(std::string("needs a '") +
                   (which ? "then_branch" : "else_branch") + "' graph");
      return failure();
    }
    const onnx::GraphProto &g = branch->g();
    if (g.output_size() != static_cast<int>(n.numOutputs())) {
      (void)n.fail("the " + llvm::Twine(which ? "then" : "else") +
                   " branch has " + llvm::Twine(g.output_size()) +
                   " outputs for the If's " + llvm::Twine(n.numOutputs()));
      return failure();
    }
    return &g;
  };
  if (cond) {
    auto g = branchGraph(*cond);
    SmallVector<std::pair<std::string, std::string>> names;
    ShadowScope shadow(graph);
    if (failed(g) ||
        failed(importBranch(graph, n, entry, **g, shadow, names, importNode)))
      return failure();
    for (auto &[from, to] : names) {
      if (to.empty())
        continue;
      Binding b = lookupBinding(graph, from);
      if (b.empty())
        return n.fail("output '" + from +
                      "' of the branch taken is not produced "
                      "by the branch or the graph");
      bindName(graph, to, b);
    }
    return success();
  }
  if (!n.has(0))
    return n.fail("needs a condition");
  Value c = n.in(0);
  auto cType = c ? dyn_cast<RankedTensorType>(c.getType()) : nullptr;
  if (!cType || !cType.getElementType().isInteger(1) ||
      !cType.hasStaticShape() || cType.getNumElements() != 1)
    return n.fail("the condition must be one boolean");
  c = n.reshape(c, {});
  auto thenG = branchGraph(true), elseG = branchGraph(false);
  if (failed(thenG) || failed(elseG))
    return failure();
  IfOp op = buildIf(n, c, [&](bool which) -> FailureOr<SmallVector<Value>> {
    SmallVector<std::pair<std::string, std::string>> names;
    ShadowScope shadow(graph);
    if (failed(importBranch(graph, n, entry, which ? **thenG : **elseG, shadow,
                            names, importNode)))
      return failure();
    SmallVector<Value> ys;
    for (auto [i, name] : llvm::enumerate(names)) {
      Binding b = lookupBinding(graph, name.first);
      if (b.empty())
        return n.fail("output " + llvm::Twine(i) + " of the " +
                      (which ? "then" : "else") +
                      " branch is not produced by the branch or the graph");
      Value v = valueOf(n, b);
      if (!v)
        return failure();
      ys.push_back(v);
    }
    return ys;
  });
  if (!op)
    return failure();
  for (unsigned i = 0; i < n.numOutputs(); ++i)
    if (n.wantsOutput(i))
      n.setOut(i, op.getResult(i));
  return success();
}

/// Most iterations a Loop or Scan is unrolled to.
constexpr int64_t kMaxUnrolledIterations = 4096;

/// Imports the nodes of `g` (a Loop's or Scan's body) once, its inputs bound
/// to `inputs`; its outputs' bindings in `outputs`. Names the body defines
/// are unbound first, so that an iteration never reads the previous one's.
LogicalResult importBodyOnce(
    GraphImporter &graph, NodeImporter &n, const ImportedNode &entry,
    const onnx::GraphProto &g, ArrayRef<Binding> inputs,
    SmallVectorImpl<Binding> &outputs,
    const std::function<LogicalResult(const ImportedNode &)> &importNode) {
  for (const onnx::NodeProto &node : g.node())
    for (const std::string &out : node.output())
      bindName(graph, out, Binding());
  // The inputs shadow outer names of the same spelling only inside.
  ShadowScope shadow(graph);
  for (int i = 0; i < g.input_size(); ++i)
    shadow.bind(g.input(i).name(), inputs[i]);
  for (const auto &input : g.input())
    if (int32_t dt = input.type().tensor_type().elem_type();
        narrow::isNarrow(dt))
      graph.narrowTypes[input.name()] = dt;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &inner = g.node(i);
    if (failed(importNode({&inner, entry.opset, graph.nodeLoc(inner, i)})))
      return failure();
  }
  outputs.clear();
  for (int i = 0; i < g.output_size(); ++i) {
    Binding b = lookupBinding(graph, g.output(i).name());
    if (b.empty())
      return n.fail("output '" + g.output(i).name() +
                    "' of the body is not produced by the body or the graph");
    outputs.push_back(b);
  }
  return success();
}

/// Values of one rank stacked along a new axis `axis` (each reshaped to a
/// size of 1 there, then concatenated).
Value stack(NodeImporter &n, ArrayRef<Value> parts, int64_t axis) {
  SmallVector<Value> expanded;
  for (Value v : parts) {
    if (!v)
      return {};
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(type.getShape());
    if (axis > static_cast<int64_t>(shape.size()) ||
        llvm::any_of(shape, ShapedType::isDynamic)) {
      (void)n.fail("a scan output of dynamic shape is not supported");
      return {};
    }
    shape.insert(shape.begin() + axis, 1);
    expanded.push_back(n.reshape(v, shape));
  }
  return expanded.size() == 1 ? expanded[0]
                              : n.create<ConcatOp>(expanded, axis);
}

/// Binds the initializers of a body `g` in `shadow` (outer names of the
/// same spelling come back when it ends).
void readBodyInitializers(GraphImporter &graph, const onnx::GraphProto &g,
                          std::string &error, ShadowScope &shadow) {
  for (const onnx::TensorProto &t : g.initializer()) {
    ElementsAttr value =
        graph.readTensor(t, "an initializer of the body", error);
    if (!value)
      return;
    Binding b;
    b.constant = value;
    shadow.bind(t.name(), b);
  }
}

/// How a Loop run as one tide.scan carries each of its values: a tensor (a
/// state of the scan), a sequence its body passes on as it is, or a sequence
/// its body appends one tensor to at every iteration. Appended to from
/// empty, the scan stacks the tensors as one more output; appended to from
/// elements it starts with (whose sizes the iterations' must match, and
/// which must come out also after no iteration), it is a state of the scan
/// holding them stacked, concatenated with the new tensor per iteration
/// (Grown). Either is a sequence of run-time length after the loop.
enum class Carry { Tensor, SameSequence, Appended, Grown };

struct LoopCarry {
  SmallVector<Carry> kinds;
  /// Per carried value, the sequence it starts as (Carry::Tensor: none).
  SmallVector<Aggregate> sequences;
  int64_t carried() const { return kinds.size(); }
  /// Whether carried value `j` is a state of the scan.
  bool isState(int64_t j) const {
    return kinds[j] == Carry::Tensor || kinds[j] == Carry::Grown;
  }
  int64_t states() const {
    return llvm::count(kinds, Carry::Tensor) + llvm::count(kinds, Carry::Grown);
  }
};

/// How many times `name` is read in `g` and the graphs nested in it (its
/// nodes' inputs, its outputs).
int64_t countReads(const onnx::GraphProto &g, llvm::StringRef name) {
  int64_t reads = 0;
  for (const onnx::NodeProto &node : g.node()) {
    reads += llvm::count(node.input(), name);
    for (const onnx::AttributeProto &a : node.attribute()) {
      if (a.has_g())
        reads += countReads(a.g(), name);
      for (const onnx::GraphProto &sub : a.graphs())
        reads += countReads(sub, name);
    }
  }
  for (const onnx::ValueInfoProto &out : g.output())
    reads += out.name() == name;
  return reads;
}

/// How the Loop `n` with body `g` carries each value (a run-time trip count
/// or condition), or reports a sequence it cannot carry: Tide keeps a
/// sequence's elements while importing, so over a loop of run-time length
/// only one that stays as it is, or that grows by one tensor at the end per
/// iteration and is not read inside the loop, as exporters write a list
/// appended to in a loop (PyTorch's `out.append(h)`, then `torch.stack`).
FailureOr<LoopCarry> classifyCarried(GraphImporter &graph, NodeImporter &n,
                                     const onnx::GraphProto &g,
                                     int64_t carried) {
  LoopCarry carry;
  for (int64_t j = 0; j < carried; ++j) {
    Binding init = lookupBinding(graph, n.node.input(2 + j));
    if (!init.aggregate) {
      carry.kinds.push_back(Carry::Tensor);
      carry.sequences.emplace_back();
      continue;
    }
    const std::string &in = g.input(2 + j).name();
    const std::string &out = g.output(1 + j).name();
    const Aggregate &a = *init.aggregate;
    auto refuse = [&](const llvm::Twine &why) {
      (void)n.fail("loop-carried value '" + n.node.input(2 + j) + "' is " +
                   (a.isOptional ? "an optional" : "a sequence") +
                   " and the loop's length is known only at run time: " + why);
      return failure();
    };
    if (a.isOptional)
      return refuse("Tide carries tensors and sequences through such a loop");
    if (!a.stacked.empty())
      return refuse("it has a run-time length already (another such loop "
                    "built it)");
    if (in == out) {
      carry.kinds.push_back(Carry::SameSequence);
      carry.sequences.push_back(a);
      continue;
    }
    const onnx::NodeProto *producer = nullptr;
    for (const onnx::NodeProto &node : g.node())
      if (llvm::is_contained(node.output(), out))
        producer = &node;
    if (!producer || producer->op_type() != "SequenceInsert" ||
        producer->input_size() < 2 || producer->input(0) != in ||
        (producer->input_size() > 2 && !producer->input(2).empty()) ||
        countReads(g, in) != 1)
      return refuse("Tide takes such a sequence when each iteration appends "
                    "one tensor at its end (SequenceInsert without a "
                    "position) and nothing else in the body reads it");
    carry.kinds.push_back(a.elements.empty() ? Carry::Appended : Carry::Grown);
    carry.sequences.push_back(a);
  }
  return carry;
}

/// `v` with a leading axis of size 1.
Value withLeadingUnit(NodeImporter &n, Value v) {
  SmallVector<SymDim> dims = n.dimsOf(v);
  dims.insert(dims.begin(), SymDim::constant(1));
  return n.reshapeTo(v, dims);
}

/// The initial state of a Grown sequence: its elements stacked, with a
/// leading size known only at run time (it grows).
Value grownInit(GraphImporter &graph, NodeImporter &n, const Aggregate &a,
                llvm::StringRef name) {
  SmallVector<Value> parts;
  RankedTensorType first;
  for (const std::string &element : a.elements) {
    Value e = valueOf(n, lookupBinding(graph, element));
    if (!e)
      return {};
    auto type = cast<RankedTensorType>(e.getType());
    if (first && (type.getElementType() != first.getElementType() ||
                  type.getRank() != first.getRank())) {
      (void)n.fail("loop-carried sequence '" + name +
                   "' holds elements of different types or ranks");
      return {};
    }
    first = type;
    parts.push_back(withLeadingUnit(n, e));
    if (!parts.back())
      return {};
  }
  Value stacked =
      parts.size() == 1 ? parts.front() : n.create<ConcatOp>(parts, 0);
  if (!stacked)
    return {};
  auto type = cast<RankedTensorType>(stacked.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = ShapedType::kDynamic;
  return n.make<ReshapeOp>(type.clone(shape), stacked,
                           n.shapeOperand(n.dimsOf(stacked)));
}

/// The body's inputs for the carried values: the scan's states for tensors,
/// the sequence itself for one passed on, an empty sequence for one appended
/// to (the body's SequenceInsert then gives the iteration's element).
void bindCarried(const LoopCarry &carry, ValueRange states,
                 SmallVectorImpl<Binding> &inputs) {
  unsigned next = 0;
  for (int64_t j = 0; j < carry.carried(); ++j) {
    Binding b;
    if (carry.kinds[j] == Carry::Tensor) {
      b.value = states[next++];
    } else {
      b.aggregate = carry.sequences[j];
      if (carry.kinds[j] != Carry::SameSequence)
        b.aggregate->elements.clear();
      if (carry.kinds[j] == Carry::Grown)
        ++next;
    }
    inputs.push_back(b);
  }
}

/// The scan body's results from the body's outputs (after the condition) and
/// its states: the carried states (a Grown sequence's with the iteration's
/// tensor concatenated), the scan outputs, then each appended tensor.
FailureOr<SmallVector<Value>>
carriedResults(GraphImporter &graph, NodeImporter &n, const LoopCarry &carry,
               ValueRange states, ArrayRef<Binding> outputs) {
  SmallVector<Value> ys, appended;
  unsigned nextState = 0;
  for (auto [k, b] : llvm::enumerate(outputs)) {
    int64_t j = k;
    if (j < carry.carried() && carry.kinds[j] != Carry::Tensor) {
      if (carry.kinds[j] == Carry::SameSequence)
        continue;
      if (!b.aggregate || b.aggregate->elements.size() != 1) {
        (void)n.fail("the body's SequenceInsert into loop-carried sequence '" +
                     n.node.input(2 + j) + "' did not give one element");
        return failure();
      }
      Value v = valueOf(n, lookupBinding(graph, b.aggregate->elements.front()));
      if (!v)
        return failure();
      if (carry.kinds[j] == Carry::Appended) {
        appended.push_back(v);
        continue;
      }
      // Grown: the stacked elements so far, then this one (a concatenation
      // checks its other sizes when it runs).
      Value state = states[nextState++];
      auto stateType = cast<RankedTensorType>(state.getType());
      auto vType = cast<RankedTensorType>(v.getType());
      if (vType.getElementType() != stateType.getElementType() ||
          vType.getRank() + 1 != stateType.getRank()) {
        std::string got, want;
        llvm::raw_string_ostream(got) << vType;
        llvm::raw_string_ostream(want) << RankedTensorType::get(
            stateType.getShape().drop_front(), stateType.getElementType());
        (void)n.fail("the body appends a " + got +
                     " to loop-carried sequence '" + n.node.input(2 + j) +
                     "', whose elements are " + want);
        return failure();
      }
      Value grown = withLeadingUnit(n, v);
      if (grown)
        grown = n.create<ConcatOp>(SmallVector<Value>{state, grown}, 0);
      if (grown && grown.getType() != stateType)
        grown = n.make<ReshapeOp>(stateType, grown,
                                  n.shapeOperand(n.dimsOf(grown)));
      if (!grown)
        return failure();
      ys.push_back(grown);
      continue;
    }
    if (j < carry.carried())
      ++nextState;
    Value v = valueOf(n, b);
    if (!v)
      return failure();
    ys.push_back(v);
  }
  llvm::append_range(ys, appended);
  return ys;
}

/// Binds the Loop's outputs to the scan's `results` (after the condition):
/// the carried states, the stacked scan outputs, then a stacked tensor per
/// appended sequence.
LogicalResult bindLoopResults(GraphImporter &graph, NodeImporter &n,
                              const LoopCarry &carry, ValueRange results) {
  int64_t states = carry.states();
  int64_t appendedBase =
      results.size() - llvm::count(carry.kinds, Carry::Appended);
  int64_t nextState = 0, nextAppended = appendedBase;
  for (int64_t j = 0; j < carry.carried(); ++j) {
    bool wanted = j < n.numOutputs() && !n.node.output(j).empty();
    if (carry.kinds[j] == Carry::Tensor) {
      Value v = results[nextState++];
      if (wanted)
        n.setOut(j, v);
      continue;
    }
    Binding b;
    b.aggregate = carry.sequences[j];
    if (carry.kinds[j] != Carry::SameSequence) {
      Value stacked = carry.kinds[j] == Carry::Grown ? results[nextState++]
                                                     : results[nextAppended++];
      b.aggregate->elements.clear();
      b.aggregate->stacked = graph.stash(stacked);
    }
    if (wanted)
      bindName(graph, n.node.output(j), b);
  }
  for (int64_t k = carry.carried(); k < n.numOutputs(); ++k) {
    int64_t at = states + (k - carry.carried());
    if (!n.node.output(k).empty() && at < appendedBase)
      n.setOut(k, results[at]);
  }
  return success();
}

/// The initial loop-carried values of a Loop run as one tide.scan, each
/// with the sizes that its body declares may change made dynamic (a tensor
/// that grows by a concatenation per iteration, which exporters declare with
/// a symbolic or unknown size in the body's input or output): a loop's
/// states keep one type, so such a value is carried as a tensor of run-time
/// size from the start. Sizes the body does not declare stay as they are.
FailureOr<SmallVector<Value>> loopInits(GraphImporter &graph, NodeImporter &n,
                                        const onnx::GraphProto &g,
                                        const LoopCarry &carry) {
  SmallVector<Value> inits;
  for (int64_t j = 0; j < carry.carried(); ++j) {
    if (carry.kinds[j] == Carry::Grown) {
      Value v = grownInit(graph, n, carry.sequences[j], n.node.input(2 + j));
      if (!v)
        return failure();
      inits.push_back(v);
      continue;
    }
    if (carry.kinds[j] != Carry::Tensor)
      continue;
    Value v = valueOf(n, lookupBinding(graph, n.node.input(2 + j)));
    if (!v)
      return failure();
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(type.getShape());
    bool changed = false;
    auto widen = [&](const onnx::ValueInfoProto &info) {
      if (!info.type().tensor_type().has_shape())
        return;
      const auto &dims = info.type().tensor_type().shape().dim();
      if (dims.size() != type.getRank())
        return;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (!ShapedType::isDynamic(shape[d]) &&
            (!dims[d].has_dim_value() || dims[d].dim_value() != shape[d])) {
          shape[d] = ShapedType::kDynamic;
          changed = true;
        }
    };
    widen(g.input(2 + j));
    if (g.output_size() > 1 + j)
      widen(g.output(1 + j));
    if (changed) {
      auto wide = type.clone(shape);
      v = wide.getNumDynamicDims() <= 1
              ? n.make<ReshapeOp>(wide, v)
              : n.make<ReshapeOp>(wide, v, n.shapeOperand(n.dimsOf(v)));
      if (!v)
        return failure();
    }
    inits.push_back(v);
  }
  return inits;
}

/// The binding of a loop body's iteration number `iter` (a tensor<i64>
/// computed at run time): the value, and a size computed at run time too, so
/// that bounds derived from it (a Slice from `iter` to `iter + 1`) are
/// followed as sizes are.
Binding iterationBinding(NodeImporter &n, Value iter) {
  Binding b;
  b.value = iter;
  if (Value one = n.reshape(iter, {1}))
    b.shape =
        ShapeValue{cast<RankedTensorType>(iter.getType()), {SymDim::expr(one)}};
  return b;
}

/// A Loop whose trip count M is known only at run time (its condition
/// absent or true, and true after every iteration): one tide.scan over
/// iota(M), whose slice is the iteration number.
LogicalResult importLoopDynamic(
    GraphImporter &graph, NodeImporter &n, const ImportedNode &entry,
    const onnx::GraphProto &g, int64_t carried,
    const std::function<LogicalResult(const ImportedNode &)> &importNode) {
  Value m = n.in(0);
  auto mType = cast<RankedTensorType>(m.getType());
  if (!isa<IntegerType>(mType.getElementType()) || !mType.hasStaticShape() ||
      mType.getNumElements() != 1)
    return n.fail("the trip count M must be one integer");
  Type i64 = n.b.getI64Type();
  Value count = n.reshape(n.cast(m, i64), {1});
  if (count)
    count = n.create<MaximumOp>(count, n.scalar(i64, 0));
  Value iota =
      count ? n.make<IotaOp>(RankedTensorType::get({ShapedType::kDynamic}, i64),
                             count, 0)
            : Value();
  if (!iota)
    return failure();
  std::string error;
  ShadowScope shadow(graph);
  readBodyInitializers(graph, g, error, shadow);
  if (!error.empty())
    return n.fail(error);
  FailureOr<LoopCarry> carry = classifyCarried(graph, n, g, carried);
  if (failed(carry))
    return failure();
  FailureOr<SmallVector<Value>> carriedInits = loopInits(graph, n, g, *carry);
  if (failed(carriedInits))
    return failure();
  SmallVector<Value> inits = std::move(*carriedInits);
  auto i1 = RankedTensorType::get({}, IntegerType::get(graph.ctx, 1));
  ScanOp scan = buildScan(
      n, inits, ValueRange{iota}, /*reverse=*/false, /*conditional=*/false,
      [&](Value, ValueRange states,
          ValueRange slices) -> FailureOr<SmallVector<Value>> {
        SmallVector<Binding> inputs(2);
        inputs[0] = iterationBinding(n, slices[0]);
        inputs[1].constant = makeDense(i1, {1}, {});
        bindCarried(*carry, states, inputs);
        SmallVector<Binding> outputs;
        if (failed(importBodyOnce(graph, n, entry, g, inputs, outputs,
                                  importNode)))
          return failure();
        std::optional<int64_t> next = knownScalar(outputs[0]);
        if (!next || *next == 0)
          return n.fail("the trip count is known only at run time and the "
                        "body's condition is not always true: Tide runs such "
                        "a Loop as a loop of M iterations");
        return carriedResults(graph, n, *carry, states,
                              ArrayRef<Binding>(outputs).drop_front());
      });
  if (!scan)
    return failure();
  return bindLoopResults(graph, n, *carry, scan.getResults());
}

/// Whether a Loop body's condition output is provably true at every
/// iteration: its condition input passed on (directly or through Identity)
/// or a true constant, as exporters write a for loop.
bool conditionStaysTrue(GraphImporter &graph, const onnx::GraphProto &g) {
  std::string name = g.output(0).name();
  for (int hops = 0; hops <= g.node_size(); ++hops) {
    if (name == g.input(1).name())
      return true;
    std::string error;
    auto isTrue = [&](const onnx::TensorProto &t) {
      ElementsAttr value = graph.readTensor(t, "a condition", error);
      auto values = value ? readHostValues(value) : std::nullopt;
      return values && values->size() == 1 && values->intAt(0) != 0;
    };
    for (const onnx::TensorProto &t : g.initializer())
      if (t.name() == name)
        return isTrue(t);
    const onnx::NodeProto *producer = nullptr;
    for (const onnx::NodeProto &node : g.node())
      if (llvm::is_contained(node.output(), name))
        producer = &node;
    if (!producer)
      return false;
    if (producer->op_type() == "Identity" && producer->input_size() == 1) {
      name = producer->input(0);
      continue;
    }
    if (producer->op_type() == "Constant")
      for (const onnx::AttributeProto &a : producer->attribute())
        if (a.name() == "value" && a.has_t())
          return isTrue(a.t());
    return false;
  }
  return false;
}

/// A Loop whose condition (or trip count) is known only at run time: one
/// conditional tide.scan (a while loop) whose condition state is the Loop's
/// condition and, with a trip count M, that the next iteration number is
/// below M. The scan outputs stack the iterations that ran.
LogicalResult importLoopWhile(
    GraphImporter &graph, NodeImporter &n, const ImportedNode &entry,
    const onnx::GraphProto &g, int64_t carried,
    const std::function<LogicalResult(const ImportedNode &)> &importNode) {
  Type i64 = n.b.getI64Type();
  // A scalar boolean of `v` (one element, any rank), or reports.
  auto oneBool = [&](Value v, StringRef what) -> Value {
    auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
    if (!type || !type.getElementType().isInteger(1) ||
        !type.hasStaticShape() || type.getNumElements() != 1) {
      (void)n.fail(what + " must be one boolean");
      return {};
    }
    return n.reshape(v, {});
  };
  Value m;
  if (n.has(0)) {
    m = n.in(0);
    auto mType = m ? dyn_cast<RankedTensorType>(m.getType()) : nullptr;
    if (!mType || !isa<IntegerType>(mType.getElementType()) ||
        !mType.hasStaticShape() || mType.getNumElements() != 1)
      return n.fail("the trip count M must be one integer");
    m = n.reshape(n.cast(m, i64), {});
    if (!m)
      return failure();
  }
  Value cond0 = n.has(1) ? oneBool(n.in(1), "the condition")
                         : n.scalar(n.b.getI1Type(), 1);
  if (!cond0)
    return failure();
  // Whether iteration `next` runs as far as M is concerned.
  auto belowM = [&](Value next) -> Value {
    return n.create<CmpOp>(CmpPredicate::lt, next, m);
  };
  if (m && !(cond0 = n.create<AndOp>(cond0, belowM(n.scalar(i64, 0)))))
    return failure();
  std::string error;
  ShadowScope shadow(graph);
  readBodyInitializers(graph, g, error, shadow);
  if (!error.empty())
    return n.fail(error);
  FailureOr<LoopCarry> carry = classifyCarried(graph, n, g, carried);
  if (failed(carry))
    return failure();
  FailureOr<SmallVector<Value>> carriedInits = loopInits(graph, n, g, *carry);
  if (failed(carriedInits))
    return failure();
  SmallVector<Value> inits = {cond0};
  llvm::append_range(inits, *carriedInits);
  auto i1 = RankedTensorType::get({}, IntegerType::get(graph.ctx, 1));
  ScanOp scan = buildScan(
      n, inits, ValueRange{}, /*reverse=*/false, /*conditional=*/true,
      [&](Value position, ValueRange states,
          ValueRange) -> FailureOr<SmallVector<Value>> {
        // An iteration runs only while the condition holds: its condition
        // input is true.
        SmallVector<Binding> inputs(2);
        inputs[0] = iterationBinding(n, position);
        inputs[1].constant = makeDense(i1, {1}, {});
        bindCarried(*carry, states.drop_front(), inputs);
        SmallVector<Binding> outputs;
        if (failed(importBodyOnce(graph, n, entry, g, inputs, outputs,
                                  importNode)))
          return failure();
        Value next = oneBool(valueOf(n, outputs[0]), "the body's condition");
        if (!next)
          return failure();
        if (m) {
          Value following = n.create<AddOp>(position, n.scalar(i64, 1));
          if (!following || !(next = n.create<AndOp>(next, belowM(following))))
            return failure();
        }
        FailureOr<SmallVector<Value>> rest =
            carriedResults(graph, n, *carry, states.drop_front(),
                           ArrayRef<Binding>(outputs).drop_front());
        if (failed(rest))
          return failure();
        SmallVector<Value> ys = {next};
        llvm::append_range(ys, *rest);
        return ys;
      });
  if (!scan) {
    std::string bind;
    for (unsigned i = 0; i < 2; ++i)
      if (n.has(i) && graph.graphInputs.count(n.node.input(i)))
        bind += " --bind-input " + n.node.input(i) + "=FILE";
    return n.fail(
        "its trip count or condition is known only at run time, so Tide "
        "builds one loop whose step is the body, which failed above" +
        (bind.empty() ? std::string()
                      : "; binding" + bind +
                            " makes them known, and Tide unrolls the Loop"));
  }
  // The results after the condition.
  return bindLoopResults(graph, n, *carry, scan.getResults().drop_front());
}

/// A Loop whose trip count and condition are known while importing (trip
/// count M from a constant, a size or a bound input; the body's condition
/// output known at every iteration): the body unrolled, its scan outputs
/// stacked along a new first axis.
LogicalResult importLoop(
    GraphImporter &graph, NodeImporter &n, const ImportedNode &entry,
    const std::function<LogicalResult(const ImportedNode &)> &importNode) {
  if (failed(n.checkAttrs({"body"})))
    return failure();
  const onnx::AttributeProto *body = n.attr("body");
  if (!body || !body->has_g())
    return n.fail("needs a 'body' graph");
  const onnx::GraphProto &g = body->g();
  // (Not numInputs(): a Loop of no loop-carried values spells its absent
  // condition as a trailing empty name.)
  int64_t carried = std::max<int64_t>(n.node.input_size() - 2, 0);
  if (g.input_size() != carried + 2 || g.output_size() < carried + 1 ||
      static_cast<int64_t>(n.numOutputs()) > g.output_size() - 1)
    return n.fail("the body's inputs and outputs do not match the Loop's "
                  "(M, cond, " +
                  llvm::Twine(std::max<int64_t>(carried, 0)) +
                  " loop-carried values)");
  int64_t scans = g.output_size() - 1 - carried;
  std::optional<int64_t> trips;
  // A trip count or an initial condition known only at run time: one loop
  // (tide.scan), over iota(M) where the condition is absent or true and
  // stays true, else a while loop.
  std::optional<int64_t> cond0 = std::optional<int64_t>(1);
  if (n.has(1)) {
    auto c = n.constIn(1);
    auto values = c ? readHostValues(*c) : std::nullopt;
    cond0 = values && values->size() == 1
                ? std::optional<int64_t>(values->intAt(0))
                : std::nullopt;
  }
  bool runTimeM = n.has(0) && !n.constIn(0) && n.in(0);
  if (runTimeM && cond0 && *cond0 != 0 && conditionStaysTrue(graph, g))
    return importLoopDynamic(graph, n, entry, g, carried, importNode);
  if (runTimeM || !cond0)
    return importLoopWhile(graph, n, entry, g, carried, importNode);
  if (n.has(0)) {
    auto m = n.requireConstIn(0, "trip count M (Tide unrolls loops)");
    if (failed(m))
      return failure();
    if (m->size() != 1)
      return n.fail("the trip count M must have one element");
    trips = m->intAt(0);
  }
  bool cond = true;
  if (n.has(1)) {
    auto c = n.requireConstIn(1, "loop condition (Tide unrolls loops)");
    if (failed(c))
      return failure();
    if (c->size() != 1)
      return n.fail("the condition must have one element");
    cond = c->intAt(0) != 0;
  }
  std::string error;
  ShadowScope shadow(graph);
  readBodyInitializers(graph, g, error, shadow);
  if (!error.empty())
    return n.fail(error);
  SmallVector<Binding> state;
  for (int64_t j = 0; j < carried; ++j)
    state.push_back(lookupBinding(graph, n.node.input(2 + j)));
  SmallVector<SmallVector<Value>> scanned(scans);
  auto i64 = RankedTensorType::get({}, IntegerType::get(graph.ctx, 64));
  auto i1 = RankedTensorType::get({}, IntegerType::get(graph.ctx, 1));
  int64_t it = 0;
  for (; cond && (!trips || it < *trips); ++it) {
    if (it == kMaxUnrolledIterations)
      return n.fail("runs more than " + llvm::Twine(kMaxUnrolledIterations) +
                    " iterations; Tide unrolls loops and takes at most that "
                    "many");
    SmallVector<Binding> inputs(2);
    inputs[0].constant = makeDense(i64, {it}, {});
    inputs[1].constant = makeDense(i1, {1}, {});
    llvm::append_range(inputs, state);
    SmallVector<Binding> outputs;
    if (failed(importBodyOnce(graph, n, entry, g, inputs, outputs, importNode)))
      return failure();
    std::optional<int64_t> next = knownScalar(outputs[0]);
    if (!next)
      // The condition is computed at run time: a while loop from the start
      // (the iterations unrolled so far are unused, and Tide's ops have no
      // side effects: they are dropped).
      return importLoopWhile(graph, n, entry, g, carried, importNode);
    cond = *next != 0;
    for (int64_t j = 0; j < carried; ++j)
      state[j] = outputs[1 + j];
    for (int64_t k = 0; k < scans; ++k)
      scanned[k].push_back(valueOf(n, outputs[1 + carried + k]));
  }
  for (int64_t j = 0; j < carried && j < n.numOutputs(); ++j)
    if (!n.node.output(j).empty())
      bindName(graph, n.node.output(j), state[j]);
  for (int64_t k = 0; k < scans && carried + k < n.numOutputs(); ++k) {
    if (n.node.output(carried + k).empty())
      continue;
    if (scanned[k].empty())
      return n.fail("runs no iteration, and Tide cannot tell the shape of "
                    "its empty scan outputs");
    Value v = stack(n, scanned[k], 0);
    if (!v)
      return failure();
    n.setOut(carried + k, v);
  }
  return success();
}

/// Element `at` of `x` along `axis`, that axis dropped (static shapes).
Value elementAlong(NodeImporter &n, Value x, int64_t axis, int64_t at) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()),
      strides(type.getRank(), 1);
  start[axis] = at;
  limit[axis] = at + 1;
  Value slice = n.create<SliceOp>(x, start, limit, strides);
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  return n.reshape(slice, shape);
}

/// Scan of opset 8: inputs (sequence_lens, states..., scan inputs...), each
/// state and scan input with a leading batch axis (the scan inputs' sequence
/// axis is 1), scanned in `directions`; scan outputs are (batch, sequence,
/// ...) in iteration order. Unrolled per batch entry and per element of the
/// sequence: static batch and sequence sizes, and sequence_lens, when given,
/// a constant equal to the sequence length for every entry.
LogicalResult importScan8(
    GraphImporter &graph, NodeImporter &n, const ImportedNode &entry,
    const std::function<LogicalResult(const ImportedNode &)> &importNode) {
  if (failed(n.checkAttrs({"body", "num_scan_inputs", "directions"})))
    return failure();
  const onnx::AttributeProto *body = n.attr("body");
  if (!body || !body->has_g())
    return n.fail("needs a 'body' graph");
  const onnx::GraphProto &g = body->g();
  int64_t m = n.attrInt("num_scan_inputs", -1);
  int64_t total = static_cast<int64_t>(n.numInputs()) - 1;
  if (m < 1 || m > total)
    return n.fail("num_scan_inputs must be between 1 and the number of "
                  "inputs after sequence_lens");
  int64_t carried = total - m;
  int64_t scans = g.output_size() - carried;
  if (g.input_size() != total || scans < 0 ||
      static_cast<int64_t>(n.numOutputs()) > g.output_size())
    return n.fail("the body's inputs and outputs do not match the Scan's");
  SmallVector<int64_t> dirs(m, 0);
  if (auto d = n.attrInts("directions")) {
    if (static_cast<int64_t>(d->size()) != m)
      return n.fail("'directions' needs " + llvm::Twine(m) + " values");
    dirs.assign(d->begin(), d->end());
  }
  SmallVector<Value> states, seqs;
  int64_t batch = -1, length = -1;
  for (int64_t i = 0; i < total; ++i) {
    Value x = n.in(1 + i);
    if (!x)
      return n.fail("input " + llvm::Twine(1 + i) + " is missing");
    auto type = cast<RankedTensorType>(x.getType());
    bool scanned = i >= carried;
    if (type.getRank() < (scanned ? 2 : 1) || !type.hasStaticShape())
      return n.fail("input " + llvm::Twine(1 + i) +
                    " needs static sizes and a batch axis" +
                    (scanned ? " and a sequence axis" : "") +
                    ": Tide unrolls Scan over static shapes");
    if (batch >= 0 && type.getDimSize(0) != batch)
      return n.fail("the inputs have different batch sizes (" +
                    llvm::Twine(batch) + " and " +
                    llvm::Twine(type.getDimSize(0)) + ")");
    batch = type.getDimSize(0);
    if (scanned) {
      if (length >= 0 && type.getDimSize(1) != length)
        return n.fail("scan inputs have different sequence lengths (" +
                      llvm::Twine(length) + " and " +
                      llvm::Twine(type.getDimSize(1)) + ")");
      length = type.getDimSize(1);
      seqs.push_back(x);
    } else {
      states.push_back(x);
    }
  }
  if (n.has(0)) {
    auto lens = n.requireConstIn(0, "sequence_lens (Tide unrolls Scan)");
    if (failed(lens))
      return failure();
    for (int64_t b = 0, e = static_cast<int64_t>(lens->size()); b < e; ++b)
      if (lens->intAt(b) != length)
        return n.fail("sequence_lens " + llvm::Twine(lens->intAt(b)) +
                      " is shorter than the sequence axis (" +
                      llvm::Twine(length) +
                      "): Tide runs every batch entry over the whole "
                      "sequence");
  }
  if (length > 0 && batch > kMaxUnrolledIterations / length)
    return n.fail("runs " + llvm::Twine(batch) + " x " + llvm::Twine(length) +
                  " body iterations; Tide unrolls Scan and takes at most " +
                  llvm::Twine(kMaxUnrolledIterations));
  if (batch == 0)
    return n.fail("has an empty batch, and Tide cannot tell the shape of its "
                  "empty outputs");
  if (length == 0 && scans > 0)
    return n.fail("scans an empty sequence, and Tide cannot tell the shape "
                  "of its empty scan outputs");
  std::string error;
  ShadowScope shadow(graph);
  readBodyInitializers(graph, g, error, shadow);
  if (!error.empty())
    return n.fail(error);
  SmallVector<SmallVector<Value>> finalStates(carried), batchScans(scans);
  for (int64_t b = 0; b < batch; ++b) {
    SmallVector<Binding> state(carried);
    for (int64_t j = 0; j < carried; ++j)
      if (!(state[j].value = elementAlong(n, states[j], 0, b)))
        return failure();
    SmallVector<Value> entries;
    for (Value x : seqs)
      if (!entries.emplace_back(elementAlong(n, x, 0, b)))
        return failure();
    SmallVector<SmallVector<Value>> scanned(scans);
    for (int64_t t = 0; t < length; ++t) {
      SmallVector<Binding> inputs(state);
      for (int64_t i = 0; i < m; ++i) {
        Binding in;
        in.value = elementAlong(n, entries[i], 0, dirs[i] ? length - 1 - t : t);
        if (!in.value)
          return failure();
        inputs.push_back(in);
      }
      SmallVector<Binding> outputs;
      if (failed(
              importBodyOnce(graph, n, entry, g, inputs, outputs, importNode)))
        return failure();
      for (int64_t j = 0; j < carried; ++j)
        state[j] = outputs[j];
      for (int64_t k = 0; k < scans; ++k)
        scanned[k].push_back(valueOf(n, outputs[carried + k]));
    }
    for (int64_t j = 0; j < carried; ++j)
      finalStates[j].push_back(valueOf(n, state[j]));
    for (int64_t k = 0; k < scans; ++k) {
      Value v = stack(n, scanned[k], 0);
      if (!v)
        return failure();
      batchScans[k].push_back(v);
    }
  }
  for (int64_t j = 0; j < carried && j < n.numOutputs(); ++j) {
    if (n.node.output(j).empty())
      continue;
    Value v = stack(n, finalStates[j], 0);
    if (!v)
      return failure();
    n.setOut(j, v);
  }
  for (int64_t k = 0; k < scans && carried + k < n.numOutputs(); ++k) {
    if (n.node.output(carried + k).empty())
      continue;
    Value v = stack(n, batchScans[k], 0);
    if (!v)
      return failure();
    n.setOut(carried + k, v);
  }
  return success();
}

/// A Scan whose scan inputs have sizes known only at run time: one
/// tide.scan whose body is the Scan's, imported once. The scan inputs' axes
/// are moved to the front; they must run in one direction.
LogicalResult importScanLoop(
    GraphImporter &graph, NodeImporter &n, const ImportedNode &entry,
    const onnx::GraphProto &g, int64_t carried, ArrayRef<int64_t> inAxes,
    ArrayRef<int64_t> inDirs, ArrayRef<int64_t> outAxes,
    ArrayRef<int64_t> outDirs,
    const std::function<LogicalResult(const ImportedNode &)> &importNode) {
  int64_t m = inAxes.size();
  // The loop runs in input 0's direction; inputs scanned the other way are
  // reversed first.
  bool reverse = inDirs[0] != 0;
  SmallVector<Value> seqs;
  for (int64_t i = 0; i < m; ++i) {
    Value x = n.in(carried + i);
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    auto axis = n.normAxis(inAxes[i], rank);
    if (failed(axis))
      return failure();
    if (*axis != 0) {
      SmallVector<int64_t> perm = {*axis};
      for (int64_t d = 0; d < rank; ++d)
        if (d != *axis)
          perm.push_back(d);
      x = n.create<TransposeOp>(x, perm);
    }
    if (x && (inDirs[i] != 0) != reverse)
      x = reverseAlong(n, x, 0);
    if (!x)
      return failure();
    seqs.push_back(x);
  }
  std::string error;
  ShadowScope shadow(graph);
  readBodyInitializers(graph, g, error, shadow);
  if (!error.empty())
    return n.fail(error);
  SmallVector<Value> inits;
  for (int64_t j = 0; j < carried; ++j) {
    Value v = valueOf(n, lookupBinding(graph, n.node.input(j)));
    if (!v)
      return failure();
    inits.push_back(v);
  }
  ScanOp scan =
      buildScan(n, inits, seqs, reverse, /*conditional=*/false,
                [&](Value, ValueRange states,
                    ValueRange slices) -> FailureOr<SmallVector<Value>> {
                  SmallVector<Binding> inputs;
                  for (Value v : llvm::concat<Value>(states, slices)) {
                    Binding b;
                    b.value = v;
                    inputs.push_back(b);
                  }
                  SmallVector<Binding> outputs;
                  if (failed(importBodyOnce(graph, n, entry, g, inputs, outputs,
                                            importNode)))
                    return failure();
                  SmallVector<Value> ys;
                  for (const Binding &b : outputs) {
                    Value v = valueOf(n, b);
                    if (!v)
                      return failure();
                    ys.push_back(v);
                  }
                  return ys;
                });
  if (!scan)
    return failure();
  for (int64_t j = 0; j < carried && j < n.numOutputs(); ++j)
    if (!n.node.output(j).empty())
      n.setOut(j, scan.getResult(j));
  int64_t scans = scan.getNumResults() - carried;
  for (int64_t k = 0; k < scans && carried + k < n.numOutputs(); ++k) {
    if (n.node.output(carried + k).empty())
      continue;
    // Stacked by position; ONNX stacks by iteration (reversed with
    // scan_output_directions).
    Value v = scan.getResult(carried + k);
    if ((outDirs[k] != 0) != reverse)
      v = reverseAlong(n, v, 0);
    if (!v)
      return failure();
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    auto axis = n.normAxis(outAxes[k], rank);
    if (failed(axis))
      return failure();
    if (*axis != 0) {
      SmallVector<int64_t> perm;
      for (int64_t d = 1; d <= *axis; ++d)
        perm.push_back(d);
      perm.push_back(0);
      for (int64_t d = *axis + 1; d < rank; ++d)
        perm.push_back(d);
      v = n.create<TransposeOp>(v, perm);
      if (!v)
        return failure();
    }
    n.setOut(carried + k, v);
  }
  return success();
}

/// A Scan (opset 9 and later) over static sequence lengths: the body
/// unrolled once per element of the sequence axis.
LogicalResult importScan(
    GraphImporter &graph, NodeImporter &n, const ImportedNode &entry,
    const std::function<LogicalResult(const ImportedNode &)> &importNode) {
  if (entry.opset < 9)
    return importScan8(graph, n, entry, importNode);
  if (failed(n.checkAttrs({"body", "num_scan_inputs", "scan_input_axes",
                           "scan_input_directions", "scan_output_axes",
                           "scan_output_directions"})))
    return failure();
  const onnx::AttributeProto *body = n.attr("body");
  if (!body || !body->has_g())
    return n.fail("needs a 'body' graph");
  const onnx::GraphProto &g = body->g();
  int64_t m = n.attrInt("num_scan_inputs", -1);
  int64_t total = n.numInputs();
  if (m < 1 || m > total)
    return n.fail("num_scan_inputs must be between 1 and the number of "
                  "inputs");
  int64_t carried = total - m;
  int64_t scans = g.output_size() - carried;
  if (g.input_size() != total || scans < 0 ||
      static_cast<int64_t>(n.numOutputs()) > g.output_size())
    return n.fail("the body's inputs and outputs do not match the Scan's");
  auto list = [&](llvm::StringRef name,
                  int64_t count) -> FailureOr<SmallVector<int64_t>> {
    auto v = n.attrInts(name);
    if (!v)
      return SmallVector<int64_t>(count, 0);
    if (static_cast<int64_t>(v->size()) != count) {
      (void)n.fail("'" + name + "' needs " + llvm::Twine(count) + " values");
      return failure();
    }
    return *v;
  };
  auto inAxes = list("scan_input_axes", m);
  auto inDirs = list("scan_input_directions", m);
  auto outAxes = list("scan_output_axes", scans);
  auto outDirs = list("scan_output_directions", scans);
  if (failed(inAxes) || failed(inDirs) || failed(outAxes) || failed(outDirs))
    return failure();
  // The sequence length, from the scan inputs' static sizes.
  int64_t length = -1;
  SmallVector<Value> seqs;
  for (int64_t i = 0; i < m; ++i) {
    Value x = n.in(carried + i);
    if (!x)
      return n.fail("scan input " + llvm::Twine(i) + " is missing");
    auto type = cast<RankedTensorType>(x.getType());
    auto axis = n.normAxis((*inAxes)[i], type.getRank());
    if (failed(axis))
      return failure();
    (*inAxes)[i] = *axis;
    int64_t size = type.getDimSize(*axis);
    // A run-time length (or other run-time sizes): one loop, not unrolled.
    if (!type.hasStaticShape())
      return importScanLoop(graph, n, entry, g, carried, *inAxes, *inDirs,
                            *outAxes, *outDirs, importNode);
    if (length >= 0 && size != length)
      return n.fail("scan inputs have different sequence lengths (" +
                    llvm::Twine(length) + " and " + llvm::Twine(size) + ")");
    length = size;
    seqs.push_back(x);
  }
  if (length > kMaxUnrolledIterations)
    return n.fail("runs " + llvm::Twine(length) +
                  " iterations; Tide unrolls "
                  "Scan and takes at most " +
                  llvm::Twine(kMaxUnrolledIterations));
  if (length == 0 && scans > 0)
    return n.fail("scans an empty sequence, and Tide cannot tell the shape "
                  "of its empty scan outputs");
  std::string error;
  ShadowScope shadow(graph);
  readBodyInitializers(graph, g, error, shadow);
  if (!error.empty())
    return n.fail(error);
  SmallVector<Binding> state;
  for (int64_t j = 0; j < carried; ++j)
    state.push_back(lookupBinding(graph, n.node.input(j)));
  SmallVector<SmallVector<Value>> scanned(scans);
  for (int64_t t = 0; t < length; ++t) {
    SmallVector<Binding> inputs(state);
    for (int64_t i = 0; i < m; ++i) {
      Value x = seqs[i];
      auto type = cast<RankedTensorType>(x.getType());
      int64_t axis = (*inAxes)[i];
      int64_t at = (*inDirs)[i] ? length - 1 - t : t;
      if (type.hasStaticShape() == false)
        return n.fail("scan input " + llvm::Twine(i) +
                      " has dynamic sizes: Tide unrolls Scan over static "
                      "shapes");
      SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()),
          strides(type.getRank(), 1);
      start[axis] = at;
      limit[axis] = at + 1;
      Value slice = n.create<SliceOp>(x, start, limit, strides);
      SmallVector<int64_t> shape(type.getShape());
      shape.erase(shape.begin() + axis);
      Binding b;
      b.value = n.reshape(slice, shape);
      if (!b.value)
        return failure();
      inputs.push_back(b);
    }
    SmallVector<Binding> outputs;
    if (failed(importBodyOnce(graph, n, entry, g, inputs, outputs, importNode)))
      return failure();
    for (int64_t j = 0; j < carried; ++j)
      state[j] = outputs[j];
    for (int64_t k = 0; k < scans; ++k)
      scanned[k].push_back(valueOf(n, outputs[carried + k]));
  }
  for (int64_t j = 0; j < carried && j < n.numOutputs(); ++j)
    if (!n.node.output(j).empty())
      bindName(graph, n.node.output(j), state[j]);
  for (int64_t k = 0; k < scans && carried + k < n.numOutputs(); ++k) {
    if (n.node.output(carried + k).empty())
      continue;
    SmallVector<Value> parts(scanned[k]);
    if ((*outDirs)[k])
      std::reverse(parts.begin(), parts.end());
    if (parts.empty() || !parts[0])
      return failure();
    int64_t rank = cast<RankedTensorType>(parts[0].getType()).getRank() + 1;
    auto axis = n.normAxis((*outAxes)[k], rank);
    if (failed(axis))
      return failure();
    Value v = stack(n, parts, *axis);
    if (!v)
      return failure();
    n.setOut(carried + k, v);
  }
  return success();
}

struct ModelImporter {
  MLIRContext *ctx;
  llvm::StringRef path;
  const ONNXImportOptions &options;
  OpBuilder b;
  GraphImporter graph;
  TensorReader reader;

  ModelImporter(MLIRContext *ctx, llvm::StringRef path,
                const ONNXImportOptions &options)
      : ctx(ctx), path(path), options(options), b(ctx), graph(ctx, b, path),
        reader{ctx, "", options.inlineConstantLimit, {}} {
    llvm::SmallString<256> dir(path);
    llvm::sys::path::remove_filename(dir);
    graph.baseDir = dir.str().str();
    reader.baseDir = graph.baseDir;
    graph.readTensor = [this](const onnx::TensorProto &t, llvm::StringRef what,
                              std::string &error) {
      return reader.read(t, what, error);
    };
  }

  LogicalResult fail(const llvm::Twine &message) {
    return emitError(graph.fileLoc()) << message;
  }

  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &info);
  LogicalResult bindInput(llvm::StringRef name, llvm::StringRef file);
  OwningOpRef<ModuleOp> run(onnx::ModelProto &model);
};
} // namespace

FailureOr<RankedTensorType>
ModelImporter::inputType(const onnx::ValueInfoProto &info) {
  if (!info.has_type() || !info.type().has_tensor_type()) {
    std::string kind = !info.has_type()                  ? "has no type"
                       : info.type().has_sequence_type() ? "is a sequence"
                       : info.type().has_optional_type() ? "is an optional"
                       : info.type().has_map_type()      ? "is a map"
                                                         : "is not a tensor";
    (void)fail("graph input '" + info.name() + "' " + kind +
               "; Tide takes tensors only");
    return failure();
  }
  const auto &tensor = info.type().tensor_type();
  std::string why;
  Type elem = convertElementType(ctx, tensor.elem_type(), why);
  if (!elem) {
    (void)fail("graph input '" + info.name() + "': " + why);
    return failure();
  }
  auto bound = options.boundShapes.find(info.name());
  if (bound != options.boundShapes.end()) {
    if (tensor.has_shape() &&
        tensor.shape().dim_size() != static_cast<int>(bound->second.size())) {
      (void)fail("--bind-shape " + info.name() + " gives rank " +
                 llvm::Twine(bound->second.size()) +
                 " but the input has rank " +
                 llvm::Twine(tensor.shape().dim_size()));
      return failure();
    }
    // A size the model fixes stays (7x2 over a declared 1x2 was taken).
    if (tensor.has_shape())
      for (auto [d, dim] : llvm::enumerate(tensor.shape().dim()))
        if (dim.has_dim_value() && dim.dim_value() != bound->second[d]) {
          (void)fail("--bind-shape " + info.name() + " gives size " +
                     llvm::Twine(bound->second[d]) + " to dimension " +
                     llvm::Twine(d) + ", which the model fixes at " +
                     llvm::Twine(dim.dim_value()));
          return failure();
        }
    return RankedTensorType::get(bound->second, elem);
  }
  if (!tensor.has_shape()) {
    (void)fail("graph input '" + info.name() +
               "' has no shape (not even a rank); give one with --bind-shape " +
               info.name() + "=D0xD1x...");
    return failure();
  }
  SmallVector<int64_t> shape;
  for (const auto &dim : tensor.shape().dim()) {
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0) {
        (void)fail("graph input '" + info.name() +
                   "' has a negative dimension");
        return failure();
      }
      shape.push_back(dim.dim_value());
      continue;
    }
    auto sym = dim.has_dim_param() ? options.boundShapes.find(dim.dim_param())
                                   : options.boundShapes.end();
    if (sym != options.boundShapes.end() && sym->second.size() != 1) {
      (void)fail("--bind-shape " + dim.dim_param() +
                 ": a symbolic dimension takes one size, not " +
                 llvm::Twine(sym->second.size()));
      return failure();
    }
    if (sym != options.boundShapes.end())
      shape.push_back(sym->second[0]);
    else
      shape.push_back(ShapedType::kDynamic);
  }
  return RankedTensorType::get(shape, elem);
}

LogicalResult ModelImporter::bindInput(llvm::StringRef name,
                                       llvm::StringRef file) {
  auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail("--bind-input " + name + ": cannot read '" + file +
                "': " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  std::string error;
  ElementsAttr value;
  if (bytes.starts_with("\x93NUMPY")) {
    // A .npy file: a header dict, then the data in C order.
    if (bytes.size() < 10)
      return fail("--bind-input " + name + ": '" + file + "' is truncated");
    unsigned major = static_cast<unsigned char>(bytes[6]);
    size_t headerLen, start;
    if (major == 1) {
      headerLen = static_cast<unsigned char>(bytes[8]) |
                  (static_cast<unsigned char>(bytes[9]) << 8);
      start = 10;
    } else {
      if (bytes.size() < 12)
        return fail("--bind-input " + name + ": '" + file + "' is truncated");
      headerLen = llvm::support::endian::read32le(bytes.data() + 8);
      start = 12;
    }
    if (start + headerLen > bytes.size())
      return fail("--bind-input " + name + ": '" + file + "' is truncated");
    llvm::StringRef header = bytes.substr(start, headerLen);
    auto field = [&](llvm::StringRef key) -> llvm::StringRef {
      size_t at = header.find("'" + key.str() + "'");
      if (at == llvm::StringRef::npos)
        return {};
      llvm::StringRef rest = header.substr(at + key.size() + 2).ltrim(" :");
      return rest;
    };
    llvm::StringRef descr = field("descr");
    llvm::StringRef order = field("fortran_order");
    llvm::StringRef shapeText = field("shape");
    if (descr.size() < 3 || shapeText.empty() || !shapeText.starts_with("("))
      return fail("--bind-input " + name + ": '" + file +
                  "' has a .npy header Tide cannot read");
    if (order.starts_with("True"))
      return fail("--bind-input " + name + ": '" + file +
                  "' is in Fortran order; save it in C order");
    llvm::StringRef kind = descr.drop_front(1).take_until(
        [](char c) { return c == '\'' || c == '"'; });
    static const struct {
      const char *descr;
      int32_t onnxType;
    } kinds[] = {{"<f4", onnx::TensorProto::FLOAT},
                 {"<f8", onnx::TensorProto::DOUBLE},
                 {"<f2", onnx::TensorProto::FLOAT16},
                 {"<i8", onnx::TensorProto::INT64},
                 {"<i4", onnx::TensorProto::INT32},
                 {"<i2", onnx::TensorProto::INT16},
                 {"|i1", onnx::TensorProto::INT8},
                 {"|b1", onnx::TensorProto::BOOL},
                 {"|u1", onnx::TensorProto::UINT8},
                 {"<u2", onnx::TensorProto::UINT16},
                 {"<u4", onnx::TensorProto::UINT32},
                 {"<u8", onnx::TensorProto::UINT64}};
    int32_t dataType = -1;
    for (const auto &k : kinds)
      if (kind == k.descr)
        dataType = k.onnxType;
    if (dataType < 0)
      return fail("--bind-input " + name + ": '" + file +
                  "' has element type '" + kind + "', which Tide cannot read");
    onnx::TensorProto t;
    t.set_data_type(dataType);
    llvm::StringRef dims =
        shapeText.drop_front(1).take_until([](char c) { return c == ')'; });
    SmallVector<llvm::StringRef> parts;
    dims.split(parts, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef p : parts) {
      p = p.trim();
      if (p.empty())
        continue;
      int64_t d;
      if (p.getAsInteger(10, d) || d < 0)
        return fail("--bind-input " + name + ": '" + file +
                    "' has a bad shape '" + dims + "'");
      t.add_dims(d);
    }
    t.set_raw_data(bytes.substr(start + headerLen).str());
    value = reader.read(t, ("--bind-input " + name).str(), error);
  } else {
    onnx::TensorProto t;
    if (!t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      return fail("--bind-input " + name + ": '" + file +
                  "' is neither a .npy file nor a serialized TensorProto");
    value = reader.read(t, ("--bind-input " + name).str(), error);
  }
  if (!value)
    return fail(error);
  graph.constants[name] = value;
  return success();
}

OwningOpRef<ModuleOp> ModelImporter::run(onnx::ModelProto &model) {
  Location fileLoc = graph.fileLoc();
  if (!model.has_graph())
    return (void)fail("the model has no graph"), nullptr;
  int64_t opset = -1;
  for (const auto &imp : model.opset_import()) {
    if (imp.domain().empty() || imp.domain() == "ai.onnx")
      opset = imp.version();
  }
  if (opset < 0) {
    // A model of other domains only (an ai.onnx.ml pipeline) needs no
    // default opset.
    bool otherDomainsOnly =
        model.opset_import_size() > 0 && model.graph().node_size() > 0 &&
        llvm::all_of(model.graph().node(), [](const onnx::NodeProto &node) {
          return !node.domain().empty() && node.domain() != "ai.onnx";
        });
    if (model.opset_import_size() == 0 && model.ir_version() < 3)
      opset = 1;
    else if (otherDomainsOnly)
      opset = kMaxOpset;
    else
      return (void)fail("the model imports no version of the default ONNX "
                        "opset (ai.onnx)"),
             nullptr;
  }
  if (opset > kMaxOpset)
    return (void)fail("the model uses ONNX opset " + llvm::Twine(opset) +
                      "; Tide knows opsets up to " + llvm::Twine(kMaxOpset)),
           nullptr;

  const onnx::GraphProto &g = model.graph();
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);

  // Initializers (weights) first: constants by name.
  for (auto &init : *model.mutable_graph()->mutable_initializer()) {
    std::string error;
    // The raw bytes leave the protobuf: the blob takes them, or they are
    // freed once copied.
    std::unique_ptr<std::string> raw;
    if (init.has_raw_data())
      raw.reset(init.release_raw_data());
    ElementsAttr value = reader.read(init, "initializer '" + init.name() + "'",
                                     error, std::move(raw));
    if (!value)
      return (void)fail(error), nullptr;
    graph.constants[init.name()] = value;
    if (narrow::isNarrow(init.data_type()))
      graph.narrowTypes[init.name()] = init.data_type();
  }
  for (const auto &sparse : g.sparse_initializer())
    return (void)fail("sparse initializer '" + sparse.values().name() +
                      "' is not supported"),
           nullptr;

  for (const auto &entry : options.boundInputs) {
    bool found = llvm::any_of(g.input(), [&](const onnx::ValueInfoProto &i) {
      return i.name() == entry.getKey();
    });
    if (!found)
      return (void)fail("--bind-input " + entry.getKey() +
                        ": the graph has no input of that name"),
             nullptr;
    if (failed(bindInput(entry.getKey(), entry.getValue())))
      return nullptr;
    // The file must be what the model declares: its element type and its
    // fixed sizes (an int64 [5] bound to a float [2, 3] input was taken as
    // it was before).
    const onnx::ValueInfoProto &info =
        *llvm::find_if(g.input(), [&](const onnx::ValueInfoProto &i) {
          return i.name() == entry.getKey();
        });
    ElementsAttr bound = graph.constants.lookup(entry.getKey());
    if (bound && info.type().has_tensor_type()) {
      const auto &tensor = info.type().tensor_type();
      std::string why;
      Type declared = convertElementType(ctx, tensor.elem_type(), why);
      auto type = cast<ShapedType>(bound.getType());
      auto describeType = [](Type t) {
        std::string s;
        llvm::raw_string_ostream os(s);
        t.print(os);
        return s;
      };
      if (declared && declared != type.getElementType())
        return (void)fail(
                   "--bind-input " + entry.getKey() + ": the file holds " +
                   describeType(type.getElementType()) +
                   " values; the input is declared " + describeType(declared)),
               nullptr;
      if (tensor.has_shape()) {
        bool same = tensor.shape().dim_size() == type.getRank();
        for (int d = 0; same && d < tensor.shape().dim_size(); ++d)
          same = !tensor.shape().dim(d).has_dim_value() ||
                 tensor.shape().dim(d).dim_value() == type.getDimSize(d);
        if (!same)
          return (void)fail("--bind-input " + entry.getKey() +
                            ": the file's shape differs from the input's "
                            "declared shape"),
                 nullptr;
      }
    }
  }
  for (const auto &entry : options.boundShapes) {
    bool found = llvm::any_of(g.input(), [&](const onnx::ValueInfoProto &i) {
      if (i.name() == entry.getKey())
        return true;
      if (!i.type().has_tensor_type())
        return false;
      for (const auto &d : i.type().tensor_type().shape().dim())
        if (d.has_dim_param() && d.dim_param() == entry.getKey())
          return true;
      return false;
    });
    if (!found)
      return (void)fail("--bind-shape " + entry.getKey() +
                        ": the graph has no input or symbolic dimension of "
                        "that name"),
             nullptr;
  }

  // The signature: graph inputs that are neither initializers nor bound.
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  for (const auto &info : g.input()) {
    if (graph.constants.count(info.name()))
      continue;
    auto type = inputType(info);
    if (failed(type))
      return nullptr;
    if (!checkedByteSize(*type))
      return (void)fail("graph input '" + info.name() +
                        "': its sizes multiply to more than 2^63 - 1 bytes"),
             nullptr;
    argTypes.push_back(*type);
    argNames.push_back(info.name());
  }

  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, fileLoc, options.functionName,
                                   b.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    graph.values[name] = body->getArgument(i);
    graph.graphInputs.insert(name);
    func.setArgAttr(i, "onnx.name", b.getStringAttr(name));
  }
  for (const auto *infos : {&g.value_info(), &g.output()})
    for (const onnx::ValueInfoProto &info : *infos)
      if (info.type().has_tensor_type() &&
          info.type().tensor_type().has_shape())
        graph.declaredRanks[info.name()] =
            info.type().tensor_type().shape().dim_size();
  for (const auto &info : g.input())
    if (graph.graphInputs.contains(info.name()) &&
        info.type().has_tensor_type() &&
        narrow::isNarrow(info.type().tensor_type().elem_type()))
      graph.narrowTypes[info.name()] = info.type().tensor_type().elem_type();
  // Dynamic dimensions with the same symbolic name have the same size.
  {
    llvm::StringMap<std::pair<Value, int64_t>> firstOfName;
    for (const auto &info : g.input()) {
      Value arg = graph.values.lookup(info.name());
      if (!arg || !isa<BlockArgument>(arg) || !info.type().has_tensor_type())
        continue;
      auto type = cast<RankedTensorType>(arg.getType());
      const auto &dims = info.type().tensor_type().shape().dim();
      for (int d = 0; d < dims.size() && d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d) || !dims[d].has_dim_param() ||
            dims[d].dim_param().empty())
          continue;
        auto [it, inserted] =
            firstOfName.try_emplace(dims[d].dim_param(), arg, d);
        if (!inserted)
          graph.dimAliases[{arg, d}] = it->second;
      }
    }
  }
  b.setInsertionPointToEnd(body);

  // Calls of the model's own functions become the functions' nodes.
  std::vector<ImportedNode> nodes;
  std::deque<onnx::NodeProto> expanded;
  if (failed(expandFunctions(model, opset, kMaxOpset, graph, nodes, expanded)))
    return nullptr;
  // One node; an If whose condition is known while importing (an
  // exporter's Python branch on sizes) is the nodes of the branch it takes.
  std::function<LogicalResult(const ImportedNode &)> importNode =
      [&](const ImportedNode &entry) -> LogicalResult {
    const onnx::NodeProto &node = *entry.node;
    Location loc = entry.loc;
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    std::string opKey =
        defaultDomain ? node.op_type() : node.domain() + ":" + node.op_type();
    // A call of a model-local function in a subgraph (the main graph's
    // calls were expanded before): its nodes, imported in its place.
    if (graph.expandCall) {
      std::vector<ImportedNode> inner;
      FailureOr<bool> called = graph.expandCall(node, entry.opset, loc, inner);
      if (failed(called))
        return failure();
      if (*called) {
        for (const ImportedNode &e : inner)
          if (failed(importNode(e)))
            return failure();
        return success();
      }
    }
    if (!defaultDomain && !lookupConverter(opKey)) {
      return emitError(loc)
             << "op '" << node.op_type() << "' of domain '" << node.domain()
             << "' is not supported: Tide imports the default ONNX "
                "domain and the functions the model defines, and "
                "the model defines no function of that name";
    }
    for (int i = 0; i < node.input_size(); ++i) {
      const std::string &name = node.input(i);
      if (!name.empty() && !graph.defines(name))
        return emitError(loc) << "input '" << name
                              << "' is not produced by any earlier node, "
                                 "initializer or graph input";
      if (!name.empty() && graph.aggregates.count(name) &&
          !takesAggregates(node.op_type()))
        return emitError(loc)
               << "input '" << name << "' is "
               << (graph.aggregates.lookup(name).isOptional ? "an optional"
                                                            : "a sequence")
               << ", and ONNX op '" << node.op_type() << "' takes tensors";
    }
    NodeImporter n(graph, node, loc, entry.opset);
    n.callGraph = [&](const onnx::GraphProto &g, ArrayRef<Value> inputs,
                      SmallVectorImpl<Value> &outputs) -> LogicalResult {
      if (g.input_size() != static_cast<int>(inputs.size()))
        return n.fail("a graph attribute of " + node.op_type() + " takes " +
                      llvm::Twine(g.input_size()) + " inputs; " +
                      llvm::Twine(inputs.size()) + " are passed to it");
      std::string error;
      ShadowScope shadow(graph);
      readBodyInitializers(graph, g, error, shadow);
      if (!error.empty())
        return n.fail(error);
      SmallVector<Binding> bound;
      for (Value v : inputs) {
        Binding b;
        b.value = v;
        bound.push_back(b);
      }
      SmallVector<Binding> results;
      if (failed(
              importBodyOnce(graph, n, entry, g, bound, results, importNode)))
        return failure();
      outputs.clear();
      for (const Binding &b : results) {
        Value v = valueOf(n, b);
        if (!v)
          return failure();
        outputs.push_back(v);
      }
      return success();
    };
    // Identity of a sequence or optional: the same elements.
    if (node.op_type() == "Identity" && node.input_size() == 1 &&
        graph.aggregates.count(node.input(0))) {
      if (node.output_size() == 1)
        bindName(graph, node.output(0), lookupBinding(graph, node.input(0)));
      return success();
    }
    if (node.op_type() == "If" || node.op_type() == "Loop" ||
        node.op_type() == "Scan") {
      LogicalResult imported =
          node.op_type() == "If"     ? importIf(graph, n, entry, importNode)
          : node.op_type() == "Loop" ? importLoop(graph, n, entry, importNode)
                                     : importScan(graph, n, entry, importNode);
      // Outputs of a narrow type (float8, int4, ...), as the body declares
      // them (a Loop's body output 0 is its condition).
      const char *body = node.op_type() == "If" ? "then_branch" : "body";
      int skip = node.op_type() == "Loop" ? 1 : 0;
      if (const auto *g = n.attr(body); succeeded(imported) && g)
        for (int i = 0; i < node.output_size(); ++i)
          if (i + skip < g->g().output_size())
            if (int32_t dt =
                    g->g().output(i + skip).type().tensor_type().elem_type();
                narrow::isNarrow(dt))
              n.setNarrowOut(i, dt);
      return imported;
    }
    // Every refusal names its reason; a converter that fails without one
    // (an input it needs is missing, ...) gets a generic message here.
    bool reported = false;
    ScopedDiagnosticHandler watch(graph.ctx, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        reported = true;
      return failure(); // and on to the caller's handler
    });
    auto refuse = [&]() -> LogicalResult {
      if (!reported)
        emitError(loc) << "cannot be converted: an input it needs is missing "
                          "or has an unsupported type (the node has "
                       << node.input_size() << " inputs and "
                       << node.output_size() << " outputs)";
      return failure();
    };
    // Narrow types (float8, int4, ...): carried, converted, moved; nothing
    // else computes on their carriers.
    int32_t narrowInput = 0;
    for (unsigned i = 0; i < n.numInputs() && !narrowInput; ++i)
      narrowInput = n.narrowIn(i);
    bool convertsNarrow = isNarrowConversion(n);
    if (narrowInput && !convertsNarrow && !movesElements(node.op_type()))
      return emitError(loc)
             << "ONNX op '" << node.op_type() << "' does not take "
             << narrow::name(narrowInput)
             << " tensors (Tide carries the float8, float4, int4 and int2 "
                "types through Cast, CastLike, QuantizeLinear, "
                "DequantizeLinear and data movement ops)";
    FailureOr<bool> folded = false;
    if (!convertsNarrow) {
      folded = tryFoldNode(n);
      if (succeeded(folded) && !*folded)
        folded = trySymbolicNode(n);
    }
    if (failed(folded) || n.badAttribute)
      return refuse();
    Converter convert = lookupConverter(opKey);
    if (!*folded && !convert)
      return emitError(loc)
             << "ONNX op '" << node.op_type() << "' is not supported";
    if (!*folded) {
      bool allConstant = n.numInputs() > 0;
      for (unsigned i = 0; i < n.numInputs(); ++i)
        allConstant &= !n.has(i) || n.constIn(i).has_value();
      if (failed(convert(n)) || n.badAttribute)
        return refuse();
      for (unsigned i = 0; i < n.numOutputs(); ++i) {
        Value v = n.outValue(i);
        auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
        if (type && !checkedByteSize(type))
          return emitError(loc)
                 << "output " << i << " would be a " << type
                 << ", whose sizes multiply to more than 2^63 - 1 bytes";
      }
      if (allConstant)
        foldConstantOutputs(n);
    }
    for (int i = 0; i < node.output_size(); ++i) {
      const std::string &name = node.output(i);
      if (!name.empty() && !graph.defines(name))
        return emitError(loc)
               << "output " << i << " ('" << name << "') is not supported";
    }
    if (node.op_type() == "Constant" || node.op_type() == "ConstantOfShape") {
      for (const auto &a : node.attribute())
        if (a.name() == "value" && narrow::isNarrow(a.t().data_type()))
          n.setNarrowOut(0, a.t().data_type());
    } else if (narrowInput && movesElements(node.op_type())) {
      // Outputs of the carrier type carry the input's type.
      Type carrier = narrow::carrierType(graph.ctx, narrowInput);
      for (int i = 0; i < node.output_size(); ++i) {
        const std::string &name = node.output(i);
        Type type;
        if (Value v = graph.values.lookup(name))
          type = v.getType();
        else if (auto c = graph.constants.find(name);
                 c != graph.constants.end())
          type = c->second.getType();
        auto shaped = dyn_cast_or_null<ShapedType>(type);
        if (shaped && shaped.getElementType() == carrier)
          n.setNarrowOut(i, narrowInput);
      }
    }
    return success();
  };
  for (const ImportedNode &entry : nodes)
    if (failed(importNode(entry)))
      return nullptr;

  SmallVector<Value> results;
  for (const auto &info : g.output()) {
    if (graph.aggregates.count(info.name()) ||
        info.type().has_sequence_type() || info.type().has_optional_type())
      return (void)fail("graph output '" + info.name() + "' is " +
                        (info.type().has_optional_type() ||
                                 graph.aggregates.lookup(info.name()).isOptional
                             ? "an optional"
                             : "a sequence") +
                        "; Tide returns tensors only (sequences and optionals "
                        "are imported inside a graph)"),
             nullptr;
    Value v = graph.values.lookup(info.name());
    auto shape = graph.shapes.find(info.name());
    if (!v && shape != graph.shapes.end()) {
      onnx::NodeProto none;
      NodeImporter n(graph, none, fileLoc, opset);
      v = n.materialize(shape->second);
    }
    if (!v) {
      auto c = graph.constants.find(info.name());
      if (c == graph.constants.end())
        return (void)fail("graph output '" + info.name() +
                          "' is not produced by any node"),
               nullptr;
      v = ConstantOp::create(b, fileLoc, c->second.getShapedType(), c->second);
    }
    results.push_back(v);
  }
  func::ReturnOp::create(b, fileLoc, results);
  // Ops whose results were folded into constants are dead now.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isa<TideDialect>(op.getDialect()) && op.use_empty())
      op.erase();
  func.setFunctionType(
      b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, info] : llvm::enumerate(g.output()))
    func.setResultAttr(i, "onnx.name", b.getStringAttr(info.name()));
  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// Parses a ModelProto from `raw`; reports at `path` on failure.
static OwningOpRef<ModuleOp>
importFromStream(google::protobuf::io::ZeroCopyInputStream &raw,
                 llvm::StringRef path, MLIRContext *context,
                 const ONNXImportOptions &options) {
  context->getOrLoadDialect<TideDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream stream(&raw);
  stream.SetTotalBytesLimit(INT32_MAX);
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    return (void)(emitError(fileLoc)
                  << "not a valid ONNX model (the protobuf does not parse: "
                     "the file is truncated, corrupt or not ONNX)"),
           nullptr;
  if (!model.has_graph() && model.opset_import_size() == 0)
    return (void)(emitError(fileLoc)
                  << "not an ONNX model (no graph and no opset)"),
           nullptr;
  ModelImporter importer(context, path, options);
  return importer.run(model);
}

OwningOpRef<ModuleOp>
mlir::tide::importONNXModel(llvm::StringRef bytes, llvm::StringRef path,
                            MLIRContext *context,
                            const ONNXImportOptions &options) {
  if (bytes.size() >= static_cast<size_t>(INT32_MAX))
    return (void)(emitError(FileLineColLoc::get(context, path, 0, 0))
                  << "the model file is 2 GiB or larger; store its weights "
                     "as external data"),
           nullptr;
  google::protobuf::io::ArrayInputStream raw(bytes.data(),
                                             static_cast<int>(bytes.size()));
  return importFromStream(raw, path, context, options);
}

OwningOpRef<ModuleOp>
mlir::tide::importONNXFile(llvm::StringRef path, MLIRContext *context,
                           const ONNXImportOptions &options) {
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  if (path == "-") {
    auto buffer = llvm::MemoryBuffer::getSTDIN();
    if (!buffer) {
      emitError(fileLoc) << "cannot read the model: "
                         << buffer.getError().message();
      return nullptr;
    }
    return importONNXModel((*buffer)->getBuffer(), path, context, options);
  }
  // Parsed from the file in pieces: the model's bytes are never all in
  // memory beside the parsed weights.
  int fd;
  if (std::error_code ec = llvm::sys::fs::openFileForRead(path, fd)) {
    emitError(fileLoc) << "cannot read the model: " << ec.message();
    return nullptr;
  }
  uint64_t size = 0;
  if (!llvm::sys::fs::file_size(path, size) &&
      size >= static_cast<uint64_t>(INT32_MAX)) {
    ::close(fd);
    emitError(fileLoc) << "the model file is 2 GiB or larger; store its "
                          "weights as external data";
    return nullptr;
  }
  OwningOpRef<ModuleOp> module;
  {
    google::protobuf::io::FileInputStream raw(fd, 1 << 20);
    module = importFromStream(raw, path, context, options);
  }
  ::close(fd);
  return module;
}

std::string mlir::tide::parseBindShape(llvm::StringRef spec,
                                       ONNXImportOptions &options) {
  auto [name, dims] = spec.split('=');
  if (name.empty() || !spec.contains('='))
    return "--bind-shape expects NAME=D0xD1x... (got '" + spec.str() + "')";
  SmallVector<int64_t> shape;
  if (!dims.empty()) {
    SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef p : parts) {
      int64_t d;
      if (p.getAsInteger(10, d) || d < 0)
        return "--bind-shape " + name.str() + ": '" + dims.str() +
               "' is not a list of sizes like 1x3x224x224";
      shape.push_back(d);
    }
  }
  options.boundShapes[name] = shape;
  return "";
}

std::string mlir::tide::parseBindInput(llvm::StringRef spec,
                                       ONNXImportOptions &options) {
  auto [name, file] = spec.split('=');
  if (name.empty() || file.empty())
    return "--bind-input expects NAME=FILE (got '" + spec.str() + "')";
  options.boundInputs[name] = file.str();
  return "";
}

bool mlir::tide::looksLikeONNX(llvm::StringRef path, llvm::StringRef bytes) {
  if (path.ends_with(".onnx"))
    return true;
  if (path.ends_with(".mlir"))
    return false;
  // A ModelProto starts with field 1 (ir_version, varint: 0x08) in practice.
  return !bytes.empty() && bytes[0] == 0x08;
}

std::vector<std::string> mlir::tide::getSupportedONNXOps() {
  return supportedOpTypes();
}
