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
    assert m.group(1).split(", ") == ["fig22", "corners", "simul", "random", "file"]
    assert "expected 'T_US HOME NTASKS" not in r.output
    # a spelt-out list still gets the list's own error
    r = boot(harts=16, bootargs='partial_sim=4 scenario="0 0 two 100"')
    assert r.status == 2 and "expected 'T_US HOME NTASKS[/C] RUN_US|PROGRAM[:ARG]'" in r.output, r.output[-1500:]


def test_a_scenario_list_runs_oversubscribed_jobs_and_refuses_bad_cores(boot):
    """NTASKS/C in a list: a job of NTASKS tasks on C cores (real tasks only), checked as submit's cores."""
    r = boot(harts=12, bootargs='domains=1 vtime=1 scenario="0 0 6/3 stencil; 0 0 4 ring; 10 0 5/5 compute"',
             timeout=120)
    assert r.status == 0, r.output[-3000:]
    assert re.search(r"^\[core \d+\] stencil: 6 tasks, .* ok$", r.output, re.M), r.output[-3000:]
    assert re.search(r"SHAREJSON .*\"who\":\"oversub job 1\".*\"ntasks\":6,\"ncores\":3", r.output)
    assert r.output.count("SHAREJSON") == 1  # 5/5 is one core per task: no oversubscription
    for spec, why in [("0 0 4/0 stencil", "job 1: cores C must be 1..NTASKS (4)"),
                      ("0 0 2 ring; 0 0 4/8 stencil", "job 2: cores C must be 1..NTASKS (4)"),
                      ("0 0 4/x stencil", "job 1: expected 'T_US HOME NTASKS[/C] RUN_US|PROGRAM[:ARG]'"),
                      ("0 0 65/9 stencil", "65 tasks on 9 cores: an oversubscribed job runs at most 64")]:
        r = boot(harts=12, bootargs=f'domains=1 scenario="{spec}"')
        assert r.status == 2 and why in r.output, (spec, r.output[-1500:])
        assert "ALLOCJOB" not in r.output
    r = boot(harts=16, bootargs='partial_sim=4 scenario="0 0 8/2 100"')
    assert r.status == 2, r.output[-1500:]
    assert "job 1: NTASKS/C is for real tasks: partial simulation has no oversubscription" in r.output
