"""scripts/bench-alloc's modules (scripts/benchalloc/) on known inputs, and the entry script's own options.

Host-only: nothing here boots QEMU or needs a kernel; the statistics, the plan, the verdicts and the page's
formats are checked on small hand-made values, so a change to any of them shows here in a second.
"""
import types

from conftest import ROOT, run_script

from benchalloc import claims, config, fmt, plan, stats
from benchalloc.figures import assemble
from benchalloc.tables import write_csvs

SCRIPT = ROOT / "scripts" / "bench-alloc"


HOST_ONLY = True  # no build/mosaic.elf needed (conftest.kernel_built)


def run(*args):
    return run_script(SCRIPT, *args)


def test_stats_known_values():
    s = stats.stats([1, 2, 3, 4, None])  # None (a value a run did not report) is left out
    assert s == {"n": 4, "mean": 2.5, "median": 2.5, "stdev": 1.3, "rsd_pct": 51.64, "min": 1, "max": 4}
    assert stats.stats([7])["stdev"] == 0.0  # one run: no spread, not an error
    assert stats.stats([]) is None and stats.stats([None]) is None
    assert [stats.rint(x) for x in (0.5, 1.5, 2.5, 2.49)] == [1, 2, 3, 2]  # halves up, unlike round()


def test_change_pct_is_the_thesis_convention():
    assert stats.change_pct({"mean": 25}, {"mean": 100}) == 75.0   # ac cheaper: positive
    assert stats.change_pct({"mean": 150}, {"mean": 100}) == -50.0
    assert stats.change_pct({"mean": 1}, {"mean": 0}) is None       # no ratio to a zero or negative time
    assert stats.change_pct({"mean": -5}, {"mean": 10}) is None
    assert stats.change_pct(None, {"mean": 10}) is None


def job(run, home, submit, alloc, start, end):
    return {"run": run, "tag": home, "home": home, "status": 0, "t_submit_ns": submit, "t_alloc_ns": alloc,
            "t_start_ns": start, "t_end_ns": end, "wait_ns": start - submit, "alloc_ns": alloc - submit,
            "cancels": 0, "msgs": 10}


def test_summarise_scenario_ranks_by_start_and_measures_serial_jobs():
    # two runs of two serial jobs; in run 2 the home-1 job starts first
    jobs = [job(1, 0, 0, 100, 200, 1200), job(1, 1, 0, 1300, 1400, 2400),
            job(2, 0, 0, 1500, 1600, 2600), job(2, 1, 0, 300, 400, 1400)]
    res = {"jobs": jobs, "runs": [{"makespan_ns": 2400, "total_msgs": 20}, {"makespan_ns": 2600, "total_msgs": 22}]}
    s = stats.summarise_scenario(res, 2)
    assert s["runs"] == 2
    first, second = s["by_rank"]
    assert first["wait_ns"]["mean"] == 300.0 and first["homes"] == {"0": 1, "1": 1}
    # the second job waits 1400 or 1600, of which 1000 is the first job's run: exclusive 400 or 600
    assert second["wait_ns"]["mean"] == 1500.0 and second["exclusive_wait_ns"]["mean"] == 500.0
    assert second["handover_ns"]["mean"] == 100.0  # allocation 100 ns after the previous job's end
    assert [h["home"] for h in s["by_home"]] == [0, 1]
    assert s["makespan_ns"]["mean"] == 2500.0
    # an incomplete run (one job missing) is left out
    assert stats.summarise_scenario({"jobs": jobs[:3], "runs": []}, 2)["runs"] == 1


def quick_args(**kw):
    a = dict(meshes=[5], reps=3, only=None, tiles=[2, 3, 4], check=False, simul_cap=3 / 8, quick=True,
             no_probes=False)
    a.update(kw)
    return types.SimpleNamespace(**a)


def test_plan_quick_and_only():
    boots = plan.plan(quick_args())
    assert len(boots) == 34  # what `scripts/bench-alloc --quick` boots
    assert len({b.id for b in boots}) == len(boots)
    for b in boots:
        cmd = b.bootargs.split('cmd="', 1)[1].rstrip('"')
        assert len(cmd) <= config.CMD_MAX, b.id  # the kernel takes at most 255 characters
        assert "alloc_check=0" in b.bootargs
    only = plan.plan(quick_args(only=["5.1c"]))
    assert sorted(b.id for b in only) == ["5.1c-5x5-ab", "5.1c-5x5-ac"]
    assert plan.scaled_k(49, 121) == 121 and plan.scaled_k(24, 121) == 59 and plan.scaled_k(3, 121) == 7


def test_assemble_claims_and_csv_from_fake_results(tmp_path):
    """A Fig. 5.1a pair whose ac waits are a quarter of ab's: the sparse claim must hold for every job."""
    boots = plan.plan(quick_args(only=["5.1a"]))
    for b in boots:
        k = 1 if b.meta["policy"] == "ac" else 4
        jobs = [job(r, h, 0, 10 * k * (h + 1), 100 * k * (h + 1), 10 ** 6) for r in (1, 2, 3) for h in range(4)]
        b.result = {"ok": True, "log": "x.log", "jobs": jobs, "propbench": [],
                    "runs": [{"makespan_ns": 10 ** 6, "total_msgs": 40}] * 3}
    figs = assemble(boots)
    (panel,) = figs["5.1"]["panels"]
    assert panel["ac_change_pct"]["wait_ns"] == [75.0] * 4
    sparse = next(c for c in claims.claims(figs) if c["id"] == "sparse")
    assert (sparse["jobs_where_ac_cheaper"], sparse["jobs_compared"], sparse["verdict"]) == (4, 4, "holds")
    (path,) = write_csvs(figs, tmp_path)
    rows = path.read_text().splitlines()
    assert path.name == "alloc_fig5_1a.csv" and rows[0].startswith("figure,mesh,harts,series")
    assert len(rows) == 1 + 8  # a row per job rank and policy


def test_verdicts_and_formats():
    assert claims.verdict(0, 0) == "not measured"
    assert [claims.verdict(n, 3) for n in (3, 1, 0)] == ["holds", "holds in part", "does not hold"]
    assert claims.ac_wins(2.5) and not claims.ac_wins(claims.TIE_PCT) and claims.ab_wins(-3)
    assert fmt.md_us({"mean": 1_234_000}) == "1.23 ms" and fmt.md_us({"mean": 45_600}) == "46 µs"
    assert fmt.md_pct(5.25) == "+5.2 %" and fmt.md_pct(-42) == "-42 %" and fmt.md_pct(None) == "-"
    assert fmt.span([10, 30]) == "ac 10 to 30 % cheaper" and fmt.span([-5, 7]) == "ac vs ab -5 to +7 %"
    assert fmt.md_table(["a", "b"], [[1, 2]]) == "| a | b |\n|---|---:|\n| 1 | 2 |"
    assert fmt.fmt_run(2000000) == "2 s" and fmt.fmt_run(1000) == "1 ms"


def test_entry_script_help_and_usage_errors(tmp_path):
    r = run("--help")
    assert r.returncode == 0
    assert r.stdout.startswith("usage: bench-alloc ") and "Fig. 5.6" in r.stdout and "--compare-note" in r.stdout
    r = run("--only", "5.9")
    assert r.returncode == 2 and "--only: '5.9' is not one of" in r.stderr
    r = run("--docs", "--out", tmp_path / "none.json")
    assert r.returncode == 1 and "cannot read" in r.stderr
