"""docs/experiments.md: where the figures are, and the "Failures" section, with the probes' crash check.

Why: these sections say where the measured numbers are and what failed, without verdicts, straight from alloc.json.
"""
from .config import ROOT


def docs_figures(figs, how):
    """Where the figures are: the CSV files, the plots, the JSON, and results.md for the verdicts."""
    shown = [f for f in ("5.1", "5.2", "5.3", "5.4", "5.5", "5.6") if figs.get(f)]
    return ["## Where the figures are", "",
            "Every figure's numbers are in `build/bench/alloc_fig5_*.csv` (per point and job: mean, median, standard "
            "deviation, RSD, minimum and maximum, and the protocol messages per run), drawn in "
            "`build/bench/alloc_fig5_*.png`, with every run's raw values, QEMU command lines and boot arguments in "
            "`build/bench/alloc.json`" + (f" (this run: Figs. {', '.join(shown)})" if shown else "") + ". "
            "[results.md](results.md) shows the verdicts of the latest run beside the other benchmarks' goals.", ""]


def probe_sentence(probes):
    """What the probe boots (1 ms runs under ab) say about the old crash, for the setup section."""
    if not probes:
        return "This run did not boot the 1 ms probes, so it says nothing about the old 1 ms crash under ab."
    if all(p["ok"] for p in probes):
        return ("The probes of this run ([Failures](#failures)) check that the sequencer policy also runs "
                "the thesis-like 1 ms jobs cleanly; they did.")
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
        L.append("Two extra boots on every full run check that the sequencer policy runs the thesis-like 1 ms "
                 "jobs cleanly (it once crashed the kernel there):")
        L.append("")
        for p in probes:
            panic = p.get("panic")
            if not panic:
                try:
                    panic = next((ln.strip() for ln in open(ROOT / p["log"], errors="replace") if "PANIC" in ln),
                                 None)
                except OSError:
                    panic = None
            state = ("ran cleanly"
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
