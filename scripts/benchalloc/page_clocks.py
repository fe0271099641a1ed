"""docs/experiments.md: the claims on the cores' own clocks beside the same experiments on the serial clock.

Why: issue 13 asks that every verdict be given in virtual time with the serial verdict beside it and every
difference explained. The numbers and verdicts come from the two runs' JSON; the explanations are written by a
person after reading both runs, so each is keyed by the pair of verdicts it explains and is shown only while the
runs still give that pair (a re-run that changes a verdict shows "not explained" instead of a stale reason).
"""
from .claims import short
from .fmt import md_table

CLAIM_NAMES = {"sparse": "Active cancellation cheaper for sparse jobs",
               "dense": "Sequencer cheaper for dense worst cases",
               "propagation": "Pattern propagation fastest, naive broadcast slowest",
               "flooding": "Flooding degrades past about 43 nodes",
               "serial": "Active cancellation pays 12-17 % for serial jobs",
               "tiles": "Active cancellation's first job gains 6-60 % as tiles grow",
               "rsd": "RSD below 20 % except 5.1b"}

# (claim, verdict on the serial clock, verdict on the virtual clock) -> why they differ (or agree), written after
# reading both runs
_NOT_RUN = ("Its figures were not run on the virtual clock this time: on the cores' own clocks a 7x7 boot with 49 "
            "whole-machine jobs under active cancellation (Fig. 5.3) took more than 15 minutes of host time, and "
            "the 12x9 real-task boots (Figs. 5.4, 5.5) 3 to 20 minutes each, so only the serial verdict stands "
            "([time.md](time.md), host-time cost).")
_SPARSE = ("On the serial clock the four corner requests' work adds up, so active cancellation's extra messages "
           "(requests that reach every micro-kernel, cancellations, renewed requests) count in full against it; on "
           "the cores' own clocks the requests proceed side by side, as on the thesis's chip, and a job waits only "
           "for what lies on its own request's path. Fig. 5.4 was not run on the virtual clock.")
_PROPAGATION = ("On the serial clock a wave costs the sum of every node's software, so the naive source's one send per "
                "node is as cheap as any pattern and its lack of parallelism costs nothing; on the cores' own clocks "
                "a pattern's nodes forward side by side and a wave costs about the tree's depth, while the naive "
                "source still sends and takes back every message itself, so naive becomes the slowest once the "
                "region is more than a few nodes (Fig. 5.6's CSV, `build/bench/alloc_fig5_6.csv`).")
_FLOODING = ("The same verdict for different reasons. On the serial clock flooding is dearer than naive at every size: "
             "it handles the most messages and they add up. On the cores' own clocks its copies are handled side by "
             "side, so it becomes cheaper than naive from a few tens of nodes on and stays so. Neither clock shows "
             "the thesis's rise back to naive's cost.")
_SERIAL = ("Both clocks give active cancellation's first job a longer wait when the four jobs cannot all run at once: "
           "it waits for the cancellation round among the four requests whichever clock measures it; the amount "
           "differs (the in-short columns).")
_SERIAL_PART = ("On the cores' own clocks active cancellation's first job waits longer in every configuration: it "
                "waits for the cancellation round among the four requests. On the serial clock it does in most but "
                "not all: there a wait also holds the work every other hart did meanwhile, and the first job's wait "
                "spreads by a tenth or more between runs of one point (the RSD in the serial run's CSV files), about "
                "as much as the policies differ, so the sign of a small difference follows the machine state.")
_TILES = ("Fig. 5.2 puts n jobs of n micro-kernels on an n x n tile. On the serial clock every micro-kernel's handling "
          "of all n requests adds up, which weighs on active cancellation's first job as n grows; on the cores' own "
          "clocks that handling overlaps across micro-kernels but not within one, so the verdicts can differ tile by "
          "tile (the in-short columns give the first job's change at the smallest and the largest tile).")
_RSD = ("On the serial clock a wait depends on everything every hart did meanwhile, so it spreads with the machine "
        "state a run starts from; on the cores' own clocks a wait is the work and flights on the job's own path, "
        "and the runs of one point spread much less.")
EXPLANATIONS = {
    ("dense", "holds in part", "not measured"): _NOT_RUN,
    ("dense", "holds", "not measured"): _NOT_RUN,
    ("dense", "does not hold", "not measured"): _NOT_RUN,
    **{("sparse", sv, vv): _SPARSE for sv, vv in (("does not hold", "holds in part"), ("does not hold", "holds"),
                                                   ("holds in part", "holds"))},
    **{("propagation", "does not hold", vv): _PROPAGATION for vv in ("holds", "holds in part")},
    ("propagation", "holds in part", "holds"): (
        "Both clocks make a pattern the fastest; they differ on the slowest. On the serial clock every copy of a "
        "message costs its handler's software in full, and flooding, which sends each node several copies, is "
        "the slowest; naive's one send per node from the source is cheaper than that sum. On the cores' own clocks "
        "flooding's copies are handled side by side while the naive source still sends and takes back every "
        "message itself, one after another, so naive is the slowest once the region is more than a few nodes "
        "(Fig. 5.6's CSV, `build/bench/alloc_fig5_6.csv`)."),
    ("flooding", "does not hold", "does not hold"): _FLOODING,
    **{("serial", sv, vv): _SERIAL for sv in ("holds", "holds in part") for vv in ("holds", "holds in part")},
    ("serial", "holds in part", "holds"): _SERIAL_PART,
    **{("tiles", sv, vv): _TILES for sv in ("holds", "holds in part", "does not hold")
       for vv in ("holds", "holds in part", "does not hold")},
    **{("rsd", "does not hold", vv): _RSD for vv in ("holds", "holds in part")},
    ("rsd", "does not hold", "does not hold"): (
        "The same verdict, from different runs. On the serial clock the waits spread with the machine state a run "
        "starts from, every hart's work adding to them (the in-short columns give the share of means above 20 %). "
        "On the cores' own clocks most means are steadier, and the largest spreads are single runs in which one "
        "job waited far longer than in every other run of its point ([Run-to-run spread](#run-to-run-spread-does-not-hold))."),
    **{("sparse", "holds in part", vv): (
        "The two clocks judge partly different figures: Fig. 5.4 (real-task mode) was run on the virtual clock only. "
        "On the cores' own clocks Figs. 5.1a/b hold while Fig. 5.4 is mixed: a real-task job's wait is mostly the "
        "start of its tasks after the allocation, which the policies hardly change, and the protocol's own part is "
        "close under both (the in-short columns). On the serial clock the four corner requests' work adds up, so "
        "active cancellation's extra messages count in full against it.") for vv in ("holds in part",)},

}


def _dense_why(vf, sf):
    """Why the dense-case verdicts of the two clocks differ or agree, from which of its figures each clock ran."""
    only_v = [f for f in ("5.3", "5.5") if f in vf and f not in sf]
    only_s = [f for f in ("5.3", "5.5") if f in sf and f not in vf]
    txt = ""
    if only_v or only_s:
        txt = ("The two clocks judge partly different figures: "
               + "; ".join(x for x in (f"Fig. {', '.join(only_v)} only on the virtual clock" if only_v else "",
                                       f"Fig. {', '.join(only_s)} only on the serial clock" if only_s else "") if x)
               + " (host time, [time.md](time.md)). ")
    if "5.3" in vf and "5.3" in sf:
        txt += ("In Fig. 5.3 the sequencer's first job waits less on both clocks from a few simultaneous jobs on, "
                "not from a quarter of the micro-kernels as on the thesis's chip: its first request meets no "
                "competition, while active cancellation's first job waits for a round of cancellations among all "
                "the requests, whose handling adds up within each micro-kernel on either clock (the in-short "
                "columns give where each clock's crossover lies).")
    return txt or None


def docs_clocks(data, cl, dc):
    """The section: both verdicts per claim, how far the clocks' times lie apart, and why verdicts differ."""
    comp = data["comparison"]
    L = []
    add = L.append
    add("## Virtual against serial clock")
    add("")
    add("The same experiments, the same kernel and the same jobs, measured twice: on the cores' own virtual clocks "
        "(this page's figures) and on the machine's serial clock (the attached run, "
        f"`{comp['how'].get('command')}`, {comp['how'].get('date')}). On the serial clock QEMU's harts run one at "
        "a time and every time is the sum of all the harts' work while it passed; on the virtual clocks a "
        "micro-kernel's time is its own work and the messages' flights, and work on different micro-kernels "
        "overlaps.")
    add("")
    run = lambda d: sorted(f for f in (d["how"].get("figures_run") or d["figures"]) if f.startswith("5."))  # noqa: E731
    vf, sf = run(data), run(comp)
    if vf != sf:
        add(f"Figures measured on the virtual clock: {', '.join(vf)}; on the serial clock: {', '.join(sf)}. A claim "
            "whose figures were not run on a clock is \"not measured\" there (the host time it would take is in "
            "[time.md](time.md)).")
        add("")
    rows = []
    for cid, name in CLAIM_NAMES.items():
        if cid not in cl:
            continue
        sv = dc.get(cid, {}).get("verdict", "not measured")
        rows.append([name, f"**{cl[cid]['verdict']}**", sv, short(cl, cid) or "-",
                     (short(dc, cid) if cid in dc else "") or "-"])
    add(md_table(["claim", "virtual clock", "serial clock", "virtual, in short", "serial, in short"], rows, left=5))
    add("")
    add("Why the verdicts differ, or agree:")
    add("")
    for cid, name in CLAIM_NAMES.items():
        if cid not in cl:
            continue
        sv, vv = dc.get(cid, {}).get("verdict", "not measured"), cl[cid]["verdict"]
        why = EXPLANATIONS.get((cid, sv, vv))
        if cid == "dense" and sv != "not measured" and vv != "not measured":
            why = _dense_why(vf, sf)
        same = "the same verdict on both clocks" if sv == vv else f"{sv} on the serial clock, {vv} on the virtual"
        add(f"- **{name}** ({same}). " + (why or "Not explained yet for this pair of verdicts: the runs changed "
                                                 "since the explanations were written."))
    add("")
    return L
