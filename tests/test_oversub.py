"""Oversubscribed jobs (submit PROGRAM N cores C, kernel/alloc/oversub.c, drivers/noc/noc_ep.c): the
real programs, which check themselves (the stencil against a serial run, coll every collective in
both modes with every algorithm), give correct results with more tasks than cores under every
placement and wait mode; every rank ends exactly once and every move is counted once; bad input is
refused with its own error and disturbs nothing; what the jobs held comes back."""
import json
import re

import pytest

from test_shm import pages_in_use

BOOT = "domains=1 share_slice_us=500 share_balance_us=2000"
JOB_ROW = re.compile(r"^ +\d+ +\d+ +(\d+) +\d+ +\S+ +\S+ +\d+ +\d+ +(\d+) ", re.M)  # tag, run_us of `jobs`
RANK = re.compile(r"^oversub job (\d+): rank (\d+) core (\d+)->(\d+) (exited|killed|not started) (-?\d+) ", re.M)


def parts(output):
    return [json.loads(m) for m in re.findall(r"^SHAREJSON (\{.*\"who\":\"oversub.*\})$", output, re.M)]


def run_jobs(boot, harts, jobs, vtime=1, extra="", after=""):
    """Boots once and submits the jobs at once (the allocator runs them as cores come free; job
    ids follow the order of submission), then runs the commands `after`; returns the boot's result."""
    cmds = ";".join(f"submit {j}" for j in jobs) + ";jobs wait 200" + (f";{after}" if after else "")
    r = boot(harts=harts, bootargs=f'{BOOT} vtime={vtime} {extra} cmd="{cmds}"', timeout=300)
    assert r.status == 0, r.output[-3000:]
    return r


def check_job(output, program, ntasks, ncores, place, wait, job):
    """The job's program said ok, each rank ended once with 0, the moves add up, pinned never moves."""
    assert re.search(rf"^\[core \d+\] {program}: {ntasks} (tasks|cores), .*(ok|correct)$", output, re.M), output[-3000:]
    ranks = [int(m[1]) for m in RANK.findall(output) if int(m[0]) == job]
    assert sorted(ranks) == list(range(ntasks)), (job, ranks)
    assert all(m[4] == "exited" and m[5] == "0" for m in RANK.findall(output) if int(m[0]) == job)
    (p,) = [p for p in parts(output) if p["who"] == f"oversub job {job}"]
    assert (p["ntasks"], p["ncores"], p["place"], p["wait"], p["ok"]) == (ntasks, ncores, place, wait, True)
    assert p["migrations"] == p["task_moves"]
    if place == "pinned":
        assert p["migrations"] == 0
    if p["clock"] == "virtual":
        # the job ends when its part does: its cores report the end at the clock they learnt of
        # it (they used to wait for nothing and report seconds of virtual time late, when their
        # micro-kernel had jumped to its next periodic task)
        run_us = {int(tag): int(us) for tag, us in JOB_ROW.findall(output)}[job]  # (the table may be printed twice)
        assert run_us * 1000 < p["run_ns"] + 2_000_000, (job, run_us, p["run_ns"])
    return p


MODES = [(p, w) for p in ("pinned", "rr", "speed") for w in ("spin", "yield", "sleep")]


@pytest.mark.parametrize("program", ["stencil", "coll"])
def test_twelve_tasks_on_eight_cores_under_every_mode(boot, program):
    for chunk in (MODES[:5], MODES[5:]):
        jobs = [f"{program} 12 cores 8 place {p} wait {w}" for p, w in chunk]
        r = run_jobs(boot, 12, jobs)
        for i, (p, w) in enumerate(chunk):
            check_job(r.output, program, 12, 8, p, w, i + 1)


@pytest.mark.parametrize("vtime", [0, 1])
def test_many_moves(boot, vtime):
    """Round-robin with spinning, and a long run with hundreds of moves, on both clocks. Under
    virtual time both used to stop: a pico-kernel left with no task of the job kept the arrival
    of a message to a task that had moved away as its next event, and held every other core
    back (docs/time.md, "Hand-overs that are not for the wait")."""
    # moves inside message waits (share_move_in_wait, on by default) on both clocks: on the serial
    # clock they used to hang round-robin with spin in about 1 boot of 8 under host load, a send
    # telling the core its destination had just left (docs/balancing.md)
    r = run_jobs(boot, 20, ["coll 12 cores 8 place rr wait spin", "stencil 20 cores 16 place rr wait sleep arg 300"],
                 vtime=vtime)
    coll = check_job(r.output, "coll", 12, 8, "rr", "spin", 1)
    assert coll["migrations"] > 0 and coll["moves_in_wait"] > 0, coll
    stencil = check_job(r.output, "stencil", 20, 16, "rr", "sleep", 2)
    # a rank of the stencil is nearly always in a message wait: it moves from there, and the rod
    # it computes is still exact (the program checks it against a serial run)
    assert stencil["moves_in_wait"] > 0, stencil


def test_moves_only_at_the_user_edge_when_asked(boot):
    """share_move_in_wait=0 keeps every task where it is while it waits for a message: moves happen
    only at the U-mode edge, and the job still ends exactly."""
    r = run_jobs(boot, 20, ["stencil 20 cores 16 place rr wait sleep arg 300"], vtime=0, extra="share_move_in_wait=0")
    assert check_job(r.output, "stencil", 20, 16, "rr", "sleep", 1)["moves_in_wait"] == 0


@pytest.mark.parametrize("vtime", [0, 1])
def test_twenty_tasks_on_sixteen_cores(boot, vtime):
    """Three jobs of 20 tasks on 16 cores; the monitors of the speed balancer talk by NoC messages
    (their records, requests and the tasks they hand over), and none is left behind: after the jobs
    (and a short sleep for records still in flight, which the idle cores then drop) every mailbox and
    unhandled queue is empty."""
    r = run_jobs(boot, 20, ["stencil 20 cores 16 place speed wait yield", "ring 20 cores 16 place rr wait yield",
                            "compute 20 cores 16 place speed wait sleep"], vtime=vtime, after="sleep 20;mailboxes")
    sent = []
    for job, (program, place, wait) in enumerate([("stencil", "speed", "yield"), ("ring", "rr", "yield"),
                                                  ("compute", "speed", "sleep")], 1):
        p = check_job(r.output, program, 20, 16, place, wait, job)
        sent.append(p["balance_messages"])
    assert sent[2] > 0, sent  # compute runs for many balance periods (the stencil's 20 iterations may not)
    assert "mailboxes: kernel_slots=0 user_slots=0 unhandled=0 held_bytes=0" in r.output, r.output[-3000:]


def test_bad_oversubscribed_jobs_are_refused_and_disturb_nothing(boot):
    bad = [("stencil 12 cores 0", r"submit: cores C must be 1\.\.NTASKS \(12\)"),
           ("stencil 4 cores 8", r"submit: cores C must be 1\.\.NTASKS \(4\)"),
           ("stencil 12 cores 8 place fast", r"submit: unknown place 'fast' \(pinned, rr or speed\)"),
           ("stencil 12 cores 8 wait nap", r"submit: unknown wait 'nap' \(spin, yield or sleep\)"),
           ("stencil 65 cores 9", r"submit: refused: 65 tasks on 9 cores: an oversubscribed job runs at most 64"),
           ("stencil 40 cores 4", r"submit: refused: 40 tasks on 4 cores: .* 8 per core"),
           ("stencil 40 cores 12", r"submit: refused: 12 cores is more than the machine has \(11\)")]
    # a first job of as many tasks makes the endpoints' mailboxes (kept for the boot): measure after it
    cmds = ";".join(["submit stencil 5 cores 2", "jobs wait 60", "mem"] + [f"submit {b}" for b, _ in bad] +
                    ["submit coll 5 cores 2 place speed wait sleep", "jobs wait 60", "mem", "jobs"])
    r = boot(harts=12, bootargs=f"{BOOT} vtime=1 shell=1", batch=False,
             input_text=cmds.replace(";", "\r") + "\rpoweroff 0\r", timeout=300)
    for _, why in bad:
        assert re.search(why, r.output), (why, r.output[-3000:])
    check_job(r.output, "stencil", 5, 2, "pinned", "spin", 1)
    check_job(r.output, "coll", 5, 2, "speed", "sleep", 2)  # the refusals took no tag and no endpoint
    assert "jobs: 2 ended, 0 still in the system" in r.output
    before, after = pages_in_use(r.output)
    assert after == before, (before, after)


def test_a_partial_simulation_takes_no_cores_option(boot):
    r = boot(harts=4, bootargs='partial_sim=4 cmd="submit sim 8 time 100 cores 2"', timeout=60)
    assert "submit: refused: cores C is for real tasks" in r.output, r.output[-2000:]
