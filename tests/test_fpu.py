"""The FPU in user mode (user/fpu.c, arch/riscv/fpu.S, docs/programs.md "The FPU"): user programs are
built rv64gc/lp64d and compute with doubles (printf prints one, to the bit of the host's IEEE doubles);
a task's f0..f31 and fcsr survive its kernel calls, sleeps and interrupts, and the time-slicing and the
moves of a share group whose every task fills them with its own pattern; every task starts with them
zeroed, also after a task that left garbage and was killed; the kernel itself has no FP instruction
outside the three routines that save, load and zero a task's FP state. One boot per clock."""
import math
import re
import subprocess

import pytest

from conftest import ROOT
from test_balance import LINE, shares

COMMANDS = [
    "run fpu 1 core 1",            # doubles, then the registers across calls, sleeps and spins
    "run fpu 3 core 1 cpu 30",     # garbage in every FP register, killed at its CPU-time limit
    "run fpu 1 core 1",            # must start zeroed after it
    "share fpu 4 2 wait yield",    # four patterns time-sliced on one core
    "share fpu 6 2 cores 2 place rr",  # six on two cores, moved round-robin by the balancer
]


def expected_pi(n=100000):
    s = 0.0
    for k in range(1, n + 1):
        d = float(k)
        s += 1.0 / (d * d)
    return "%.15f" % math.sqrt(6.0 * s)


@pytest.mark.parametrize("vtime", [1, 0])
def test_fp_state_is_kept_per_task_and_every_task_starts_clean(boot, vtime):
    text = "".join(c + "\r" for c in COMMANDS) + "poweroff\r"
    r = boot(harts=4, batch=False, bootargs=f"vtime={vtime} domains=1 share_balance_us=2000", timeout=300,
             input_text=text)
    out = r.output
    assert r.status == 0 and "panic" not in out.lower(), out[-3000:]
    assert not re.search(r"^\[core \d+\] fpu: .*(expected|unknown)", out, re.M), out[-3000:]
    assert f"fpu: sqrt(6 * sum 1/k^2, k <= 100000) = {expected_pi()}" in out, out[-3000:]
    assert len(re.findall(r"^\[core 1\] fpu: alone: ok$", out, re.M)) == 2, out[-3000:]
    assert len(re.findall(r"^mosaic: task fpu on core 1 exited with 0$", out, re.M)) == 2, out[-3000:]
    assert "task 'fpu' killed: CPU-time limit of 30 ms reached" in out, out[-3000:]
    rows = LINE.findall(out)
    assert len(rows) == 10, out[-3000:]
    assert all(row[3] == "exited" and row[4] == "0" for row in rows), rows
    assert all(int(row[10]) >= 3 for row in rows), rows  # preempted and switched, not run one after the other
    one, two = shares(out)
    assert one["ok"] and one["barriers"] == 6 and two["ok"] and two["barriers"] == 6, (one, two)
    assert two["migrations"] > 0, two  # tasks moved between the cores with their FP state


def test_the_kernel_touches_fp_registers_only_to_save_load_and_zero_a_task_s():
    """The kernel is compiled without F and D: an FP instruction anywhere but in arch/riscv/fpu.S would
    change some task's registers behind its back (or trap in S-mode with sstatus.FS Off). The boot
    hart's probe for D (entry.S, before any task) is the one other."""
    dis = subprocess.run(["riscv64-unknown-elf-objdump", "-d", str(ROOT / "build" / "mosaic.elf")], check=True,
                         capture_output=True, text=True).stdout
    fn, found = None, {}
    for line in dis.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1)
            continue
        parts = line.split("\t")
        if len(parts) >= 3 and parts[2].startswith("f") and not parts[2].startswith("fence"):
            found.setdefault(fn, set()).add(parts[2].split()[0])
    assert set(found) == {"__kernel_start", "fpu_zero", "fpu_save", "fpu_load"}, found
    assert found["__kernel_start"] == {"fmv.d.x"} and found["fpu_zero"] == {"fmv.d.x", "fscsr"}, found
    assert found["fpu_save"] == {"fsd", "frcsr"} and found["fpu_load"] == {"fld", "fscsr"}, found
    assert dis.count("fmv.d.x\tft0,zero") == 2, "the probe is one instruction, and fpu_zero zeroes f0 once"


def test_user_programs_are_built_for_the_double_float_abi():
    programs = re.search(r"^USER_PROGRAMS := (.*)$", (ROOT / "Makefile").read_text(), re.M).group(1).split()
    assert "fpu" in programs
    for elf in (ROOT / "build" / "user" / f"{p}.elf" for p in programs):
        header = subprocess.run(["riscv64-unknown-elf-readelf", "-h", str(elf)], check=True, capture_output=True,
                                text=True).stdout
        assert "double-float ABI" in header, elf
