//===- ModuleMetadata.cpp - Read a compiled module's self-description ----===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/ABI/ModuleMetadata.h"

#include <limits>

using namespace tide::abi;

namespace {

/// The element types of the module ABI and their sizes.
struct ElementType {
  const char *name;
  unsigned bytes;
};
constexpr ElementType kElementTypes[] = {
    {"i1", 1},   {"i8", 1},   {"i16", 2},  {"i32", 4},  {"i64", 8},
    {"ui8", 1},  {"ui16", 2}, {"ui32", 4}, {"ui64", 8}, {"f16", 2},
    {"bf16", 2}, {"f32", 4},  {"f64", 8},
};

/// Splits `s` at runs of spaces and tabs.
std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
      ++i;
    size_t begin = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t')
      ++i;
    if (i > begin)
      out.push_back(s.substr(begin, i - begin));
  }
  return out;
}

/// A decimal number without sign or leading '+', at most `limit`.
bool parseCount(std::string_view s, uint64_t limit, uint64_t &value) {
  if (s.empty() || s.size() > 19)
    return false;
  value = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value <= limit;
}

/// "scalar" or sizes joined by 'x', each a number or '?'.
bool parseShape(std::string_view s, std::vector<int64_t> &dims) {
  dims.clear();
  if (s == "scalar")
    return true;
  size_t begin = 0;
  while (true) {
    size_t end = s.find('x', begin);
    std::string_view d =
        s.substr(begin, end == std::string_view::npos ? end : end - begin);
    uint64_t size = 0;
    if (d == "?")
      dims.push_back(kDynamic);
    else if (parseCount(d, std::numeric_limits<int64_t>::max(), size))
      dims.push_back(static_cast<int64_t>(size));
    else
      return false;
    if (end == std::string_view::npos)
      return true;
    begin = end + 1;
  }
}

/// "cpu" or "cuda:N".
bool isDevice(std::string_view s) {
  uint64_t ordinal = 0;
  return s == "cpu" ||
         (s.substr(0, 5) == "cuda:" &&
          parseCount(s.substr(5), std::numeric_limits<int>::max(), ordinal));
}

bool fail(MetadataError &error, MetadataError::Kind kind, size_t lineNumber,
          std::string_view line, std::string reason) {
  error.kind = kind;
  error.lineNumber = lineNumber;
  error.line = std::string(line);
  error.reason = std::move(reason);
  return false;
}

} // namespace

unsigned tide::abi::elementTypeBytes(std::string_view name) {
  for (const ElementType &type : kElementTypes)
    if (name == type.name)
      return type.bytes;
  return 0;
}

std::string TensorDesc::shapeStr() const {
  if (dims.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "x" : "") +
         (dims[i] == kDynamic ? std::string("?") : std::to_string(dims[i]));
  return s;
}

std::string MetadataError::str() const {
  if (!lineNumber)
    return reason;
  return "line " + std::to_string(lineNumber) + " ('" + line + "'): " + reason;
}

bool tide::abi::parseModuleMetadata(std::string_view text,
                                    ModuleMetadata &metadata,
                                    MetadataError &error) {
  using Kind = MetadataError::Kind;
  metadata.functions.clear();
  // The expected argument and result counts of the last function, and the
  // line that declared them.
  uint64_t numArgs = 0, numResults = 0;
  std::string_view funcLine;
  size_t funcLineNumber = 0;
  auto checkCounts = [&] {
    if (metadata.functions.empty())
      return true;
    const FunctionDesc &fn = metadata.functions.back();
    if (fn.args.size() == numArgs && fn.results.size() == numResults)
      return true;
    return fail(error, Kind::Malformed, funcLineNumber, funcLine,
                "@" + fn.name + " declares " + std::to_string(numArgs) +
                    " argument(s) and " + std::to_string(numResults) +
                    " result(s) but describes " +
                    std::to_string(fn.args.size()) + " and " +
                    std::to_string(fn.results.size()));
  };

  size_t lineNumber = 0; // of the last line read, from 1
  for (size_t begin = 0; begin < text.size();) {
    ++lineNumber;
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    std::vector<std::string_view> f = fields(line);

    if (lineNumber == 1) {
      uint64_t version = 0;
      if (f.size() != 2 || f[0] != "tide-module" ||
          !parseCount(f[1], std::numeric_limits<int>::max(), version))
        return fail(error, Kind::NotTideMetadata, lineNumber, line,
                    "the first line is not 'tide-module " +
                        std::to_string(kMetadataVersion) + "'");
      if (version != static_cast<uint64_t>(kMetadataVersion))
        return fail(error, Kind::UnsupportedVersion, lineNumber, line,
                    "metadata version " + std::to_string(version) +
                        " (this reader reads version " +
                        std::to_string(kMetadataVersion) + ")");
      continue;
    }
    if (f.empty())
      return fail(error, Kind::Malformed, lineNumber, line, "an empty line");

    if (f[0] == "func") {
      if (!checkCounts())
        return false;
      if (f.size() != 4 ||
          !parseCount(f[2], std::numeric_limits<int32_t>::max(), numArgs) ||
          !parseCount(f[3], std::numeric_limits<int32_t>::max(), numResults))
        return fail(error, Kind::Malformed, lineNumber, line,
                    "expected 'func NAME NUM_ARGS NUM_RESULTS'");
      funcLine = line;
      funcLineNumber = lineNumber;
      metadata.functions.push_back({std::string(f[1]), {}, {}});
      continue;
    }
    if (f[0] != "arg" && f[0] != "result")
      return fail(error, Kind::Malformed, lineNumber, line,
                  "unknown line kind '" + std::string(f[0]) +
                      "' (expected func, arg or result)");
    // No single line is at fault: the function header is missing.
    if (metadata.functions.empty())
      return fail(error, Kind::Malformed, 0, "",
                  "an '" + std::string(f[0]) +
                      "' line comes before any "
                      "'func' line");
    FunctionDesc &fn = metadata.functions.back();
    std::vector<TensorDesc> &list = f[0] == "arg" ? fn.args : fn.results;
    uint64_t index = 0;
    TensorDesc tensor;
    // An argument's line may end with "donated".
    if (f.size() != 5 && !(f.size() == 6 && f[0] == "arg" && f[5] == "donated"))
      return fail(error, Kind::Malformed, lineNumber, line,
                  "expected '" + std::string(f[0]) +
                      " INDEX DTYPE SHAPE DEVICE'" +
                      (f[0] == "arg" ? " (then 'donated' or nothing)" : ""));
    tensor.donated = f.size() == 6;
    if (!parseCount(f[1], std::numeric_limits<int32_t>::max(), index) ||
        index != list.size())
      return fail(error, Kind::Malformed, lineNumber, line,
                  "expected " + std::string(f[0]) + " index " +
                      std::to_string(list.size()));
    if (!elementTypeBytes(f[2]))
      return fail(error, Kind::Malformed, lineNumber, line,
                  "unknown element type '" + std::string(f[2]) + "'");
    tensor.dtype = std::string(f[2]);
    if (!parseShape(f[3], tensor.dims))
      return fail(error, Kind::Malformed, lineNumber, line,
                  "bad shape '" + std::string(f[3]) +
                      "' (expected 'scalar' or sizes joined by 'x', '?' for "
                      "a dynamic size)");
    if (!isDevice(f[4]))
      return fail(error, Kind::Malformed, lineNumber, line,
                  "bad device '" + std::string(f[4]) +
                      "' (expected 'cpu' or 'cuda:N')");
    tensor.device = std::string(f[4]);
    list.push_back(std::move(tensor));
  }
  if (lineNumber == 0)
    return fail(error, Kind::NotTideMetadata, 0, "",
                "empty metadata (expected 'tide-module " +
                    std::to_string(kMetadataVersion) + "' first)");
  return checkCounts();
}
