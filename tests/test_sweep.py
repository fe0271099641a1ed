"""The benchmarks' experiment runner (scripts/sweep.py): a sweep run by dask.distributed, on a local cluster or
on an existing one (--scheduler), gives the same JSON as the plain in-process runner (--local-serial); a boot
that fails is reported with its command line, status, log and output tail, in the benchmark's JSON too; a
worker whose build differs from the client's refuses the boot; a QEMU dies with the worker that ran it.

The sweeps are small (bench-noc on 16 harts, bench-alloc's Fig. 5.6 on 3x3): every figure compared is on the
cores' virtual clock or the serial clock under -icount, where a boot repeats bit for bit whatever else the
host runs. Host-dependent fields (dates, host seconds, where the logs are, which worker ran a boot) are left
out of the comparison."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import mosaiclib  # noqa: E402
import sweep  # noqa: E402

HOST_KEYS = {"date", "command", "runtime_s", "boot_host_seconds", "wall_s", "log", "worker", "host_seconds",
             "jobs_at_once"}


def bench(name, *args, timeout=240):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def figures(path):
    """The JSON without what depends on the host or on how the boots ran."""
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in HOST_KEYS and k != "sweep"}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return strip(json.loads(path.read_text()))


def test_a_local_cluster_gives_the_same_json_as_the_plain_runner(tmp_path):
    runs = {}
    for how, extra in (("serial", ["--local-serial"]), ("dask", ["--jobs", 2])):
        out = tmp_path / how / "noc.json"
        r = bench("bench-noc", "--harts", 16, "--reps", 2, "--out", out, *extra)
        assert r.returncode == 0, r.stdout + r.stderr
        data = json.loads(out.read_text())
        assert data["sweep"]["boots"] == 4 and data["sweep"]["failed_boots"] == [], data["sweep"]
        assert ("dask.distributed local cluster of 2" if how == "dask" else "serial") in data["sweep"]["engine"]
        assert data["sweep"]["boots_at_once"] == (2 if how == "dask" else 1)
        assert sorted(p.name for p in out.parent.glob("noc-16-*.log")) == \
            ["noc-16-serial-2.log", "noc-16-serial.log", "noc-16-virtual-2.log", "noc-16-virtual.log"]
        assert (out.parent / "noc-16-virtual.log").read_text().startswith("# qemu-system-riscv64 ")
        runs[how] = figures(out)
    assert runs["serial"]["by_clock"]["virtual"]["4x4"]["latency_vs_hops"]  # figures, not an empty document
    assert runs["dask"] == runs["serial"]


def test_a_sweep_sent_to_an_existing_cluster_gives_the_same_json(tmp_path):
    from dask.distributed import LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           memory_limit=0, host="127.0.0.1")
    try:
        runs = {}
        for how, extra in (("serial", ["--local-serial"]), ("cluster", ["--scheduler", cluster.scheduler_address])):
            out = tmp_path / how / "alloc.json"
            r = bench("bench-alloc", "--only", "5.6", "--meshes", 3, "--reps", 2, "--no-probes", "--out", out, *extra)
            assert r.returncode == 0, r.stdout + r.stderr
            data = json.loads(out.read_text())
            assert data["sweep"]["boots"] == 5 and not data["sweep"]["failed_boots"], data["sweep"]  # 4 + repeat
            assert data["how"]["repeatability"]["identical"]
            if how == "cluster":
                assert cluster.scheduler_address in data["sweep"]["engine"] and data["sweep"]["boots_at_once"] == 2
                assert data["how"]["jobs_at_once"] == 2
                assert all(b["worker"].endswith(":" + str(ROOT)) for b in data["boots"]), data["boots"]
            runs[how] = figures(out)
        assert runs["serial"]["figures"]["5.6"] and runs["serial"]["raw"]
        assert runs["cluster"] == runs["serial"]
    finally:
        cluster.close()


def test_a_failed_boot_is_reported_with_its_log_and_the_json_says_so(tmp_path):
    # bench_noc takes 2..31 repetitions: the kernel refuses 1 at its shell, the boot ends with status 2
    out = tmp_path / "noc.json"
    r = bench("bench-noc", "--harts", 16, "--reps", 1, "--clocks", "virtual", "--out", out)
    assert r.returncode == 1, r.stdout + r.stderr
    data = json.loads(out.read_text())
    assert data["failed"] == "2 of 2 boots failed: no figures" and "by_clock" not in data
    failed = data["sweep"]["failed_boots"]
    assert sorted(f["boot"] for f in failed) == ["noc-16-virtual", "noc-16-virtual-2"]
    for f in failed:
        assert f["status"] == 2 and not f["timed_out"] and f["error"] == "exit status 2", f
        assert 'cmd="bench_noc 1"' in f["qemu"] and f["qemu"].startswith("qemu-system-riscv64 "), f
        assert any("usage: bench_noc" in ln for ln in f["tail"]), f
        log = tmp_path / f"{f['boot']}.log"
        assert f["log"] == str(log) and log.read_text().startswith("# " + f["qemu"] + "\n")
        assert f"boot {f['boot']} FAILED: exit status 2; log {log}" in r.stderr
    assert "usage: bench_noc" in r.stderr  # the tail, on the terminal too
    # the results page shows it as a failed run, with each boot's log
    page = subprocess.run([sys.executable, str(ROOT / "scripts" / "results"), "--bench-dir", str(tmp_path),
                           "--out", "-"], capture_output=True, text=True, timeout=60)
    assert page.returncode == 0, page.stderr
    assert "**The last run failed**: 2 of 2 boots failed" in page.stdout and str(log) in page.stdout


def test_a_boot_that_times_out_or_cannot_run_is_kept_with_its_log(tmp_path):
    """On a local cluster: a boot left at the shell until its timeout, a boot with a boot argument the kernel
    refuses, and a good one; every result comes back in the order given, the failures with their logs."""
    kernel = mosaiclib.DEFAULT_KERNEL
    boots = [sweep.Boot("waits", mosaiclib.qemu_command(harts=4, bootargs="", icount=True), tmp_path / "waits.log",
                        timeout=4),
             sweep.Boot("refused", mosaiclib.qemu_command(harts=4, bootargs="shell=0 nosuchkey=1", icount=True),
                        tmp_path / "refused.log", timeout=120),
             sweep.Boot("good", mosaiclib.qemu_command(kernel=kernel, harts=4, bootargs='shell=0 cmd="vtime"',
                                                       icount=True), tmp_path / "good.log", timeout=120)]
    with sweep.Runner("test-sweep", jobs=2) as runner:
        waits, refused, good = runner.run(boots)
    assert waits.key == "waits" and waits.timed_out and waits.status == mosaiclib.EXIT_TIMEOUT
    assert refused.status == 2 and "unknown key 'nosuchkey'" in refused.output
    assert good.ok and "virtual time" in good.output
    failed = {f["boot"]: f for f in runner.record()["failed_boots"]}
    assert sorted(failed) == ["refused", "waits"]
    assert failed["waits"]["timed_out"] and failed["waits"]["error"].startswith("timed out after")
    assert any("unknown key 'nosuchkey'" in ln for ln in failed["refused"]["tail"])
    for b in boots:
        assert b.log.read_text().startswith("# qemu-system-riscv64 ")


def test_a_worker_boots_its_own_checkout_and_refuses_another_build(tmp_path, monkeypatch):
    spec = sweep._spec(sweep.Boot("x", mosaiclib.qemu_command(harts=4, bootargs="shell=0", icount=True),
                                  tmp_path / "x.log"))
    assert set(spec["digests"]) >= {"build/mosaic.elf", "build/vclock/vclock.so"}
    assert all(str(ROOT) not in a for a in spec["cmd"])  # the worker puts its own checkout there
    other = dict(spec, digests=dict(spec["digests"], **{"build/mosaic.elf": "0" * 64}))
    r = sweep.execute(other)
    assert r["status"] == mosaiclib.EXIT_HARNESS and "build/mosaic.elf differs from the client's" in r["output"]
    monkeypatch.setenv("MOSAIC_ROOT", str(tmp_path))
    r = sweep.execute(spec)
    assert r["status"] == mosaiclib.EXIT_HARNESS and "no Mosaic checkout there" in r["output"]
    # the same build at another path: the worker boots its own copy
    other = tmp_path / "elsewhere"
    other.mkdir()
    for part in ("scripts", "build"):
        (other / part).symlink_to(ROOT / part)
    monkeypatch.setenv("MOSAIC_ROOT", str(other))
    r = sweep.execute(spec)
    assert r["status"] == 0, r["output"][-2000:]
    assert r["worker"].endswith(":" + str(other)) and f"{other}/build/mosaic.elf" in r["cmd"]


def qemus(marker):
    """The pids of the QEMUs of this checkout whose command line has marker."""
    pids = []
    for d in os.listdir("/proc"):
        try:
            cmd = open(f"/proc/{d}/cmdline", "rb").read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if cmd and cmd[0] == "qemu-system-riscv64" and any(str(ROOT) in a for a in cmd) and \
                any(marker in a for a in cmd):
            pids.append(int(d))
    return pids


def test_an_interrupted_sweep_stops_its_boots_on_an_existing_cluster(tmp_path):
    """A Ctrl-C at the client: the cluster's workers live on (they are not the client's), this sweep's QEMUs
    on them do not (bench-coll's two 128-hart boots take minutes; they are stopped within seconds)."""
    from dask.distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           memory_limit=0, host="127.0.0.1")
    try:
        client = subprocess.Popen([sys.executable, "-c", f"""
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)  # not ignored across the exec: python3 turns it into Ctrl-C
os.execv(sys.executable, [sys.executable, {str(ROOT / 'scripts' / 'bench-coll')!r}, "--repeat",
         "--out", {str(tmp_path / 'coll.json')!r}, "--scheduler", {cluster.scheduler_address!r}])
"""], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not qemus("bench_collectives") and time.monotonic() < deadline and client.poll() is None:
            time.sleep(0.2)
        assert qemus("bench_collectives"), "no boot started"
        client.send_signal(signal.SIGINT)
        out, err = client.communicate(timeout=60)
        assert client.returncode == 130 and "bench-coll: interrupted after 0 of 2 boots" in err, err
        deadline = time.monotonic() + 15
        while qemus("bench_collectives") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not qemus("bench_collectives"), "a QEMU of the interrupted sweep runs on"
        assert not (tmp_path / "coll.json").exists()
        with Client(cluster) as c:  # the cluster is still there and serves
            assert c.submit(lambda: 7).result(timeout=30) == 7
    finally:
        for pid in qemus("bench_collectives"):
            os.kill(pid, signal.SIGKILL)
        cluster.close()


def test_a_qemu_dies_with_the_worker_that_runs_it(tmp_path):
    """A dask worker killed (by its nanny, by SIGKILL) runs no cleanup: its QEMU must not run on."""
    child = subprocess.Popen([sys.executable, "-c", f"""
import sys
sys.path.insert(0, {str(ROOT / 'scripts')!r})
import mosaiclib
cmd = mosaiclib.qemu_command(harts=2, bootargs="")
mosaiclib.run_qemu(cmd, timeout=120, started=lambda p: print(p.pid, flush=True), die_with_parent=True)
"""], stdout=subprocess.PIPE, text=True)
    try:
        qemu = int(child.stdout.readline())
        os.kill(qemu, 0)  # it runs
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(qemu, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.kill(qemu, signal.SIGKILL)
            pytest.fail("QEMU outlived the process that started it")
    finally:
        if child.poll() is None:
            child.kill()


def test_a_scheduler_that_cannot_be_reached_is_a_clear_error(tmp_path):
    r = bench("bench-shm", "--reps", 1, "--clocks", "virtual", "--out", tmp_path / "shm.json", "--scheduler",
              "no-port-here", timeout=120)
    assert r.returncode != 0 and "bench-shm: cannot reach the scheduler at no-port-here" in r.stderr, r.stderr
    assert not (tmp_path / "shm.json").exists()


@pytest.mark.parametrize("name", ["bench-alloc", "bench-kernel", "bench-noc", "bench-shm", "bench-invade", "bench-coll",
                                  "bench-balance", "bench-boot", "bench-vtime", "bench-vclock",
                                  "bench-sim"])
def test_every_benchmark_explains_how_its_boots_run(name):
    r = bench(name, "--help", timeout=60)
    assert r.returncode == 0, r.stderr
    for option in ("--jobs", "--scheduler ADDRESS", "--local-serial"):
        assert option in r.stdout, (name, option)
    r = bench(name, "--local-serial", "--scheduler", "tcp://127.0.0.1:1", "--help", timeout=60)
    assert r.returncode == 0  # --help wins over everything
