//===- Module.cpp - Load and call a compiled Tide module -----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Runner/Module.h"
#include "tide/ABI/ModuleMetadata.h"
#include "tide/Runner/ElfCheck.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <map>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <unordered_set>

using namespace tide;
using namespace tide::runner;

namespace {

/// Whether this CPU has the x86-64 extension `name` (one of
/// abi::kCheckedCpuFeatures); true for a name this build cannot check.
bool hostHasCpuFeature(const std::string &name) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
  __builtin_cpu_init();
#define TIDE_CPU_FEATURE(n)                                                    \
  if (name == n)                                                               \
    return __builtin_cpu_supports(n);
  TIDE_CPU_FEATURE("sse3")
  TIDE_CPU_FEATURE("ssse3")
  TIDE_CPU_FEATURE("sse4.1")
  TIDE_CPU_FEATURE("sse4.2")
  TIDE_CPU_FEATURE("popcnt")
  TIDE_CPU_FEATURE("avx")
  TIDE_CPU_FEATURE("avx2")
  TIDE_CPU_FEATURE("fma")
  TIDE_CPU_FEATURE("bmi")
  TIDE_CPU_FEATURE("bmi2")
  TIDE_CPU_FEATURE("aes")
  TIDE_CPU_FEATURE("pclmul")
  TIDE_CPU_FEATURE("gfni")
  TIDE_CPU_FEATURE("vpclmulqdq")
  TIDE_CPU_FEATURE("sse4a")
  TIDE_CPU_FEATURE("fma4")
  TIDE_CPU_FEATURE("xop")
  TIDE_CPU_FEATURE("avx512f")
  TIDE_CPU_FEATURE("avx512vl")
  TIDE_CPU_FEATURE("avx512bw")
  TIDE_CPU_FEATURE("avx512dq")
  TIDE_CPU_FEATURE("avx512cd")
  TIDE_CPU_FEATURE("avx512vnni")
  TIDE_CPU_FEATURE("avx512ifma")
  TIDE_CPU_FEATURE("avx512vbmi")
  TIDE_CPU_FEATURE("avx512vbmi2")
  TIDE_CPU_FEATURE("avx512bitalg")
  TIDE_CPU_FEATURE("avx512vpopcntdq")
  TIDE_CPU_FEATURE("avx512bf16")
#if defined(__clang__)
  // Names GCC 12's __builtin_cpu_supports does not know.
  TIDE_CPU_FEATURE("f16c")
  TIDE_CPU_FEATURE("lzcnt")
  TIDE_CPU_FEATURE("movbe")
  TIDE_CPU_FEATURE("adx")
  TIDE_CPU_FEATURE("sha")
  TIDE_CPU_FEATURE("vaes")
  TIDE_CPU_FEATURE("avxvnni")
  TIDE_CPU_FEATURE("avx512fp16")
#endif
#undef TIDE_CPU_FEATURE
#endif
  return true;
}

/// Empty when this CPU runs the code of a module whose kCpuSymbol string is
/// `required` ("CPU EXT EXT ..."); else why not.
std::string checkCpu(const std::string &path, const char *required) {
  std::string cpu, missing;
  const char *p = required;
  for (bool first = true; *p; first = false) {
    while (*p == ' ')
      ++p;
    const char *end = p;
    while (*end && *end != ' ')
      ++end;
    std::string word(p, end);
    p = end;
    if (word.empty())
      break;
    if (first)
      cpu = word;
    else if (!hostHasCpuFeature(word))
      missing += (missing.empty() ? "" : ", ") + word;
  }
  if (missing.empty())
    return "";
  return "cannot run '" + path + "': it was compiled for the CPU '" + cpu +
         "' and its code may use " + missing +
         ", which this CPU lacks (it would stop at an illegal instruction); "
         "compile it on this machine (--cpu=native, the default) or for a "
         "CPU that this one covers (--cpu=x86-64-v3, say)";
}
/// A call of a compiled function on this thread, to which a failed host
/// allocation returns (see tide-host-allocation-checks).
struct HostGuarded;
struct HostGuard {
  std::jmp_buf jump;
  char message[1024] = {0};
  HostGuarded *call = nullptr;
};
thread_local HostGuard *hostGuard = nullptr;

/// Whether this thread is inside an OpenMP parallel region (of the module's
/// parallel loops): leaving one with longjmp would break the OpenMP runtime.
bool inParallelRegion() {
  using InParallel = int (*)();
  static auto fn =
      reinterpret_cast<InParallel>(dlsym(RTLD_DEFAULT, "omp_in_parallel"));
  return fn && fn();
}

/// The handler every loaded module calls when a host allocation fails: the
/// call that made it ends with an error; elsewhere (another thread, inside
/// a parallel region) the process ends with the message.
extern "C" void tideRunnerHostOutOfMemory(uint64_t bytes) {
  if (!hostGuard || inParallelRegion()) {
    std::fprintf(stderr,
                 "tide: error: out of host memory: cannot allocate %llu "
                 "bytes\n",
                 static_cast<unsigned long long>(bytes));
    std::exit(1);
  }
  std::snprintf(hostGuard->message, sizeof(hostGuard->message),
                "out of host memory: cannot allocate %llu bytes",
                static_cast<unsigned long long>(bytes));
  std::longjmp(hostGuard->jump, 1);
}

/// The handler every loaded module calls when a run-time check of its host
/// code fails (see tide-lower-host-asserts): as for a failed allocation, the
/// call ends with the error.
extern "C" void tideRunnerHostCheckFailed(const char *what) {
  if (!hostGuard || inParallelRegion()) {
    std::fprintf(stderr, "tide: error: run-time check failed: %s\n", what);
    std::exit(1);
  }
  std::snprintf(hostGuard->message, sizeof(hostGuard->message),
                "run-time check failed: %s", what);
  std::longjmp(hostGuard->jump, 1);
}

/// Runs fn(context) with a HostGuard; false (and `message`) when a host
/// allocation of the call failed. `live` holds the host allocations the call
/// made on this thread and has not freed yet (told by the module's
/// tide_host_on_allocate / tide_host_on_free hooks): when the call fails (out
/// of host or of GPU memory) they are freed; when it returns they are its
/// results' or the caller's. Buffers of parallel loops are allocated and
/// freed inside the loop by the thread that runs it; the workers' are not
/// tracked (a failure there ends the process, see above).
struct HostGuarded {
  void (*fn)(void *);
  void *context;
  bool failed = false;
  std::string message;
  std::unordered_set<void *> live;

  /// Frees what the abandoned call had allocated.
  void freeLive() {
    for (void *p : live)
      std::free(p);
    live.clear();
  }
};

extern "C" void tideRunnerHostAllocated(void *p) {
  if (hostGuard && hostGuard->call)
    hostGuard->call->live.insert(p);
}

extern "C" void tideRunnerHostFreed(void *p) {
  if (hostGuard && hostGuard->call)
    hostGuard->call->live.erase(p);
}

void runHostGuarded(void *arg) {
  auto *call = static_cast<HostGuarded *>(arg);
  HostGuard guard;
  guard.call = call;
  HostGuard *outer = hostGuard;
  hostGuard = &guard;
  if (setjmp(guard.jump) == 0) {
    call->fn(call->context);
    hostGuard = outer;
    return;
  }
  hostGuard = outer;
  call->failed = true;
  call->message = guard.message;
}

/// runHostGuarded inside the GPU runtime's guarded call: a host failure ends
/// that call too (tide_rt_fail_guarded_call), which frees the device memory
/// the call had allocated; returning normally would leave it in use.
struct HostGuardedOnGpu {
  HostGuarded *call;
  void (*fail)(const char *);
};
void runHostGuardedOnGpu(void *arg) {
  auto *g = static_cast<HostGuardedOnGpu *>(arg);
  runHostGuarded(g->call);
  if (g->call->failed)
    g->fail(g->call->message.c_str()); // does not return
}
} // namespace

std::string TensorSpec::str() const {
  std::string s = std::string(dtype ? dtype->name : "?") + "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "x" : "") +
         (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s + "] on " + device;
}

namespace {
/// The addresses a loaded object's segments span, or an empty range.
struct Span {
  const char *name;
  uintptr_t begin = UINTPTR_MAX, end = 0;
};
int findSpan(dl_phdr_info *info, size_t, void *data) {
  auto *span = static_cast<Span *>(data);
  if (!info->dlpi_name || std::strcmp(info->dlpi_name, span->name) != 0)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD)
      continue;
    span->begin =
        std::min<uintptr_t>(span->begin, info->dlpi_addr + ph.p_vaddr);
    span->end = std::max<uintptr_t>(span->end,
                                    info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  return 1;
}
} // namespace

namespace {
/// How many runner modules hold each loaded library: dlopen of a path already
/// loaded returns the same handle, and the GPU copies of its constants are
/// given back only when the last of them goes (another may be in a call).
std::mutex handleUsersMutex;
std::map<void *, int> &handleUsers() {
  static auto *users = new std::map<void *, int>();
  return *users;
}
} // namespace

CompiledModule::~CompiledModule() {
  if (!handle)
    return;
  bool last;
  {
    std::lock_guard<std::mutex> lock(handleUsersMutex);
    auto it = handleUsers().find(handle);
    last = it == handleUsers().end() || --it->second == 0;
    if (it != handleUsers().end() && last)
      handleUsers().erase(it);
  }
  if (!last) {
    dlclose(handle);
    return;
  }
  // The GPU copies of the module's constants are keyed by slots in the
  // module's memory: free them before it goes.
  using Release = void (*)(const void *, const void *);
  auto release =
      reinterpret_cast<Release>(dlsym(handle, "tide_rt_release_constants"));
  link_map *map = nullptr;
  if (release && dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map &&
      map->l_name) {
    Span span{map->l_name};
    dl_iterate_phdr(findSpan, &span);
    if (span.begin < span.end)
      release(reinterpret_cast<const void *>(span.begin),
              reinterpret_cast<const void *>(span.end));
  }
  dlclose(handle);
}

/// The metadata string of a loaded module, read no further than its symbol's
/// size (a string without its terminating null is not read past its end).
static bool readMetadata(void *handle, std::string &text) {
  auto *metadata =
      static_cast<const char *>(dlsym(handle, abi::kMetadataSymbol));
  if (!metadata)
    return false;
  Dl_info info;
  const ElfW(Sym) *symbol = nullptr;
  size_t size = 0;
  if (dladdr1(metadata, &info,
              reinterpret_cast<void **>(const_cast<ElfW(Sym) **>(&symbol)),
              RTLD_DL_SYMENT) &&
      symbol)
    size = symbol->st_size;
  text = size ? std::string(metadata, strnlen(metadata, size))
              : std::string(metadata);
  return true;
}

/// The message for a module whose metadata is missing (`bad` null) or
/// cannot be read.
static std::string describeBadMetadata(const std::string &path,
                                       const abi::MetadataError *bad) {
  using Kind = abi::MetadataError::Kind;
  if (!bad || bad->kind == Kind::NotTideMetadata)
    return "'" + path +
           "' is not a Tide module (no tide_module_metadata; "
           "compile it with tide-compile)";
  if (bad->kind == Kind::UnsupportedVersion)
    return "'" + path + "' has " + bad->reason +
           "; compile it again with this version of tide-compile";
  // No line at fault: the historical message, without detail.
  if (!bad->lineNumber)
    return "'" + path + "' has corrupt metadata";
  return "'" + path + "' has corrupt metadata: '" + bad->line + "' (" +
         bad->reason + ")";
}

// OpenBLAS picks its kernels once, when it is loaded, from the CPU's model
// number; a CPU newer than the OpenBLAS build (Debian 12's 0.3.21 on
// Emerald Rapids, model 207) gets its generic SSE3 "Prescott" kernels, 3-4x
// slower than the AVX-512 ones. Before the first module brings OpenBLAS in,
// the kernels are chosen from the CPU's features instead (SkylakeX with
// AVX-512, Haswell with AVX2 and FMA), unless the user set
// OPENBLAS_CORETYPE or OpenBLAS is already loaded (its choice stands).
/// True when `path` names a library this process has loaded already whose
/// file has since been replaced (the same path recompiled): dlopen would
/// return the old code for it, since the C library matches loaded objects by
/// name. Compares the device and inode of the loaded mapping
/// (/proc/self/maps) with the file's now.
static bool isStaleLoad(const std::string &path) {
  void *old = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!old)
    return false;
  link_map *map = nullptr;
  uintptr_t base = 0;
  if (dlinfo(old, RTLD_DI_LINKMAP, &map) == 0 && map)
    base = map->l_addr;
  dlclose(old);
  struct stat now;
  if (!base || stat(path.c_str(), &now) != 0)
    return false;
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return false;
  bool stale = false;
  char line[4096];
  while (std::fgets(line, sizeof(line), maps)) {
    unsigned long long begin = 0, end = 0, offset = 0, inode = 0;
    unsigned major = 0, minor = 0;
    char perms[8];
    if (std::sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &begin, &end, perms,
                    &offset, &major, &minor, &inode) != 7 ||
        begin != base)
      continue;
    stale = inode != now.st_ino || makedev(major, minor) != now.st_dev;
    break;
  }
  std::fclose(maps);
  return stale;
}

/// Loads a private copy of `path` (a file of its own, deleted once mapped),
/// so that it is not confused with the library loaded earlier under that
/// path; null with `error` set on failure.
static void *loadPrivateCopy(const std::string &path, std::string &error) {
  const char *dir = std::getenv("TMPDIR");
  std::string copy =
      std::string(dir && *dir ? dir : "/tmp") + "/tide-module-XXXXXX.so";
  int out = mkstemps(copy.data(), 3);
  FILE *in = std::fopen(path.c_str(), "rb");
  bool ok = out >= 0 && in;
  char buffer[1 << 16];
  size_t n;
  while (ok && (n = std::fread(buffer, 1, sizeof(buffer), in)) > 0)
    ok = write(out, buffer, n) == static_cast<ssize_t>(n);
  if (in)
    std::fclose(in);
  if (out >= 0)
    close(out);
  void *handle = ok ? dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!ok)
    error = "cannot load '" + path + "': cannot copy it to " + copy + " (" +
            std::strerror(errno) + ")";
  else if (!handle)
    error = "cannot load '" + path + "': " + dlerror();
  if (out >= 0)
    unlink(copy.c_str());
  return handle;
}

void tide::runner::chooseOpenBlasKernels() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static bool done = false;
  if (done)
    return;
  done = true;
  const char *set = std::getenv("OPENBLAS_CORETYPE");
  if (set && *set)
    return;
  if (void *loaded = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD)) {
    dlclose(loaded);
    return;
  }
  __builtin_cpu_init();
  const char *core = nullptr;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    core = "SkylakeX";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    core = "Haswell";
  if (core)
    setenv("OPENBLAS_CORETYPE", core, /*overwrite=*/0);
#endif
}

std::unique_ptr<CompiledModule> CompiledModule::load(const std::string &path,
                                                     std::string &error) {
  std::string resolved =
      path.find('/') == std::string::npos ? "./" + path : path;
  // A truncated or corrupt file would make dlopen fault (SIGBUS) instead of
  // failing: look at its ELF headers first.
  std::string why;
  if (!checkElfFile(resolved, why)) {
    error = "cannot load '" + path + "': " + why;
    return nullptr;
  }
  chooseOpenBlasKernels();
  void *handle = nullptr;
  if (isStaleLoad(resolved)) {
    handle = loadPrivateCopy(resolved, error);
    if (!handle)
      return nullptr;
  } else {
    handle = dlopen(resolved.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      error = "cannot load '" + path + "': " + dlerror();
      return nullptr;
    }
  }
  if (const auto *required =
          static_cast<const char *>(dlsym(handle, abi::kCpuSymbol))) {
    error = checkCpu(path, required);
    if (!error.empty()) {
      dlclose(handle);
      return nullptr;
    }
  }
  // Failed host allocations of its functions come back to this runner.
  if (auto *slot = reinterpret_cast<void **>(
          dlsym(handle, "tide_host_out_of_memory_handler")))
    *slot = reinterpret_cast<void *>(&tideRunnerHostOutOfMemory);
  if (auto *slot = reinterpret_cast<void **>(
          dlsym(handle, "tide_host_check_failed_handler")))
    *slot = reinterpret_cast<void *>(&tideRunnerHostCheckFailed);
  if (auto *slot =
          reinterpret_cast<void **>(dlsym(handle, "tide_host_on_allocate")))
    *slot = reinterpret_cast<void *>(&tideRunnerHostAllocated);
  if (auto *slot =
          reinterpret_cast<void **>(dlsym(handle, "tide_host_on_free")))
    *slot = reinterpret_cast<void *>(&tideRunnerHostFreed);
  auto module = std::unique_ptr<CompiledModule>(new CompiledModule());
  module->handle = handle;
  {
    std::lock_guard<std::mutex> lock(handleUsersMutex);
    ++handleUsers()[handle];
  }
  module->cpuFallback = importsSymbol(resolved, "tide_rt_use_gpu");
  std::string text;
  abi::ModuleMetadata metadata;
  abi::MetadataError bad;
  bool found = readMetadata(handle, text);
  if (!found || !abi::parseModuleMetadata(text, metadata, bad)) {
    error = describeBadMetadata(path, found ? &bad : nullptr);
    return nullptr;
  }
  auto convert = [&](const abi::TensorDesc &t, TensorSpec &spec) {
    spec.dtype = findDType(t.dtype);
    spec.dims = t.dims;
    spec.device = t.device;
    spec.donated = t.donated;
    if (!spec.dtype) {
      error = "'" + path + "' has corrupt metadata: element type '" + t.dtype +
              "' is unknown to this runner";
      return false;
    }
    // Static sizes whose bytes overflow int64 describe no buffer (a count
    // wrapping to 0 gave an empty buffer the code then wrote past).
    int64_t bytes = spec.dtype->bytes;
    for (int64_t d : spec.dims)
      if (d > 0 && __builtin_mul_overflow(bytes, d, &bytes)) {
        error = "'" + path + "' declares a tensor " + spec.str() +
                " of more than 2^63 - 1 bytes";
        return false;
      }
    return true;
  };
  for (const abi::FunctionDesc &fn : metadata.functions) {
    FunctionSpec spec;
    spec.name = fn.name;
    spec.args.resize(fn.args.size());
    spec.results.resize(fn.results.size());
    for (size_t i = 0; i < fn.args.size(); ++i)
      if (!convert(fn.args[i], spec.args[i]))
        return nullptr;
    for (size_t i = 0; i < fn.results.size(); ++i)
      if (!convert(fn.results[i], spec.results[i]))
        return nullptr;
    module->specs.push_back(std::move(spec));
  }
  return module;
}

const FunctionSpec *CompiledModule::find(const std::string &name) const {
  for (const FunctionSpec &fn : specs)
    if (fn.name == name)
      return &fn;
  return nullptr;
}

static std::string shapeStr(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

bool CompiledModule::check(const FunctionSpec &fn,
                           const std::vector<Array> &inputs,
                           std::string &error) const {
  std::vector<TensorView> views(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    views[i].dtype = inputs[i].dtype;
    views[i].shape = inputs[i].shape;
  }
  return check(fn, views, error);
}

bool CompiledModule::check(const FunctionSpec &fn,
                           const std::vector<TensorView> &inputs,
                           std::string &error) const {
  if (inputs.size() != fn.args.size()) {
    error = "@" + fn.name + " takes " + std::to_string(fn.args.size()) +
            " input(s) but " + std::to_string(inputs.size()) + " were given";
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec &spec = fn.args[i];
    const TensorView &a = inputs[i];
    // The message prefix, built only for an error.
    auto which = [&] {
      return "input " + std::to_string(i) + " of @" + fn.name;
    };
    if (!acceptsArray(spec.dtype, a.dtype)) {
      error = which() + " has dtype " + a.dtype->name +
              " but the function "
              "expects " +
              spec.str() +
              "; convert it (Tide never converts "
              "silently)";
      return false;
    }
    if (a.shape.size() != spec.dims.size()) {
      error = which() + " has rank " + std::to_string(a.shape.size()) +
              " (shape " + shapeStr(a.shape) + ") but the function expects " +
              spec.str();
      return false;
    }
    for (size_t d = 0; d < a.shape.size(); ++d)
      if (spec.dims[d] >= 0 && spec.dims[d] != a.shape[d]) {
        error = which() + " has shape " + shapeStr(a.shape) +
                " but the function expects " + spec.str();
        return false;
      }
    if (a.device == spec.device || a.device == "cpu")
      continue;
    if (a.device.rfind("cuda:", 0) != 0) {
      error = which() + " is on " + a.device + ", which Tide cannot use";
      return false;
    }
    if (spec.device != "cpu") {
      error = which() + " is on " + a.device + " but the function expects " +
              spec.str() + "; move it there (Tide does not copy between GPUs)";
      return false;
    }
    if (!gpuRuntime()) {
      error = which() + " is on " + a.device + " but the function expects " +
              spec.str() +
              " and the module has no GPU runtime to copy it; move it to "
              "the host";
      return false;
    }
  }
  return true;
}

namespace {
using P = void *;
/// The most tensors (arguments plus the results' descriptor) a call takes.
constexpr size_t kMaxCallPointers = 256;

#define TIDE_P8 P, P, P, P, P, P, P, P
#define TIDE_P64                                                               \
  TIDE_P8, TIDE_P8, TIDE_P8, TIDE_P8, TIDE_P8, TIDE_P8, TIDE_P8, TIDE_P8
using Wide = void (*)(TIDE_P64, TIDE_P64, TIDE_P64, TIDE_P64);
#undef TIDE_P64
#undef TIDE_P8
static_assert(sizeof(P) == 8, "64-bit hosts only");

/// Calls `fn` (a _mlir_ciface_ function of more than 16 pointer parameters)
/// through a 256-pointer signature, the unused trailing ones null. Sound on
/// the calling conventions Tide compiles for (x86-64 System V, AArch64
/// AAPCS64): every parameter is a pointer in the integer class, the first
/// ones in the same registers, the rest in the same stack slots, and the
/// caller pops the stack, so a callee ignores what it does not declare.
bool invokeWide(void *fn, std::vector<P> &a) {
#if defined(__x86_64__) || defined(__aarch64__)
  if (a.size() > kMaxCallPointers)
    return false;
  // On the stack: a call abandoned for lack of GPU memory (a longjmp out of
  // tide_rt_guarded_call) leaves nothing here to free.
  P w[kMaxCallPointers] = {};
  std::copy(a.begin(), a.end(), w);
#define TIDE_A8(i)                                                             \
  w[i], w[i + 1], w[i + 2], w[i + 3], w[i + 4], w[i + 5], w[i + 6], w[i + 7]
#define TIDE_A64(i)                                                            \
  TIDE_A8(i), TIDE_A8(i + 8), TIDE_A8(i + 16), TIDE_A8(i + 24),                \
      TIDE_A8(i + 32), TIDE_A8(i + 40), TIDE_A8(i + 48), TIDE_A8(i + 56)
  reinterpret_cast<Wide>(fn)(TIDE_A64(0), TIDE_A64(64), TIDE_A64(128),
                             TIDE_A64(192));
#undef TIDE_A64
#undef TIDE_A8
  return true;
#else
  return false;
#endif
}

/// Calls `fn` with `args` (all pointers, as _mlir_ciface_ functions take).
bool invoke(void *fn, std::vector<P> &a) {
  switch (a.size()) {
  case 0:
    reinterpret_cast<void (*)()>(fn)();
    return true;
  case 1:
    reinterpret_cast<void (*)(P)>(fn)(a[0]);
    return true;
  case 2:
    reinterpret_cast<void (*)(P, P)>(fn)(a[0], a[1]);
    return true;
  case 3:
    reinterpret_cast<void (*)(P, P, P)>(fn)(a[0], a[1], a[2]);
    return true;
  case 4:
    reinterpret_cast<void (*)(P, P, P, P)>(fn)(a[0], a[1], a[2], a[3]);
    return true;
  case 5:
    reinterpret_cast<void (*)(P, P, P, P, P)>(fn)(a[0], a[1], a[2], a[3], a[4]);
    return true;
  case 6:
    reinterpret_cast<void (*)(P, P, P, P, P, P)>(fn)(a[0], a[1], a[2], a[3],
                                                     a[4], a[5]);
    return true;
  case 7:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P)>(fn)(a[0], a[1], a[2], a[3],
                                                        a[4], a[5], a[6]);
    return true;
  case 8:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    return true;
  case 9:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
    return true;
  case 10:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
    return true;
  case 11:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]);
    return true;
  case 12:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
        a[11]);
    return true;
  case 13:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
        a[11], a[12]);
    return true;
  case 14:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
        a[11], a[12], a[13]);
    return true;
  case 15:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
        a[11], a[12], a[13], a[14]);
    return true;
  case 16:
    reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P)>(
        fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
            a[11], a[12], a[13], a[14], a[15]);
    return true;
  default:
    return invokeWide(fn, a);
  }
}
} // namespace

StagedInputs::~StagedInputs() {
  for (void *p : deviceCopies)
    gpuFree(p, nullptr);
}

bool ResultBuffer::isDense() const {
  if (offset != 0)
    return false;
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != stride)
      return false;
    stride *= shape[d];
  }
  return true;
}

const CompiledModule::GpuRuntime *CompiledModule::gpuRuntime() const {
  // Once per module, also when calls from several threads (Python releases
  // its lock) look first at the same time.
  std::call_once(gpuLooked, [&] {
    gpu.alloc =
        reinterpret_cast<decltype(gpu.alloc)>(dlsym(handle, "mgpuMemAlloc"));
    gpu.free =
        reinterpret_cast<decltype(gpu.free)>(dlsym(handle, "mgpuMemFree"));
    gpu.copy =
        reinterpret_cast<decltype(gpu.copy)>(dlsym(handle, "mgpuMemcpy"));
    gpu.sync = reinterpret_cast<decltype(gpu.sync)>(
        dlsym(handle, "mgpuStreamSynchronize"));
    gpu.wait = reinterpret_cast<decltype(gpu.wait)>(
        dlsym(handle, "tide_rt_synchronize"));
    gpu.guarded = reinterpret_cast<decltype(gpu.guarded)>(
        dlsym(handle, "tide_rt_guarded_call"));
    gpu.fail = reinterpret_cast<decltype(gpu.fail)>(
        dlsym(handle, "tide_rt_fail_guarded_call"));
  });
  if (!gpu.alloc || !gpu.free || !gpu.copy || !gpu.sync)
    return nullptr;
  return &gpu;
}

bool CompiledModule::guardedCall(void (*fn)(void *), void *context,
                                 std::string &error) const {
  // The host guard inside the GPU runtime's: out of host memory returns to
  // the inner one, out of GPU memory to the outer one (past the inner one's
  // frame, so its thread-local link is restored here).
  HostGuarded call{fn, context, false, {}};
  const GpuRuntime *rt = gpuRuntime();
  if (!rt || !rt->guarded) {
    runHostGuarded(&call);
  } else {
    HostGuard *outer = hostGuard;
    char message[1024] = {0};
    HostGuardedOnGpu onGpu{&call, rt->fail};
    int ok =
        rt->fail
            ? rt->guarded(runHostGuardedOnGpu, &onGpu, message, sizeof(message))
            : rt->guarded(runHostGuarded, &call, message, sizeof(message));
    if (!ok) {
      hostGuard = outer;
      call.freeLive();
      // What the abandoned call had queued may still use the device memory
      // just given back, and the caller's tensors: let it finish first.
      if (rt->wait)
        rt->wait();
      error = message;
      return false;
    }
  }
  if (call.failed) {
    call.freeLive();
    error = call.message;
    return false;
  }
  return true;
}

namespace {
struct AllocRequest {
  void *(*alloc)(uint64_t, void *, bool);
  size_t bytes;
  void *result;
};
void allocTrampoline(void *context) {
  auto *r = static_cast<AllocRequest *>(context);
  r->result = r->alloc(r->bytes ? r->bytes : 1, nullptr, false);
}
} // namespace

bool CompiledModule::allocateOnGpu(const GpuRuntime &rt, size_t bytes,
                                   void *&out, std::string &error) const {
  AllocRequest request{rt.alloc, bytes, nullptr};
  if (!guardedCall(allocTrampoline, &request, error))
    return false;
  out = request.result;
  if (!out) {
    error = "cannot allocate " + std::to_string(bytes) + " bytes on the GPU";
    return false;
  }
  return true;
}

static bool usesGpu(const FunctionSpec &fn) {
  for (const TensorSpec &t : fn.args)
    if (t.device != "cpu")
      return true;
  for (const TensorSpec &t : fn.results)
    if (t.device != "cpu")
      return true;
  return false;
}

static int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool CompiledModule::stage(const FunctionSpec &fn,
                           std::vector<TensorView> inputs, StagedInputs &staged,
                           std::string &error) const {
  const GpuRuntime *rt = gpuRuntime();
  staged.gpuFree = rt ? rt->free : nullptr;
  staged.views = std::move(inputs);
  for (size_t i = 0; i < staged.views.size() && i < fn.args.size(); ++i) {
    TensorView &v = staged.views[i];
    const std::string &want = fn.args[i].device;
    if (v.device == want)
      continue;
    size_t bytes = numElements(v.shape) * v.dtype->bytes;
    if (!rt) {
      error = "input " + std::to_string(i) + " of @" + fn.name + " is on " +
              v.device + " but the function expects it on " + want +
              ", and the module has no GPU runtime to copy it";
      return false;
    }
    if (want != "cpu") {
      // Host data for a GPU-resident argument: copy it in.
      void *device = nullptr;
      if (!allocateOnGpu(*rt, bytes, device, error)) {
        error += " (copying input " + std::to_string(i) + " of @" + fn.name +
                 " to the GPU)";
        return false;
      }
      staged.deviceCopies.push_back(device);
      if (bytes)
        rt->copy(device, v.data, bytes, nullptr);
      rt->sync(nullptr);
      v.data = device;
    } else {
      // GPU data for a host argument: copy it out.
      staged.hostCopies.emplace_back(bytes ? bytes : 1);
      if (bytes)
        rt->copy(staged.hostCopies.back().data(), v.data, bytes, nullptr);
      rt->sync(nullptr);
      v.data = staged.hostCopies.back().data();
    }
    v.device = want;
  }
  return true;
}

bool CompiledModule::invoke(const FunctionSpec &fn,
                            const std::vector<TensorView> &inputs,
                            std::vector<ResultBuffer> &results,
                            std::string &error) const {
  results.clear();
  std::string symbol = "_mlir_ciface_" + fn.name;
  void *entry = dlsym(handle, symbol.c_str());
  if (!entry) {
    error = "the module has no symbol " + symbol;
    return false;
  }
  const GpuRuntime *rt = nullptr;
  if (usesGpu(fn) && !(rt = gpuRuntime())) {
    error = "@" + fn.name +
            " has GPU-resident tensors, but the module has no GPU runtime";
    return false;
  }
  if (inputs.size() != fn.args.size()) {
    error = "@" + fn.name + " takes " + std::to_string(fn.args.size()) +
            " input(s) but " + std::to_string(inputs.size()) + " were given";
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].device != fn.args[i].device) {
      error = "input " + std::to_string(i) + " of @" + fn.name + " is on " +
              inputs[i].device + " but the function expects it on " +
              fn.args[i].device;
      return false;
    }

  // Argument descriptors, {allocated, aligned, offset, sizes, strides} each,
  // in one buffer sized first (the pointers into it stay valid): a call
  // with hundreds of arguments (a model's weights) allocates once.
  std::vector<P> pointers;
  pointers.reserve(inputs.size() + 1);
  size_t resultWords = 0;
  for (const TensorSpec &r : fn.results)
    resultWords += 3 + 2 * r.dims.size();
  std::vector<int64_t> words(resultWords ? resultWords : 1, 0);
  if (!fn.results.empty())
    pointers.push_back(words.data());
  size_t argWordCount = 0;
  for (const TensorView &a : inputs)
    argWordCount += 3 + 2 * a.shape.size();
  std::vector<int64_t> argWords(argWordCount);
  std::vector<void *> inputBuffers;
  inputBuffers.reserve(inputs.size());
  // A valid pointer for empty host tensors without data.
  static int64_t emptyData[2];
  size_t next = 0;
  for (const TensorView &a : inputs) {
    int64_t *w = argWords.data() + next;
    size_t rank = a.shape.size();
    next += 3 + 2 * rank;
    void *data = a.data ? a.data : static_cast<void *>(emptyData);
    inputBuffers.push_back(data);
    w[0] = w[1] = reinterpret_cast<int64_t>(data);
    w[2] = 0;
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      w[3 + d] = a.shape[d];
      w[3 + rank + d] = stride;
      stride *= a.shape[d];
    }
    pointers.push_back(w);
  }
  std::sort(inputBuffers.begin(), inputBuffers.end());
  if (pointers.size() > kMaxCallPointers) {
    error = "@" + fn.name + " has too many tensors for this runner (" +
            std::to_string(pointers.size()) + " > " +
            std::to_string(kMaxCallPointers) + ")";
    return false;
  }
  // Out of GPU memory inside the function comes back here as an error; the
  // runtime has freed what the call allocated on the GPU.
  struct Call {
    void *entry;
    std::vector<P> *pointers;
    bool ok;
  } call{entry, &pointers, false};
  auto run = [](void *context) {
    auto *c = static_cast<Call *>(context);
    c->ok = ::invoke(c->entry, *c->pointers);
  };
  if (!guardedCall(run, &call, error)) {
    error = "@" + fn.name + ": " + error;
    return false;
  }
  if (!call.ok) {
    error = "unsupported number of arguments";
    return false;
  }
  // Functions on GPU-resident tensors may return before the GPU is done.
  if (rt && rt->wait)
    rt->wait();
  std::set<void *> seen;
  size_t offset = 0;
  for (const TensorSpec &spec : fn.results) {
    size_t rank = spec.dims.size();
    ResultBuffer r;
    r.dtype = spec.dtype;
    r.device = spec.device;
    r.allocated = reinterpret_cast<void *>(words[offset]);
    r.aligned = reinterpret_cast<void *>(words[offset + 1]);
    r.offset = words[offset + 2];
    r.shape.assign(words.begin() + offset + 3,
                   words.begin() + offset + 3 + rank);
    r.strides.assign(words.begin() + offset + 3 + rank,
                     words.begin() + offset + 3 + 2 * rank);
    r.owned = r.allocated &&
              !std::binary_search(inputBuffers.begin(), inputBuffers.end(),
                                  r.allocated) &&
              seen.insert(r.allocated).second;
    results.push_back(std::move(r));
    offset += 3 + 2 * rank;
  }
  return true;
}

bool CompiledModule::canRun(const FunctionSpec &fn, std::string &error,
                            bool gpuInputs) const {
  using AvailableFn = int (*)(char *, size_t);
  auto available =
      reinterpret_cast<AvailableFn>(dlsym(handle, "tide_rt_gpu_available"));
  if (!available)
    return true; // no GPU code
  char reason[512] = {0};
  if (available(reason, sizeof(reason)))
    return true;
  // A tensor said to be on a GPU cannot be read without one (the copy would
  // end the process).
  if (usesGpu(fn) || gpuInputs) {
    error = "@" + fn.name + " takes or returns tensors on a GPU, but " + reason;
    return false;
  }
  if (cpuFallback)
    return true; // the module runs its CPU version
  error = "@" + fn.name + " runs on a GPU, but " + std::string(reason) +
          "; compile with a CPU version beside the GPU code (tide-compile "
          "--cpu-fallback) to run it here";
  return false;
}

void CompiledModule::freeDeviceBuffer(void *pointer) const {
  if (const GpuRuntime *rt = gpuRuntime())
    rt->free(pointer, nullptr);
}

void CompiledModule::release(ResultBuffer &r) const {
  if (r.owned && r.allocated) {
    if (r.device != "cpu")
      freeDeviceBuffer(r.allocated);
    else
      std::free(r.allocated);
  }
  r.allocated = r.aligned = nullptr;
  r.owned = false;
}

/// The element span [first, last] a strided buffer covers (n > 0).
static int64_t lastElement(const ResultBuffer &r) {
  int64_t last = r.offset;
  for (size_t d = 0; d < r.shape.size(); ++d)
    last += (r.shape[d] - 1) * r.strides[d];
  return last;
}

/// Gathers `n` elements of a strided host buffer into `out` (row-major).
static void gather(const ResultBuffer &r, const unsigned char *base,
                   int64_t firstElement, unsigned char *out) {
  size_t rank = r.shape.size();
  unsigned bytes = r.dtype->bytes;
  int64_t n = numElements(r.shape);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = r.offset - firstElement;
    for (size_t d = 0; d < rank; ++d)
      src += index[d] * r.strides[d];
    std::memcpy(out + i * bytes, base + src * bytes, bytes);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < r.shape[d])
        break;
      index[d] = 0;
    }
  }
}

bool CompiledModule::toHost(const ResultBuffer &r, Array &out,
                            std::string &error) const {
  out.dtype = r.dtype;
  out.shape = r.shape;
  int64_t n = numElements(r.shape);
  out.data.assign(n * r.dtype->bytes, 0);
  if (n == 0)
    return true;
  auto *base = static_cast<unsigned char *>(r.aligned);
  int64_t first = 0;
  // A GPU-resident result: bring the elements it spans to the host first.
  std::vector<unsigned char> staged;
  if (r.device != "cpu") {
    const GpuRuntime *rt = gpuRuntime();
    if (!rt) {
      error = "a result lives on " + r.device +
              " but the module has no GPU runtime";
      return false;
    }
    first = r.offset;
    staged.resize((lastElement(r) - first + 1) * r.dtype->bytes);
    rt->copy(staged.data(), base + first * r.dtype->bytes, staged.size(),
             nullptr);
    rt->sync(nullptr);
    base = staged.data();
  }
  gather(r, base, first, out.data.data());
  return true;
}

bool CompiledModule::detach(ResultBuffer &r, std::string &error) const {
  if (r.owned && r.isDense())
    return true;
  int64_t n = numElements(r.shape);
  size_t bytes = n * r.dtype->bytes;
  if (r.device == "cpu") {
    auto *copy = static_cast<unsigned char *>(std::malloc(bytes ? bytes : 1));
    if (!copy) {
      error = "out of host memory copying a result";
      return false;
    }
    if (n)
      gather(r, static_cast<unsigned char *>(r.aligned), 0, copy);
    release(r);
    r.allocated = r.aligned = copy;
  } else {
    const GpuRuntime *rt = gpuRuntime();
    if (!rt) {
      error = "a result lives on " + r.device +
              " but the module has no GPU runtime";
      return false;
    }
    // Strided GPU results go through the host; dense ones are copied on the
    // device.
    void *copy = nullptr;
    if (!allocateOnGpu(*rt, bytes, copy, error)) {
      error += " (copying a result)";
      return false;
    }
    if (n && r.isDense()) {
      rt->copy(copy, r.aligned, bytes, nullptr);
    } else if (n) {
      Array host;
      if (!toHost(r, host, error)) {
        rt->free(copy, nullptr);
        return false;
      }
      rt->copy(copy, host.data.data(), bytes, nullptr);
    }
    rt->sync(nullptr);
    release(r);
    r.allocated = r.aligned = copy;
  }
  r.owned = true;
  r.offset = 0;
  int64_t stride = 1;
  for (size_t d = r.shape.size(); d-- > 0;) {
    r.strides[d] = stride;
    stride *= r.shape[d];
  }
  return true;
}

bool CompiledModule::call(const FunctionSpec &fn, std::vector<Array> &inputs,
                          std::vector<Array> &outputs, int repeat,
                          std::vector<double> &times, std::string &error,
                          double warmupSeconds) const {
  std::vector<TensorView> views(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    views[i].dtype = inputs[i].dtype;
    views[i].shape = inputs[i].shape;
    views[i].data = inputs[i].data.empty() ? nullptr : inputs[i].data.data();
  }
  // GPU-resident arguments are copied in once, outside the timed calls.
  StagedInputs staged;
  if (!stage(fn, views, staged, error))
    return false;
  std::vector<ResultBuffer> results;
  auto releaseAll = [&]() {
    for (ResultBuffer &r : results)
      release(r);
  };
  times.clear();
  if (warmupSeconds > 0) {
    auto begin = std::chrono::steady_clock::now();
    do {
      if (!invoke(fn, staged.views, results, error))
        return false;
      releaseAll();
      results.clear();
    } while (
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count() < warmupSeconds);
  }
  for (int run = 0; run < repeat; ++run) {
    auto start = std::chrono::steady_clock::now();
    if (!invoke(fn, staged.views, results, error))
      return false;
    auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(stop - start).count());
    if (run + 1 < repeat)
      releaseAll();
    // TIDE_PROFILE=1: the first of several calls (loading kernels, cuBLAS
    // and cuDNN's first-call setup) is left out of the GPU profile.
    if (run == 0 && repeat > 1) {
      using Reset = void (*)();
      if (auto reset =
              reinterpret_cast<Reset>(dlsym(handle, "tide_rt_profile_reset")))
        reset();
    }
  }
  outputs.clear();
  for (ResultBuffer &r : results) {
    Array out;
    if (!toHost(r, out, error)) {
      releaseAll();
      return false;
    }
    outputs.push_back(std::move(out));
  }
  releaseAll();
  return true;
}
