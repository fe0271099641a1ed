"""The CSV files (one per figure) and the summary table printed at the end of a run.

Why: both flatten the figures' summaries into rows, and neither needs matplotlib or the page.
"""
import csv

from .config import REALTASK_HARTS, SCHEMES
from .figures import realtask
from .fmt import fmt_run, fmt_us
from .stats import rank, us


CSV_COLS = ["figure", "mesh", "harts", "series", "x_name", "x", "metric", "runs", "mean_ns", "median_ns",
            "stdev_ns", "rsd_pct", "min_ns", "max_ns", "ac_change_pct"]


def csv_row(fig, mesh, harts, series, xname, x, metric, s, change=None):
    """One CSV row: one stats dict of one series at one x (the change only on the ac row)."""
    s = s or {}
    return [fig, mesh, harts, series, xname, x, metric, s.get("n"), s.get("mean"), s.get("median"), s.get("stdev"),
            s.get("rsd_pct"), s.get("min"), s.get("max"), change if series == "ac" else None]


def write_csvs(figs, outdir):
    """alloc_fig5_*.csv, one per figure (Fig. 5.1: one per panel); returns their paths."""
    files = {}

    def add(name, row):
        files.setdefault(name, []).append(row)

    for p in figs.get("5.1", {}).get("panels", []):
        name = f"alloc_fig5_1{p['panel']}.csv"
        for pol, e in p["policies"].items():
            ch = p.get("ac_change_pct", {}).get("wait_ns", [])
            for r in e.get("by_rank", []):
                c = ch[r["rank"] - 1] if len(ch) >= r["rank"] else None
                add(name, csv_row("5.1" + p["panel"], p["mesh"], p["micro_kernels"], pol, "job", r["rank"], "wait_ns",
                                  r["wait_ns"], c))
    for fig in ("5.2", "5.3"):
        for p in figs.get(fig, {}).get("points", []):
            name = f"alloc_fig{fig.replace('.', '_')}.csv"
            for pol, e in p["policies"].items():
                if not e.get("by_rank"):
                    continue
                ch = p.get("ac_change_pct", {})
                add(name, csv_row(fig, p["mesh"], p["micro_kernels"], pol, "n", p["n"], "first_job_wait_ns",
                                  e["first_wait_ns"], ch.get("first")))
                add(name, csv_row(fig, p["mesh"], p["micro_kernels"], pol, "n", p["n"], "last_job_wait_ns",
                                  e["last_wait_ns"], ch.get("last")))
    for fig in ("5.4", "5.5"):
        for f in realtask(figs, fig):
            name = f"alloc_fig{fig.replace('.', '_')}.csv"
            for metric in ("wait_ns", "exclusive_wait_ns", "handover_ns", "alloc_ns", "run_ns"):
                ch = f.get("ac_change_pct", {}).get(metric, [])
                for pol, e in f["policies"].items():
                    for r in e.get("by_rank", []):
                        c = ch[r["rank"] - 1] if len(ch) >= r["rank"] else None
                        add(name, csv_row(fig, f["mesh"], f.get("harts", REALTASK_HARTS), pol, "job", r["rank"],
                                          metric, r[metric], c))
    for mm in figs.get("5.6", {}).get("meshes", []):
        for s, v in mm["schemes"].items():
            for r in v["regions"]:
                add("alloc_fig5_6.csv", csv_row("5.6", mm["mesh"], mm["micro_kernels"], s, "nodes", r["nodes"],
                                                 "propagation_ns", r["ns"]))
    written = []
    for name, rows in sorted(files.items()):
        path = outdir / name
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(CSV_COLS)
            w.writerows(rows)
        written.append(path)
    return written


def table(figs):
    """The summary printed at the end of a run: per figure, the means of both policies or all schemes."""
    lines = []

    def row(cells, widths):
        return "  " + "  ".join(str(c).rjust(w) for c, w in zip(cells, widths))

    def ms(s):
        return "-" if not s else f"{fmt_us(us(s['mean']))} ±{s['rsd_pct']:.0f}%"

    def pct(c):
        return "-" if c is None else f"{c:+.0f}%"

    for p in figs.get("5.1", {}).get("panels", []):
        lines.append(f"Fig. 5.1{p['panel']} {p['mesh']}: corner jobs of K = {p['K']} micro-kernels "
                     f"({p['cores_per_job']} cores), runs {fmt_run(p['run_us'])}; wait in µs, mean ±RSD")
        w = (5, 16, 16, 9)
        lines.append(row(("job", "ac", "ab", "ac vs ab"), w))
        ac, ab = p["policies"].get("ac", {}), p["policies"].get("ab", {})
        ch = p.get("ac_change_pct", {}).get("wait_ns", [])
        for i in range(4):
            lines.append(row((i + 1, ms(rank(ac, i, "wait_ns")), ms(rank(ab, i, "wait_ns")),
                              pct(ch[i] if i < len(ch) else None)), w))
    pts = figs.get("5.2", {}).get("points", [])
    if pts:
        lines.append("Fig. 5.2: simul n n on n x n; wait of the first and last job to start, µs")
        w = (6, 16, 16, 8, 16, 16, 8)
        lines.append(row(("tile", "ac first", "ab first", "change", "ac last", "ab last", "change"), w))
        for p in pts:
            ac, ab, ch = p["policies"].get("ac", {}), p["policies"].get("ab", {}), p.get("ac_change_pct", {})
            lines.append(row((p["mesh"], ms(ac.get("first_wait_ns")), ms(ab.get("first_wait_ns")), pct(ch.get("first")),
                              ms(ac.get("last_wait_ns")), ms(ab.get("last_wait_ns")), pct(ch.get("last"))), w))
    pts = figs.get("5.3", {}).get("points", [])
    if pts:
        lines.append("Fig. 5.3: n whole-machine jobs at once; wait of the first job to start, µs")
        w = (6, 4, 16, 16, 8)
        lines.append(row(("mesh", "n", "ac first", "ab first", "change"), w))
        for p in pts:
            ac, ab, ch = p["policies"].get("ac", {}), p["policies"].get("ab", {}), p.get("ac_change_pct", {})
            lines.append(row((p["mesh"], p["n"], ms(ac.get("first_wait_ns")), ms(ab.get("first_wait_ns")),
                              pct(ch.get("first"))), w))
    for fig, metrics in (("5.4", ("wait_ns", "alloc_ns")), ("5.5", ("exclusive_wait_ns", "handover_ns", "wait_ns"))):
        for f in realtask(figs, fig):
            lines.append(f"Fig. {fig} {f['mesh']}: real-task mode, {f['jobs']} jobs of {f['cores_per_job']} cores "
                         f"running '{f['program']}'; µs, mean ±RSD")
            w = (4, 18, 16, 16, 8)
            lines.append(row(("job", "metric", "ac", "ab", "change"), w))
            for metric in metrics:
                ch = f.get("ac_change_pct", {}).get(metric, [])
                for i in range(f["jobs"]):
                    lines.append(row((i + 1, metric[:-3], ms(rank(f["policies"].get("ac", {}), i, metric)),
                                      ms(rank(f["policies"].get("ab", {}), i, metric)),
                                      pct(ch[i] if i < len(ch) else None)), w))
    for mm in figs.get("5.6", {}).get("meshes", []):
        lines.append(f"Fig. 5.6 {mm['mesh']}: propagation and echo from node 0, µs, mean ±RSD")
        w = (6,) + (16,) * len(SCHEMES)
        lines.append(row(("nodes",) + SCHEMES, w))
        regions = mm["schemes"].get("naive", next(iter(mm["schemes"].values())))["regions"]
        for i, r in enumerate(regions):
            cells = [r["nodes"]]
            for s in SCHEMES:
                v = mm["schemes"].get(s)
                cells.append(ms(v["regions"][i]["ns"]) if v and i < len(v["regions"]) else "-")
            lines.append(row(cells, w))
    return "\n".join(lines)
