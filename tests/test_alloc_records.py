"""Job records a researcher can check without the kernel: every record printed (none dropped
silently), each one's holds (per core, or per micro-kernel and count in partial simulation, when
taken and given back on that micro-kernel's clock) enough to see that no core was held by two jobs
at once, and a trace in which every receive comes at least the NoC model's latency after its send
(docs/allocation.md, "Records" and "The trace")."""
import collections
import json
import re
import subprocess
import sys

from conftest import ROOT

JOB_LINE = re.compile(r"^ALLOCJOB (\{.*\})$", re.M)
JOBS_LINE = re.compile(r"^ALLOCJOBS (\{.*\})$", re.M)


def noc_default(name):
    """A NoC model default from its one source of truth, drivers/noc/noc_config.h."""
    text = (ROOT / "drivers" / "noc" / "noc_config.h").read_text()
    return int(re.search(rf"^#define {name} (\d+)", text, re.M).group(1))


def least_latency_ns(hops):
    """The model's latency of a message with an empty body (one flit) over `hops` links: no
    message of the protocol can arrive sooner (docs/noc.md, "Timing model")."""
    return (noc_default("NOC_T_INJECT_NS_DEFAULT") + hops * noc_default("NOC_T_HOP_NS_DEFAULT")
            + noc_default("NOC_T_FLIT_NS_DEFAULT"))


def check_holds(jobs, per_mk_limit=None):
    """From the records alone: each job's holds cover what it ran on, and no core (partial
    simulation: no micro-kernel beyond its virtual cores) is held by two jobs at once. Holds of
    one core (one micro-kernel) are all stamped by its micro-kernel, on one clock."""
    by_place = collections.defaultdict(list)
    for j in jobs:
        holds = j["holds"]
        assert holds and sum(h[2] for h in holds) == j["ntasks"], j
        for mk, core, count, taken, given in holds:
            assert taken <= given, j
            by_place[mk if core is None else ("core", core)].append((taken, given, count, j["job"]))
        if per_mk_limit is None:
            assert sorted(h[1] for h in holds) == sorted(j["cores"]), j
        else:
            assert all(h[1] is None for h in holds), j
            assert sorted([h[0], h[2]] for h in holds) == sorted(j["domain_cores"]), j
    reused = 0
    for place, spans in by_place.items():
        if per_mk_limit is None:  # one core: its holds must not overlap
            spans.sort()
            for (t0, g0, _, a), (t1, g1, _, b) in zip(spans, spans[1:]):
                assert g0 <= t1, f"core {place[1]} held by jobs {a} and {b} at once: {(t0, g0)} and {(t1, g1)}"
                reused += 1
        else:  # one micro-kernel: at no instant more than its virtual cores held
            edges = sorted([(t, c) for t, _, c, _ in spans] + [(g, -c) for _, g, c, _ in spans],
                           key=lambda e: (e[0], e[1]))  # a give-back before a take at the same instant
            held = 0
            for t, c in edges:
                held += c
                assert held <= per_mk_limit, f"micro-kernel {place} holds {held} virtual cores at {t}"
            reused += len(spans) > 1
    return reused


def test_records_and_trace_of_real_tasks_check_out(boot, tmp_path):
    """Two scenarios of real tasks in one boot: `corners 2` (four 16-core jobs on 32 cores, so
    cores are taken again) and fig22, with the trace on. From the records: every core held by one
    job at a time, and duration_us is the run's length. From the trace: every message received,
    none sooner than the model allows after its send (a pico-kernel's TASK_DONE was stamped up to
    50 us after its receive)."""
    r = boot(harts=36, bootargs='alloc_trace=4096 scenario="corners 2" cmd="scenario fig22"', timeout=300)
    assert r.status == 0, r.output[-3000:]
    jobs = [json.loads(j) for j in JOB_LINE.findall(r.output)]
    assert len(jobs) == 6, r.output[-3000:]
    for j in jobs:
        assert j["clock"] == "virtual" and len(j["holds"]) == j["ntasks"], j
        assert j["duration_us"] == (j["t_end_ns"] - j["t_start_ns"]) // 1000 and j["duration_us"] > 0, j
    assert check_holds(jobs) >= 1  # some core was held by two jobs, one after the other

    log = tmp_path / "run.log"
    log.write_text(r.output)
    out = tmp_path / "run.json"
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "alloc-trace"), str(log), "-o", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert " 0 unmatched " in p.stdout and " 0 dropped" in p.stdout, p.stdout
    ends = collections.defaultdict(dict)
    for e in json.loads(out.read_text())["traceEvents"]:
        if e.get("ph") == "i" and "flow" in e.get("args", {}):
            ends[e["args"]["flow"]][e["name"].split()[0]] = e
    assert len(ends) > 100
    early = []
    for pair in ends.values():
        send, recv = pair["send"], pair["recv"]
        gap = recv["args"]["t_ns"] - send["args"]["t_ns"]
        if gap < least_latency_ns(send["args"]["arg"]):
            early.append((send["name"], send["tid"], recv["tid"], send["args"]["t_ns"], recv["args"]["t_ns"]))
    assert not early, f"{len(early)} receives sooner than the model's latency after their send, e.g. {early[:3]}"


def test_jobs_wait_json_prints_every_record_of_300_jobs(boot):
    """300 jobs typed into the shell (partial simulation, 16 micro-kernels of 8 virtual cores):
    `jobs wait S json` prints all 300 records, more than the shell keeps; a later `jobs json`
    prints the 256 it keeps and says that 44 are not kept. The records alone show no
    micro-kernel holding more than its 8 virtual cores at any instant."""
    n = 300
    lines = [f"submit sim {1 + i % 7} time {100 + (i * 37) % 400} at {i % 16}" for i in range(n)]
    lines += ["jobs wait 120 json", "jobs json", "poweroff 0"]
    r = boot(harts=16, bootargs="shell=1 partial_sim=8", batch=False, timeout=300,
             input_text="".join(line + "\r" for line in lines))
    assert r.status == 0, r.output[-3000:]
    first, second = r.output.split("mosaic> jobs json", 1)
    jobs = [json.loads(j) for j in JOB_LINE.findall(first)]
    assert sorted(j["tag"] for j in jobs) == list(range(1, n + 1)), len(jobs)
    summary = json.loads(JOBS_LINE.findall(first)[-1])
    assert summary == {"ended": n, "open": 0, "printed": n, "new": n, "not_kept": 0, "kept_max": 256}, summary
    assert f"jobs: {n} ended, 0 still in the system" in first
    kept = [json.loads(j)["tag"] for j in JOB_LINE.findall(second)]
    assert kept == [j["tag"] for j in jobs][-256:]
    assert json.loads(JOBS_LINE.findall(second)[-1])["not_kept"] == n - 256
    assert f"{n - 256} earlier ones not kept (the shell keeps the last 256" in second
    assert check_holds(jobs, per_mk_limit=8) >= 1


def test_the_simulators_records_check_out_the_same_way():
    """The simulator runs the same protocol core and prints the same holds (its clock: each
    micro-kernel's simulated time): real tasks on a 6x6 mesh whose jobs take cores in turn, and a
    random partial simulation of 8 virtual cores per micro-kernel."""
    r = subprocess.run(["make", "-s", "sim"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    sim = str(ROOT / "build" / "sim" / "mosaic-sim")

    def jobs(*args):
        p = subprocess.run([sim, "--json", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)["jobs"]

    real = jobs("--real", "--mesh", "6x6", "--scenario", "corners 2")
    assert len(real) == 4 and all(len(j["holds"]) == j["ntasks"] for j in real)
    assert check_holds(real) >= 1
    assert check_holds(jobs("--scenario", "random 1 100"), per_mk_limit=8) >= 1
