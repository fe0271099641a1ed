"""docs/experiments.md: the two policy claims (sparse jobs, dense worst case), and lookups the other sections share.

Why: these two sections are the page's core and its longest prose; each is a function of the page's data only,
so it can be regenerated from alloc.json without booting.
"""
import statistics

from .config import POLICIES
from .claims import TIE_PCT, ac_wins
from .figures import first_task_start_ns, realtask
from .fmt import clock_of, md_pct, md_us
from .stats import rank


def _panel(figs, panel, mesh):
    """Fig. 5.1's panel (a-f) on one mesh, or None."""
    return next((p for p in figs.get("5.1", {}).get("panels", []) if p["panel"] == panel and p["mesh"] == mesh), None)


def _msgs(e):
    """The stats of a policy entry's protocol messages per run ({} if none)."""
    return (e or {}).get("total_msgs", {}) or {}


def slowest_first_run(raw, boot):
    """(first-job wait, total messages) of the run whose first job waited longest, and the median run's messages."""
    try:
        jobs, runs = raw[boot]["jobs"], raw[boot]["runs"]
        col = {c: i for i, c in enumerate(jobs["columns"])}
        first = {}
        for r in jobs["rows"]:
            run = r[col["run"]]
            if run not in first or r[col["t_start_ns"]] < first[run][col["t_start_ns"]]:
                first[run] = r
        worst = max(first, key=lambda run: first[run][col["wait_ns"]])
        msgs = {r["run"]: r["total_msgs"] for r in runs}
        return first[worst][col["wait_ns"]], msgs[worst], statistics.median(msgs.values())
    except (KeyError, ValueError, TypeError):
        return None


def sparse(figs, cl, how, raw, meshes, base):
    """Claim 1: active cancellation is cheaper for sparse jobs (Figs. 5.1a, 5.1b, 5.4)."""
    L = []
    add = L.append
    c = cl["sparse"]
    add(f"### Active cancellation is cheaper for sparse jobs: {c['verdict']}")
    add("")
    add("**Thesis** (Section 5.1.1, Figs. 5.1a, 5.1b; Section 5.2.1, Fig. 5.4): with the four corner jobs able to "
        "run side by side, active cancellation waits 23 %, 76 %, 83 % and 83 % less than the sequencer for the "
        "first to fourth job when each job needs 3 of the 49 micro-kernels, and 21 %, 58 %, 73 %, 48 % less for 12; "
        "real-task mode shows \"the same pattern\" for two 16-core jobs.")
    add("")
    add(f"**Measured**: {c['jobs_where_ac_cheaper']} of the {c['jobs_compared']} jobs compared wait more than "
        f"{TIE_PCT:g} % less under active cancellation (on every mesh measured).")
    add("")
    serial_clock = clock_of(how) == "serial"
    why = ["**Why**: the thesis's case for active cancellation is parallelism: the four corner requests proceed "
           "side by side, each answered by its own neighbourhood, while the sequencer lets one request collect "
           "cores at a time and releases the next only when the previous job's spawn has gone out. "
           + ("Under -icount nothing proceeds side by side (the harts run one at a time), so what decides is the "
              "total work" if serial_clock else
              "On the cores' own clocks the requests do proceed side by side, as on the thesis's chip, so what "
              "decides is each request's path: the messages and the micro-kernels' work that lie on it")]
    shown = [p for p in (_panel(figs, x, base) for x in "ab") if p]
    if shown and all((_msgs(p["policies"].get("ac")).get("mean") or 0) > (_msgs(p["policies"].get("ab")).get("mean")
                                                                           or 0) for p in shown):
        why.append((", and active cancellation makes more of it" if serial_clock else
                    ", although active cancellation sends more messages in all") +
                   ": each of its greedy requests reaches every "
                   "micro-kernel, the requests meet there, and the younger ones are cancelled and renewed")
    extra = []
    for panel in "ab":
        p = _panel(figs, panel, base)
        if not p:
            continue
        ma, mb = _msgs(p["policies"].get("ac")).get("mean"), _msgs(p["policies"].get("ab")).get("mean")
        canc = sum(r.get("cancels", {}).get("mean") or 0 for r in p["policies"].get("ac", {}).get("by_rank", []))
        if ma and mb:
            extra.append(f"Fig. 5.1{panel} on {base}: {ma:,.0f} against {mb:,.0f} protocol messages per run"
                         + (f", with {canc:.1f} cancellations per run under active cancellation" if canc else ""))
    why.append(" (" + "; ".join(extra) + "). " if extra else ". ")
    won = [(f"5.1{p['panel']} {p['mesh']}", i + 1, c) for p in figs.get("5.1", {}).get("panels", [])
           if p["panel"] in "ab" for i, c in enumerate(p.get("ac_change_pct", {}).get("wait_ns", [])) if ac_wins(c)]
    if won:
        why.append("Active cancellation still wins for " + ", ".join(f"job {i} of {w} ({md_pct(c)})"
                                                                    for w, i, c in won) + ". ")
    parts = []
    for f in realtask(figs, "5.4"):
        if "ac_change_pct" not in f:
            continue
        st = {q: first_task_start_ns(f, q) for q in POLICIES}
        if None in st.values():
            continue
        prot = {q: rank(f["policies"][q], 0, "alloc_ns") for q in POLICIES}
        parts.append(f"{f['mesh']}: protocol {md_us(prot['ac'])} against {md_us(prot['ab'])}, the start of "
                     f"its {f['cores_per_job']} tasks {st['ac'] / 1e6:.1f} against {st['ab'] / 1e6:.1f} ms; "
                     "waits ac vs ab "
                     + ", ".join(md_pct(x) for x in f["ac_change_pct"]["wait_ns"]))
    if parts:
        why.append(
            "In real-task mode the protocol's part of the first job's wait is small under both policies; what "
            "differs is the start of the tasks after the allocation (first job, ac against ab: "
            + "; ".join(parts) + "). The policies hand the jobs different cores at different moments, and the two "
            + ("jobs' task starts share the harts, which -icount runs one at a time, so how long a start takes "
               "depends on where and when each job starts, not on the time the protocol itself takes."
               if serial_clock else
               "jobs' tasks are loaded by their pico-kernels side by side, each at its own pace, so the start "
               "depends on which cores a job got and what they were doing, not on the time the protocol itself "
               "takes."))
    add("".join(why))
    add("")

    return L


def dense(figs, cl, how, raw, meshes, base):
    """Claim 2: the sequencer is cheaper in the dense worst case (Figs. 5.3, 5.5)."""
    L = []
    add = L.append
    c = cl["dense"]
    add(f"### The sequencer is cheaper in the dense worst case: {c['verdict']}")
    add("")
    add("**Thesis** (Section 5.1.3, Fig. 5.3; Section 5.2.2, Fig. 5.5): with n whole-machine jobs submitted at once, "
        "active cancellation may need n - 1 cancellations before the first job gets its cores, while the sequencer "
        "only waits for the highest-priority request; \"the worst-case performance is better for the sequencer-based "
        "atomic broadcast scheme once the number of micro-kernels simultaneously requesting allocations exceeds 1/4 "
        "of the total number of micro-kernels\". In real-task mode, four 32-core jobs: the sequencer \"performs "
        "much better\".")
    add("")
    pts = figs.get("5.3", {}).get("points", [])
    ev53 = [e for e in c["evidence"] if e["figure"] == "5.3"]
    if c["verdict"] == "not measured":
        add("**Measured**: nothing on this page's clock: Figs. 5.3 and 5.5 were not run "
            "([Virtual against serial clock](#virtual-against-serial-clock)).")
        add("")
        return L
    txt = ["**Measured**: "]
    for e in ev53:
        if e["ab_cheaper_at_n"]:
            txt.append(f"On {e['mesh']} the sequencer's first job waits less at n = "
                       f"{', '.join(str(n) for n in e['ab_cheaper_at_n'])}"
                       + (f" (from n = {e['crossover_n']} on at every point measured, against the thesis's "
                          f"{e['quarter']:g})" if e["crossover_n"] else "") + ". ")
        else:
            txt.append(f"On {e['mesh']} active cancellation's first job waits less at every n measured, up to "
                       f"n = {e['largest_n']}. ")
    for e in c["evidence"]:
        if e["figure"] == "5.5":
            chs = [x for x in e["ac_change_pct_exclusive_wait"] if x is not None]
            if chs:
                txt.append(f"In real-task mode on {e['mesh']} (Fig. 5.5) the sequencer's exclusive wait is lower "
                           f"for {sum(1 for x in chs if x < -TIE_PCT)} of the {len(chs)} jobs (ac vs ab "
                           f"{min(chs):+.0f} to {max(chs):+.0f} %). ")
    add("".join(txt))
    add("")
    early = any(e.get("crossover_n") and e["crossover_n"] < e["quarter"] / 2 for e in c["evidence"]
                if e["figure"] == "5.3")
    txt = ["**Why**: "]
    grow, ratios = [], []
    for mesh in meshes:
        sel = [p for p in pts if p["mesh"] == mesh and "ac_change_pct" in p]
        if len(sel) > 1:
            abw = [p["policies"]["ab"]["first_wait_ns"]["mean"] for p in sel]
            acw = [p["policies"]["ac"]["first_wait_ns"]["mean"] for p in sel]
            ratios.append((abw[-1] / abw[0], acw[-1] / acw[0]))
            grow.append(f"on {mesh}, {md_us({'mean': abw[0]})} at n = {sel[0]['n']} and {md_us({'mean': abw[-1]})} "
                        f"at n = {sel[-1]['n']}, {ratios[-1][0]:.1f} times as long; active cancellation's "
                        f"{ratios[-1][1]:.1f} times")
    if grow:
        txt.append("from one job alone to the most jobs at once, the wait of the sequencer's first job grows "
                   + ("far less than" if all(a * 2 <= c for a, c in ratios) else
                      "less than" if all(a < c for a, c in ratios) else "as much as or more than")
                   + " active cancellation's (" + "; ".join(grow) + "). ")
    txt.append(
        "The sequencer collects cores for one request at a time, in the order the requests reach it, so the first "
        "request meets no competition however many follow it. Active cancellation's first job waits for a round "
        "of cancellations among all n requests, and " +
        ("under -icount every message of that round is paid in sequence. "
         + ("That is why the sequencer wins so early, at a few simultaneous jobs rather than at a quarter of the "
            "micro-kernels: on parallel hardware the round's messages would overlap. " if early else "")
         if clock_of(how) == "serial" else
         "on the cores' own clocks that round's messages overlap, but every micro-kernel still handles all n "
         "requests one after another, so the round grows with n. "
         + ("The sequencer still wins early, at a few simultaneous jobs rather than at a quarter of the "
            "micro-kernels: its first request meets no competition at all, and Mosaic's software per message "
            "(a few µs) weighs more against the NoC's latency than on the thesis's chip. " if early else ""))
        + "Active cancellation, for "
        "its part, has a cheaper way out of the worst case than the thesis's n - 1 cancellations in a row: a home "
        "that already knows an older request does not send its own (`ac_begin`, portable/alloc/policy_ac.c), and "
        "the cancellations go out from all homes at once, so the highest-priority job collects the machine after "
        "one round. It pays for this later: its total messages grow much faster with n")
    dense = [p for p in figs.get("5.3", {}).get("points", []) if p["mesh"] == base and
             _msgs(p["policies"].get("ac")) and _msgs(p["policies"].get("ab"))]
    if dense:
        top = dense[-1]
        txt.append(f" ({_msgs(top['policies']['ac'])['mean']:,.0f} against {_msgs(top['policies']['ab'])['mean']:,.0f} "
                   f"messages per run at n = {top['n']} on {base})")
    txt.append(", and its first-job wait spreads widely from run to run")
    spread = [p for p in dense if p["policies"]["ac"].get("first_wait_ns")]
    if spread:
        w = max(spread, key=lambda p: p["policies"]["ac"]["first_wait_ns"]["rsd_pct"])["policies"]["ac"]["first_wait_ns"]
        top = max(spread, key=lambda p: p["policies"]["ac"]["first_wait_ns"]["rsd_pct"])
        slow = slowest_first_run(raw or {}, top["policies"]["ac"].get("boot"))
        txt.append(f" (at n = {top['n']} on {base}: median {md_us({'mean': w['median']})}, but "
                   f"{md_us({'mean': w['max']})} in the slowest of the {w['n']} runs"
                   + (f", whose micro-kernels exchanged {slow[1]:,} protocol messages against {slow[2]:,.0f} in the "
                      "median run; more requests met and were cancelled in it, but the run was not traced further, "
                      "so which of them held up the first job is not known" if slow and slow[1] > slow[2] else "") + ")")
    txt.append(". ")
    parts, hand, negative, single = [], [], [], []
    little = True
    for f in realtask(figs, "5.5"):
        ch = [x for x in f.get("ac_change_pct", {}).get("exclusive_wait_ns", []) if x is not None]
        st = first_task_start_ns(f, "ac")
        if ch and st is not None:
            little = little and all(abs(x) <= 20 for x in ch)
            parts.append(f"{f['mesh']}: ac vs ab {min(ch):+.1f} to {max(ch):+.1f} %; starting {f['cores_per_job']} "
                         f"tasks takes {md_us({'mean': st})}")
        for q in POLICIES:
            worst = max((r["exclusive_wait_ns"]["rsd_pct"] for r in f["policies"].get(q, {}).get("by_rank", [])
                         if r.get("exclusive_wait_ns")), default=0)
            if worst > 100:
                single.append(f"{q} on {f['mesh']}, RSD up to {worst:.0f} %")
        for q in POLICIES:
            for r in f["policies"].get(q, {}).get("by_rank", []):
                if r.get("handover_ns"):
                    hand.append(r["handover_ns"]["mean"])
                    if r["handover_ns"]["mean"] < 0:
                        negative.append(f"{q} job {r['rank']} on {f['mesh']}")
    if parts:
        txt.append(
            "In real-task mode the exclusive waits " + ("differ little" if little else "differ") + " ("
            + "; ".join(parts) + "): each includes the start of every earlier job's tasks (the start is not part "
            "of the run time that is subtracted)"
            + (f", and next to that the protocol's hand-overs of at most {md_us({'mean': max(hand)})} hardly show"
               if little and hand and max(hand) > 0 else "") + ". ")
    if single:
        txt.append("Some of these means are made by a single long run (" + "; ".join(single) + "; see "
                   "[Run-to-run spread](#run-to-run-spread-does-not-hold)): the medians are far lower. ")
    if negative:
        txt.append(
            "Some mean hand-overs are negative (" + ", ".join(negative) + "). A job's end is taken when its home "
            "has handled the report of its last part, while each micro-kernel commits its cores to the next job as "
            "soon as its own part has ended, so a home that handles that report late records an end after the next "
            "job's allocation; why the home was late in these runs was not traced.")
    add("".join(txt))
    add("")

    return L
