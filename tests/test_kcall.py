"""Kernel calls: local calls, and calls forwarded by every pico-kernel to its domain master at once."""
import re

import pytest

from conftest import ktest_summary


# noc_depth=1: one slot per mailbox, so all but one caller wait for a credit and the master must drain
# its mailbox to see them (kernel/kcall/kcall.c, master_serve_one); the fairness bound must hold all the same
@pytest.mark.parametrize("harts,picos,extra", [(36, 8, ""), (36, 8, " noc_depth=1"), (128, 31, "")])
def test_every_pico_kernel_calls_its_master(boot, harts, picos, extra):
    r = boot(harts=harts, bootargs="ktest=kcall" + extra, timeout=120)
    assert ktest_summary(r.output) == (3, 0), r.output[-3000:]
    assert r.status == 0
    # each pico-kernel's console write was printed by its master, tagged with the caller
    writers = {int(c) for c, w in re.findall(r"^\[core (\d+)\] kcall-check from core (\d+)$", r.output, re.M)
               if c == w}
    assert len(writers) == harts - 4  # all but the four micro-kernels
    m = re.search(r"domain 0: (\d+) pico-kernels, (\d+) calls served, a call waited for at most (\d+)", r.output)
    assert int(m.group(1)) == picos and int(m.group(2)) == picos * 7
    assert int(m.group(3)) <= 2 * picos + 1  # fair: at most two rounds of the domain (docs/microkernel.md)
