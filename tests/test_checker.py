"""The allocation protocol's checker on the host (checker/, docs/checking.md): a bounded
stress campaign, the exhaustive checker's smallest configuration, the mutation test
(deliberately broken policies must be caught by both), exact replay of a failing seed,
bad input, and the core's lack of shared state. No QEMU: everything here is host C."""
import re
import shlex
import subprocess

import pytest

from conftest import ROOT

BUILD = ROOT / "build" / "checker"
MUTANTS = ["ac-no-release", "ac-no-cancel", "ab-early"]
STRESS_SEEDS = 2000


def run(args, timeout=120):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


@pytest.fixture(scope="module")
def tools():
    r = run(["make", "-s", "build/checker/sim-check", "build/checker/sim-stress", "sim-mutants"], timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return BUILD


def test_stress_bounded_campaign_has_no_violation(tools):
    r = run([tools / "sim-stress", "--seeds", STRESS_SEEDS], timeout=60)
    assert r.returncode == 0, r.stdout
    m = re.search(r"seeds 1\.\.(\d+), (\d+) events, 0 violations, [\d.]+ s, (\d+) seeds/hour", r.stdout)
    assert m, r.stdout
    assert int(m.group(1)) == STRESS_SEEDS and int(m.group(2)) > STRESS_SEEDS * 10
    print(r.stdout.strip())


def test_checker_smallest_configuration(tools):
    """Fig. 2.2 under both policies and the schemes that differ on two domains: every state."""
    r = run([tools / "sim-check", "--config", "fig22"], timeout=60)
    assert r.returncode == 0, r.stdout
    rows = re.findall(r"^fig22 policy=(\w+) scheme=(\w+) +states +(\d+) +transitions +(\d+) +end states +(\d+)",
                      r.stdout, re.M)
    assert {(p, s) for p, s, *_ in rows} == {(p, s) for p in ("ac", "ab") for s in ("naive", "flood", "adaptive")}
    for *_, states, transitions, ends in rows:
        assert int(states) > 100 and int(transitions) >= int(states) - 1 and int(ends) >= 1
    assert "0 violations: OK" in r.stdout


@pytest.mark.parametrize("mutant", MUTANTS)
def test_checker_catches_the_mutant(tools, mutant):
    r = run([tools / f"mut-{mutant}" / "sim-check", "--config", "fig22"], timeout=60)
    assert r.returncode == 1, r.stdout
    assert "VIOLATION in fig22" in r.stdout and "interleaving (" in r.stdout, r.stdout
    steps = re.findall(r"^ +\d+  (deliver|timer|periodic)", r.stdout, re.M)
    assert steps, r.stdout


@pytest.mark.parametrize("mutant", MUTANTS)
def test_stress_catches_the_mutant_and_replays_it(tools, mutant):
    r = run([tools / f"mut-{mutant}" / "sim-stress", "--seeds", STRESS_SEEDS], timeout=60)
    assert r.returncode == 1, r.stdout
    violation = re.search(r"^sim-stress: VIOLATION at seed \d+ .*$", r.stdout, re.M)
    repro = re.search(r"^reproduce: (.*)$", r.stdout, re.M)
    assert violation and repro, r.stdout
    again = run(shlex.split(repro.group(1)), timeout=60)
    assert again.returncode == 1
    assert again.stdout == r.stdout, "the reproducer does not replay the failure exactly"


def test_a_seed_replays_byte_for_byte(tools):
    args = [tools / "sim-stress", "--seed", "4242", "--seeds", "3", "--verbose"]
    a, b = run(args), run(args)
    assert a.returncode == b.returncode == 0
    strip = lambda s: re.sub(r"[\d.]+ s, \d+ seeds/hour.*", "", s)
    assert strip(a.stdout) == strip(b.stdout) and "seed 4244:" in a.stdout


def test_active_cancellation_relies_on_fifo_channels(tools):
    """docs/checking.md: two requests of one home must reach every micro-kernel in the order
    they left it. Without FIFO channels the checker finds the deadlock; with them, none."""
    r = run([tools / "sim-check", "--config", "same-home", "--policy", "ac", "--scheme", "naive", "--no-fifo"])
    assert r.returncode == 1 and "deadlock" in r.stdout and "[overtaking]" in r.stdout, r.stdout
    r = run([tools / "sim-check", "--config", "same-home", "--policy", "ac", "--scheme", "naive"])
    assert r.returncode == 0, r.stdout


@pytest.mark.parametrize("tool,args,words", [
    ("sim-stress", ["--policy", "lottery"], "unknown policy 'lottery'"),
    ("sim-stress", ["--scheme", "gossip"], "unknown scheme 'gossip'"),
    ("sim-stress", ["--mesh", "17x2"], "--mesh wants WxH"),
    ("sim-stress", ["--mesh", "1x4"], "--mesh wants WxH"),
    ("sim-stress", ["--mesh", "4x4x4"], "--mesh wants WxH"),
    ("sim-stress", ["--seeds", "-3"], "--seeds wants a number"),
    ("sim-stress", ["--seeds", "0"], "--seeds wants a number"),
    ("sim-stress", ["--seeds"], "needs a value"),
    ("sim-stress", ["--max-side", "40"], "--max-side wants a number"),
    ("sim-stress", ["--frobnicate", "1"], "unknown option"),
    ("sim-check", ["--policy", "fifo"], "unknown policy 'fifo'"),
    ("sim-check", ["--scheme", "tree"], "unknown scheme 'tree'"),
    ("sim-check", ["--config", "fig99"], "unknown configuration 'fig99'"),
    ("sim-check", ["--max-states", "lots"], "--max-states wants a positive number"),
    ("sim-check", ["--config"], "needs a value"),
])
def test_bad_input_is_refused_clearly(tools, tool, args, words):
    r = run([tools / tool, *args])
    assert r.returncode == 2, r.stdout + r.stderr
    assert words in r.stderr and r.stderr.startswith(f"{tool}: ") and "usage:" in r.stderr


def test_bad_make_mutant_is_refused():
    r = run(["make", "-s", "sim-check", "MUTANT=nonsense"])
    assert r.returncode != 0 and "unknown mutant 'nonsense'" in r.stderr


def test_the_core_keeps_no_state_of_its_own(tmp_path):
    """Micro-kernels share no state by construction: every core function gets its own
    struct mk, and the core has no writable static data (only constant tables)."""
    for src in sorted((ROOT / "portable" / "alloc").glob("*.c")):
        obj = tmp_path / (src.stem + ".o")
        subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{ROOT}", "-c", "-o", obj, src],
                       check=True)
        table = subprocess.run(["objdump", "-t", obj], capture_output=True, text=True, check=True).stdout
        writable = [l for l in table.splitlines() if re.search(r"\s(\.data|\.bss|COMMON)(\s|$)", l)
                    and " O " in l]
        assert not writable, f"{src.name} has writable static data: {writable}"
