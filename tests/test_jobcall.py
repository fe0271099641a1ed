"""The kernel-call form of job submission (KC_JOB_SPAWN 48, KC_JOB_WAIT 49; kernel/alloc/user_job.c):
a task spawns jobs and collects their reports (user/jobspawn.c checks each); every bad argument gets
its own error and disturbs nothing; a task that exits or is killed with jobs outstanding loses nothing
and leaks nothing (their reports are thrown away at its core, and a later task there never sees them);
a task time-sliced with others is refused."""
import json
import re

from test_isolation import mailbox_totals
from test_shm import pages_in_use

BOOT = "domains=1 vtime=1"
LEAVE, WAIT, SLICED = 2, 3, 4


def nap(mode, ms):
    return mode | ms << 8


def shell(boot, cmds, harts=12):
    r = boot(harts=harts, bootargs=f'{BOOT} cmd="{";".join(cmds)}"', timeout=60)
    assert r.status == 0, r.output[-3000:]
    return r.output


def jobs(output):
    """The shell's jobs as JSON (jobs json), by tag."""
    return {j["tag"]: j for j in map(json.loads, re.findall(r"^ALLOCJOB (\{.*\})$", output, re.M))}


def test_a_task_spawns_jobs_and_collects_every_report(boot):
    # the first run makes the stencil's endpoint mailboxes (kept for the boot): measure after it
    out = shell(boot, ["submit jobspawn 1 arg 0", "jobs wait 30", "mem", "submit jobspawn 1 arg 0",
                       "submit jobspawn 1 arg 1", "jobs wait 30", "mailboxes", "mem"])
    assert len(re.findall(r"^\[core \d+\] jobspawn: work ok$", out, re.M)) == 2, out[-3000:]
    assert re.search(r"^\[core \d+\] jobspawn: bad ok$", out, re.M), out[-3000:]
    assert "FAILED" not in out and "returned" not in out.replace("jobspawn: handle", "")
    # the fault job's report says it failed, with the kill's status; ring and stencil ended well
    assert len(re.findall(r"jobspawn: handle \d+ job \d+ ntasks 1 status 1 failed 1 exit -14 ", out)) == 2
    assert len(re.findall(r"jobspawn: handle \d+ job \d+ ntasks 6 status 0 failed 0 exit 0 ", out)) == 2
    assert len(re.findall(r"^oversub job \d+: rank \d+ core \d+->\d+ exited 0 ", out, re.M)) == 12
    assert mailbox_totals(out) == (0, 0, 0, 0)
    before, after = pages_in_use(out)
    assert after == before, (before, after)


def test_reports_of_an_ended_task_are_thrown_away(boot):
    """A task leaves a 300 ms job behind; the next task on its core spawns and collects its own
    jobs meanwhile and never sees the orphan; a task killed while it waits leaves one too. At the
    end nothing is held: every report was taken, every page is back."""
    out = shell(boot, ["submit jobspawn 1 arg 0", "jobs wait 30", "mem",
                       f"submit jobspawn 1 arg {nap(LEAVE, 300)}", "jobs wait 30",
                       "submit jobspawn 1 arg 0", "jobs wait 30",
                       f"submit jobspawn 1 arg {nap(WAIT, 2000)}", "sleep 50", "kill job 11", "jobs wait 30",
                       "sleep 2500", "mailboxes", "mem", "jobs json"])
    j = jobs(out)
    assert len(j) == 4, out[-3000:]
    assert j[2]["cores"] == j[3]["cores"], (j[2], j[3])  # the same core: the orphan came to it
    assert len(re.findall(r"^\[core \d+\] jobspawn: work ok$", out, re.M)) == 2, out[-3000:]
    assert re.search(r"^\[core \d+\] jobspawn: leave ok$", out, re.M)
    assert j[4]["job"] == 11 and j[4]["status"] == 1, (j[4], out[-3000:])  # killed in its wait
    assert re.search(r"task 'jobspawn' killed on request", out)
    assert "jobspawn: wait" not in out  # it never got past its wait
    assert mailbox_totals(out) == (0, 0, 0, 0)
    before, after = pages_in_use(out)
    assert after == before, (before, after)


def test_a_time_sliced_task_cannot_spawn(boot):
    out = shell(boot, [f"submit jobspawn 3 cores 1 arg {SLICED}", "jobs wait 30"])
    assert len(re.findall(r"^\[core \d+\] jobspawn: sliced ok$", out, re.M)) == 3, out[-3000:]
