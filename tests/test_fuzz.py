"""The kernel-call fuzzer (user/fuzz.c): a short campaign on the 36-hart mesh must leave the
kernel alive, every certainly bad call refused, the pages in use and the mailboxes as they
were, and the kernel's suites passing; a seed reproduces its calls; the host's checks fail
when they should. `make fuzz SEEDS=N` (scripts/mosaic-fuzz) runs longer campaigns."""
import re

import fuzzcampaign
import mosaiclib
from conftest import LOG_DIR

SEEDS = [1, 2, 3, 4]  # four jobs at once, 4 tasks each: 16 fuzzing cores, the rest to invade
TASKS = 4
CALLS = 1500


def short_campaign(seeds, log_name, oversub_cores=0):
    """Runs a short campaign and checks it passed and that every task made its calls, some of
    them certainly bad and refused."""
    c = fuzzcampaign.run(seeds, tasks=TASKS, calls=CALLS, timeout=170, oversub_cores=oversub_cores,
                         log_path=LOG_DIR / log_name)
    for w in c.warnings:
        print("warning:", w)
    assert not c.problems, "\n".join(c.problems)
    done = re.findall(r"fuzz: seed \d+ task \d+ of \d+ on core \d+: (\d+) calls, \d+ errors, (\d+) certainly bad",
                      c.output)
    assert len(done) == len(seeds) * TASKS
    assert all(int(n) > CALLS // 2 and int(bad) > 0 for n, bad in done)
    return c


def test_short_campaign_leaves_the_kernel_as_it_was():
    short_campaign(SEEDS, "test_fuzz_campaign.log")


def test_short_oversubscribed_campaign_leaves_the_kernel_as_it_was():
    """The same checks with every job oversubscribed (submit ... cores 2): four tasks time-sliced on
    two cores, placed and waiting as the seed picks, moving between the cores while they make their
    hostile calls; the calls outside an oversubscribed task's list must be refused."""
    seeds = [5, 6]
    c = short_campaign(seeds, "test_fuzz_oversub_campaign.log", oversub_cores=2)
    assert len(re.findall(rf"^oversub job \d+: {TASKS} tasks on 2 cores", c.output, re.M)) == len(seeds)


def test_a_seed_makes_the_same_calls_every_time(boot):
    arg = fuzzcampaign.fuzz_arg(77, 150, verbose=True)
    calls = []
    for _ in range(2):  # two boots: a run that finds a problem ends the boot's command list
        r = boot(harts=8, bootargs=f'cmd="run fuzz {arg}"', timeout=120)
        assert "PANIC" not in r.output, r.output[-3000:]
        calls.append(re.findall(r"fuzz: seed 77 task 0 call (\d+ \(.*) (?:good|bad|unsure)$", r.output, re.M))
    assert len(calls[0]) > 20 and calls[0] == calls[1]


def fake_output(wrong=False, pages=(100, 100), kept=(0, 0), boxes="kernel_slots=0 user_slots=0 unhandled=0 held_bytes=0",
                ktest="ktest: 30 passed, 0 failed", objects=(70, 70), boxes_after=None):
    """A campaign's console output as the shell would print it, for the host-side checks."""
    lines = [f"pages    60000 total, 10 reserved, {pages[0]} in use, 5 free (20 KiB free)",
             f"heap     {objects[0]} objects in use, {kept[0]} pages kept for small objects"]
    lines += ["mailboxes: " + boxes] if boxes else []
    for t in range(2):
        lines.append(f"[core {5 + t}] fuzz: seed 9 task {t} of 2 on core {5 + t}: starting, 10 calls")
    if wrong:
        lines.append("[core 5] fuzz: seed 9 task 0 call 3 (claim, nr 68) args 0 0 0 0 0 0 returned 1, expected an "
                     "error (arg 0: wraps)")
    for t in range(1 if wrong else 0, 2):
        lines.append(f"[core {5 + t}] fuzz: seed 9 task {t} of 2 on core {5 + t}: 10 calls, 5 errors, 3 certainly "
                     "bad, 0 wrong answers, 0 unsure, 0 skipped, 9 bookkeeping")
    lines.append('ALLOCJOB {"program":"fuzz","arg":%d,"status":%d,"failed_tasks":%d,"exit_code":%d}'
                 % (fuzzcampaign.fuzz_arg(9, 10), 1 if wrong else 0, 1 if wrong else 0, 1 if wrong else 0))
    lines.append(f"pages    60000 total, 10 reserved, {pages[1]} in use, 5 free (20 KiB free)")
    lines.append(f"heap     {objects[1]} objects in use, {kept[1]} pages kept for small objects")
    after = boxes if boxes_after is None else boxes_after
    lines += ["mailboxes: " + after] if after else []
    lines.append(ktest)
    return "\n".join(lines) + "\n"


def checked(output, status=0, mailboxes=True):
    return fuzzcampaign.check(fuzzcampaign.Campaign(seeds=[9], tasks=2, calls=10, status=status, output=output,
                                                    mailboxes=mailboxes))


def test_host_checks_pass_a_clean_campaign_and_catch_each_problem():
    assert checked(fake_output()).problems == []
    c = checked(fake_output(wrong=True))
    assert c.failed_seeds == [9] and any("returned 1, expected an error" in p for p in c.problems)
    assert any("scripts/mosaic-fuzz --seed 9 --tasks 2 --calls 10" in p for p in c.problems)
    assert any("pages in use" in p and "100 before" in p for p in checked(fake_output(pages=(100, 101))).problems)
    # pages the kernel heap keeps for small objects are a cache, not a leak
    assert checked(fake_output(pages=(100, 130), kept=(0, 30))).problems == []
    assert any("heap objects" in p and "72 before" in p for p in checked(fake_output(objects=(72, 73))).problems)
    # the mailboxes of oversubscribed jobs' endpoints are made on first use and kept: counted apart
    before = "kernel_slots=0 user_slots=0 unhandled=0 held_bytes=0 endpoint_mailboxes=0 endpoint_mailbox_pages=0"
    after = "kernel_slots=0 user_slots=0 unhandled=0 held_bytes=0 endpoint_mailboxes=2 endpoint_mailbox_pages=2"
    assert checked(fake_output(pages=(100, 102), objects=(70, 72), boxes=before, boxes_after=after)).problems == []
    assert any("pages in use" in p for p in checked(fake_output(pages=(100, 103), objects=(70, 72), boxes=before,
                                                                boxes_after=after)).problems)
    assert any("heap objects" in p for p in checked(fake_output(pages=(100, 102), objects=(70, 73), boxes=before,
                                                                boxes_after=after)).problems)
    assert any("mailboxes after" in p for p in checked(fake_output(boxes="kernel_slots=0 user_slots=2 "
                                                                     "unhandled=0 held_bytes=64")).problems)
    assert any("ktest" in p for p in checked(fake_output(ktest="ktest: 29 passed, 1 failed")).problems)
    assert any("timed out" in p for p in checked(fake_output(), status=mosaiclib.EXIT_TIMEOUT).problems)
    panic = fake_output() + "PANIC on hart 6 (cpu 6): unexpected trap: store/AMO page fault\n"
    assert any("core 6" in p and "seed 9" in p for p in checked(panic).problems)
    # a kernel with the mailboxes command must print them; one without is not asked (run() warns)
    assert any("did not print `mailboxes`" in p for p in checked(fake_output(boxes=None)).problems)
    assert checked(fake_output(boxes=None), mailboxes=False).problems == []
