"""Each benchmark's JSON in build/bench/, read into one shape for docs/results.md.

A reader returns a Run: how it was made (date, command, revision, kernel hash, QEMU version, whichever the
JSON records), its goals (MET or MISSED, the numbers, the clock they are judged on) and a few headline tables.
A file that is not JSON, or lacks what its benchmark writes, is refused with the file and the key named
(ResultsError): the page never shows a half-read run.
"""
import json
from dataclasses import dataclass, field

import fastpath_goals

CLOCKS = {
    "virtual": "virtual (each core's own clock, vtime=1)",
    "serial": "serial (the machine's clock, -icount)",
    "host": "host wall time",
}


class ResultsError(Exception):
    """A benchmark's JSON that cannot be used: the message names the file and what is wrong."""


@dataclass
class Goal:
    name: str
    met: bool
    numbers: str
    clock: str


@dataclass
class Run:
    files: list
    info: dict
    goals: list = field(default_factory=list)
    tables: list = field(default_factory=list)  # (title, header, rows)
    notes: list = field(default_factory=list)


def load(path):
    """The parsed JSON of path, or ResultsError naming the file, the line and the column."""
    try:
        text = path.read_text()
    except OSError as e:
        raise ResultsError(f"{path}: cannot be read: {e.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: not JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None


class Doc:
    """A parsed JSON document with checked access: doc.get("how", "date", kind=str)."""

    def __init__(self, path, data, where=()):
        self.path, self.data, self.where = path, data, list(where)

    def get(self, *keys, kind=None, optional=False):
        node, where = self.data, list(self.where)
        for k in keys:
            where.append(str(k))
            ok = (isinstance(node, dict) and k in node) if isinstance(k, str) else \
                (isinstance(node, list) and -len(node) <= k < len(node))
            if not ok:
                if optional:
                    return None
                raise ResultsError(f"{self.path}: {'.'.join(where)}: missing (is this {self.path.name} from its "
                                   f"benchmark? run it again)")
            node = node[k]
        if kind is not None and not isinstance(node, kind) or kind in (int, float, (int, float)) and \
                isinstance(node, bool):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(t.__name__ for t in kind)
            raise ResultsError(f"{self.path}: {'.'.join(where) or 'the document'}: expected {names}, "
                               f"found {type(node).__name__}")
        return node

    def sub(self, *keys):
        return Doc(self.path, self.get(*keys, kind=dict), self.where + [str(k) for k in keys])


NUMBER = (int, float)


def num(v, digits=0):
    """A figure as the page prints it: thousands separated, `digits` decimals."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    return f"{v:,.{digits}f}"


def yes(flag):
    return "yes" if flag else "no"


def run_info(doc, how_keys=("how",)):
    """What the JSON says about its run; None where it says nothing."""
    how = doc.get(*how_keys, kind=dict) if how_keys else doc.get(kind=dict)
    kernel = how.get("kernel")
    qemu = how.get("qemu_version")
    if not isinstance(qemu, str):
        qemu = None
    return {"date": how.get("date"), "command": how.get("command"),
            "revision": how.get("revision") or how.get("mosaic_revision"),
            "kernel": kernel.get("sha256_16") if isinstance(kernel, dict) else None,
            "qemu": qemu}


def failed(doc):
    """A JSON that its benchmark wrote for a run whose boots failed (scripts/sweep.py, Runner.require_ok): no
    figures, the failed boots with their logs."""
    sweep = doc.sub("sweep")
    notes = [f"**The last run failed**: {doc.get('failed', kind=str)}."]
    for f in sweep.get("failed_boots", kind=list):
        notes.append(f"boot `{f.get('boot')}`: {f.get('error')} (status {f.get('status')}), log {f.get('log')}")
    return Run([doc.path.name], run_info(doc), notes=notes)


def fastpath_goal(doc, name):
    """A row of scripts/fastpath_goals.py as the benchmark stored it."""
    g = doc.sub("goals", name)
    judged_on = g.get("judged_on", kind=str)
    judged, unit, limit = g.get("judged"), g.get("unit", kind=str), g.get("limit", kind=NUMBER)
    others = ", ".join(f"{c} {num(v)}" for c, v in g.get("measured", kind=dict).items() if c != judged_on)
    numbers = (f"{num(judged)} {unit} (limit {num(limit)}{'; ' + others if others else ''}; "
               f"anchor: {g.get('anchor', kind=str)})")
    return Goal(name, g.get("met", kind=bool), numbers, CLOCKS.get(judged_on, judged_on))


def goals_of_fastpath(doc):
    return [fastpath_goal(doc, n) for n in doc.get("goals", kind=dict) if n in fastpath_goals.GOALS]


def noc(doc):
    run = Run([doc.path.name], run_info(doc), goals_of_fastpath(doc))
    for name, g in doc.get("goals", kind=dict).items():
        if name in fastpath_goals.GOALS:
            continue
        gd = doc.sub("goals", name)
        figures = ", ".join(f"{k} {num(v, 2 if isinstance(v, float) else 0)}" for k, v in gd.data.items()
                            if k not in ("met", "formula"))
        formula = gd.get("formula", optional=True)
        run.goals.append(Goal(name, gd.get("met", kind=bool), figures + (f" ({formula})" if formula else ""),
                              CLOCKS["virtual"]))
    rows = []
    for clock, meshes in doc.get("by_clock", kind=dict).items():
        for mesh in meshes:
            m = doc.sub("by_clock", clock, mesh)
            hop1 = m.get("latency_vs_hops", 0, kind=dict)
            bar, bc = m.get("barrier", -1, kind=dict), m.get("broadcast", -1, kind=dict)
            rows.append([mesh, clock, num(m.get("overhead_instructions_per_message", kind=NUMBER)),
                         f"{num(hop1['measured_ns'])} / {num(hop1['model_ns'])}",
                         f"{num(bar['period_ns'])} ({bar['cores']} cores)",
                         f"{num(bc['measured_ns'])} ({bc['cores']} cores)"])
    run.tables.append(("Per mesh and clock", ["mesh", "clock", "instructions per 8 B message",
                                              "1 hop ns measured / model", "barrier period ns",
                                              "broadcast ns"], rows))
    return run


def kernel(doc):
    info = run_info(doc)
    run = Run([doc.path.name], info, goals_of_fastpath(doc))
    clock = doc.get("clock", kind=str)
    g = doc.sub("forwarded_over_local")
    run.goals.append(Goal("forwarded_over_local", g.get("met", kind=bool),
                          f"forwarded {num(g.get('forwarded_time_ns', kind=NUMBER))} ns against local "
                          f"{num(g.get('local_time_ns', kind=NUMBER), 1)} ns: {g.get('time_ratio')}x "
                          f"(limit {num(g.get('allowed_time_ns', kind=NUMBER), 1)} ns, 3x)", CLOCKS[clock]))
    d = doc.sub("dispatcher_experiment", "goal")
    run.goals.append(Goal("dispatchers_beat_threads", d.get("met", kind=bool),
                          f"less memory at every n: {yes(d.get('memory_at_every_n', kind=bool))}; faster from 14 "
                          f"tasks on: {yes(d.get('time_from_14_tasks', kind=bool))} (faster from n = "
                          f"{d.get('dispatchers_faster_from_n')})",
                          CLOCKS[clock]))
    rows = []
    for c in doc.get("by_clock", kind=dict):
        b = doc.sub("by_clock", c)
        fw = b.get("forwarded", 0, kind=dict)
        cont = b.get("contention", -1, kind=dict)
        free = b.get("forwarded_free_noc", "forwarded", 0, kind=dict, optional=True) or {}
        rows.append([c, num(b.get("local", "instructions", kind=NUMBER)),
                     num(b.get("local", "time_ns_per_call", kind=NUMBER), 1),
                     f"{num(fw['time_ns'])} ({fw['hops']} hop)", num(free.get("time_ns", "-")),
                     f"{num(cont['mean_ns'])} ({cont['callers']} callers, {cont['mean_over_one_caller']}x)"])
    run.tables.append(("Per clock", ["clock", "local call instructions", "local call ns", "forwarded call ns",
                                     "forwarded, free NoC ns", "contended forwarded ns"], rows))
    return run


def invade(doc):
    run = Run([doc.path.name], run_info(doc), goals_of_fastpath(doc))
    rows = []
    for c in doc.get("by_clock", kind=dict):
        for name, series in doc.get("by_clock", c, "series", kind=dict).items():
            if not isinstance(series, list) or not series:
                raise ResultsError(f"{doc.path}: by_clock.{c}.series.{name}: expected a non-empty list")
            first, last = series[0], series[-1]
            rows.append([name, c, f"{num(first['median_ns'])} (n = {first['n']})",
                         f"{num(last['median_ns'])} (n = {last['n']})"])
    run.tables.append(("Medians per series and clock", ["series", "clock", "least n ns", "largest n ns"], rows))
    return run


def shm(doc):
    run = Run([doc.path.name], run_info(doc))
    clocks = list(doc.get("by_clock", kind=dict))
    by = {c: {r["bytes"]: r for r in doc.get("by_clock", c, "rows", kind=list)} for c in clocks}
    sizes = sorted({s for c in clocks for s in by[c]})
    rows = [[num(s)] + [num(by[c][s][k]) if s in by[c] else "-" for c in clocks for k in ("message_ns", "window_ns")]
            for s in sizes]
    run.tables.append(("A round trip on rank 0's clock, ns", ["bytes"] + [f"{k} ({c})" for c in clocks
                                                                         for k in ("messages", "window")], rows))
    for c in clocks:
        run.notes.append(f"{c} clock: the window wins from "
                         f"{num(doc.get('by_clock', c, 'window_wins_from_bytes'))} bytes on.")
    return run


def mpi(doc):
    run = Run([doc.path.name], run_info(doc))
    for name in doc.get("goals", kind=dict):
        g = doc.sub("goals", name)
        if name == "p2p_8B_overhead":
            numbers = f"{g.get('ratio')}x Mosaic's (limit {g.get('limit_ratio')}x)"
        else:
            over = g.get("over", kind=list)
            numbers = (f"{g.get('points')} points, worst {g.get('worst', kind=str)} (limit {g.get('limit_ratio')}x)"
                       + (f"; over: {', '.join(over)}" if over else ""))
        run.goals.append(Goal(name, g.get("verdict", kind=str) == "MET", numbers, CLOCKS["virtual"]))
    rows = []
    for i, _ in enumerate(doc.get("rows", kind=list)):
        r = doc.sub("rows", i)
        rows.append([r.get("op", kind=str), r.get("n"), num(r.get("bytes")), num(r.get("mpi_ns")),
                     num(r.get("mosaic_ns")), r.get("ratio")])
    run.tables.append(("MPI beside Mosaic's own calls, median ns on the virtual clock",
                       ["op", "tasks", "bytes", "MPI ns", "Mosaic ns", "ratio"], rows))
    return run


def boot(doc, meta):
    run = Run([doc.path.name, meta.path.name], run_info(meta, how_keys=()))
    for i, g in enumerate(meta.get("goals", kind=list)):
        gd = meta.sub("goals", i)
        verdict = gd.get("verdict", kind=str)
        value, name = gd.get("value"), gd.get("goal", kind=str)
        shown = (gd.get("why", optional=True) if value is None else f"{value:.1%}" if "share" in name
                 else f"{num(value, 3)} s")
        run.goals.append(Goal(name, verdict in ("PASS", "MET"),
                              f"{shown} ({gd.get('harts')} harts, accel {gd.get('accel')})", CLOCKS["host"]))
    rows = []
    for i, e in enumerate(doc.get(kind=list)):
        ed = doc.sub(i)
        if not ed.get("ok", kind=bool):
            rows.append([ed.get("harts"), ed.get("accel"), "failed", "-", "-"])
            continue
        rows.append([ed.get("harts"), ed.get("accel"), num(ed.get("host_wall_s_median", kind=NUMBER), 3),
                     num(ed.get("guest_bringup_us", kind=NUMBER) / 1000, 1),
                     f"{ed.get('kernel_share', kind=NUMBER):.1%}"])
    run.tables.append(("Medians", ["harts", "accel", "online after s (host)", "guest bring-up ms",
                                   "kernel share"], rows))
    return run


def coll(doc):
    run = Run([doc.path.name], run_info(doc))
    g = doc.sub("goals", "tuned_near_best")
    run.goals.append(Goal("tuned_near_best", g.get("verdict", kind=str) == "MET",
                          f"{g.get('near')} of {g.get('points')} points within {g.get('limit_ratio')}x of the best "
                          f"({g.get('share', kind=NUMBER):.0%}, goal {g.get('limit_share', kind=NUMBER):.0%})",
                          CLOCKS["virtual"]))
    g = doc.sub("goals", "loose_pipelines")
    run.goals.append(Goal("loose_pipelines", g.get("verdict", kind=str) == "MET",
                          f"strict / loose per broadcast at k = 16: {g.get('measured')} (goal >= {g.get('limit')})",
                          CLOCKS["virtual"]))
    p = doc.get("penalty", kind=dict)
    if p:
        run.notes.append(f"Penalty of the worst fixed algorithm: median {p.get('median')}x, largest "
                         f"{p.get('max')}x; {p.get('points_over_2x')} of {p.get('points')} points at 2x or more.")
    run.notes.append(f"{doc.get('how', 'harts')} harts, {doc.get('how', 'reps')} repetition(s).")
    return run


def balance(doc):
    run = Run([doc.path.name], run_info(doc))
    for i, _ in enumerate(doc.get("goals", kind=list)):
        g = doc.sub("goals", i)
        run.goals.append(Goal(f"{g.get('goal', kind=str)} ({g.get('where', kind=str)})", g.get("met", kind=bool),
                              g.get("numbers", kind=str), CLOCKS["virtual"]))
    how = doc.sub("how")
    run.notes.append("Configurations " + ", ".join(str(c.get("name")) for c in how.get("configs", kind=list))
                     + f"; {how.get('reps')} repetition(s) per point.")
    v = doc.sub("verdict")
    run.notes.append(f"Claim \"{v.get('claim', kind=str)}\": holds in {v.get('holds_in')} of {v.get('of')} "
                     "configurations.")
    return run


def vtime(doc):
    run = Run([doc.path.name], run_info(doc))
    for name in doc.get("goals", kind=dict):
        g = doc.sub("goals", name)
        run.goals.append(Goal(name, g.get("verdict", kind=str) == "MET",
                              f"{g.get('ratio')}x ({g.get('virtual_s')} s against {g.get('serial_s')} s; limit "
                              f"{g.get('limit')}x): {g.get('what', kind=str)}", CLOCKS["host"]))
    med = doc.get("median_wall_s", kind=dict)
    base = med.get("serial")
    run.tables.append(("Median host wall time per way", ["way", "s", "x serial"],
                       [[w, num(s, 2), num(s / base, 2) if base else "-"] for w, s in med.items()]))
    return run


def alloc(doc):
    run = Run([doc.path.name], run_info(doc))
    rows = [[c.get("id"), c.get("figures"), c.get("verdict")] for c in doc.get("claims", kind=list)]
    how = doc.sub("how")
    run.notes.append(f"Meshes {', '.join(map(str, how.get('meshes', kind=list)))}, {how.get('reps')} runs per point"
                     + ("; a --quick run, not the thesis's set" if how.get("quick", optional=True) else "") + ".")
    run.tables.append((f"The thesis's claims on the {doc.get('how', 'clock', kind=str).split(' ')[0]} clock "
                       "(docs/experiments.md has the evidence)", ["claim", "figures", "verdict"], rows))
    return run


def sim(doc):
    info = run_info(doc, how_keys=())
    run = Run([doc.path.name], info)
    run.goals.append(Goal("whole_set_in_time", doc.get("goal", kind=str) == "MET",
                          f"{num(doc.get('wall_s', kind=NUMBER), 1)} s (limit {num(doc.get('goal_s', kind=NUMBER))} s;"
                                                    f" {doc.get('workers')} workers)", CLOCKS["host"]))
    run.notes.append(f"Meshes {', '.join(f'{m}x{m}' for m in doc.get('meshes', kind=list))}, "
                     f"{doc.get('runs_per_point')} runs per point.")
    return run
