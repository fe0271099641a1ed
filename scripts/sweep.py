"""The benchmarks' experiment runner: every boot of a sweep is one independent task, run by dask.distributed.

Why: the boots of a sweep (bench-alloc's 116 configurations per clock, bench-kernel's pairs, ...) do not
depend on each other, and under -icount their figures do not depend on where or beside what they run, so
they can go to every core of this machine or to a cluster. A benchmark plans its boots (Boot: the QEMU
command line, the timeout, the log's path), hands them to one Runner, and gets every boot's result back in
its own order, whatever order they finished in; it then reads the figures from the output as before.

How (docs/benchmarks.md, "Sweeps"):
  default           a dask.distributed LocalCluster on this machine: one worker process per core
                    (--jobs), one boot at a time each;
  --scheduler ADDR  the tasks go to an existing dask cluster; every worker needs this checkout built
                    (the same revision and build/), at the same path or at $MOSAIC_ROOT on the worker, and
                    QEMU: a worker whose kernel or plugin differs from this machine's refuses the boot
                    (the files' SHA-256 are checked) instead of measuring another kernel;
  --local-serial    the boots one after another in this process, without dask (for debugging).
Each boot's serial log is written here, next to the benchmark's JSON, whichever machine ran it. A boot
that fails (a status other than 0, a timeout, a worker that died, a refusal) is never dropped: its
result says why, Result.failure() gives its command line, status and the tail of its output for the
benchmark's JSON, and the progress line names its log.
"""
import datetime
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import mosaiclib

# The placeholder for the checkout's root in a command line sent to a worker, which puts its own root there.
ROOT_MARK = "@MOSAIC_ROOT@"
TAIL_LINES = 20  # lines of a failed boot's output kept in the JSON


def default_jobs():
    """The cores this process may run on: the local cluster's size and the boots at a time."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


@dataclass
class Boot:
    key: str  # unique within the sweep: names the boot in progress lines and failures
    cmd: list  # the QEMU command line (mosaiclib.qemu_command), or another program's with qemu=False
    log: Path  # its serial log, on this machine (None: none kept)
    timeout: float = 600.0
    input_text: str = None  # typed once the kernel is online (mosaiclib.run_qemu)
    marks: tuple = ()
    cost: float = 1.0  # the dearer boots are started first, so that the workers finish together
    qemu: bool = True  # False: a host program of the checkout (the simulator), its standard error kept apart


@dataclass
class Result:
    key: str
    cmd: list  # the command line as the worker ran it
    status: int
    output: str
    timed_out: bool
    wall_s: float
    log: Path
    worker: str = ""
    marks: dict = field(default_factory=dict)
    stderr: str = ""  # a host program's standard error (a QEMU boot's is in output)

    @property
    def lines(self):
        return self.output.splitlines()

    @property
    def ok(self):
        return self.status == 0

    def tail(self, n=TAIL_LINES):
        return [ln for ln in (self.output + self.stderr).splitlines() if ln.strip()][-n:]

    def failure(self, why=None):
        """The failed boot for a benchmark's JSON: its command line, status, log and the tail of its output."""
        return {"boot": self.key, "qemu": " ".join(self.cmd), "status": self.status, "timed_out": self.timed_out,
                "error": why or describe_status(self), "worker": self.worker,
                "log": rel(self.log) if self.log else None,
                "tail": self.tail()}


def describe_status(r):
    if r.timed_out:
        return f"timed out after {r.wall_s:.0f} s (QEMU killed)"
    if r.status == mosaiclib.EXIT_HARNESS:
        return "the boot did not start (status 125)" + (f": {r.tail(1)[0]}" if r.tail(1) else "")
    return f"exit status {r.status}"


def rel(path):
    path = Path(path)
    return str(path.relative_to(mosaiclib.ROOT)) if path.is_relative_to(mosaiclib.ROOT) else str(path)


_digests = {}  # (path, size, mtime) -> SHA-256: a sweep names the same kernel in every boot


def _file_digest(path):
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _digests:
        _digests[key] = _hash_file(path)
    return _digests[key]


def _hash_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _spec(boot):
    """What a worker needs to run a boot: its command line with the root as ROOT_MARK, and the SHA-256 of every
    file of the checkout it names (the kernel, the plugin), which the worker's copies must match."""
    root = str(mosaiclib.ROOT)
    cmd, digests = [], {}
    for arg in boot.cmd:
        arg = str(arg)
        for piece in arg.split(","):  # -plugin FILE,opt=...
            if piece.startswith(root + os.sep) and os.path.isfile(piece):
                digests[piece[len(root) + 1:]] = _file_digest(piece)
        cmd.append(arg.replace(root, ROOT_MARK))
    return {"key": boot.key, "cmd": cmd, "digests": digests, "root": root, "timeout": boot.timeout,
            "input_text": boot.input_text, "marks": list(boot.marks), "qemu": boot.qemu}


def execute(spec):
    """Runs one boot where it is called (a dask worker, or this process with --local-serial); dask ships it by
    value with the module's functions it calls, so a worker needs nothing of this module: it finds the
    checkout ($MOSAIC_ROOT, or the client's path), checks its files against the client's and boots. Returns
    plain data; never raises for a boot that fails."""
    import os as _os
    import socket
    import sys as _sys
    import traceback
    root = _os.environ.get("MOSAIC_ROOT") or spec["root"]
    where = f"{socket.gethostname()}:{root}"

    def refused(why):
        # status 125 is mosaiclib.EXIT_HARNESS, which is not importable before the checkout is found
        return {"cmd": [a.replace(ROOT_MARK, root) for a in spec["cmd"]], "status": 125, "timed_out": False,
                "wall_s": 0.0, "marks": {}, "worker": where, "output": f"sweep: worker {where}: {why}\n"}

    scripts = _os.path.join(root, "scripts")
    if not _os.path.isfile(_os.path.join(scripts, "mosaiclib.py")):
        return refused("no Mosaic checkout there (set MOSAIC_ROOT on the worker to its checkout)")
    for relpath, digest in spec["digests"].items():
        try:
            ours = _hash_file(_os.path.join(root, relpath))
        except OSError as e:
            return refused(f"{relpath} cannot be read ({e.strerror}): build Mosaic there ('make')")
        if ours != digest:
            return refused(f"{relpath} differs from the client's: check out the same revision and build it")
    if scripts not in _sys.path:
        _sys.path.insert(0, scripts)
    import mosaiclib as _mosaiclib
    cmd = [a.replace(ROOT_MARK, root) for a in spec["cmd"]]
    # this sweep's live QEMUs in this worker, so that stop() can end them and no other client's
    live = _mosaiclib.__dict__.setdefault("sweep_live", {}).setdefault(spec.get("sweep"), set())
    proc = []

    def started(p):
        proc.append(p)
        live.add(p)
    try:
        if not spec.get("qemu", True):
            return dict(_run_program(cmd, spec["timeout"], started), worker=where)
        r = _mosaiclib.run_qemu(cmd, timeout=spec["timeout"], input_text=spec["input_text"], marks=spec["marks"],
                                die_with_parent=True, started=started)
    except Exception:  # noqa: BLE001 - the boot's failure is reported, with the traceback as its output
        return dict(refused("the boot raised:\n" + traceback.format_exc()), cmd=cmd)
    finally:
        live.difference_update(proc)
    return {"cmd": cmd, "status": r.status, "timed_out": r.timed_out, "wall_s": r.wall_s, "marks": r.marks,
            "worker": where, "output": r.output}


def _run_program(cmd, timeout, started):
    """A host program of the checkout (qemu=False): its status, standard output and error; killed, with
    status 124 (mosaiclib.EXIT_TIMEOUT), after timeout seconds, or when the process that runs it dies."""
    import os as _os
    import signal as _signal
    import subprocess as _subprocess
    import time as _time
    import mosaiclib as _mosaiclib
    t0 = _time.monotonic()
    _mosaiclib.kill_with_parent_ready()
    p = _subprocess.Popen(cmd, stdout=_subprocess.PIPE, stderr=_subprocess.PIPE, text=True, start_new_session=True,
                          preexec_fn=_mosaiclib.kill_with_parent)
    started(p)
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except _subprocess.TimeoutExpired:
        timed_out = True
    finally:
        if p.poll() is None:
            _os.killpg(p.pid, _signal.SIGKILL)
    if timed_out:
        out, err = p.communicate()
    return {"cmd": cmd, "status": 124 if timed_out else p.returncode, "timed_out": timed_out,
            "wall_s": _time.monotonic() - t0, "marks": {}, "output": out, "stderr": err}


def stop(sweep):
    """Run on every worker of a cluster when a sweep is interrupted: ends that sweep's QEMUs there (their
    run_qemu cleans up and the task returns). Self-contained, like execute. Returns how many it signalled."""
    import os as _os
    import signal as _signal
    import sys as _sys
    lib = _sys.modules.get("mosaiclib")
    procs = list(getattr(lib, "sweep_live", {}).get(sweep, ())) if lib else []
    for p in procs:
        try:
            _os.killpg(p.pid, _signal.SIGTERM)
        except ProcessLookupError:
            pass
    return len(procs)


class Progress:
    """One line per finished boot on standard output, and a progress bar below them on standard error when it
    is a terminal."""

    def __init__(self, total, name, stream=None):
        self.total, self.name, self.done, self.failed = total, name, 0, 0
        self.stream = stream or sys.stderr
        self.bar = self.stream.isatty()
        self.t0 = time.monotonic()

    def _draw(self):
        width = 30
        full = width * self.done // max(1, self.total)
        took = time.monotonic() - self.t0
        self.stream.write(f"\r\033[K{self.name}: [{'#' * full}{'.' * (width - full)}] {self.done}/{self.total} "
                          f"boots, {self.failed} failed, {int(took // 60)}:{int(took % 60):02d}")
        self.stream.flush()

    def start(self):
        if self.bar:
            self._draw()

    def finished(self, line, ok):
        self.done += 1
        self.failed += not ok
        if self.bar:
            self.stream.write("\r\033[K")
            self.stream.flush()
        if line is not None:
            print(line, flush=True)
        if self.bar:
            self._draw()

    def end(self):
        if self.bar:
            self.stream.write("\n")
            self.stream.flush()


class SweepError(Exception):
    """The sweep could not run at all (no dask, no scheduler at that address): says what to do."""


def add_options(p, jobs_help=""):
    """The runner's options, for every benchmark that sweeps: --jobs, --scheduler, --local-serial."""
    g = p.add_argument_group("how the boots run (docs/benchmarks.md, \"Sweeps\")")
    g.add_argument("--jobs", type=int, default=default_jobs(),
                   help=f"boots at once: the local cluster's worker processes (default: this machine's cores, "
                        f"{default_jobs()}){jobs_help}")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="send the boots to this dask.distributed scheduler (tcp://HOST:PORT) instead of a local "
                        "cluster; its workers need this checkout built, at the same path or at $MOSAIC_ROOT")
    g.add_argument("--local-serial", action="store_true",
                   help="run the boots one after another in this process, without dask (for debugging)")
    return g


class Runner:
    """Runs sweeps of boots the way the options say; one dask cluster for all the sweeps of one benchmark."""

    def __init__(self, name, jobs=None, scheduler=None, serial=False):
        self.name, self.scheduler, self.serial = name, scheduler, serial
        self.jobs = max(1, jobs or default_jobs())
        if serial and scheduler:
            raise SweepError(f"{name}: --local-serial and --scheduler exclude each other")
        self.client = self.cluster = None
        self._slots = None
        self.boots = 0
        self.failed = []

    @classmethod
    def from_args(cls, name, args):
        if args.jobs is not None and args.jobs < 1:
            raise SystemExit(f"{name}: --jobs must be at least 1")
        if args.local_serial:
            args.jobs = 1  # what the benchmark's JSON records as boots at once
        try:
            return cls(name, jobs=args.jobs, scheduler=args.scheduler, serial=args.local_serial)
        except SweepError as e:
            raise SystemExit(str(e))

    def how(self):
        """How the boots ran, for the benchmark's JSON."""
        if self.serial:
            engine = "serial (in the benchmark's process, one boot at a time)"
        elif self.scheduler:
            engine = f"dask.distributed cluster at {self.scheduler}"
        else:
            engine = f"dask.distributed local cluster of {self.jobs} worker processes"
        return {"engine": engine, "boots_at_once": self.slots(), "boots": self.boots, "failed": len(self.failed)}

    def slots(self):
        """Boots at once: 1 in-process, the local cluster's workers, or the threads of the cluster's workers
        (None before it is reached)."""
        if self.serial:
            return 1
        if self.scheduler:
            return sum(self.client.nthreads().values()) if self.client is not None else self._slots
        return self.jobs

    def record(self):
        """The "sweep" section of a benchmark's JSON: how the boots ran and every boot that failed."""
        return dict(self.how(), failed_boots=self.failed)

    def _connect(self, workers):
        if self.client is not None:
            return
        try:
            import cloudpickle
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise SweepError(f"{self.name}: dask.distributed is not installed for {sys.executable} (scripts/deps "
                             "installs it; or run with --local-serial)") from None
        import logging
        cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers need not import this module
        try:
            if self.scheduler:
                self.client = Client(self.scheduler, timeout=15)
            else:
                # memory_limit=0: QEMU's memory is its own process's; the worker's stays small
                self.jobs = workers
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                            dashboard_address=None, memory_limit=0, silence_logs=logging.ERROR)
                self.client = Client(self.cluster)
        except (OSError, ValueError, TypeError) as e:  # no scheduler there, or an address dask cannot parse
            self.close()
            where = f"the scheduler at {self.scheduler}" if self.scheduler else "a local cluster"
            raise SweepError(f"{self.name}: cannot reach {where}: {e}") from None

    def close(self):
        if self.client is not None and self.scheduler:
            self._slots = self.slots()  # what how() reports once the client is gone
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        self.client = self.cluster = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def run(self, boots, line=None, in_flight=None):
        """Runs the boots; returns their Results in the order of boots. line(result) -> the progress line of a
        finished boot (default: its key, host time and state; None: no line, the bar only). in_flight: at most
        this many boots at once (a benchmark that times the host runs them one at a time)."""
        if len({b.key for b in boots}) != len(boots):
            raise ValueError("sweep: two boots share a key")
        if not boots:
            return []
        order = sorted(range(len(boots)), key=lambda i: -boots[i].cost)
        results = [None] * len(boots)
        progress = Progress(len(boots), self.name)
        line = line or self.default_line

        def finished(i, data):
            b = boots[i]
            r = Result(key=b.key, cmd=data["cmd"], status=data["status"], output=data["output"],
                       timed_out=data["timed_out"], wall_s=data["wall_s"], log=Path(b.log) if b.log else None,
                       worker=data.get("worker", ""), marks=data.get("marks", {}), stderr=data.get("stderr", ""))
            if r.log:
                r.log.parent.mkdir(parents=True, exist_ok=True)
                r.log.write_text(f"# {' '.join(r.cmd)}\n{r.output}{r.stderr}")  # as mosaiclib.run_qemu writes it
            results[i] = r
            self.boots += 1
            if not r.ok:
                self.failed.append(r.failure())
            text = line(r)
            progress.finished(f"[{progress.done + 1:3d}/{len(boots)}] {text}" if text is not None else None, r.ok)

        progress.start()
        try:
            if self.serial:
                for i in order:
                    finished(i, execute(_spec(boots[i])))
            else:
                self._run_dask(boots, order, finished, in_flight)
        except KeyboardInterrupt:
            progress.end()
            print(f"{self.name}: interrupted after {progress.done} of {len(boots)} boots; every QEMU stopped, "
                  "nothing written", file=sys.stderr)
            raise SystemExit(130) from None
        progress.end()
        return results

    def _run_dask(self, boots, order, finished, in_flight):
        try:
            self._connect(min(self.jobs, in_flight or self.jobs))
        except SweepError as e:
            raise SystemExit(str(e))
        from dask.distributed import as_completed
        token = f"{os.getpid()}-{time.monotonic_ns()}"
        pending = list(order)
        futures = {}

        def submit(i):
            f = self.client.submit(execute, dict(_spec(boots[i]), sweep=token),
                                   key=f"mosaic-boot-{boots[i].key}-{token}", pure=False,
                                   priority=len(boots) - len(futures))
            futures[f] = i
            return f

        limit = in_flight or len(boots)
        ac = as_completed([submit(pending.pop(0)) for _ in range(min(limit, len(pending)))])
        try:
            for f in ac:
                i = futures[f]
                try:
                    data = f.result()
                except Exception as e:  # noqa: BLE001 - a lost worker, a task dask could not run: reported
                    data = {"cmd": [str(a) for a in boots[i].cmd], "status": mosaiclib.EXIT_HARNESS,
                            "timed_out": False, "wall_s": 0.0,
                            "output": f"sweep: the task failed in dask: {type(e).__name__}: {e}\n"}
                finished(i, data)
                f.release()
                if pending:
                    ac.add(submit(pending.pop(0)))
        except BaseException:
            self.client.cancel(list(futures))
            try:
                self.client.run(stop, token, wait=True)  # the boots under way, on every worker
            except Exception:  # noqa: BLE001 - a worker gone already took its QEMUs with it (die_with_parent)
                pass
            self.close()  # a local cluster's workers end, and any QEMU still there with them
            raise

    def mark_failed(self, r, why):
        """A boot that the benchmark's own check of its output finds failed, even with status 0: its failure
        (which replaces the one its status gave) says why."""
        self.failed = [f for f in self.failed if f["boot"] != r.key] + [r.failure(why)]

    def require_ok(self, out, command):
        """Ends a benchmark that cannot give figures without every boot: if one failed, the failures on
        standard error and out written as a JSON that says so (how the boots ran, every failed boot with its
        command line, status, log and output tail: scripts/results shows it as a failed run); SystemExit(1)."""
        if not self.failed:
            return
        self.report_failures()
        doc = {"how": {"command": command,
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")},
               "failed": f"{len(self.failed)} of {self.boots} boots failed: no figures", "sweep": self.record()}
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(doc, indent=1) + "\n")
        raise SystemExit(f"{self.name}: {doc['failed']}; wrote {out}")

    def default_line(self, r):
        state = "ok" if r.ok else f"FAILED ({describe_status(r)}" + (f"; log {rel(r.log)})" if r.log else ")")
        return f"{r.key:32s} {r.wall_s:7.1f} s  {state}"

    def report_failures(self, stream=None):
        """Every failed boot of the runner's sweeps: its command line, status and the tail of its output."""
        stream = stream or sys.stderr
        for f in self.failed:
            print(f"{self.name}: boot {f['boot']} FAILED: {f['error']}; log {f['log']}\n  qemu: {f['qemu']}",
                  file=stream)
            for ln in f["tail"][-8:]:
                print(f"  | {ln}", file=stream)
