"""The memwatch plugin (docs/debugging.md): it names the hart and pc of every store into a
range, and leaves an -icount boot exactly as it runs without it."""
import re
import subprocess

from conftest import ROOT


def symbol(name):
    for line in (ROOT / "build" / "mosaic.sym").read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    raise AssertionError(f"{name} not in build/mosaic.sym")


def function_at(pc):
    """The kernel function holding pc, from the symbol table (not the linker's __ section marks)."""
    best = None
    for line in (ROOT / "build" / "mosaic.sym").read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT" and not parts[2].startswith("__") and int(parts[0], 16) <= pc:
            if best is None or int(parts[0], 16) > best[0]:
                best = (int(parts[0], 16), parts[2])
    return best[1]


def bring_up_us(output):
    m = re.search(r"bring-up took (\d+) us of guest time", output)
    assert m, output[-2000:]
    return int(m.group(1))


def test_memwatch_names_the_storing_hart_and_function_and_changes_no_timing(boot):
    claim = symbol("boot_claim")  # the boot hart's amoswap in _start is the only store to it
    plain = boot(harts=4, icount=True)
    watched = boot(harts=4, icount=True, watch=f"lo={claim:#x},hi={claim + 4:#x}")
    assert watched.status == 0, watched.output[-2000:]
    stores = re.findall(r"memwatch: hart (\d+) pc (0x[0-9a-f]+) stored 4 bytes at (0x[0-9a-f]+)", watched.output)
    assert stores, watched.output[-2000:]
    for hart, pc, addr in stores:
        assert int(addr, 16) == claim
        assert function_at(int(pc, 16)) == "_start", pc
    assert re.search(r"memwatch: \d+ stores into \[0x[0-9a-f]+, 0x[0-9a-f]+\), \d+ reported", watched.output)
    # the plugin's callbacks leave QEMU's blocks alone: the same boot takes the same guest time
    assert bring_up_us(watched.output) == bring_up_us(plain.output)


def test_memwatch_except_hides_that_harts_own_stores(boot):
    claim = symbol("boot_claim")
    r = boot(harts=2, icount=True, watch=f"lo={claim:#x},hi={claim + 4:#x},except=0")
    assert r.status == 0, r.output[-2000:]
    assert "memwatch: hart" not in r.output
    assert "memwatch: 0 stores into" in r.output and "by other harts" in r.output


def test_mosaic_run_rejects_a_malformed_watch():
    for spec in ("0x10", "0x20:0x10", "a:b", "1:2:3:4"):
        p = subprocess.run(["python3", str(ROOT / "scripts" / "mosaic-run"), "--watch", spec, "--harts", "2"],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 2, (spec, p.stdout, p.stderr)
        assert "--watch" in p.stderr, p.stderr
