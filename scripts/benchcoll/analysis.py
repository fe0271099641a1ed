"""What bench-coll's lines mean: the best and worst fixed algorithm at every point, the tuned choice
against them, what loose synchronisation saves on a sequence, and the goals' verdicts.

A point is one collective at one group size n and block size in one mode; "fixed" means one named
algorithm for every call, "tuned" the table's choice after `coll tune` (kernel/msg/coll_tune.c).
"""

# The goals: one place for their limits (scripts/bench-coll prints and stores the verdicts).
GOALS = {
    "tuned_near_best": {
        "what": "the tuned choice is within 10% of the best fixed algorithm, at this share of the points "
                "(every collective, group size, block size and mode measured)",
        "limit_ratio": 1.10, "limit_share": 0.90,
        "why": "slides: autotuning picks the algorithm, because picking a bad one costs a lot",
    },
    "loose_pipelines": {
        "what": "16 back-to-back broadcasts of 512 B on the whole machine: strict time per broadcast over "
                "loose time per broadcast, at least this",
        "limit": 1.5,
        "why": "slides: loose synchronisation yields performance improvements, enables pipelining",
    },
}


def points_by_key(rows):
    """{(n, coll, bytes, mode): {"fixed": {algo: ns}, "tuned": ns, "chosen": algo}}."""
    out = {}
    for r in rows:
        if r.get("kind") != "point":
            continue
        p = out.setdefault((r["n"], r["coll"], r["bytes"], r["mode"]), {"fixed": {}, "tuned": None, "chosen": None})
        if r["algo"] == "auto":
            p["tuned"], p["chosen"] = r["ns"], r["chosen"]
        elif r["ns"]:
            p["fixed"][r["algo"]] = r["ns"]
    return out


def compare(points):
    """One row per point: best and worst fixed, the penalty of the worst, the tuned choice's ratio to the best."""
    table = []
    for (n, coll, nbytes, mode), p in sorted(points.items()):
        if not p["fixed"]:
            continue
        best = min(p["fixed"], key=p["fixed"].get)
        worst = max(p["fixed"], key=p["fixed"].get)
        row = {"n": n, "coll": coll, "bytes": nbytes, "mode": mode, "fixed_ns": p["fixed"],
               "best": best, "best_ns": p["fixed"][best], "worst": worst, "worst_ns": p["fixed"][worst],
               "penalty_of_worst": round(p["fixed"][worst] / p["fixed"][best], 3),
               "tuned_ns": p["tuned"], "tuned_chose": p["chosen"],
               "tuned_over_best": round(p["tuned"] / p["fixed"][best], 3) if p["tuned"] else None}
        table.append(row)
    return table


def sequences(rows):
    """{coll: {mode: [(k, ns, ns per op)]}} and the strict/loose ratio per op at every k."""
    seq = {}
    for r in rows:
        if r.get("kind") == "sequence":
            seq.setdefault(r["coll"], {}).setdefault(r["mode"], []).append(
                {"k": r["k"], "ns": r["ns"], "ns_per_op": round(r["ns"] / r["k"], 1), "n": r["n"],
                 "bytes": r["bytes"], "chosen": r["chosen"]})
    for coll, modes in seq.items():
        strict = {x["k"]: x for x in modes.get("strict", [])}
        for x in modes.get("loose", []):
            s = strict.get(x["k"])
            x["strict_over_loose"] = round(s["ns"] / x["ns"], 3) if s and x["ns"] else None
    return seq


def goals(table, seq):
    """The verdicts, each with its numbers."""
    g1 = GOALS["tuned_near_best"]
    judged = [r for r in table if r["tuned_over_best"] is not None]
    near = [r for r in judged if r["tuned_over_best"] <= g1["limit_ratio"]]
    share = len(near) / len(judged) if judged else 0.0
    worst_tuned = max(judged, key=lambda r: r["tuned_over_best"]) if judged else None
    out = {"tuned_near_best": dict(g1, points=len(judged), near=len(near), share=round(share, 3),
                                   worst_point=worst_tuned,
                                   verdict="MET" if judged and share >= g1["limit_share"] else "MISSED")}
    g2 = GOALS["loose_pipelines"]
    at16 = [x for x in seq.get("bcast", {}).get("loose", []) if x["k"] == 16]
    ratio = at16[0]["strict_over_loose"] if at16 else None
    out["loose_pipelines"] = dict(g2, measured=ratio,
                                  verdict="MET" if ratio is not None and ratio >= g2["limit"] else "MISSED")
    return out


def penalty_summary(table):
    """The slides' 'penalty for picking a bad algorithm': its largest and median value, and where."""
    if not table:
        return {}
    worst = max(table, key=lambda r: r["penalty_of_worst"])
    pens = sorted(r["penalty_of_worst"] for r in table)
    return {"max": worst["penalty_of_worst"], "median": pens[len(pens) // 2],
            "max_at": {k: worst[k] for k in ("n", "coll", "bytes", "mode", "best", "worst")},
            "points_over_2x": sum(p >= 2 for p in pens), "points": len(pens)}
