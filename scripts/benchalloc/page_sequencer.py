"""docs/experiments.md: the sequencer's cost and the fix that changed it, and another run attached with --compare.

Why: whether the page's runs had the fix is a fact about git history (has_commit), and the attached run is
compared figure by figure; both are apart from the claims' prose.
"""
import statistics
import subprocess

from .claims import claims, short
from .config import POLICIES, ROOT
from .fmt import clock_of, md_pct, md_table, md_us
from .page_claims import _panel
from .stats import rank

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


SEQUENCER_FIX = "19f3d2e"  # the commit that chose the sequencer once at boot


def has_commit(revision, commit):
    """True or False if the run's revision ("abc1234 (kernel sources clean)") contains commit; None if unknown."""
    rev = (revision or "").split(" ")[0]
    if not rev:
        return None
    r = subprocess.run(["git", "-C", str(ROOT), "merge-base", "--is-ancestor", commit, rev], capture_output=True)
    return {0: True, 1: False}.get(r.returncode)


def fix_sentence(how):
    """Whether every run behind this page had the sequencer fix."""
    revs = [how.get("revision")] + ([how["earlier_run"].get("revision")] if how.get("earlier_run") else [])
    known = [has_commit(r, SEQUENCER_FIX) for r in revs]
    if all(k is True for k in known):
        return "Every figure on this page was measured after that fix."
    if any(k is False for k in known):
        return (("The figures" if all(k is False for k in known) else "Some figures") + " on this page were "
                "measured before that fix (repository at "
                + ", ".join(r.split(" ")[0] for r, k in zip(revs, known) if k is False) + ").")
    return "Whether the kernel of this page's run had that fix is not known (its revision is not in this repository)."


def docs_sequencer(data):
    """The sequencer's cost: one job alone under both policies, the fix that made them equal, and an attached run."""
    figs = data["figures"]
    L = []
    add = L.append
    add("### The sequencer's centre search (fixed)")
    add("")
    p53 = {(p["mesh"], p["n"]): p for p in figs.get("5.3", {}).get("points", [])}
    singles = [(m, p53[(m, 1)]) for m in data["how"]["meshes"] if (m, 1) in p53 and "ac_change_pct" in p53[(m, 1)]]
    if singles:
        ratios = [p["policies"]["ab"]["first_wait_ns"]["mean"] / p["policies"]["ac"]["first_wait_ns"]["mean"]
                  for _, p in singles]
        same = all(0.9 <= r <= 1.1 for r in ratios)
        add("One whole-machine job alone (Fig. 5.3, n = 1), which meets no other job, shows what each policy costs "
            "by itself: " + "; ".join(f"{m}: ac {md_us(p['policies']['ac']['first_wait_ns'])}, "
                                     f"ab {md_us(p['policies']['ab']['first_wait_ns'])}" for m, p in singles) + ". "
            + ("The two policies cost the same there, within 10 %, so the differences below come from how the "
               "jobs meet." if same else
               "The sequencer costs " + ", ".join(f"{r:.1f}" for r in ratios) + " times as much there."))
        add("")
    add("A run of this benchmark on 2026-11-22 (kernel 92bdc15) measured a sequencer 10 to 100 times "
        "slower than this one does, and most of its verdicts followed from that. The cause was in the kernel, not in the protocol: "
        "`ab_periodic` (portable/alloc/policy_ab.c) runs on every micro-kernel after every event that changed its "
        "state, and it looked up the sequencer each time with a fresh search for the mesh centre: for each of the "
        "N micro-kernels, the hop distance to all N, on every micro-kernel after almost every message, so a wave "
        "cost in the order of N³. Since commit 19f3d2e the sequencer is chosen once at boot (`alloc_init`, "
        "now `alloc_world_init` in kernel/alloc/binding.c), and it never moves. " + fix_sentence(data["how"]))
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
    rows = []
    for m in comp["how"].get("meshes", []):
        for n in sorted(n for (mm, n) in p53 if mm == m):
            a, b = p53.get((m, n)), next((p for p in cf.get("5.3", {}).get("points", [])
                                          if p["mesh"] == m and p["n"] == n), None)
            if not a or not b or "ac_change_pct" not in a or "ac_change_pct" not in b:
                continue
            rows.append([m, n, md_us(a["policies"]["ac"]["first_wait_ns"]), md_us(a["policies"]["ab"]["first_wait_ns"]),
                         md_pct(a["ac_change_pct"]["first"]), md_us(b["policies"]["ac"]["first_wait_ns"]),
                         md_us(b["policies"]["ab"]["first_wait_ns"]), md_pct(b["ac_change_pct"]["first"])])
    if rows:
        add("Fig. 5.3, wait of the first job: this run, and the attached one")
        add("")
        add(md_table(["mesh", "n", "ac", "ab", "ac vs ab", "ac (att.)", "ab (att.)", "ac vs ab (att.)"], rows))
        add("")
    rows = []
    for p in cf.get("5.1", {}).get("panels", []):
        a = _panel(figs, p["panel"], p["mesh"])
        if not a or "ac_change_pct" not in a or "ac_change_pct" not in p:
            continue
        rows.append([f"5.1{p['panel']} {p['mesh']}", ", ".join(md_pct(x) for x in a["ac_change_pct"]["wait_ns"]),
                     ", ".join(md_pct(x) for x in p["ac_change_pct"]["wait_ns"]),
                     md_us(rank(a["policies"]["ab"], 0, "wait_ns")), md_us(rank(p["policies"]["ab"], 0, "wait_ns"))])
    for p in cf.get("5.2", {}).get("points", []):
        a = next((x for x in figs.get("5.2", {}).get("points", []) if x["n"] == p["n"]), None)
        if a and "ac_change_pct" in a and "ac_change_pct" in p:
            fl = ("first", "last")
            rows.append([f"5.2 {p['mesh']} (first, last)", ", ".join(md_pct(a["ac_change_pct"][k]) for k in fl),
                         ", ".join(md_pct(p["ac_change_pct"][k]) for k in ("first", "last")),
                         md_us(a["policies"]["ab"]["first_wait_ns"]), md_us(p["policies"]["ab"]["first_wait_ns"])])
    if rows:
        add("Figs. 5.1 and 5.2: ac vs ab per job, and the sequencer's first job, in both runs")
        add("")
        add(md_table(["figure", "ac vs ab", "ac vs ab (att.)", "ab job 1", "ab job 1 (att.)"], rows, left=3))
        add("")
    cc = {c["id"]: c for c in claims(cf)}
    parts = [f"{name}: {cc[cid]['verdict']} ({short(cc, cid)})" for cid, name in
             (("sparse", "sparse jobs"), ("dense", "dense worst case"), ("serial", "serial jobs (5.1c-f)"),
              ("tiles", "tile size (5.2)")) if cid in cc and cc[cid]["verdict"] != "not measured"]
    if parts:
        add("In the attached run the verdicts read: " + "; ".join(parts) + ".")
        add("")
    return L
