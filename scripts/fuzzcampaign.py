"""One boot of a kernel-call fuzz campaign (user/fuzz.c), shared by scripts/mosaic-fuzz and
tests/test_fuzz.py: the shell records the pages in use and the mailboxes, runs one fuzz job
of several tasks per seed at once, records them again and runs the kernel's own suites;
check() says what went wrong, with a one-line reproducer per failing seed."""
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import mosaiclib

CALLS_SHIFT = 32
VERBOSE = 1 << 56
KEEP_GOING = 1 << 57
OVERSUB = 1 << 58
KTESTS = "kcall,utask,noc"
# an oversubscribed job's placement and wait mode, taken in turn by seed (docs/balancing.md)
PLACES = ("rr", "speed")
WAITS = ("yield", "sleep", "spin")


def fuzz_arg(seed, calls, verbose=False, keep_going=False, oversub=False):
    """The program's argument: seed in bits 0..31, calls per task above (user/fuzz.c)."""
    if not 0 <= seed < 1 << 32 or not 0 < calls < 1 << 24:
        raise ValueError("seed must be 0..2^32-1 and calls 1..2^24-1")
    return (seed | calls << CALLS_SHIFT | (VERBOSE if verbose else 0) | (KEEP_GOING if keep_going else 0) |
            (OVERSUB if oversub else 0))


def reproducer(seed, tasks, calls, oversub_cores=0):
    return (f"scripts/mosaic-fuzz --seed {seed} --tasks {tasks} --calls {calls}" +
            (f" --oversub {oversub_cores}" if oversub_cores else ""))


def job_command(seed, i, tasks, calls, domains, oversub_cores=0, verbose=False, keep_going=False):
    """The submit command of seed's job, the i-th of its boot. Oversubscribed: its tasks on
    oversub_cores cores, placed and waiting as the seed picks (so a seed reproduces them)."""
    arg = fuzz_arg(seed, calls, verbose, keep_going, oversub=bool(oversub_cores))
    how = (f" cores {oversub_cores} place {PLACES[seed % len(PLACES)]} wait {WAITS[seed % len(WAITS)]}"
           if oversub_cores else "")
    return f"submit fuzz {tasks} at {i % domains}{how} arg {arg}"


@dataclass
class Campaign:
    seeds: list
    tasks: int
    calls: int
    status: int = 0
    output: str = ""
    problems: list = field(default_factory=list)
    failed_seeds: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    mailboxes: bool = True  # the kernel has the `mailboxes` command: its totals are checked
    oversub_cores: int = 0  # each job's tasks time-sliced on this many cores (0: one core per task)


def has_mailboxes(kernel=mosaiclib.DEFAULT_KERNEL):
    """True if the kernel has the shell's `mailboxes` command (its symbol table says so)."""
    sym = Path(kernel).with_suffix(".sym")
    return sym.exists() and re.search(r" shcmd_mailboxes$", sym.read_text(), re.M) is not None


def boot_commands(seeds, tasks, calls, mailboxes, domains=4, verbose=False, keep_going=False, wait_s=600,
                  oversub_cores=0):
    """The shell commands of one boot: before, the jobs (spread over the micro-kernels), after.
    A boot's commands stop at the first that fails, so `mailboxes` is there only if it exists."""
    mb = ["mailboxes"] if mailboxes else []
    jobs = [job_command(s, i, tasks, calls, domains, oversub_cores, verbose, keep_going) for i, s in enumerate(seeds)]
    cmds = ";".join(["mem", *mb, *jobs, f"jobs wait {wait_s} json", "mem", *mb, f"ktest {KTESTS}"])
    if len(cmds) > 250:
        raise ValueError(f"the boot's commands are {len(cmds)} characters; a boot argument holds 255")
    return cmds


def run(seeds, tasks=4, calls=2000, harts=36, timeout=300, log_path=None, verbose=False, keep_going=False,
        echo=None, oversub_cores=0):
    """Boots, fuzzes every seed at once (one job each), powers off; returns a checked Campaign."""
    mailboxes = has_mailboxes()
    cmds = boot_commands(seeds, tasks, calls, mailboxes, verbose=verbose, keep_going=keep_going,
                         wait_s=max(30, timeout - 60), oversub_cores=oversub_cores)
    cmd = mosaiclib.qemu_command(harts=harts, bootargs=f'shell=0 cmd="{cmds}"')
    r = mosaiclib.run_qemu(cmd, timeout=timeout, log_path=log_path, echo=echo)
    c = Campaign(seeds=list(seeds), tasks=tasks, calls=calls, status=r.status, output=r.output, mailboxes=mailboxes,
                 oversub_cores=oversub_cores)
    if not mailboxes:
        c.warnings.append("the kernel has no `mailboxes` command yet: the mailboxes were not checked")
    check(c)
    return c


def _pages_in_use(output):
    """Pages in use per `mem`, less the free pages the kernel heap keeps for small objects (a
    cache that only grows: not a leak)."""
    used = [int(m) for m in re.findall(r"^pages\s+\d+ total, \d+ reserved, (\d+) in use", output, re.M)]
    kept = [int(m) for m in re.findall(r"^heap\s+\d+ objects in use, (\d+) pages kept", output, re.M)]
    return [u - k for u, k in zip(used, kept)] if len(kept) == len(used) else used


def _heap_objects(output):
    return [int(m) for m in re.findall(r"^heap\s+(\d+) objects in use", output, re.M)]


def _mailboxes(output):
    """The totals printed by each `mailboxes` command."""
    return [dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", m))
            for m in re.findall(r"^mailboxes: (kernel_slots=.*)$", output, re.M)]


def _jobs(output):
    """The job reports of the fuzz jobs, by their argument (each report is printed twice)."""
    jobs = {}
    for m in re.findall(r"^ALLOCJOB (\{.*\})$", output, re.M):
        j = json.loads(m)
        if j["program"] == "fuzz":
            jobs[j["arg"] & 0xffffffff] = j
    return jobs


def check(c):
    """Fills c.problems (the campaign failed) and c.failed_seeds from the output."""
    out = c.output
    started = {int(core): int(seed) for seed, core in
               re.findall(r"fuzz: seed (\d+) task \d+ of \d+ on core (\d+): starting", out)}
    for m in re.finditer(r"^PANIC on hart \d+ \(cpu (\d+)\): (.*)$", out, re.M):
        seed = started.get(int(m.group(1)))
        c.problems.append(f"the kernel panicked on core {m.group(1)}: {m.group(2)}" +
                          (f" (that core last ran a task of seed {seed})" if seed is not None else ""))
    if re.search(r"PANIC|panic", out) and not any("panicked" in p for p in c.problems):
        c.problems.append("the kernel panicked")
    if c.status == mosaiclib.EXIT_TIMEOUT:
        c.problems.append("timed out: the kernel hung (rerun a seed with --verbose to see its last call)")
    elif c.status != 0:
        c.problems.append(f"QEMU ended with status {c.status}")
    jobs = _jobs(out)
    for seed in c.seeds:
        j = jobs.get(seed)
        summaries = re.findall(rf"fuzz: seed {seed} task \d+ of \d+ on core \d+: .* 0 wrong answers", out)
        if j is None:
            c.problems.append(f"seed {seed}: its job never ended")
        elif j["status"] != 0 or j["exit_code"] != 0 or len(summaries) != c.tasks:
            c.problems.append(f"seed {seed}: {j['failed_tasks']} of {c.tasks} tasks killed, first exit code "
                              f"{j['exit_code']}; {len(summaries)} finished cleanly")
        else:
            continue
        c.failed_seeds.append(seed)
        for line in re.findall(rf"(fuzz: seed {seed} task \d+ call .* returned .*)$", out, re.M):
            c.problems.append("  " + line.strip())
        c.problems.append(f"  reproduce: {reproducer(seed, c.tasks, c.calls, c.oversub_cores)}")
    pages, objects, boxes = _pages_in_use(out), _heap_objects(out), _mailboxes(out)
    # the user mailboxes of oversubscribed jobs' virtual endpoints are made when one is first bound
    # and kept for the boot (drivers/noc/noc.c): one heap object each, and its pages, which
    # `mailboxes` counts
    def made(key):
        return boxes[1].get(key, 0) - boxes[0].get(key, 0) if len(boxes) >= 2 else 0

    kept_pages, kept_objects = made("endpoint_mailbox_pages"), made("endpoint_mailboxes")
    if len(pages) >= 2 and pages[1] - pages[0] != kept_pages:
        c.problems.append(f"pages in use (less the kernel heap's cache): {pages[0]} before the fuzz jobs, "
                          f"{pages[1]} after, of which {kept_pages} hold endpoint mailboxes kept for the boot")
    elif len(pages) < 2 and not c.problems:
        c.problems.append("the shell did not print `mem` twice")
    if len(objects) >= 2 and objects[1] - objects[0] != kept_objects:
        # exact since the micro-kernels' own state is made at boot (kernel/alloc/binding.c)
        c.problems.append(f"kernel heap objects in use: {objects[0]} before the fuzz jobs, {objects[1]} after, "
                          f"of which {kept_objects} endpoint mailboxes kept for the boot "
                          "(something a task left behind was not freed)")
    if boxes and any(v for k, v in boxes[-1].items() if not k.startswith("endpoint_mailbox")):
        c.problems.append(f"mailboxes after the fuzz jobs: {boxes[-1]} (all but the endpoint mailboxes kept "
                          "for the boot must be 0)")
    elif c.mailboxes and len(boxes) < 2 and not c.problems:
        c.problems.append("the shell did not print `mailboxes` before and after the jobs")
    k = re.findall(r"^ktest: (\d+) passed, (\d+) failed$", out, re.M)
    if not k or int(k[-1][1]) or not int(k[-1][0]):
        c.problems.append(f"ktest {KTESTS} after the fuzz jobs: " + (f"{k[-1][1]} failed" if k else "did not run"))
    return c
