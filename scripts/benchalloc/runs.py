"""Running the boots: each configuration's QEMU command line, the kernel's JSON lines parsed, checked, collected.

Why: every boot's command line comes from scripts/mosaiclib.py and runs as one task of the experiment runner
(scripts/sweep.py) like every other benchmark's; this module owns QEMU and the serial output, and nothing here
computes statistics.
"""
import json

import mosaiclib
import sweep

from .config import ROOT
from .plan import Boot


def sweep_boot(b, args):
    """One configuration as a task of the runner: its QEMU command line, log and timeout."""
    bootargs = ("vtime=1 " if args.clock == "virtual" else "vtime=0 ") + b.bootargs
    cmd = mosaiclib.qemu_command(kernel=args.kernel, harts=b.harts, bootargs=bootargs, icount=True)
    return sweep.Boot(b.id, cmd, args.logs / f"alloc-{b.id}.log", timeout=args.timeout, cost=b.cost)


def parse_boot(b, r, args):
    """A finished boot (sweep.Result): its ALLOCJOB, ALLOCRUN and PROPBENCH lines parsed; says what went wrong."""
    log = r.log
    res = {"qemu": " ".join(r.cmd), "status": r.status, "timed_out": r.timed_out, "wall_s": round(r.wall_s, 2),
           "log": str(log.relative_to(ROOT) if log.is_relative_to(ROOT) else log), "worker": r.worker}
    jobs, runs, props = [], [], []
    for line in r.lines:
        try:
            if line.startswith("ALLOCJOB {"):
                jobs.append(json.loads(line[9:]))
            elif line.startswith("ALLOCRUN {"):
                runs.append(json.loads(line[9:]))
            elif line.startswith("PROPBENCH {"):
                props.append(json.loads(line[10:]))
        except json.JSONDecodeError:
            res.setdefault("malformed_lines", []).append(line[:200])
    res["jobs"], res["runs"], res["propbench"] = jobs, runs, props
    res["panic"] = next((ln.strip() for ln in r.lines if "PANIC" in ln), None)
    problems = []
    if res["panic"]:
        problems.append(f"the kernel panicked ({res['panic']})")
    if r.status != 0:
        problems.append("QEMU timed out (killed)" if r.timed_out else f"exit status {r.status}")
    if b.kind == "scenario":
        want = args.reps
        if len(runs) != want:
            problems.append(f"{len(runs)} of {want} runs reported")
        bad = [j for j in jobs if j["status"] != 0]
        if bad:
            problems.append(f"{len(bad)} jobs did not end well")
    else:
        for w, h in b.meta["regions"]:
            got = [p for p in props if p["w"] == w and p["h"] == h]
            if len(got) != args.reps:
                problems.append(f"propbench {w} {h}: {len(got)} of {args.reps} repetitions")
            elif any(p["reached"] != w * h - 1 for p in got):
                problems.append(f"propbench {w} {h}: the wave did not reach every node")
    res["ok"] = not problems
    if problems:
        tail = [ln for ln in r.lines if ln.strip()][-6:]
        res["error"] = "; ".join(problems)
        res["log_tail"] = tail
    return res


def compact_jobs(jobs):
    """The jobs as columns and rows: alloc.json keeps every job of every run, and this keeps it small."""
    cols = ["run", "tag", "home", "ntasks", "status", "t_submit_ns", "t_alloc_ns", "t_start_ns", "t_end_ns",
            "wait_ns", "alloc_ns", "msgs", "hops", "cancels", "attempts", "parts"]
    return {"columns": cols, "rows": [[j.get(c) for c in cols] for j in jobs]}


def run_all(boots, args, runner):
    """Boots every configuration as one sweep of the runner, the costliest first; one progress line per boot."""
    by_id = {b.id: b for b in boots}

    def finished(r):
        b = by_id[r.key]
        b.result = parse_boot(b, r, args)
        res = b.result
        state = "ok" if res["ok"] else f"FAILED ({res['error']}; log {res['log']})"
        return f"{b.id:28s} {b.harts:3d} harts {res['wall_s']:7.1f} s  {state}"

    runner.run([sweep_boot(b, args) for b in boots], line=finished)


def repeat_check(boots, args, runner):
    """Boots the cheapest configuration (of Fig. 5.1 if any) again, alone: under -icount its lines must repeat."""
    b0 = min((b for b in boots if b.figure != "probe"), key=lambda b: (b.figure != "5.1", b.cost))
    twin = Boot(b0.id + "-again", b0.figure, b0.harts, b0.bootargs, b0.kind, b0.meta, b0.cost)
    twin.result = parse_boot(twin, runner.run([sweep_boot(twin, args)])[0], args)
    key = "jobs" if b0.kind == "scenario" else "propbench"
    same = twin.result[key] == b0.result[key] and twin.result["ok"] and b0.result["ok"]
    print(f"bench-alloc: {b0.id} booted again: results {'identical' if same else 'DIFFER'}", flush=True)
    return {"boot": b0.id, "identical": same, "compared": key,
            "note": "the configuration was booted a second time, alone; under -icount every ALLOCJOB or "
                    "PROPBENCH line must come out the same whatever else the host is running"}
