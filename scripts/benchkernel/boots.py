"""bench-kernel's boots: the kernel's bench_kernel and bench_tasks commands under -icount, each booted twice.

Why: a figure counts only if two identical boots give it (under -icount they must); the virtual clock is the same
boot with vtime=1, so one function runs either clock and the caller chooses.
"""
import json

import mosaiclib

from .summary import FREE_NOC, add_free_noc, summarise, tasks_summary

PREFIX = "bench-kernel: "
CLOCK_BOOTARGS = {"virtual": "vtime=1", "serial": "vtime=0"}


def run_once(kernel, harts, timeout, log, command, prefix=PREFIX, bootargs=""):
    """One boot running `command` at the shell; its JSON lines (those after `prefix`) and the QEMU command."""
    args = " ".join(a for a in ("shell=0", bootargs, f'cmd="{command}"') if a)
    cmd = mosaiclib.qemu_command(kernel=kernel, harts=harts, bootargs=args, icount=True)
    r = mosaiclib.run_qemu(cmd, timeout=timeout, log_path=log)
    rows = [json.loads(line[len(prefix):]) for line in r.lines if line.startswith(prefix + "{")]
    notes = [line[len(prefix):] for line in r.lines if line.startswith(prefix) and not line.startswith(prefix + "{")]
    if r.status != 0:
        msg = [f"bench-kernel: the {harts}-hart run failed (status {r.status}); see {log}"]
        msg += [f"  {json.dumps(row)}" for row in rows if row.get("kind") == "stuck"]
        msg += [f"  {n}" for n in notes]
        raise SystemExit("\n".join(msg))
    return cmd, rows


def twice(kernel, harts, timeout, logs, command, what, prefix=PREFIX, bootargs=""):
    """The same boot twice; their rows, which must be identical."""
    cmd, first = run_once(kernel, harts, timeout, logs[0], command, prefix, bootargs)
    _, second = run_once(kernel, harts, timeout, logs[1], command, prefix, bootargs)
    if first != second:
        raise SystemExit(f"bench-kernel: two -icount runs of {what} differ; figures are not repeatable (see "
                         f"{logs[0]} and {logs[1]})")
    return cmd, first


def measure(clock, kernel, harts, reps, timeout, bench_dir):
    """Every figure of one clock: bench_kernel, bench_kernel with a free NoC, bench_tasks; each booted twice."""
    clock_args = CLOCK_BOOTARGS[clock]
    name = lambda what, i: bench_dir / f"{what}-{harts}-{clock}-{i}.log"  # noqa: E731
    cmd, rows = twice(kernel, harts, timeout, [name("kernel", i) for i in (1, 2)], f"bench_kernel {reps}",
                      "bench_kernel", bootargs=clock_args)
    s = summarise(rows)
    _, free = twice(kernel, harts, timeout, [name("kernel-free-noc", i) for i in (1, 2)], f"bench_kernel {reps}",
                    "bench_kernel with a free NoC", bootargs=f"{clock_args} {FREE_NOC}".strip())
    add_free_noc(s, free)
    _, tasks = twice(kernel, harts, timeout, [name("tasks", i) for i in (1, 2)], "bench_tasks 29", "bench_tasks",
                     prefix="bench-tasks: ", bootargs=clock_args)
    s["dispatcher_experiment"] = tasks_summary(tasks)
    s["qemu"] = " ".join(cmd)
    s["repeated_identically"] = True
    return s
