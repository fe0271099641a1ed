"""Boot-and-assert harness: every test boots QEMU through scripts/mosaiclib with a timeout.

QEMU is always killed when a test ends, and each boot's serial output is kept in
build/test-logs/<test name>[-N].log so a failure can be read afterwards.
"""
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import mosaiclib  # noqa: E402

LOG_DIR = ROOT / "build" / "test-logs"


@pytest.fixture(scope="session", autouse=True)
def kernel_built():
    if not mosaiclib.DEFAULT_KERNEL.exists():
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
