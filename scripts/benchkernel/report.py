"""bench-kernel's printout of one clock's summary (the JSON has every figure; this is what a reader sees first).

Why: kept apart from booting and summarising so that scripts/bench-kernel stays a short driver.
"""
from .summary import FREE_NOC, GOAL_RATIO

# the two columns of a forwarded call's round trip on each clock: the kernel's time_ns and its 1 ns clock
CLOCK_COLUMNS = {"serial": ("time CSR ns", "instret ns"), "virtual": ("core clock ns", "fine clock ns")}


def print_summary(clock, s):
    """Prints one clock's figures and its goals as MET or MISSED."""
    print(f"== {clock} clock ==")
    st, lo, di, sp, de, g = s["setup"], s["local"], s["master_direct"], s["split"], s["decomposition"], \
        s["forwarded_over_local"]
    print(f"mesh {st['mesh']}, {st['harts']} harts, {st['domains']} domains (masters {st['masters']}); domain 0: "
          f"master {st['domain0_master']}, pico-kernels {st['domain0_picos']}; reps {st['reps']}")
    print(f"local     {lo['call']:>9} on core {lo['core']:2d}: {lo['instructions']:5d} instructions, "
          f"{lo['time_ns_per_call']:.1f} ns per call")
    print(f"on master {di['call']:>9} on core {di['core']:2d}: {di['instructions']:5d} instructions, "
          f"{di['time_ns_per_call']:.1f} ns per call (the same handler, not forwarded)")
    print("forwarded heap_grow(0), master idle:")
    print(f"  core  hops  round trip: {CLOCK_COLUMNS[clock][0]:>11}  {CLOCK_COLUMNS[clock][1]}")
    for f in s["forwarded"]:
        print(f"  {f['core']:4d}  {f['hops']:4d}  {f['time_ns']:23d}  {f['instret_delta']:{len(CLOCK_COLUMNS[clock][1])}d}")
    print(f"  where it goes (core {de['core']}, {de['hops']} hop): round trip {de['round_trip_ns']} ns = caller to its "
          f"send {de['caller_to_send_ns']} + NoC flights {de['noc_flights_ns']} (model {de['noc_model_ns']}) + master "
          f"to its reply's send {de['master_to_reply_ns']} + rest {de['rest_ns']} (wake-ups, taking the reply)")
    print(f"  after the sends: caller {de['caller_after_send_ns']} (the rest of its send, during the flight, and "
          f"taking the reply), master {de['master_after_reply_ns']} (off the path); of "
          f"{de['caller_instructions']} and {de['master_serve_instructions']} instructions in all")
    print(f"  request {sp['request_bytes']} B, reply {sp['reply_bytes']} B")
    print("contention: k callers at once, each making reps calls")
    print("     k  mean ns  median ns   max ns  max services  makespan/call ns  mean / k=1")
    for c in s["contention"]:
        print(f"  {c['callers']:4d}  {c['mean_ns']:7d}  {c['median_ns']:9d}  {c['max_ns']:7d}  "
              f"{c['max_services_per_call']:12d}  {c['makespan_ns_per_call']:16d}  {c['mean_over_one_caller']:10.2f}")
    verdict = "MET" if g["met"] else "MISSED"
    print(f"goal forwarded <= {GOAL_RATIO:g}x local: {verdict}: time {g['forwarded_time_ns']} ns / "
          f"{g['local_time_ns']:.1f} ns = {g['time_ratio']}x (allowed {g['allowed_time_ns']:.0f} ns); instructions "
          f"{g['forwarded_instructions_caller_and_master']} / {g['local_instructions']} = {g['instruction_ratio']}x "
          f"(caller alone {g['instruction_ratio_caller_only']}x); the two NoC flights alone are "
          f"{g['noc_flights_alone_over_local_time']}x a local call")
    print(f"  with every NoC delay at 0 ({FREE_NOC}) the same call takes {g['free_noc_forwarded_time_ns']} ns = "
          f"{g['free_noc_time_ratio']}x a local call: the software alone is beyond the goal")
    dx = s["dispatcher_experiment"]
    print(f"dispatcher experiment ({dx['setup']['free_cores']} free cores, 16 pages per unit): time ns / memory bytes")
    print("   n   one dispatcher       14 dispatchers        thread per task")
    for r in dx["table"]:
        a, b, c = r["one_dispatcher"], r["dispatcher_per_free_core"], r["thread_per_task"]
        print(f"  {r['units']:2d}  {a['time_ns']:9d} {a['memory_bytes']:7d}  {b['time_ns']:9d} {b['memory_bytes']:7d}"
              f"  {c['time_ns']:9d} {c['memory_bytes']:8d}")
    gx = dx["goal"]
    print(f"goal dispatchers beat a thread per task in memory at every n: {'MET' if gx['memory_at_every_n'] else 'MISSED'}"
          f"; in time from 14 tasks on: {'MET' if gx['time_from_14_tasks'] else 'MISSED'} (faster from n = "
          f"{gx['dispatchers_faster_from_n']})")
