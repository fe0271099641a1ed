"""The experiment's fixed setup: paths, the thesis's figures and numbers, and the constants every module shares.

Why a module of its own: the plan, the runs, the statistics and the page all name the same meshes, policies and
thesis numbers, and one place keeps them from drifting apart.
"""
import mosaiclib

ROOT = mosaiclib.ROOT
BENCH = ROOT / "build" / "bench"
DOC = ROOT / "docs" / "experiments.md"
THESIS = "Distributed Job Allocation for Large-Scale Many-cores"

VCORES = 8            # partial_sim=8: each micro-kernel manages 8 virtual cores
REALTASK_HARTS = 36   # the default layout: 4 domains of 1 micro-kernel + 8 pico-kernels
# Real-task machines of Figs. 5.4 and 5.5: (W, H, domains), every domain the thesis's 3x3 tile of one micro-kernel
# and 8 pico-kernels. 6x6 is the thesis's; 12x9 = 108 harts is the largest such mesh within 128 harts.
REALTASK_MESHES = ((6, 6, 4), (12, 9, 12))
GUEST_TIMEOUT_S = 300  # scenario ... timeout S: guest seconds per run before the kernel gives up
POLICIES = ("ac", "ab")
SCHEMES = ("naive", "flood", "fixed", "adaptive")
CMD_MAX = 255         # a boot argument's value is at most 255 characters
ICOUNT_NOTE = ("QEMU -icount shift=0,align=off,sleep=off: 1 guest instruction = 1 ns of guest time, idle time "
               "is skipped, and every time is exact guest time (a boot repeats bit for bit). QEMU runs the "
               "harts one at a time (round robin), so the micro-kernels' software costs add up instead of "
               "overlapping as they would on parallel hardware: a protocol that keeps many micro-kernels busy "
               "at once pays for all of them in sequence (docs/noc.md, docs/benchmarks.md).")
VIRTUAL_NOTE = ("QEMU -icount shift=0,align=off,sleep=off with vtime=1 (conservative synchronisation): every core "
                "keeps its own clock, 1 ns per instruction it executes plus the time it skips while it waits for "
                "an event (docs/time.md), so the micro-kernels' software costs overlap as they would on parallel "
                "hardware and messages take the NoC model's time between them; a boot still repeats bit for bit.")


def clock_note(clock):
    """How the times of a run on `clock` ('serial' or 'virtual') come about: printed, and kept in alloc.json."""
    return VIRTUAL_NOTE if clock == "virtual" else ICOUNT_NOTE

# Fig. 5.1's panels: the thesis's K on 7x7 (micro-kernels' worth of cores per job) and run time.
PARALLEL_RUN_US = 2000000  # jobs meant to run side by side (5.1a, 5.1b, 5.2): longer than any wait (see PROBES)
FIG51 = [("a", 3, PARALLEL_RUN_US, "3 micro-kernels"), ("b", 12, PARALLEL_RUN_US, "12 micro-kernels"),
         ("c", 24, 1000, "24 micro-kernels (short runs)"), ("d", 49, 1000, "49 micro-kernels (short runs)"),
         ("e", 24, 500000, "24 micro-kernels (long runs)"), ("f", 49, 500000, "49 micro-kernels (long runs)")]
# Configurations that used to crash the kernel, booted on every full run to check it stays fixed (their logs
# stay in build/bench/logs/): under ab, a job that ended while the sequencer's protocol messages for it were
# still on their way made its home fail ASSERT(j) in mk_commit (portable/alloc/mk.c; fixed in 19f3d2e). The
# thesis gives no run time for Figs. 5.1a, 5.1b and 5.2, whose jobs run side by side; with 1 ms runs they hit
# it, so those figures use PARALLEL_RUN_US.
PROBES = [("5.1a", 7, "corners 3 1000"), ("5.2", 7, "simul 7 7 1000")]
# Fig. 5.3's points as shares of the micro-kernels (plus n = 1, 2, 4)
FIG53_FRACTIONS = (1 / 16, 1 / 8, 3 / 16, 1 / 4, 5 / 16, 3 / 8, 1 / 2, 5 / 8, 3 / 4, 7 / 8, 1)
THESIS_FIGURES = {
    "5.1": "Micro-benchmark: overhead for sparse job allocations (four corners of 7x7)",
    "5.2": "Micro-benchmark: job allocations as tile size increases",
    "5.3": "Micro-benchmark: worst-case conflict resolution time for n simultaneous job submissions",
    "5.4": "Real task mode: parallel job allocations",
    "5.5": "Real task mode: serial job allocations",
    "5.6": "Comparison of different request propagation schemes",
}
# What the thesis reports, for the tables of docs/experiments.md (relative change of ac, %).
THESIS_NUMBERS = {
    "5.1a": {"change_pct": [23, 76, 83, 83]},
    "5.1b": {"change_pct": [21, 58, 73, 48], "rsd_max_pct": 41},
    "5.1c": {"change_pct": [-17, -12, -7, -4]},
    "5.1d": {"change_pct": [-12, -4, None, -1]},
    "5.1e": {"change_pct": [-17, -13, -0.04, -0.04]},
    "5.1f": {"change_pct": [-12, -0.03, -0.03, -0.03]},
}
