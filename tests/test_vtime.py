"""Per-core virtual time (vtime=1, kernel/time/vtime.c, docs/time.md): exact clocks, a ping-pong that
does not see busy cores, barriers that grow with the tree's depth, and a message trace checked
here, on the host: no message consumed before its arrival, each core's messages in arrival
order, none late under conservative synchronisation.

The vtime ktests run without -icount: the virtual clocks do not need it to be exact, and under
-icount a ping-pong beside spinning cores is slow (16 harts: 45 s of host time; docs/time.md).
Without it the 128-hart ping-pong beside 125 spinning cores takes about two minutes."""
import json
import re

from conftest import ktest_summary

TRACE = re.compile(r"^vtrace core=(\d+) i=(\d+) src=(\d+) deliver=(\d+) recv=(\d+)$", re.M)


def vtime_suite(boot, harts, extra="", timeout=240):
    r = boot(harts=harts, bootargs=f"vtime=1 {extra} ktest=vtime", timeout=timeout)
    assert "virtual time: one clock per core" in r.output, r.output[-2000:]
    return r


def test_clocks_are_exact_and_a_ping_pong_ignores_busy_cores(boot):
    r = vtime_suite(boot, 8, "vtime_ns_per_insn=3")
    assert "1000 more iterations: 15000 ns more at 3 ns per instruction" in r.output
    assert re.search(r"PASS vtime.two_cores_at_once_each_see_their_own_work", r.output), r.output[-3000:]
    r = vtime_suite(boot, 8)
    assert ktest_summary(r.output) == (5, 0), r.output[-3000:]
    m = re.search(r"ping-pong 1<->2: (\d+) ns per round trip with the others idle, (\d+) ns with 5 cores busy",
                  r.output)
    idle, busy = int(m.group(1)), int(m.group(2))
    assert abs(busy - idle) * 100 <= 2 * idle, (idle, busy)


def test_a_ping_pong_is_the_same_beside_125_busy_cores(boot):
    """The same at the issue's scale: 128 harts, cores 1 and 2 in the ping-pong, the other 125
    pico-kernels idle in one run and spinning in compute loops in the other (core 0 runs the
    suite). About two minutes of host time: QEMU runs the 125 spinning harts in turn."""
    r = vtime_suite(boot, 128, timeout=600)
    assert ktest_summary(r.output) == (5, 0), r.output[-3000:]
    m = re.search(r"ping-pong 1<->2: (\d+) ns per round trip with the others idle, (\d+) ns with 125 cores busy",
                  r.output)
    assert m, r.output[-3000:]
    idle, busy = int(m.group(1)), int(m.group(2))
    assert abs(busy - idle) * 100 <= 2 * idle, (idle, busy)


def check_trace(output, harts, ordered=True):
    rows = [tuple(map(int, m)) for m in TRACE.findall(output)]
    assert len(rows) == harts * 12, f"{len(rows)} trace lines"
    per_core = {}
    for core, i, src, deliver, recv in rows:
        assert recv >= deliver, f"core {core} took message {i} from {src} at {recv}, before its arrival {deliver}"
        per_core.setdefault(core, []).append((i, deliver))
    for core, seen in per_core.items():
        if not ordered:
            break
        arrivals = [d for _, d in sorted(seen)]
        assert arrivals == sorted(arrivals), f"core {core} did not take its messages in arrival order: {arrivals}"
    return tuple(map(int, re.search(r"^vtrace late=(\d+) late_ns=(\d+)$", output, re.M).groups()))


def test_no_message_is_seen_early_or_out_of_order_and_none_is_late(boot):
    r = vtime_suite(boot, 16)
    assert ktest_summary(r.output) == (5, 0), r.output[-3000:]
    assert check_trace(r.output, 16) == (0, 0)


def test_lax_mode_reports_what_it_costs(boot):
    """Lax synchronisation (nobody waits) still never shows a message early, but may take them out
    of arrival order, and counts the ones that reached a core after it had looked past their arrival."""
    r = vtime_suite(boot, 16, "vtime_sync=1")
    assert "lax synchronisation" in r.output
    late, late_ns = check_trace(r.output, 16, ordered=False)
    assert (late == 0) == (late_ns == 0)
    print(f"lax: {late} late messages, {late_ns} ns in all")


def barrier(boot, harts, icount=True):
    r = boot(harts=harts, bootargs=f'vtime=1 cmd="bench_coll barrier {harts}"', icount=icount, timeout=300)
    assert r.status == 0, r.output[-2000:]
    return json.loads(re.search(r'^bench-noc: (\{"kind": "barrier".*\})$', r.output, re.M).group(1))


def test_a_barrier_grows_with_the_tree_depth_not_the_members(boot):
    small, large = barrier(boot, 16), barrier(boot, 64)
    assert large["tree_depth"] == 2 * small["tree_depth"]
    ratio = large["period_ns"] / small["period_ns"]
    # four times the members, twice the depth: the period follows the depth
    assert 1.2 < ratio < 3.0, (small, large)


def barrier_rows(boot, extra=""):
    """bench_noc's barriers on 2 to 128 of the 16x8 mesh's cores (the first n cores in row order)."""
    r = boot(harts=128, bootargs=f'vtime=1 {extra} cmd="bench_noc 5"', icount=True, timeout=300)
    assert r.status == 0, r.output[-2000:]
    rows = [json.loads(m) for m in re.findall(r'^bench-noc: (\{"kind": "barrier".*\})$', r.output, re.M)]
    assert [row["cores"] for row in rows] == [2, 4, 8, 16, 32, 64, 128], rows
    return rows


def test_from_2_to_128_cores_a_barriers_period_follows_the_depth(boot):
    """The issue's range, on the one-hop tree (coll_tree_stride=1), where every level is alike: members
    grow 64-fold, the tree's depth 12-fold, and the period per level of depth stays within 10 %
    (measured: 3.88-3.96 µs). On the default tree (edges of up to two hops, docs/noc.md) levels differ
    in length and in children, so the test there is that the period grows far less than the members
    (2 to 128 cores: 3.95 to 31.5 µs, 8x for 64x) and that it beats the one-hop tree at 128 cores."""
    one_hop = barrier_rows(boot, "coll_tree_stride=1")
    per_level = [row["period_ns"] / row["tree_depth"] for row in one_hop]
    assert max(per_level) < 1.1 * min(per_level), per_level
    assert [row["tree_depth"] for row in one_hop][-1] == 12, one_hop  # the 16x8 mesh's eccentricity
    # 64 times the members, 12 times the depth: the period grows like the depth, far below the members
    assert one_hop[-1]["period_ns"] < 16 * one_hop[0]["period_ns"], one_hop
    rows = barrier_rows(boot)
    assert rows[-1]["tree_depth"] == 6, rows
    assert rows[-1]["period_ns"] < 10 * rows[0]["period_ns"], rows
    assert rows[-1]["period_ns"] < one_hop[-1]["period_ns"], (rows, one_hop)


def test_two_boots_give_the_same_virtual_times(boot):
    """With -icount the whole boot repeats; the barrier's virtual times repeat too."""
    a, b = barrier(boot, 16), barrier(boot, 16)
    assert a == b


def test_two_icount_boots_make_the_same_protocol_decisions_at_the_same_times(boot):
    """Under -icount a scenario's whole allocation trace (every message sent and received, every
    commit, cancel and start, each with its core's virtual time) and its job records repeat line for
    line."""
    runs = []
    for _ in range(2):
        r = boot(harts=36, icount=True, timeout=120,
                 bootargs='vtime=1 alloc_trace=4096 cmd="scenario simul 4 8 100;alloc_trace"')
        assert r.status == 0, r.output[-2000:]
        runs.append([ln for ln in r.output.splitlines() if ln.startswith(("TRACE ", "ALLOCJOB "))])
    assert sum(ln.startswith("TRACE ") for ln in runs[0]) > 1000
    assert sum(ln.startswith("ALLOCJOB ") for ln in runs[0]) == 4
    assert runs[0] == runs[1]


def scenario_jobs(boot):
    r = boot(harts=36, bootargs='vtime=1 cmd="scenario simul 4 8 100"', icount=False, timeout=120)
    assert r.status == 0, r.output[-2000:]
    return [json.loads(m) for m in re.findall(r"^ALLOCJOB (\{.*\})$", r.output, re.M)]


def test_without_icount_boots_repeat_their_absolute_times_and_decisions(boot):
    """Without -icount the host decides in which order the harts run, but every clock starts at
    the same time after bring-up (VTIME_START_NS) and counts only its own core's work: a
    barrier benchmark gives the same tree and nearly the same times on two boots, and a
    scenario's jobs the same absolute submission times and the same decisions. A barrier's
    times may differ by a few ns (measured: 2 boots in 32 under load, 17,700 against 17,712 ns;
    about 100 instructions whose path is not located), the allocation times by a few µs
    (docs/time.md, "Repeatability without -icount")."""
    x, y = barrier(boot, 16, icount=False), barrier(boot, 16, icount=False)
    timed = ("measured_ns", "per_level_overhead_ns", "period_ns")
    assert {k: v for k, v in x.items() if k not in timed} == {k: v for k, v in y.items() if k not in timed}
    within = max(x["period_ns"], y["period_ns"]) // 100  # 1 % of a period: 177 ns at 16 cores
    for key in timed:
        assert abs(x[key] - y[key]) <= within, (key, x, y)
    a, b = scenario_jobs(boot), scenario_jobs(boot)
    assert len(a) == len(b) == 4
    for x, y in zip(a, b):
        for key in ("job", "t_submit_ns", "msgs", "hops", "cancels", "attempts", "cores", "status"):
            assert x[key] == y[key], (key, x, y)
        assert abs(x["t_alloc_ns"] - y["t_alloc_ns"]) <= 20000, (x, y)




def test_a_shell_timeout_runs_on_the_shell_cores_clock(boot):
    """`jobs wait S` waits at most S seconds of the shell core's own clock: a simulated job of 3 s is not
    over after 1 s, however fast the host ran it (on the machine's clock it was, docs/time.md), and is after 5."""
    job = "submit sim 4 time 3000000"
    r = boot(harts=16, bootargs=f'vtime=1 partial_sim=4 cmd="{job};jobs wait 1"', timeout=120)
    assert r.status == 1, r.output[-2000:]
    assert "jobs: 0 ended, 1 still in the system" in r.output
    assert re.search(r"alloc: DIAGNOSIS at (\d+) ms: jobs wait: 1 jobs did not end within 1 s", r.output), \
        r.output[-2000:]
    r = boot(harts=16, bootargs=f'vtime=1 partial_sim=4 cmd="{job};jobs wait 5"', timeout=120)
    assert r.status == 0, r.output[-2000:]
    assert "jobs: 1 ended, 0 still in the system" in r.output


def test_a_micro_kernels_polls_miss_nothing_before_it_runs_other_work(boot):
    """A micro-kernel that polls for protocol messages and kernel calls, finds none and goes on to
    other work (a task: its domain's console lines, say) first settles, so that no message that
    arrives before its clock can still come (docs/time.md, "Kernel-internal polls"). With
    vtime_poll_settle=0 it does not, and its polls only record that they looked: the messages they
    miss then show as late, which is what the default must not have. Under -icount: the same
    interleaving on every boot, so the count without the settle repeats too."""
    late = {}
    for settle in (1, 0):
        r = boot(harts=36, icount=True, timeout=240,
                 bootargs=f'vtime=1 vtime_poll_settle={settle} partial_sim=8 alloc_check=1 '
                          f'cmd="scenario simul 12 36 1000;vtime"')
        assert r.status == 0, r.output[-2000:]
        run = json.loads(re.search(r"^ALLOCRUN (\{.*\})$", r.output, re.M).group(1))
        assert run["ok"] == 12, run
        late[settle] = tuple(map(int, re.search(r"^vtime: late=(\d+) late_ns=(\d+)$", r.output, re.M).groups()))
    assert late[1] == (0, 0), late
    assert late[0][0] > 0, late  # the check can see the gap: polls that do not settle miss messages


PROPBENCH_NS = re.compile(r'^PROPBENCH \{"scheme":"(\w+)","w":(\d+),"h":(\d+),[^}]*"ns":(\d+)', re.M)


def test_no_core_jumps_past_an_event_handed_to_it_during_its_look(boot):
    """Fig. 5.6's sweep on 11x11 under -icount: every repetition of one broadcast shape takes about
    the same virtual time. A micro-kernel used to jump to its 10 s deadline over a child's echo
    noted to it after it had read its own next event, while the child, already waiting again,
    passed the look (docs/time.md, "Events handed over during a look"): one repetition in five
    boots took the NoC sampler's 100 ms, or the shell gave up after 10 s."""
    shapes = ";".join(f"propbench {w} {h} reps 15" for w, h in
                      ((2, 1), (2, 2), (3, 2), (3, 3), (4, 3), (4, 4), (5, 4), (5, 5), (6, 5), (6, 6), (7, 6)))
    for scheme in ("fixed", "adaptive"):
        r = boot(harts=121, bootargs=f'vtime=1 partial_sim=8 alloc_check=0 scheme={scheme} cmd="{shapes}"',
                 icount=True, timeout=300)
        assert r.status == 0 and "no answer" not in r.output, r.output[-2000:]
        times = {}
        for _, w, h, ns in PROPBENCH_NS.findall(r.output):
            times.setdefault((int(w), int(h)), []).append(int(ns))
        assert len(times) == 11 and all(len(v) == 15 for v in times.values()), times.keys()
        for shape, ns in times.items():
            # the spread of the virtual clock is a few per cent (link bookings); a jump is 100x
            assert max(ns) <= 2 * min(ns), (scheme, shape, sorted(ns))
