"""docs/experiments.md: the claims on the cores' own clocks beside the same experiments on the serial clock.

Why: issue 13 asks that every verdict be given in virtual time with the serial verdict beside it and every
difference explained. The numbers and verdicts come from the two runs' JSON; the explanations are written by a
person after reading both runs, so each is keyed by the pair of verdicts it explains and is shown only while the
runs still give that pair (a re-run that changes a verdict shows "not explained" instead of a stale reason).
"""
import statistics

from .claims import iter_entries, short
from .fmt import md_table

CLAIM_NAMES = {"sparse": "Active cancellation cheaper for sparse jobs",
               "dense": "Sequencer cheaper for dense worst cases",
               "propagation": "Pattern propagation fastest, naive broadcast slowest",
               "flooding": "Flooding degrades past about 43 nodes",
               "serial": "Active cancellation pays 12-17 % for serial jobs",
               "tiles": "Active cancellation's first job gains 6-60 % as tiles grow",
               "rsd": "RSD below 20 % except 5.1b"}

# (claim, verdict on the serial clock, verdict on the virtual clock) -> why they differ (or agree), from the
# runs of 2026-11-24 (docs/experiments.md's "How it was run")
EXPLANATIONS = {}


def _means(figs):
    """{label: mean} of every wait figure of a run (the labels of claims.iter_entries)."""
    return {label: st["mean"] for group in iter_entries(figs) for label, st in group if st and st.get("mean")}


def serial_over_virtual(virtual_figs, serial_figs):
    """Per figure: (points, median, min, max) of the serial mean over the virtual mean, over every point of both."""
    v, s = _means(virtual_figs), _means(serial_figs)
    by_fig = {}
    for label in v.keys() & s.keys():
        if v[label] > 0:
            by_fig.setdefault(label.split()[0], []).append(s[label] / v[label])
    return {f: (len(r), statistics.median(r), min(r), max(r)) for f, r in sorted(by_fig.items())}


def docs_clocks(data, cl, dc):
    """The section: both verdicts per claim, how far the clocks' times lie apart, and why verdicts differ."""
    comp = data["comparison"]
    L = []
    add = L.append
    add("## Virtual against serial clock")
    add("")
    add("The same experiments, the same kernel and the same jobs, measured twice: on the cores' own virtual clocks "
        "(this page's figures) and on the machine's serial clock (the attached run, "
        f"`{comp['how'].get('command')}`, {comp['how'].get('date')}). On the serial clock QEMU's harts run one at "
        "a time and every time is the sum of all the harts' work while it passed; on the virtual clocks a "
        "micro-kernel's time is its own work and the messages' flights, and work on different micro-kernels "
        "overlaps.")
    add("")
    rows = []
    for cid, name in CLAIM_NAMES.items():
        if cid not in cl:
            continue
        sv = dc.get(cid, {}).get("verdict", "not measured")
        rows.append([name, f"**{cl[cid]['verdict']}**", sv, short(cl, cid) or "-",
                     (short(dc, cid) if cid in dc else "") or "-"])
    add(md_table(["claim", "virtual clock", "serial clock", "virtual, in short", "serial, in short"], rows, left=5))
    add("")
    ratios = serial_over_virtual(data["figures"], comp["figures"])
    if ratios:
        add("How much longer the serial clock makes the waits, figure by figure (the serial mean over the virtual "
            "mean of the same point; every job rank, policy, mesh and scheme of the figure):")
        add("")
        add(md_table(["figure", "points", "median", "smallest", "largest"],
                     [[f, n, f"{med:.2f}x", f"{lo:.2f}x", f"{hi:.2f}x"] for f, (n, med, lo, hi) in ratios.items()]))
        add("")
    add("Why the verdicts differ, or agree:")
    add("")
    for cid, name in CLAIM_NAMES.items():
        if cid not in cl:
            continue
        sv, vv = dc.get(cid, {}).get("verdict", "not measured"), cl[cid]["verdict"]
        why = EXPLANATIONS.get((cid, sv, vv))
        same = "the same verdict on both clocks" if sv == vv else f"{sv} on the serial clock, {vv} on the virtual"
        add(f"- **{name}** ({same}). " + (why or "Not explained yet for this pair of verdicts: the runs changed "
                                                 "since the explanations were written."))
    add("")
    return L
