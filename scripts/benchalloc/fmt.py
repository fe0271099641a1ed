"""Number formats shared by the printed summary, the plots and the page: µs and ms, percentages, Markdown tables.

Why: the same value must read the same everywhere it is shown.
"""


def fmt_us(v):
    """A time in µs for the printed table: ms from 10 ms on."""
    if v is None:
        return "-"
    if v >= 100000:
        return f"{v / 1000:.0f} ms"
    if v >= 10000:
        return f"{v / 1000:.1f} ms"
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def fmt_run(run_us):
    """A run time: '2 s' or '1 ms'."""
    return f"{run_us / 1e6:g} s" if run_us >= 100000 else f"{run_us / 1000:g} ms"


def md_us(s):
    """'1.23 ms' or '456 µs' for a stats dict (mean), '-' if missing."""
    if not s:
        return "-"
    v = s["mean"] / 1000
    return f"{v / 1000:.2f} ms" if abs(v) >= 1000 else f"{v:.0f} µs" if abs(v) >= 10 else f"{v:.1f} µs"


def md_pct(c, signed=True):
    """A percentage for the page; one decimal below 10 % when signed."""
    if c is None:
        return "-"
    digits = 1 if abs(c) < 10 and signed else 0
    return f"{c:+.{digits}f} %" if signed else f"{c:.0f} %"


def span(chs, what="ac"):
    """'ac 83 to 98 % cheaper', 'ac 16 to 53 % dearer' or 'ac vs ab -147 to +48 %'."""
    chs = [c for c in chs if c is not None]
    if not chs:
        return "-"
    lo, hi = min(chs), max(chs)
    if lo > 0:
        return f"{what} {lo:.0f} to {hi:.0f} % cheaper"
    if hi < 0:
        return f"{what} {-hi:.0f} to {-lo:.0f} % dearer"
    return f"{what} vs ab {lo:+.0f} to {hi:+.0f} %"


def md_table(head, rows, left=1):
    """A Markdown table; the first `left` columns are text (left-aligned), the others numbers."""
    rule = "|".join("---" if i < left else "---:" for i in range(len(head)))
    out = ["| " + " | ".join(head) + " |", "|" + rule + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def clock_of(how):
    """'virtual' or 'serial': the clock a run's times are on (alloc.json's how.clock; older runs: serial)."""
    return "virtual" if str((how or {}).get("clock") or "serial").startswith("virtual") else "serial"
