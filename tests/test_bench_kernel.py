"""bench-kernel's breakdown of a forwarded kernel call adds up on the path the call takes: the caller
up to its request's send, the request's flight, the master up to its reply's send, the reply's flight,
and a rest (wake-ups, taking the reply) that cannot be negative, since neither side sees a message
before its delivery. Counting each side's whole software instead (also what runs while a message is
in flight) gave a rest of -915 ns on the virtual clock. One boot of the kernel's bench_kernel."""
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import sweep  # noqa: E402
from benchkernel.boots import boot, rows_of  # noqa: E402
from benchkernel.summary import summarise  # noqa: E402


def test_forwarded_call_breakdown_has_no_negative_rest(tmp_path):
    b = boot(str(ROOT / "build" / "mosaic.elf"), 36, 180, tmp_path / "bench.log", "bench_kernel 3", bootargs="vtime=1")
    r = sweep.Runner("test", serial=True).run([b])[0]
    assert r.ok, r.output[-2000:]
    rows = rows_of(r)
    de = summarise(rows)["decomposition"]
    assert de["rest_ns"] >= 0, de
    assert de["round_trip_ns"] == (de["caller_to_send_ns"] + de["noc_flights_ns"] + de["master_to_reply_ns"]
                                   + de["rest_ns"]), de
    # on the virtual clock each side's span is its own instructions: the part before its send and the
    # part after it make up the whole
    assert 0 < de["caller_to_send_ns"] < de["caller_instructions"], de
    assert 0 < de["master_to_reply_ns"] < de["master_serve_instructions"], de
    assert de["caller_after_send_ns"] > 0 and de["master_after_reply_ns"] > 0, de
