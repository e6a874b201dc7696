//===- ModuleMetadata.h - A compiled module's self-description --*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// A compiled Tide module describes its public functions in a null-terminated
// string exported as `tide_module_metadata` (written by tide-export-abi):
//
//   tide-module 1
//   func NAME NUM_ARGS NUM_RESULTS
//   arg INDEX DTYPE SHAPE DEVICE        (one per argument, INDEX = 0, 1, ...)
//   result INDEX DTYPE SHAPE DEVICE     (one per result)
//
// DTYPE is a Tide element type ("f32", "i1", ...), SHAPE is "scalar" or the
// sizes joined by 'x' ('?' for a dynamic size), DEVICE is "cpu" or "cuda:N".
// This is the one reader of that format, shared by the C header generator
// (tide-compile) and the runner (tide-run). Plain C++: no LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_ABI_MODULEMETADATA_H
#define TIDE_ABI_MODULEMETADATA_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tide::abi {

/// The symbol that holds the metadata in a compiled module.
inline constexpr const char *kMetadataSymbol = "tide_module_metadata";
/// The version of the format this reader reads (the first line's number).
inline constexpr int kMetadataVersion = 1;
/// A dynamic size in TensorDesc::dims.
inline constexpr int64_t kDynamic = -1;

/// The symbol that holds, in a module compiled for x86-64, the CPU its code
/// was built for and the instruction set extensions that code may use, among
/// kCheckedCpuFeatures: "znver3 sse3 ssse3 ... avx2 fma sse4a" (tide-compile
/// writes it; the runner refuses a module that needs an extension this CPU
/// lacks, which would otherwise end the process with an illegal instruction).
inline constexpr const char *kCpuSymbol = "tide_module_cpu";
/// The extensions recorded and checked, by LLVM's (and the compilers'
/// __builtin_cpu_supports) names: those a module built for one x86-64 CPU may
/// use and another may lack.
inline constexpr const char *kCheckedCpuFeatures[] = {"sse3",
                                                      "ssse3",
                                                      "sse4.1",
                                                      "sse4.2",
                                                      "popcnt",
                                                      "avx",
                                                      "avx2",
                                                      "fma",
                                                      "f16c",
                                                      "bmi",
                                                      "bmi2",
                                                      "lzcnt",
                                                      "movbe",
                                                      "adx",
                                                      "aes",
                                                      "pclmul",
                                                      "sha",
                                                      "vaes",
                                                      "vpclmulqdq",
                                                      "gfni",
                                                      "sse4a",
                                                      "fma4",
                                                      "xop",
                                                      "avxvnni",
                                                      "avx512f",
                                                      "avx512vl",
                                                      "avx512bw",
                                                      "avx512dq",
                                                      "avx512cd",
                                                      "avx512vnni",
                                                      "avx512ifma",
                                                      "avx512vbmi",
                                                      "avx512vbmi2",
                                                      "avx512bitalg",
                                                      "avx512vpopcntdq",
                                                      "avx512fp16",
                                                      "avx512bf16"};

/// The size in bytes of the element type named `name` ("f32", "bf16", ...),
/// or 0 when the module ABI has no such type.
unsigned elementTypeBytes(std::string_view name);

/// An argument or a result of an exported function.
struct TensorDesc {
  std::string dtype;         ///< element type: "f32", "i1", ...
  std::vector<int64_t> dims; ///< kDynamic for '?'; empty for a scalar
  std::string device;        ///< "cpu" or "cuda:N"
  bool donated = false;      ///< an argument the call may overwrite

  size_t rank() const { return dims.size(); }
  /// The shape as the metadata writes it: "scalar", "4x?x3".
  std::string shapeStr() const;
};

/// An exported function: its C entry point is `_mlir_ciface_<name>`.
struct FunctionDesc {
  std::string name;
  std::vector<TensorDesc> args, results;
};

/// Everything a module says about itself.
struct ModuleMetadata {
  std::vector<FunctionDesc> functions;
};

/// Why metadata could not be read.
struct MetadataError {
  enum class Kind {
    NotTideMetadata,    ///< the first line is not "tide-module N"
    UnsupportedVersion, ///< "tide-module N" with N != kMetadataVersion
    Malformed,          ///< a line (or a function's lines) is wrong
  };
  Kind kind = Kind::Malformed;
  /// The offending line's number (from 1), or 0 when no single line is at
  /// fault.
  size_t lineNumber = 0;
  /// The offending line, verbatim.
  std::string line;
  /// What is wrong, in a few words ("unknown element type 'q32'").
  std::string reason;

  /// One line: "line 3 ('arg 0 q32 4 cpu'): unknown element type 'q32'",
  /// or only the reason when no line is at fault.
  std::string str() const;
};

/// Reads `text` (the metadata string, without its terminating null). On
/// failure returns false and describes the problem in `error`; `metadata` is
/// then unspecified. Never throws on bad input.
bool parseModuleMetadata(std::string_view text, ModuleMetadata &metadata,
                         MetadataError &error);

} // namespace tide::abi

#endif // TIDE_ABI_MODULEMETADATA_H
