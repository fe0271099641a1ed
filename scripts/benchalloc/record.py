"""What alloc.json records: how the run was made, every boot and raw value, earlier figures kept, a run attached.

Why: the page must be rewritable from the JSON alone (--docs), so the JSON carries the revision, the kernel's
hash, the NoC parameters and the host; a run of some figures (--only) keeps the others from the previous run.
"""
import datetime
import hashlib
import json
import os
import platform
import re
import subprocess
import sys

from .claims import claims
from .config import GUEST_TIMEOUT_S, REALTASK_HARTS, ROOT, VCORES, clock_note
from .runs import compact_jobs

KERNEL_SOURCES = ["kernel", "portable", "drivers", "arch", "lib", "user", "tests/ktest", "linker.ld"]


def git_revision():
    """The HEAD revision, and whether the kernel's own sources (not scripts or docs) have uncommitted changes."""
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--"]
                               + KERNEL_SOURCES, capture_output=True, text=True, check=True).stdout.strip()
        return rev + (" (kernel sources with uncommitted changes)" if dirty else " (kernel sources clean)")
    except (OSError, subprocess.CalledProcessError):
        return None


def noc_parameters():
    text = (ROOT / "drivers" / "noc" / "noc_config.h").read_text()
    return {m.group(1).lower(): int(m.group(2)) for m in re.finditer(r"#define NOC_(\w+)_DEFAULT (\d+)", text)}


def kernel_hash(path):
    """The first 16 hex digits of the kernel ELF's sha256, to tell which kernel a run used."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def make_data(args, boots, figs, revision, kernel_sha, runtime, repeat):
    """alloc.json's content for this run: "how", the figures, every boot and its raw lines."""
    how = {
        "command": " ".join(["scripts/bench-alloc"] + sys.argv[1:]),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": {"machine": platform.machine(), "cpus": os.cpu_count()},
        "qemu_version": subprocess.run(["qemu-system-riscv64", "--version"], capture_output=True,
                                       text=True).stdout.splitlines()[0],
        "qemu_example": boots[0].result["qemu"],
        "revision": revision,
        "kernel": {"path": args.kernel, "sha256_16": kernel_sha},
        "quick": args.quick, "reps": args.reps, "meshes": [f"{s}x{s}" for s in args.meshes],
        "tiles": args.tiles, "simul_cap": args.simul_cap, "alloc_check": int(args.check), "jobs_at_once": args.jobs,
        "partial_sim": VCORES, "realtask_harts": REALTASK_HARTS, "scheme_for_policies": "fixed",
        "scenario_guest_timeout_s": GUEST_TIMEOUT_S,
        "noc": noc_parameters(),
        "icount": clock_note(args.clock),
        "clock": args.clock + (" (vtime=1: every core's own clock, docs/time.md)" if args.clock == "virtual" else
                               " (the machine's clock: the work of all harts adds up)"),
        "timing": "t_submit: the jobs' common submission instant; wait_ns = t_start - t_submit (the thesis's job "
                  "wait time); alloc_ns = t_alloc - t_submit (the home has all the cores); handover_ns = t_alloc "
                  "minus t_end of the job that "
                  "started just before, where that job ended before this one started (serial jobs; rank 1: "
                  "alloc_ns); exclusive_wait_ns = wait_ns minus the run "
                  "times (t_end - t_start) of the jobs that started before it (the thesis's Fig. 5.5); in "
                  "real-task mode t_start is when every task of the job has passed the start barrier (program "
                  "loaded on every pico-kernel), in partial simulation when every part's timer is armed.",
        "ranking": "jobs ranked by t_start within each run (1 = first to start); by_home gives the waits in the "
                   "global order (t_submit, home) instead",
        "change": "ac_change_pct = (O_ab - O_ac) / O_ab x 100 % (the thesis's convention: positive = active "
                  "cancellation cheaper)",
        "runtime_s": round(runtime, 1),
        "boots_run": len(boots),
        "boot_host_seconds": round(sum(b.result["wall_s"] for b in boots), 1),
        "repeatability": repeat,
        "figures_run": sorted({b.figure for b in boots}),
    }
    boot_list = [{"id": b.id, "figure": b.figure, "harts": b.harts, "bootargs": b.bootargs, "kind": b.kind,
                  "meta": b.meta, **{k: v for k, v in b.result.items() if k not in ("jobs", "runs", "propbench")}}
                 for b in boots]
    raw = {b.id: {"jobs": compact_jobs(b.result["jobs"]), "runs": b.result["runs"]} if b.kind == "scenario"
           else {"propbench": b.result["propbench"]} for b in boots}
    return {"how": how, "figures": figs, "boots": boot_list, "raw": raw}


def merge_earlier(data, out, args, boots, figs):
    """--only: the figures not run now come from the JSON already at out, if it was made with the same settings."""
    boot_list, raw = data["boots"], data["raw"]
    if args.only and os.path.exists(out):
        try:
            with open(out) as f:
                old = json.load(f)
            if old.get("how", {}).get("reps") == args.reps and old.get("how", {}).get("quick") == args.quick:
                new_ids = {b["id"] for b in boot_list}
                # a figure run now replaces the old one, except Fig. 5.1, whose panels can be run one by one
                runs_now = {b.figure for b in boots} - {"5.1"}
                data["boots"] = [b for b in old["boots"] if b["id"] not in new_ids and b["figure"] not in runs_now] \
                    + boot_list
                data["raw"] = {k: v for k, v in old["raw"].items() if k in {b["id"] for b in data["boots"]}} | raw
                if "5.1" in figs and "5.1" in old["figures"]:
                    now = {(p["panel"], p["mesh"]) for p in figs["5.1"]["panels"]}
                    figs["5.1"]["panels"] = sorted(
                        [p for p in old["figures"]["5.1"]["panels"] if (p["panel"], p["mesh"]) not in now]
                        + figs["5.1"]["panels"], key=lambda p: (p["panel"], p["micro_kernels"]))
                data["figures"] = {k: v for k, v in old["figures"].items() if k not in figs} | figs
                data["how"]["earlier_run"] = {k: old["how"].get(k) for k in ("date", "command", "runtime_s",
                                                                             "revision", "kernel", "earlier_run")}
                data["how"]["figures_run_now"] = [f for f in data["how"]["figures_run"] if f != "probe"]
                data["how"]["figures_run"] = sorted(data["figures"])
        except (OSError, json.JSONDecodeError, KeyError):
            pass


def attach_comparison(data, other, source, note):
    """--compare: another run's figures and claims (other: its alloc.json), kept in data["comparison"] for the page."""
    data["comparison"] = {"note": note, "source": os.path.abspath(source),
                          "how": {k: other["how"].get(k) for k in ("date", "command", "reps", "meshes",
                                                                   "tiles", "kernel", "figures_run",
                                                                   "runtime_s")},
                          "figures": other["figures"], "claims": claims(other["figures"])}
