//===- tide-compile.cpp - .mlir -> shared library (+ C header) -----------===//
//
// Part of the Tide project.
//
//   tide-compile FILE.{mlir,onnx} --target=T [--policy=P] -o OUT.so
//   [--header=OUT.h]
//
//===----------------------------------------------------------------------===//

#include "tide/Compiler/Compile.h"
#include "tide/Frontend/ONNX/ImportONNX.h"
#include "tide/InitAll.h"
#include "tide/Support/Diagnostics.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input.mlir or model.onnx>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("Output shared library"),
                                       cl::value_desc("file.so"),
                                       cl::Required);
static cl::opt<std::string>
    target("target",
           cl::desc("Built-in target, native (this machine, see "
                    "tide-calibrate) or JSON target file (default: the "
                    "module's tide.target, else h200)"));
static cl::opt<tide::PlacementPolicy> policy(
    "policy", cl::desc("Placement policy"),
    cl::init(tide::PlacementPolicy::Soft),
    cl::values(clEnumValN(tide::PlacementPolicy::Soft, "soft",
                          "fall back to a device with a kernel"),
               clEnumValN(tide::PlacementPolicy::Strict, "strict",
                          "a pin to a device without a kernel is an error"),
               clEnumValN(tide::PlacementPolicy::RequireGPU, "require-gpu",
                          "any op on the CPU is an error"),
               clEnumValN(tide::PlacementPolicy::Cost, "cost",
                          "minimise compute plus copy time")));
static cl::opt<tide::ReducedPrecision> reducePrecision(
    "reduce-precision",
    cl::desc("Run f32 matmuls and convolutions placed on a GPU on its tensor "
             "cores: operands in this type, f32 accumulation; everything "
             "else stays f32 (an explicit precision change, reported)"),
    cl::init(tide::ReducedPrecision::None),
    cl::values(clEnumValN(tide::ReducedPrecision::None, "none", "as written"),
               clEnumValN(tide::ReducedPrecision::BF16, "bf16",
                          "bf16 operands (f32's range)"),
               clEnumValN(tide::ReducedPrecision::F16, "f16",
                          "f16 operands (more mantissa, less range)")));
static cl::opt<std::string>
    header("header", cl::desc("C header to write (default: OUT with .h)"));
static cl::opt<std::string>
    cpu("cpu", cl::desc("CPU to generate code for (native, x86-64-v3, ...)"),
        cl::init("native"));
static cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level"),
                                  cl::init(3), cl::Prefix);
static cl::opt<bool> noRemarks("no-remarks",
                               cl::desc("Do not print placement remarks"));
static cl::opt<std::string> cudaToolkit(
    "cuda-toolkit",
    cl::desc("CUDA toolkit root for GPU code (ptxas, fatbinary, libdevice)"),
    cl::init(TIDE_DEFAULT_CUDA_ROOT));
static cl::opt<std::string>
    gpuChip("gpu-chip",
            cl::desc("GPU architecture (default: the target's chip, e.g. "
                     "sm_90)"));
static cl::opt<bool> cpuFallback(
    "cpu-fallback",
    cl::desc("For GPU code: also compile a CPU-only version of every function, "
             "run where no GPU can be used"));
static cl::opt<std::string> resident(
    "resident",
    cl::desc("Keep every argument and result of the public functions on this "
             "device (cuda:0): callers pass and get device buffers"),
    cl::value_desc("DEVICE"));
static cl::list<std::string> bindShape(
    "bind-shape",
    cl::desc("ONNX input: fix a graph input's shape (NAME=1x3x224x224) or a "
             "symbolic dimension's size (batch=8)"),
    cl::value_desc("NAME=DIMS"));
static cl::list<std::string> bindInput(
    "bind-input",
    cl::desc("ONNX input: replace a graph input by a constant from a .npy or "
             ".pb file"),
    cl::value_desc("NAME=FILE"));
static cl::opt<int64_t> threads(
    "cpu-threads",
    cl::desc("Threads of the CPU code: 0 = decided at run time "
             "(TIDE_NUM_THREADS, else the CPUs the process may use), 1 = "
             "single-threaded code, N = N unless TIDE_NUM_THREADS is set"),
    cl::init(0));
static cl::opt<int64_t> outlineMinNests(
    "cpu-outline-min-nests",
    cl::desc("CPU functions with at least this many top-level loop nests get "
             "one function per nest, which keeps LLVM's code generation "
             "linear in their size (0: never)"),
    cl::init(256));
static cl::opt<bool>
    rowTiles("cpu-row-tiles",
             cl::desc("Compute softmax, norms and other reductions with their "
                      "consumers by row tiles that stay in the cache"),
             cl::init(true));
static cl::opt<bool> pipelineRows(
    "cpu-pipeline-rows",
    cl::desc("In row tiles, read the next row while computing the previous "
             "one (a softmax's maxima with the previous row's exponentials)"),
    cl::init(true));
static cl::opt<bool> streamStores(
    "cpu-stream-stores",
    cl::desc("Write results of 8 MiB or more that a loop writes once with "
             "non-temporal vector stores (no read of their lines first)"),
    cl::init(true));
static cl::opt<bool> rowKernels(
    "gpu-row-kernels",
    cl::desc("Compute each layer norm, softmax with its scale and mask, and "
             "other reduction over rows with the work around it as one GPU "
             "kernel"),
    cl::init(true));
static cl::opt<bool> attentionKernel(
    "gpu-attention-kernel",
    cl::desc("Compute f16/bf16 attention (Q K^T, its scale and mask, softmax, "
             "times V) as one GPU kernel that keeps the scores in registers"),
    cl::init(true));
static cl::opt<bool> constantsInPlace(
    "gpu-constants-in-place",
    cl::desc("Read constants that GPU code only reads (weights) from one "
             "device copy uploaded at the first call, not from a fresh copy "
             "of it at every call"),
    cl::init(true));
static cl::opt<bool> channelsLast(
    "gpu-channels-last",
    cl::desc("Run f16/bf16 GPU convolutions on channels-last (NHWC) data, "
             "the layout of cuDNN's tensor-core kernels "
             "(tide-channels-last)"),
    cl::init(true));
enum class Choice { Auto, On, Off };
static cl::opt<Choice> cpuInlineF64Exp(
    "cpu-inline-f64-exp",
    cl::desc("Compute host f64 exp inline instead of calling libmvec's "
             "vector exp (tide-expand-host-exp{f64})"),
    cl::values(clEnumValN(Choice::Auto, "auto",
                          "where the CPU runs it faster (AMD Zen)"),
               clEnumValN(Choice::On, "true", "always"),
               clEnumValN(Choice::Off, "false", "never")),
    cl::init(Choice::Auto));
static cl::opt<bool> cpuChannelsLast(
    "cpu-channels-last",
    cl::desc("Run f32 CPU convolutions (oneDNN's) on channels-last (NHWC) "
             "data, which its kernels read without a reorder "
             "(tide-channels-last)"),
    cl::init(true));
static cl::opt<int64_t>
    grain("grain",
          cl::desc("Fewest loop iterations per thread: smaller loop nests "
                   "run on one thread"),
          cl::init(tide::kDefaultParallelGrain));
static cl::opt<unsigned> vectorWidth(
    "cpu-vector-width",
    cl::desc("Widest vectors of the host loops on x86: 512 (all of AVX-512 "
             "where the CPU has it) or 256 (LLVM's default for CPUs it tunes "
             "for 256 bits)"),
    cl::init(512));
static cl::opt<bool> emitLLVMDialect(
    "emit-llvm-dialect",
    cl::desc("Print the lowered module (LLVM dialect) instead of linking"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tide-compile: place, lower and compile a Tide program into a shared "
      "library that describes itself (run it with tide-run)\n");
  if (vectorWidth != 256 && vectorWidth != 512) {
    llvm::errs() << "tide-compile: --cpu-vector-width=" << vectorWidth
                 << " is not a width; use 256 or 512\n";
    return 1;
  }
  if (optLevel > 3) {
    llvm::errs() << "tide-compile: -O" << optLevel << " is not a level; use "
                 << "-O0 .. -O3\n";
    return 1;
  }
  {
    std::string error;
    if (failed(tide::checkCompileCpu(cpu, error))) {
      llvm::errs() << "tide-compile: --cpu: " << error << "\n";
      return 1;
    }
  }
  {
    tide::CpuPipelineOptions check;
    check.threads = threads;
    check.grain = grain;
    std::string message;
    if (failed(tide::validateCpuPipelineOptions(check, message))) {
      // The pipeline's words, with the tool's flag names.
      for (auto [option, flag] :
           {std::pair<StringRef, StringRef>{"'threads' option",
                                            "--cpu-threads value"},
            {"'grain' option", "--grain value"}})
        if (size_t at = message.find(option.str()); at != std::string::npos)
          message.replace(at, option.size(), flag.str());
      llvm::errs() << "tide-compile: " << message << "\n";
      return 1;
    }
  }

  // The header is written beside the library: never over the library or
  // the source (-o lib.h made the header replace the library before).
  if (!emitLLVMDialect) {
    std::string headerPath = header;
    if (headerPath.empty()) {
      llvm::SmallString<128> path(outputFile);
      llvm::sys::path::replace_extension(path, ".h");
      headerPath = path.str().str();
    }
    auto same = [](StringRef a, StringRef b) {
      llvm::SmallString<256> x(a), y(b);
      llvm::sys::fs::make_absolute(x);
      llvm::sys::fs::make_absolute(y);
      llvm::sys::path::remove_dots(x, true);
      llvm::sys::path::remove_dots(y, true);
      return x == y;
    };
    if (same(headerPath, outputFile) || same(headerPath, inputFile)) {
      llvm::errs() << "tide-compile: the header " << headerPath
                   << " would overwrite the "
                   << (same(headerPath, outputFile) ? "library" : "input")
                   << "; give -o a name that does not end in .h, or "
                      "--header another path\n";
      return 1;
    }
  }

  DialectRegistry registry;
  tide::registerAllDialects(registry);
  tide::registerAllExtensions(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Messages point at the user's source; no IR dumps.
  context.printOpOnDiagnostic(false);

  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file) {
    llvm::errs() << "tide-compile: " << error << "\n";
    return 1;
  }
  bool isONNX = tide::looksLikeONNX(inputFile, file->getBuffer());
  if (!isONNX && (!bindShape.empty() || !bindInput.empty())) {
    llvm::errs() << "tide-compile: --bind-shape and --bind-input apply to "
                    "ONNX models only\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  // An ONNX model's bytes are freed once imported (the weights then live in
  // the module's blobs); MLIR text stays for the diagnostics' source lines.
  std::unique_ptr<llvm::MemoryBuffer> onnxBytes;
  if (isONNX)
    onnxBytes = std::move(file);
  else
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  // Messages at imported ONNX nodes name the node.
  tide::NamedLocDiagnosticHandler named(&context);
  OwningOpRef<ModuleOp> module;
  if (isONNX) {
    tide::ONNXImportOptions importOptions;
    for (const std::string &spec : bindShape)
      error += tide::parseBindShape(spec, importOptions);
    for (const std::string &spec : bindInput)
      error += tide::parseBindInput(spec, importOptions);
    if (!error.empty()) {
      llvm::errs() << "tide-compile: " << error << "\n";
      return 1;
    }
    // Parsed from the file in pieces (importONNXFile), not from these bytes.
    onnxBytes.reset();
    module = tide::importONNXFile(inputFile, &context, importOptions);
  } else {
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return 1;

  tide::CompileOptions options;
  options.target = target;
  options.policy = policy;
  options.reducePrecision = reducePrecision;
  options.cpu = cpu;
  options.vectorWidth = vectorWidth;
  options.optLevel = optLevel;
  options.remarks = !noRemarks;
  options.cudaToolkit = cudaToolkit;
  options.gpuChip = gpuChip;
  options.cpuFallback = cpuFallback;
  options.resident = resident;
  options.threads = threads;
  options.grain = grain;
  if (outlineMinNests < 0) {
    llvm::errs() << "tide-compile: --cpu-outline-min-nests must not be "
                    "negative (got "
                 << outlineMinNests << ")\n";
    return 1;
  }
  options.outlineMinNests = outlineMinNests;
  options.rowTiles = rowTiles;
  options.pipelineRows = pipelineRows;
  options.streamStores = streamStores;
  options.rowKernels = rowKernels;
  options.attentionKernel = attentionKernel;
  options.constantsInPlace = constantsInPlace;
  options.channelsLast = channelsLast;
  options.cpuChannelsLast = cpuChannelsLast;
  if (cpuInlineF64Exp != Choice::Auto)
    options.inlineF64Exp = cpuInlineF64Exp == Choice::On;
  OwningOpRef<ModuleOp> fallback;
  if (failed(tide::lowerToLLVMDialect(*module, options, &fallback)))
    return 1;
  if (emitLLVMDialect) {
    module->print(llvm::outs());
    return 0;
  }
  if (failed(tide::emitSharedLibrary(*module, options, outputFile, error,
                                     fallback ? *fallback : ModuleOp()))) {
    llvm::errs() << "tide-compile: " << error << "\n";
    return 1;
  }
  std::string headerPath = header;
  if (headerPath.empty()) {
    llvm::SmallString<128> path(outputFile);
    llvm::sys::path::replace_extension(path, ".h");
    headerPath = path.str().str();
  }
  std::string guard = "TIDE_" + llvm::sys::path::stem(headerPath).upper() +
                      "_H";
  for (char &c : guard)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  std::string headerText;
  if (failed(tide::generateHeader(tide::getModuleMetadata(*module), guard,
                                  headerText, error))) {
    llvm::errs() << "tide-compile: " << error << "\n";
    return 1;
  }
  std::error_code ec;
  llvm::ToolOutputFile out(headerPath, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::errs() << "tide-compile: cannot write " << headerPath << ": "
                 << ec.message() << "\n";
    return 1;
  }
  out.os() << headerText;
  out.keep();
  return 0;
}
