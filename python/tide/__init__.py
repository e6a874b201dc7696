"""Tide from Python: compile tensor programs and call them on NumPy arrays and
DLPack tensors (PyTorch, CuPy, JAX), with every placement decision readable.

    import numpy as np, tide
    m = tide.compile(open("examples/exp_f32.mlir").read(), target="cpu")
    y = m.exp(np.ones(230400, np.float32))
    print(m.placement.text)

See python/README.md.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _runner

__all__ = [
    "CompileError",
    "Diagnostic",
    "Error",
    "Function",
    "FunctionSignature",
    "InputError",
    "LoadError",
    "Module",
    "Placement",
    "CalibrationWarning",
    "TensorSpec",
    "calibrate",
    "compile",
    "devices",
    "load",
]


class Error(Exception):
    """Base class of Tide's errors."""


class LoadError(Error):
    """A compiled module that cannot be loaded (missing, not a Tide module,
    corrupt metadata)."""


class InputError(Error, ValueError):
    """Arguments that do not fit a function's signature: count, dtype, rank,
    shape, contiguity or device. The message is tide-run's."""


@dataclass(frozen=True)
class Diagnostic:
    """One compiler diagnostic."""

    severity: str  # "error", "warning", "remark" or "note"
    message: str
    location: str  # "model.mlir:3:8", or "model.onnx: node 'fc1' (Gemm)"
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.severity}: {self.message}"


class CompileError(Error):
    """The compiler refused the program; `diagnostics` holds every diagnostic
    (errors, and the warnings, remarks and notes around them)."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics: List[Diagnostic] = list(diagnostics)
        errors = [d for d in self.diagnostics if d.severity in ("error", "note")]
        super().__init__("\n".join(str(d) for d in (errors or self.diagnostics))
                         or "compilation failed")


@dataclass(frozen=True)
class TensorSpec:
    """An argument or result: element type, shape (None for a dynamic size)
    and where it lives ("cpu" or "cuda:N"); `donated`: an argument the call
    may overwrite (a function marked it `tide.donate`)."""

    dtype: str
    shape: Tuple[Optional[int], ...]
    device: str
    donated: bool = False

    def __str__(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.dtype}[{dims}] on {self.device}" + (
            " (donated)" if self.donated else "")


@dataclass(frozen=True)
class FunctionSignature:
    name: str
    args: Tuple[TensorSpec, ...]
    results: Tuple[TensorSpec, ...]

    def __str__(self) -> str:
        args = ", ".join(str(a) for a in self.args)
        results = ", ".join(str(r) for r in self.results)
        return f"@{self.name}({args}) -> ({results})"


class Placement(Sequence):
    """The placement report: a sequence of one dict per placed op (function,
    op, dtype, device, reason, location, cpu_us, gpu_us), plus `.text` (the
    table), `.dot` (a Graphviz graph) and `.data` (the whole JSON report:
    transfers and modelled costs per function)."""

    def __init__(self, reports: Dict[str, str]):
        self.text: str = reports.get("text", "")
        self.dot: str = reports.get("dot", "")
        self.data: Dict[str, Any] = json.loads(reports.get("json") or "{}")
        self._ops: List[Dict[str, Any]] = []
        for fn in self.data.get("functions", []):
            for op in fn.get("ops", []):
                entry = {"function": fn.get("function")}
                entry.update(op)
                entry["location"] = entry.pop("loc", None)
                self._ops.append(entry)

    @property
    def target(self) -> str:
        return self.data.get("target", "")

    def __getitem__(self, index):
        return self._ops[index]

    def __len__(self) -> int:
        return len(self._ops)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<tide.Placement: {len(self)} ops on target {self.target!r}>"


class Function:
    """A function of a compiled module. Call it with NumPy arrays or DLPack
    tensors; it returns a NumPy array per host result (a DLPack tensor for a
    GPU-resident one), one result alone, several as a tuple, none as None."""

    def __init__(self, module: "Module", index: int, signature: FunctionSignature):
        self._module = module
        self._index = index
        self.signature = signature
        self.__name__ = signature.name
        self.__doc__ = str(signature)

    def __call__(self, *args):
        native = self._module._get_native()
        import numpy as np

        args = [np.asarray(a) if isinstance(a, np.generic) else a for a in args]
        # A donated argument's buffer is overwritten by the call: never a
        # read-only one (a bytes object, a constant array).
        for i, (a, spec) in enumerate(zip(args, self.signature.args)):
            if spec.donated and isinstance(a, np.ndarray) and not a.flags.writeable:
                raise InputError(
                    f"{self.__name__}: argument {i} is donated (the call may "
                    "overwrite it) and the array passed is read-only; pass a "
                    "writable copy")
        try:
            results = native.call(self._index, args)
        except ValueError as e:
            raise InputError(str(e)) from None
        except RuntimeError as e:
            raise Error(str(e)) from None
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def __repr__(self) -> str:
        return f"<tide.Function {self.signature}>"


class Module:
    """A compiled module: its functions are attributes (`m.main(x, y)`) and
    items (`m["main"]`)."""

    def __init__(self, native, path: Optional[str],
                 placement: Optional[Placement] = None,
                 diagnostics: Sequence[Diagnostic] = ()):
        self._native = native
        self.path = path
        self.placement: Optional[Placement] = placement
        self.diagnostics: List[Diagnostic] = list(diagnostics)
        self.signature: Dict[str, FunctionSignature] = {}
        self._functions: Dict[str, Function] = {}
        for index, fn in enumerate(native.functions()):
            spec = lambda t: TensorSpec(t["dtype"], tuple(t["shape"]), t["device"],
                                        bool(t.get("donated", False)))
            sig = FunctionSignature(fn["name"], tuple(map(spec, fn["args"])),
                                    tuple(map(spec, fn["results"])))
            self.signature[sig.name] = sig
            self._functions[sig.name] = Function(self, index, sig)

    def _get_native(self):
        if self._native.closed:
            raise Error("the module was closed; load or compile it again")
        return self._native

    @property
    def functions(self) -> Dict[str, Function]:
        return dict(self._functions)

    def close(self) -> None:
        """Unloads the module (GPU results still alive keep it loaded until
        they are freed). Calls afterwards raise tide.Error."""
        self._native.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getitem__(self, name: str) -> Function:
        try:
            return self._functions[name]
        except KeyError:
            raise KeyError(f"no function named {name!r} in the module "
                           f"(functions: {', '.join(self._functions)})") from None

    def __getattr__(self, name: str) -> Function:
        functions = self.__dict__.get("_functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(f"no function named {name!r} in the module "
                             f"(functions: {', '.join(functions)})")

    def __dir__(self):
        return list(super().__dir__()) + list(self._functions)

    def __repr__(self) -> str:
        fns = ", ".join(str(s) for s in self.signature.values())
        return f"<tide.Module {fns}>"


def load(path: "os.PathLike | str") -> Module:
    """Loads a module compiled by tide-compile (or tide.compile(output=...)).
    Needs no compiler: works where only the runner is installed."""
    path = os.fsdecode(os.fspath(path))
    if "\0" in path:  # (C would read the path up to it)
        raise ValueError("tide.load: the path contains a NUL character")
    try:
        native = _runner.Module(path)
    except ValueError as e:
        raise LoadError(str(e)) from None
    return Module(native, path)


def _looks_like_path(text: str) -> bool:
    return "\n" not in text and "{" not in text and (
        text.endswith((".mlir", ".onnx", ".mlirbc")) or os.path.exists(text))


def compile(source, target: "str | os.PathLike | None" = None,
            policy: Optional[str] = None, *, cpu: Optional[str] = None,
            opt_level: Optional[int] = None, cpu_fallback: bool = False,
            remarks: bool = True, cuda_toolkit: Optional[str] = None,
            gpu_chip: Optional[str] = None,
            reduce_precision: Optional[str] = None,
            bind_shape: Optional[Dict[str, Any]] = None,
            bind_input: Optional[Dict[str, str]] = None,
            output: "str | os.PathLike | None" = None) -> Module:
    """Places and compiles `source` and loads the result.

    source: MLIR text, the path of a .mlir or .onnx file, or an
        onnx.ModelProto.
    target: a built-in target ("cpu", "h200", "rtx3090", ...) or a JSON target
        file; None: the module's tide.target, else h200.
    policy: "soft" (default), "strict", "require-gpu" or "cost".
    reduce_precision: "bf16" or "f16": f32 matmuls and convolutions placed on
        a GPU read operands in that type and accumulate in f32 (tensor
        cores); reported as warnings in `module.diagnostics`. None or
        "none": precision as written.
    cpu, opt_level, cpu_fallback, cuda_toolkit, gpu_chip: as tide-compile's
        --cpu, -O, --cpu-fallback, --cuda-toolkit, --gpu-chip.
    bind_shape: for ONNX, {"batch": 8} or {"input": (1, 3, 224, 224)}.
    bind_input: for ONNX, {"shape": "shape.npy"}: a graph input as a constant.
    output: keep the shared library at this path (default: a temporary file,
        removed once loaded).

    Raises tide.CompileError with every diagnostic when compilation fails.
    Remarks and warnings of a successful compilation are in
    `module.diagnostics`.
    """
    try:
        from . import _compiler
    except ImportError as e:
        raise Error("tide.compile needs Tide's compiler (tide._compiler over "
                    "libTideCompilerCAPI.so, with LLVM/MLIR 22), which this "
                    "installation lacks; compile elsewhere (tide-compile or "
                    "tide.compile(output=...)) and use tide.load(path): "
                    f"{e}") from None

    # Each option has one type: a string "false" is not False, and 2.7 is
    # not a size (nothing is converted silently).
    def as_text(option: str, value: Any) -> str:
        if not isinstance(value, str):
            raise TypeError(f"tide.compile: {option} must be a str, not "
                            f"{type(value).__name__}")
        if "\0" in value:
            raise ValueError(f"tide.compile: {option} contains a NUL character")
        return value

    def as_path(option: str, value: Any) -> str:
        if not isinstance(value, (str, bytes, os.PathLike)):
            raise TypeError(f"tide.compile: {option} must be a path (str or "
                            f"os.PathLike), not {type(value).__name__}")
        return as_text(option, os.fsdecode(os.fspath(value)))

    def as_flag(option: str, value: Any) -> str:
        if not isinstance(value, bool):
            raise TypeError(f"tide.compile: {option} must be True or False, "
                            f"not {value!r}")
        return "true" if value else "false"

    def as_size(option: str, value: Any) -> str:
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise TypeError(f"tide.compile: {option} must be an integer, not "
                            f"{value!r}")
        return str(value.__index__())

    options: List[Tuple[str, str]] = []
    if target is not None:
        options.append(("target", as_path("target", target)))
    if policy is not None:
        options.append(("policy", as_text("policy", policy)))
    if cpu is not None:
        options.append(("cpu", as_text("cpu", cpu)))
    if opt_level is not None:
        options.append(("opt-level", as_size("opt_level", opt_level)))
    options.append(("cpu-fallback", as_flag("cpu_fallback", cpu_fallback)))
    options.append(("remarks", as_flag("remarks", remarks)))
    if cuda_toolkit is not None:
        options.append(("cuda-toolkit", as_path("cuda_toolkit", cuda_toolkit)))
    if gpu_chip is not None:
        options.append(("gpu-chip", as_text("gpu_chip", gpu_chip)))
    if reduce_precision is not None:
        options.append(("reduce-precision", as_text("reduce_precision", reduce_precision)))
    for name, value in (bind_shape or {}).items():
        what = f"bind_shape[{name!r}]"
        if isinstance(value, (tuple, list)):
            value = "x".join(as_size(what, d) for d in value)
        elif not isinstance(value, str):
            value = as_size(what, value)
        options.append(("bind-shape", f"{as_text('bind_shape', name)}={value}"))
    for name, value in (bind_input or {}).items():
        options.append(("bind-input", f"{as_text('bind_input', name)}={as_path('bind_input', value)}"))

    workdir = tempfile.mkdtemp(prefix="tide-")
    try:
        is_path, name = False, "<source>"
        if type(source).__name__ == "ModelProto" and hasattr(source, "SerializeToString"):
            text, is_path = os.path.join(workdir, "model.onnx"), True
            with open(text, "wb") as f:
                f.write(source.SerializeToString())
        elif isinstance(source, os.PathLike):
            text, is_path = as_path("source", source), True
            if not os.path.exists(text):
                raise FileNotFoundError(f"tide.compile: no file {text!r}")
        elif isinstance(source, bytes):
            text = source.decode("utf-8")
        elif isinstance(source, str):
            text = source
            if _looks_like_path(source):
                if not os.path.exists(source):
                    raise FileNotFoundError(f"tide.compile: no file {source!r}")
                is_path = True
        else:
            raise TypeError("tide.compile takes MLIR text, the path of a .mlir "
                            "or .onnx file, or an onnx.ModelProto, not "
                            f"{type(source).__name__}")
        so = as_path("output", output) if output is not None else os.path.join(workdir, "module.so")
        ok, diagnostics, reports = _compiler.compile(text, is_path, name, options, so)
        # A ModelProto's temporary file is named "model.onnx" in messages.
        prefix = workdir + os.sep
        for d in diagnostics:
            for key in ("location", "file"):
                if d[key] and d[key].startswith(prefix):
                    d[key] = d[key][len(prefix):]
        diagnostics = [Diagnostic(**d) for d in diagnostics]
        if not ok:
            raise CompileError(diagnostics)
        try:
            native = _runner.Module(so)
        except ValueError as e:
            raise LoadError(str(e)) from None
        return Module(native, so if output is not None else None,
                      Placement(reports) if reports else None, diagnostics)
    finally:
        # A loaded library stays mapped after its file is removed.
        shutil.rmtree(workdir, ignore_errors=True)


def devices() -> List[Dict[str, Any]]:
    """The CPU, then every GPU the NVIDIA driver shows (none without a
    driver): kind, device ("cpu", "cuda:0"), name, memory_bytes, and for GPUs
    compute_capability, multiprocessors and fp64_fp32_ratio (the CUDA cores'
    FP64:FP32 rate known for the compute capability, None when unknown).
    `tide-run --list-devices` also prints the (op, dtype) pairs Tide runs on
    each."""
    return _runner.devices()


class CalibrationWarning(UserWarning):
    """Part of the machine was not measured (no GPU, no OpenBLAS, ...)."""


def calibrate(output: Optional[str] = None, *, quick: bool = False,
              save_native: Optional[bool] = None, require_gpu: bool = False,
              progress: bool = False) -> Dict[str, Any]:
    """Measures this machine as `tide-calibrate` does and returns the target
    (the JSON document of a target file, as a dict).

    output: also write the target file there. save_native: save it as this
    machine's `native` target (target="native"); by default unless quick.
    quick: tiny sizes, done in seconds (for tests: the figures mean nothing).
    Whatever is not measured (no GPU, no OpenBLAS) is a CalibrationWarning,
    or a tide.Error for a missing GPU with require_gpu=True. progress: print
    each step on stderr."""
    import sys
    import warnings

    if save_native is None:
        save_native = not quick
    notes: List[str] = []

    def step(what: str, index: int, total: int) -> None:
        print(f"tide.calibrate: [{index}/{total}] {what}", file=sys.stderr, flush=True)

    if output is not None:
        output = os.fsdecode(os.fspath(output))
        if not output or "\0" in output:
            raise ValueError("tide.calibrate: output must be a non-empty path "
                             "without a NUL character")
    try:
        text, _ = _runner.calibrate(quick, output, save_native,
                                    step if progress else None, notes.append)
    except RuntimeError as e:
        raise Error(str(e)) from None
    target = json.loads(text)
    has_gpu = any(d["id"] != "cpu" for d in target["devices"])
    if require_gpu and not has_gpu:
        why = next((n for n in notes if "GPU" in n), "no GPU was measured")
        raise Error(why)
    for note in notes:
        warnings.warn(note, CalibrationWarning, stacklevel=2)
    return target
