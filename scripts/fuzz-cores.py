#!/usr/bin/env python3
"""Runs Tide's libFuzzer targets on every core of a machine for a given time.

Each worker is one fuzzer process; its CPU time (user + system) is read with
os.wait4 when it ends. A worker that stops at a report is restarted (at most 3
times) so the cores stay busy; every report's input and log are kept in
$OUT/reports. Workers of a target share one corpus directory ($FZ/corpus/T,
-reload=1) besides the seeds in test/fuzz/corpus/T.

    FZ=DIR OUT=DIR [PLAN='{"onnx": 7, "mlir": 6, ...}'] [SEED=N] \
        python3 scripts/fuzz-cores.py SECONDS

$FZ holds bin/tide-fuzz-* and, for a machine without LLVM (the GPU machine),
libA/ and libB/ with their shared libraries (put on LD_LIBRARY_PATH). Run
from the repository root. The default plan is for 16 cores; docs/reliability.md
says how it was run on the GPU machine's host."""
import os, subprocess, sys, time, json, shutil

secs = int(sys.argv[1])
FZ = os.environ["FZ"]
OUT = os.environ["OUT"]
ncpu = os.cpu_count()
plan = json.loads(os.environ["PLAN"]) if "PLAN" in os.environ else {"onnx": 7, "mlir": 6, "target": 1, "npy": 1, "metadata": 1}
if ncpu != 16 and "PLAN" not in os.environ:
    plan["onnx"] = max(1, ncpu * 7 // 16); plan["mlir"] = max(1, ncpu - plan["onnx"] - 3)
env = dict(os.environ, LD_LIBRARY_PATH=f"{FZ}/libA:{FZ}/libB")
os.makedirs(f"{OUT}/reports", exist_ok=True)
os.makedirs(f"{FZ}/logs", exist_ok=True)
# Each target must start (its libraries found, say) before the cores are
# given to it: a worker that cannot start exits at once, and the call's time
# would go by with nothing fuzzed.
broken = []
for t in plan:
    p = subprocess.run([f"{FZ}/bin/tide-fuzz-{t}", "-runs=0", f"test/fuzz/corpus/{t}"],
                       env=env, capture_output=True, text=True)
    if p.returncode != 0:
        broken.append(t)
        print(f"tide-fuzz-{t} does not start (exit {p.returncode}): "
              + (p.stderr.strip().splitlines() or ["no message"])[-1], flush=True)
if broken:
    sys.exit(1)
deadline = time.time() + secs
procs = {}  # pid -> (target, worker, log path, start)
stats = []
def start(t, w, seed):
    left = int(deadline - time.time())
    if left < 20:
        return
    corpus = f"{FZ}/corpus/{t}"
    os.makedirs(corpus, exist_ok=True)
    log = f"{FZ}/logs/{t}-{w}-{int(time.time())}.log"
    p = subprocess.Popen([f"{FZ}/bin/tide-fuzz-{t}", f"-max_total_time={left}", f"-seed={seed}",
                          "-print_final_stats=1", "-rss_limit_mb=4096", "-timeout=60", "-reload=1",
                          f"-artifact_prefix={OUT}/reports/{t}-{w}-", corpus, f"test/fuzz/corpus/{t}"],
                         stdout=open(log, "w"), stderr=subprocess.STDOUT, env=env)
    # Keep the Popen object: one dropped while its process runs goes on
    # subprocess's list of children to reap, and the next Popen reaps it
    # there, so that os.wait4 below would never see it end.
    procs[p.pid] = (t, w, log, time.time(), p)
restarts = {}
seed = int(os.environ.get("SEED", "1000"))
for t, n in plan.items():
    for w in range(n):
        seed += 1
        start(t, w, seed)
while procs:
    try:
        pid, status, ru = os.wait4(-1, 0)
    except ChildProcessError:  # reaped elsewhere: nothing to measure
        print(f"lost track of {len(procs)} workers", flush=True)
        break
    t, w, log, t0, _ = procs.pop(pid)
    rc = os.waitstatus_to_exitcode(status)
    tail = open(log, errors="replace").read().splitlines()
    execs = [l for l in tail if l.startswith("stat::number_of_executed_units")]
    cov = [l for l in tail if " cov: " in l]
    rec = dict(target=t, worker=w, rc=rc, wall=round(time.time() - t0), cpu=round(ru.ru_utime + ru.ru_stime),
               execs=int(execs[-1].split()[-1]) if execs else None,
               first_cov=cov[0].split(" cov: ")[1].split()[0] if cov else None,
               last_cov=cov[-1].split(" cov: ")[1].split()[0] if cov else None)
    stats.append(rec)
    print(json.dumps(rec), flush=True)
    if rc != 0:
        shutil.copy(log, f"{OUT}/reports/{t}-{w}-{int(t0)}.log")
        restarts[(t, w)] = restarts.get((t, w), 0) + 1
        if restarts[(t, w)] <= 3:
            seed += 100
            start(t, w, seed)
cpu = sum(r["cpu"] for r in stats)
by = {}
for r in stats:
    b = by.setdefault(r["target"], dict(cpu=0, execs=0, reports=0))
    b["cpu"] += r["cpu"]; b["execs"] += r["execs"] or 0; b["reports"] += r["rc"] != 0
for t in plan:
    b = by.get(t, {})
    n = len(os.listdir(f"{FZ}/corpus/{t}"))
    print(f"TOTAL {t}: cpu {b.get('cpu')} s, execs {b.get('execs')}, reports {b.get('reports')}, corpus {n} files")
print(f"TOTAL cpu {cpu} s = {cpu/3600:.2f} CPU-hours on {ncpu} cores")
json.dump(stats, open(f"{OUT}/stats-{int(time.time())}.json", "w"))
