"""docs/reference.md is what the code declares: the kernel calls of portable/abi/kcalls.h and the shell
commands and boot arguments the built kernel registers (`help json`), rendered by scripts/reference. A
stale page fails here with a diff; `make reference` rewrites it."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import refpage  # noqa: E402


def test_reference_page_is_current():
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "reference"), "--check"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, (r.stdout[-4000:], r.stderr[-2000:])


def test_help_json_lists_every_declared_command_and_boot_argument(boot):
    r = boot(harts=4, bootargs='cmd="help json"', timeout=60)
    assert r.status == 0, r.output[-2000:]
    records = [json.loads(line) for line in r.output.splitlines() if line.startswith('{"type"')]
    commands = {rec["name"] for rec in records if rec["type"] == "shell_cmd"}
    from test_shell_help import declared_commands
    assert commands == set(declared_commands())
    keys = [rec["key"] for rec in records if rec["type"] == "bootarg"]
    assert len(keys) == len(set(keys)) and {"vtime", "cmd", "shell", "ktest"} <= set(keys)
    assert all(rec["group"] != "other" for rec in records if rec["type"] == "shell_cmd")


def test_every_kernel_call_is_declared_once_with_its_fields():
    calls = refpage.kernel_calls()
    names = [c["name"] for c in calls]
    assert len(names) == len(set(names))
    assert all(c["does"] and c["checks"] for c in calls), [c["name"] for c in calls if not c["does"] or not c["checks"]]
    by_name = {c["name"]: c for c in calls}
    assert by_name["write"]["side"] == "MASTER" and by_name["heap_grow"]["side"] == "MASTER"
    assert by_name["share_barrier"]["share"] == "GROUP" and by_name["send"]["share"] == "JOB"


def test_a_malformed_declaration_is_refused(tmp_path):
    bad = tmp_path / "kcalls.h"
    bad.write_text('KCALL(EXIT, exit, 0, LOCAL, ANY, "code", "ends the task")\n')  # no checks
    with pytest.raises(refpage.ReferenceError):
        refpage.kernel_calls(bad)
    bad.write_text('KCALL(EXIT, exit, 0, SIDEWAYS, ANY, "code", "ends", "none")\n')
    with pytest.raises(refpage.ReferenceError):
        refpage.kernel_calls(bad)
