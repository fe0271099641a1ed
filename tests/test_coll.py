"""The collectives' modes, algorithms and tuned table (kernel/msg/coll*.c, docs/collectives.md): the coll
suite under credit pressure, the `coll` shell command before and after tuning, tuning refused while a
job holds cores, and user tasks running every collective in every mode and algorithm."""
import json
import re

import pytest

from conftest import ktest_summary


def test_every_algorithm_and_mode_with_one_slot_mailboxes(boot):
    """One-slot mailboxes: every send beyond the first waits for a credit, and allgather's tree sends its
    66 KiB result in pieces; nothing may deadlock or get lost."""
    r = boot(harts=64, bootargs="ktest=coll noc_depth=1", timeout=300)
    passed, failed = ktest_summary(r.output)
    assert failed == 0, "\n".join(line for line in r.lines if "FAIL" in line)
    assert passed == 5 and r.status == 0


def table_rows(text):
    return [json.loads(m.group(1)) for m in re.finditer(r'^coll: (\{"kind": "table".*\})$', text, re.M)]


def test_coll_tune_fills_the_table_with_algorithms_each_collective_has(boot):
    cmds = "coll algos;coll table;coll table json;coll tune 1;coll table json"
    r = boot(harts=16, bootargs=f'shell=0 cmd="{cmds}"', timeout=300)
    algos = {m.group(1): set(m.group(2).split()) for m in
             re.finditer(r"^(barrier|bcast|reduce|allreduce|gather|scatter|allgather|alltoall) +([a-z ]+?) +\(untuned",
                          r.output, re.M)}
    assert len(algos) == 8 and algos["barrier"] == {"tree", "flat", "recursive"}, r.output[:3000]
    assert "not tuned yet" in r.output
    rows = table_rows(r.output)
    before, after = rows[:len(rows) // 2], rows[len(rows) // 2:]
    assert before and not any(x["measured"] for x in before)
    assert "coll: tuned on 16 cores" in r.output, r.output[-3000:]
    # every class up to 16 members was measured at 8 bytes at least, and picks one of its own algorithms
    assert all(x["algo"] in algos[x["coll"]] for x in after)
    assert all(x["measured"] and x["ns"] > 0 for x in after if x["bytes_max"] <= 8), after
    assert {x["n_max"] for x in after} == {2, 4, 8, 16}
    assert r.status == 0


@pytest.mark.parametrize("bad", ["coll tune 0", "coll tune 16", "coll tune 2 loud", "coll frob", "coll table xml",
                                 "coll algos now", "coll"])
def test_coll_refuses_bad_input_with_its_usage(boot, bad):
    r = boot(harts=2, bootargs=f'shell=0 cmd="{bad};coll table"', timeout=60)
    assert "usage: coll" in r.output and r.status == 2, r.output[-1500:]
    assert "not tuned yet" not in r.output  # the line after a failed command does not run


def test_tuning_is_refused_while_a_job_holds_cores(boot):
    """A job's tasks must not see the table change between two of their collectives: tuning is refused
    (the command fails, so the boot's command list stops there); after the job, it runs."""
    r = boot(harts=36, bootargs='shell=0 cmd="submit compute 30 arg 64 at 0;coll tune 1"', timeout=300)
    assert "coll: tune refused: a user task runs" in r.output or "coll: tune refused: a job is in the system" \
        in r.output, r.output[-3000:]
    assert "the table is as it was" in r.output and "coll: tuned on" not in r.output and r.status == 1
    r = boot(harts=36, bootargs='shell=0 cmd="submit compute 30 arg 64 at 0;jobs wait;coll tune 1"', timeout=300)
    assert "compute: 30 tasks" in r.output and "coll: tuned on 36 cores" in r.output, r.output[-3000:]


def test_user_tasks_run_every_collective_in_every_mode(boot):
    """user/coll.c runs its battery with the handle alone, then with every algorithm in both modes, as a
    job of 9 tasks (the job's group) after `coll tune`, so auto follows a measured table."""
    cmds = "coll tune 1;submit coll 9 at 1;jobs wait"
    r = boot(harts=36, bootargs=f'shell=0 cmd="{cmds}"', timeout=300)
    assert "coll: 9 cores, all collectives correct" in r.output, r.output[-3000:]
    assert "FAILED" not in r.output
