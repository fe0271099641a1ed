"""The include rules of docs/architecture.md (scripts/check-layers): the tree follows them, the page's
table is the script's, and the script fails on each kind of violation in a small fixture tree."""
import subprocess
import sys

import pytest

from conftest import ROOT

CHECK = ROOT / "scripts" / "check-layers"


def run(*args):
    return subprocess.run([sys.executable, str(CHECK), *args], capture_output=True, text=True, timeout=60)


def test_the_tree_follows_the_include_rules():
    r = run()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "files follow the include rules" in r.stdout


def test_architecture_md_shows_the_rules_the_script_checks():
    table = run("--rules").stdout
    assert table.startswith("| folder |")
    assert table in (ROOT / "docs" / "architecture.md").read_text(), \
        "docs/architecture.md's rule table differs from scripts/check-layers --rules: paste the new one"


# a tree that follows the rules, with each of the rules' exceptions present
CLEAN = {
    "lib/bits.h": "#include <stdint.h>\n",
    "lib/string.c": '#include "lib/bits.h"\n#include <stddef.h>\n',
    "portable/alloc/proto.h": '#include "lib/bits.h"\n#include "portable/noc/timing.h"\n',
    "portable/noc/timing.h": "#include <stdbool.h>\n",
    "kernel/core/hart.h": '#include "lib/bits.h"\n',
    "kernel/mm/page_alloc.h": "",
    "kernel/time/vtime.h": '#include "kernel/core/hart.h"\n',
    "kernel/task/utask.h": "",
    "kernel/task/utask_internal.h": '#include "kernel/task/utask.h"\n',
    "kernel/task/utask.c": '#include "kernel/task/utask_internal.h"\n',
    "tests/ktest/test_utask.c": '#include "kernel/task/utask_internal.h"\n',
    "kernel/task/share/share.h": "",
    "kernel/msg/msg.h": '#include "drivers/noc/noc.h"\n',
    "kernel/msg/msg.c": '#include "kernel/msg/msg.h"\n#include "kernel/task/share/share.h"\n',
    "drivers/timer.h": '#include "kernel/core/hart.h"\n',
    "drivers/noc/noc.h": '#include "kernel/time/vtime.h"\n#include "portable/noc/timing.h"\n',
    "arch/riscv/mmu.c": '#include "kernel/mm/page_alloc.h"\n',
    "arch/riscv/trap.c": '#include "drivers/timer.h"\n#include "kernel/task/utask.h"\n',
    "sim/sim.h": '#include "portable/alloc/proto.h"\n#include <stdio.h>\n',
    "user/mosaic.h": "#include <stdio.h>\n",
    "user/hello.c": '#include "mosaic.h"\n',
    "build/kernel/stale.c": '#include "sim/sim.h"\n',
}


def tree(tmp_path, changes):
    files = {**CLEAN, **changes}
    for name, text in files.items():
        if text is None:
            continue
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return run("--root", str(tmp_path))


def test_a_tree_that_follows_the_rules_passes(tmp_path):
    r = tree(tmp_path, {})
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("changes, message", [
    ({"portable/noc/timing.c": '#include "kernel/core/hart.h"\n'},
     "portable/noc/timing.c:1: portable/ may not include kernel/core/hart.h"),
    ({"portable/alloc/mk.c": "#include <stdio.h>\n"}, "<stdio.h> is not a freestanding C11 header"),
    ({"lib/string.c": '#include "kernel/core/hart.h"\n'}, "lib/ may not include kernel/core/hart.h"),
    ({"drivers/noc/noc.c": '#include "lib/bits.h"\n#include "kernel/msg/msg.h"\n'},
     "drivers/noc/noc.c:2: drivers/noc/ may not include kernel/msg/msg.h"),
    ({"drivers/noc/noc.c": '#include "kernel/task/utask.h"\n'}, "drivers/noc/ may not include kernel/task/utask.h"),
    ({"kernel/msg/coll.c": '#include "kernel/task/utask.h"\n'}, "kernel/msg/ may not include kernel/task/utask.h"),
    ({"arch/riscv/sbi.c": '#include "kernel/task/utask.h"\n'}, "arch/ may not include kernel/task/utask.h"),
    ({"sim/env.c": '#include "kernel/core/hart.h"\n'}, "sim/ may not include kernel/core/hart.h"),
    ({"kernel/core/main.c": '#include "sim/sim.h"\n'}, "kernel/ may not include sim/sim.h"),
    ({"kernel/core/main.c": '#include "kernel/core/gone.h"\n'}, '"kernel/core/gone.h" names no file of the tree'),
    ({"arch/riscv/trap.c": '#include "drivers/timer.h"\n'},
     "the exception for kernel/task/utask.h in scripts/check-layers no longer occurs"),
    ({"kernel/kcall/kcall.c": '#include "kernel/task/utask_internal.h"\n'},
     "kernel/kcall/kcall.c:1: kernel/task/utask_internal.h is private to kernel/task/"),
    ({"newpart/x.c": "\n"}, "newpart/x.c: in a folder that no rule of scripts/check-layers names"),
    ({"lib/a.h": '#include "lib/b.h"\n', "lib/b.h": '#include "lib/a.h"\n'},
     "lib/a.h: includes itself: lib/a.h -> lib/b.h -> lib/a.h"),
])
def test_each_kind_of_violation_fails(tmp_path, changes, message):
    r = tree(tmp_path, changes)
    assert r.returncode == 1, r.stdout + r.stderr
    assert message in r.stdout, r.stdout
    assert "violation" in r.stderr


def test_the_kernel_objects_follow_the_call_rules():
    """What each built object uses of the others (make test builds the kernel first)."""
    r = run("--objects", str(ROOT / "build"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "include and call rules" in r.stdout


# objects built by the host's gcc: a use is judged by the folder of the file that defines the symbol
CALLS_CLEAN = {
    "kernel/time/vtime.c": "unsigned long vtime_now(void) { return 1; }\n",
    "kernel/task/share/share.c": "int share_msg_wait(void) { return 0; }\n",
    "kernel/task/utask.c": '#include "kernel/task/utask_internal.h"\nint utask_kill(void) { return 0; }\n',
    "kernel/alloc/binding.c": "int penv_send(void) { return 0; }\n",
    "drivers/noc/noc.c": '#include "kernel/time/vtime.h"\nunsigned long vtime_now(void);\n'
                         "unsigned long noc_now(void) { return vtime_now(); }\n",
    "kernel/msg/msg.c": '#include "kernel/msg/msg.h"\n#include "kernel/task/share/share.h"\nint share_msg_wait(void);\n'
                        "int msg_send(void) { return share_msg_wait(); }\n",
    "portable/alloc/mk.c": "int penv_send(void);\nint mk_step(void) { return penv_send(); }\n",
}


def calls(tmp_path, changes):
    files = {**CLEAN, **CALLS_CLEAN, **changes}
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for name in files:
        if name.endswith(".c") and not name.startswith("build/"):
            obj = tmp_path / "build" / (name[:-2] + ".o")
            obj.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["gcc", "-c", "-w", f"-I{tmp_path}", "-o", str(obj), str(tmp_path / name)], check=True)
    return run("--root", str(tmp_path), "--objects", str(tmp_path / "build"), "--nm", "nm")


def test_objects_that_follow_the_call_rules_pass(tmp_path):
    r = calls(tmp_path, {})
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("changes, message", [
    # a declaration of its own gets past the include rules, not past the call rules
    ({"drivers/noc/noc_ep.c": "int msg_send(void);\nint ep_send(void) { return msg_send(); }\n"},
     "drivers/noc/noc_ep.c: uses msg_send of kernel/msg/msg.c, which drivers/noc/ may not use"),
    ({"kernel/msg/coll.c": "int utask_kill(void);\nint coll_kill(void) { return utask_kill(); }\n"},
     "kernel/msg/coll.c: uses utask_kill of kernel/task/utask.c, which kernel/msg/ may not use"),
    ({"kernel/msg/coll.c": "int share_msg_wait(void);\nint coll_wait(void) { return share_msg_wait(); }\n"},
     "kernel/msg/coll.c: uses share_msg_wait of kernel/task/share/share.c, which kernel/msg/ may not use"),
    ({"portable/noc/timing.c": "unsigned long vtime_now(void);\nunsigned long t(void) { return vtime_now(); }\n"},
     "portable/noc/timing.c: uses vtime_now of kernel/time/vtime.c, which portable/ may not use"),
])
def test_each_kind_of_call_violation_fails(tmp_path, changes, message):
    r = calls(tmp_path, changes)
    assert r.returncode == 1, r.stdout + r.stderr
    assert message in r.stdout, r.stdout
