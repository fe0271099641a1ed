"""The shell stays responsive whatever user tasks do (README, "The shell"): a foreground `run` of a task
that spins is killed by Ctrl-C or by `kill` typed meanwhile, goes to the background with Ctrl-Z or
starts there with `&`, and the commands that never wait (`tasks`, `mk`, `jobs`, `kill`) answer while
a spinning job holds 16 cores, the shell's own among them (a job's task on the shell's core used to
hold the shell until its CPU-time limit, 80 s of host time). One boot per clock batches every check;
the host-time bounds are generous (the host's QEMU runs the spinning harts in turn), far under 80 s."""
import re

import pytest

CTRL_C, CTRL_Z = "\x03", "\x1a"

# (line to wait for, text to type); None: type at once
STEPS = [
    (None, "run hostile 5 core 3\r"),
    (r"^mosaic> run hostile 5 core 3$", "tasks\r"),  # answered while the foreground run spins
    (r"^total: ", ""),
    (2, "kill 3\r"),  # once the task surely runs (a kill before it started finds no task)
    (r"mosaic: task hostile on core 3 was killed", "run hostile 5\r"),  # on a default core, not the shell's
    (r"^mosaic> run hostile 5$", "mk 1\r"),
    (r"^micro-kernel 1 ", CTRL_C),
    (r"mosaic: task hostile on core \d+ was killed", "run hostile 5 core 4 &\r"),
    (r"^run: task hostile started on core 4 in the background", "run hostile 5 core 5\r"),
    (r"^mosaic> run hostile 5 core 5$", CTRL_Z),
    (r"^run: task hostile on core 5 goes on in the background", "kill 4\r"),
    (r"mosaic: task hostile on core 4 was killed", "kill 5\r"),
    (r"mosaic: task hostile on core 5 was killed", "run hello core 200\r"),
    (r"^run: there is no core 200", "run hello core 7\r"),
    (r"^run: core 7 is the micro-kernel", "run hello core 0 &\r"),
    (r"^run: core 0 is the shell's own", "run hostile 5 core 0\r"),  # on the shell's own stack
    (r"^mosaic> run hostile 5 core 0$", "tasks\r"),  # served from the task's traps
    (r"^total: ", CTRL_C),  # from the console's interrupt
    (r"mosaic: task hostile on core 0 was killed", "submit hostile 16 arg 5\r"),
    (r"^submit: job tag 1 ", "sleep 300\r"),  # the job reaches the shell's core meanwhile
    (r"^mosaic> sleep 300$", "tasks\r"),
    (r"^total: ", "mk 0\r"),
    (r"^micro-kernel 0 ", "jobs\r"),
    (r"^jobs: ", "submit hello 1\r"),  # it waits for nothing, but is not a command that never waits
    (r"^shell: core 0, the shell's own, runs a user task", "kill job 1\r"),
    (r"^kill: ", ""),
    (r"core 0: task 'hostile' killed", "jobs wait 60\r"),
    (r"^jobs: 1 ended", "poweroff 0\r"),
]


@pytest.mark.parametrize("vclock", [True, False], ids=["vtime", "serial"])
def test_shell_answers_while_tasks_spin(boot, vclock):
    r = boot(harts=36, bootargs="shell=1", batch=False, vclock=vclock, input_steps=STEPS, timeout=240,
             marks=[r"^total: "])
    out = r.output
    assert r.status == 0 and len(r.typed) == len(STEPS), out[-3000:]
    # each step's answer came within a bound of host time after it was typed
    lines = out.splitlines()

    def answered(step):
        """Host seconds from typing step `step` to the line the next step waited for."""
        return r.typed[step + 1] - r.typed[step]

    assert answered(1) < 30, "tasks during a foreground run"
    assert answered(3) < 30, "kill during a foreground run"
    assert answered(6) < 30, "Ctrl-C of a foreground run"
    assert answered(20) < 30, f"tasks while a spinning job holds the shell's core: {answered(20):.1f} s"
    assert answered(16) < 30 and answered(17) < 30, "tasks and Ctrl-C of a run on the shell's core"
    assert answered(21) < 30 and answered(22) < 30, "mk and jobs while the job spins"
    assert "kill: the task on core 3 is being killed" in out
    default_core = int(re.search(r"mosaic: task hostile on core (\d+) was killed", out.split("mosaic> run hostile 5\n")[1], re.M).group(1))
    assert default_core != 0, "a run without core went to the shell's own core"
    assert "^C" in out
    assert re.search(r"^run: there is no core 200: this machine has cores 0\.\.35$", out, re.M)
    assert re.search(r"^run: core 7 is the micro-kernel of domain 0, which runs no user task; pico-kernels: "
                     r"0-6,8-9,11-24,26-27,29-35$", out, re.M), out[-3000:]
    assert re.search(r"^running: job 1 |^  running: job 1 \(home 0\) on 8 cores", out, re.M)
    assert not any(l.startswith("mosaic: core") and "CPU-time limit" in l for l in lines), "a task lived to its limit"
