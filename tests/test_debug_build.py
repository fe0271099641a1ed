"""The kernel built for debugging (make DEBUG=1, docs/debugging.md): -Og -fno-inline, its text not packed into
pages, in build/debug/ beside the normal kernel; it builds and it boots. One boot of the collectives,
which use the kernel heap's every size class on several harts at once: the -Og build is where a
heap bug the -O2 code hid by luck showed (kfree read a block's class after overwriting it)."""
import re
import subprocess
import sys

from conftest import ROOT, ktest_summary

sys.path.insert(0, str(ROOT / "scripts"))
import mosaiclib  # noqa: E402

DEBUG_KERNEL = ROOT / "build" / "debug" / "mosaic.elf"


def test_the_debug_build_is_compiled_with_og_unpacked_and_boots():
    r = subprocess.run(["make", "-s", "-j2", "DEBUG=1", str(DEBUG_KERNEL.relative_to(ROOT))], cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    info = subprocess.run(["riscv64-unknown-elf-readelf", "--debug-dump=info", str(DEBUG_KERNEL)], capture_output=True,
                          text=True, timeout=120).stdout
    producers = set(re.findall(r"DW_AT_producer\s+:.*?: (GNU C.*)$", info, re.M))
    assert producers and all(" -Og " in p and "-fno-inline" in p for p in producers), sorted(producers)[:3]
    layout = (DEBUG_KERNEL.parent / "text_layout.ld").read_text()
    assert "ALIGN" not in layout, layout[:500]
    assert mosaiclib.DEFAULT_KERNEL != DEBUG_KERNEL  # the normal kernel, which the suite boots, is another file

    cmd = mosaiclib.qemu_command(kernel=DEBUG_KERNEL, harts=8, bootargs="shell=0 ktest=coll,kcall")
    res = mosaiclib.run_qemu(cmd, timeout=300, log_path=ROOT / "build" / "test-logs" / "debug-build.log")
    assert res.status == 0, res.output[-3000:]
    passed, failed = ktest_summary(res.output)
    assert passed > 0 and failed == 0, res.output[-3000:]
