"""The shell stays responsive whatever user tasks do (docs/usage.md, "The shell"): a foreground `run` of a task
that spins is killed by Ctrl-C or by `kill` typed meanwhile, goes to the background with Ctrl-Z or
starts there with `&`, and the commands that never wait (`tasks`, `mk`, `jobs`, `kill`) answer while
a spinning job holds 16 cores, the shell's own among them (a job's task on the shell's core used to
hold the shell until its CPU-time limit, 80 s of host time), and while the task on the shell's core
waits inside a kernel call (a barrier, a receive, a job wait) for a peer or a child that never comes.
One boot per clock batches every check; the host-time bounds are generous (the host's QEMU runs the
spinning harts in turn), far under 80 s."""
import re

import pytest

CTRL_C, CTRL_Z = "\x03", "\x1a"

# (line to wait for, or seconds to wait, text to type); None: type at once
STEPS = [
    (None, "share hostile 4 5 cores 2\r"),  # a share group in the foreground: Ctrl-C kills all its tasks
    (r"^(mosaic> )?share hostile 4 5 cores 2$", ""),
    (1, CTRL_C),
    (r"^share: 4 tasks on 2 cores", "run hostile 5 core 3\r"),
    (r"^(mosaic> )?run hostile 5 core 3$", CTRL_Z),  # the foreground run to the background
    (r"run: task hostile on core 3 goes on in the background", "tasks\r"),
    (r"^total: ", "kill 3\r"),  # at once: the kill waits for the task to be loaded
    (r"mosaic: task hostile on core 3 was killed", "run hostile 5\r"),  # on a default core, not the shell's
    (r"^(mosaic> )?run hostile 5$", ""),
    (1, CTRL_C),
    (r"mosaic: task hostile on core \d+ was killed", "run hostile 5 core 4\r"),
    (r"^(mosaic> )?run hostile 5 core 4$", "harts\r"),  # typed during the run: echoed, runs after it
    (r"^harts$", CTRL_C),
    (r"mosaic: task hostile on core 4 was killed", "run hostile 5 core 5 &\r"),
    (r"^run: task hostile started on core 5 in the background", "kill 5\r"),
    (r"mosaic: task hostile on core 5 was killed", "run hello core 200\r"),
    (r"^run: there is no core 200", "run hello core 7\r"),
    (r"^run: core 7 is the micro-kernel", "run hello core 0 &\r"),
    (r"^run: core 0 is the shell's own", "run hostile 5 core 0\r"),  # on the shell's own stack
    (r"^(mosaic> )?run hostile 5 core 0$", ""),
    (1, CTRL_C),  # from the console's interrupt
    (r"mosaic: task hostile on core 0 was killed", "submit hostile 16 arg 5\r"),  # cores 0-6, 8, 9, 11-17
    (r"^submit: job tag 1 ", ""),
    (2, "tasks\r"),  # the shell waits at its prompt while core 0 runs a task of the job
    (r"^total: ", "mk 0\r"),
    (r"^micro-kernel 0 ", "jobs\r"),
    (r"^jobs: ", "submit hello 1\r"),  # waits for nothing, but is not a command that never waits: held
    (r"runs when it ends", "kill job 1\r"),  # typed after the held line: runs after it
    (1, CTRL_C),  # kills core 0's task: the held submit runs, then the kill
    (r"^kill: ", "jobs wait 60\r"),
    (r"^jobs: 2 ended", "submit hostile 16 arg 11\r"),  # rank 0, on core 0, waits at the barrier; the rest sleep
    (r"^submit: job tag 3 ", ""),
    (2, "tasks\r"),  # core 0's task waits inside a kernel call: the shell still answers
    (r"^total: ", "kill job 3\r"),
    (r"^kill: ", "submit hostile 16 arg 7\r"),  # every task blocks in a receive nobody answers
    (r"^submit: job tag 4 ", ""),
    (2, "mk 0\r"),
    (r"^micro-kernel 0 ", "kill job 4\r"),
    (r"^kill: ", "submit jobspawn 16 arg 6\r"),  # each waits for a child job that never ends
    (r"^submit: job tag 5 ", ""),
    (2, "tasks\r"),
    (r"^total: ", "kill job 5\r"),
    (r"mosaic: core 0: task 'jobspawn' killed", "poweroff 0\r"),  # its children live on: no `jobs wait`
]


@pytest.mark.parametrize("vclock", [True, False], ids=["vtime", "serial"])
def test_shell_answers_while_tasks_spin(boot, vclock):
    # every task's CPU-time limit past the boot's timeout: on the serial clock guest time is host
    # time, and a loaded host must not end a spinning task before the kill this test checks
    r = boot(harts=36, bootargs="shell=1 task_cpu_ms=600000", batch=False, vclock=vclock, input_steps=STEPS, timeout=240)
    out = r.output
    assert r.status == 0 and len(r.typed) == len(STEPS), out[-3000:]
    lines = out.splitlines()

    def answered(step):
        """Host seconds from typing step `step` to typing the next one (once its line came)."""
        return r.typed[step + 1] - r.typed[step]

    for step, what in [(2, "Ctrl-C of a share group"), (4, "Ctrl-Z"), (5, "tasks with a task in the background"),
                       (9, "Ctrl-C"), (20, "Ctrl-C on core 0"),
                       (23, "tasks while a spinning job holds the shell's core"), (24, "mk meanwhile"),
                       (25, "jobs meanwhile"), (28, "Ctrl-C of a job's task on the shell's core"),
                       (32, "tasks while core 0's task waits at a barrier"), (33, "kill job meanwhile"),
                       (36, "mk while core 0's task waits in a receive"), (37, "kill job meanwhile"),
                       (40, "tasks while core 0's task waits for its child job"), (41, "kill job meanwhile")]:
        assert answered(step) < 30, f"{what}: {answered(step):.1f} s"
    assert "^Z" in out and "^C" in out
    group = out.split("share: killing every task of the group")[1].split("mosaic> ")[0]
    assert len(re.findall(r"^share: rank \d core \d+->\d+ killed -14 ", group, re.M)) == 4, group
    default_core = int(re.search(r"mosaic: task hostile on core (\d+) was killed",
                                 re.split(r"^(?:mosaic> )?run hostile 5$", out, flags=re.M)[1]).group(1))
    assert default_core != 0, "a run without core went to the shell's own core"
    # harts, typed during the foreground run, ran after it
    after = re.split(r"^(?:mosaic> )?run hostile 5 core 4$", out, flags=re.M)[1]
    assert after.index("task hostile on core 4 was killed") < after.index("mosaic> harts\n"), after[:2000]
    assert after.index("harts\n") < after.index("task hostile on core 4 was killed"), "echoed when typed"
    assert re.search(r"^run: there is no core 200: this machine has cores 0\.\.35$", out, re.M)
    assert re.search(r"^run: core 7 is the micro-kernel of domain 0, which runs no user task; pico-kernels: "
                     r"0-6,8-9,11-24,26-27,29-35$", out, re.M), out[-3000:]
    assert re.search(r"^  running: job 1 \(home 0\) on \d+ cores", out, re.M), "mk 0 saw the job running"
    held = out.split("runs when it ends")[1]
    assert held.index("mosaic> submit hello 1\n") < held.index("mosaic> kill job 1\n"), "typed order kept"
    assert not any("CPU-time limit" in l for l in lines), "a task lived to its limit, not killed"
    for job, program in [(3, "hostile"), (4, "hostile"), (5, "jobspawn")]:
        # core 0 ran one of its tasks, so it was core 0's wait inside a kernel call that the shell got through
        # (its end is printed when core 0 gets back to it, which may be after the next line is typed)
        after_kill = out.split(f"kill job {job}\n", 1)[1].split("kill job", 1)[0]
        assert f"mosaic: core 0: task '{program}' killed on request" in after_kill, (job, after_kill[:2000])
