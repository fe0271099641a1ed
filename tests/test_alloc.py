"""Job allocation: the in-kernel suite under both policies and both modes, meshes up to 128
harts, the real programs as jobs of several sizes, bad input, and the trace for Perfetto."""
import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, expect, ktest_passes


def reports(output):
    return [json.loads(m) for m in re.findall(r"^ALLOCJOB (\{.*\})$", output, re.M)]


@pytest.mark.parametrize("policy", ["ac", "ab"])
def test_alloc_suite_partial_simulation(boot, policy):
    ktest_passes(boot, 6, harts=16, bootargs=f"partial_sim=8 policy={policy} ktest=alloc", timeout=400)


@pytest.mark.parametrize("policy", ["ac", "ab"])
def test_alloc_suite_real_tasks(boot, policy):
    ktest_passes(boot, 6, harts=36, bootargs=f"policy={policy} ktest=alloc", timeout=600)


@pytest.mark.parametrize("harts,mesh", [(2, "2x1"), (49, "7x7"), (128, "16x8")])
def test_partial_simulation_on_every_mesh(boot, harts, mesh):
    r = boot(harts=harts, bootargs='partial_sim=4 scenario="random 5 16 500"', timeout=400)
    assert r.status == 0, r.output
    assert f"NoC {mesh} mesh" in r.output
    jobs = reports(r.output)
    assert len(jobs) == 16 and all(j["status"] == 0 for j in jobs)
    # the whole machine is one job's worth at most, and some jobs needed other micro-kernels
    assert max(j["ntasks"] for j in jobs) <= 4 * harts
    if harts > 2:
        assert any(j["global"] for j in jobs)


def test_deadlock_of_fig_2_2_both_policies_real_tasks(boot):
    # the thesis's two domains of one micro-kernel and eight pico-kernels: 12 + 16 > 16 cores
    for policy in ("ac", "ab"):
        r = boot(harts=18, bootargs=f'domains=2 policy={policy} scenario="fig22"', timeout=300)
        assert r.status == 0, r.output
        jobs = reports(r.output)
        assert sorted(j["ntasks"] for j in jobs) == [12, 16]
        assert all(j["global"] and j["status"] == 0 for j in jobs)
        # one had to wait for the other
        a, b = sorted(jobs, key=lambda j: j["t_start_ns"])
        assert b["t_start_ns"] >= a["t_end_ns"]


@pytest.mark.parametrize("program", ["compute", "ring", "stencil", "isort"])
def test_real_programs_as_jobs_of_every_size(boot, program):
    sizes = [1, 2, 7, 8, 16, 32]
    cmds = ";".join(f"submit {program} {n} at {i % 4}" for i, n in enumerate(sizes))
    r = boot(harts=36, bootargs=f'cmd="{cmds};jobs wait 200"', timeout=400)
    assert r.status == 0, r.output
    for n in sizes:
        assert re.search(rf"^\[core \d+\] {program}: {n} tasks, .*ok$", r.output, re.M), (n, r.output)
    assert "FAILED" not in r.output
    rows = re.findall(rf"^ +\d+ +\d+ +\d+ +(\d+) {program} .* ok; ([\d,-]+)$", r.output, re.M)
    assert sorted(int(n) for n, _ in rows) == sizes
    for n, held in rows:  # the table names the cores each job held, as ranges
        assert len(expand_ranges(held)) == int(n), (n, held)
    assert f"jobs: {len(sizes)} ended, 0 still in the system" in r.output


def expand_ranges(text):
    cores = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cores += range(int(lo), int(hi or lo) + 1)
    return cores


def test_job_records_name_the_cores_they_held(boot):
    """Jobs that fit the machine together, submitted at once, each task a 64x64 matrix product (far
    longer than the submissions take): their core sets, read from the JSON lines alone, are
    disjoint, are pico-kernels, and sum per domain as listed."""
    sizes = [5, 9, 3, 12]
    cmds = ";".join(f"submit compute {n} arg 64 at {i % 4}" for i, n in enumerate(sizes))
    r = boot(harts=36, bootargs=f'cmd="mesh;{cmds};jobs wait 200 json"', timeout=400)
    assert r.status == 0, r.output[-3000:]
    jobs = reports(r.output)
    assert sorted(j["ntasks"] for j in jobs) == sorted(sizes)
    masters = {int(m) for m in re.findall(r"(\d+)/\d+ +\*\d+", r.output)}
    assert len(masters) == 4
    held = set()
    for j in jobs:
        assert len(j["cores"]) == j["ntasks"] and not set(j["cores"]) & masters, j
        assert sum(n for _, n in j["domain_cores"]) == j["ntasks"], j
        assert not held & set(j["cores"]), ("a core in two jobs at once", j)
        held |= set(j["cores"])


def test_partial_simulation_records_cores_per_domain(boot):
    r = boot(harts=16, bootargs='partial_sim=8 cmd="submit sim 20 time 500 at 1;jobs wait 60 json;jobs"', timeout=300)
    assert r.status == 0, r.output[-3000:]
    job, = reports(r.output)
    assert job["cores"] == [] and sum(n for _, n in job["domain_cores"]) == 20, job
    assert re.search(r" ok; d\d+:\d+( d\d+:\d+)+$", r.output, re.M), r.output[-2000:]


def test_bad_jobs_are_refused_with_a_reason(boot):
    for harts, bootargs, status, words in (
            (36, 'cmd="submit compute 0"', 1, "submit: refused: a job needs at least one core"),
            (36, 'cmd="submit compute 33"', 1, "33 cores is more than the machine has (32)"),
            (36, 'cmd="submit nosuch 2"', 1, "there is no program 'nosuch'"),
            (36, 'cmd="submit compute 2 at 9"', 1, "there is no micro-kernel 9 (there are 4)"),
            (16, 'partial_sim=4 cmd="submit sim 2"', 1, "needs a run time"),
            (16, 'partial_sim=4 scenario="0 0 two 100"', 2, "expected 'T_US HOME NTASKS[/C] RUN_US|PROGRAM[:ARG]'"),
            (16, "partial_sim=4 policy=fifo", 2, "policy: 'fifo' is not a policy (ac or ab)")):
        expect(boot(harts=harts, bootargs=bootargs), status, words)
    # that a refusal disturbs nothing (a good job runs right after) is ktest alloc.bad_input_refused


def test_policy_and_scheme_commands(boot):
    r = boot(harts=16, bootargs='partial_sim=4 cmd="policy ab;scheme flood;policy;scheme;scheme ring"')
    assert r.status == 2, r.output
    assert "policy ab (sequencer-based atomic broadcast); the sequencer is micro-kernel" in r.output
    assert "scheme flood" in r.output


def test_trace_opens_as_chrome_trace(boot, tmp_path):
    r = boot(harts=16, bootargs='partial_sim=4 alloc_trace=4096 scenario="fig22 500"', timeout=200)
    assert r.status == 0, r.output
    log = tmp_path / "run.log"
    log.write_text(r.output)
    out = tmp_path / "trace.json"
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "alloc-trace"), str(log), "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    trace = json.loads(out.read_text())
    events = trace["traceEvents"]
    names = {e.get("args", {}).get("name") for e in events if e.get("ph") == "M"}
    assert "core 0" in names
    flows = [e for e in events if e.get("ph") == "s"]
    assert flows, "every protocol message should be a flow arrow"
    assert any(e.get("ph") == "X" and e["name"].startswith("job ") for e in events)
