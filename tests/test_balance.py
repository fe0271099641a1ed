"""Share groups (kernel/task/share/share.c, share_balance.c, the `share` command, user/spmd.c): ranks time-sliced
on pico-kernels end with exact results under every wait mode and placement; a task's speed,
(user + system) / real time on the cores' own clocks, is about 1/N for N tasks on one core; tasks
moved by the balancer are never lost or duplicated; bad input gets a clear error and runs nothing;
every page comes back."""
import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, ktest_summary
from test_shm import pages_in_use

LINE = re.compile(r"^share: rank (\d+) core (\d+)->(\d+) (exited|killed|not started) (-?\d+) cpu_us (\d+) sys_us (\d+) "
                  r"real_us (\d+) speed (\d+)\.(\d+) slices (\d+) moves (\d+)$", re.M)


def spmd_arg(t, w, imbalance=False):
    return (t << 16) | w | ((1 << 30) if imbalance else 0)


def spmd_exit(arg, rank):
    """What user/spmd.c exits with: bits 40..45 of rank's LCG chain."""
    w = (arg & 0xffff) or 50
    t = ((arg >> 16) & 0x3fff) or 20
    steps = w * 1000 * t * (2 if (arg >> 30) & 1 and rank == 0 else 1)
    x = (arg * 0x9e3779b97f4a7c15 + rank) % 2**64
    # x -> a x + c, n times, in closed form (the loop is too slow in Python)
    a, c, m = 6364136223846793005, 1442695040888963407, 2**64
    an, cn = 1, 0
    base_a, base_c = a, c
    while steps:
        if steps & 1:
            an, cn = an * base_a % m, (cn * base_a + base_c) % m
        base_a, base_c = base_a * base_a % m, (base_c * base_a + base_c) % m
        steps >>= 1
    return ((an * x + cn) % m >> 40) & 63


def shares(output):
    return [json.loads(m) for m in re.findall(r"^SHAREJSON (\{.*\})$", output, re.M)]


@pytest.mark.parametrize("harts,args", [(8, "domains=1 vtime=0"), (8, "domains=1 vtime=1"), (36, "vtime=1")])
def test_the_balance_suite(boot, harts, args):
    """ktest=balance is standalone (ktest=all leaves it out): it runs here, on both clocks."""
    r = boot(harts=harts, bootargs=f"ktest=balance {args}", timeout=300)
    assert r.status == 0, r.output[-3000:]
    passed, failed = ktest_summary(r.output)
    assert failed == 0 and passed == 7, "\n".join(line for line in r.lines if "FAIL" in line)


@pytest.mark.parametrize("vtime", [0, 1])
def test_one_core_shared_by_three(boot, vtime):
    arg = spmd_arg(3, 800)
    r = boot(harts=4, bootargs=f'vtime={vtime} domains=1 cmd="mem;share spmd 3 {arg};share spmd 1 {arg};mem"',
             timeout=120)
    assert r.status == 0, r.output[-3000:]
    rows = LINE.findall(r.output)
    assert len(rows) == 4, r.output[-3000:]
    for row in rows:
        assert row[3] == "exited" and int(row[4]) == spmd_exit(arg, int(row[0])), row
    speeds = [int(row[8]) + int(row[9]) / 1000 for row in rows[:3]]
    for row, speed in zip(rows[:3], speeds):
        assert int(row[10]) >= 3, row  # preempted, not run one after the other
        assert 0.2 <= speed <= 0.6, row
    assert 0.28 <= sum(speeds) / 3 <= 0.45, speeds  # about 1/3 each
    # alone: speed about 1 (the scheduler's own instructions between its slices are no task's)
    assert int(rows[3][8]) + int(rows[3][9]) / 1000 >= 0.9, rows[3]
    before, after = pages_in_use(r.output)
    assert after == before, (before, after)


@pytest.mark.parametrize("place", ["pinned", "rr", "speed"])
def test_every_wait_mode_gives_exact_results_and_loses_no_task(boot, place):
    arg = spmd_arg(12, 300)
    cmds = ";".join(f"share spmd 7 {arg} cores 3 wait {w} place {place}" for w in ("spin", "yield", "sleep"))
    r = boot(harts=8, bootargs=f'vtime=1 domains=1 share_balance_us=1000 cmd="mem;{cmds};mem"', timeout=240)
    assert r.status == 0, r.output[-3000:]
    rows = LINE.findall(r.output)
    assert len(rows) == 21, r.output[-3000:]
    for i, row in enumerate(rows):
        assert int(row[0]) == i % 7  # every rank reported once per group
        assert row[3] == "exited" and int(row[4]) == spmd_exit(arg, int(row[0])), row
    summaries = shares(r.output)
    assert [s["wait"] for s in summaries] == ["spin", "yield", "sleep"]
    for s, k in zip(summaries, range(3)):
        assert s["ok"] and s["barriers"] == 12 and s["migrations"] == s["task_moves"]
        moves = sum(int(row[11]) for row in rows[7 * k:7 * k + 7])
        assert moves == s["migrations"]
        if place == "pinned":
            assert s["migrations"] == 0
            assert all(row[1] == row[2] for row in rows[7 * k:7 * k + 7])
    if place == "rr":
        assert all(s["migrations"] > 0 for s in summaries)
    before, after = pages_in_use(r.output)
    assert after == before, (before, after)


@pytest.mark.parametrize("cmd,error", [
    ("share spmd 0", "N must be 1.."),
    ("share spmd 65", "N must be 1.."),
    ("share spmd 9", "at most 8 per core"),
    ("share spmd 2 10 cores 3", "C must be 1.."),
    ("share spmd 2 10 cores 0", "C must be 1.."),
    ("share nosuch 2", "no program 'nosuch'"),
    ("share spmd 2 10 bogus 3", "unknown word 'bogus'"),
    ("share spmd 2 10 wait often", "unknown wait 'often'"),
    ("share spmd 2 10 place random", "unknown place 'random'"),
    ("share spmd 2 10 core 0", "is not a pico-kernel"),
    ("share spmd 2 10 core 4096", "is not a pico-kernel"),
    ("share spmd 2 10 core 1 cores 1", "either core K or cores C"),
    ("share spmd 2 10 cores 2 wait", "'wait' needs a value"),
])
def test_bad_input_is_refused_and_runs_nothing(boot, cmd, error):
    r = boot(harts=4, bootargs=f'domains=1 cmd="{cmd}"', timeout=60)
    assert r.status == 2, r.output[-2000:]
    assert error in r.output, r.output[-2000:]
    assert not LINE.search(r.output)  # no task ran


def test_a_refusal_disturbs_nothing(boot):
    arg = spmd_arg(2, 100)
    r = boot(harts=4, bootargs='domains=1 shell=1', timeout=90, batch=False,
             input_text=f"share spmd 9\rshare spmd 2 {arg} cores 2 wait sleep\rpoweroff 7\r")
    assert r.status == 7, r.output[-2000:]
    rows = LINE.findall(r.output)
    assert len(rows) == 2 and all(int(row[4]) == spmd_exit(arg, int(row[0])) for row in rows), r.output[-2000:]


def test_message_calls_are_refused_only_when_shared(boot):
    probe = 1 << 31
    r = boot(harts=4, bootargs=f'domains=1 cmd="share spmd 2 {probe};run spmd {probe}"', timeout=60)
    rows = LINE.findall(r.output)
    assert [row[4] for row in rows] == ["0", "0"], r.output[-2000:]  # -ENOTSUP seen: exit 0
    assert "task spmd on core 1 exited with 1" in r.output  # alone, the send is not refused


def test_bench_balance_refuses_bad_options_and_explains_itself():
    def run(args):
        return subprocess.run([sys.executable, "scripts/bench-balance", *args], cwd=ROOT, capture_output=True,
                              text=True)

    r = run(["--help"])
    assert r.returncode == 0 and "speed-beats-pinned" in r.stdout and "--quick" in r.stdout
    for bad in (["--reps", "0"], ["--reps", "21"], ["--bogus"]):
        assert run(bad).returncode == 2, bad
    r = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True)
    assert re.search(r"\bbench-balance\b", r.stdout)
