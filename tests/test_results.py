"""scripts/results, the generator of docs/results.md, on JSON made here in the shapes the benchmarks write: no boot.

Why: results.md is the only place the docs carry measured figures, so it must show every goal a run judged,
MET or MISSED as the run judged it, on the clock it was judged on, with the run's revision; and a file that is
not a benchmark's JSON must be refused with its name, never half-read into the page.
"""
import json
import re
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import fastpath_goals  # noqa: E402

SCRIPT = ROOT / "scripts" / "results"
FIRST_COMMIT = subprocess.run(["git", "-C", str(ROOT), "rev-list", "--max-parents=0", "--abbrev-commit", "HEAD"],
                              capture_output=True, text=True).stdout.split()[-1]


def run(bench_dir, out):
    return subprocess.run([sys.executable, str(SCRIPT), "--bench-dir", str(bench_dir), "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


def kernel_json():
    per_clock = {"local": {"instructions": 43, "time_ns_per_call": 55.1},
                 "forwarded": [{"time_ns": 5091, "hops": 1}],
                 "forwarded_free_noc": {"forwarded": [{"time_ns": 1841}]},
                 "contention": [{"callers": 8, "mean_ns": 17292, "mean_over_one_caller": 3.42}]}
    return {"how": {"command": "make bench-kernel", "date": "2031-01-02T03:04:05+00:00", "revision": "abc1234",
                    "kernel": {"sha256_16": "0123456789abcdef"}, "qemu_version": "QEMU emulator version 7.2.99"},
            "clock": "virtual",
            "goals": {"forwarded_call_caller_and_master": fastpath_goals.verdict(
                "forwarded_call_caller_and_master", {"serial": 2172, "virtual": 2730})},
            "forwarded_over_local": {"met": False, "forwarded_time_ns": 5091, "local_time_ns": 55.1,
                                     "time_ratio": 92.4, "allowed_time_ns": 165.3},
            "dispatcher_experiment": {"goal": {"memory_at_every_n": True, "time_from_14_tasks": True,
                                               "dispatchers_faster_from_n": 3, "met": True}},
            "by_clock": {"virtual": per_clock, "serial": per_clock}}


def noc_json():
    mesh = {"latency_vs_hops": [{"hops": 1, "model_ns": 1550, "measured_ns": 1638}],
            "overhead_instructions_per_message": 912,
            "barrier": [{"cores": 64, "period_ns": 21550}], "broadcast": [{"cores": 64, "measured_ns": 12200}]}
    return {"how": {"command": "make bench-noc", "date": "2031-01-02T03:05:00+00:00"},
            "by_clock": {"virtual": {"8x8": mesh}},
            "goals": {"barrier_64_cores_8x8": {"period_ns": 21550, "allowed_ns": 23296, "met": True,
                                               "formula": "2 * eccentricity * t_hop + depth * overhead"},
                      "message_send_recv_8B": fastpath_goals.verdict("message_send_recv_8B",
                                                                     {"serial": 444, "virtual": 912})}}


def vtime_json():
    return {"how": {"command": "scripts/bench-vtime", "date": "2031-01-02T04:00:00+00:00"},
            "median_wall_s": {"serial": 7.0, "conservative": 11.2},
            "goals": {"host_cost_of_virtual_time": {"verdict": "MISSED", "ratio": 1.6, "limit": 1.5,
                                                    "serial_s": 7.0, "virtual_s": 11.2, "what": "ktest=all"}}}


def write(d, name, data):
    (d / name).write_text(json.dumps(data) if not isinstance(data, str) else data)


def test_the_page_shows_every_goal_its_verdict_its_clock_and_the_runs_revision(tmp_path):
    bench = tmp_path / "bench"
    bench.mkdir()
    write(bench, "kernel.json", kernel_json())
    write(bench, "noc.json", noc_json())
    vt = vtime_json()
    vt["how"]["revision"] = FIRST_COMMIT  # a revision of this repository whose kernel is not today's
    write(bench, "vtime.json", vt)
    out = tmp_path / "results.md"
    r = run(bench, out)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "3 runs, 3 of 6 goals met" in r.stdout
    page = out.read_text()
    serial, virtual, host = "serial (the machine's clock, -icount)", "virtual (each core's own clock, vtime=1)", \
        "host wall time"
    for row in (f"| Kernel calls | forwarded_call_caller_and_master | MISSED | {serial} |",
                f"| Kernel calls | forwarded_over_local | MISSED | {virtual} |",
                f"| Kernel calls | dispatchers_beat_threads | MET | {virtual} |",
                f"| The NoC | message_send_recv_8B | MET | {serial} |",
                f"| The NoC | barrier_64_cores_8x8 | MET | {virtual} |",
                f"| Virtual time's host cost | host_cost_of_virtual_time | MISSED | {host} |"):
        assert row in page, row
    # the numbers behind each verdict, the judged clock's figure first
    assert "2,172 instructions (limit 1,500; virtual 2,730;" in page
    assert "444 instructions (limit 450; virtual 912;" in page
    assert "1.6x (11.2 s against 7.0 s; limit 1.5x)" in page
    # provenance: what each JSON records, and a revision that is not the page's is flagged
    assert "run 2031-01-02T03:04:05+00:00; revision abc1234 (not in this repository)" in page
    assert "kernel ELF sha256 0123456789abcdef...; QEMU emulator version 7.2.99" in page
    assert "run 2031-01-02T03:05:00+00:00; revision not recorded in the JSON" in page
    assert f"revision {FIRST_COMMIT} (**kernel or plugin sources changed since**: run it again)" in page
    # the benchmarks without a run, each with the command that makes one
    missing = page.split("## Without a run")[1].split("\n## ")[0]
    for cmd in ("make bench-boot", "make bench-invade", "make bench-shm", "make bench-coll", "make bench-alloc",
                "make bench-sim", "make bench-balance"):
        assert f"`{cmd}`" in missing, cmd
    assert "make bench-kernel" not in missing and "make bench-noc" not in missing


def test_a_malformed_json_is_refused_by_name_and_nothing_is_written(tmp_path):
    bench = tmp_path / "bench"
    bench.mkdir()
    write(bench, "vtime.json", vtime_json())
    write(bench, "kernel.json", '{"how": {"date": "2031-01-02"},\n "goals": {')
    out = tmp_path / "results.md"
    out.write_text("the page before\n")
    r = run(bench, out)
    assert r.returncode == 2
    assert f"results: {bench / 'kernel.json'}: not JSON: " in r.stderr and "line 2, column" in r.stderr, r.stderr
    assert out.read_text() == "the page before\n"

    broken = kernel_json()
    del broken["goals"]["forwarded_call_caller_and_master"]["met"]
    write(bench, "kernel.json", broken)
    r = run(bench, out)
    assert r.returncode == 2
    assert "kernel.json: goals.forwarded_call_caller_and_master.met: missing" in r.stderr, r.stderr

    write(bench, "kernel.json", kernel_json())
    broken = noc_json()
    broken["goals"]["barrier_64_cores_8x8"]["met"] = "yes"
    write(bench, "noc.json", broken)
    r = run(bench, out)
    assert r.returncode == 2 and "noc.json: goals.barrier_64_cores_8x8.met: expected bool, found str" in r.stderr

    (bench / "noc.json").unlink()
    write(bench, "boot.json", [])
    r = run(bench, out)
    assert r.returncode == 2 and "boot.meta.json: missing beside boot.json" in r.stderr, r.stderr
    assert out.read_text() == "the page before\n"


def test_every_benchmarks_own_verdict_form_becomes_met_or_missed(tmp_path):
    """bench-boot says PASS/MISS, bench-coll and bench-sim a verdict string, bench-balance a met flag per
    point, bench-alloc claims that hold or not: each is shown as the benchmark judged it, on its clock."""
    bench = tmp_path / "bench"
    bench.mkdir()
    write(bench, "boot.json", [{"harts": 128, "accel": "single", "ok": True, "host_wall_s_median": 1.2,
                                "guest_bringup_us": 35000, "kernel_share": 0.03}])
    write(bench, "boot.meta.json", {"date": "2031-01-03", "goals": [
        {"goal": "128 harts online in under 3 s", "harts": 128, "accel": "single", "value": 1.2, "verdict": "PASS"},
        {"goal": "kernel share under 10%", "harts": 128, "accel": "single", "value": 0.31, "verdict": "MISS"}]})
    write(bench, "coll.json", {"how": {"harts": 16, "reps": 1, "date": "2031-01-03"}, "penalty": {},
                               "goals": {"tuned_near_best": {"verdict": "MISSED", "near": 80, "points": 100,
                                                             "limit_ratio": 1.1, "share": 0.8, "limit_share": 0.9},
                                         "loose_pipelines": {"verdict": "MET", "measured": 6.5, "limit": 1.5}}})
    write(bench, "balance.json", {"how": {"date": "2031-01-03", "reps": 1, "configs": [{"name": "12 on 8"}]},
                                  "goals": [{"goal": "speed-beats-rr", "where": "12 on 8, spmd, wait spin",
                                             "met": True, "numbers": "speed 205.4 ms vs rr 252.9 ms"}],
                                  "verdict": {"claim": "speed balancing wins", "holds_in": 0, "of": 1}})
    write(bench, "sim.json", {"date": "2031-01-03", "goal": "MISSED", "wall_s": 1900.0, "goal_s": 1800,
                              "workers": 2, "meshes": [16], "runs_per_point": 3})
    write(bench, "alloc.json", {"how": {"date": "2031-01-03", "clock": "virtual (vtime=1)", "meshes": ["5x5"],
                                        "reps": 3, "quick": True},
                                "claims": [{"id": "sparse", "figures": "5.1a", "verdict": "holds in part"}]})
    out = tmp_path / "results.md"
    r = run(bench, out)
    assert r.returncode == 0, r.stdout + r.stderr
    page = out.read_text()
    for row in ("| Boot time | 128 harts online in under 3 s | MET | host wall time |",
                "| Boot time | kernel share under 10% | MISSED | host wall time |",
                "| Collectives | tuned_near_best | MISSED | virtual (each core's own clock, vtime=1) |",
                "| Collectives | loose_pipelines | MET | virtual (each core's own clock, vtime=1) |",
                "| Share groups and balancing | speed-beats-rr (12 on 8, spmd, wait spin) | MET | virtual",
                "| The protocol simulator | whole_set_in_time | MISSED | host wall time |"):
        assert row in page, row
    assert "80 of 100 points within 1.1x of the best (80%, goal 90%)" in page
    assert "| sparse | 5.1a | holds in part |" in page and "a --quick run, not the thesis's set" in page


def test_every_benchmark_on_the_page_links_a_section_of_benchmarks_md():
    """The page's links into docs/benchmarks.md must land: each benchmark's section heading is there."""
    from benchresults.page import BENCHMARKS

    def slug(heading):
        return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")

    sections = {slug(line[3:]) for line in (ROOT / "docs" / "benchmarks.md").read_text().splitlines()
                if line.startswith("## ")}
    for b in BENCHMARKS:
        assert b.section in sections, (b.name, b.section)
