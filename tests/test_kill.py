"""A kill ends its task from every wait in a kernel call, whatever its peers or children do, on both
clocks (kernel/task/utask.c utask_kill, docs/microkernel.md "CPU time and kills"): a task blocked in
job_wait on a child that never ends, in a receive, a barrier or a probe on a peer that never comes,
in a send waiting for credits the peer never gives, in a sleep, in team_wait on a member that never
ends (the member dies with its owner); and the tasks of an oversubscribed job, time-sliced in share
groups, by `kill CORE` and `kill job J`. Each ends no earlier than the kill and within
KILL_BOUND_NS of the killer's clock (the kernel prints both times). Afterwards nothing is left
behind and the in-kernel suites pass on the same cores; while the jobs run, `ktest` refuses.

The mesh is 6x4 in 3 domains; every job is placed in domain 1 or 2 (`at 1`, `at 2`), so that none
runs on the shell's core 0 (a task there runs inside the shell's own wait). A job's id is its
domain's number << 18 plus its number in the domain (`mk` and `jobs` show them)."""
import json
import re

import pytest

from test_isolation import mailbox_totals, usage

HARTS, BOOT = 24, "domains=3"
DOM1, DOM2 = 1 << 18, 2 << 18
DOM1_PICOS = (2, 3, 9, 14, 15, 20, 21)  # the pico-kernels of domains 1 and 2 on the 6x4 mesh (`mesh`)
DOM2_PICOS = (4, 5, 11, 16, 17, 22, 23)
# jobspawn's mode 6: spawn a job that never ends and wait for it (a sleeping child would not do:
# under virtual time the idle machine's clocks jump through its sleeps in no time)
NEVER = 6
# Under virtual time a waiting task ends within this of the killer's clock: the kill is noted to it
# at that time, and its clean-up is some thousands of instructions (about 10 us measured). The
# serial clock follows the host, which may be 3x loaded.
KILL_BOUND_NS = {1: 2_000_000, 0: 2_000_000_000}
KILLED = re.compile(r"^kill: .*being killed \(at (\d+) us of (virtual|serial) time\)", re.M)
# (not anchored: such a line may follow the prompt of a command still being typed)
ENDED = re.compile(r"mosaic: core (\d+): task '\w+' killed on request at (\d+) us \((virtual|serial) time\)")


def shell(boot, vtime, commands, timeout=300):
    text = "".join(c + "\r" for c in commands) + "poweroff\r"
    r = boot(harts=HARTS, batch=False, bootargs=f"{BOOT} vtime={vtime}", timeout=timeout, input_text=text)
    assert "panic" not in r.output.lower(), r.output[-3000:]
    assert r.status == 0, f"status {r.status}\n{r.output[-3000:]}"
    return r.output


# what killed cores and ending jobs print while the shell reads the next command: such a line may come
# between a prompt and the command's echo
ASYNC = re.compile(r"^(mosaic: (core \d+: task |claim \d+: member )|oversub job \d+: |SHAREJSON )")


def replies(out):
    """The output of each command typed at the prompt, in order: [(command, text)]."""
    res = []
    for part in re.split(r"^mosaic> ", out, flags=re.M)[1:]:
        lines = part.split("\n")
        k = next((i for i, line in enumerate(lines) if not ASYNC.match(line)), len(lines) - 1)
        res.append((lines[k].strip(), "\n".join(lines[:k] + lines[k + 1:])))
    return res


def reply(out, command, i=0):
    """What the i-th `command` typed answered (-1: the last)."""
    return [t for c, t in replies(out) if c == command][i]


def running_jobs(mk_text):
    """The jobs a micro-kernel's `mk` shows running."""
    return [int(j) for j in re.findall(r"^  job (\d+): running", mk_text, re.M)]


def kill_said(out, what):
    """The shell's answer to the kill of `what` ("job J" or "core C"), from anywhere in the output:
    a killed core's line may land inside the echo of the next command typed."""
    pattern = {"job": r"^kill: (?:\d+ tasks? of job {n} being killed|job {n} being killed) \(at .*$",
               "core": r"^kill: the tasks? (?:time-sliced )?on core {n} (?:are|is) being killed \(at .*$"}
    kind, n = what.split()
    m = re.search(pattern[kind].format(n=n), out, re.M)
    assert m, (what, out[-3000:])
    return m.group(0)


def kill_us(out, what):
    """The killer's clock at the kill of `what`, us."""
    return int(KILLED.search(kill_said(out, what)).group(1))


def ends_us(out, core):
    """When the tasks killed on `core` ended (on its clock, us), in order."""
    return [int(t) for c, t, _ in ENDED.findall(out) if int(c) == core]


def ended_soon(out, core, t_kill, vtime, n=1):
    """n tasks killed on `core` ended no earlier than the kill at t_kill and within the bound."""
    soon = [t for t in ends_us(out, core) if t_kill <= t <= t_kill + KILL_BOUND_NS[vtime] // 1000]
    return len(soon) >= n


def endpoint_mailboxes(text):
    """(endpoint mailboxes, their pages) from `mailboxes`."""
    m = re.search(r"endpoint_mailboxes=(\d+) endpoint_mailbox_pages=(\d+)", text)
    return int(m.group(1)), int(m.group(2))


def records(out):
    """The job records of the last `jobs json`, by job id."""
    return {j["job"]: j for j in map(json.loads, re.findall(r"^ALLOCJOB (\{.*\})$", reply(out, "jobs json"), re.M))}


@pytest.mark.parametrize("vtime", [1, 0])
def test_a_kill_ends_every_wait_at_the_killers_clock(boot, vtime):
    waits = {DOM1 + 3: "hostile 2 at 1 arg 7",  # both ranks receive; nobody sends
             DOM1 + 4: "hostile 2 at 1 arg 11",  # rank 0 at the job's barrier, rank 1 sleeps
             DOM2 + 1: "hostile 2 at 2 arg 12",  # rank 0 probes for rank 1's message, rank 1 sleeps
             DOM2 + 2: "hostile 2 at 2 arg 13",  # rank 0 sends to a rank that never receives: credits
             DOM2 + 3: "hostile 1 at 2 arg 8",  # sleeps for ever
             DOM2 + 4: "hostile 1 at 2 arg 14"}  # waits for its team, whose member sleeps for ever
    spawner, child = DOM1 + 1, DOM1 + 2
    cmds = ["mem", f"submit jobspawn 1 at 1 arg {NEVER}", "sleep 200"]  # it has spawned its child (job 2)
    cmds += [f"submit {w}" for w in waits.values()]
    cmds += ["sleep 50", "ktest kcall,utask"]  # refused: the cores are busy
    cmds += [f"kill job {j}" for j in [spawner, *waits]]
    # the jobs' records: the killed tasks' ends reach their micro-kernels at once, but one may take the
    # second end of a job late (up to 5 ms of virtual time, 100 ms and more of the serial clock)
    cmds += ["jobs wait 30", "mk 1", "mk 2", "jobs json", "vtime", f"kill job {child}", "sleep 500", "kill job 77",
             "mailboxes", "mem", "ktest kcall,utask", "mk 1"]
    out = shell(boot, vtime, cmds)
    busy = reply(out, "ktest kcall,utask")
    assert re.search(r"^ktest: cannot run: busy core\(s\)( \d+)+ \(a user task or job runs there", busy, re.M), busy
    assert "ktest: 0 passed, 1 failed (none run)" in busy
    jobs = records(out)
    for job in [spawner, *waits]:
        t_kill = kill_us(out, f"job {job}")
        rec = jobs.get(job)
        assert rec and rec["status"] == 1 and rec["failed_tasks"] == rec["ntasks"], (job, rec, out[-4000:])
        # every task ended no earlier than the kill, and soon after it: not when the child or the peer moves
        for core in rec["cores"]:
            assert ended_soon(out, core, t_kill, vtime), (job, core, t_kill, ends_us(out, core))
    if vtime:
        # causality: no message of a killed task reached a core whose clock had passed its arrival (a
        # task killed in its wait used to end at its wait's start, before the kill was made)
        assert re.search(r"^vtime: late=0 late_ns=0$", reply(out, "vtime"), re.M), reply(out, "vtime")
    # the child never ends by itself: it still ran when its spawner had gone, until it was killed too
    assert running_jobs(reply(out, "mk 1")) == [child], reply(out, "mk 1")
    assert running_jobs(reply(out, "mk 2")) == [], reply(out, "mk 2")
    assert kill_said(out, f"job {child}").startswith(f"kill: 1 task of job {child} being killed")
    assert len(ENDED.findall(out)) == 13, ENDED.findall(out)  # the tasks, the team's member and the child
    assert re.search(r"mosaic: claim \d+: member 0 on core \d+ was killed; reported to its owner", out)
    assert "hostile: mode" not in out and "jobspawn: hang" not in out  # no wait returned
    assert re.search(r"^kill: no such job: no task of job 77 runs", out, re.M)
    assert running_jobs(reply(out, "mk 1", -1)) == [], reply(out, "mk 1", -1)
    # the cores came back clean
    assert mailbox_totals(reply(out, "mailboxes")) == (0, 0, 0, 0)
    before, after = [usage(t) for c, t in replies(out) if c == "mem"]
    assert after == before, (before, after)
    assert re.search(r"^ktest: \d+ passed, 0 failed$", out, re.M), out[-3000:]


# (not anchored, as ENDED)
RANK = re.compile(r"oversub job (\d+): rank (\d+) core (\d+)->(\d+) (exited|killed|not started) (-?\d+) ")


@pytest.mark.parametrize("vtime", [1, 0])
def test_kills_reach_every_task_of_an_oversubscribed_job(boot, vtime):
    """Two jobs of 14 tasks on 7 cores each: in domain 1 every rank blocks in a receive (spinning
    waits, the speed balancer moving tasks), in domain 2 rank 0 waits at the job's barrier while the
    others sleep (sleeping waits). `kill CORE` kills the tasks time-sliced on one core, those in a
    message wait switched out included, and the job runs on; `kill job J` then kills all the rest,
    wherever they wait or have moved, and both jobs end."""
    core = DOM1_PICOS[2]
    # a first pair of jobs of the same shape (each task naps 100 ms) makes the endpoints' mailboxes (kept
    # for the boot): measure after it
    cmds = [f"submit jobspawn 14 at {d} cores 7 arg {5 | 100 << 8}" for d in (1, 2)]
    cmds += ["jobs wait 60", "sleep 50", "mem", "mailboxes",
             "submit hostile 14 at 1 cores 7 place speed wait spin arg 7",
             "submit hostile 14 at 2 cores 7 place rr wait sleep arg 11", "sleep 100", f"kill {core}", "sleep 100",
             "mk 1", f"kill job {DOM1 + 2}", f"kill job {DOM2 + 2}", "jobs wait 30", "mk 1", "mk 2", "jobs json",
             "mailboxes", "mem", "ktest kcall,utask"]
    out = shell(boot, vtime, cmds)
    assert kill_said(out, f"core {core}").startswith(f"kill: the tasks time-sliced on core {core} are being killed")
    t_core = kill_us(out, f"core {core}")
    assert ended_soon(out, core, t_core, vtime), (t_core, ends_us(out, core))  # (the balancer moves tasks)
    # the job still runs after the first kill (its other tasks wait on), and ends with the second
    assert running_jobs(reply(out, "mk 1")) == [DOM1 + 2], reply(out, "mk 1")
    for job in (DOM1 + 2, DOM2 + 2):
        said = kill_said(out, f"job {job}")
        assert re.search(rf"^kill: job {job} being killed \(at \d+ us of \w+ time\): "
                         r"its tasks on 7 cores, 7 time-sliced$", said, re.M), said
    assert running_jobs(reply(out, "mk 1", -1)) == [] and running_jobs(reply(out, "mk 2")) == [], out[-3000:]
    ranks = RANK.findall(out)
    for job in (DOM1 + 2, DOM2 + 2):
        mine = [r for r in ranks if int(r[0]) == job]
        assert sorted(int(r[1]) for r in mine) == list(range(14)), (job, mine)
        assert all(r[4] == "killed" and r[5] == "-14" for r in mine), mine
    jobs = records(out)
    for job, picos in ((DOM1 + 2, DOM1_PICOS), (DOM2 + 2, DOM2_PICOS)):
        t_kill = kill_us(out, f"job {job}")
        assert jobs[job]["failed_tasks"] == 14, jobs[job]
        # every task of the job's kill ended within the bound, wherever it waited or had moved to
        late = [(c, t) for c in picos for t in ends_us(out, c) if t > t_kill + KILL_BOUND_NS[vtime] // 1000]
        assert not late, (job, t_kill, late)
    assert len(ENDED.findall(out)) == 28, ENDED.findall(out)  # each task once
    assert mailbox_totals(reply(out, "mailboxes", -1)) == (0, 0, 0, 0)
    before, after = [usage(t) for c, t in replies(out) if c == "mem"]
    # what may stay is the endpoints' mailboxes, kept for the boot: under virtual time the warm-up
    # jobs may have run one after the other (their naps are jumps), and then made only half
    made, pages = [b - a for a, b in zip(*(endpoint_mailboxes(t) for c, t in replies(out) if c == "mailboxes"))]
    assert (after[0] - before[0], after[1] - before[1]) == (pages, made), (before, after, made, pages)
    assert re.search(r"^ktest: \d+ passed, 0 failed$", out, re.M), out[-3000:]
