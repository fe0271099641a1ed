"""Time-sliced pico-kernels (kernel/share.c, the `share` command, user/slice.c): several tasks on one
core are preempted and still end with exact results; each task's speed, (user + system) / real time
on the core's own clock, is about 1/N for N equal tasks; bad input gets a clear error and leaves the
core as it was; every page comes back."""
import re

import pytest

from test_shm import pages_in_use

LINE = re.compile(r"^share: core (\d+) task (\d+) (exited|killed|not started) (-?\d+) cpu_us (\d+) sys_us (\d+) "
                  r"real_us (\d+) speed (\d+)\.(\d+) slices (\d+)$", re.M)


def slice_exit(arg):
    """What user/slice.c exits with: bits 40..45 of its LCG after arg * 1000 steps."""
    x = arg
    for _ in range(arg * 1000):
        x = (x * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
    return (x >> 40) & 63


@pytest.mark.parametrize("vtime", [0, 1])
def test_shared_tasks_run_at_one_nth_speed(boot, vtime):
    r = boot(harts=4, bootargs=f'vtime={vtime} domains=1 cmd="mem;share slice 3 2500;share slice 1 2500;mem"',
             timeout=120)
    assert r.status == 0, r.output[-3000:]
    rows = LINE.findall(r.output)
    assert len(rows) == 4, r.output[-3000:]
    want = slice_exit(2500)
    for core, task, how, code, cpu, sys_, real, s_int, s_frac, slices in rows:
        assert how == "exited" and int(code) == want
    shared, alone = rows[:3], rows[3]
    speeds = [int(row[7]) + int(row[8]) / 1000 for row in shared]
    for row, speed in zip(shared, speeds):
        assert int(row[9]) >= 3, row  # preempted, not run one after the other
        assert 0.2 <= speed <= 0.6, row
    # three equal tasks on one core: about 1/3 each (a task that ends in the last round of
    # slices waited less than the others, so the mean is a little above 1/3)
    assert 0.3 <= sum(speeds) / 3 <= 0.45, speeds
    assert int(alone[9]) == 1 and alone[7:9] == ("1", "000")  # alone: never switched, speed 1
    before, after = pages_in_use(r.output)
    assert after == before, (before, after)


@pytest.mark.parametrize("cmd,error", [
    ("share slice 0", "N must be 1..8"),
    ("share slice 9", "N must be 1..8"),
    ("share nosuch 2", "no program 'nosuch'"),
    ("share slice 2 10 bogus 3", "unknown word 'bogus'"),
    ("share slice 2 10 core 0", "core 0 is not a pico-kernel"),
    ("share slice 2 10 core 4096", "core 4096 is not a pico-kernel"),
    ("share slice 2 10 cpu", "usage: share"),
])
def test_bad_input_is_refused_and_disturbs_nothing(boot, cmd, error):
    # the refusal stops the command list (status 2); the same boot then runs a good share
    r = boot(harts=4, bootargs=f'domains=1 cmd="{cmd}"', timeout=60)
    assert r.status == 2, r.output[-2000:]
    assert error in r.output, r.output[-2000:]
    assert not LINE.search(r.output)  # no task ran


def test_a_core_shared_after_a_refusal_works(boot):
    r = boot(harts=4, bootargs='domains=1 shell=1', timeout=90, batch=False,
             input_text="share slice 9\rshare slice 2 800\rpoweroff 7\r")
    assert r.status == 7, r.output[-2000:]
    rows = LINE.findall(r.output)
    assert len(rows) == 2 and all(int(row[3]) == slice_exit(800) for row in rows), r.output[-2000:]


def test_message_calls_are_refused_only_when_shared(boot):
    probe = 1 << 31
    r = boot(harts=4, bootargs=f'domains=1 cmd="share slice 2 {probe};run slice {probe}"', timeout=60)
    rows = LINE.findall(r.output)
    assert [row[3] for row in rows] == ["0", "0"], r.output[-2000:]  # -ENOTSUP seen: exit 0
    assert "task slice on core 1 exited with 1" in r.output  # alone, the send is not refused
