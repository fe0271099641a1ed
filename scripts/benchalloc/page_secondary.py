"""docs/experiments.md: the secondary claims: serial jobs (Figs. 5.1c-f), tile size (5.2), run-to-run spread.

Why: each is a short section of its own, separate from the main policy claims in page_claims.py.
"""
import statistics

from .claims import TIE_PCT, ab_wins, ac_wins
from .fmt import clock_of, md_pct, md_us
from .page_claims import _msgs, _panel
from .stats import rank


def serial(figs, cl, how, raw, meshes, base):
    """Serial jobs: active cancellation's extra cost (Figs. 5.1c-f)."""
    L = []
    add = L.append
    c = cl["serial"]
    add(f"### Serial jobs: active cancellation's extra cost (5.1c-f): {c['verdict']}")
    add("")
    add("**Thesis** (Section 5.1.1): when only two (24 micro-kernels each) or one (49) of the four jobs can run at a "
        "time, active cancellation pays for the cancellations: 17 % and 12 % more wait for the first two jobs "
        "(5.1c), 12 % then 4 % then 1 % (5.1d); with 0.5 s runs the first job still pays 12-17 %, the later ones "
        "0.01-0.05 % (5.1e, 5.1f).")
    add("")
    long_later, extra = {}, {}
    for panel, first_later in (("e", 2), ("f", 1)):
        for mesh in meshes:
            p = _panel(figs, panel, mesh)
            ch = (p or {}).get("ac_change_pct", {}).get("wait_ns")
            if ch:
                long_later.setdefault(mesh, []).extend(c for c in ch[first_later:] if c is not None)
                for i in range(first_later, 4):
                    a, b = rank(p["policies"]["ac"], i, "wait_ns"), rank(p["policies"]["ab"], i, "wait_ns")
                    if a and b:
                        extra.setdefault(mesh, []).append(b["mean"] - a["mean"])
    fb = [c for c in ((_panel(figs, x, base) or {}).get("ac_change_pct", {}).get("wait_ns", [None])[0]
                      for x in "cdef") if c is not None]
    pc = _panel(figs, "c", base)
    msgs = (_msgs(pc["policies"].get("ac")).get("mean"), _msgs(pc["policies"].get("ab")).get("mean")) if pc \
        else (None, None)
    if fb and all(ab_wins(c) for c in fb):
        amount = ("larger" if -max(fb) > 17 else "smaller" if -min(fb) < 12 else "about the thesis's")
        txt = [f"**Why**: the sign is the thesis's: active cancellation pays for its cancellations, and the first "
               f"job pays most. The amount is {amount}: on {base} the first job waits {-max(fb):.0f} to "
               f"{-min(fb):.0f} % longer under active cancellation, against the thesis's 12 to 17 %"]
        count = (f" ({msgs[0]:,.0f} against {msgs[1]:,.0f} protocol messages per run of Fig. 5.1c on {base})"
                 if all(msgs) else "")
        if -max(fb) > 17 and clock_of(how) == "serial":
            txt.append(". The cause is the one of the sparse case: under -icount the extra messages of active "
                       "cancellation are paid in sequence, not side by side" + count)
        elif -max(fb) > 17:
            txt.append(". On the cores' own clocks the cancellations' messages overlap, so what the first job pays "
                       "is the cancellation round's path: its request meets the others' at the micro-kernels they "
                       "share, the younger ones are cancelled and renewed, and only then are all its cores "
                       "committed" + count + "; Mosaic's software per message (a few µs) weighs more against the "
                       "NoC's latency than on the thesis's chip")
        txt.append(". ")
    elif fb:
        rsd = [r["wait_ns"]["rsd_pct"] for x in "cdef" for r in
               ((_panel(figs, x, base) or {}).get("policies", {}).get("ac", {}).get("by_rank", [])[:1])]
        txt = ["**Why**: on " + base + " the first job's ac vs ab is "
               + ", ".join(md_pct(c) for c in fb) + " over 5.1c-f, against the thesis's 12 to 17 % dearer"
               + (f"; active cancellation's first job spreads by {min(rsd):.0f} to {max(rsd):.0f} % (RSD) from run "
                  "to run, so differences of this size are within its spread" if rsd else "") + ". "]
    else:
        txt = ["**Why**: "]
    hidden = [m for m, chs in long_later.items() if chs and max(chs) <= TIE_PCT]
    shown = [(m, min(chs), max(chs)) for m, chs in long_later.items() if chs and max(chs) > TIE_PCT]
    if hidden:
        txt.append(f"On {' and '.join(hidden)} the thesis's point about long runs holds: with 0.5 s runs the later jobs' "
                   "waits are the earlier jobs' run times, and the policies differ by under "
                   f"{TIE_PCT:g} % there. ")
    if shown:
        txt.append("With 0.5 s runs the later jobs still wait less under active cancellation on "
                   + ", ".join(f"{m} ({lo:.0f} to {hi:.0f} %, the sequencer adding about "
                               f"{statistics.fmean(extra[m]) / 1e6:.0f} ms to each)" for m, lo, hi in shown)
                   + ": every release is followed by commitments and a spawn wave, so the hand-over is not "
                   "hidden behind the earlier job's run. ")
    add("".join(txt))
    add("")

    return L


def tiles(figs, cl, how, raw, meshes, base):
    """Tile size (Fig. 5.2): active cancellation's first job on larger tiles."""
    L = []
    add = L.append
    c = cl["tiles"]
    add(f"### Tile size (5.2): active cancellation's first job gains more on larger tiles: {c['verdict']}")
    add("")
    add("**Thesis** (Section 5.1.2, Fig. 5.2): n jobs of n micro-kernels each on an n x n tile (they fit side by "
        "side); the first job waits 6 % (2x2) to 60 % (7x7) less under active cancellation; the last job 1-12 % more "
        "on 2x2 and 3x3, and up to 15 % less on larger tiles.")
    add("")
    pts = figs.get("5.2", {}).get("points", [])
    ch = [(p["mesh"], p["ac_change_pct"]["first"], p["ac_change_pct"]["last"]) for p in pts if "ac_change_pct" in p]
    first_ac = [m for m, f, _ in ch if ac_wins(f)]
    first_ab = [m for m, f, _ in ch if ab_wins(f)]
    last_ac = [m for m, _, la in ch if ac_wins(la)]
    txt = ["**Why**: "]
    if ch:
        txt.append("the first job waits less under active cancellation on "
                   + (", ".join(first_ac) if first_ac else "no tile") + ", under the sequencer on "
                   + (", ".join(first_ab) if first_ab else "no tile") + "; the last job waits less under active "
                   "cancellation on " + (", ".join(last_ac) if last_ac else "no tile") + ". ")
    largest = ch[-1][0] if ch else None
    if first_ab:
        txt.append(
            "The first job to start under the sequencer is the first request to reach it, and it meets no "
            "competition; under active cancellation all n requests go out at once and every micro-kernel handles "
            "all of them, work that grows with n and that "
            + ("-icount makes the harts do one after another. " if clock_of(how) == "serial" else
               "each micro-kernel does one request after another even on its own clock. "))
        if largest in first_ab:
            txt.append("So on the larger tiles the sequencer's first job gains, the opposite of the thesis's trend. ")
    if last_ac:
        txt.append(
            "For the last job, the sequencer lets the n requests collect one after another, so its last job waits "
            "for n - 1 complete rounds, each with its NoC latency, while under active cancellation the jobs fit side "
            "by side and their rounds overlap. "
            + ("Latency, unlike software, does overlap under -icount: a hart that waits for a message sleeps, and "
               "guest time skips ahead to the next delivery." if clock_of(how) == "serial" else
               "On the cores' own clocks both the latency and the software of different micro-kernels overlap."))
        if largest in last_ac:
            txt.append(" On the larger tiles this agrees with the thesis, whose last job waits up to 15 % less under "
                       "active cancellation.")
    if len(txt) > 1:
        add("".join(txt))
        add("")

    return L


def _traced_outliers(outliers):
    """What was found about the kinds of single long runs that are on the page (2026-11-24)."""
    where = " ".join(x["where"] for x in outliers)
    said = []
    if "5.5 6x6 ac" in where:
        said.append("In Fig. 5.5 on 6x6 under active cancellation the long run sent the same messages and made no "
                    "more cancellations than the others, and it repeats exactly with the logged command line but not "
                    "once the boot arguments change: the machine's timing, not the protocol, adds that wait, and "
                    "what adds it was not found ([time.md](time.md)).")
    if "5.1e" in where:
        said.append("In Fig. 5.1e under the sequencer the long run's second job to start was allocated as fast as "
                    "in the other runs but started only when the first job ended; why was not traced.")
    said.append("Runs of this kind in Figs. 5.1e and 5.6 (one repetition of 100 ms on 11x11) were a core jumping "
                "past a message handed to it during its look, fixed on 2026-11-24 (280ccff, [time.md](time.md), "
                "\"Events handed over during a look\"); the figures above were run after it unless their run line "
                "says otherwise.")
    return " ".join(said)


def rsd(figs, cl, how, raw, meshes, base):
    """Run-to-run spread: the RSD survey."""
    L = []
    add = L.append
    c = cl["rsd"]
    add(f"### Run-to-run spread: {c['verdict']}")
    add("")
    add("**Thesis**: RSD below 20 % in every experiment except Fig. 5.1b (up to 41 %, from how many cancellations a "
        "run needed).")
    add("")
    if c.get("largest"):
        ab_top = sum(1 for x in c["largest"] if " ab " in f" {x['where']} ")
        # a spread made by single runs far from all the others: the longest wait is many medians
        outliers = [x for x in c["largest"] if x.get("median") and x.get("max", 0) > 5 * x["median"]]
        if len(outliers) * 2 > len(c["largest"]):
            x = outliers[0]
            why = ("These spreads are single runs: in each, a job waited many times longer than in every other run "
                   "of its point while the median did not move (" +
                   f"{x['where']}: median {md_us({'mean': x['median']})}, longest {md_us({'mean': x['max']})}). They come from " +
                   ("both policies" if 0 < ab_top < len(c["largest"]) else
                    "the sequencer" if ab_top else "active cancellation") +
                   ". " + _traced_outliers(outliers))
        elif ab_top * 2 < len(c["largest"]):
            why = ("As in the thesis, the spread comes from active cancellation: how many cancellations a run needs "
                   "depends on the order in which the requests meet, which changes with the machine state a run "
                   "starts from. The sequencer's runs hardly vary, and neither do the propagation waves.")
        elif any(x["where"].startswith("5.2") and " ab " in f" {x['where']} " for x in c["largest"]):
            why = ("Unlike the thesis, most of the largest spreads are the sequencer's, in Fig. 5.2's first job on "
                   "the larger tiles, and they are two modes rather than noise: which job starts first changes "
                   "from run to run. The job the sequencer releases first is allocated in about 70 µs in every "
                   "run, but in some runs it starts only after the next job, and the first start moves from about "
                   "90 to about 210 µs. Traced on 9x9 on 2026-11-24 with a debug print: between its allocation "
                   "and its start, the job's home (one of its micro-kernels) handled 20 replies (RESP) that came "
                   "after the job was satisfied, since the REQ goes to every micro-kernel and each reply costs "
                   "the home its own software time, and its SPAWN waited behind them. On the serial clock the "
                   "first job allocated always started first.")
        else:
            why = ("Unlike the thesis, most of the largest spreads are the sequencer's: in a few runs one of its jobs "
                   "waited far longer than in the others (the mean moves by milliseconds while the median does not). "
                   "Which wait those runs add was not traced.")
        add(f"**Measured**: {c['share_below_20_pct'] * 100:.0f} % of the plotted means have an RSD below 20 %; the "
            "largest are " + "; ".join(f"{x['rsd_pct']:.0f} % ({x['where']})" for x in c["largest"]) + ". " + why)
        add("")
    return L
