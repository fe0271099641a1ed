"""The figures' summaries: per figure, panel, point or mesh, the statistics of each policy or scheme.

Why: alloc.json, the CSV files, the plots and the page all read these summaries, built once from the boots'
parsed results (runs.py) with the statistics of stats.py.
"""
from .config import THESIS_FIGURES
from .stats import change_pct, rank, summarise_propbench, summarise_scenario


def njobs_of(b):
    """How many jobs each run of a scenario boot submits."""
    m = b.meta
    if b.figure == "5.1":
        return 4
    if b.figure in ("5.2", "5.3"):
        return m["n"]
    return m["jobs"]


def assemble(boots):
    """The figures' summaries from the boots' results."""
    figs = {}
    by = {}
    for b in boots:
        by.setdefault(b.figure, []).append(b)

    def entry(b):
        r = b.result
        e = {"boot": b.id, "ok": r["ok"]}
        if not r["ok"]:
            e["error"], e["log"] = r.get("error"), r["log"]
        if b.kind == "scenario":
            e.update(summarise_scenario(r, njobs_of(b)))
        return e

    if "probe" in by:
        figs["probes"] = [{"boot": b.id, "figure": b.meta["for_figure"], "mesh": b.meta["mesh"],
                           "command": b.meta["command"], "ok": b.result["ok"], "status": b.result["status"],
                           "error": b.result.get("error"), "log": b.result["log"],
                           "panic": b.result.get("panic"),
                           "runs_completed": len(b.result["runs"])} for b in by["probe"]]
    if "5.1" in by:
        panels = {}
        for b in by["5.1"]:
            m = b.meta
            key = (m["panel"], m["mesh"])
            p = panels.setdefault(key, {k: m[k] for k in ("panel", "mesh", "micro_kernels", "K", "K_thesis",
                                                         "cores_per_job", "run_us", "title")} | {"policies": {}})
            p["policies"][m["policy"]] = entry(b)
        for p in panels.values():
            add_changes(p, "wait_ns")
        figs["5.1"] = {"title": THESIS_FIGURES["5.1"], "panels": sorted(panels.values(),
                                                                        key=lambda p: (p["panel"], p["micro_kernels"]))}
    if "5.2" in by:
        pts = {}
        for b in by["5.2"]:
            m = b.meta
            p = pts.setdefault(m["n"], {"n": m["n"], "mesh": m["mesh"], "micro_kernels": m["micro_kernels"],
                                        "cores_per_job": m["cores_per_job"], "policies": {}})
            p["policies"][m["policy"]] = entry(b)
        for p in pts.values():
            add_first_last(p)
        figs["5.2"] = {"title": THESIS_FIGURES["5.2"], "points": [pts[k] for k in sorted(pts)]}
    if "5.3" in by:
        pts = {}
        for b in by["5.3"]:
            m = b.meta
            p = pts.setdefault((m["micro_kernels"], m["n"]), {"mesh": m["mesh"], "micro_kernels": m["micro_kernels"],
                                                             "n": m["n"], "cores_per_job": m["cores_per_job"],
                                                             "policies": {}})
            p["policies"][m["policy"]] = entry(b)
        for p in pts.values():
            add_first_last(p)
        figs["5.3"] = {"title": THESIS_FIGURES["5.3"], "points": [pts[k] for k in sorted(pts)]}
    for fig in ("5.4", "5.5"):
        if fig in by:
            per_mesh = {}
            for b in by[fig]:
                f = per_mesh.setdefault(b.meta["mesh"], {"title": THESIS_FIGURES[fig], "policies": {}})
                f.update({k: b.meta[k] for k in ("mesh", "domains", "jobs", "cores_per_job", "program")})
                f["harts"] = b.harts
                f["policies"][b.meta["policy"]] = entry(b)
            for f in per_mesh.values():
                add_changes(f, "wait_ns")
                add_changes(f, "alloc_ns")
                add_changes(f, "exclusive_wait_ns")
                add_changes(f, "handover_ns")
            # the thesis's machine is the figure itself; larger machines hang under "larger"
            entries = sorted(per_mesh.values(), key=lambda f: f["harts"])
            figs[fig] = dict(entries[0], larger=entries[1:])
    if "5.6" in by:
        meshes = {}
        for b in by["5.6"]:
            m = b.meta
            mm = meshes.setdefault(m["mesh"], {"mesh": m["mesh"], "micro_kernels": m["micro_kernels"], "schemes": {}})
            s = mm["schemes"].setdefault(m["scheme"], {"boots": [], "ok": True, "regions": []})
            s["boots"].append(b.id)
            if not b.result["ok"]:
                s["ok"] = False
                s.setdefault("errors", []).append({"boot": b.id, "error": b.result.get("error"),
                                                   "log": b.result["log"]})
            s["regions"] += summarise_propbench(b.result, m["regions"])
        for mm in meshes.values():
            for s in mm["schemes"].values():
                s["regions"].sort(key=lambda r: r["nodes"])
        figs["5.6"] = {"title": THESIS_FIGURES["5.6"],
                       "meshes": sorted(meshes.values(), key=lambda m: m["micro_kernels"])}
    return figs


def add_changes(p, metric):
    """The thesis's relative change of ac, per job rank, for one metric (needs both policies)."""
    ac, ab = p["policies"].get("ac"), p["policies"].get("ab")
    if not ac or not ab or "by_rank" not in ac or "by_rank" not in ab:
        return
    p.setdefault("ac_change_pct", {})[metric] = [
        change_pct(a[metric], b[metric]) for a, b in zip(ac["by_rank"], ab["by_rank"])]


def add_first_last(p):
    """Figs. 5.2 and 5.3: the first and the last job's wait, and their relative changes."""
    for pol, e in p["policies"].items():
        if e.get("by_rank"):
            e["first_wait_ns"] = e["by_rank"][0]["wait_ns"]
            e["last_wait_ns"] = e["by_rank"][-1]["wait_ns"]
    ac, ab = p["policies"].get("ac"), p["policies"].get("ab")
    if ac and ab and ac.get("by_rank") and ab.get("by_rank"):
        p["ac_change_pct"] = {"first": change_pct(ac["first_wait_ns"], ab["first_wait_ns"]),
                              "last": change_pct(ac["last_wait_ns"], ab["last_wait_ns"])}


def first_task_start_ns(f, pol):
    """Real-task mode: how long the first job's tasks took to start after its allocation (wait - alloc), or None."""
    e = f["policies"].get(pol, {})
    w, a = rank(e, 0, "wait_ns"), rank(e, 0, "alloc_ns")
    return w["mean"] - a["mean"] if w and a else None


def realtask(figs, fig):
    """Fig. 5.4's or 5.5's entries: the thesis's machine first, then the larger ones."""
    f = figs.get(fig)
    return [f] + list(f.get("larger", [])) if f else []
