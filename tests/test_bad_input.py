"""Bad input gets a clear message and a defined exit status, and QEMU is never left behind."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, expect, ktest_summary, mosaiclib


def run(cmd, timeout=120):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("harts", ["0", "129", "-3", "many"])
def test_make_refuses_bad_hart_counts(harts):
    for target in ("run", "qemu"):
        r = run(["make", "-s", target, f"HARTS={harts}"])
        assert r.returncode != 0
        assert f"HARTS={harts} is outside 1..128" in r.stderr
        assert "OpenSBI 1.1" in r.stderr
        assert "qemu-system" not in r.stdout  # refused before QEMU starts


@pytest.mark.parametrize("harts", ["0", "129"])
def test_mosaic_run_refuses_bad_hart_counts(harts):
    r = run([sys.executable, "scripts/mosaic-run", "--harts", harts])
    assert r.returncode == 2
    assert "outside 1..128" in r.stderr


def test_mosaic_run_help():
    r = run([sys.executable, "scripts/mosaic-run", "--help"])
    assert r.returncode == 0
    for opt in ("--timeout", "--log", "--harts", "--bootargs", "--icount", "--accel", "124"):
        assert opt in r.stdout


def test_bench_shm_refuses_bad_options_and_explains_itself():
    r = run([sys.executable, "scripts/bench-shm", "--help"])
    assert r.returncode == 0 and "window_ns" in r.stdout and "--clocks" in r.stdout
    for bad in (["--reps", "0"], ["--reps", "33"], ["--clocks", "fast"], ["--clocks", "virtual,virtual"]):
        r = run([sys.executable, "scripts/bench-shm", *bad])
        assert r.returncode == 2, (bad, r.stderr)


def test_bench_coll_refuses_bad_options_and_explains_itself():
    r = run([sys.executable, "scripts/bench-coll", "--help"])
    assert r.returncode == 0 and "strict" in r.stdout and "loose" in r.stdout and "--harts" in r.stdout
    for bad in (["--reps", "0"], ["--reps", "16"], ["--harts", "3"], ["--harts", "129"]):
        r = run([sys.executable, "scripts/bench-coll", *bad])
        assert r.returncode == 2, (bad, r.stderr)


def test_make_help_lists_targets_and_variables():
    r = run(["make", "-s", "help"])
    assert r.returncode == 0
    for word in ("qemu", "qemu-gdb", "gdb", "run", "test", "bench-boot", "bench-noc", "bench-kernel", "bench-alloc",
                 "bench-invade", "bench-shm", "bench-coll", "clean", "HARTS", "MESH", "BOOTARGS", "ACCEL", "ICOUNT"):
        assert re.search(rf"\b{word}\b", r.stdout), word


def test_unknown_boot_argument(boot):
    r = expect(boot(harts=2, bootargs="bogus=1 ktest=lib"), 2, "bootargs: unknown key 'bogus'")
    assert "ktest: PASS" not in r.output  # a bad command line does nothing else


def test_bad_boot_argument_values(boot):
    expect(boot(harts=2, bootargs="boot_timeout_ms=0 shell=7 ktest"), 2,
           "bootargs: 'boot_timeout_ms' is out of range (allowed 1..600000)",
           "bootargs: 'shell' is out of range (allowed 0..1)", "bootargs: 'ktest' needs a value")


def test_unknown_shell_command(boot):
    r = expect(boot(harts=2, bootargs="cmd=harts;frobnicate;mem"), 2,
               "shell: unknown command 'frobnicate'; type 'help' for the list")
    assert "mosaic> mem" not in r.output  # the script stops at the first failure


def test_shell_usage_error(boot):
    expect(boot(harts=2, bootargs='cmd="harts extra"'), 2, "usage: harts")


def test_run_exits_with_the_kernels_status():
    # make itself can only exit 0 or 2, and names the recipe's status; mosaic-run passes it on exactly
    r = run(["make", "-s", "run", "HARTS=2", "BOOTARGS=cmd=\"poweroff 5\"", "TIMEOUT=60"])
    assert r.returncode != 0, r.stdout + r.stderr
    assert "Error 5" in r.stderr
    assert "mosaic: poweroff (status 5)" in r.stdout
    log = (ROOT / "build" / "run.log").read_text()
    assert "2/2 harts online" in log
    r = run([sys.executable, "scripts/mosaic-run", "--harts", "2", "--quiet", "--bootargs", 'cmd="poweroff 5"'])
    assert r.returncode == 5


def test_timeout_kills_qemu():
    # shell=1 keeps the kernel waiting for input, so only the timeout can end the run
    r = run([sys.executable, "scripts/mosaic-run", "--harts", "2", "--timeout", "3", "--bootargs", "shell=1"])
    assert r.returncode == 124
    assert "timed out after 3 s; QEMU killed" in r.stderr
    kernel = str(mosaiclib.DEFAULT_KERNEL)
    leftovers = subprocess.run(["pgrep", "-f", f"qemu-system-riscv64.*{kernel}.*shell=1"], capture_output=True,
                               text=True)
    assert leftovers.stdout.strip() == "", "a QEMU outlived mosaic-run"


def test_hart_that_never_checks_in_is_reported(boot):
    r = boot(harts=8, bootargs="fail_hart=5 boot_timeout_ms=500")
    if "booting on hart 5 " in r.output:
        pytest.skip("OpenSBI's lottery made hart 5 the boot hart")
    assert r.status == 4, r.output
    assert "mosaic: hart 5 did not come online within 500 ms" in r.output
    assert "mosaic: 7/8 harts online" in r.output


def test_hart_started_at_the_kernel_entry_is_adopted(boot):
    """OpenSBI 1.1 can send a started hart to the kernel's entry instead of its start address
    (docs/boot.md); the stray_hart hook does so on purpose. The boot hart must adopt it there,
    and quickly: without adoption it stays silent until the 20 s bring-up timeout."""
    r = boot(harts=8, bootargs="stray_hart=6 ktest=smp", timeout=60)
    if "booting on hart 6 " in r.output:
        pytest.skip("OpenSBI's lottery made hart 6 the boot hart")
    assert r.status == 0, r.output
    assert "mosaic: hart 6 reached the kernel's entry instead of its start address" in r.output
    assert "mosaic: 8/8 harts online" in r.output
    bring_up_us = int(re.search(r"bring-up took (\d+) us", r.output).group(1))
    assert bring_up_us < 1_000_000, bring_up_us
    assert ktest_summary(r.output) == (1, 0)


def test_missing_kernel_is_reported():
    r = run([sys.executable, "scripts/mosaic-run", "--kernel", "/nonexistent.elf"])
    assert r.returncode == 2
    assert "no kernel at /nonexistent.elf" in r.stderr


def test_qemu_failure_is_not_a_kernel_status():
    r = run([sys.executable, "scripts/mosaic-run", "--mem", "1T", "--harts", "1", "--timeout", "30"])
    assert r.returncode == 125, r.stdout + r.stderr
    assert "QEMU failed before the kernel started" in r.stderr
