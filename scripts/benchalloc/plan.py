"""The plan: which QEMU boots make up each figure, with their boot arguments and kernel shell commands.

Why: a figure is many boots (policies, schemes, meshes, points); planning them apart from running them lets
--only pick figures and lets the longest boots start first.
"""
from .config import (CMD_MAX, FIG51, FIG53_FRACTIONS, GUEST_TIMEOUT_S, PARALLEL_RUN_US, POLICIES, PROBES,
                     REALTASK_HARTS, REALTASK_MESHES, SCHEMES, VCORES)
from .stats import rint


class Boot:
    """One QEMU boot: a configuration of one figure, run with `repeat R` inside."""

    def __init__(self, bid, figure, harts, bootargs, kind, meta, cost):
        self.id, self.figure, self.harts, self.bootargs = bid, figure, harts, bootargs
        self.kind = kind    # "scenario" or "propbench"
        self.meta = meta    # figure-specific: panel, mesh, policy/scheme, x values...
        self.cost = cost    # a rough host-time estimate, only to start the long boots first
        self.result = None


def scaled_k(k, n_mk):
    """The thesis's K (of 49 micro-kernels) for a mesh of n_mk: the same share of the machine."""
    if k >= 49:
        return n_mk
    s = max(1, rint(k * n_mk / 49))
    return min(s, n_mk // 2) if k == 24 else s  # two such jobs must still fit side by side


def fig53_points(n_mk, cap, quick):
    """Fig. 5.3's values of n on a mesh of n_mk micro-kernels (capped on the large meshes: --simul-cap)."""
    if quick:
        pts = {1, rint(n_mk / 4), rint(n_mk / 2), n_mk}
    else:
        pts = {1, 2, 4} | {max(1, rint(n_mk * f)) for f in FIG53_FRACTIONS}
    if n_mk > 64:
        pts = {p for p in pts if p <= rint(n_mk * cap)}
    return sorted(p for p in pts if 1 <= p <= n_mk)


def propbench_regions(side):
    """Regions 2x1, 2x2, 3x2, 3x3, ... up to side x side: node counts that grow by about one row or column."""
    out = []
    for w in range(2, side + 1):
        out += [(w, w - 1), (w, w)]
    return out


def scenario_bootargs(partial, policy, command, reps, check, scheme="fixed"):
    """The boot arguments of one `scenario` boot, and the shell command itself (for the JSON)."""
    cmd = f"scenario {command} repeat {reps} timeout {GUEST_TIMEOUT_S} quiet"
    args = "shell=0 " + (f"partial_sim={VCORES} " if partial else "")
    return f'{args}alloc_check={int(check)} policy={policy} scheme={scheme} cmd="{cmd}"', cmd


def plan(args):
    """Every boot of the requested figures."""
    boots = []
    sides = args.meshes
    reps = args.reps

    def want(fig):
        return not args.only or any(fig == o or fig.startswith(o) or o.startswith(fig) for o in args.only)

    for side in sides:
        harts, n_mk = side * side, side * side
        for panel, k, run_us, title in FIG51:
            if not want("5.1" + panel):
                continue
            ks = scaled_k(k, n_mk)
            for pol in POLICIES:
                bootargs, cmd = scenario_bootargs(True, pol, f"corners {ks} {run_us}", reps, args.check)
                meta = {"panel": panel, "mesh": f"{side}x{side}", "micro_kernels": n_mk, "K": ks, "K_thesis": k,
                        "cores_per_job": ks * VCORES, "run_us": run_us, "policy": pol, "title": title,
                        "command": cmd}
                boots.append(Boot(f"5.1{panel}-{side}x{side}-{pol}", "5.1", harts, bootargs, "scenario", meta,
                                  reps * harts * (6 if k >= 24 else 2)))
    if want("5.2"):
        for n in args.tiles:
            for pol in POLICIES:
                bootargs, cmd = scenario_bootargs(True, pol, f"simul {n} {n} {PARALLEL_RUN_US}", reps, args.check)
                meta = {"mesh": f"{n}x{n}", "micro_kernels": n * n, "n": n, "cores_per_job": n * VCORES,
                        "run_us": PARALLEL_RUN_US, "policy": pol, "command": cmd}
                boots.append(Boot(f"5.2-{n}x{n}-{pol}", "5.2", n * n, bootargs, "scenario", meta,
                                  reps * n ** 3 * (8 if pol == "ab" else 1)))
    if want("5.3"):
        for side in sides:
            n_mk = side * side
            for n in fig53_points(n_mk, args.simul_cap, args.quick):
                for pol in POLICIES:
                    bootargs, cmd = scenario_bootargs(True, pol, f"simul {n} {n_mk}", reps, args.check)
                    meta = {"mesh": f"{side}x{side}", "micro_kernels": n_mk, "n": n, "cores_per_job": n_mk * VCORES,
                            "policy": pol, "command": cmd}
                    boots.append(Boot(f"5.3-{side}x{side}-{pol}-n{n}", "5.3", n_mk, bootargs, "scenario", meta,
                                      reps * n_mk * n ** 1.5))
    for w, h, doms in REALTASK_MESHES[:1] if args.quick else REALTASK_MESHES:
        # 5.4: two jobs of half the machine, side by side; 5.5: every domain a whole-machine job
        for fig, n, k in (("5.4", 2, doms // 2), ("5.5", doms, doms)):
            if not want(fig):
                continue
            for pol in POLICIES:
                bootargs, cmd = scenario_bootargs(False, pol, f"simul {n} {k}", reps, args.check)
                bootargs = f"domains={doms} " + bootargs
                meta = {"mesh": f"{w}x{h}", "harts": w * h, "domains": doms, "jobs": n,
                        "cores_per_job": (w * h // doms - 1) * k, "program": "compute", "policy": pol,
                        "command": cmd}
                boots.append(Boot(f"{fig}-{pol}" if w * h == REALTASK_HARTS else f"{fig}-{w}x{h}-{pol}", fig,
                                  w * h, bootargs, "scenario", meta, reps * w * h * n * k * 5))
    if want("5.6"):
        for side in sides:
            regions = propbench_regions(side)
            for scheme in SCHEMES:
                chunk, chunks = [], []
                for w, h in regions:
                    c = f"propbench {w} {h} reps {reps}"
                    if chunk and len(";".join(chunk + [c])) > CMD_MAX:
                        chunks.append(chunk)
                        chunk = []
                    chunk.append(c)
                chunks.append(chunk)
                for i, ch in enumerate(chunks):
                    cmd = ";".join(ch)
                    bootargs = f'shell=0 partial_sim={VCORES} alloc_check={int(args.check)} scheme={scheme} cmd="{cmd}"'
                    meta = {"mesh": f"{side}x{side}", "micro_kernels": side * side, "scheme": scheme,
                            "regions": [[int(x) for x in c.split()[1:3]] for c in ch], "command": cmd}
                    boots.append(Boot(f"5.6-{side}x{side}-{scheme}-{i + 1}", "5.6", side * side, bootargs,
                                      "propbench", meta, reps * side ** 3))
    for fig, side, command in PROBES:
        if want(fig) and not args.quick and not args.no_probes:
            bootargs, cmd = scenario_bootargs(True, "ab", command, reps, args.check)
            meta = {"mesh": f"{side}x{side}", "policy": "ab", "command": cmd, "for_figure": fig,
                    "why": "the thesis-like 1 ms run time; recorded because it crashes the kernel under ab"}
            boots.append(Boot(f"probe-{fig}-{side}x{side}-ab-1ms", "probe", side * side, bootargs, "scenario", meta, 1))
    return boots
