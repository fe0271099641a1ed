"""docs/results.md from build/bench/*.json: every benchmark in one order, each run's provenance, its goals as
MET or MISSED with their numbers and clock, a few headline tables, and the benchmarks that have no run."""
import re
import subprocess
from dataclasses import dataclass

from benchalloc.record import KERNEL_SOURCES

from . import readers
from .readers import Doc, ResultsError, load

SOURCES = KERNEL_SOURCES + ["vclock"]  # what a run's figures depend on: the kernel's sources and the plugin


@dataclass
class Bench:
    name: str
    title: str
    files: tuple  # the JSON files its reader takes (the first must exist for a run to count)
    command: str
    cost: str
    reader: object
    section: str  # its section in docs/benchmarks.md


BENCHMARKS = [
    Bench("boot", "Boot time", ("boot.json", "boot.meta.json"), "make bench-boot", "about 5 minutes",
          readers.boot, "boot-time-make-bench-boot"),
    Bench("noc", "The NoC", ("noc.json",), "make bench-noc", "about 15 s", readers.noc, "the-noc-make-bench-noc"),
    Bench("kernel", "Kernel calls", ("kernel.json",), "make bench-kernel", "under 20 s", readers.kernel,
          "kernel-calls-make-bench-kernel"),
    Bench("invade", "Invasive computing", ("invade.json",), "make bench-invade", "under 20 s", readers.invade,
          "invasive-computing-make-bench-invade"),
    Bench("shm", "Shared windows", ("shm.json",), "make bench-shm", "about 30 s", readers.shm,
          "shared-windows-make-bench-shm"),
    Bench("mpi", "MPI beside Mosaic's calls", ("mpi.json",), "make bench-mpi", "about a minute", readers.mpi,
          "mpi-make-bench-mpi"),
    Bench("coll", "Collectives", ("coll.json",), "make bench-coll", "about 1.5 minutes on an idle host",
          readers.coll, "collectives-make-bench-coll"),
    Bench("balance", "Share groups and balancing", ("balance.json",), "make bench-balance", "about 10 minutes",
          readers.balance, "share-groups-make-bench-balance"),
    Bench("vtime", "Virtual time's host cost", ("vtime.json",), "make bench-vtime",
          "about 3 minutes on an idle host", readers.vtime, "virtual-times-host-cost-make-bench-vtime"),
    Bench("vtime-icount", "Virtual time's host cost under -icount", ("vtime-icount.json",),
          "scripts/bench-vtime --icount", "several minutes", readers.vtime,
          "virtual-times-host-cost-make-bench-vtime"),
    Bench("alloc", "Job allocation, virtual clock", ("alloc.json",), "make bench-alloc", "about an hour",
          readers.alloc, "job-allocation-make-bench-alloc"),
    Bench("alloc-serial", "Job allocation, serial clock", ("alloc-serial.json",),
          "scripts/bench-alloc --clock serial", "about half an hour", readers.alloc,
          "job-allocation-make-bench-alloc"),
    Bench("sim", "The protocol simulator", ("sim.json",), "make bench-sim", "up to 30 minutes", readers.sim,
          "the-simulator-make-bench-sim"),
]


def git_revision(root):
    """The tree's revision as `git describe --always --dirty` names it, or 'unknown'."""
    r = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def same_sources(root, revision):
    """Whether the kernel's and the plugin's sources at `revision` are those of the work tree: True, False, or
    None when the revision is not in this repository."""
    rev = revision.split(" ")[0].removesuffix("-dirty")
    known = subprocess.run(["git", "-C", str(root), "cat-file", "-e", rev + "^{commit}"], capture_output=True)
    if known.returncode != 0:
        return None
    diff = subprocess.run(["git", "-C", str(root), "diff", "--quiet", rev, "--", *SOURCES], capture_output=True)
    return diff.returncode == 0


def read_all(bench_dir):
    """{bench name: Run} for every benchmark whose JSON is there; ResultsError for the first bad file."""
    runs = {}
    for b in BENCHMARKS:
        paths = [bench_dir / f for f in b.files]
        if not paths[0].exists():
            continue
        for p in paths[1:]:
            if not p.exists():
                raise ResultsError(f"{p}: missing beside {paths[0].name} (run {b.command} again)")
        docs = [Doc(p, load(p)) for p in paths]
        if isinstance(docs[0].data, dict) and "failed" in docs[0].data and "sweep" in docs[0].data:
            runs[b.name] = readers.failed(docs[0])
            continue
        try:
            runs[b.name] = b.reader(*docs)
        except ResultsError:
            raise
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as e:
            raise ResultsError(f"{paths[0]}: not what {b.command} writes ({type(e).__name__}: {e})") from None
    return runs


def cell(v):
    return str(v).replace("|", "\\|").replace("\n", " ")


def table(header, rows):
    out = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return out


def provenance(run, root, bench_dir):
    i = run.info
    parts = [f"run {i['date'] or 'at a date not recorded'}"]
    parts.append(f"revision {i['revision']}" if i["revision"] else "revision not recorded in the JSON")
    if i["revision"]:
        same = same_sources(root, i["revision"])
        parts[-1] += {True: " (kernel and plugin sources as in this page's revision)",
                      False: " (**kernel or plugin sources changed since**: run it again)",
                      None: " (not in this repository)"}[same]
    if i["kernel"]:
        parts.append(f"kernel ELF sha256 {i['kernel']}...")
    if i["qemu"]:
        parts.append(i["qemu"])
    if i["command"]:
        parts.append(f"command `{i['command']}`")
    return "; ".join(parts) + f" ({', '.join(f'{shown_dir(root, bench_dir)}/{f}' for f in run.files)})."


def shown_dir(root, bench_dir):
    """The benchmarks' directory as the page names it: relative to the repository when inside it."""
    d = bench_dir.resolve()
    return str(d.relative_to(root) if d.is_relative_to(root) else d)


def render(runs, root, bench_dir, generated):
    head = git_revision(root)
    out = ["# Results", "",
           "Generated by `make results` (scripts/results) from `build/bench/*.json`; do not edit by hand. What each "
           "benchmark measures, how it runs and what its goals mean is in [benchmarks.md](benchmarks.md). The "
           "figures hold for the machine, revision and date of their run only.", "",
           f"Page written {generated} at revision {head}.", ""]
    goal_rows = [[b.title, g.name, "MET" if g.met else "MISSED", g.clock]
                 for b in BENCHMARKS if b.name in runs for g in runs[b.name].goals]
    out += ["## Goals", ""]
    out += table(["benchmark", "goal", "verdict", "clock"], goal_rows) if goal_rows else ["No goal was judged."]
    missing = [b for b in BENCHMARKS if b.name not in runs]
    out += ["", "## Without a run", ""]
    if missing:
        out += [f"No JSON of these benchmarks is in {shown_dir(root, bench_dir)}/, so this page has no figures of "
                "them:", ""]
        out += [f"- {b.title}: `{b.command}` ({b.cost}) writes build/bench/{b.files[0]}." for b in missing]
    else:
        out.append("Every benchmark has a run.")
    for b in BENCHMARKS:
        if b.name not in runs:
            continue
        run = runs[b.name]
        out += ["", f"## {b.title}", "", f"`{b.command}` ([benchmarks.md](benchmarks.md#{b.section})): "
                + provenance(run, root, bench_dir), ""]
        if run.goals:
            out += table(["goal", "verdict", "numbers", "clock"],
                         [[g.name, "**MET**" if g.met else "**MISSED**", g.numbers, g.clock] for g in run.goals])
            out.append("")
        for title, header, rows in run.tables:
            out += [f"{title}:", ""] + table(header, rows) + [""]
        out += [f"- {n}" for n in run.notes]
    text = "\n".join(out).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text) + "\n"
