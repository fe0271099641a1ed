"""Plots of scripts/bench-sim's results (build/bench/sim.json): one PNG per figure, a panel per
mesh, mean and standard deviation over the runs of each point."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _figure(meshes, draw, title, path, xlabel, ylabel, xscale=None, yscale=None):
    """One PNG at path: a panel per mesh side, drawn by draw(ax, side), with the axes' labels and scales
    (xscale: set_xscale's keywords)."""
    n = len(meshes)
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.6), squeeze=False)
    for ax, side in zip(axes[0], meshes):
        draw(ax, side)
        if xscale:
            ax.set_xscale(**xscale)
        if yscale:
            ax.set_yscale(yscale)
        ax.set_title(f"{side}x{side}")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _errorbars(ax, ps, x, stat, label):
    """Mean and standard deviation in µs of the summary's stat, against x(p), over the points ps."""
    ax.errorbar([x(p) for p in ps], [p["summary"][stat]["mean"] / 1e3 for p in ps],
                [p["summary"][stat]["sd"] / 1e3 for p in ps], marker="o", capsize=3, label=label)


def plot(doc, out):
    pts = [p for p in doc["points"] if "error" not in p["summary"]]
    meshes = doc["meshes"]
    for panel in ("5.1a", "5.1b"):
        sel = [p for p in pts if p["figure"] == panel]
        if not sel:
            continue

        def corner_waits(ax, side):
            for p in [p for p in sel if p["side"] == side]:
                jw = p["summary"]["job_waits"]
                ax.errorbar(range(1, len(jw) + 1), [j["mean"] / 1e3 for j in jw], [j["sd"] / 1e3 for j in jw],
                            marker="o", capsize=3, label=f"{p['policy']} (K={p['param']})")
        _figure(meshes, corner_waits, f"Fig. {panel}: four corner jobs, simulator", out / f"sim-{panel}.png",
                "job (in order of start)", "wait (µs)")

    def series(figure, key, values, x, stat):
        """draw(ax, side) for a figure: one error-bar line per value of key, against x(p)."""
        sel = [p for p in pts if p["figure"] == figure]

        def draw(ax, side):
            for v in values:
                ps = sorted([p for p in sel if p["side"] == side and p[key] == v], key=lambda p: p["param"])
                if ps:
                    _errorbars(ax, ps, x, stat, v)
        return sel, draw

    sel, draw = series("5.3", "policy", ("ac", "ab"), lambda p: p["param"], "first_wait")
    if sel:
        _figure(meshes, draw, "Fig. 5.3: the first job's wait, simulator", out / "sim-5.3.png",
                "simultaneous whole-machine jobs n", "first job's wait (µs)", {"value": "log", "base": 2}, "log")
    sel, draw = series("5.6", "scheme", ("naive", "flood", "fixed", "adaptive"), lambda p: p["param"] ** 2, "ns")
    if sel:
        _figure(meshes, draw, "Fig. 5.6: propagation and echo, simulator", out / "sim-5.6.png",
                "nodes reached", "round trip (µs)", {"value": "log"}, "log")


if __name__ == "__main__":  # run by bench-sim under a python3 that has matplotlib (Debian's)
    import json
    import sys
    from pathlib import Path
    plot(json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2]))
