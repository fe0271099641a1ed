"""Shared-memory windows between the tasks of a job (kernel/mm/shm.c, user/shmtest.c): every task of
a job sees the window, a task of another job does not (two jobs open the same name at once), a
task outside a job is refused, bad names and sizes get errors, and every window's pages go back
when its job ends."""
import re


def pages_in_use(text):
    """Pages in use minus those the heap keeps for small objects (the heap's cache, not a leak)."""
    used = [int(u) for u in re.findall(r"^pages +\d+ total, \d+ reserved, (\d+) in use", text, re.M)]
    kept = [int(k) for k in re.findall(r"^heap +\d+ objects in use, (\d+) pages kept", text, re.M)]
    return [u - k for u, k in zip(used, kept)]


def test_a_window_is_the_jobs_own_and_goes_with_it(boot):
    cmds = ("mem;submit shmtest 4 arg 1 at 0;submit shmtest 6 arg 2 at 1;submit shmtest 3 arg 150 at 2;"
            "sleep 60;shm;jobs wait;shm;run shmtest;mem")
    r = boot(harts=36, bootargs=f'cmd="{cmds}"', timeout=120)
    assert r.status == 0, r.output[-3000:]
    for arg, n in ((1, 4), (2, 6), (150, 3)):
        assert f"shmtest: job arg {arg}, {n} tasks share a window, ok" in r.output, r.output[-3000:]
    assert "FAILED" not in r.output and "killed" not in r.output
    # while the third job holds it: its window "grid", mapped by its three tasks (and rank 0's a, b, c)
    assert re.search(r"^ *\d+ +grid +8192 +3$", r.output, re.M), r.output[-3000:]
    assert r.output.count("no shared windows") == 1  # after jobs wait
    assert "shmtest: outside a job: refused, ok" in r.output
    before, after = pages_in_use(r.output)
    assert after == before, (before, after)
