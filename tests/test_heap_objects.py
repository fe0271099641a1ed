"""The kernel heap's objects in use come back exactly after jobs (docs/microkernel.md): the first job
spread over several domains, a job under the other policy and scheme, and the kernel's own suites
leave the count `mem` prints where the boot left it. Each micro-kernel's tables (wait queue, dormant
requests, the sequencer's queue, the origins it heard from) are made at boot and only ever replaced
by larger ones, so they are in the count from the start."""
import re


def heap_counts(output):
    return [int(n) for n in re.findall(r"^heap\s+(\d+) objects in use", output, re.M)]


def test_jobs_and_ktests_leave_the_heap_objects_where_the_boot_left_them(boot):
    cmds = ["mem", "scenario fig22 quiet", "mem", "policy ab", "scheme adaptive", "scenario simul 4 4 quiet", "mem",
            "ktest alloc,kcall,utask", "mem"]
    r = boot(harts=36, bootargs=f'cmd="{";".join(cmds)}"', timeout=300)
    assert r.status == 0, r.output[-3000:]
    counts = heap_counts(r.output)
    assert len(counts) == 4, r.output[-3000:]
    assert counts == [counts[0]] * 4, f"heap objects in use after boot, fig22, simul under ab, the ktests: {counts}"
