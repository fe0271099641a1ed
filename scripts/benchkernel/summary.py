"""bench-kernel's summaries: the kernel's JSON lines of one clock turned into the figures of kernel.json.

Why: scripts/bench-kernel boots the same benchmark on two clocks; the summaries do not depend on the clock (the
kernel reads the clock it runs on), so they are kept apart from booting and printing.
"""

GOAL_RATIO = 3.0
FREE_NOC = "noc_t_inject=0 noc_t_hop=0 noc_t_flit=0"  # every delay of the NoC model at zero


def summarise(rows):
    one = lambda kind: next(r for r in rows if r["kind"] == kind)  # noqa: E731
    many = lambda kind: [{k: v for k, v in r.items() if k != "kind"} for r in rows if r["kind"] == kind]  # noqa: E731
    setup, local, direct, split = one("setup"), one("local"), one("master_direct"), one("split")
    forwarded, contention = many("forwarded"), many("contention")
    fwd = next(f for f in forwarded if f["core"] == split["core"])  # the nearest pico-kernel, as in split

    local_time = local["batch_time_ns"] / local["batch_calls"]
    floor = split["request_flight_ns"] + split["reply_flight_ns"]
    software = split["caller_instructions"] + split["master_serve_instructions"]
    # The round trip's path: the caller up to its request's send, the request's flight, the master up
    # to its reply's send, the reply's flight. Neither side can see a message before it is delivered,
    # so what is left (the wake-ups and the caller's taking of the reply) is never negative. What each
    # side does after its send (the network interface's work, the master's return) overlaps the flight
    # and is off the path: counting all of each side's software made "rest" negative.
    path = split["caller_to_send_ns"] + floor + split["master_to_reply_ns"]
    decomposition = {
        "core": fwd["core"], "hops": fwd["hops"],
        "round_trip_ns": fwd["instret_delta"],
        "caller_to_send_ns": split["caller_to_send_ns"],
        "noc_flights_ns": floor,
        "noc_model_ns": split["model_request_ns"] + split["model_reply_ns"],
        "master_to_reply_ns": split["master_to_reply_ns"],
        "rest_ns": fwd["instret_delta"] - path,
        "caller_after_send_ns": split["caller_instructions"] - split["caller_to_send_ns"],
        "master_after_reply_ns": split["master_serve_instructions"] - split["master_to_reply_ns"],
        "caller_instructions": split["caller_instructions"],
        "master_serve_instructions": split["master_serve_instructions"],
        "note": "round trip = caller up to its request's send + request flight + master up to its reply's send "
                "+ reply flight + rest; rest = the master's and the caller's wake-ups and the caller's taking of "
                "the reply (never negative: no message is seen before its delivery); caller_after_send is the rest "
                "of the caller's send, during the request's flight, and its taking of the reply (in rest); "
                "master_after_reply runs during the reply's flight, off the path",
    }
    base = contention[0]["mean_ns"] if contention else None
    for c in contention:
        c["mean_over_one_caller"] = round(c["mean_ns"] / base, 2) if base else None

    ratio_time = fwd["time_ns"] / local_time
    goal = {
        "goal": f"a forwarded call costs at most {GOAL_RATIO:g}x a local one while the master is idle",
        "local_call": f"{local['call']} on core {local['core']}",
        "forwarded_call": f"heap_grow(0) from core {fwd['core']} ({fwd['hops']} hop) to master {fwd['master']}",
        "local_time_ns": local_time,
        "forwarded_time_ns": fwd["time_ns"],
        "time_ratio": round(ratio_time, 1),
        "time_ratio_instret": round(fwd["instret_delta"] / local["instret_delta"], 1),
        "local_instructions": local["instructions"],
        "forwarded_instructions_caller_and_master": software,
        "instruction_ratio": round(software / local["instructions"], 1),
        "instruction_ratio_caller_only": round(split["caller_instructions"] / local["instructions"], 1),
        "noc_flights_alone_over_local_time": round(floor / local_time, 1),
        "allowed_time_ns": GOAL_RATIO * local_time,
        "met": ratio_time <= GOAL_RATIO,
    }
    return {
        "setup": setup,
        "local": {k: v for k, v in local.items() if k != "kind"},
        "master_direct": {k: v for k, v in direct.items() if k != "kind"},
        "forwarded": forwarded,
        "split": {k: v for k, v in split.items() if k != "kind"},
        "decomposition": decomposition,
        "contention": contention,
        "forwarded_over_local": goal,
    }


def add_free_noc(s, rows):
    """The forwarded calls of a boot whose NoC model has every delay at zero, beside the goal."""
    g, split = s["forwarded_over_local"], s["split"]
    forwarded = [{k: v for k, v in r.items() if k != "kind"} for r in rows if r["kind"] == "forwarded"]
    near = next(f for f in forwarded if f["core"] == split["core"])
    s["forwarded_free_noc"] = {"bootargs": FREE_NOC, "forwarded": forwarded}
    g["free_noc_forwarded_time_ns"] = near["time_ns"]
    g["free_noc_time_ratio"] = round(near["time_ns"] / g["local_time_ns"], 1)
    g["free_noc_note"] = ("the same call with every NoC delay at zero: the software alone (two messages, the "
                          "master's and the caller's wake-ups, the service); no NoC setting can bring the call "
                          "below this")


def tasks_summary(rows):
    """The dispatcher experiment's rows by n, and the paper's claims checked against them."""
    setup = next(r for r in rows if r["scenario"] == "setup")
    by_n = {}
    for r in rows:
        if r["scenario"] != "setup":
            by_n.setdefault(r["units"], {})[r["scenario"]] = {k: r[k] for k in ("time_ns", "memory_bytes",
                                                                                "pages_held", "contexts")}
    table = [{"units": n, **{sc: v for sc, v in by_n[n].items()}} for n in sorted(by_n)]
    mem_ok = all(max(r["one_dispatcher"]["memory_bytes"], r["dispatcher_per_free_core"]["memory_bytes"])
                 < r["thread_per_task"]["memory_bytes"] for r in table)
    time_ok = all(r["dispatcher_per_free_core"]["time_ns"] < r["thread_per_task"]["time_ns"]
                  for r in table if r["units"] >= 14)
    first_faster = next((r["units"] for r in table
                         if all(x["dispatcher_per_free_core"]["time_ns"] < x["thread_per_task"]["time_ns"]
                                for x in table if x["units"] >= r["units"])), None)
    return {"setup": setup, "table": table,
            "goal": {"memory_at_every_n": mem_ok, "time_from_14_tasks": time_ok,
                     "dispatchers_faster_from_n": first_faster, "met": mem_ok and time_ok}}
