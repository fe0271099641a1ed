"""A stuck allocation run leaves a diagnosis in the log: `jobs wait S` prints one when it times out,
and the watchdog (boot argument watchdog=SECONDS) prints one by itself when no job has progressed for
that long while jobs are open. Each names the open jobs and the micro-kernels that hold them."""
import json
import re

# one job of 8 virtual cores (two micro-kernels' worth) that holds them for 3 s
LONG_JOB = "submit sim 8 time 3000000"


def diagnoses(output):
    """(time_ms, reason, body) of every diagnosis printed."""
    return [(int(t), why, body) for t, why, body in
            re.findall(r"^alloc: DIAGNOSIS at (\d+) ms: (.*)\n((?:.*\n)*?)alloc: DIAGNOSIS END$", output, re.M)]


def test_jobs_wait_that_times_out_prints_the_open_jobs_and_the_trace_tail(boot):
    r = boot(harts=16, bootargs=f'partial_sim=4 alloc_trace=1000 cmd="{LONG_JOB};jobs wait 1"')
    assert r.status == 1, (r.status, r.output[-2000:])
    found = diagnoses(r.output)
    assert len(found) == 1, r.output[-3000:]
    _, why, body = found[0]
    assert why == "jobs wait: 1 jobs did not end within 1 s"
    assert "alloc: 1 jobs open at their homes; this core (0) waits for 1 reports" in body
    # the home's job table and the two micro-kernels running it, as `mk` shows them
    assert re.search(r"^  job \d+: running, 8 cores, got 8,", body, re.M), body
    assert len(re.findall(r"^  running: job \d+ \(home 0\) on 4 cores, 0 ended$", body, re.M)) == 2, body
    assert "alloc: 14 micro-kernels idle" in body
    # the last events, oldest first, of the open job (which of its events are last depends on the
    # host's scheduling without -icount: its start may already be older than the last 48)
    tail = re.findall(r"^  trace (\d+) \d+ \w+ \S+ (\d+) ", body, re.M)
    assert 0 < len(tail) <= 48, body
    times = [int(t) for t, _ in tail]
    assert times == sorted(times) and any(job == "1" for _, job in tail), body


def test_jobs_wait_diagnosis_without_a_trace(boot):
    r = boot(harts=16, bootargs=f'partial_sim=4 cmd="{LONG_JOB};jobs wait 1"')
    assert r.status == 1, (r.status, r.output[-2000:])
    (_, _, body), = diagnoses(r.output)
    assert "trace" not in body


def test_watchdog_reports_a_job_that_makes_no_progress(boot):
    # idle first: no job open, so no report however long nothing happens. On the serial clock: the
    # watchdog counts machine time (a stall stops the virtual clocks), which under vtime=1 is not
    # the clock of the job's times the assertions below compare it with
    r = boot(harts=16, bootargs=f'vtime=0 partial_sim=4 watchdog=1 alloc_trace=1000 cmd="sleep 2500;{LONG_JOB};jobs wait 10 json"',
             timeout=120)
    assert r.status == 0, (r.status, r.output[-2000:])
    assert "alloc: watchdog on: the allocation state is printed after 1 s without job progress" in r.output
    found = diagnoses(r.output)
    assert len(found) == 1, r.output[-3000:]  # once per stall
    at_ms, why, body = found[0]
    assert why == "watchdog: no job progressed for 1 s while jobs are open"
    assert re.search(r"^  job \d+: running, 8 cores, got 8,", body, re.M), body
    job, = [json.loads(m) for m in re.findall(r"^ALLOCJOB (\{.*\})$", r.output, re.M)]
    # checked every quarter period: between 1 and 1.25 s after the job started (plus a check's slack)
    assert 1000 <= at_ms - job["t_start_ns"] // 1000000 <= 1500, (at_ms, job)
    assert at_ms < job["t_end_ns"] // 1000000
    # and the whole trace, so that scripts/alloc-trace can convert a run killed while it hangs
    end = r.output.index("alloc: DIAGNOSIS END")
    assert re.search(r"^TRACE_END \d+ 0$", r.output[end:r.output.index("ALLOCJOB")], re.M)


def test_watchdog_is_off_by_default(boot):
    r = boot(harts=16, bootargs=f'partial_sim=4 cmd="{LONG_JOB};jobs wait 10"', timeout=120)
    assert r.status == 0, (r.status, r.output[-2000:])
    assert "watchdog" not in r.output and not diagnoses(r.output)
