"""The thesis's claims, each checked against the measured means, with a verdict and the evidence behind it.

Why: the printed summary, alloc.json and docs/experiments.md all state the same verdicts; they come from here.
"""
from .config import SCHEMES, THESIS_NUMBERS
from .figures import realtask
from .fmt import md_pct, span


TIE_PCT = 2.0  # a relative change within +-2 % counts as a tie, not as a win for either policy


def ac_wins(c):
    return c is not None and c > TIE_PCT


def ab_wins(c):
    return c is not None and c < -TIE_PCT


def verdict(n_ok, n_all):
    """'holds', 'holds in part' or 'does not hold' from how many of the comparisons agree."""
    if n_all == 0:
        return "not measured"
    return "holds" if n_ok == n_all else "does not hold" if n_ok == 0 else "holds in part"


def claims(figs):
    """Each claim of the thesis checked against the measured means."""
    out = []

    def mean(e, metric, rank):
        try:
            return e["by_rank"][rank][metric]["mean"]
        except (KeyError, IndexError, TypeError):
            return None

    # 1. active cancellation is cheaper for sparse jobs (5.1a/b, 5.4)
    ev, ok, tot = [], 0, 0
    for p in figs.get("5.1", {}).get("panels", []):
        if p["panel"] in "ab" and "ac_change_pct" in p:
            ch = p["ac_change_pct"]["wait_ns"]
            good = sum(1 for c in ch if ac_wins(c))
            ok, tot = ok + good, tot + len(ch)
            ev.append({"figure": "5.1" + p["panel"], "mesh": p["mesh"], "ac_change_pct": ch})
    for f54 in realtask(figs, "5.4"):
        if "ac_change_pct" not in f54:
            continue
        ch = f54["ac_change_pct"]["wait_ns"]
        good = sum(1 for c in ch if ac_wins(c))
        ok, tot = ok + good, tot + len(ch)
        ev.append({"figure": "5.4", "mesh": f54["mesh"], "ac_change_pct": ch,
                   "ac_change_pct_protocol_part": f54["ac_change_pct"]["alloc_ns"]})
    out.append({"id": "sparse", "figures": "5.1a, 5.1b, 5.4",
                "thesis": "Active cancellation is cheaper than the sequencer when the jobs submitted at once can run "
                          "side by side (sparse allocations): 23-83 % lower waits in Fig. 5.1a, 21-73 % in 5.1b, "
                          "lower in real-task mode (Fig. 5.4).",
                "jobs_where_ac_cheaper": ok, "jobs_compared": tot, "verdict": verdict(ok, tot), "evidence": ev})

    # 2. the sequencer is cheaper for dense worst cases; crossover near 1/4 of the micro-kernels (5.3, 5.5)
    ev, parts = [], []
    for n_mk in sorted({p["micro_kernels"] for p in figs.get("5.3", {}).get("points", [])}):
        pts = [p for p in figs["5.3"]["points"] if p["micro_kernels"] == n_mk and "ac_change_pct" in p]
        if not pts:
            continue
        firsts = [(p["n"], p["ac_change_pct"]["first"]) for p in pts]
        cross = None
        for i, (n, _) in enumerate(firsts):
            if all(ab_wins(c) for _, c in firsts[i:]):
                cross = n
                break
        ab_better = [n for n, c in firsts if ab_wins(c)]
        ev.append({"figure": "5.3", "mesh": pts[0]["mesh"], "micro_kernels": n_mk, "quarter": n_mk / 4,
                   "first_job_ac_change_pct_by_n": firsts, "ab_cheaper_at_n": ab_better,
                   "crossover_n": cross, "largest_n": firsts[-1][0]})
        parts.append(ab_wins(firsts[-1][1]))                                # cheaper in the densest case
        parts.append(cross is not None and n_mk / 8 <= cross <= n_mk / 2)  # from about a quarter on
    for f55 in realtask(figs, "5.5"):
        if "ac_change_pct" not in f55:
            continue
        ch = f55["ac_change_pct"]["exclusive_wait_ns"]
        ev.append({"figure": "5.5", "mesh": f55["mesh"], "ac_change_pct_exclusive_wait": ch,
                   "ac_change_pct_wait": f55["ac_change_pct"]["wait_ns"],
                   "ac_change_pct_protocol_part": f55["ac_change_pct"]["handover_ns"]})
        parts.append(sum(1 for c in ch if ab_wins(c)) > len(ch) / 2)
    out.append({"id": "dense", "figures": "5.3, 5.5",
                "thesis": "The sequencer-based atomic broadcast is cheaper in the dense worst case (many "
                          "whole-machine jobs at once), once more than about 1/4 of the micro-kernels submit at "
                          "the same instant (Fig. 5.3); in real-task mode it 'performs much better' for four "
                          "whole-machine jobs (Fig. 5.5).",
                "verdict": verdict(sum(parts), len(parts)), "evidence": ev})

    # 3. pattern-based propagation fastest, naive broadcast slowest (5.6); 4. flooding degrades past ~43 nodes
    ev3, ok3, tot3, ev4, ok4, tot4 = [], 0, 0, [], 0, 0
    for mm in figs.get("5.6", {}).get("meshes", []):
        sch = mm["schemes"]
        if not all(s in sch for s in SCHEMES):
            continue
        nodes = [r["nodes"] for r in sch["naive"]["regions"]]
        t = {s: {r["nodes"]: (r["ns"] or {}).get("mean") for r in sch[s]["regions"]} for s in SCHEMES}
        full = max(nodes)
        at_full = {s: t[s].get(full) for s in SCHEMES}
        fastest = min(at_full, key=lambda s: at_full[s] or float("inf"))
        slowest = max(at_full, key=lambda s: at_full[s] or 0)
        regions_fast = sum(1 for n in nodes
                           if min(SCHEMES, key=lambda s: t[s][n] or float("inf")) in ("fixed", "adaptive"))
        regions_slow = sum(1 for n in nodes if max(SCHEMES, key=lambda s: t[s][n] or 0) == "naive")
        ok3 += (fastest in ("fixed", "adaptive")) + (slowest == "naive")
        tot3 += 2
        ev3.append({"mesh": mm["mesh"], "nodes": full, "mean_ns_at_full_region": at_full, "fastest": fastest,
                    "slowest": slowest, "regions": len(nodes), "regions_pattern_fastest": regions_fast,
                    "regions_naive_slowest": regions_slow,
                    "adaptive_over_fixed_at_full": round(at_full["adaptive"] / at_full["fixed"], 3)})
        ratio = {n: round(t["flood"][n] / t["naive"][n], 3) for n in nodes if t["flood"][n] and t["naive"][n]}
        below = [n for n in nodes if n <= 43]
        above = [n for n in nodes if n > 43]
        flood_better_below = [n for n in below if ratio.get(n, 9) < 1]
        reaches_naive = next((n for n in nodes if ratio.get(n, 0) >= 0.95 and
                              all(ratio.get(m, 0) >= 0.95 for m in nodes if m >= n)), None)
        if mm["micro_kernels"] >= 49:
            tot4 += 1
            ok4 += bool(below) and len(flood_better_below) == len(below) and bool(above) and \
                reaches_naive is not None and reaches_naive > 30
        ev4.append({"mesh": mm["mesh"], "flood_over_naive_by_nodes": ratio, "flood_cheaper_than_naive_at":
                    flood_better_below, "flood_as_costly_as_naive_from_nodes": reaches_naive,
                    "flood_msgs_at_full": (sch["flood"]["regions"][-1]["msgs"] or {}).get("mean"),
                    "naive_msgs_at_full": (sch["naive"]["regions"][-1]["msgs"] or {}).get("mean")})
    out.append({"id": "propagation", "figures": "5.6",
                "thesis": "Pattern-based propagation (fixed, and adaptive just behind it) takes the least time and "
                          "the naive broadcast the most; flooding is slightly better than naive.",
                "verdict": verdict(ok3, tot3), "evidence": ev3})
    out.append({"id": "flooding", "figures": "5.6",
                "thesis": "Flooding sends 2n(n-1) messages on an n x n tile; past a threshold its cost rises to "
                          "that of the naive broadcast, observed beyond 43 nodes.",
                "verdict": verdict(ok4, tot4), "evidence": ev4})

    # secondary: serial jobs (5.1c-f), tile size (5.2), RSD
    ev = []
    for p in figs.get("5.1", {}).get("panels", []):
        if p["panel"] in "cdef" and "ac_change_pct" in p:
            ev.append({"figure": "5.1" + p["panel"], "mesh": p["mesh"], "ac_change_pct": p["ac_change_pct"]["wait_ns"],
                       "thesis_pct": THESIS_NUMBERS["5.1" + p["panel"]]["change_pct"]})
    thesis_mesh = [e for e in ev if e["mesh"] == "7x7"] or ev
    n_worse_first = sum(1 for e in thesis_mesh if ab_wins(e["ac_change_pct"][0]))
    out.append({"id": "serial", "figures": "5.1c-f",
                "thesis": "When the four jobs cannot all run at once, active cancellation pays for the cancellations: "
                          "12-17 % more wait for the first job, a few % or less for the later ones; with long runs "
                          "(0.5 s) the difference after the first job all but vanishes.",
                "verdict": verdict(n_worse_first, len(thesis_mesh)), "evidence": ev})
    pts = figs.get("5.2", {}).get("points", [])
    ch = [(p["n"], p["ac_change_pct"]["first"], p["ac_change_pct"]["last"]) for p in pts if "ac_change_pct" in p]
    out.append({"id": "tiles", "figures": "5.2",
                "thesis": "For n jobs of n micro-kernels each on n x n, the first job waits 6 % (2x2) to 60 % (7x7) "
                          "less under active cancellation; the last job 1-12 % more on 2x2 and 3x3, up to 15 % less "
                          "on larger tiles.",
                "verdict": verdict(sum(1 for _, f, _ in ch if ac_wins(f)), len(ch)),
                "evidence": [{"n": n, "first_ac_change_pct": f, "last_ac_change_pct": la} for n, f, la in ch]})
    rsd = []
    for e in iter_entries(figs):
        for metric, s in e:
            if s and s["n"] > 1:
                rsd.append((s["rsd_pct"], metric, s["median"], s["max"]))
    big = sorted(rsd, reverse=True)[:5]
    out.append({"id": "rsd", "figures": "all",
                "thesis": "The relative standard deviation stays below 20 % everywhere except Fig. 5.1b (up to 41 %).",
                "max_rsd_pct": big[0][0] if big else None,
                "largest": [{"rsd_pct": r, "where": w, "median": med, "max": mx} for r, w, med, mx in big],
                "share_below_20_pct": round(sum(1 for r, *_ in rsd if r < 20) / len(rsd), 3) if rsd else None,
                "verdict": verdict(1 if big and big[0][0] < 41 else 0, 1) if big else "not measured"})
    return out


def iter_entries(figs):
    """(where, stats) of every plotted wait figure, for the RSD survey."""
    for p in figs.get("5.1", {}).get("panels", []):
        for pol, e in p["policies"].items():
            yield [(f"5.1{p['panel']} {p['mesh']} {pol} job {r['rank']}", r["wait_ns"]) for r in e.get("by_rank", [])]
    for fig in ("5.2", "5.3"):
        for p in figs.get(fig, {}).get("points", []):
            for pol, e in p["policies"].items():
                if e.get("by_rank"):
                    yield [(f"{fig} {p['mesh']} n={p['n']} {pol} first job", e["first_wait_ns"])]
    for fig, metric in (("5.4", "wait_ns"), ("5.5", "exclusive_wait_ns")):
        for f in realtask(figs, fig):
            for pol, e in f["policies"].items():
                yield [(f"{fig} {f['mesh']} {pol} job {r['rank']}", r[metric]) for r in e.get("by_rank", [])]
    for mm in figs.get("5.6", {}).get("meshes", []):
        for s, v in mm["schemes"].items():
            yield [(f"5.6 {mm['mesh']} {s} {r['nodes']} nodes", r["ns"]) for r in v["regions"]]


def short(cl, cid):
    """One line of numbers behind a verdict, for the summary table."""
    c = cl[cid]
    ev = c.get("evidence", [])
    try:
        if cid == "sparse":
            part = [x for e in ev if e["figure"].startswith("5.1") for x in e["ac_change_pct"] if x is not None]
            out = f"5.1a/b: {span(part)}" if part else ""
            for rt in (e for e in ev if e["figure"] == "5.4"):
                out += f"; 5.4 {rt['mesh']}: " + ", ".join(md_pct(x) for x in rt["ac_change_pct"]) + \
                    " (protocol part " + ", ".join(md_pct(x) for x in rt["ac_change_pct_protocol_part"]) + ")"
            return out
        if cid == "dense":
            out = []
            for e in ev:
                if e["figure"] == "5.3":
                    chs = [x for _, x in e["first_job_ac_change_pct_by_n"] if x is not None]
                    n_ab = e["ab_cheaper_at_n"]
                    out.append(f"5.3 {e['mesh']}: first job {span(chs)} at every n" if not n_ab else
                               f"5.3 {e['mesh']}: ab cheaper at {len(n_ab)} of {len(chs)} n, from n = {n_ab[0]}"
                               + (f" (crossover n = {e['crossover_n']}, 1/4 = {e['quarter']:g})"
                                  if e["crossover_n"] else ""))
                else:
                    chs = e["ac_change_pct_exclusive_wait"]
                    even = all(not ac_wins(x) and not ab_wins(x) for x in chs if x is not None)
                    out.append(f"5.5 {e['mesh']}: exclusive waits {'even' if even else span(chs)}"
                               + (f" ({', '.join(md_pct(x) for x in chs)})" if len(chs) <= 4 else ""))
            return "; ".join(out)
        if cid == "propagation":
            return "; ".join(f"{e['mesh']}: fastest {e['fastest']}, slowest {e['slowest']}" for e in ev)
        if cid == "flooding":
            return "; ".join(f"{e['mesh']}: flooding {min(e['flood_over_naive_by_nodes'].values()):.1f} to "
                             f"{max(e['flood_over_naive_by_nodes'].values()):.1f} x naive at every size" for e in ev
                             if e["flood_over_naive_by_nodes"])
        if cid == "serial":
            e7 = [e for e in ev if e["mesh"] == "7x7"] or ev
            firsts = [e["ac_change_pct"][0] for e in e7 if e["ac_change_pct"][0] is not None]
            return f"first job: {span(firsts)} (thesis: ac 12 to 17 % dearer)"
        if cid == "tiles":
            f = [(e["n"], e["first_ac_change_pct"]) for e in ev]
            (n0, c0), (n1, c1) = f[0], f[-1]
            return f"first job, ac vs ab: {c0:+.0f} % ({n0}x{n0}) to {c1:+.0f} % ({n1}x{n1})"
        if cid == "rsd":
            return f"{c['share_below_20_pct'] * 100:.0f} % of the means below 20 %; up to {c['max_rsd_pct']:.0f} %"
    except (KeyError, ValueError, IndexError, TypeError):
        return ""
    return ""
