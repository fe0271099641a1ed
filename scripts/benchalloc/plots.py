"""The PNG plots, one per figure, drawn with matplotlib (found or installed by matplotlib_python).

Why: matplotlib is optional: when the python3 running bench-alloc lacks it, the plots are drawn by a python3
that has it (Debian's), which runs the entry script with --plots; JSON and CSV never depend on it.
"""
import os
import shutil
import subprocess
import sys

from .config import POLICIES, SCHEMES
from .figures import realtask
from .fmt import fmt_run
from .stats import us

ENTRY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench-alloc")  # for --plots


def matplotlib_python():
    """'self' if this interpreter can plot, else the path of a python3 that can, else None (installs as root)."""
    def here():
        try:
            import matplotlib  # noqa: F401
            return True
        except ImportError:
            return False

    def system():
        py = "/usr/bin/python3"
        if os.path.realpath(py) != os.path.realpath(sys.executable) and os.path.exists(py) and \
                subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            return py
        return None

    if here():
        return "self"
    if system():
        return system()
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("bench-alloc: installing python3-matplotlib (apt-get) for the plots", flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        ok = subprocess.run(["apt-get", "update", "-q"], capture_output=True, env=env).returncode == 0 and \
            subprocess.run(["apt-get", "install", "-y", "-q", "python3-matplotlib"], capture_output=True,
                           env=env).returncode == 0
        if not ok:
            print("bench-alloc: apt-get install python3-matplotlib failed", file=sys.stderr)
        import importlib
        importlib.invalidate_caches()
        if here():
            return "self"
        return system()
    return None


def plot_all(data, outdir):
    """Draws every figure present in data into alloc_fig5_*.png; returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figs = data["figures"]
    colors = {"ac": "tab:blue", "ab": "tab:orange", "naive": "tab:red", "flood": "tab:purple",
              "fixed": "tab:green", "adaptive": "tab:olive"}
    label = {"ac": "active cancellation", "ab": "sequencer atomic broadcast"}
    written = []
    foot = ("Mosaic on QEMU virt, -icount (harts run one at a time); mean of "
            f"{data['how']['reps']} runs, error bars: standard deviation")

    def finish(fig, name, title):
        fig.suptitle(title, fontsize=11)
        fig.text(0.5, 0.005, foot, ha="center", fontsize=7, color="0.35")
        fig.tight_layout(rect=(0, 0.03, 1, 0.95))
        path = outdir / name
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    def unit(values_ns):
        """The axis unit: ms when the largest value passes 10 ms, else µs."""
        top = max((abs(v) for v in values_ns if v is not None), default=0)
        return ("ms", 1e6) if top >= 1e7 else ("µs", 1e3)

    def errs(means, sds):
        """Error bars of one standard deviation, the lower one clipped at zero (waits are skewed)."""
        return [[min(s, m) if m > 0 else s for m, s in zip(means, sds)], sds]

    def bars(ax, entries, metric, ylog, ylabel):
        """Grouped bars of the mean per job rank, ac and ab side by side; stdev error bars."""
        width = 0.38
        name, div = unit([r[metric]["mean"] for e in entries.values() for r in e.get("by_rank", []) if r[metric]])
        for i, pol in enumerate(POLICIES):
            e = entries.get(pol)
            if not e or not e.get("by_rank"):
                continue
            ranks = [r for r in e["by_rank"] if r.get(metric)]  # a rank no run reached has no bar
            xs = [r["rank"] + (i - 0.5) * width for r in ranks]
            ms = [r[metric]["mean"] / div for r in ranks]
            sd = [r[metric]["stdev"] / div for r in ranks]
            ax.bar(xs, ms, width, yerr=errs(ms, sd), capsize=3, color=colors[pol], label=label[pol])
            for x, m in zip(xs, ms):  # in the axis's unit
                ax.annotate(f"{m:.0f}" if abs(m) >= 100 else f"{m:.3g}", (x, m), ha="center", va="bottom",
                            fontsize=6, xytext=(0, 2), textcoords="offset points")
        ax.set_xlabel("job (in start order)")
        ax.set_ylabel(ylabel.replace("(µs)", f"({name})"))
        ranks = [r["rank"] for r in next(iter(entries.values())).get("by_rank", [])]
        ax.set_xticks(ranks)
        if ylog:
            ax.set_yscale("log")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7)

    for panel in "abcdef":
        ps = [p for p in figs.get("5.1", {}).get("panels", []) if p["panel"] == panel]
        if not ps:
            continue
        fig, axes = plt.subplots(1, len(ps), figsize=(5.2 * len(ps), 4.2), squeeze=False)
        for ax, p in zip(axes[0], ps):
            log = panel in "ef"
            bars(ax, p["policies"], "wait_ns", log, "job wait time (µs)" + (", log scale" if log else ""))
            ax.set_title(f"{p['mesh']}: K = {p['K']} of {p['micro_kernels']} micro-kernels "
                         f"({p['cores_per_job']} cores), runs {fmt_run(p['run_us'])}", fontsize=9)
        kind = {"a": "side by side", "b": "side by side", "c": "two at a time, short runs",
                "d": "one at a time, short runs", "e": "two at a time, long runs", "f": "one at a time, long runs"}
        finish(fig, f"alloc_fig5_1{panel}.png", f"Fig. 5.1{panel}: four corner jobs of K micro-kernels' worth of "
               f"cores each, {kind[panel]} (thesis: K = {ps[0]['K_thesis']} of 49)")

    def lines(ax, xs_entries, key, series, ylabel, legend="best"):
        """Mean per x for each policy, stdev error bars; log scale when the means span over 100x."""
        vals = [p["policies"][q][key]["mean"] for _, p in xs_entries for q in series
                if (p["policies"].get(q) or {}).get(key)]
        logy = bool(vals) and min(vals) > 0 and max(vals) / min(vals) > 100
        name, div = unit(vals)
        for pol in series:
            xs, ms, sd = [], [], []
            for x, p in xs_entries:
                e = p["policies"].get(pol)
                s = e.get(key) if e else None
                if s:
                    xs.append(x)
                    ms.append(s["mean"] / div)
                    sd.append(s["stdev"] / div)
            if xs:
                ax.errorbar(xs, ms, yerr=errs(ms, sd), marker="o", ms=3, capsize=3, color=colors[pol],
                            label=label[pol])
        if logy:
            ax.set_yscale("log")
        ax.set_ylabel(ylabel.replace("(µs)", f"({name})") + (", log scale" if logy else ""))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc=legend)

    pts = figs.get("5.2", {}).get("points", [])
    if pts:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        for ax, key, what in zip(axes, ("first_wait_ns", "last_wait_ns"), ("first", "last")):
            lines(ax, [(p["n"], p) for p in pts], key, POLICIES, f"wait time of the {what} job (µs)")
            ax.set_xticks([p["n"] for p in pts])
            ax.set_xticklabels([f"{p['n']}x{p['n']}" for p in pts], fontsize=7)
            ax.set_xlabel("tile size n x n (n jobs of n micro-kernels each)")
            ax.set_title(f"{what} job to start", fontsize=9)
        finish(fig, "alloc_fig5_2.png", "Fig. 5.2: job allocations as tile size increases")

    pts = figs.get("5.3", {}).get("points", [])
    if pts:
        meshes = sorted({p["micro_kernels"] for p in pts})
        fig, axes = plt.subplots(1, len(meshes), figsize=(5.6 * len(meshes), 4.4), squeeze=False)
        for ax, n_mk in zip(axes[0], meshes):
            sel = [p for p in pts if p["micro_kernels"] == n_mk]
            lines(ax, [(p["n"], p) for p in sel], "first_wait_ns", POLICIES, "wait time of the first job (µs)",
                  "center right")
            ax.axvline(n_mk / 4, color="0.5", ls=":", lw=1)
            ax.annotate(" 1/4 of the micro-kernels", (n_mk / 4, 0.98), xycoords=("data", "axes fraction"),
                        fontsize=7, color="0.4", ha="left", va="top")
            ax.set_xlabel(f"n simultaneous whole-machine jobs ({sel[0]['mesh']}, {n_mk} micro-kernels)")
            ax.set_title(sel[0]["mesh"], fontsize=9)
        finish(fig, "alloc_fig5_3.png", "Fig. 5.3: worst-case conflict resolution time for n simultaneous jobs")

    for figname, metrics, title in (
            ("5.4", (("wait_ns", "job wait time (µs)"), ("alloc_ns", "protocol part: submission to allocation (µs)")),
             "Fig. 5.4: real-task mode, two jobs of half the machine side by side"),
            ("5.5", (("exclusive_wait_ns", "exclusive wait time (µs)"),
                     ("handover_ns", "protocol part: previous job's end to allocation (µs)")),
             "Fig. 5.5: real-task mode, a whole-machine job from every domain, one after another")):
        fs = realtask(figs, figname)
        if not fs:
            continue
        fig, axes = plt.subplots(len(fs), len(metrics), figsize=(5.4 * len(metrics), 4.2 * len(fs)), squeeze=False)
        for row_axes, f in zip(axes, fs):
            for ax, (metric, yl) in zip(row_axes, metrics):
                bars(ax, f["policies"], metric, False, yl)
                ax.set_title(f"{f['mesh']}, {f['jobs']} jobs of {f['cores_per_job']} cores: " + yl.split(" (")[0],
                             fontsize=9)
        finish(fig, f"alloc_fig{figname.replace('.', '_')}.png", title)

    meshes = figs.get("5.6", {}).get("meshes", [])
    if meshes:
        fig, axes = plt.subplots(1, len(meshes), figsize=(5.6 * len(meshes), 4.4), squeeze=False)
        for ax, mm in zip(axes[0], meshes):
            for s in SCHEMES:
                v = mm["schemes"].get(s)
                if not v:
                    continue
                rs = [r for r in v["regions"] if r["ns"]]
                ms = [us(r["ns"]["mean"]) for r in rs]
                ax.errorbar([r["nodes"] for r in rs], ms, yerr=errs(ms, [us(r["ns"]["stdev"]) for r in rs]),
                            marker="o", ms=3, capsize=2, color=colors[s], label=s)
            ax.axvline(43, color="0.5", ls=":", lw=1)
            ax.annotate(" 43 nodes", (43, 0.98), xycoords=("data", "axes fraction"), fontsize=7, color="0.4",
                        ha="left", va="top")
            ax.set_xlabel(f"nodes reached (W x H corner region of {mm['mesh']})")
            ax.set_ylabel("propagation and echo time (µs)")
            ax.set_title(mm["mesh"], fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, loc="upper left")
        finish(fig, "alloc_fig5_6.png", "Fig. 5.6: request propagation schemes (broadcast and echo from node 0)")
    return written


def make_plots(data, outdir, how):
    """Draws the PNGs here, or with another python3 that has matplotlib; returns a note for the output."""
    py = matplotlib_python()
    if py == "self":
        written = plot_all(data, outdir)
        return f"wrote {len(written)} plots: " + ", ".join(p.name for p in written)
    if py:
        r = subprocess.run([py, ENTRY, "--plots", "--out", str(how)], capture_output=True,
                           text=True)
        if r.returncode == 0:
            return r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "plots written"
        return f"plotting with {py} failed: {r.stderr.strip()[-400:]}"
    return ("no plots: matplotlib is missing. Install it with `sudo apt-get install python3-matplotlib` (then the "
            "plots are drawn with /usr/bin/python3 if this python3 is not Debian's) or `python3 -m pip install "
            "matplotlib`, and run scripts/bench-alloc --plots to draw them from the JSON.")
