"""Boot-and-assert harness: every test boots QEMU through scripts/mosaiclib with a timeout.

QEMU is always killed when a test ends, and each boot's serial output is kept in
build/test-logs/<test name>[-N].log so a failure can be read afterwards.
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import mosaiclib  # noqa: E402

LOG_DIR = ROOT / "build" / "test-logs"


@pytest.fixture(scope="module", autouse=True)
def kernel_built(request):
    """Every test module needs build/mosaic.elf but the host-only ones (HOST_ONLY = True: they never boot)."""
    if not getattr(request.module, "HOST_ONLY", False) and not mosaiclib.DEFAULT_KERNEL.exists():
        pytest.exit("build/mosaic.elf is missing: run the suite with 'make test'", returncode=2)


class Booter:
    """boot(harts=..., bootargs=...) -> mosaiclib.RunResult; the log file is named after the test."""

    def __init__(self, name):
        self.name = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        self.count = 0

    def __call__(self, harts=4, bootargs="", timeout=60, batch=True, **kw):
        self.count += 1
        log = LOG_DIR / f"{self.name}{'' if self.count == 1 else '-' + str(self.count)}.log"
        args = ("shell=0 " + bootargs).strip() if batch else bootargs
        cmd = mosaiclib.qemu_command(harts=harts, bootargs=args, **{k: v for k, v in kw.items()
                                                                     if k in ("accel", "icount", "mem", "gdb_port", "vclock",
                                                                              "watch", "cpu", "initrd", "files")})
        run_kw = {k: v for k, v in kw.items() if k in ("input_text", "marks", "started", "input_steps")}
        return mosaiclib.run_qemu(cmd, timeout=timeout, log_path=log, **run_kw)


@pytest.fixture
def boot(request):
    return Booter(request.node.name)


def ktest_summary(output):
    """(passed, failed) from the final 'ktest: N passed, N failed' line, or None."""
    m = re.findall(r"^ktest: (\d+) passed, (\d+) failed$", output, re.M)
    return tuple(map(int, m[-1])) if m else None


def run_script(script, *args, timeout=60):
    """A host tool of scripts/ run from the repository's root: its CompletedProcess, output as text."""
    return subprocess.run([sys.executable, str(script), *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def expect(r, status, *texts):
    """Asserts that the boot r ended with status and printed each of texts; returns r."""
    assert r.status == status, (r.status, r.output[-3000:])
    for t in texts:
        assert t in r.output, (t, r.output[-3000:])
    return r


def ktest_passes(boot, count, **kw):
    """Boots the in-kernel suite that kw's bootargs name: all count tests pass and no invariant is violated."""
    r = boot(**kw)
    assert r.status == 0, r.output
    assert ktest_summary(r.output) == (count, 0)
    assert "INVARIANT VIOLATED" not in r.output
    return r
