"""The NoC timing model (portable/noc/timing.c) is plain C11 without kernel headers: the same
file builds for the host, where tests/host/noc_timing_check.c checks its delays and its
interval booking against a brute-force search, and for the kernel, which links it."""
import subprocess

from conftest import ROOT

BUILD = ROOT / "build" / "host"
FLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{ROOT}"]


def test_timing_model_checks_pass_on_the_host():
    BUILD.mkdir(parents=True, exist_ok=True)
    exe = BUILD / "noc_timing_check"
    subprocess.run(["gcc", *FLAGS, "-o", str(exe), str(ROOT / "tests/host/noc_timing_check.c"),
                    str(ROOT / "portable/noc/timing.c")], check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    assert r.stdout.strip().endswith(", 0 failed"), r.stdout


def test_the_kernel_links_the_same_timing_model():
    """The kernel build compiles the file with the cross compiler and the kernel's flags."""
    assert (ROOT / "build" / "portable" / "noc" / "timing.o").exists()
    syms = (ROOT / "build" / "mosaic.sym").read_text()
    for fn in ("noc_timing_book_route", "noc_link_book", "noc_timing_route"):
        assert fn in syms, f"{fn} is not in the kernel"
