"""Isolation against hostile user programs (issue: no kernel writes, no messages from dead
tasks, bounded kernel memory, killable runaways). Each test drives user/hostile.c through
the shell and checks the kernel's state afterwards: heap objects and pages in use (`mem`),
mailbox slots and unhandled messages (`mailboxes`), and that the in-kernel suites still pass.
"""
import re

HARTS = 36  # the default 6x6 mesh: 4 domains, micro-kernels on cores 7, 10, 25 and 28
MASTER = 7  # domain 0's micro-kernel


def shell(boot, commands, bootargs="", timeout=240, **kw):
    """Types the commands into an interactive shell, then powers off; returns the output."""
    text = "".join(c + "\r" for c in commands) + "poweroff\r"
    r = boot(harts=HARTS, batch=False, bootargs=bootargs, timeout=timeout, input_text=text, **kw)
    assert "panic" not in r.output.lower(), r.output[-3000:]
    assert r.status == 0, f"status {r.status}\n{r.output[-3000:]}"
    return r.output


def replies(output):
    """The output of each command typed at the prompt, in order: [(command, text)]."""
    parts = re.split(r"^mosaic> ", output, flags=re.M)[1:]
    return [(p.split("\n", 1)[0].strip(), p.split("\n", 1)[1] if "\n" in p else "") for p in parts]


def usage(text):
    """(pages in use apart from those the heap keeps for small objects, heap objects) from `mem`.
    Pages carved into the heap's size classes stay with it for good, so they are taken out."""
    pages = int(re.search(r"^pages .* (\d+) in use", text, re.M).group(1))
    m = re.search(r"^heap\s+(\d+) objects in use, (\d+) pages kept for small objects", text, re.M)
    return pages - int(m.group(2)), int(m.group(1))


def mailbox_totals(text):
    m = re.search(r"^mailboxes: kernel_slots=(\d+) user_slots=(\d+) unhandled=(\d+) held_bytes=(\d+)", text, re.M)
    assert m, text
    return tuple(map(int, m.groups()))


def memory_after(out, cmds):
    """The `mem` figures after each `mem` command, in order."""
    return [usage(text) for cmd, text in replies(out) if cmd == "mem"]


def test_claim_with_a_wrapping_capacity_cannot_write_the_kernel(boot):
    """claim (68) with capacity 1<<63 and a kernel address used to pass its check (the length
    wrapped to 0) and copy into kernel memory: now every wrapped count is refused."""
    out = shell(boot, ["programs", "run hostile 1 core 1", "programs"])
    assert "[core 1] hostile: mode 1: 0 checks failed" in out, out[-3000:]
    assert "task hostile on core 1 exited with 0" in out
    listings = [text for cmd, text in replies(out) if cmd == "programs"]
    assert listings[0] == listings[1], "the program table changed"


def test_a_dead_tasks_messages_reach_no_later_task(boot):
    """A task sends to core 1 and exits; the next task on core 1 sees nothing of it, the user
    channel leaves no slot taken, and the kernel's own ping-pong on core 1 still runs."""
    out = shell(boot, ["run hostile 1002 core 2", "mailboxes", "run hostile 3 core 1", "mailboxes",
                       "run hostile 1002 core 2", "ktest noc"], timeout=300, icount=True)  # exact NoC timing
    assert "[core 2] hostile: mode 2: 0 checks failed" in out
    assert "[core 1] hostile: mode 3: 0 checks failed" in out, out[-3000:]
    for cmd, text in replies(out):
        if cmd == "mailboxes":
            assert mailbox_totals(text) == (0, 0, 0, 0), text
    assert re.search(r"^ktest: \d+ passed, 0 failed$", out, re.M), out[-3000:]


def test_messages_to_a_micro_kernel_are_not_kept(boot):
    """300 blocking 64 KiB sends to a micro-kernel used to pile up in its unhandled queue for
    ever (5,000 pages); now nothing is kept: heap objects back to the same count, pages
    steady after a first run, and forwarded calls still answered."""
    cmds = ["mem", f"run hostile {MASTER * 1000 + 4} core 1", "mem", f"run hostile {MASTER * 1000 + 4} core 1",
            "mem", "mailboxes", "ktest kcall"]
    out = shell(boot, cmds, timeout=300)
    assert out.count("hostile: mode 4: 0 checks failed") == 2, out[-3000:]
    (pages0, objs0), (pages1, objs1), (pages2, objs2) = memory_after(out, cmds)
    assert objs1 == objs0 and objs2 == objs0, f"heap objects {objs0} -> {objs1} -> {objs2}"
    assert pages0 == pages1 == pages2, f"pages in use {pages0} -> {pages1} -> {pages2}"
    assert mailbox_totals(dict(replies(out))["mailboxes"]) == (0, 0, 0, 0)
    assert re.search(r"^ktest: \d+ passed, 0 failed$", out, re.M), out[-3000:]


def test_runaway_tasks_are_killed_and_the_core_comes_back_clean(boot):
    """Spinning (with and without kernel calls), blocking in recv, sleeping for ever and
    waiting for a spinning team: each is killed at its CPU-time limit; afterwards the
    kernel's own suites pass on the same cores and nothing is left behind."""
    cmds = ["run hostile 7 core 1 cpu 300", "run fault 0 core 1", "mem"]  # warm-up: pages the heap keeps
    for mode in (5, 6, 7, 8, 9):
        cmds.append(f"run hostile {mode} core 1 cpu 300")
    cmds += [f"run fault {kind} core 1" for kind in range(7)]  # faults leave nothing behind either
    cmds += ["mem", "mailboxes", "ktest kcall,utask"]
    out = shell(boot, cmds, timeout=400)
    killed = re.findall(r"^mosaic: core 1: task 'hostile' killed: CPU-time limit of 300 ms reached$", out, re.M)
    assert len(killed) == 6, out[-4000:]
    assert out.count("mosaic: task hostile on core 1 was killed") == 6
    # mode 9's member (on another core) dies with its owner
    assert re.search(r"task 'hostile' killed on request", out), out[-4000:]
    (pages0, objs0), (pages1, objs1) = memory_after(out, cmds)
    assert objs1 == objs0, f"heap objects {objs0} -> {objs1}"
    assert pages1 == pages0, f"pages in use {pages0} -> {pages1}"
    assert mailbox_totals(dict(replies(out))["mailboxes"]) == (0, 0, 0, 0)
    assert re.search(r"^ktest: \d+ passed, 0 failed$", out, re.M), out[-4000:]


def test_kill_command_and_kill_call(boot):
    """`kill job J` ends a job whose tasks spin; `kill CORE` refuses an idle core; a team's
    owner kills its member with mosaic_kill and sees it reported killed."""
    cmds = ["submit hostile 3 arg 5", "sleep 100", "kill job 1", "jobs wait 20", "kill 1", "kill job 99",
            "run hostile 3010 core 1", "mailboxes", "ktest utask"]
    out = shell(boot, cmds, timeout=400)
    assert "kill: 3 tasks of job 1 being killed" in out, out[-3000:]
    assert len(re.findall(r"task 'hostile' killed on request", out)) >= 4, out[-3000:]
    assert re.search(r"^\s+1\s+0\s+1\s+3 hostile .* 3 tasks failed", out, re.M), out[-3000:]
    assert "jobs: 1 ended, 0 still in the system" in out
    assert "kill: no user task runs on that core" in out
    assert "kill: no such job: no task of job 99 runs" in out
    assert "[core 1] hostile: mode 10: 0 checks failed" in out, out[-3000:]
    assert mailbox_totals(dict(replies(out))["mailboxes"]) == (0, 0, 0, 0)
    assert re.search(r"^ktest: \d+ passed, 0 failed$", out, re.M), out[-3000:]


def test_bad_cpu_limits_are_refused(boot):
    out = shell(boot, ["run hostile 5 core 1 cpu 0", "run hostile 5 cpu", "submit hostile 1 cpu 0"])
    assert out.count("usage: run PROGRAM") == 2, out[-2000:]
    assert "run: cpu MS must be 1..86400000" in out
    assert "usage: submit PROGRAM" in out


def test_no_task_sees_another_task_s_fp_registers(boot):
    """user/fpu.c: a job whose tasks filled every FP register and fcsr with garbage is killed; the next
    job, on the same cores, and the members of teams (i-lets and fresh instances, each team on the
    cores the one before left garbage on) must all start with f0..f31 and fcsr zeroed, and keep their
    own patterns across their kernel calls."""
    cmds = ["submit fpu 3 arg 3", "sleep 100", "kill job 1", "jobs wait 20", "submit fpu 3 arg 1", "jobs wait 20",
            "run fpu 3004 core 1", "run fpu 3004 core 1", "run fpu 3005 core 1", "run fpu 3005 core 1"]
    out = shell(boot, cmds, timeout=300)
    assert "kill: 3 tasks of job 1 being killed" in out, out[-3000:]
    killed = re.search(r"^\s+1\s+0\s+1\s+3 fpu .* 3 tasks failed \(exit -14\); ([\d,]+)$", out, re.M)
    clean = re.search(r"^\s+2\s+0\s+2\s+3 fpu .* ok; ([\d,]+)$", out, re.M)
    assert killed and clean and killed.group(1) == clean.group(1), out[-3000:]  # the same cores
    assert len(re.findall(r"^\[core \d+\] fpu: alone: ok$", out, re.M)) == 3, out[-3000:]
    teams = re.findall(r"^\[core 1\] fpu: team of 3 \((i-lets|isolated)\) on cores ([\d ]+): ok$", out, re.M)
    assert [kind for kind, _ in teams] == ["i-lets", "i-lets", "isolated", "isolated"], out[-3000:]
    assert len({cores for _, cores in teams}) == 1, teams  # every team on the cores its predecessor left
    assert not re.search(r"^\[core \d+\] fpu: .*expected", out, re.M), out[-3000:]
    assert len(re.findall(r"^mosaic: task fpu on core 1 exited with 0$", out, re.M)) == 4, out[-3000:]
