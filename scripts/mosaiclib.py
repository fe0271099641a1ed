"""Host-side helpers shared by scripts/mosaic-run, the test suite and the benchmarks.

The QEMU command line is built here and only here, so `make qemu`, `make run`,
`make test` and `make bench-*` always boot Mosaic the same way.
"""
import ctypes
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import mosaicfiles

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_KERNEL = ROOT / "build" / "mosaic.elf"
VCLOCK_PLUGIN = ROOT / "build" / "vclock" / "vclock.so"  # per-hart instruction counts (docs/time.md)
MEMWATCH_PLUGIN = ROOT / "build" / "memwatch" / "memwatch.so"  # who stored into a range (docs/debugging.md)

# Exit statuses of a run (the kernel's come from kernel/core/config.h).
EXIT_TIMEOUT = 124
EXIT_HARNESS = 125  # QEMU failed before the kernel printed anything


def max_harts():
    """MOSAIC_MAX_HARTS from kernel/core/config.h, the one source of truth."""
    text = (ROOT / "kernel" / "core" / "config.h").read_text()
    return int(re.search(r"#define MOSAIC_MAX_HARTS (\d+)", text).group(1))


def scenario_limits():
    """A scenario's limits from portable/alloc/scenario_gen.h, the one source of truth:
    {'max_jobs', 'max_bytes', 'max_line'}."""
    text = (ROOT / "portable" / "alloc" / "scenario_gen.h").read_text()
    get = lambda name: int(re.search(rf"#define {name} (\d+)", text).group(1))  # noqa: E731
    return {"max_jobs": get("SCEN_MAX_JOBS"), "max_bytes": get("SCEN_FILE_MAX"), "max_line": get("SCEN_LINE_MAX")}


def check_harts(harts):
    """Returns an error message for a hart count Mosaic cannot boot, or None."""
    limit = max_harts()
    if not 1 <= harts <= limit:
        return (f"HARTS={harts} is outside 1..{limit}: QEMU's bundled OpenSBI 1.1 keeps a {limit}-bit "
                f"hart mask and cannot start more harts")
    return None


def default_mesh(harts):
    """The most square W x H with W * H == harts and W >= H (the kernel's default)."""
    h = max(d for d in range(1, int(harts ** 0.5) + 1) if harts % d == 0)
    return harts // h, h


def check_mesh(harts, spec):
    """Returns an error message if spec ('WxH') does not fit the hart count, or None."""
    m = re.fullmatch(r"(\d+)x(\d+)", spec or "")
    if not m or int(m.group(1)) == 0 or int(m.group(2)) == 0:
        return f"MESH={spec} is not WxH (for example MESH=6x6)"
    w, h = int(m.group(1)), int(m.group(2))
    if w * h != harts:
        dw, dh = default_mesh(harts)
        return f"MESH={spec} has {w * h} tiles but HARTS={harts} (try MESH={dw}x{dh}, or HARTS={w * h})"
    return None


class VclockError(Exception):
    """The vclock plugin cannot be loaded: QEMU lacks plugin support, or the plugin is not built."""


def vclock_default():
    """Whether boots load the vclock plugin unless told otherwise: the VTIME variable (make exports it), default 1."""
    return os.environ.get("VTIME", "1") != "0"


_qemu_has_plugins = None


def qemu_supports_plugins():
    """True if qemu-system-riscv64 accepts -plugin (it is built with TCG plugin support); asked once."""
    global _qemu_has_plugins
    if _qemu_has_plugins is None:
        try:
            out = subprocess.run(["qemu-system-riscv64", "-help"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        _qemu_has_plugins = re.search(r"^-plugin ", out, re.M) is not None
    return _qemu_has_plugins


def vclock_arguments(plugin=VCLOCK_PLUGIN, accel="single", whole_blocks=False):
    """QEMU's arguments that load the vclock plugin, or VclockError with a message that says what to do.
    accel: how QEMU runs the vCPUs ('single' host thread or 'multi'); with one thread the plugin counts
    inline, without a call per segment (vclock/vclock.c). whole_blocks (one thread only): it counts the
    kernel's code in whole blocks (count=blocks), exact unless QEMU leaves a block after a device access
    (-icount) or at a watchpoint (GDB): docs/time.md, "Whole blocks"."""
    if not qemu_supports_plugins():
        raise VclockError("qemu-system-riscv64 has no TCG plugin support (no -plugin option), so it cannot load "
                          "the vclock plugin; use Debian 12's QEMU 7.2, or boot without it (VTIME=0, --no-vclock)")
    if not Path(plugin).exists():
        raise VclockError(f"the vclock plugin {plugin} is not built; run 'make', or boot without it "
                          f"(VTIME=0, --no-vclock)")
    return ["-plugin", f"{plugin},threads={accel}" + (",count=blocks" if whole_blocks and accel == "single" else "")]


def parse_watch(spec):
    """'LO:HI[:HART]' (integers, 0x for hex) as the memwatch plugin's argument string; ValueError if malformed."""
    parts = spec.split(":")
    if len(parts) not in (2, 3):
        raise ValueError(f"--watch takes LO:HI or LO:HI:HART, not {spec!r}")
    try:
        nums = [int(x, 0) for x in parts]
    except ValueError:
        raise ValueError(f"--watch: {spec!r} is not made of integers (use 0x for hex)") from None
    if any(n < 0 for n in nums) or nums[0] >= nums[1]:
        raise ValueError(f"--watch: needs 0 <= LO < HI and HART >= 0, got {spec!r}")
    arg = f"lo={nums[0]:#x},hi={nums[1]:#x}"
    return arg + (f",except={nums[2]}" if len(nums) == 3 else "")


def memwatch_arguments(watch_arg, plugin=MEMWATCH_PLUGIN):
    """QEMU's arguments that load memwatch with parse_watch()'s argument string, or VclockError."""
    if not qemu_supports_plugins():
        raise VclockError("qemu-system-riscv64 has no TCG plugin support (no -plugin option): --watch needs it")
    if not Path(plugin).exists():
        raise VclockError(f"the memwatch plugin {plugin} is not built; run 'make'")
    return ["-plugin", f"{plugin},{watch_arg}"]


def qemu_command(kernel=DEFAULT_KERNEL, harts=36, bootargs="", accel="single", icount=False, mem="256M",
                 gdb_port=None, interactive=False, vclock=None, watch=None, cpu=None, initrd=None, files=None):
    """The QEMU command line of a Mosaic boot. vclock: load the vclock plugin (None: vclock_default());
    initrd: a host file QEMU loads into guest memory and names in the device tree (-initrd), which the
    kernel reads at boot as an image of the host's files (kernel/files/files.h);
    watch: the memwatch plugin's argument string (parse_watch), or None; cpu: a -cpu model
    (None: the virt machine's default, which has every ISA extension the kernel is built for);
    files: a list of (name, host path) packed into one image of the host's files (scripts/mosaicfiles.py,
    docs/files.md) that is the initrd (ValueError for a name the kernel would refuse)."""
    if accel not in ("single", "multi"):
        raise ValueError(f"accel must be 'single' or 'multi', not {accel!r}")
    if vclock is None:
        vclock = vclock_default()
    # aclint=on adds the ACLINT SSWI device: S-mode IPIs without an SBI call (docs/boot.md)
    cmd = ["qemu-system-riscv64", "-machine", "virt,aclint=on", "-bios", "default", "-kernel", str(kernel),
           "-smp", str(harts), "-m", mem, "-no-reboot", "-accel", f"tcg,thread={accel}"]
    if cpu:
        cmd += ["-cpu", cpu]
    if files:
        if initrd is not None:
            raise ValueError("initrd and files: the initrd is the image of the files")
        initrd = mosaicfiles.image_file(files)
    if initrd is not None:
        cmd += ["-initrd", str(initrd)]
    if icount:
        # one guest instruction = 1 ns; virtual time jumps over idle periods instead of sleeping
        cmd += ["-icount", "shift=0,align=off,sleep=off"]
    if interactive:
        cmd += ["-nographic"]  # serial and monitor on the terminal; Ctrl-A X quits
    else:
        cmd += ["-display", "none", "-serial", "stdio", "-monitor", "none"]
    if gdb_port is not None:
        cmd += ["-S", "-gdb", f"tcp::{gdb_port}"]
    if vclock:
        cmd += vclock_arguments(accel=accel, whole_blocks=not icount and gdb_port is None)
    if watch:
        cmd += memwatch_arguments(watch)
    if not vclock:
        bootargs = ("vtime=0 " + bootargs).strip()  # the serial clock, said outright (the kernel's default is 1)
    if icount:
        bootargs = (bootargs + " icount=1").strip()  # tell the kernel its clock is exact
    cmd += ["-append", bootargs]
    return cmd


@dataclass
class RunResult:
    status: int
    output: str
    timed_out: bool
    wall_s: float
    marks: dict = field(default_factory=dict)  # regex -> host seconds since QEMU start of first match
    typed: list = field(default_factory=list)  # host seconds since QEMU start at which each input step was typed

    @property
    def lines(self):
        return self.output.splitlines()


def _kill_group(proc):
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=3)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


# Every QEMU that run_qemu started and that still runs. QEMU runs in a session of its own (so a Ctrl-C at the
# terminal reaches only this script, which then stops it); a SIGTERM or SIGHUP to this script (`timeout`, a
# closed terminal) would otherwise end the script and leave QEMU running on, with no one to stop it.
_live_qemus = set()
_live_lock = threading.Lock()
# The first stop signal's number: from then on the script is on its way out and no QEMU starts, in any thread.
_stopping = None
# The main thread is starting a QEMU or cleaning one up and must not be cut short: a stop signal only
# signals the QEMUs then, and is acted on (SystemExit) as soon as that part is over.
_deferring = False


def _stop_live_qemus_and_exit(signum, frame):
    """Signals every live QEMU to stop and ends the script; run_qemu's cleanup then waits for its QEMU.

    It must not wait itself: it runs between two bytecodes of the main thread, which may be inside
    Popen.wait holding that Popen's internal lock, and a second wait on it would block for ever.
    It takes no lock for the same reason (list() of a set is atomic under the GIL). A later signal
    only signals the QEMUs again, so that the cleanup under way (which ends in SIGKILL) goes on.
    """
    global _stopping
    first = _stopping is None
    if first:
        _stopping = signum
    for proc in list(_live_qemus):
        if proc.returncode is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    if first and not _deferring:
        raise SystemExit(128 + signum)


if threading.current_thread() is threading.main_thread():
    for _sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(_sig) == signal.SIG_DFL:
            signal.signal(_sig, _stop_live_qemus_and_exit)


def _raise_if_stopping():
    if _stopping is not None:
        raise SystemExit(128 + _stopping)


_PR_SET_PDEATHSIG = 1
_prctl = None


def kill_with_parent_ready():
    """Looks up prctl before a fork whose child runs kill_with_parent (a lookup after the fork could take a
    lock that another thread held)."""
    global _prctl
    if _prctl is None:
        _prctl = ctypes.CDLL(None, use_errno=True).prctl


def kill_with_parent():
    """A Popen preexec_fn (after kill_with_parent_ready): the kernel sends the child SIGKILL when the thread
    that forked it ends (Linux's PR_SET_PDEATHSIG)."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def run_qemu(cmd, timeout=60.0, log_path=None, echo=None, input_text=None, marks=(), started=None, input_steps=(),
             die_with_parent=False):
    """Runs a non-interactive QEMU, streaming its serial output; QEMU never outlives this call.

    echo: a callable given each output line as it arrives (or None).
    input_text: text written to the serial port once the kernel printed its online line.
    marks: regexes whose first matching line's host time is recorded.
    started: a callable given the Popen object once QEMU runs (tests use it to attach GDB).
    input_steps: (regex, text) pairs typed in turn after input_text: each text once a line matching its
    regex came after the previous step's (None: at once; a number: after that many seconds); the host time of each is in the result's typed.
    After a stop signal (SIGTERM, SIGHUP) it starts no QEMU and raises SystemExit, in any thread.
    die_with_parent: QEMU is killed if this process dies without cleaning up (a dask worker ended by its nanny
    or SIGKILL runs no handler; Linux only, PR_SET_PDEATHSIG).
    """
    global _deferring
    compiled = [(m, re.compile(m)) for m in marks]
    found = {}
    chunks = []
    t0 = time.monotonic()
    online = threading.Event()
    arrived = threading.Condition()
    typed = []
    main = threading.current_thread() is threading.main_thread()
    proc = thread = None

    def reader():
        for raw in iter(proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").replace("\r", "")
            now = time.monotonic() - t0
            with arrived:
                chunks.append(line)
                arrived.notify_all()
            for name, rx in compiled:
                if name not in found and rx.search(line):
                    found[name] = now
            if "harts online" in line:
                online.set()
            if echo:
                echo(line)

    timed_out = False
    if main:
        _deferring = True
    try:
        _raise_if_stopping()
        preexec = None
        if die_with_parent:
            kill_with_parent_ready()
            preexec = kill_with_parent
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=preexec)
        with _live_lock:
            _live_qemus.add(proc)
        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        if main:
            _deferring = False
        _raise_if_stopping()  # a signal that came while it started (the handler may not have seen this QEMU)
        if started:
            started(proc)
        if input_text is not None or input_steps:
            if online.wait(timeout):
                proc.stdin.write((input_text or "").encode())
                proc.stdin.flush()
                seen = 0
                for pattern, text in input_steps:
                    if isinstance(pattern, (int, float)):
                        time.sleep(pattern)
                    rx = re.compile(pattern) if isinstance(pattern, str) else None
                    with arrived:
                        while rx:
                            hit = next((i for i in range(seen, len(chunks)) if rx.search(chunks[i])), None)
                            if hit is not None:
                                seen = hit + 1
                                break
                            left = timeout - (time.monotonic() - t0)
                            if left <= 0 or proc.poll() is not None:
                                break
                            arrived.wait(min(left, 1.0))
                    if proc.poll() is not None or time.monotonic() - t0 >= timeout:
                        break
                    typed.append(time.monotonic() - t0)
                    proc.stdin.write(text.encode())
                    proc.stdin.flush()
        try:
            proc.wait(timeout=max(0.0, timeout - (time.monotonic() - t0)))
        except subprocess.TimeoutExpired:
            timed_out = True
    finally:
        if main:
            _deferring = True  # a first stop signal during the cleanup must not skip its SIGKILL or join
        if proc is not None:
            _kill_group(proc)
            with _live_lock:
                _live_qemus.discard(proc)
            try:
                proc.stdin.close()
            except OSError:
                pass
        if thread is not None:
            thread.join(timeout=5)
        if main:
            _deferring = False
    _raise_if_stopping()  # a stop signal that came during the cleanup
    output = "".join(chunks)
    wall = time.monotonic() - t0
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        Path(log_path).write_text(f"# {' '.join(cmd)}\n{output}")
    if timed_out:
        status = EXIT_TIMEOUT
    elif proc.returncode != 0 and "mosaic:" not in output:
        status = EXIT_HARNESS
    else:
        status = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
    return RunResult(status=status, output=output, timed_out=timed_out, wall_s=wall, marks=found, typed=typed)
