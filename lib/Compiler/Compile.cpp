//===- Compile.cpp - From placed tide IR to a shared library -------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Compiler/Compile.h"

#include "tide/ABI/ModuleMetadata.h"

#include "tide/IR/TideOps.h"
#include "tide/Placement/Placement.h"
#include "tide/Pipelines/Pipelines.h"
#include "tide/Target/Target.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include <mutex>

using namespace mlir;
using namespace mlir::tide;

static bool cpuHasAvx512(StringRef cpu);
static bool cpuHasFeature(StringRef cpu, StringRef feature);
static int64_t cpuStreamVectorBytes(const CompileOptions &options);
static bool inlineF64Exp(const CompileOptions &options);

LogicalResult mlir::tide::lowerToLLVMDialect(ModuleOp module,
                                             const CompileOptions &options,
                                             OwningOpRef<ModuleOp> *fallback) {
  // The unplaced program, for a CPU-only version beside the GPU one.
  OwningOpRef<ModuleOp> original;
  if (options.cpuFallback && fallback)
    original = module.clone();
  if (!options.resident.empty()) {
    std::string error;
    DeviceAttr device =
        parseDeviceString(module.getContext(), options.resident, error);
    if (!device)
      return module.emitError() << "invalid resident device '"
                                << options.resident << "': " << error;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.isPrivate())
        continue;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        func.setArgAttr(i, TideDialect::getResidentAttrName(), device);
      for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
        func.setResultAttr(i, TideDialect::getResidentAttrName(), device);
    }
  }
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  PlacementPipelineOptions place;
  place.target = options.target;
  place.policy = options.policy;
  place.reducePrecision = options.reducePrecision;
  place.remarks = options.remarks;
  // The CPU's cost figures for the threads its code will run on.
  place.cpuThreads = options.threads;
  buildPlacementPipeline(pm, place);
  if (failed(pm.run(module)))
    return failure();
  if (options.afterPlacement)
    options.afterPlacement(module);

  // Anything on a GPU (an op or a copy to it) needs the GPU pipeline.
  bool usesGpu = false;
  module.walk([&](Operation *op) {
    DeviceAttr device = isa<TransferOp>(op) ? cast<TransferOp>(op).getTo()
                                             : getDevice(op);
    if (device && device.isGPU())
      usesGpu = true;
  });
  PassManager lower(module.getContext(), ModuleOp::getOperationName());
  if (!usesGpu) {
    CpuPipelineOptions cpu;
    cpu.threads = options.threads;
    cpu.grain = options.grain;
    cpu.rowTiles = options.rowTiles;
    cpu.pipelineRows = options.pipelineRows;
    cpu.channelsLast = options.cpuChannelsLast;
    cpu.avx512 = cpuHasAvx512(options.cpu);
    if (!options.streamStores)
      cpu.streamBytes = 0;
    cpu.streamVectorBytes = cpuStreamVectorBytes(options);
    cpu.inlineF64Exp = inlineF64Exp(options);
    cpu.outlineMinNests = options.outlineMinNests;
    buildCpuPipeline(lower, cpu);
    return lower.run(module);
  }
  // GPU code needs ptxas and libdevice from a CUDA toolkit (no GPU).
  for (const char *part : {"bin/ptxas", "nvvm/libdevice/libdevice.10.bc"}) {
    SmallString<256> path(options.cudaToolkit);
    llvm::sys::path::append(path, part);
    if (!llvm::sys::fs::exists(path))
      return module.emitError()
             << "placement put work on a GPU, and GPU code needs the CUDA "
                "toolkit, but '"
             << options.cudaToolkit << "' has no " << part
             << "; name the toolkit with --cuda-toolkit, or place with "
                "target=cpu";
  }
  GpuPipelineOptions gpu;
  gpu.toolkit = options.cudaToolkit;
  // The chip comes from the module's tide.target (tide-attach-gpu-target,
  // which reports a bad one); known here too, for the kernels that exist for
  // one chip only.
  gpu.chip = options.gpuChip;
  if (gpu.chip.empty()) {
    ScopedDiagnosticHandler quiet(module.getContext(),
                                  [](Diagnostic &) { return success(); });
    FailureOr<const Target *> target = resolveTarget(module, "");
    if (succeeded(target))
      if (const DeviceSpec *device = (*target)->getFirstGPU())
        gpu.chip = device->chip;
  }
  gpu.threads = options.threads;
  gpu.grain = options.grain;
  gpu.rowKernels = options.rowKernels;
  gpu.attentionKernel = options.attentionKernel;
  gpu.constantsInPlace = options.constantsInPlace;
  gpu.channelsLast = options.channelsLast;
  gpu.avx512 = cpuHasAvx512(options.cpu);
  gpu.inlineF64Exp = inlineF64Exp(options);
  buildGpuPipeline(lower, gpu);
  if (failed(lower.run(module)))
    return failure();
  if (!original)
    return success();

  // The CPU version: only for functions whose tensors all live on the host
  // (a GPU-resident tensor has no CPU meaning).
  for (auto func : original->getOps<mlir::func::FuncOp>()) {
    if (func.isExternal() || func.isPrivate())
      continue;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (getArgumentResidence(func, i).isGPU()) {
        module.emitWarning() << "no CPU fallback: argument #" << i << " of @"
                             << func.getName() << " lives on the GPU";
        return success();
      }
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (getResultResidence(func, i).isGPU()) {
        module.emitWarning() << "no CPU fallback: result #" << i << " of @"
                             << func.getName() << " lives on the GPU";
        return success();
      }
  }
  PassManager cpu(module.getContext(), ModuleOp::getOperationName());
  PlacementPipelineOptions cpuPlace;
  // The same program placed again, for the CPU alone.
  (*original)->removeAttr(TideDialect::getTargetAttrName());
  cpuPlace.target = "cpu";
  cpuPlace.policy = PlacementPolicy::Soft;
  cpuPlace.remarks = false;
  buildPlacementPipeline(cpu, cpuPlace);
  CpuPipelineOptions host;
  host.threads = options.threads;
  host.grain = options.grain;
  host.dnnl = false; // in the GPU module, which needs no libdnnl
  host.avx512 = cpuHasAvx512(options.cpu);
  host.inlineF64Exp = inlineF64Exp(options);
  host.outlineMinNests = options.outlineMinNests;
  buildCpuPipeline(cpu, host);
  if (failed(cpu.run(*original)))
    return failure();
  *fallback = std::move(original);
  return success();
}

std::string mlir::tide::getModuleMetadata(ModuleOp module) {
  auto global = module.lookupSymbol<LLVM::GlobalOp>("tide_module_metadata");
  if (!global || !global.getValueAttr())
    return "";
  if (auto text = dyn_cast<StringAttr>(*global.getValue())) {
    StringRef s = text.getValue();
    return s.take_until([](char c) { return c == '\0'; }).str();
  }
  return "";
}

LogicalResult mlir::tide::generateHeader(StringRef metadataText,
                                         StringRef guard, std::string &header,
                                         std::string &error) {
  namespace abi = ::tide::abi;
  abi::ModuleMetadata metadata;
  abi::MetadataError bad;
  if (!abi::parseModuleMetadata(
          std::string_view(metadataText.data(), metadataText.size()), metadata,
          bad)) {
    error = "cannot write the C header: the module's metadata is "
            "malformed: " +
            bad.str();
    return failure();
  }
  header.clear();
  llvm::raw_string_ostream os(header);
  os << "/* Generated by tide-compile: the functions of a Tide module.\n"
        " * Tensors cross the boundary as MLIR memref descriptors (row-major,\n"
        " * identity layout). Results come first: a pointer to one descriptor\n"
        " * (one result) or to a struct of them (several). Result buffers are\n"
        " * malloc'ed and owned by the caller (free `allocated`), except when\n"
        " * `allocated` equals an argument's: then the result aliases it. */\n";
  os << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  // One descriptor type per rank used.
  std::set<size_t> ranks;
  for (const abi::FunctionDesc &fn : metadata.functions) {
    for (const abi::TensorDesc &t : fn.args)
      ranks.insert(t.rank());
    for (const abi::TensorDesc &t : fn.results)
      ranks.insert(t.rank());
  }
  for (size_t r : ranks) {
    os << "typedef struct {\n  void *allocated;\n  void *aligned;\n"
          "  int64_t offset;\n";
    if (r)
      os << "  int64_t sizes[" << r << "];\n  int64_t strides[" << r << "];\n";
    os << "} tide_memref_" << r << "d;\n\n";
  }
  // "f32 4x? on cpu"
  auto describe = [](const abi::TensorDesc &t) {
    return t.dtype + " " + t.shapeStr() + " on " + t.device;
  };
  for (const abi::FunctionDesc &fn : metadata.functions) {
    if (fn.results.size() > 1) {
      os << "typedef struct {\n";
      for (auto [i, res] : llvm::enumerate(fn.results))
        os << "  tide_memref_" << res.rank() << "d r" << i << "; /* "
           << describe(res) << " */\n";
      os << "} " << fn.name << "_results;\n";
    }
    os << "void _mlir_ciface_" << fn.name << "(";
    bool first = true;
    if (fn.results.size() == 1) {
      os << "tide_memref_" << fn.results[0].rank() << "d *result /* "
         << describe(fn.results[0]) << " */";
      first = false;
    } else if (fn.results.size() > 1) {
      os << fn.name << "_results *results";
      first = false;
    }
    for (auto [i, arg] : llvm::enumerate(fn.args)) {
      os << (first ? "" : ", ") << "tide_memref_" << arg.rank() << "d *arg" << i
         << " /* " << describe(arg) << " */";
      first = false;
    }
    if (first)
      os << "void";
    os << ");\n\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return success();
}

/// Finds a C compiler driver to link with.
/// glibc 2.35 added vector variants of most of libm to libmvec (erf, tanh,
/// expm1, log1p, the inverse and hyperbolic functions, ...), but LLVM's
/// LIBMVEC table lists only the older ones: without these, loops calling
/// them (a transformer's erf GELU, tide.elu's expm1) stay scalar. Only
/// functions the table does not already map are added.
static void addLibmvecFunctions(llvm::TargetLibraryInfoImpl &tlii,
                                const llvm::Triple &triple, bool avx512) {
  if (triple.getArch() != llvm::Triple::x86_64)
    return;
#ifdef __GLIBC__
  // The module is linked against this machine's libmvec.
  if (__GLIBC__ < 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ < 35))
    return;
#else
  return;
#endif
  auto fixed = [](unsigned n) { return llvm::ElementCount::getFixed(n); };
  // Unary functions with SSE (b), AVX2 (d) and AVX-512 (e) variants in glibc
  // 2.35's libmvec, each in f32 ("f" suffix) and f64. (LLVM knows the b and
  // d variants of exp, log, sin and cos itself; their e variants are added
  // here.)
  static const char *const unary[] = {
      "erf",   "erfc", "tanh",  "atanh", "asinh", "acosh", "sinh",
      "cosh",  "tan",  "atan",  "asin",  "acos",  "log1p", "log2",
      "log10", "exp2", "exp10", "cbrt",  "expm1"};
  std::vector<llvm::VecDesc> descs;
  // The names must outlive the TargetLibraryInfoImpl: kept for the process.
  static llvm::StringSet<> *names = new llvm::StringSet<>();
  static std::mutex namesMutex;
  std::lock_guard<std::mutex> lock(namesMutex);
  auto keep = [&](std::string name) -> llvm::StringRef {
    return names->insert(name).first->getKey();
  };
  // The functions MLIR's math-to-llvm lowers to LLVM intrinsics (tide.tanh
  // becomes llvm.intr.tanh): the vectorizer looks those up by the
  // intrinsic's name.
  static const char *const intrinsics[] = {"tanh", "sinh", "cosh", "tan",
                                           "atan", "asin", "acos", "exp10"};
  std::vector<std::pair<std::string, std::string>> scalars; // (f32, f64)
  for (const char *f : unary)
    scalars.push_back({std::string(f) + "f", f});
  for (const char *f : intrinsics)
    scalars.push_back(
        {std::string("llvm.") + f + ".f32", std::string("llvm.") + f + ".f64"});
  for (const char *f : {"exp", "log", "sin", "cos"}) {
    scalars.push_back({std::string(f) + "f", f});
    scalars.push_back(
        {std::string("llvm.") + f + ".f32", std::string("llvm.") + f + ".f64"});
  }
  for (auto [f32, f64] : scalars) {
    // The vector variant is named after the libm function.
    StringRef base = StringRef(f64).starts_with("llvm.")
                         ? StringRef(f64).drop_front(5).drop_back(4)
                         : StringRef(f64);
    std::string v32 = base.str() + "f", v64 = base.str();
    for (auto [scalar, vector, prefix, width] :
         {std::tuple<std::string, std::string, const char *, unsigned>{
              f32, v32, "_ZGVbN4v_", 4},
          {f32, v32, "_ZGVdN8v_", 8},
          {f32, v32, "_ZGVeN16v_", 16},
          {f64, v64, "_ZGVbN2v_", 2},
          {f64, v64, "_ZGVdN4v_", 4},
          {f64, v64, "_ZGVeN8v_", 8}}) {
      // The AVX-512 variants only where the CPU runs them.
      if (prefix[4] == 'e' && !avx512)
        continue;
      if (tlii.isFunctionVectorizable(scalar, fixed(width)))
        continue;
      descs.push_back({keep(scalar), keep(prefix + vector), fixed(width), false,
                       keep("_ZGV_LLVM_N" + std::to_string(width) + "v"),
                       std::nullopt});
    }
  }
  tlii.addVectorizableFunctions(descs);
}

static std::string findLinker() {
  for (const char *name : {"clang-22", "clang", "cc", "gcc"})
    if (auto path = llvm::sys::findProgramByName(name))
      return *path;
  return "";
}

/// Links the CPU version `cpu` into `gpu`: its functions and globals become
/// internal under a `__tide_cpu_` prefix, and each public `_mlir_ciface_X`
/// of `gpu` asks tide_rt_use_gpu() which version to run.
static void linkFallback(llvm::Module &gpu, std::unique_ptr<llvm::Module> cpu) {
  if (llvm::GlobalVariable *metadata =
          cpu->getGlobalVariable("tide_module_metadata"))
    metadata->eraseFromParent();
  for (llvm::Function &f : *cpu)
    if (!f.isDeclaration()) {
      f.setName("__tide_cpu_" + f.getName());
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  for (llvm::GlobalVariable &g : cpu->globals())
    if (!g.isDeclaration()) {
      g.setName("__tide_cpu_" + g.getName());
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  llvm::LLVMContext &ctx = gpu.getContext();
  llvm::FunctionCallee useGpu = gpu.getOrInsertFunction(
      "tide_rt_use_gpu", llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), false));
  std::vector<llvm::Function *> entries;
  for (llvm::Function &f : gpu)
    if (!f.isDeclaration() && f.getName().starts_with("_mlir_ciface_"))
      entries.push_back(&f);
  std::vector<std::string> names;
  for (llvm::Function *f : entries) {
    std::string name = f->getName().str();
    names.push_back(name);
    f->setName("__tide_gpu_" + name);
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  // Declarations of the CPU entries, resolved by the link below.
  for (auto [f, name] : llvm::zip(entries, names)) {
    llvm::Function *onCpu = llvm::Function::Create(
        f->getFunctionType(), llvm::GlobalValue::ExternalLinkage,
        "__tide_cpu_" + name, gpu);
    llvm::Function *dispatch = llvm::Function::Create(
        f->getFunctionType(), llvm::GlobalValue::ExternalLinkage, name, gpu);
    auto *entry = llvm::BasicBlock::Create(ctx, "entry", dispatch);
    auto *gpuBlock = llvm::BasicBlock::Create(ctx, "gpu", dispatch);
    auto *cpuBlock = llvm::BasicBlock::Create(ctx, "cpu", dispatch);
    llvm::IRBuilder<> b(entry);
    llvm::Value *ok = b.CreateICmpNE(b.CreateCall(useGpu), b.getInt32(0));
    b.CreateCondBr(ok, gpuBlock, cpuBlock);
    std::vector<llvm::Value *> args;
    for (llvm::Argument &a : dispatch->args())
      args.push_back(&a);
    b.SetInsertPoint(gpuBlock);
    b.CreateCall(f, args);
    b.CreateRetVoid();
    b.SetInsertPoint(cpuBlock);
    b.CreateCall(onCpu, args);
    b.CreateRetVoid();
  }
  // The CPU entries must be visible to the link, then become internal.
  for (llvm::Function &f : *cpu)
    if (f.getName().starts_with("__tide_cpu__mlir_ciface_"))
      f.setLinkage(llvm::GlobalValue::ExternalLinkage);
  llvm::Linker::linkModules(gpu, std::move(cpu));
  for (const std::string &name : names)
    if (llvm::Function *f = gpu.getFunction("__tide_cpu_" + name))
      f->setLinkage(llvm::GlobalValue::InternalLinkage);
}

/// Constant data of at least this many bytes (an imported model's weights)
/// stays out of LLVM IR: see externalizeConstants.
static constexpr uint64_t kExternalConstantBytes = 64 * 1024;

/// Moves large constant globals (an imported model's weights) out of LLVM
/// IR. Translated to LLVM IR, each would be copied into a constant array and
/// copied again by the object writer, which holds a whole section in memory
/// before writing it: two copies of the weights beside the MLIR blob (an
/// assembler's `.incbin` would keep another two). Instead their bytes are
/// streamed from the blobs into a relocatable ELF object of their own (one
/// read-only section, one hidden symbol per global), linked with the code's
/// object; each global becomes a hidden external declaration, renamed so
/// that the CPU fallback's copy of the same global binds to the same
/// definition and to nothing else. Only for little-endian x86-64 and AArch64
/// ELF; data not laid out byte for byte as LLVM would (i1, splats) stays in
/// the IR. Returns the number of globals moved; writes the object only if
/// there is one.
static FailureOr<unsigned> externalizeConstants(ArrayRef<ModuleOp> modules,
                                                const llvm::Triple &triple,
                                                StringRef objectPath,
                                                std::string &error) {
  namespace elf = llvm::ELF;
  uint16_t machine;
  if (!triple.isOSBinFormatELF() || !triple.isLittleEndian())
    return 0u;
  if (triple.getArch() == llvm::Triple::x86_64)
    machine = elf::EM_X86_64;
  else if (triple.getArch() == llvm::Triple::aarch64)
    machine = elf::EM_AARCH64;
  else
    return 0u;

  // Layout: one section of data; a blob shared by the module and its CPU
  // fallback is stored once.
  struct Symbol {
    std::string name;
    uint64_t offset, size;
  };
  SmallVector<Symbol> symbols;
  SmallVector<std::pair<ArrayRef<char>, uint64_t>> chunks;
  llvm::DenseMap<const char *, uint64_t> offsets;
  uint64_t dataSize = 0, maxAlign = 64;
  for (ModuleOp module : modules) {
    if (!module)
      continue;
    SmallVector<LLVM::GlobalOp> globals(module.getOps<LLVM::GlobalOp>());
    for (LLVM::GlobalOp global : globals) {
      if (!global.getConstant())
        continue;
      Attribute value = global.getValueOrNull();
      ArrayRef<char> bytes;
      Type elementType;
      if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value)) {
        AsmResourceBlob *blob = resource.getRawHandle().getBlob();
        if (!blob)
          continue;
        bytes = blob->getData();
        elementType = resource.getType().getElementType();
      } else if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value)) {
        if (dense.isSplat())
          continue;
        bytes = dense.getRawData();
        elementType = dense.getType().getElementType();
      } else {
        continue;
      }
      if (bytes.size() < kExternalConstantBytes ||
          !elementType.isIntOrFloat() ||
          elementType.getIntOrFloatBitWidth() % 8 != 0)
        continue;
      // The object must define exactly the bytes LLVM IR would have.
      DataLayout layout = DataLayout::closest(global);
      if (layout.getTypeSize(global.getGlobalType()) != bytes.size())
        continue;
      uint64_t align =
          std::max<uint64_t>(64, global.getAlignment().value_or(1));
      if (!llvm::isPowerOf2_64(align))
        continue;
      maxAlign = std::max(maxAlign, align);
      auto [it, inserted] = offsets.try_emplace(bytes.data(), 0);
      if (inserted) {
        dataSize = llvm::alignTo(dataSize, align);
        it->second = dataSize;
        chunks.push_back({bytes, dataSize});
        dataSize += bytes.size();
      }
      std::string name = "__tide_constant_" + std::to_string(symbols.size());
      if (failed(SymbolTable::replaceAllSymbolUses(
              global, StringAttr::get(global.getContext(), name), module))) {
        error = "cannot rename the constant @" + global.getSymName().str();
        return failure();
      }
      global.setSymName(name);
      global.removeValueAttr();
      global.setLinkage(LLVM::Linkage::External);
      global.setVisibility_(LLVM::Visibility::Hidden);
      global.setDsoLocal(true);
      symbols.push_back({name, it->second, bytes.size()});
    }
  }
  if (symbols.empty())
    return 0u;

  // String tables and symbols.
  std::string strtab(1, '\0'), shstrtab(1, '\0');
  auto addString = [](std::string &table, StringRef str) {
    uint32_t at = table.size();
    table += str;
    table += '\0';
    return at;
  };
  std::vector<elf::Elf64_Sym> syms(1);
  std::memset(syms.data(), 0, sizeof(elf::Elf64_Sym));
  for (const Symbol &symbol : symbols) {
    elf::Elf64_Sym sym;
    std::memset(&sym, 0, sizeof(sym));
    sym.st_name = addString(strtab, symbol.name);
    sym.setBindingAndType(elf::STB_GLOBAL, elf::STT_OBJECT);
    sym.st_other = elf::STV_HIDDEN;
    sym.st_shndx = 1;
    sym.st_value = symbol.offset;
    sym.st_size = symbol.size;
    syms.push_back(sym);
  }
  // Sections: null, data, symbols, their names, section names, and an empty
  // .note.GNU-stack (the stack need not be executable).
  enum { kData = 1, kSymtab, kStrtab, kShstrtab, kNote, kNumSections };
  elf::Elf64_Shdr headers[kNumSections];
  std::memset(headers, 0, sizeof(headers));
  uint64_t offset = llvm::alignTo(sizeof(elf::Elf64_Ehdr), maxAlign);
  headers[kData].sh_name = addString(shstrtab, ".rodata.tide_constants");
  headers[kData].sh_type = elf::SHT_PROGBITS;
  headers[kData].sh_flags = elf::SHF_ALLOC;
  headers[kData].sh_offset = offset;
  headers[kData].sh_size = dataSize;
  headers[kData].sh_addralign = maxAlign;
  offset = llvm::alignTo(offset + dataSize, 8);
  headers[kSymtab].sh_name = addString(shstrtab, ".symtab");
  headers[kSymtab].sh_type = elf::SHT_SYMTAB;
  headers[kSymtab].sh_offset = offset;
  headers[kSymtab].sh_size = syms.size() * sizeof(elf::Elf64_Sym);
  headers[kSymtab].sh_link = kStrtab;
  headers[kSymtab].sh_info = 1; // The first global symbol.
  headers[kSymtab].sh_addralign = 8;
  headers[kSymtab].sh_entsize = sizeof(elf::Elf64_Sym);
  offset += headers[kSymtab].sh_size;
  headers[kStrtab].sh_name = addString(shstrtab, ".strtab");
  headers[kNote].sh_name = addString(shstrtab, ".note.GNU-stack");
  headers[kNote].sh_type = elf::SHT_PROGBITS;
  headers[kNote].sh_offset = offset;
  headers[kNote].sh_addralign = 1;
  headers[kShstrtab].sh_name = addString(shstrtab, ".shstrtab");
  headers[kStrtab].sh_type = elf::SHT_STRTAB;
  headers[kStrtab].sh_offset = offset;
  headers[kStrtab].sh_size = strtab.size();
  headers[kStrtab].sh_addralign = 1;
  offset += strtab.size();
  headers[kShstrtab].sh_type = elf::SHT_STRTAB;
  headers[kShstrtab].sh_offset = offset;
  headers[kShstrtab].sh_size = shstrtab.size();
  headers[kShstrtab].sh_addralign = 1;
  offset = llvm::alignTo(offset + shstrtab.size(), 8);

  elf::Elf64_Ehdr header;
  std::memset(&header, 0, sizeof(header));
  std::memcpy(header.e_ident, elf::ElfMagic, 4);
  header.e_ident[elf::EI_CLASS] = elf::ELFCLASS64;
  header.e_ident[elf::EI_DATA] = elf::ELFDATA2LSB;
  header.e_ident[elf::EI_VERSION] = elf::EV_CURRENT;
  header.e_ident[elf::EI_OSABI] = elf::ELFOSABI_NONE;
  header.e_type = elf::ET_REL;
  header.e_machine = machine;
  header.e_version = elf::EV_CURRENT;
  header.e_shoff = offset;
  header.e_ehsize = sizeof(elf::Elf64_Ehdr);
  header.e_shentsize = sizeof(elf::Elf64_Shdr);
  header.e_shnum = kNumSections;
  header.e_shstrndx = kShstrtab;

  std::error_code ec;
  llvm::raw_fd_ostream out(objectPath, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write " + objectPath.str() + ": " + ec.message();
    return failure();
  }
  uint64_t at = 0;
  auto padTo = [&](uint64_t to) {
    for (; at < to; ++at)
      out << '\0';
  };
  auto write = [&](const void *data, size_t size) {
    out.write(static_cast<const char *>(data), size);
    at += size;
  };
  write(&header, sizeof(header));
  for (auto &[bytes, chunkOffset] : chunks) {
    padTo(headers[kData].sh_offset + chunkOffset);
    write(bytes.data(), bytes.size());
  }
  padTo(headers[kSymtab].sh_offset);
  write(syms.data(), headers[kSymtab].sh_size);
  write(strtab.data(), strtab.size());
  write(shstrtab.data(), shstrtab.size());
  padTo(header.e_shoff);
  write(headers, sizeof(headers));
  out.close();
  if (out.has_error()) {
    error = "cannot write " + objectPath.str() + ": " + out.error().message();
    out.clear_error();
    return failure();
  }
  return static_cast<unsigned>(symbols.size());
}

/// LLVM's native target, registered once (registration is not thread-safe,
/// and the C API and Python compile on several threads).
static void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// Whether code built for `cpu` (an LLVM CPU name, or "native") may use
/// AVX-512F.
static bool cpuHasAvx512(StringRef cpu) {
  return cpuHasFeature(cpu, "avx512f");
}

/// Bytes of the widest x86 vectors code for `options.cpu` uses (0 where the
/// host is not x86): the non-temporal stores of tide-stream-stores.
static int64_t cpuStreamVectorBytes(const CompileOptions &options) {
  if (!llvm::Triple(llvm::sys::getDefaultTargetTriple()).isX86())
    return 0;
  if (options.vectorWidth >= 512 && cpuHasFeature(options.cpu, "avx512f"))
    return 64;
  return cpuHasFeature(options.cpu, "avx") ? 32 : 16;
}

/// Whether code built for `cpu` (an LLVM CPU name, or "native") may use the
/// x86 feature `feature` (LLVM's name, without the +).
static bool cpuHasFeature(StringRef cpu, StringRef feature) {
  initializeNativeTarget();
  if (cpu == "native") {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    auto it = features.find(feature);
    return it != features.end() && it->second;
  }
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  if (!triple.isX86())
    return false;
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target)
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, cpu, ""));
  return subtarget && subtarget->checkFeatures(("+" + feature).str());
}

/// The CPU LLVM names for `cpu` ("native": this machine's).
static std::string resolveCpuName(StringRef cpu) {
  return cpu == "native" ? llvm::sys::getHostCPUName().str() : cpu.str();
}

bool mlir::tide::cpuPrefersInlineF64Exp(StringRef cpu) {
  // Measured (benchmarks.md, "f64 exp inline"): 230400 f64 on one thread,
  // AMD Zen 4 142 us inline against 164 us for libmvec's _ZGVeN8v_exp.
  return StringRef(resolveCpuName(cpu)).starts_with("znver");
}

static bool inlineF64Exp(const CompileOptions &options) {
  return options.inlineF64Exp.value_or(cpuPrefersInlineF64Exp(options.cpu));
}

LogicalResult mlir::tide::checkCompileCpu(StringRef cpu, std::string &error) {
  if (cpu == "native")
    return success();
  initializeNativeTarget();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target) {
    error = "no LLVM target for " + triple.str() + ": " + lookupError;
    return failure();
  }
  std::unique_ptr<llvm::MCSubtargetInfo> any(
      target->createMCSubtargetInfo(triple, "", ""));
  std::string examples =
      triple.isX86() ? " (native, x86-64, x86-64-v2, x86-64-v3, x86-64-v4, or "
                       "a CPU such as skylake-avx512, sapphirerapids, znver3)"
                     : " (native, or a CPU of that target)";
  if (cpu.empty() || !any || !any->isCPUStringValid(cpu)) {
    error = "unknown CPU '" + cpu.str() + "' for " + triple.str() +
            "; expected one LLVM knows" + examples;
    return failure();
  }
  if (triple.getArch() == llvm::Triple::x86_64) {
    std::unique_ptr<llvm::MCSubtargetInfo> chosen(
        target->createMCSubtargetInfo(triple, cpu, ""));
    if (!chosen || !chosen->checkFeatures("+64bit")) {
      error =
          "CPU '" + cpu.str() + "' cannot run 64-bit (x86-64) code" + examples;
      return failure();
    }
  }
  return success();
}

/// Whether `f`, or a function defined in the module that it calls (which the
/// inliner could bring into it), has a loop.
static bool mayHaveLoops(llvm::Function &f,
                         llvm::DenseMap<llvm::Function *, bool> &known) {
  auto [it, inserted] = known.try_emplace(&f, false);
  if (!inserted)
    return it->second; // known, or on the call path (recursion: no loop yet)
  SmallVector<std::pair<const llvm::BasicBlock *, const llvm::BasicBlock *>>
      backEdges;
  llvm::FindFunctionBackedges(f, backEdges);
  bool loops = !backEdges.empty();
  for (llvm::BasicBlock &block : f)
    for (llvm::Instruction &inst : block)
      if (auto *call = dyn_cast<llvm::CallBase>(&inst))
        if (llvm::Function *callee = call->getCalledFunction();
            !loops && callee && !callee->isDeclaration())
          loops = mayHaveLoops(*callee, known);
  return known[&f] = loops;
}

/// LLVM's vectorizers kept off loop-free functions with a huge basic block:
/// the host code of a GPU module with hundreds of kernel launches is one
/// straight-line block (each launch stores its arguments into an array), and
/// the SLP vectorizer's cost model renumbers that block after each tree it
/// tries, so its time grows with the square of the block (a 117k-line host
/// function of 814 launches: 46 s of a 60 s compile, 1.3 s without it). Such
/// glue has no loops to vectorize and stores nothing worth packing, so it
/// gets `noimplicitfloat`, which both vectorizers respect (explicit floating
/// point is unaffected). Not where a loop is or could be inlined.
void mlir::tide::keepVectorizersOffHugeGlue(llvm::Module &module) {
  llvm::DenseMap<llvm::Function *, bool> loops;
  for (llvm::Function &f : module) {
    if (f.isDeclaration() || f.hasFnAttribute(llvm::Attribute::NoImplicitFloat))
      continue;
    size_t largest = 0;
    for (llvm::BasicBlock &block : f)
      largest = std::max(largest, block.size());
    if (largest >= kHugeGlueBlockInstructions && !mayHaveLoops(f, loops))
      f.addFnAttr(llvm::Attribute::NoImplicitFloat);
  }
}

LogicalResult mlir::tide::emitSharedLibrary(ModuleOp module,
                                            const CompileOptions &options,
                                            StringRef outputPath,
                                            std::string &error,
                                            ModuleOp fallback) {
  initializeNativeTarget();
  if (failed(checkCompileCpu(options.cpu, error)))
    return failure();

  // Tide's argument and result attributes (tide.resident) mean nothing to
  // LLVM: the metadata global carries them.
  auto stripTideAttrs = [](LLVM::LLVMFuncOp func) {
    auto tideNames = [](DictionaryAttr dict) {
      SmallVector<StringAttr> names;
      if (dict)
        for (NamedAttribute attr : dict)
          if (attr.getName().strref().starts_with("tide."))
            names.push_back(attr.getName());
      return names;
    };
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      for (StringAttr name : tideNames(func.getArgAttrDict(i)))
        func.removeArgAttr(i, name);
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      for (StringAttr name : tideNames(func.getResultAttrDict(i)))
        func.removeResultAttr(i, name);
  };
  module.walk(stripTideAttrs);
  if (fallback)
    fallback.walk(stripTideAttrs);
  // Large constants (weights) go to an object file of their own, streamed
  // from their blobs, not into LLVM IR.
  SmallString<128> constantsPath;
  std::optional<llvm::FileRemover> removeConstants;
  {
    if (auto ec = llvm::sys::fs::createTemporaryFile("tide-constants", "o",
                                                     constantsPath)) {
      error = "cannot create a temporary object file: " + ec.message();
      return failure();
    }
    removeConstants.emplace(constantsPath);
    FailureOr<unsigned> moved = externalizeConstants(
        {module, fallback}, llvm::Triple(llvm::sys::getDefaultTargetTriple()),
        constantsPath, error);
    if (failed(moved))
      return failure();
    if (*moved == 0)
      constantsPath.clear();
  }
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tide");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return failure();
  }
  if (fallback) {
    std::unique_ptr<llvm::Module> cpuModule =
        translateModuleToLLVMIR(fallback, llvmContext, "tide-cpu");
    if (!cpuModule) {
      error = "translation of the CPU fallback to LLVM IR failed";
      return failure();
    }
    linkFallback(*llvmModule, std::move(cpuModule));
  }
  // The weights now live in the LLVM module: free the MLIR blobs
  // (dense_resource, an imported model's initializers) before code
  // generation makes its own copy, so peak memory holds two copies, not three.
  // Nothing reads the blobs' values after translation.
  auto releaseBlobs = [](Operation *root) {
    root->walk([](LLVM::GlobalOp global) {
      if (auto attr = dyn_cast_or_null<DenseResourceElementsAttr>(
              global.getValueOrNull()))
        if (auto *entry = attr.getRawHandle().getResource())
          entry->setBlob(AsmResourceBlob());
    });
  };
  releaseBlobs(module);
  if (fallback)
    releaseBlobs(fallback);
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target) {
    error = "no LLVM target for " + triple.str() + ": " + lookupError;
    return failure();
  }
  std::string cpu = options.cpu, features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      features += (feature.second ? "+" : "-") + feature.first().str() + ",";
  }
  // Where AVX512-BF16 or AVX-NE-CONVERT is available, LLVM lowers an f32 to
  // bf16 fptrunc to VCVTNEPS2BF16, which treats subnormal inputs as zero
  // whatever MXCSR says (llvm/llvm-project#221052, unresolved in LLVM 22): a
  // bf16 product of 3.3e-39 became 0 on Sapphire Rapids and later, and its
  // sign 0 (found by the random programs). Tide's bf16 code only converts (it
  // computes in f32), so it is built without them: every conversion rounds
  // correctly, subnormals included.
  if (triple.isX86())
    features += "-avx512bf16,-avxneconvert";
  // LLVM tunes Skylake-SP to Sapphire Rapids for 256-bit vectors; with
  // vectorWidth 512 the loop vectorizer uses all of AVX-512 there (measured:
  // softmax over 4096x1000 f32 15-20% faster on Sapphire Rapids).
  if (triple.isX86() && options.vectorWidth >= 512)
    features += ",-prefer-256-bit";
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, targetOptions, llvm::Reloc::PIC_, std::nullopt,
      options.optLevel >= 2 ? llvm::CodeGenOptLevel::Aggressive
                            : llvm::CodeGenOptLevel::Default));
  if (!machine) {
    error = "cannot create a target machine for CPU '" + cpu + "'";
    return failure();
  }
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);
  // The CPU the code is built for and the extensions it may use: a runner on
  // a CPU without one of them refuses the module with a message (its code
  // would stop at an illegal instruction; --cpu=native builds for this
  // machine).
  if (triple.isX86()) {
    std::string required = machine->getTargetCPU().str();
    const llvm::MCSubtargetInfo *subtarget = machine->getMCSubtargetInfo();
    for (const char *name : ::tide::abi::kCheckedCpuFeatures)
      if (subtarget->checkFeatures(std::string("+") + name))
        required += std::string(" ") + name;
    auto *value =
        llvm::ConstantDataArray::getString(llvmModule->getContext(), required);
    new llvm::GlobalVariable(*llvmModule, value->getType(), /*isConstant=*/true,
                             llvm::GlobalValue::ExternalLinkage, value,
                             ::tide::abi::kCpuSymbol);
  }
  // Only the C interface and the metadata are exported. The functions behind
  // the wrappers are renamed and made internal, so a user function named
  // like a C library function (`exp`) neither exports nor captures that name.
  for (llvm::Function &f : *llvmModule) {
    if (f.isDeclaration() || f.getName().starts_with("_mlir_ciface_") ||
        f.getName().starts_with("__tide_"))
      continue;
    f.setName("__tide_impl_" + f.getName());
    f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }

  keepVectorizersOffHugeGlue(*llvmModule);

  // Optimize (O3 by default) with glibc's vector math library available to
  // the loop vectorizer.
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions tuning;
    tuning.LoopVectorization = options.optLevel >= 2;
    tuning.SLPVectorization = options.optLevel >= 2;
    llvm::PassBuilder builder(machine.get(), tuning);
    llvm::TargetLibraryInfoImpl tlii(triple);
    if (options.vectorMath) {
      tlii.addVectorizableFunctionsFromVecLib(llvm::VectorLibrary::LIBMVEC,
                                              triple);
      addLibmvecFunctions(
          tlii, triple,
          machine->getMCSubtargetInfo()->checkFeatures("+avx512f"));
    }
    fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel level = llvm::OptimizationLevel::O3;
    if (options.optLevel == 0)
      level = llvm::OptimizationLevel::O0;
    else if (options.optLevel == 1)
      level = llvm::OptimizationLevel::O1;
    else if (options.optLevel == 2)
      level = llvm::OptimizationLevel::O2;
    llvm::ModulePassManager mpm =
        options.optLevel == 0 ? builder.buildO0DefaultPipeline(level)
                              : builder.buildPerModuleDefaultPipeline(level);
    mpm.run(*llvmModule, mam);
    const llvm::MCSubtargetInfo *subtarget = machine->getMCSubtargetInfo();
    if (triple.isX86() && subtarget->checkFeatures("+avx512f"))
      scaleByFloatExponents(*llvmModule, subtarget->checkFeatures("+avx512vl"));
  }

  // Object file next to the output, then link.
  SmallString<128> objectPath;
  if (auto ec = llvm::sys::fs::createTemporaryFile("tide", "o", objectPath)) {
    error = "cannot create a temporary object file: " + ec.message();
    return failure();
  }
  llvm::FileRemover removeObject(objectPath);
  {
    std::error_code ec;
    llvm::ToolOutputFile object(objectPath, ec, llvm::sys::fs::OF_None);
    if (ec) {
      error = "cannot write " + objectPath.str().str() + ": " + ec.message();
      return failure();
    }
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, object.os(), nullptr,
                                     llvm::CodeGenFileType::ObjectFile)) {
      error = "the target cannot emit object files";
      return failure();
    }
    codegen.run(*llvmModule);
    object.keep();
  }
  std::string linker = findLinker();
  if (linker.empty()) {
    error = "no C compiler driver (clang-22, clang, cc or gcc) on PATH to "
            "link the shared library";
    return failure();
  }
  SmallVector<StringRef> args = {linker, "-shared", "-o", outputPath,
                                 objectPath};
  if (!constantsPath.empty())
    args.push_back(constantsPath);
  // Modules that call the runtime link it; GEMM calls also need the BLAS.
  bool usesRuntime = false, usesBlas = false, usesDnnl = false, usesGpu = false,
       usesOpenMP = false;
  for (llvm::Function &f : *llvmModule) {
    if (!f.isDeclaration())
      continue;
    bool gemm = f.getName().starts_with("_mlir_ciface_tide_rt_gemm");
    bool dnnl = f.getName() == TIDE_RT_CPU_CONV_F32 ||
                f.getName() == TIDE_RT_CPU_CONV_EPILOGUE_F32 ||
                f.getName() == "_mlir_ciface_" TIDE_RT_CPU_MATMUL_F32 ||
                f.getName() == "_mlir_ciface_" TIDE_RT_CPU_MATMUL_BATCHED_F32;
    usesBlas |= gemm;
    usesDnnl |= dnnl;
    usesOpenMP |= f.getName().starts_with("__kmpc_");
    usesRuntime |= gemm || dnnl || f.getName() == TIDE_RT_MEMREF_COPY ||
                   f.getName() == TIDE_RT_CPU_TEAM_SIZE;
    usesGpu |= f.getName().starts_with("mgpu") ||
               f.getName().starts_with("_mlir_ciface_tide_rt_gpu_") ||
               f.getName() == "tide_rt_use_gpu";
  }
  // GPU code calls libTideCudaRuntime.so, found next to the module, in
  // ../lib from it, or where it was at compile time.
  std::string gpuRuntime = options.gpuRuntimeLibrary;
  std::string gpuRpath, blasRpath;
  if (usesGpu) {
    if (gpuRuntime.empty()) {
      SmallString<256> self(llvm::sys::fs::getMainExecutable(
          nullptr, reinterpret_cast<void *>(&findLinker)));
      llvm::sys::path::remove_filename(self);
      llvm::sys::path::append(self, "..", "lib", "libTideCudaRuntime.so");
      gpuRuntime = self.str().str();
    }
    if (!llvm::sys::fs::exists(gpuRuntime)) {
      error = "this module has GPU code, but Tide's GPU runtime is missing: " +
              gpuRuntime + " (it is built where the CUDA headers are)";
      return failure();
    }
    SmallString<256> dir(gpuRuntime);
    llvm::sys::fs::make_absolute(dir);
    llvm::sys::path::remove_filename(dir);
    gpuRpath = "-Wl,-rpath,$ORIGIN:$ORIGIN/../lib:" + dir.str().str();
    args.push_back(gpuRuntime);
    args.push_back(gpuRpath);
  }
  std::string runtime = options.runtimeLibrary;
  if (usesRuntime) {
    if (runtime.empty()) {
      SmallString<256> self(llvm::sys::fs::getMainExecutable(
          nullptr, reinterpret_cast<void *>(&findLinker)));
      llvm::sys::path::remove_filename(self);
      llvm::sys::path::append(self, "..", "lib", "libTideCpuRuntime.a");
      runtime = self.str().str();
    }
    if (!llvm::sys::fs::exists(runtime)) {
      error = "Tide's runtime library is missing: " + runtime;
      return failure();
    }
    args.push_back(runtime);
    if (usesBlas) {
#ifdef TIDE_OPENBLAS_OPENMP_LIBRARY
      // OpenBLAS's OpenMP build, on libomp's pool (lib/Compiler/
      // CMakeLists.txt): found next to the module first ($ORIGIN,
      // $ORIGIN/../lib, where it is carried), then in its own directory,
      // before the system's default (the pthreads build).
      SmallString<256> blasDir(TIDE_OPENBLAS_OPENMP_LIBRARY);
      llvm::sys::path::remove_filename(blasDir);
      blasRpath = "-Wl,-rpath,$ORIGIN:$ORIGIN/../lib:" + blasDir.str().str();
      args.push_back(TIDE_OPENBLAS_OPENMP_LIBRARY);
      args.push_back(blasRpath);
#else
      args.push_back("-lopenblas");
#endif
    }
  }
  // Parallel loops: libomp, found by the system's loader or next to the
  // module (carried with it to a machine without LLVM).
  std::string ompRpath = "-Wl,-rpath,$ORIGIN:$ORIGIN/../lib";
  if (usesOpenMP) {
    args.push_back(TIDE_OPENMP_LIBRARY);
    if (!usesGpu)
      args.push_back(ompRpath);
  }
  // oneDNN (libgomp-threaded in Debian) after libomp: with parallel loops,
  // its GOMP_* and omp_* references bind to libomp's GNU-compatible entry
  // points, so the library and Tide's loops share one thread pool.
  if (usesRuntime && usesDnnl)
    args.push_back("-ldnnl");
  // Soft-float conversions for bf16/f16 (__truncsfbf2, ...): an archive, so
  // only what the module needs is linked in.
  if (llvm::sys::fs::exists(TIDE_COMPILER_RT_BUILTINS))
    args.push_back(TIDE_COMPILER_RT_BUILTINS);
  args.push_back("-lm");
  if (options.vectorMath)
    args.push_back("-lmvec");
  // The linker's own messages go into the error (callers of the C API and
  // Python get them with it; nothing is printed).
  SmallString<128> linkerLog;
  std::optional<llvm::FileRemover> removeLog;
  std::optional<StringRef> redirects[3] = {std::nullopt, std::nullopt,
                                           std::nullopt};
  if (!llvm::sys::fs::createTemporaryFile("tide-link", "txt", linkerLog)) {
    removeLog.emplace(linkerLog);
    redirects[1] = redirects[2] = StringRef(linkerLog);
  }
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, redirects, 0,
                                     0, &message);
  if (rc != 0) {
    error = "linking " + outputPath.str() + " with " + linker + " failed" +
            (message.empty() ? "" : ": " + message);
    if (removeLog)
      if (auto log = llvm::MemoryBuffer::getFile(linkerLog)) {
        StringRef text = (*log)->getBuffer().trim();
        if (!text.empty())
          error += ":\n" + text.str();
      }
    return failure();
  }
  return success();
}
