"""bench-coll's figure: time against group size per algorithm for four collectives (loose mode), the
penalty of the worst fixed choice against n, and strict against loose on sequences."""


def _axes(ax, xlabel, ylabel, title, yscale=None, grid="major"):
    """A panel's axes: x on a log2 scale, the labels and title, a light grid (which lines: grid), the legend."""
    ax.set_xscale("log", base=2)
    if yscale:
        ax.set_yscale(yscale)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which=grid, alpha=0.3)
    ax.legend(fontsize=8)


def draw(result, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    table = result["points"]
    panels = [("barrier", 0), ("bcast", 512), ("allreduce", 8), ("alltoall", 8)]
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    for ax, (coll, nbytes) in zip(axes.flat, panels):
        rows = [r for r in table if r["coll"] == coll and r["bytes"] == nbytes and r["mode"] == "loose"]
        algos = sorted({a for r in rows for a in r["fixed_ns"]})
        ns = [r["n"] for r in rows]
        for a in algos:
            ax.plot(ns, [r["fixed_ns"].get(a) for r in rows], marker="o", label=a)
        ax.plot(ns, [r["tuned_ns"] for r in rows], "k--", marker="x", label="tuned")
        _axes(ax, "group size n", "ns (virtual clock)", f"{coll}, {nbytes} B, loose", yscale="log", grid="both")
    ax = axes.flat[4]
    for coll in sorted({r["coll"] for r in table}):
        rows = [r for r in table if r["coll"] == coll and r["mode"] == "loose"]
        ns = sorted({r["n"] for r in rows})
        ax.plot(ns, [max(r["penalty_of_worst"] for r in rows if r["n"] == n) for n in ns], marker="o", label=coll)
    _axes(ax, "group size n", "worst fixed / best fixed",
          "penalty of the worst fixed algorithm (loose, largest over sizes)")
    ax = axes.flat[5]
    for coll, modes in sorted(result["sequences"].items()):
        for mode, xs in sorted(modes.items()):
            ax.plot([x["k"] for x in xs], [x["ns_per_op"] for x in xs], marker="o",
                    linestyle="-" if mode == "loose" else ":", label=f"{coll} {mode}")
    _axes(ax, "collectives back to back (k)", "ns per collective", "strict vs loose, k in a row (all cores, 512 B)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
