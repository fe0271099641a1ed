"""Console input under load: a long script typed into the shell while many jobs run under active
cancellation arrives character for character. The UART is drained both by its interrupt and by the
shell's own poll; when the interrupt could land inside the poll, typed lines lost or swapped
characters ('polciy', 'submit smi 21', 'slee p1') in almost every run of this test."""
import random
import re

SUBMISSIONS = 120


def script():
    """Jobs of random sizes, homes and run times on an 8x8 mesh, each followed by cheap commands
    that keep the shell reading while the jobs are allocated."""
    rnd = random.Random(7)
    lines = []
    for _ in range(SUBMISSIONS):
        lines.append(f"submit sim {rnd.randint(1, 32)} at {rnd.randint(0, 63)} time {rnd.randint(1000, 5000)}")
        lines += [f"sleep {rnd.randint(0, 1)}", "policy", "scheme"]
    return lines + ["jobs wait 200", "poweroff 0"]


def test_typed_lines_arrive_intact_while_jobs_run(boot):
    lines = script()
    r = boot(harts=64, bootargs="shell=1 partial_sim=8 mesh=8x8 policy=ac scheme=adaptive", batch=False,
             input_text="".join(line + "\r" for line in lines), timeout=300)
    assert r.status == 0, r.output[-2000:]
    # the shell echoes every character it reads: each prompt line is what it got
    read = re.findall(r"^mosaic> (.*)$", r.output, re.M)
    garbled = [(want, got) for want, got in zip(lines, read) if want != got]
    assert not garbled, f"{len(garbled)} lines garbled, e.g. {garbled[:5]}"
    assert len(read) == len(lines)
    assert "unknown command" not in r.output and "usage:" not in r.output
    tags = [int(t) for t in re.findall(r"^submit: job tag (\d+) ", r.output, re.M)]
    assert tags == list(range(1, SUBMISSIONS + 1))
    assert f"jobs: {SUBMISSIONS} ended, 0 still in the system" in r.output
