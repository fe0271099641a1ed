"""The in-kernel suites, run at boot by the ktest= boot argument."""
import re

import pytest

from conftest import ktest_summary


@pytest.mark.parametrize("harts", [4, 128])
def test_ktest_all_passes(boot, harts):
    """On the kernel's default clock (the cores' own, vtime=1): at 128 harts that takes about 14 s of
    host time on an idle 2-CPU host, about 1.8x the serial clock's (docs/time.md, issue 13's host
    cost, 2026-11-27), and much more under load: hence the long timeout."""
    r = boot(harts=harts, bootargs="ktest=all", timeout=120 if harts < 100 else 600)
    summary = ktest_summary(r.output)
    assert summary is not None, r.output
    passed, failed = summary
    assert failed == 0, "\n".join(line for line in r.lines if "FAIL" in line)
    assert passed >= 20
    assert r.status == 0
    # one line per test, and the standalone panic suites are not part of "all"
    assert len(re.findall(r"^ktest: (PASS|FAIL) ", r.output, re.M)) == passed
    assert "PANIC" not in r.output


def test_ktest_all_passes_on_the_cores_own_clocks(boot):
    """Every suite also holds under vtime=1 (conservative, without -icount), and no message reaches a
    core late: 4 s of host time on 36 harts against 2.6 s serial (docs/time.md). A hand-over that
    left a waiting core's bound low without waking it stopped the kcall suite here."""
    r = boot(harts=36, bootargs="vtime=1 ktest=all cmd=vtime", timeout=240)
    assert "virtual time: one clock per core" in r.output, r.output[-2000:]
    passed, failed = ktest_summary(r.output)
    assert failed == 0, "\n".join(line for line in r.lines if "FAIL" in line)
    assert passed >= 20 and r.status == 0
    m = re.search(r"^vtime: late=(\d+) late_ns=(\d+)", r.output, re.M)
    assert m and m.groups() == ("0", "0"), m and m.group(0)
    # A core blocked on a waiting core is nudged when that core's bound rises; its 200 ms timer is
    # only a safety net. A look that moves after the timer with no nudge since means a rise that
    # did not nudge: a build whose looks published later bounds without waking counted 14 here.
    m = re.search(r"^vtime: jumps=.* moved after a safety timer=(\d+) ", r.output, re.M)
    assert m and m.group(1) == "0", m and m.group(0)


@pytest.mark.parametrize("suite", ["pages", "bootargs", "fdt", "timer", "ipi", "console", "lib"])
def test_each_suite_alone(boot, suite):
    r = boot(harts=8, bootargs=f"ktest={suite}", timeout=60)
    assert r.status == 0, r.output
    passed, failed = ktest_summary(r.output)
    assert passed >= 1 and failed == 0
    assert all(f"ktest: PASS {suite}." in line for line in r.lines if line.startswith("ktest: PASS"))


def test_timer_bounds_are_reported(boot):
    r = boot(harts=36, bootargs="ktest=timer", timeout=60)
    assert r.status == 0, r.output
    slept = int(re.search(r"boot hart slept (\d+) us for 10000 us", r.output).group(1))
    assert 10000 <= slept < 30000


@pytest.mark.parametrize("method", ["aclint-sswi", "sbi"])
def test_spinlock_contended_by_every_hart(boot, method):
    """127 harts want one lock while its holder sleeps: they go to sleep on it and each unlock wakes
    the next by IPI, through either IPI path (kernel/core/spinlock.c, docs/boot.md "Waiting")."""
    r = boot(harts=128, bootargs="ktest=spinlock" + (" ipi_sbi=1" if method == "sbi" else ""), timeout=120)
    assert r.status == 0, r.output
    assert ktest_summary(r.output) == (1, 0)
    m = re.search(r"ktest:   (\d+) harts, (\d+) updates, (\d+) sleeps on the lock", r.output)
    assert m, r.output[-2000:]
    harts, updates, sleeps = map(int, m.groups())
    assert harts == 127 and updates == harts * 200 and sleeps > 0


@pytest.mark.parametrize("method", ["aclint-sswi", "sbi"])
def test_ipi_every_pair(boot, method):
    # with ipi_sbi=1 IPIs go through SBI send_ipi, one call per 64-hart window
    r = boot(harts=128, bootargs="ktest=ipi" + (" ipi_sbi=1" if method == "sbi" else ""), timeout=90)
    assert r.status == 0, r.output
    assert f"IPIs by {method}" in r.output
    assert f"{128 * 127} pings answered among 128 harts" in r.output


def test_console_lines_never_interleave(boot):
    r = boot(harts=36, bootargs="ktest=console", timeout=60)
    assert r.status == 0, r.output
    lines = [line for line in r.lines if "console-check" in line]
    assert len(lines) == 36 * 8
    rx = re.compile(r"^console-check cpu=(\d{3}) line=(\d) abcdefghijklmnopqrstuvwxyz0123456789 end$")
    assert all(rx.match(line) for line in lines), [line for line in lines if not rx.match(line)][:3]
    assert {(m.group(1), m.group(2)) for m in map(rx.match, lines)} == {
        (f"{c:03d}", str(i)) for c in range(36) for i in range(8)}


def test_failing_test_gives_status_1(boot):
    r = boot(harts=2, bootargs="ktest=selfcheck,lib")
    assert r.status == 1, r.output
    assert re.search(r"^ktest: FAIL selfcheck\.fails_on_purpose \(\d+ us, \d+ k insns\): tests/ktest/test_selfcheck\.c:\d+: "
                     r"1 \+ 1 == 3 \(2 != 3\)$", r.output, re.M), r.output
    assert "ktest: PASS selfcheck.passes" in r.output
    assert ktest_summary(r.output) == (4, 1)


def test_unknown_suite_gives_status_2(boot):
    r = boot(harts=2, bootargs="ktest=lib,nosuch")
    assert r.status == 2, r.output
    assert "ktest: unknown suite 'nosuch'" in r.output
    assert "ktest: PASS" not in r.output  # nothing runs when the list is wrong


@pytest.mark.parametrize("harts", [1, 8])
def test_panic_on_fault(boot, harts):
    r = boot(harts=harts, bootargs="ktest=panic", timeout=60)
    assert r.status == 3, r.output
    out = r.output
    assert re.search(r"PANIC on hart \d+ \(cpu \d+\): unexpected trap: store/AMO access fault", out)
    assert re.search(r"sepc [0-9a-f]{16} \(ktest_deliberate_fault\+0x[0-9a-f]+\)\s+stval 0000000090000000", out)
    assert re.search(r"\bra\s+[0-9a-f]{16}\s+sp\s+[0-9a-f]{16}", out)  # the registers
    bt = out[out.index("backtrace:"):]
    frames = re.findall(r"#\d+ [0-9a-f]{16} (\w+)\+", bt)
    assert frames[:3] == ["ktest_deliberate_fault", "call_through", "ktest_panic_store_fault"], frames
    assert "kmain" in frames
    assert f"{harts - 1} of {harts - 1} other harts stopped" in out
    assert "ktest: " not in out.split("PANIC")[1]  # nothing ran after the panic


def test_panic_on_failed_assertion(boot):
    r = boot(harts=4, bootargs="ktest=panic_assert")
    assert r.status == 3, r.output
    assert "assertion failed: x == 42" in r.output
    frames = re.findall(r"#\d+ [0-9a-f]{16} (\w+)\+", r.output)
    assert frames[:2] == ["ktest_failing_assertion", "ktest_panic_assert_assertion"], frames


def test_panic_with_corrupt_tp_is_reported_not_recursed(boot):
    # a fault while tp is garbage: the panic path must not fault on tp again (it once
    # recursed down its stack into the next hart's, and that hart took the blame)
    r = boot(harts=4, bootargs="ktest=panic_bad_tp", timeout=60)
    assert r.status == 3, r.output[-3000:]
    out = r.output
    assert "PANIC on a hart whose tp is corrupt (tp 0x8000000000000001" in out, out[-3000:]
    assert "unexpected trap: store/AMO access fault" in out
    frames = re.findall(r"#\d+ [0-9a-f]{16} (\w+)\+", out[out.index("backtrace:"):])
    assert frames[:3] == ["ktest_deliberate_fault", "call_through", "ktest_panic_bad_tp_fault_with_corrupt_tp"]
    assert "nested panic" not in out


def test_kernel_stack_overflow_is_named_at_the_next_trap(boot):
    r = boot(harts=4, bootargs="ktest=panic_stack", timeout=60)
    assert r.status == 3, r.output[-3000:]
    out = r.output
    assert re.search(r"PANIC on hart \d+ \(cpu \d+\): kernel stack overflow: the guard word", out), out[-3000:]
    assert "breakpoint" not in out  # the overflow is reported, not the trap that found it
    assert "the overflow was not reported" not in out
