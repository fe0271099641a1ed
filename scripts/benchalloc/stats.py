"""Statistics of the kernel's ALLOCJOB, ALLOCRUN and PROPBENCH lines: per-job-rank and per-region summaries.

Why: every figure reports the same numbers (mean, median, sample standard deviation, RSD) and the thesis's
relative change of active cancellation; keeping them here makes them testable without booting QEMU.
"""
import math
import statistics
from collections import Counter


def rint(x):
    """Rounds halves up, as the thesis's point counts expect (Python's round() rounds halves to even)."""
    return int(math.floor(x + 0.5))


def stats(values):
    """Mean, median, sample standard deviation and RSD of a list of numbers (None if empty)."""
    v = [x for x in values if x is not None]
    if not v:
        return None
    mean = statistics.fmean(v)
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    return {"n": len(v), "mean": round(mean, 1), "median": statistics.median(v), "stdev": round(sd, 1),
            "rsd_pct": round(100 * sd / abs(mean), 2) if mean else 0.0, "min": min(v), "max": max(v)}


def change_pct(ac, ab):
    """The thesis's relative change of active cancellation: (O_ab - O_ac) / O_ab x 100 %."""
    if not ac or not ab or ab["mean"] <= 0 or ac["mean"] < 0:
        return None  # a negative time (a hand-over that overlapped) has no meaningful ratio
    return round(100 * (ab["mean"] - ac["mean"]) / ab["mean"], 1)


def us(ns):
    """Nanoseconds to microseconds, None stays None."""
    return None if ns is None else ns / 1000


def runs_of(res, njobs):
    """The complete runs of a scenario boot: lists of job dicts."""
    by_run = {}
    for j in res["jobs"]:
        by_run.setdefault(j["run"], []).append(j)
    return [by_run[r] for r in sorted(by_run) if len(by_run[r]) == njobs and all(j["status"] == 0 for j in by_run[r])]


def summarise_scenario(res, njobs):
    """Waits by start rank (1 = first job to start) and by home, over the complete runs."""
    runs = runs_of(res, njobs)
    ranked = []
    for js in runs:
        order = sorted(js, key=lambda j: (j["t_start_ns"], j["home"]))
        rows = []
        for i, j in enumerate(order):
            before = sum(p["t_end_ns"] - p["t_start_ns"] for p in order[:i] if p["t_start_ns"] < j["t_start_ns"])
            # serial jobs: from the end of the job that ran just before to this job's allocation (the protocol's
            # hand-over; negative when the cores were all committed before that job's home heard of its end)
            prev = order[i - 1] if i else None
            handover = j["alloc_ns"] if not prev else \
                j["t_alloc_ns"] - prev["t_end_ns"] if prev["t_end_ns"] <= j["t_start_ns"] else None
            rows.append({"home": j["home"], "tag": j["tag"], "wait_ns": j["wait_ns"], "alloc_ns": j["alloc_ns"],
                         "exclusive_wait_ns": j["wait_ns"] - before, "handover_ns": handover,
                         "run_ns": j["t_end_ns"] - j["t_start_ns"],
                         "cancels": j["cancels"], "msgs": j["msgs"]})
        ranked.append(rows)
    by_rank = []
    for k in range(njobs):
        col = [r[k] for r in ranked]
        by_rank.append({
            "rank": k + 1,
            "wait_ns": stats([c["wait_ns"] for c in col]),
            "alloc_ns": stats([c["alloc_ns"] for c in col]),
            "exclusive_wait_ns": stats([c["exclusive_wait_ns"] for c in col]),
            "handover_ns": stats([c["handover_ns"] for c in col]),
            "run_ns": stats([c["run_ns"] for c in col]),
            "cancels": stats([c["cancels"] for c in col]),
            "homes": dict(Counter(str(c["home"]) for c in col).most_common()),
        })
    by_home = []
    for home in sorted({j["home"] for js in runs for j in js}):
        w = [j["wait_ns"] for js in runs for j in js if j["home"] == home]
        by_home.append({"home": home, "wait_ns": stats(w)})
    rr = [r for r in res["runs"]]
    return {"runs": len(runs), "jobs_per_run": njobs, "by_rank": by_rank, "by_home": by_home,
            "makespan_ns": stats([r["makespan_ns"] for r in rr]), "total_msgs": stats([r["total_msgs"] for r in rr])}


def summarise_propbench(res, regions):
    """Per W x H region: the propagation time and the messages of a wave, over the repetitions."""
    out = []
    for w, h in regions:
        got = [p for p in res["propbench"] if p["w"] == w and p["h"] == h]
        out.append({"w": w, "h": h, "nodes": w * h, "ns": stats([p["ns"] for p in got]),
                    "msgs": stats([p["msgs"] for p in got])})
    return out


def rank(e, i, metric):
    """The stats of job rank i (0 = first to start) for one metric of a policy's entry, or None."""
    try:
        return e["by_rank"][i][metric]
    except (KeyError, IndexError, TypeError):
        return None
