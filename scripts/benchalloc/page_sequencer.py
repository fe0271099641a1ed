"""docs/experiments.md: what each policy costs alone, and another run attached with --compare.

Why: one job alone is the baseline the claims' differences are read against, and the attached run is summed up
in its verdicts and how far its means lie from this run's (its figures are in its own JSON); both are apart from
the claims' prose.
"""
import statistics

from .claims import claims, short
from .config import POLICIES
from .fmt import clock_of, md_us
from .page_claims import _panel

def run_to_run_moves(figs, other):
    """Per policy: |mean here - mean there| / mean there in %, over the job ranks of Figs. 5.1-5.3 in both runs."""
    pairs = []
    for p in figs.get("5.1", {}).get("panels", []):
        q = _panel(other, p["panel"], p["mesh"])
        if q:
            pairs.append((p, q, "wait_ns"))
    for fig in ("5.2", "5.3"):
        for p in figs.get(fig, {}).get("points", []):
            q = next((x for x in other.get(fig, {}).get("points", []) if x["mesh"] == p["mesh"] and
                      x.get("n") == p.get("n")), None)
            if q:
                pairs.append((p, q, "wait_ns"))
    out = {}
    for p, q, metric in pairs:
        for pol in POLICIES:
            a, b = p["policies"].get(pol, {}).get("by_rank", []), q["policies"].get(pol, {}).get("by_rank", [])
            for ra, rb in zip(a, b):
                x, y = ra.get(metric), rb.get(metric)
                if x and y and y["mean"]:
                    out.setdefault(pol, []).append(abs(x["mean"] - y["mean"]) / y["mean"] * 100)
    return out


def docs_sequencer(data):
    """What each policy costs alone (one job, Fig. 5.3 n = 1), and the attached run's verdicts."""
    figs = data["figures"]
    L = []
    add = L.append
    p53 = {(p["mesh"], p["n"]): p for p in figs.get("5.3", {}).get("points", [])}
    singles = [(m, p53[(m, 1)]) for m in data["how"]["meshes"] if (m, 1) in p53 and "ac_change_pct" in p53[(m, 1)]]
    if singles:
        add("### One job alone")
        add("")
        ratios = [p["policies"]["ab"]["first_wait_ns"]["mean"] / p["policies"]["ac"]["first_wait_ns"]["mean"]
                  for _, p in singles]
        same = all(0.9 <= r <= 1.1 for r in ratios)
        add("One whole-machine job alone (Fig. 5.3, n = 1), which meets no other job, shows what each policy costs "
            "by itself: " + "; ".join(f"{m}: ac {md_us(p['policies']['ac']['first_wait_ns'])}, "
                                     f"ab {md_us(p['policies']['ab']['first_wait_ns'])}" for m, p in singles) + ". "
            + ("The two policies cost the same there, within 10 %, so the differences below come from how the "
               "jobs meet." if same else
               "The sequencer costs " + ", ".join(f"{r:.1f}" for r in ratios) + " times as much there.")
            + " The sequencer is chosen once at boot ([allocation.md](allocation.md)): looked up again after every "
            "event, it made a wave cost in the order of N³.")
        add("")
    comp = data.get("comparison")
    if not comp:
        return L
    cf = comp["figures"]
    cover = []
    for fig in ("5.1", "5.2", "5.3", "5.4", "5.5", "5.6"):
        f = cf.get(fig)
        if not f:
            continue
        items = f.get("panels") or f.get("points") or f.get("meshes") or []
        ms = sorted({i["mesh"] for i in items}, key=lambda m: int(m.split("x")[0]))
        cover.append(f"{fig} on {ms[0]}" + (f" to {ms[-1]}" if fig == "5.2" and len(ms) > 1 else
                                             "".join(f", {m}" for m in ms[1:])) if ms else fig)
    add("### An attached run")
    add("")
    add(f"**Another run** ({comp['how'].get('date')}, {comp['how'].get('reps')} runs per point; "
        f"{'; '.join(cover)}): " + comp["note"].rstrip(".") + ".")
    add("")
    other_clock = clock_of(comp["how"]) != clock_of(data["how"])
    moved = None if other_clock else run_to_run_moves(figs, cf)  # across clocks: see the clocks section
    if moved:
        add("How far the two runs' means lie apart, over every job of Figs. 5.1 to 5.3 that both measured "
            "(|this - attached| / attached): " + "; ".join(
                f"{q}: median {statistics.median(v):.0f} %, largest {max(v):.0f} % ({len(v)} means)"
                for q, v in moved.items()) + ". Set these beside the RSD of a single run: the runs of one boot "
            "share its kernel binary, and a different binary (code that moved, a few instructions more or less on "
            "a path) changes the order in which messages meet, and that can move a mean further than the spread "
            "within one boot suggests.")
        add("")
    cc = {c["id"]: c for c in claims(cf)}
    parts = [f"{name}: {cc[cid]['verdict']} ({short(cc, cid)})" for cid, name in
             (("sparse", "sparse jobs"), ("dense", "dense worst case"), ("serial", "serial jobs (5.1c-f)"),
              ("tiles", "tile size (5.2)")) if cid in cc and cc[cid]["verdict"] != "not measured"]
    if parts:
        add("In the attached run the verdicts read: " + "; ".join(parts) + ".")
        add("")
    return L
