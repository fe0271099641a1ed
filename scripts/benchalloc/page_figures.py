"""docs/experiments.md: the "All figures" tables and the "Failures" section, with the probes' crash check.

Why: these sections list what was measured and what failed, without verdicts, straight from alloc.json.
"""
from .config import POLICIES, ROOT
from .figures import realtask
from .fmt import fmt_run, md_n, md_pct, md_table, md_us
from .page_claims import _msgs
from .stats import rank


def docs_figures(figs, how):
    """The 'All figures' section: every figure's means, RSD and messages per run."""
    L = []
    add = L.append
    add("## All figures")
    add("")
    add("Means over the runs, with the RSD; the CSV files have the median, standard deviation, minimum and maximum "
        "too, and the JSON every run. Plots: `build/bench/alloc_fig5_1a.png` to `alloc_fig5_6.png`.")
    add("")

    def ms(s):
        return "-" if not s else f"{md_us(s)} ({s['rsd_pct']:.0f} %)"

    for p in figs.get("5.1", {}).get("panels", []):
        ac, ab = p["policies"].get("ac", {}), p["policies"].get("ab", {})
        add(f"**Fig. 5.1{p['panel']}**, {p['mesh']}, K = {p['K']} ({p['cores_per_job']} cores), runs of "
            f"{fmt_run(p['run_us'])}: messages per run ac {md_n(_msgs(ac))}, ab {md_n(_msgs(ab))}")
        add("")
        rows = [[i + 1, ms(rank(ac, i, "wait_ns")), ms(rank(ab, i, "wait_ns")),
                 md_pct((p.get("ac_change_pct", {}).get("wait_ns") or [None] * 4)[i]),
                 f"{(rank(ac, i, 'cancels') or {}).get('mean', 0):.1f}"] for i in range(4)]
        add(md_table(["job", "ac (RSD)", "ab (RSD)", "ac vs ab", "ac cancels"], rows))
        add("")
    pts = figs.get("5.3", {}).get("points", [])
    if pts:
        add("**Fig. 5.3**: messages per run")
        add("")
        add(md_table(["mesh", "n", "ac", "ab", "ac first-job RSD", "ab first-job RSD"], [
            [p["mesh"], p["n"], md_n(_msgs(p["policies"].get("ac"))), md_n(_msgs(p["policies"].get("ab"))),
             md_pct((p["policies"].get("ac", {}).get("first_wait_ns") or {}).get("rsd_pct"), False),
             md_pct((p["policies"].get("ab", {}).get("first_wait_ns") or {}).get("rsd_pct"), False)] for p in pts]))
        add("")
    pts = figs.get("5.2", {}).get("points", [])
    if pts:
        add("**Fig. 5.2**: messages per run")
        add("")
        add(md_table(["tile", "ac", "ab"], [[p["mesh"], md_n(_msgs(p["policies"].get("ac"))),
                                             md_n(_msgs(p["policies"].get("ab")))] for p in pts]))
        add("")
    for fig in ("5.4", "5.5"):
        for f in realtask(figs, fig):
            add(f"**Fig. {fig}**, real-task mode, {f['mesh']}, {f['jobs']} jobs of {f['cores_per_job']} cores: wait, "
                "allocation (submission to allocation), run time")
            add("")
            rows = []
            for i in range(f["jobs"]):
                row = [i + 1]
                for metric in ("wait_ns", "alloc_ns", "run_ns"):
                    row += [ms(rank(f["policies"].get(q, {}), i, metric)) for q in POLICIES]
                rows.append(row)
            add(md_table(["job", "wait ac", "wait ab", "alloc ac", "alloc ab", "run ac", "run ab"], rows))
            add("")
    return L


def probe_sentence(probes):
    """What the probe boots (1 ms runs under ab) say about the old crash, for the setup section."""
    if not probes:
        return "This run did not boot the 1 ms probes, so it says nothing about the old 1 ms crash under ab."
    if all(p["ok"] for p in probes):
        return ("With 1 ms runs the sequencer policy used to crash the kernel; the probes of this run (see "
                "[Failures](#failures)) ran cleanly, so the crash is fixed, and the 2 s runs stay for comparison "
                "with the earlier runs.")
    return "With 1 ms runs the sequencer policy crashes the kernel (see [Failures](#failures))."


def docs_failures(data):
    """The 'Failures' section: failed configurations, and what the probes found."""
    L = ["## Failures", ""]
    failed = [b for b in data["boots"] if not b.get("ok") and b["figure"] != "probe"]
    probes = data["figures"].get("probes", [])
    if not failed:
        L.append("Every configuration of the figures above ran to the end with status 0 and all its runs.")
        L.append("")
    for b in failed:
        L.append(f"- `{b['id']}` ({b['harts']} harts, `{b['bootargs']}`): {b.get('error')}; log `{b['log']}`.")
    if failed:
        L.append("")
    if probes:
        L.append("A kernel crash under ab with the thesis-like 1 ms run time (fixed in 19f3d2e), checked on every "
                 "full run by two extra boots:")
        L.append("")
        for p in probes:
            panic = p.get("panic")
            if not panic:
                try:
                    panic = next((ln.strip() for ln in open(ROOT / p["log"], errors="replace") if "PANIC" in ln),
                                 None)
                except OSError:
                    panic = None
            state = ("ran cleanly: the crash is gone, and Figs. 5.1a, 5.1b and 5.2 could use 1 ms runs again"
                     if p["ok"] else f"{p['error']}" + (f"; `{panic}`" if panic else ""))
            L.append(f"- `{p['boot']}`: `{p['command']}` on {p['mesh']} under ab: {state}; log `{p['log']}`.")
        L.append("")
        if not all(p["ok"] for p in probes):
            L.append("Under the sequencer policy, a job whose run ends while protocol messages for it are still on "
                     "their way makes its home micro-kernel fail `ASSERT(j)` in `mk_commit` "
                     "(portable/alloc/mk.c): a late commitment finds no job. It needs runs shorter than the time the "
                     "sequencer takes over the other jobs. In the exploratory boots made while this benchmark was "
                     "written, 1 ms runs hit it with corner jobs of 2 to 6 micro-kernels on 5x5 and 7x7, corner jobs "
                     "of 30 on 11x11, and Fig. 5.2 from 7x7 on, with the invariant checker on or off; runs of 10 ms "
                     "and more avoided it on 7x7, and 2 s on every mesh measured. The benchmark does not change the "
                     "kernel; Figs. 5.1a, 5.1b and 5.2 use 2 s runs instead.")
            L.append("")
    return L
