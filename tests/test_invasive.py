"""Invasive computing (docs/invasive.md): the in-kernel suite `invasive` under both
allocation policies, the example programs, and the `claims` shell command."""
import re

import pytest

from conftest import ktest_passes


@pytest.mark.parametrize("policy", ["ac", "ab"])
def test_invasive_suite(boot, policy):
    r = ktest_passes(boot, 7, harts=36, bootargs=f"policy={policy} alloc_check=1 ktest=invasive", timeout=300)
    # i-lets: every member printed its own line whole (each has its own console line)
    lines = re.findall(r"^(?:\[core \d+\] )?invtest shared: member (\d+) on core \d+ read (\d+)$", r.output, re.M)
    assert sorted(set((int(i), int(v)) for i, v in lines)) == sorted(
        {(i, 100 + i) for i in range(len(lines) // 2)} | {(i, 200 + i) for i in range(len(lines) // 2)}), lines
    assert "i-lets shared the owner's memory, isolated members did not" in r.output
    # the faulting member was named to its owner, by the kernel and by the owner itself
    assert re.search(r"mosaic: claim \d+: member 1 on core \d+ was killed; reported to its owner",
                     r.output)
    assert re.search(r"invtest fault: member 1 on core \d+ was killed, reported to its owner", r.output)
    got = [int(g) for g in re.findall(r"invtest anywhere: core \d+ asked for \d+ cores, got (\d+)", r.output)]
    # four owners ask together for more than the machine has: each gets a part, perhaps none
    assert len(got) == 12 and all(g >= 0 for g in got)
    assert all(sum(got[i:i + 4]) > 0 for i in range(0, 12, 4))


def test_parallel_loop_grows_and_shrinks(boot):
    r = boot(harts=36, bootargs='alloc_check=1 cmd="run ploop 30000"', timeout=120)
    assert r.status == 0, r.output
    phases = re.findall(r"ploop: phase (\d) on (\d+) cores \(asked (\d+)\): sum \d+ ok", r.output)
    assert [(int(p), int(n)) for p, n, _ in phases] == [(0, 1), (1, 3), (2, 6), (3, 2), (4, 5), (5, 1)]
    assert "ploop: ok" in r.output


def test_breakeven_program_measures_every_point(boot):
    r = boot(harts=64, bootargs='cmd="run breakeven 1"', icount=True, timeout=300)
    assert r.status == 0, r.output
    ops = re.findall(r'INVBENCH \{"op":"(\w+)","scope":"(\w+)","n":(\d+)', r.output)
    assert {(o, s) for o, s, _ in ops} >= {("invade", "domain"), ("invade", "across"), ("retreat", "domain"),
                                           ("retreat", "across"), ("infect", "anywhere"), ("overhead", "anywhere")}
    assert sorted(int(n) for o, _, n in ops if o == "infect") == list(range(1, 33))
    assert "breakeven: done" in r.output


def test_claims_command(boot):
    r = boot(harts=36, bootargs='cmd="claims;claims extra"', timeout=60)
    assert "no claims" in r.output
    assert "usage: claims" in r.output


def test_claims_lists_a_live_claim(boot):
    """A job holds a claim with a team running while the shell lists the claims; after it, none is left.
    The job runs in domain 2: the shell's own core (domain 0) runs tasks while it waits, which would hold up `claims`."""
    r = boot(harts=36, icount=True, bootargs='alloc_check=1 cmd="submit invtest 1 at 2 arg 7;sleep 1000;claims;jobs wait;claims"',
             timeout=120)
    assert r.status == 0, r.output
    held = re.search(r"invtest hold: core (\d+) holds cores (\d+) (\d+) (\d+), a team of 3 runs", r.output)
    assert held, r.output
    owner, cores = int(held.group(1)), sorted(int(c) for c in held.groups()[1:])
    listed = re.search(r"claim \d+: home (\d+), owner core (\d+), 3 cores, team running: "
                       r"team of 3 members, 0 ended, 0 failed\n\s*cores: ([\d ]+)\n", r.output)
    assert listed, r.output
    assert int(listed.group(2)) == owner
    assert sorted(int(c) for c in listed.group(3).split()) == cores
    assert "invtest hold: done" in r.output
    # the second listing, after the job ended, shows nothing left
    assert "no claims" in r.output[r.output.index("invtest hold: done"):]

