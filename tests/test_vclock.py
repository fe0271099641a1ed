"""The vclock plugin: loaded by default, exact per-hart instruction counts, repeatable under -icount.

The ktest suite "vclock" measures its probes (tests/ktest/vclock_probe.S) and derives
what it expects from the probes' labels; these tests derive the same numbers again,
independently, from the disassembly of the built kernel, so a wrong assumption in the
kernel (say, about instruction sizes) cannot pass unnoticed.
"""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, ktest_summary, mosaiclib

OBJDUMP = "riscv64-unknown-elf-objdump"


def symbols():
    """name -> address, from build/mosaic.sym (nm -n of the kernel the Makefile wrote)."""
    out = {}
    for line in (ROOT / "build" / "mosaic.sym").read_text().splitlines():
        parts = line.split()
        if len(parts) == 3:
            out[parts[2]] = int(parts[0], 16)
    return out


def insns_between(syms, start, stop):
    """Instructions the disassembler finds in [start, stop) of the kernel."""
    out = subprocess.run([OBJDUMP, "-d", f"--start-address={syms[start]:#x}", f"--stop-address={syms[stop]:#x}",
                          str(mosaiclib.DEFAULT_KERNEL)], capture_output=True, text=True, check=True).stdout
    return len(re.findall(r"^\s+[0-9a-f]+:\t[0-9a-f]{4}", out, re.M))


def counted(output, what):
    """The 'counted N' figures of the ktest lines that contain `what`."""
    return [int(m.group(1)) for line in output.splitlines() if what in line
            for m in [re.search(r"counted (\d+)", line)] if m]


def run_mosaic(args, env_vtime=None, timeout=120):
    """scripts/mosaic-run as a user runs it, with VTIME unset unless given."""
    env = {k: v for k, v in os.environ.items() if k != "VTIME"}
    if env_vtime is not None:
        env["VTIME"] = env_vtime
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "mosaic-run"), "--quiet", *args],
                          capture_output=True, text=True, env=env, timeout=timeout)


def test_plugin_is_loaded_by_default():
    cmd = run_mosaic(["--harts", "2", "--print-command"])
    assert f"-plugin {mosaiclib.VCLOCK_PLUGIN},threads=single" in cmd.stdout  # counted inline: one host thread
    assert f"-plugin {mosaiclib.VCLOCK_PLUGIN},threads=multi" in run_mosaic(
        ["--harts", "2", "--accel", "multi", "--print-command"]).stdout
    log = ROOT / "build" / "test-logs" / "test_plugin_is_loaded_by_default.log"
    r = run_mosaic(["--harts", "4", "--bootargs", "cmd=vclock", "--log", str(log)])
    out = log.read_text()
    assert r.returncode == 0, out
    assert "mosaic: vclock plugin present" in out
    rows = re.findall(r"^vclock: +(\d+) +(\d+) +(\d+)$", out, re.M)
    assert [int(cpu) for cpu, _, _ in rows] == [0, 1, 2, 3]
    assert all(int(n) > 0 for _, _, n in rows)


@pytest.mark.parametrize("how", ["--no-vclock", "VTIME=0"])
def test_it_can_be_turned_off(how):
    args = ["--harts", "2"] + (["--no-vclock"] if how == "--no-vclock" else [])
    vtime = "0" if how == "VTIME=0" else None
    cmd = run_mosaic(args + ["--print-command"], env_vtime=vtime)
    assert cmd.returncode == 0 and "-plugin" not in cmd.stdout
    log = ROOT / "build" / "test-logs" / f"test_it_can_be_turned_off_{how.strip('-').replace('=', '')}.log"
    r = run_mosaic(args + ["--bootargs", "ktest=vclock cmd=vclock", "--log", str(log)], env_vtime=vtime)
    out = log.read_text()
    assert r.returncode == 0, out
    assert "mosaic: vclock plugin absent" in out and "vclock: plugin absent" in out
    assert "vclock plugin absent: nothing measured" in out
    assert "counted" not in out


def test_clear_errors_when_the_plugin_cannot_load(monkeypatch, tmp_path):
    with pytest.raises(mosaiclib.VclockError, match="not built; run 'make'"):
        mosaiclib.vclock_arguments(plugin=tmp_path / "missing.so")
    monkeypatch.setattr(mosaiclib, "_qemu_has_plugins", False)
    with pytest.raises(mosaiclib.VclockError, match="no TCG plugin support"):
        mosaiclib.qemu_command(harts=2, vclock=True)
    assert "-plugin" not in mosaiclib.qemu_command(harts=2, vclock=False)
    assert "vtime=0" in mosaiclib.qemu_command(harts=2, vclock=False)[-1]  # said outright: the kernel's default is 1


# accel "single": the plugin counts inline and calls back once per block; "multi": once per segment
@pytest.mark.parametrize("harts,icount,accel", [(4, False, "single"), (4, True, "single"), (128, False, "single"),
                                                (4, False, "multi")])
def test_counts_match_the_disassembly(boot, harts, icount, accel):
    r = boot(harts=harts, bootargs="ktest=vclock", icount=icount, vclock=True, accel=accel, timeout=180)
    assert r.status == 0, r.output
    assert ktest_summary(r.output) == (11, 0), r.output
    assert "nothing measured" not in r.output
    s = symbols()
    head = insns_between(s, "vclock_probe_loop_first", "vclock_probe_loop_body")
    body = insns_between(s, "vclock_probe_loop_body", "vclock_probe_loop_end")
    loops = re.findall(r"vclock loop n=(\d+) counted (\d+)", r.output)
    assert len(loops) == 3
    for n, got in loops:
        assert int(got) == head + int(n) * body + 1  # + the second marker
    # a trap: everything up to and including the trapping instruction, then the marker it lands on
    for what, probe in [("load page fault", "load_fault"), ("store page fault", "store_fault"),
                        ("ebreak", "ebreak")]:
        assert counted(r.output, what) == [insns_between(s, f"vclock_probe_{probe}_first",
                                                         f"vclock_probe_{probe}_insn") + 2]
    assert counted(r.output, "marker mid-block") == [insns_between(s, "vclock_probe_mid_first",
                                                                    "vclock_probe_mid_end") + 1]
    wfi = insns_between(s, "vclock_probe_wfi_first", "vclock_probe_wfi_end") + 1
    assert counted(r.output, "vclock WFI") == [wfi, wfi]
    assert counted(r.output, "device load and store") == [
        insns_between(s, "vclock_probe_device_first", "vclock_probe_device_end") + 1]
    m = re.search(r"SBI get_spec_version: counted (\d+) = (\d+) in the kernel \+ (\d+) in the firmware", r.output)
    assert int(m.group(2)) == insns_between(s, "vclock_probe_ecall_first", "vclock_probe_ecall_insn") + 2
    assert int(m.group(3)) > 0


def test_whole_blocks_everywhere_but_where_the_kernel_faults_on_purpose():
    """Without -icount the plugin counts the kernel's text in whole blocks (count=blocks), all but the
    probes that fault in the middle of a block, which linker.ld puts after __vclock_blocks_end; the
    probes in the block-counted text then test the whole-block counting, the others the segments."""
    assert ",count=blocks" in " ".join(mosaiclib.qemu_command(harts=2))
    for how in [dict(icount=True), dict(gdb_port=1234), dict(accel="multi")]:
        assert "count=blocks" not in " ".join(mosaiclib.qemu_command(harts=2, **how)), how
    s = symbols()
    for probe in ["loop", "ebreak", "mid", "wfi", "device", "ecall"]:
        assert s["__text_start"] <= s[f"vclock_probe_{probe}"] < s["__vclock_blocks_end"], probe
    for probe in ["load_fault", "store_fault"]:
        assert s["__vclock_blocks_end"] <= s[f"vclock_probe_{probe}"] < s["__text_end"], probe


def plugin_refuses(args, words, **kw):
    """QEMU with the vclock plugin given args does not start, and the plugin says words."""
    cmd = mosaiclib.qemu_command(harts=2, bootargs="shell=0", **kw)
    cmd[cmd.index("-plugin") + 1] = f"{mosaiclib.VCLOCK_PLUGIN},{args}"
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert words in r.stderr


def test_count_blocks_needs_one_thread():
    plugin_refuses("threads=multi,count=blocks", "vclock: count=blocks needs threads=single", accel="multi")


def test_the_plugin_refuses_an_unknown_argument():
    plugin_refuses("threads=several",
                   "vclock: unknown argument 'threads=several' (takes threads=single or threads=multi")


def test_counts_are_identical_across_icount_boots(boot):
    runs = [boot(harts=8, bootargs="ktest=vclock cmd=vclock", icount=True, vclock=True, timeout=120)
            for _ in range(2)]
    tables = []
    for r in runs:
        assert r.status == 0, r.output
        rows = re.findall(r"^vclock: +\d+ +\d+ +(\d+)$", r.output, re.M)
        assert len(rows) == 8
        tables.append(rows)
    assert tables[0] == tables[1]
    assert len(set(tables[0])) > 1  # the harts did different amounts of work
