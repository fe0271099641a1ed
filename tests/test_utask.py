"""User programs in U-mode: output, kernel calls, bad pointers, faults and isolation, from the host's side."""
import re

import pytest

from conftest import ROOT, ktest_summary


def test_utask_suite_on_every_pico_kernel(boot):
    r = boot(harts=36, bootargs="ktest=utask", timeout=120)
    assert ktest_summary(r.output) == (7, 0), r.output[-3000:]
    assert "coll: 8 cores, all collectives correct" in r.output
    assert "kcalls ran on 32 pico-kernels at once" in r.output
    # each task's console writes went through its domain master, tagged with the task's core
    assert len(re.findall(r"^\[core \d+\] kcalls: 24 of 24 checks passed", r.output, re.M)) >= 32
    # the faults were each reported in one line naming core, task, cause and address
    kills = re.findall(r"^mosaic: core (\d+): task 'fault' killed: (.+) at ([0-9a-f]+) \(address ([0-9a-f]+)\)$",
                       r.output, re.M)
    assert [k[1] for k in kills] == ["store/AMO page fault", "load page fault", "illegal instruction",
                                     "load address misaligned", "load page fault", "instruction page fault",
                                     "store/AMO page fault"]


def test_shell_runs_programs(boot):
    r = boot(harts=8, bootargs='cmd="programs;run hello 42;run badptr"', timeout=60)
    assert r.status == 0, r.output
    # every program says what it does and what its argument means, from its own MOSAIC_ABOUT
    listing = " " + " ".join(r.output.split("mosaic> programs")[1].split("mosaic> run")[0].split())
    programs = re.search(r"^USER_PROGRAMS := (.*)$", (ROOT / "Makefile").read_text(), re.M).group(1).split()
    for name in programs:
        m = re.search(r'^MOSAIC_ABOUT\("([^"]*)", "([^"]*)"\);$', (ROOT / "user" / f"{name}.c").read_text(), re.M)
        assert m, f"user/{name}.c has no MOSAIC_ABOUT"
        assert f" {name} {m.group(1)} arg: {m.group(2)}; " in listing, name
    for name in ("hello", "kcalls", "fault", "badptr", "marker"):
        assert re.search(rf"^  {name} +\S", r.output, re.M), name
    assert re.search(r"^\[core \d+\] hello from a user task on core \d+ \(domain \d+\), argument 42$", r.output, re.M)
    assert "badptr: 0 of 15 checks failed" in r.output
    assert "task badptr on core" in r.output and "exited with 0" in r.output


@pytest.mark.parametrize("kind,cause", [(0, "store/AMO page fault"), (2, "illegal instruction")])
def test_faulting_task_fails_the_command_but_not_the_kernel(boot, kind, cause):
    r = boot(harts=8, bootargs=f'cmd="run fault {kind}"', timeout=60)
    assert r.status == 1, r.output  # the command failed; no panic
    assert f"killed: {cause}" in r.output
    assert "PANIC" not in r.output


def test_run_refuses_bad_requests(boot):
    r = boot(harts=8, bootargs='cmd="run nosuch"')
    assert r.status == 2 and "run: no program 'nosuch'" in r.output, r.output
    r = boot(harts=8, bootargs='cmd="run hello 1 core 0"')  # core 0 is a micro-kernel here
    assert r.status == 1 and ("run: core 0 is the micro-kernel of domain 0, which runs no user task; "
                              "pico-kernels: 1,3,5,7") in r.output, r.output
    r = boot(harts=8, bootargs='cmd="run hello 1 core 8"')
    assert r.status == 1 and "run: there is no core 8: this machine has cores 0..7" in r.output, r.output
