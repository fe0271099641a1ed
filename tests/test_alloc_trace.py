"""scripts/alloc-trace turns an alloc_trace=N console log into a Chrome trace-event file.

Host-only: each test writes a small hand-made log to tmp_path and runs the
script on it; no QEMU is booted and no kernel build is needed.
"""
import json
import re

import pytest

from conftest import ROOT, run_script

SCRIPT = ROOT / "scripts" / "alloc-trace"


HOST_ONLY = True  # no build/mosaic.elf needed (conftest.kernel_built)


def run(*args):
    return run_script(SCRIPT, *args)


def write_log(tmp_path, body, name="run.log"):
    path = tmp_path / name
    path.write_text(body)
    return path


def convert(tmp_path, body, *extra):
    """Runs the script on body; returns (CompletedProcess, the trace's events or None)."""
    log = write_log(tmp_path, body)
    out = tmp_path / "out.json"
    r = run(log, "-o", out, *extra)
    return r, (json.loads(out.read_text())["traceEvents"] if out.exists() else None)


def summary(stdout):
    m = re.search(r"(\d+) events, (\d+) flows, (\d+) jobs, (\d+) unmatched .*?, (\d+) dropped", stdout)
    assert m, stdout
    return dict(zip(("events", "flows", "jobs", "unmatched", "dropped"), map(int, m.groups())))


def instants(events, name=None):
    return [e for e in events if e["ph"] == "i" and (name is None or e["name"] == name)]


# core 0 submits job 7, asks core 1 (REQ), core 1 answers (RESP), the job ends.
# The dump is per core, as the kernel prints it: core 1's ring comes after core 0's.
PAIR_LOG = """\
# qemu-system-riscv64 -machine virt ...
mosaic: 2 harts online
TRACE 1000 0 submit - 7 -1 0
TRACE 1200 0 send REQ 7 1 3
TRACE 2500 0 recv RESP 7 1 3
TRACE 2600 0 commit - 7 2 0
TRACE 9000 0 end - 7 -1 0
TRACE 1800 1 recv REQ 7 0 3
TRACE 1900 1 send RESP 7 0 3
TRACE_END 7 0
mosaic: powering off
"""


def test_send_recv_pair_becomes_a_flow(tmp_path):
    r, events = convert(tmp_path, PAIR_LOG)
    assert r.returncode == 0, r.stderr
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "f"}
    assert len(starts) == len(ends) == 2
    assert starts.keys() == ends.keys()
    for fid, s in starts.items():
        f = ends[fid]
        assert f["bp"] == "e"
        assert (s["name"], s["cat"], s["pid"]) == (f["name"], f["cat"], f["pid"])
        assert s["ts"] <= f["ts"]
    req = next(s for s in starts.values() if s["name"] == "REQ")
    assert (req["tid"], req["ts"]) == (0, 1.2)
    assert (ends[req["id"]]["tid"], ends[req["id"]]["ts"]) == (1, 1.8)
    resp = next(s for s in starts.values() if s["name"] == "RESP")
    assert (resp["tid"], ends[resp["id"]]["tid"]) == (1, 0)
    # the instants of both ends name the same flow
    send, = instants(events, "send REQ")
    recv, = instants(events, "recv REQ")
    assert send["args"]["flow"] == recv["args"]["flow"] == req["id"]
    assert send["args"] == {"job": 7, "peer": 1, "arg": 3, "t_ns": 1200, "flow": req["id"]}
    s = summary(r.stdout)
    assert s == {"events": 7, "flows": 2, "jobs": 1, "unmatched": 0, "dropped": 0}


def test_every_event_is_an_instant_on_its_core(tmp_path):
    r, events = convert(tmp_path, PAIR_LOG)
    assert r.returncode == 0, r.stderr
    inst = instants(events)
    assert len(inst) == 7
    for e in inst:
        assert e["s"] == "t" and e["pid"] == 1 and isinstance(e["ts"], float)
        assert set(e["args"]) >= {"job", "peer", "arg"}
    commit, = instants(events, "commit")
    assert (commit["tid"], commit["ts"], commit["args"]["peer"]) == (0, 2.6, 2)
    assert {e["name"] for e in inst} == {"submit", "send REQ", "recv RESP", "commit", "end", "recv REQ", "send RESP"}


def test_metadata_names_one_track_per_core(tmp_path):
    r, events = convert(tmp_path, PAIR_LOG)
    assert r.returncode == 0, r.stderr
    meta = [e for e in events if e["ph"] == "M"]
    names = {e["tid"]: e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    assert names == {0: "core 0", 1: "core 1"}
    assert {"pid": 1, "name": "process_name", "args": {"name": "Mosaic (the machine's serial clock)"}}.items() <= next(
        e for e in meta if e["name"] == "process_name").items()
    assert all(e["pid"] == 1 for e in events)
    assert r.stdout.rstrip().split(" -> ")[0].endswith("serial clock")


def test_a_virtual_time_boot_is_named_so(tmp_path):
    """Under vtime=1 (the default) every t_ns is its core's own clock: the file and the summary say so."""
    log = PAIR_LOG.replace("mosaic: 2 harts online\n", "mosaic: 2 harts online\n"
                           "mosaic: virtual time: one clock per core, 1 ns per instruction, conservative synchronisation\n")
    r, events = convert(tmp_path, log)
    assert r.returncode == 0, r.stderr
    process = next(e for e in events if e["ph"] == "M" and e["name"] == "process_name")
    assert process["args"]["name"] == "Mosaic (virtual time, each core's own clock)"
    assert r.stdout.rstrip().split(" -> ")[0].endswith("virtual clock")


def test_a_log_without_boot_lines_takes_its_jobs_clock_or_says_it_does_not_know(tmp_path):
    """Only TRACE lines cut from a log: the clock comes from the ALLOCJOB lines if there are any, else it is
    unknown (not silently the serial clock)."""
    trace_only = "".join(ln + "\n" for ln in PAIR_LOG.splitlines() if ln.startswith("TRACE"))
    r, _ = convert(tmp_path, trace_only)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip().split(" -> ")[0].endswith("unknown clock")
    r, _ = convert(tmp_path, 'ALLOCJOB {"job":7,"clock":"virtual"}\n' + trace_only)
    assert r.stdout.rstrip().split(" -> ")[0].endswith("virtual clock")


def test_job_span_from_submit_to_end_on_home_core(tmp_path):
    r, events = convert(tmp_path, PAIR_LOG)
    assert r.returncode == 0, r.stderr
    span, = [e for e in events if e["ph"] == "X"]
    assert span["name"] == "job 7"
    assert span["tid"] == 0
    assert span["ts"] == pytest.approx(1.0) and span["dur"] == pytest.approx(8.0)
    assert span["args"]["job"] == 7 and span["args"]["dur_ns"] == 8000


def test_job_span_from_begin_when_no_submit_and_none_without_end(tmp_path):
    log = ("TRACE 500 3 begin - 9 -1 0\nTRACE 700 3 end - 9 -1 0\n"
           "TRACE 600 2 submit - 10 -1 0\n"  # never ends: no span
           "TRACE_END 3 0\n")
    r, events = convert(tmp_path, log)
    assert r.returncode == 0, r.stderr
    span, = [e for e in events if e["ph"] == "X"]
    assert (span["name"], span["tid"], span["ts"], span["dur"]) == ("job 9", 3, 0.5, 0.2)
    assert summary(r.stdout)["jobs"] == 1
    assert "no end" in r.stderr and "10" in r.stderr


def test_overlapping_jobs_of_one_core_do_not_share_a_track(tmp_path):
    # job 1 [100, 900] and job 2 [200, 1000] overlap without nesting; job 3 nests in job 1
    log = ("TRACE 100 0 submit - 1 -1 0\nTRACE 200 0 submit - 2 -1 0\nTRACE 300 0 submit - 3 -1 0\n"
           "TRACE 400 0 end - 3 -1 0\nTRACE 900 0 end - 1 -1 0\nTRACE 1000 0 end - 2 -1 0\nTRACE_END 6 0\n")
    r, events = convert(tmp_path, log)
    assert r.returncode == 0, r.stderr
    tid = {e["name"]: e["tid"] for e in events if e["ph"] == "X"}
    assert tid["job 1"] == tid["job 3"] == 0
    assert tid["job 2"] != 0
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names[0] == "core 0" and names[tid["job 2"]].startswith("core 0 ")


def test_flows_pair_first_in_first_out_per_route_and_kind(tmp_path):
    # two REQs 0 -> 1 and a PING 0 -> 1; core 1's lines come first in the dump
    log = ("TRACE 300 1 recv REQ 5 0 1\nTRACE 350 1 recv PING 0 0 1\nTRACE 400 1 recv REQ 6 0 1\n"
           "TRACE 100 0 send REQ 5 1 1\nTRACE 150 0 send REQ 6 1 1\nTRACE 200 0 send PING 0 1 1\n"
           "TRACE_END 6 0\n")
    r, events = convert(tmp_path, log)
    assert r.returncode == 0, r.stderr
    flow_of = {(e["name"], e["args"]["t_ns"]): e["args"]["flow"] for e in instants(events)}
    assert flow_of[("send REQ", 100)] == flow_of[("recv REQ", 300)]
    assert flow_of[("send REQ", 150)] == flow_of[("recv REQ", 400)]
    assert flow_of[("send PING", 200)] == flow_of[("recv PING", 350)]
    assert len(set(flow_of.values())) == 3
    assert summary(r.stdout)["flows"] == 3


def test_unmatched_sends_and_recvs_are_kept_and_counted(tmp_path):
    log = ("TRACE 100 0 send REQ 5 1 1\n"      # never received
           "TRACE 200 2 recv RESP 5 3 2\n"     # never sent
           "TRACE 300 1 recv REQ 5 2 1\n"      # a REQ, but from core 2, not 0
           "TRACE_END 3 0\n")
    r, events = convert(tmp_path, log)
    assert r.returncode == 0, r.stderr
    assert not [e for e in events if e["ph"] in ("s", "f")]
    assert len(instants(events)) == 3
    assert all(e["args"].get("unmatched") for e in instants(events))
    s = summary(r.stdout)
    assert (s["flows"], s["unmatched"]) == (0, 3)


def test_non_trace_lines_are_ignored(tmp_path):
    log = ("OpenSBI v1.1\nmosaic: 4 harts online\n"
           "TRACE 100 0 submit - 7 -1 0\n"
           "> stencil 4\nTRACEBACK is not a trace line\nkernel: TRACE 5 5 5 is not one either\n"
           "\r\n   \n"
           "TRACE 200 0 end - 7 -1 0\r\n"
           "ktest: 3 passed, 0 failed\n"
           "TRACE_END 2 0\n"
           "mosaic: power off\n")
    r, events = convert(tmp_path, log)
    assert r.returncode == 0, r.stderr
    assert summary(r.stdout)["events"] == 2
    assert [e["name"] for e in instants(events)] == ["submit", "end"]
    assert "warning" not in r.stderr


def test_output_is_a_chrome_trace_json_object(tmp_path):
    log = write_log(tmp_path, PAIR_LOG)
    r = run(log)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "run.trace.json"  # default: next to the log
    assert str(out) in r.stdout
    doc = json.loads(out.read_text())
    assert doc["displayTimeUnit"] == "ns"
    assert isinstance(doc["traceEvents"], list) and doc["traceEvents"]
    for e in doc["traceEvents"]:
        assert e["ph"] in ("M", "i", "s", "f", "X")
        assert e["pid"] == 1
        if e["ph"] != "M":
            assert isinstance(e["ts"], float) and isinstance(e["tid"], int)
    # time order, so viewers that stream the file see causes before effects
    ts = [e["ts"] for e in doc["traceEvents"] if e["ph"] != "M"]
    assert ts == sorted(ts)


def test_dropped_events_are_reported(tmp_path):
    r, _ = convert(tmp_path, "TRACE 100 0 submit - 7 -1 0\nTRACE_END 1 42\n")
    assert r.returncode == 0, r.stderr
    assert summary(r.stdout)["dropped"] == 42
    assert "42 events were dropped" in r.stderr


def test_missing_trace_end_exits_2(tmp_path):
    body = PAIR_LOG.replace("TRACE_END 7 0\n", "")
    r, events = convert(tmp_path, body)
    assert r.returncode == 2
    assert "TRACE_END" in r.stderr and "truncated" in r.stderr
    assert events is None  # nothing written without --partial


def test_missing_trace_end_with_partial_still_writes(tmp_path):
    body = PAIR_LOG.replace("TRACE_END 7 0\n", "")
    r, events = convert(tmp_path, body, "--partial")
    assert r.returncode == 2
    assert "truncated" in r.stderr
    assert summary(r.stdout)["events"] == 7
    assert len(instants(events)) == 7


@pytest.mark.parametrize("body", ["", "mosaic: 4 harts online\nmosaic: power off\n"])
def test_log_without_trace_lines_exits_2(tmp_path, body):
    r, events = convert(tmp_path, body, "--partial")
    assert r.returncode == 2
    assert "no TRACE lines" in r.stderr and "alloc_trace=4096" in r.stderr
    assert events is None


def test_unreadable_log_exits_2(tmp_path):
    r = run(tmp_path / "missing.log")
    assert r.returncode == 2
    assert "cannot read" in r.stderr


def test_malformed_trace_lines_are_skipped_with_a_warning(tmp_path):
    log = ("TRACE 100 0 submit - 7 -1 0\nTRACE 1x0 0 end - 7 -1 0\nTRACE 150 0 send - 7 1 1\n"
           "TRACE 200 999 end - 7 -1 0\nTRACE_END 4 0\n")
    r, events = convert(tmp_path, log)
    assert r.returncode == 0, r.stderr
    assert summary(r.stdout)["events"] == 1
    assert r.stderr.count("malformed trace line ignored") == 3


def test_help_explains_input_and_output():
    r = run("--help")
    assert r.returncode == 0
    for word in ("LOG", "--out", "-o", "--partial", "TRACE_END", "alloc_trace=4096", "Perfetto", "flow", ".trace.json"):
        assert word in r.stdout, word
    # alloc_trace=1 would keep one event per core: the help must not suggest it
    assert not re.search(r"alloc_trace=1\b", r.stdout), r.stdout
    # every column is explained, and for start and end the count is in peer
    assert re.search(r"^ +start +cores of this micro-kernel's share", r.stdout, re.M), r.stdout
