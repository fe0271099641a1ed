"""Submissions and scenarios the shell refuses: a refusal names the reason and leaves no trace
(no job tag used up), in partial simulation as in real-task mode."""
import re


def typed(lines):
    """Shell input: one command per line, then power-off so the run ends by itself."""
    return "".join(line + "\r" for line in lines + ["poweroff 0"])


def test_a_refused_submission_uses_no_job_tag(boot):
    lines = ["submit sim 2 time 100", "submit sim 0", "submit sim 2 time 100 at 99", "submit nosuch 2 time 100",
             "submit sim 3 time 100", "jobs wait 20"]
    r = boot(harts=16, bootargs="shell=1 partial_sim=4", batch=False, input_text=typed(lines), timeout=120)
    assert r.status == 0, r.output[-2000:]
    tags = [int(t) for t in re.findall(r"^submit: job tag (\d+) ", r.output, re.M)]
    assert tags == [1, 2], r.output[-2000:]
    assert r.output.count("submit: refused:") == 3, r.output[-2000:]
    assert "jobs: 2 ended, 0 still in the system" in r.output


def test_partial_simulation_refuses_a_program_name(boot):
    r = boot(harts=16, bootargs='partial_sim=4 cmd="submit nosuch 2 time 100"')
    assert r.status == 1, (r.status, r.output[-1500:])
    assert "submit: refused: partial simulation runs no programs: submit 'sim' jobs, not 'nosuch'" in r.output
    assert "job tag" not in r.output


def test_an_unknown_scenario_name_lists_the_known_ones(boot):
    r = boot(harts=16, bootargs='partial_sim=4 cmd="scenario bogus 3"')
    assert r.status == 2, (r.status, r.output[-1500:])
    m = re.search(r"^scenario: unknown scenario 'bogus' \(known: (.*); or a list", r.output, re.M)
    assert m, r.output[-1500:]
    assert m.group(1).split(", ") == ["fig22", "corners", "simul", "random"]
    assert "expected 'T_US HOME NTASKS" not in r.output
    # a spelt-out list still gets the list's own error
    r = boot(harts=16, bootargs='partial_sim=4 scenario="0 0 two 100"')
    assert r.status == 2 and "expected 'T_US HOME NTASKS RUN_US|PROGRAM[:ARG]'" in r.output, r.output[-1500:]
