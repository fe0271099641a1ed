"""bench-kernel's boots: the kernel's bench_kernel and bench_tasks commands under -icount, each booted twice,
all of them one sweep of the experiment runner (scripts/sweep.py).

Why: a figure counts only if two identical boots give it (under -icount they must); the virtual clock is the same
boot with vtime=1, so one function runs either clock and the caller chooses.
"""
import json

import mosaiclib
import sweep

from .summary import FREE_NOC, add_free_noc, summarise, tasks_summary

PREFIX = "bench-kernel: "
CLOCK_BOOTARGS = {"virtual": "vtime=1", "serial": "vtime=0"}


def boot(kernel, harts, timeout, log, command, bootargs=""):
    """One boot running `command` at the shell, as a task of the experiment runner."""
    args = " ".join(a for a in ("shell=0", bootargs, f'cmd="{command}"') if a)
    cmd = mosaiclib.qemu_command(kernel=kernel, harts=harts, bootargs=args, icount=True)
    return sweep.Boot(log.stem, cmd, log, timeout=timeout, cost=harts)


def rows_of(r, prefix=PREFIX):
    """A finished boot's JSON lines (those after `prefix`)."""
    return [json.loads(line[len(prefix):]) for line in r.lines if line.startswith(prefix + "{")]


def plan(clock, kernel, harts, reps, timeout, bench_dir):
    """Every boot of one clock: bench_kernel, bench_kernel with a free NoC, bench_tasks; each twice."""
    clock_args = CLOCK_BOOTARGS[clock]
    runs = [("kernel", f"bench_kernel {reps}", clock_args),
            ("kernel-free-noc", f"bench_kernel {reps}", f"{clock_args} {FREE_NOC}".strip()),
            ("tasks", "bench_tasks 29", clock_args)]
    return [boot(kernel, harts, timeout, bench_dir / f"{what}-{harts}-{clock}-{i}.log", command, bootargs)
            for what, command, bootargs in runs for i in (1, 2)]


def check(runner, results):
    """A boot with a "stuck" row (the kernel's report of a measurement that never finished) is failed, and its
    failure says where it stuck, whatever its status."""
    for r in results:
        prefix = "bench-tasks: " if r.key.startswith("tasks-") else PREFIX
        stuck = [row for row in rows_of(r, prefix) if row.get("kind") == "stuck"]
        if stuck:
            runner.mark_failed(r, ("status 0" if r.ok else sweep.describe_status(r)) + "; stuck: " +
                               json.dumps(stuck[0]))


def twice(results, what, prefix=PREFIX):
    """The rows of a boot and of its twin, which must be identical."""
    first, second = (rows_of(r, prefix) for r in results)
    if first != second:
        raise SystemExit(f"bench-kernel: two -icount runs of {what} differ; figures are not repeatable (see "
                         f"{results[0].log} and {results[1].log})")
    return first


def measure(results):
    """Every figure of one clock from its six boots (plan's order)."""
    s = summarise(twice(results[0:2], "bench_kernel"))
    add_free_noc(s, twice(results[2:4], "bench_kernel with a free NoC"))
    s["dispatcher_experiment"] = tasks_summary(twice(results[4:6], "bench_tasks", prefix="bench-tasks: "))
    s["qemu"] = " ".join(results[0].cmd)
    s["repeated_identically"] = True
    return s
