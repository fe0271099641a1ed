"""scripts/bench-vtime, the benchmark of virtual time's host cost (issue 13's goal), on a small machine:
it boots every way it is asked for, reports each boot's status and tests, and judges the goal only from
a serial and a conservative boot, as MET or MISSED with its numbers in build/bench/vtime.json."""
import json
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "bench-vtime"


def run(*args, timeout=300):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_small_machine_gives_a_verdict_with_its_numbers(tmp_path):
    out = tmp_path / "vtime.json"
    r = run("--harts", 4, "--runs", 1, "--ways", "serial,conservative", "--out", out)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(out.read_text())
    assert [b["way"] for b in data["boots"]] == ["serial", "conservative"]
    for b in data["boots"]:
        assert b["status"] == 0 and b["failed"] == 0 and b["passed"] > 0, b
    assert any(c.startswith("vtime: jumps=") for c in data["boots"][1]["counts"])  # virtual time ran
    assert not any(c.startswith("vtime: jumps=") for c in data["boots"][0]["counts"])  # the serial clock did not
    g = data["goals"]["host_cost_of_virtual_time"]
    assert g["verdict"] in ("MET", "MISSED") and g["limit"] == 1.5
    assert g["ratio"] == round(g["virtual_s"] / g["serial_s"], 2)
    assert f"goal host_cost_of_virtual_time: {g['verdict']}" in r.stdout


def test_bad_options_are_refused():
    for args, msg in ((("--ways", "fast"), "unknown way fast"), (("--harts", 1), "--harts must be 2..128"),
                      (("--runs", 0), "--runs 1..9")):
        r = run(*args, timeout=30)
        assert r.returncode == 2 and msg in r.stderr, (args, r.stderr)
