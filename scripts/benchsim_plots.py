"""Plots of scripts/bench-sim's results (build/bench/sim.json): one PNG per figure, a panel per
mesh, mean and standard deviation over the runs of each point."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _panels(n):
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.6), squeeze=False)
    return fig, axes[0]


def plot(doc, out):
    pts = [p for p in doc["points"] if "error" not in p["summary"]]
    meshes = doc["meshes"]
    for panel in ("5.1a", "5.1b"):
        sel = [p for p in pts if p["figure"] == panel]
        if not sel:
            continue
        fig, axes = _panels(len(meshes))
        for ax, side in zip(axes, meshes):
            for p in [p for p in sel if p["side"] == side]:
                jw = p["summary"]["job_waits"]
                ax.errorbar(range(1, len(jw) + 1), [j["mean"] / 1e3 for j in jw], [j["sd"] / 1e3 for j in jw],
                            marker="o", capsize=3, label=f"{p['policy']} (K={p['param']})")
            ax.set_title(f"{side}x{side}")
            ax.set_xlabel("job (in order of start)")
            ax.set_ylabel("wait (µs)")
            ax.legend(fontsize=8)
        fig.suptitle(f"Fig. {panel}: four corner jobs, simulator")
        fig.tight_layout()
        fig.savefig(out / f"sim-{panel}.png", dpi=100)
        plt.close(fig)
    sel = [p for p in pts if p["figure"] == "5.3"]
    if sel:
        fig, axes = _panels(len(meshes))
        for ax, side in zip(axes, meshes):
            for pol in ("ac", "ab"):
                ps = sorted([p for p in sel if p["side"] == side and p["policy"] == pol], key=lambda p: p["param"])
                if ps:
                    ax.errorbar([p["param"] for p in ps], [p["summary"]["first_wait"]["mean"] / 1e3 for p in ps],
                                [p["summary"]["first_wait"]["sd"] / 1e3 for p in ps], marker="o", capsize=3,
                                label=pol)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(f"{side}x{side}")
            ax.set_xlabel("simultaneous whole-machine jobs n")
            ax.set_ylabel("first job's wait (µs)")
            ax.legend(fontsize=8)
        fig.suptitle("Fig. 5.3: the first job's wait, simulator")
        fig.tight_layout()
        fig.savefig(out / "sim-5.3.png", dpi=100)
        plt.close(fig)
    sel = [p for p in pts if p["figure"] == "5.6"]
    if sel:
        fig, axes = _panels(len(meshes))
        for ax, side in zip(axes, meshes):
            for sch in ("naive", "flood", "fixed", "adaptive"):
                ps = sorted([p for p in sel if p["side"] == side and p["scheme"] == sch], key=lambda p: p["param"])
                if ps:
                    ax.errorbar([p["param"] ** 2 for p in ps], [p["summary"]["ns"]["mean"] / 1e3 for p in ps],
                                [p["summary"]["ns"]["sd"] / 1e3 for p in ps], marker="o", capsize=3, label=sch)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{side}x{side}")
            ax.set_xlabel("nodes reached")
            ax.set_ylabel("round trip (µs)")
            ax.legend(fontsize=8)
        fig.suptitle("Fig. 5.6: propagation and echo, simulator")
        fig.tight_layout()
        fig.savefig(out / "sim-5.6.png", dpi=100)
        plt.close(fig)


if __name__ == "__main__":  # run by bench-sim under a python3 that has matplotlib (Debian's)
    import json
    import sys
    from pathlib import Path
    plot(json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2]))
