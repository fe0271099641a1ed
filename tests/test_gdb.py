"""GDB against a halted QEMU, the way `make qemu-gdb` + `make gdb` run it.

QEMU starts with -S and a GDB stub on a free port; gdb-multiarch attaches in
batch mode with scripts/gdb/mosaic.gdb, stops a secondary hart, looks at the
threads, the backtrace and mosaic-harts, backtraces an interrupt handler through
its trap frame, then stops the boot hart once the log has content and reads it
with mosaic-log and mosaic-bootargs. A second session stops the noc ktest
while a receiver frees a mailbox slot and reads that mailbox with mosaic-mailbox
and the mesh with mosaic-mesh. QEMU is killed at the end whatever happens
(mosaiclib.run_qemu does it in a finally); gdb's own output is kept in
build/test-logs/<test>.gdb.log.
"""
import re
import socket
import subprocess
from pathlib import Path

import mosaiclib  # noqa: E402 (conftest puts scripts/ on the path)
import pytest

ROOT = Path(__file__).resolve().parent.parent
LOG_DIR = ROOT / "build" / "test-logs"
GDB = "gdb-multiarch"
GDB_SCRIPT = ROOT / "scripts" / "gdb" / "mosaic.gdb"
KERNEL = ROOT / "build" / "mosaic.elf"
GDB_TIMEOUT = 40  # seconds for the whole gdb session
QEMU_TIMEOUT = 60  # includes the gdb session: QEMU is halted until gdb lets it run
MARK = "@@@ "  # printed by the gdb script between steps, to cut its output into sections


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gdb_batch(steps, log_path, extra_args=(), cwd=ROOT, timeout=GDB_TIMEOUT):
    """Runs gdb-multiarch -batch with mosaic.gdb and the given (label, command) steps.

    Returns {label: output of that step}; the full output goes to log_path.
    """
    cmd = [GDB, "-batch", "-nx", "-x", str(GDB_SCRIPT), *extra_args]
    for label, step in steps:
        cmd += ["-ex", f"echo {MARK}{label}\\n", "-ex", step]
    try:
        p = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        out = p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace") + f"\n[gdb killed after {timeout} s]\n"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text("# " + " ".join(cmd) + "\n" + out)
    sections = {}
    for chunk in out.split(MARK)[1:]:
        label, _, body = chunk.partition("\n")
        sections[label] = body
    return sections


def log_name(request, suffix):
    return LOG_DIR / (re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name) + suffix)


def gdb_against_qemu(boot, request, harts, bootargs, steps, kill_after=False):
    """Boots QEMU halted with a GDB stub and runs the gdb steps against it (after a 'connect' step).

    Returns (mosaiclib.RunResult, {label: output}, gdb log path). With kill_after, QEMU is
    killed as soon as gdb is done instead of running on to the end of the boot.
    """
    gdb_log = log_name(request, ".gdb.log")
    sections = {}
    qemu = {}
    for _ in range(3):
        port = free_port()  # QEMU binds it a moment later; on a clash the boot is retried with another
        sections.clear()

        def attach(proc):
            qemu["proc"] = proc
            sections.update(gdb_batch([("connect", f"target remote :{port}")] + steps, gdb_log,
                                      extra_args=[str(KERNEL)]))
            if kill_after and proc.poll() is None:
                proc.kill()

        try:
            result = boot(harts=harts, bootargs=bootargs, gdb_port=port, started=attach, timeout=QEMU_TIMEOUT)
        finally:
            proc = qemu.get("proc")
            if proc is not None and proc.poll() is None:  # run_qemu kills it already; never leave one behind
                proc.kill()
                proc.wait()
        if "Address already in use" not in result.output:
            break
        # someone took the port between free_port() and QEMU's bind: try another
    return result, sections, gdb_log


@pytest.mark.parametrize("harts", [4, 8])
def test_gdb_session(boot, request, harts):
    steps = [
        ("break1", "break hart_secondary_main"),
        ("cont1", "continue"),
        ("threads", "info threads"),
        ("bt", "bt"),
        ("harts", "mosaic-harts"),
        ("break2", "delete"),
        ("break2b", "break ipi_handle"),  # the boot hart's wake-up IPI at the end of bring-up
        ("cont2", "continue"),
        ("trapbt", "bt"),
        ("break3", "delete"),
        ("break3b", "break shell_run_script"),
        ("cont3", "continue"),
        ("log", "mosaic-log"),
        ("logtail", "mosaic-log 40"),
        ("bootargs", "mosaic-bootargs"),
        ("detach", "detach"),
    ]
    result, sections, gdb_log = gdb_against_qemu(boot, request, harts, "cmd=harts", steps)
    where = f"(gdb output in {gdb_log})"

    # stopped on a secondary hart, in hart_secondary_main
    hit = re.search(r"Thread (\d+) hit Breakpoint 1, hart_secondary_main", sections.get("cont1", ""))
    assert hit, f"no stop in hart_secondary_main {where}"
    stopped_hartid = int(hit.group(1)) - 1  # QEMU vCPU k (= hart id on virt) is GDB thread k+1

    # every hart is a thread
    threads = re.findall(r"^\*?\s+(\d+)\s+Thread 1\.\d+ ", sections["threads"], re.M)
    assert sorted(map(int, threads)) == list(range(1, harts + 1)), f"info threads {where}"

    bt = sections["bt"]
    assert "hart_secondary_main" in bt and "secondary_entry" in bt, f"bt {where}"

    # mosaic-harts: one row per hart, one boot cpu, the stopped hart's pc in hart_secondary_main
    rows = re.findall(r"^([* ])\s*(\d+)\s+(\d+)\s+(\w+)\s+(ok|-)\s+\d+\s+\d+\s+\d+\s+(\d+|-)\s*(.*)$",
                      sections["harts"], re.M)
    assert [int(r[1]) for r in rows] == list(range(harts)), f"mosaic-harts rows {where}"
    assert sum(r[0] == "*" for r in rows) == 1, f"mosaic-harts boot mark {where}"
    boot_row = next(r for r in rows if r[0] == "*")
    assert boot_row[3] == "online" and boot_row[4] == "ok", f"boot hart not online {where}"
    stopped = next(r for r in rows if int(r[2]) == stopped_hartid)
    assert stopped[0] == " " and stopped[3] == "starting", f"stopped hart's row {where}"
    assert int(stopped[5]) == stopped_hartid + 1 and "hart_secondary_main" in stopped[6], \
        f"stopped hart's thread/pc {where}"

    # in an interrupt handler, bt goes on through the trap frame into the interrupted code
    assert "hit Breakpoint 2, ipi_handle" in sections["cont2"], f"no stop in ipi_handle {where}"
    frames = re.findall(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\w+) ", sections["trapbt"], re.M)
    assert frames[:3] == ["ipi_handle", "trap_handler", "trap_vector"], f"bt in ipi_handle {where}"
    # the interrupted code (the boot hart waiting in smp_bring_up) and on to the hart's entry point
    assert "_start" in frames[3:] or "secondary_entry" in frames[3:], f"bt through the trap frame {where}"

    # later, on the boot hart: the log holds the bring-up report
    assert "hit Breakpoint 3, shell_run_script" in sections["cont3"], f"no stop in shell_run_script {where}"
    log = sections["log"]
    assert f"mosaic: {harts}/{harts} harts online" in log, f"mosaic-log {where}"
    assert log.index("mosaic: booting") < log.index("harts online"), f"mosaic-log order {where}"
    tail = sections["logtail"].rstrip("\n")
    assert len(tail) <= 40 and tail and log.rstrip("\n").endswith(tail), f"mosaic-log 40 {where}"

    boot_args = sections["bootargs"]
    assert "bootargs: 'shell=0 cmd=harts'" in boot_args, f"mosaic-bootargs line {where}"
    assert re.search(r"^\s+cmd\s+str\s+'harts'", boot_args, re.M), f"mosaic-bootargs cmd {where}"
    assert re.search(r"^\s+shell\s+u64\s+0\s", boot_args, re.M), f"mosaic-bootargs shell {where}"

    # after detach the kernel ran on to the end of its boot command
    assert result.status == 0, f"QEMU status {result.status} after detach {where}"
    assert "mosaic: done, status 0" in result.output


SLOT_ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\w+]+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
                      r"\s+(\d+)\s+(\d+)\s+(yes|in \d+ ns|\?)", re.M)


def test_gdb_mailbox_and_mesh(boot, request):
    """Stopped where a receiver frees a used slot (noc_mailbox_release), that slot is in mosaic-mailbox."""
    steps = [
        ("break", "break noc_mailbox_release"),  # called by a core on its own mailbox, the slot still used
        ("cont", "continue"),
        ("core", "printf \"core=%u\\n\", core"),
        ("slot", "printf \"slot order=%lu src=%u dst=%u tag=%d\\n\", slot->order, slot->h.src, slot->h.dst, "
                 "slot->h.tag"),
        ("mailbox", "mosaic-mailbox core"),
        ("mailbox_default", "mosaic-mailbox"),  # the selected thread is the hart that hit the breakpoint
        ("mailbox_bad", "mosaic-mailbox 99"),
        ("mesh", "mosaic-mesh"),
        # later, in the all-to-all storm, a core with messages in its unhandled-message queue
        ("break2", "delete"),
        ("break2b", "break match_unhandled if ep->uh_count >= 2"),
        ("cont2", "continue"),
        ("uh", "printf \"uh_count=%u first src=%u tag=%d\\n\", ep->uh_count, ep->uh_head->h.src, "
               "ep->uh_head->h.tag"),
        ("unhandled", "mosaic-mailbox"),
        ("kill", "kill"),
    ]
    # two-slot mailboxes: the storm's senders run out of credits and drain their own mailboxes meanwhile
    result, sections, gdb_log = gdb_against_qemu(boot, request, 4, "ktest=noc noc_depth=2", steps,
                                                 kill_after=True)
    where = f"(gdb output in {gdb_log})"
    assert re.search(r"hit Breakpoint 1, noc_mailbox_release", sections.get("cont", "")), \
        f"no stop in noc_mailbox_release {where}"
    core = int(re.search(r"core=(\d+)", sections["core"]).group(1))
    slot = re.search(r"slot order=(\d+) src=(\d+) dst=(\d+) tag=(-?\d+)", sections["slot"])
    assert slot and int(slot.group(3)) == core, f"the slot being released {where}"

    mailbox = sections["mailbox"]
    # which clock each time is on: the machine's, and under virtual time the core's own
    virtual = mosaiclib.vclock_default()
    assert re.search(rf"^core {core}: tile \({core % 2}, {core // 2}\), hart \d+; machine clock \(mtime\) now \d+ ns"
                     + ("; its virtual clock \\d+ ns$" if virtual else "$"), mailbox, re.M), \
        f"mosaic-mailbox header {where}"
    times = ("times: t_send_ns on the sender's virtual clock; t_deliver_ns and visible against "
             f"core {core}'s own virtual clock (vtime=1)" if virtual else
             "times: t_send_ns, t_deliver_ns and visible on the machine's serial clock (vtime=0)")
    assert times in mailbox, f"mosaic-mailbox clock labels {where}"
    assert re.search(r"^mailbox: depth \d+, used [1-9]\d*, events \d+, sleeping (yes|no), credit waiters",
                     mailbox, re.M), f"mosaic-mailbox mailbox line {where}"
    rows = SLOT_ROW.findall(mailbox)
    assert rows, f"no slot rows in mosaic-mailbox {where}"
    assert all(int(r[3]) == core for r in rows), f"slot dst {where}"
    orders = [int(r[0]) for r in rows]
    assert orders == sorted(orders), f"slots not in arrival order {where}"
    released = [r for r in rows if int(r[0]) == int(slot.group(1))]
    assert len(released) == 1, f"the released slot is not listed {where}"
    r = released[0]
    assert (int(r[2]), int(r[5])) == (int(slot.group(2)), int(slot.group(4))), f"src/tag of the slot {where}"
    assert r[11] == "yes", f"a message being received must be visible already {where}"
    for heading in ("unhandled messages: ", "posted receives: ", "pending sends: "):
        assert heading in mailbox, f"mosaic-mailbox: no '{heading}' {where}"
    assert sections["mailbox_default"] == mailbox, f"mosaic-mailbox without CORE {where}"
    assert "core 99 is not on the mesh (mesh.cores is 4)" in sections["mailbox_bad"], where

    mesh = sections["mesh"]
    assert mesh.startswith("mesh 2x2, XY routing, 4 cores"), f"mosaic-mesh header {where}"
    grid = re.findall(r"^y=(\d)\s+(\d+)/(\d+)(?: +\*?\d+)?\s+(\d+)/(\d+)", mesh, re.M)
    assert [(int(g[0]), int(g[1]), int(g[3])) for g in grid] == [(0, 0, 1), (1, 2, 3)], f"mosaic-mesh grid {where}"
    assert re.search(rf"^mailboxes holding messages: .*\b{core} \(\d+\)", mesh, re.M), f"mosaic-mesh busy {where}"

    # the unhandled-message queue, oldest first
    assert "hit Breakpoint 2, match_unhandled" in sections.get("cont2", ""), f"no stop in match_unhandled {where}"
    uh = re.search(r"uh_count=(\d+) first src=(\d+) tag=(-?\d+)", sections["uh"])
    text = sections["unhandled"]
    assert re.search(rf"^unhandled messages: {uh.group(1)}$", text, re.M), f"unhandled count {where}"
    table = text[text.index("unhandled messages:"):text.index("posted receives:")]
    rows = re.findall(r"^\s+(\d+)\s+(-?\d+)\s+([\w+]+)\s+(\d+)\s+(\d+)\s+(\d+)$", table, re.M)
    assert len(rows) == int(uh.group(1)), f"unhandled rows {where}"
    assert (rows[0][0], rows[0][1]) == (uh.group(2), uh.group(3)), f"first unhandled message {where}"


def test_gdb_micro_kernel_state(boot, request):
    """Stopped where a micro-kernel receives a job's spawn, mosaic-mk shows the job in its wait queue."""
    steps = [
        ("break", "break spawn_receive"),
        ("cont", "continue"),
        ("who", "printf \"dom=%u job=%u\\n\", m->dom, h->job"),
        ("mk", "mosaic-mk m->dom"),
        ("all", "mosaic-mk"),
        ("bad", "mosaic-mk 99"),
        ("kill", "kill"),
    ]
    result, sections, gdb_log = gdb_against_qemu(boot, request, 4, 'partial_sim=4 scenario="fig22 100"', steps,
                                                 kill_after=True)
    where = f"(gdb output in {gdb_log})"
    assert "hit Breakpoint 1, spawn_receive" in sections.get("cont", ""), f"no stop in spawn_receive {where}"
    who = re.search(r"dom=(\d+) job=(\d+)", sections["who"])
    text = sections["mk"]
    assert re.search(rf"^micro-kernel {who.group(1)} \(core \d+\): \d+ of 4 cores free", text, re.M), where
    assert re.search(rf"^  (wait \d+: job {who.group(2)} |job {who.group(2)}: )", text, re.M), \
        f"the spawned job is neither queued nor a job of this home {where}"
    clock = "the cores' virtual clocks (vtime=1)" if mosaiclib.vclock_default() else "the machine's serial clock (vtime=0)"
    assert f"times: a request's t (its submission, ns) on {clock}" in text, f"mosaic-mk clock label {where}"
    assert sections["all"].count("micro-kernel ") == 4, where
    assert "no micro-kernel 99 (there are 4)" in sections["bad"], where


def test_gdb_script_without_target(request, tmp_path):
    """mosaic.gdb from another directory, without the ELF argument: it finds mosaic.py and the kernel itself."""
    steps = [
        ("file", "python print('progspace', gdb.current_progspace().filename)"),
        ("help", "help user-defined"),
        ("helplog", "help mosaic-log"),
        ("ring", "python from mosaicgdb.kstate import ring_spans; print('ring', ring_spans(10, 8), ring_spans(5, 8), "
                 "ring_spans(20, 8, 3), ring_spans(16, 8, 100), ring_spans(0, 8))"),
        ("log", "mosaic-log"),
        ("mailbox", "mosaic-mailbox 0"),
        ("mesh", "mosaic-mesh"),
        ("helpmailbox", "help mosaic-mailbox"),
        # sourced again (after an edit of the package): one unwinder, and the commands still work
        ("again", "source " + str(ROOT / "scripts" / "gdb" / "mosaic.py")),
        ("unwinders", "info unwinder"),
        ("meshagain", "mosaic-mesh"),
    ]
    sections = gdb_batch(steps, log_name(request, ".gdb.log"), cwd=tmp_path)
    assert f"progspace {KERNEL}" in sections.get("file", ""), sections
    for name in ("mosaic-harts", "mosaic-log", "mosaic-bootargs", "mosaic-mailbox", "mosaic-mesh"):
        assert name + " -- " in sections["help"]
    assert "Usage: mosaic-log [N]" in sections["helplog"]
    # ring_spans: (offset, length) pieces of the ring, oldest first
    assert ("ring [(2, 6), (0, 2)] [(0, 5)] [(1, 3)] [(0, 8)] []") in sections["ring"]
    assert "not attached to QEMU" in sections["log"]
    # the ELF's initial values: no mesh yet
    for cmd in ("mailbox", "mesh"):
        assert "the mesh is not set up yet (mesh.cores is 0)" in sections[cmd], sections[cmd]
    assert "Usage: mosaic-mailbox [CORE]" in sections["helpmailbox"]
    assert sections["unwinders"].count("mosaic-trap-frame") == 1, sections["unwinders"]
    assert "the mesh is not set up yet" in sections["meshagain"], sections["meshagain"]

