//===- tide-run.cpp - Run a function of a compiled Tide module -----------===//
//
// Part of the Tide project.
//
//   tide-run FILE.{mlir,so} [--entry=NAME] [--target=T] [--policy=P]
//            [--input=X.npy]... [--output=Y.npy]... [--random[=SEED]]
//            [--repeat=N] [--warmup=MS] [--list]
//   tide-run --list-devices
//
// Needs no LLVM or MLIR: a .mlir is compiled by running tide-compile (next to
// this executable, or on PATH) into a temporary shared library.
//
//===----------------------------------------------------------------------===//

#include "tide/Calibrate/DeviceReport.h"
#include "tide/Runner/Module.h"
#include "tide/Runner/Npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <random>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace tide::runner;

namespace {

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "tide-run: error: %s\n", message.c_str());
  std::exit(1);
}

void usage() {
  std::printf(
      "usage: tide-run FILE.{mlir,so} [options]\n"
      "  --entry=NAME       function to call (optional with one function)\n"
      "  --target=T         placement target when compiling a .mlir "
      "(default cpu)\n"
      "  --policy=P         placement policy when compiling a .mlir\n"
      "  --input=X.npy      one per argument, in order\n"
      "  --output=Y.npy     one per result, in order (else results are "
      "printed)\n"
      "  --random[=SEED]    generate inputs (dynamic dims become 4)\n"
      "  --repeat=N         call N times and print min/median time\n"
      "  --warmup=MS        with --repeat: untimed calls for this many\n"
      "                     milliseconds first (default 50; at least one "
      "call)\n"
      "  --list             list the module's functions and signatures\n"
      "usage: tide-run --list-devices\n"
      "  the CPU and each GPU: compute capability, memory, FP64:FP32 rate, "
      "and the\n  (op, dtype) pairs Tide runs there\n");
}

std::string selfDir() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0)
    return "";
  std::string path(buffer, n);
  return path.substr(0, path.rfind('/'));
}

/// Compiles `mlir` into a temporary .so with tide-compile.
std::string compile(const std::string &mlir, const std::string &target,
                    const std::string &policy) {
  std::string compiler = selfDir() + "/tide-compile";
  if (access(compiler.c_str(), X_OK) != 0)
    compiler = "tide-compile";
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") +
                        "/tide-run-XXXXXX";
  std::vector<char> dir(pattern.begin(), pattern.end());
  dir.push_back('\0');
  if (!mkdtemp(dir.data()))
    fail("cannot create a temporary directory in " + pattern);
  std::string out = std::string(dir.data()) + "/module.so";
  std::vector<std::string> args = {compiler, "-o", out, "--target=" + target,
                                   "--no-remarks"};
  if (!policy.empty())
    args.push_back("--policy=" + policy);
  // The file last, after "--": a name that starts with '-' is a file.
  args.push_back("--");
  args.push_back(mlir);
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char *> argv;
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "tide-run: error: cannot run %s\n", argv[0]);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    rmdir(dir.data()); // empty: no module was written
    fail("compiling '" + mlir + "' failed (see the messages above)");
  }
  return out;
}

Array randomArray(const TensorSpec &spec, std::mt19937_64 &rng) {
  Array a;
  a.dtype = spec.dtype;
  for (int64_t d : spec.dims)
    a.shape.push_back(d < 0 ? 4 : d);
  a.data.resize(a.numElements() * a.dtype->bytes);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::string n = a.dtype->name;
  bool isFloat = n[0] == 'f' || n == "bf16";
  for (int64_t i = 0; i < a.numElements(); ++i) {
    double u = uniform(rng);
    a.set(i, isFloat ? u : (n == "i1" ? (u < 0.5) : std::floor(u * 10)));
  }
  return a;
}

void printArray(const std::string &label, const Array &a) {
  std::printf("%s: %s[", label.c_str(), a.dtype->name);
  for (size_t i = 0; i < a.shape.size(); ++i)
    std::printf("%s%lld", i ? "x" : "", static_cast<long long>(a.shape[i]));
  std::printf("] = [");
  int64_t n = a.numElements();
  bool isFloat = a.dtype->name[0] == 'f' || std::string(a.dtype->name) == "bf16";
  for (int64_t i = 0; i < n; ++i) {
    if (n > 12 && i == 6) {
      std::printf(", ...");
      i = n - 6;
    }
    if (isFloat)
      std::printf("%s%.9g", i ? ", " : "", a.get(i));
    else if (isUnsignedDType(a.dtype))
      std::printf("%s%llu", i ? ", " : "",
                  static_cast<unsigned long long>(a.getUnsigned(i)));
    else
      std::printf("%s%lld", i ? ", " : "",
                  static_cast<long long>(a.getSigned(i)));
  }
  std::printf("]\n");
}

} // namespace

int main(int argc, char **argv) {
  // Compiled modules malloc their results and the caller frees them. Keep
  // freed memory in the heap (no mmap/munmap per call): repeated calls then
  // reuse warm pages instead of faulting in fresh ones, as a caching
  // allocator would.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  std::string file, entry, target = "cpu", policy;
  std::vector<std::string> inputs, outputs;
  bool random = false, list = false;
  unsigned long seed = 0;
  int repeat = 0;
  double warmupMs = 50;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const std::string &prefix) -> const char * {
      return arg.rfind(prefix, 0) == 0 ? arg.c_str() + prefix.size() : nullptr;
    };
    if (arg == "-h" || arg == "--help") {
      usage();
      return 0;
    }
    if (arg == "--list-devices") {
      if (argc != 2)
        fail("--list-devices takes no file or other option");
      std::printf("%s", tide::calibrate::describeThisMachine().c_str());
      return 0;
    }
    if (const char *v = value("--entry="))
      entry = v;
    else if (const char *v = value("--target="))
      target = v;
    else if (const char *v = value("--policy="))
      policy = v;
    else if (const char *v = value("--input="))
      inputs.push_back(v);
    else if (const char *v = value("--output="))
      outputs.push_back(v);
    else if (arg == "--random")
      random = true;
    else if (const char *v = value("--random=")) {
      random = true;
      char *end;
      errno = 0;
      seed = std::strtoul(v, &end, 10);
      if (*end || !*v || *v == '-' || errno == ERANGE)
        fail("--random takes a non-negative integer seed, got '" +
             std::string(v) + "'");
    } else if (const char *v = value("--repeat=")) {
      char *end;
      long n = std::strtol(v, &end, 10);
      if (*end || n < 1 || n > 100000000)
        fail("--repeat takes a positive count, got '" + std::string(v) + "'");
      repeat = static_cast<int>(n);
    } else if (const char *v = value("--warmup=")) {
      char *end;
      errno = 0;
      double ms = std::strtod(v, &end);
      if (*end || !*v || errno == ERANGE || !(ms >= 0) || ms > 3.6e6)
        fail("--warmup takes a number of milliseconds from 0 to 3600000, "
             "got '" +
             std::string(v) + "'");
      warmupMs = ms;
    } else if (arg == "--list")
      list = true;
    else if (arg.rfind("--", 0) == 0)
      fail("unknown option '" + arg + "' (see --help)");
    else if (file.empty())
      file = arg;
    else
      fail("more than one input file ('" + file + "' and '" + arg + "')");
  }
  if (file.empty()) {
    usage();
    fail("no module given");
  }
  if (access(file.c_str(), R_OK) != 0)
    fail("cannot read '" + file + "'");
  std::string library = file;
  if (file.size() > 5 && file.substr(file.size() - 5) == ".mlir")
    library = compile(file, target, policy);

  std::string error;
  std::unique_ptr<CompiledModule> module = CompiledModule::load(library, error);
  if (library != file) {
    // The temporary module stays mapped after loading: remove its files.
    std::string dir = library.substr(0, library.rfind('/'));
    std::remove(library.c_str());
    std::remove((dir + "/module.h").c_str());
    rmdir(dir.c_str());
  }
  if (!module)
    fail(error);
  if (list) {
    for (const FunctionSpec &fn : module->functions()) {
      std::printf("@%s(", fn.name.c_str());
      for (size_t i = 0; i < fn.args.size(); ++i)
        std::printf("%s%s", i ? ", " : "", fn.args[i].str().c_str());
      std::printf(") -> (");
      for (size_t i = 0; i < fn.results.size(); ++i)
        std::printf("%s%s", i ? ", " : "", fn.results[i].str().c_str());
      std::printf(")\n");
    }
    return 0;
  }
  const FunctionSpec *fn = nullptr;
  if (entry.empty()) {
    if (module->functions().size() != 1) {
      std::string names;
      for (const FunctionSpec &f : module->functions())
        names += " @" + f.name;
      fail("the module has " + std::to_string(module->functions().size()) +
           " functions; choose one with --entry (functions:" + names + ")");
    }
    fn = &module->functions().front();
  } else {
    fn = module->find(entry);
    if (!fn) {
      std::string names;
      for (const FunctionSpec &f : module->functions())
        names += " @" + f.name;
      fail("no function named '" + entry + "' in the module (functions:" +
           names + ")");
    }
  }

  std::vector<Array> args;
  if (random && !inputs.empty())
    fail("give either --input files or --random, not both");
  if (random) {
    std::mt19937_64 rng(seed);
    for (const TensorSpec &spec : fn->args)
      args.push_back(randomArray(spec, rng));
  } else {
    for (const std::string &path : inputs) {
      Array a;
      if (!readNpy(path, a, error))
        fail(error);
      args.push_back(std::move(a));
    }
  }
  if (!module->check(*fn, args, error))
    fail(error);
  if (!outputs.empty() && outputs.size() != fn->results.size())
    fail("@" + fn->name + " has " + std::to_string(fn->results.size()) +
         " result(s) but " + std::to_string(outputs.size()) +
         " --output file(s) were given");

  std::vector<Array> results;
  std::vector<double> times;
  if (!module->call(*fn, args, results, repeat ? repeat : 1, times, error,
                    repeat ? warmupMs / 1000 : 0))
    fail(error);
  if (outputs.empty()) {
    for (size_t i = 0; i < results.size(); ++i)
      printArray("result " + std::to_string(i), results[i]);
  } else {
    for (size_t i = 0; i < results.size(); ++i)
      if (!writeNpy(outputs[i], results[i], error))
        fail(error);
  }
  if (repeat) {
    std::sort(times.begin(), times.end());
    std::printf("@%s: %d calls, min %.3f us, median %.3f us\n",
                fn->name.c_str(), repeat, times.front() * 1e6,
                times[times.size() / 2] * 1e6);
  }
  return 0;
}
