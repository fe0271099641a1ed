"""The fast-path goals: one table of limits, anchors and before-figures, and the verdicts the benchmarks store.

Why: bench-noc, bench-kernel and bench-invade each judge some rows of the same table (the issue "Fast paths":
messages, forwarded calls, invade/retreat/infect, break-even). The limits, the anchors from the other systems and
the figures measured before the work live here once, so that the scripts' JSON ("goals"), their printout and
docs/benchmarks.md cannot disagree.

Which clock judges a row: an instruction count of kernel software (a message, a forwarded call's two sides) is
judged on the serial-clock boot, where virtual time's own bookkeeping (clock reads, stamps, the conservative
look before a receive) is switched off, so the count is the kernel's path alone, as in the issue's before-figures;
the virtual-clock boot's count is stored beside it and is larger by exactly that bookkeeping. A time (invade,
retreat, infect, break-even) is judged on the virtual clock, the time a parallel manycore would take; the
serial clock's figure, which adds up every hart's work, is stored beside it.
"""

# "before": the figure, and make bench-noc / bench-kernel / bench-invade of 2026-11-24 13:07-13:10 UTC
# (kernel 96ea683, before any fast-path work) on each clock.
GOALS = {
    "message_send_recv_8B": {
        "what": "send + receive of an 8-byte message between two kernels, instructions of both sides "
                "(bench-noc's overhead line: the message already delivered, no waiting)",
        "unit": "instructions", "limit": 450, "judged_on": "serial",
        "anchor": "Barrelfish URPC: 180 to 618 cycles per message",
        "before": {"issue": 832, "serial_before": 1115, "virtual_before": 1474},
    },
    "forwarded_call_caller_and_master": {
        "what": "a forwarded null call (heap_grow of 0 bytes), the caller's kcall() plus the master's "
                "master_serve_one(), each measured alone without waiting (bench-kernel's split)",
        "unit": "instructions", "limit": 1500, "judged_on": "serial",
        "anchor": "seL4 IPC round trip on RISC-V: about 1,000 cycles",
        "before": {"issue": 3292, "serial_before": 3961, "virtual_before": 4777},
    },
    "invade_retreat_in_domain": {
        "what": "the slowest median invade or retreat of dc = 1..8 cores within the owner's domain, on the "
                "owner's clock (1 ns = 1 instruction of the core, waits included)",
        "unit": "ns", "limit": 2000, "judged_on": "virtual",
        "anchor": "OctoPOS: 31 to 70 cycles",
        "before": {"issue": "23,000 to 35,000", "virtual_before": 35914, "serial_before": 35300},
    },
    "infect_per_member": {
        "what": "what one more member adds to infect-to-start: (start of the last member at the largest k - "
                "start at k = 1) / (largest k - 1), on the owner's clock",
        "unit": "ns", "limit": 1000, "judged_on": "virtual",
        "anchor": "OctoPOS: 27 to 184 cycles to infect, +64 to start",
        "before": {"issue": "about 34,000", "serial_before": 37348, "virtual_before": 1201},
    },
    "break_even_loop": {
        "what": "the paper's break-even T = overhead * p / (p - 1) for the largest p measured, against 10x "
                "OctoPOS's 576 cycles (counted as 1 ns instructions)",
        "unit": "ns", "limit": 5760, "judged_on": "virtual",
        "anchor": "OctoPOS 576 cycles vs Linux 144,000",
        "before": {"virtual_before": 144253, "serial_before": 442514},
    },
}


def verdict(name, by_clock):
    """The goal row `name` with the measured figure on each clock ({clock: value or None}) and its verdict."""
    g = GOALS[name]
    judged = by_clock.get(g["judged_on"])
    return {**g, "measured": {c: v for c, v in by_clock.items() if v is not None},
            "met": judged is not None and judged <= g["limit"],
            "judged": judged if judged is not None else f"not measured: no {g['judged_on']}-clock boot"}


def print_goals(goals, prefix):
    """One line per goal: MET or MISSED with the judged figure, the limit, the other clock and the anchor."""
    for name, g in goals.items():
        if name not in GOALS:
            continue
        others = ", ".join(f"{c} {v:,.0f}" for c, v in g["measured"].items() if c != g["judged_on"])
        judged = g["judged"] if isinstance(g["judged"], str) else f"{g['judged']:,.0f}"
        print(f"{prefix}goal {name}: {'MET' if g['met'] else 'MISSED'}: {judged} {g['unit']} on the "
              f"{g['judged_on']} clock (limit {g['limit']:,}{'; ' + others if others else ''}; anchor: "
              f"{g['anchor']})")
