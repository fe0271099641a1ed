"""GDB commands for Mosaic, loaded by scripts/gdb/mosaic.gdb (`make gdb`).

The file has three parts:

  * helpers that read kernel state through the debug information of
    build/mosaic.elf: globals, C strings, raw bytes, enum names, the per-hart
    table and the GDB thread (QEMU vCPU) behind each hart;
  * a frame unwinder that lets `bt` cross trap_vector into the interrupted code;
  * the commands, each a MosaicCommand subclass whose docstring is its `help`.

A new command is one more subclass at the end, registered with @command,
built from the helpers (mosaic-mailbox and mosaic-mesh are examples).
Everything is read from the kernel's own symbols and types, so the commands
follow the C code when a structure changes; the few constants that exist only
as C macros (not in the debug information) are named below.
"""
import contextlib

import gdb
import gdb.unwinder

# Macros of the kernel that -g does not put in the debug information.
HART_CHECKIN_MAGIC = 0x4D4F534149430000  # kernel/hart.h: "MOSAIC\0\0"
STRING_CHUNK = 256  # bytes read at once when looking for a C string's NUL
NOC_FLAG_XSEND = 1  # drivers/noc/noc.h: sent without flow control
NOC_ANY = -1  # drivers/noc/noc.h: wildcard source or tag of a receive
# QEMU virt: the mtime register of the CLINT / ACLINT MTIMER (0x2000000 + 0xbff8), the `time` CSR's
# source. GDB cannot read the time CSR itself; the kernel does not record the address (it only uses the CSR).
VIRT_MTIME_ADDR = 0x0200BFF8
LIST_LIMIT = 100000  # most elements a linked-list walk follows: a cycle in corrupt memory ends there


# ---------------------------------------------------------------------------
# Helpers: reading kernel state
# ---------------------------------------------------------------------------

def read_global(name):
    """The gdb.Value of a global or file-static kernel variable, by name."""
    sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    if sym is None:
        raise gdb.GdbError(f"no symbol '{name}' in the kernel's debug information: "
                           "is build/mosaic.elf loaded (file build/mosaic.elf)?")
    return sym.value()


def symbol_address(name):
    """Address of a symbol, including linker symbols that have no type (e.g. __bootargs_start)."""
    try:
        return int(gdb.parse_and_eval(f"(unsigned long)&{name}"))
    except gdb.error as e:
        raise gdb.GdbError(f"no symbol '{name}': {e}") from None


def read_bytes(addr, length):
    """length bytes of target memory at addr, in one read."""
    if length <= 0:
        return b""
    return gdb.selected_inferior().read_memory(int(addr), int(length)).tobytes()


def read_cstring(addr, limit=4096):
    """The NUL-terminated string at addr (at most limit bytes), read in chunks; None for a NULL pointer."""
    addr = int(addr)
    if addr == 0:
        return None
    out = b""
    while len(out) < limit:
        chunk = read_bytes(addr + len(out), min(STRING_CHUNK, limit - len(out)))
        nul = chunk.find(b"\0")
        if nul >= 0:
            return (out + chunk[:nul]).decode("utf-8", "replace")
        out += chunk
    return out.decode("utf-8", "replace") + "..."


def enum_names(type_name, strip_prefix=""):
    """{value: name} of a C enum, e.g. enum_names('enum hart_state', 'HART_') -> {2: 'online', ...}."""
    try:
        fields = gdb.lookup_type(type_name).strip_typedefs().fields()
    except gdb.error:
        return {}
    names = {}
    for f in fields:
        name = f.name
        if strip_prefix and name.startswith(strip_prefix):
            name = name[len(strip_prefix):].lower()
        names[f.enumval] = name
    return names


def symbol_at(addr):
    """'symbol+0xoff' for an address, or '' when no symbol covers it."""
    void_p = gdb.lookup_type("void").pointer()
    text = gdb.Value(int(addr)).cast(void_p).format_string(symbols=True)
    # "0x80201234 <smp_bring_up+92>" -> "smp_bring_up+0x5c"
    if "<" not in text:
        return ""
    sym = text[text.index("<") + 1:text.rindex(">")]
    if "+" in sym:
        name, off = sym.split("+", 1)
        return f"{name}+{int(off):#x}"
    return sym


def checked_in(hart):
    """Whether a struct hart's check-in slot holds its own id, the kernel's test for 'online'."""
    return int(hart["checkin"]) == (HART_CHECKIN_MAGIC | int(hart["hartid"]))


def iter_harts():
    """Yields (cpu, struct hart gdb.Value) for every hart the kernel manages (cpu < hart_count)."""
    table = read_global("harts")
    capacity = table.type.range()[1] + 1
    count = int(read_global("hart_count"))
    if count > capacity:
        raise gdb.GdbError(f"hart_count is {count}, more than harts[] holds ({capacity}): "
                           "the kernel has not set it up yet, or memory is corrupt")
    table.fetch_lazy()  # one bulk read of the table instead of one per field
    for cpu in range(count):
        yield cpu, table[cpu]


def hart_by_cpu(arg):
    """The struct hart of a cpu number given as a command argument (for per-hart commands)."""
    try:
        cpu = int(gdb.parse_and_eval(arg))
    except gdb.error as e:
        raise gdb.GdbError(f"not a cpu number: {arg} ({e})") from None
    count = int(read_global("hart_count"))
    if not 0 <= cpu < count:
        raise gdb.GdbError(f"cpu {cpu} is not managed by the kernel (hart_count is {count})")
    return read_global("harts")[cpu]


def read_static(filename, name):
    """A file-static variable of one source file ('kernel/msg/msg.c', 'endpoints'), even if another file
    has a static of the same name."""
    try:
        return gdb.parse_and_eval(f"'{filename}'::{name}")
    except gdb.error:
        return read_global(name)


def has_field(value_or_type, name):
    """Whether a struct (a gdb.Value or gdb.Type) has a member `name`: lets a command follow a struct
    that changed between kernel versions."""
    t = value_or_type.type if isinstance(value_or_type, gdb.Value) else value_or_type
    return any(f.name == name for f in t.strip_typedefs().fields())


def read_array(pointer, count):
    """The count elements at a C pointer as one gdb.Value array, read from the target in one go."""
    if count <= 0:
        return []
    arr = pointer.dereference().cast(pointer.type.target().array(count - 1))
    arr.fetch_lazy()
    return [arr[i] for i in range(count)]


def walk_list(head, next_field="next", limit=LIST_LIMIT):
    """Yields the elements (dereferenced) of a NULL-terminated singly linked list from a head pointer."""
    node = head
    for _ in range(limit):
        if int(node) == 0:
            return
        elem = node.dereference()
        yield elem
        node = elem[next_field]
    raise gdb.GdbError(f"list at {int(head):#x} has more than {limit} elements: a cycle?")


def msg_type_name(t):
    """A message's traffic class: 'data', 'coll', 'kernel', 'kernel+1' (enum msg_type, kernel/msg/msg.h)."""
    names = enum_names("enum msg_type", "MSG_TYPE_")
    if t in names:
        return names[t]
    kernel = next((v for v, n in names.items() if n == "kernel"), None)
    if kernel is not None and t > kernel:
        return f"kernel+{t - kernel}"
    return str(t)


def guest_time_ns():
    """Guest time in ns as the kernel's timer_now_ns() computes it, from QEMU virt's mtime register;
    None if it cannot be read. Guest time stands still while GDB holds the machine stopped."""
    try:
        ticks = int.from_bytes(read_bytes(VIRT_MTIME_ADDR, 8), "little")
        per_tick = int(read_global("timer_ns_per_tick"))
        if per_tick:
            return ticks * per_tick
        hz = int(read_global("plat")["timebase_hz"])
        return ticks * 1000000000 // hz if hz else None
    except (gdb.error, gdb.GdbError):
        return None


def mesh_cores():
    """Number of cores in the NoC mesh; raises a readable error before noc_init has set the mesh up."""
    cores = int(read_global("mesh")["cores"])
    if cores == 0:
        raise gdb.GdbError("the mesh is not set up yet (mesh.cores is 0): noc_init runs in kmain after "
                           "bring-up; continue to ktest_run or shell_run_script")
    return cores


def threads_by_hartid():
    """{hart id: GDB thread}: QEMU shows the vCPU with cpu index k (= hart id on virt) as thread k+1."""
    inferior = gdb.selected_inferior()
    if inferior.pid == 0:
        return {}  # not connected
    return {thread.ptid[1] - 1: thread for thread in inferior.threads()}


def thread_of_hartid(hartid):
    """The GDB thread of one hart, or None."""
    return threads_by_hartid().get(hartid)


def cpu_of_selected_thread():
    """The cpu (= core id) of the hart GDB has selected: its thread is QEMU vCPU hartid + 1."""
    thread = gdb.selected_thread()
    if thread is None:
        raise gdb.GdbError("no thread selected: is GDB attached to QEMU?")
    hartid = thread.ptid[1] - 1
    for cpu, h in iter_harts():
        if int(h["hartid"]) == hartid:
            return cpu
    raise gdb.GdbError(f"thread {thread.num} is hart {hartid}, which the kernel does not manage")


@contextlib.contextmanager
def selection_kept():
    """Puts the selected thread and frame back on exit: reading another hart's registers switches thread."""
    old_thread = gdb.selected_thread()
    try:
        old_frame = gdb.selected_frame()
    except gdb.error:
        old_frame = None
    try:
        yield
    finally:
        if old_thread is not None and old_thread.is_valid():
            old_thread.switch()
            if old_frame is not None and old_frame.is_valid():
                old_frame.select()


def thread_pc(thread):
    """The pc of a thread's innermost frame, or None. Switches thread: call it inside selection_kept()."""
    try:
        thread.switch()
        return int(gdb.newest_frame().pc())
    except gdb.error:
        return None


def write_table(header, rows, indent="  ", left=()):
    """Writes rows of strings under a header, each column as wide as its widest cell; columns are
    right-aligned except those whose index is in `left`."""
    width = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    for r in [header] + rows:
        cells = [str(c).ljust(w) if i in left else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, width))]
        gdb.write(indent + "  ".join(cells).rstrip() + "\n")


def ring_spans(written, size, want=None):
    """Where the last `want` bytes of a ring buffer are, as [(offset, length)] in order.

    written counts every byte ever put in the ring, so the newest byte is at
    (written - 1) % size and at most `size` bytes are still there.
    """
    available = min(written, size)
    n = available if want is None else max(0, min(want, available))
    spans = []
    pos = written - n
    while n > 0:
        off = pos % size
        length = min(n, size - off)
        spans.append((off, length))
        pos += length
        n -= length
    return spans


# ---------------------------------------------------------------------------
# Unwinding through traps
# ---------------------------------------------------------------------------

class _FrameId:
    """A frame's identity for GDB: its stack address (the sp before the frame) and its code address."""

    def __init__(self, sp, pc):
        self.sp = sp
        self.pc = pc


class TrapFrameUnwinder(gdb.unwinder.Unwinder):
    """Lets `bt` go through trap_vector (arch/riscv/entry.S) into the code a trap interrupted.

    trap_vector has no call-frame information: it saves every register in a
    struct trap_frame at sp and calls trap_handler. For the trap_vector frame
    (pc right after that call) this unwinder gives GDB the interrupted code's
    registers from the trap frame, with sepc as its pc, so a backtrace from
    panic_trap or an interrupt handler continues into the function that trapped.
    """

    REG_NAMES = ("zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
                 "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
                 "t5", "t6")

    def __init__(self):
        super().__init__("mosaic-trap-frame")
        self.vector = None  # address of trap_vector
        self.resume = None  # address right after its `call trap_handler`
        self.frame_type = None
        self.u64 = None

    def locate(self):
        """Finds trap_vector's call to trap_handler in the loaded ELF (again after `file`); never raises."""
        self.vector = self.resume = None
        try:
            self.frame_type = gdb.lookup_type("struct trap_frame")
            self.u64 = gdb.lookup_type("unsigned long")
            start = symbol_address("trap_vector")
            for insn in gdb.selected_inferior().architecture().disassemble(start, count=128):
                if "<trap_handler>" in insn["asm"]:
                    self.vector, self.resume = start, insn["addr"] + insn["length"]
                    return
        except (gdb.error, gdb.GdbError, RuntimeError):
            pass

    def __call__(self, pending_frame):
        # Runs while GDB builds frames: no symbol lookups or expression parsing here, only registers and memory.
        if self.resume is None:
            return None
        try:
            if int(pending_frame.read_register("pc")) != self.resume:
                return None
            sp = int(pending_frame.read_register("sp"))
            saved = gdb.Value(sp).cast(self.frame_type.pointer()).dereference()
            info = pending_frame.create_unwind_info(_FrameId(gdb.Value(sp + self.frame_type.sizeof).cast(self.u64),
                                                             gdb.Value(self.vector).cast(self.u64)))
            regs = saved["regs"]
            for i in range(1, 32):
                info.add_saved_register(self.REG_NAMES[i], regs[i])
            info.add_saved_register("pc", saved["sepc"])
            return info
        except gdb.error:
            return None


TRAP_UNWINDER = TrapFrameUnwinder()
TRAP_UNWINDER.locate()
gdb.unwinder.register_unwinder(None, TRAP_UNWINDER, replace=True)


def _on_new_objfile(event):
    TRAP_UNWINDER.locate()  # the ELF was (re)loaded: trap_vector may have moved


_previous_hook = globals().get("_mosaic_objfile_hook")
if _previous_hook is not None:  # this file was sourced again: keep one hook
    gdb.events.new_objfile.disconnect(_previous_hook)
_mosaic_objfile_hook = _on_new_objfile
gdb.events.new_objfile.connect(_mosaic_objfile_hook)


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

COMMANDS = []


def command(cls):
    """Class decorator: instantiating a gdb.Command registers it with GDB."""
    COMMANDS.append(cls())
    return cls


class MosaicCommand(gdb.Command):
    """Base of the project's commands: subclasses set `name` and implement run(argv)."""

    name = None

    def __init__(self):
        super().__init__(self.name, gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if gdb.selected_inferior().pid == 0:
            gdb.write(f"{self.name}: not attached to QEMU; these are the ELF file's initial values\n")
        try:
            self.run(gdb.string_to_argv(arg))
        except gdb.MemoryError as e:
            raise gdb.GdbError(f"{self.name}: {e} (is GDB attached to QEMU, and has the kernel "
                               "got that far?)") from None

    def run(self, argv):
        raise NotImplementedError


@command
class MosaicHarts(MosaicCommand):
    """List the kernel's harts: cpu, hart id, state, check-in, interrupt counts, and where each one is.

Usage: mosaic-harts

One row per entry of harts[] below hart_count. Columns:
  cpu      Mosaic's dense core id; '*' marks the boot cpu (boot_cpu)
  hartid   the platform's hart id
  state    enum hart_state (kernel/hart.h)
  checkin  'ok' when the check-in slot holds HART_CHECKIN_MAGIC | hartid
  ipis, timer, wfi   ipis_received, timer_irqs and wfi_count of the hart
  thread   the GDB thread of the hart (QEMU vCPU k is thread k+1; 'thread N' selects it)
  pc       where that thread is stopped, and QEMU's view of the vCPU (halted = in WFI)"""

    name = "mosaic-harts"

    def run(self, argv):
        if argv:
            raise gdb.GdbError("usage: mosaic-harts")
        states = enum_names("enum hart_state", "HART_")
        boot = int(read_global("boot_cpu"))
        rows = list(iter_harts())
        threads = threads_by_hartid()
        if not rows:
            gdb.write("hart_count is 0: the kernel has not filled harts[] yet (it does so early in kmain)\n")
            return
        gdb.write(f"{'cpu':>5} {'hartid':>6} {'state':<9} {'checkin':<7} {'ipis':>6} {'timer':>6} "
                  f"{'wfi':>7} {'thread':>6}  pc\n")
        with selection_kept():
            pcs = {hartid: thread_pc(t) for hartid, t in threads.items()}
        for cpu, h in rows:
            hartid = int(h["hartid"])
            state = int(h["state"])
            thread = threads.get(hartid)
            where = ""
            if pcs.get(hartid) is not None:
                pc = pcs[hartid]
                sym = symbol_at(pc)
                where = f"{pc:#x} " + (sym or "(outside the kernel: OpenSBI or the boot ROM)")
            details = getattr(thread, "details", None)  # QEMU: "CPU#k [running]" or "[halted ]"
            if details and "halted" in details:
                where += " [halted]"
            mark = "*" if cpu == boot else " "
            gdb.write(f"{mark}{cpu:>4} {hartid:>6} {states.get(state, str(state)):<9} "
                      f"{'ok' if checked_in(h) else '-':<7} {int(h['ipis_received']):>6} "
                      f"{int(h['timer_irqs']):>6} {int(h['wfi_count']):>7} "
                      f"{thread.num if thread is not None else '-':>6}  {where}\n")
        gdb.write(f"(* boot cpu {boot}; {len(rows)} harts)\n")


@command
class MosaicLog(MosaicCommand):
    """Print the kernel log (what the console printed), like the shell's dmesg.

Usage: mosaic-log [N]

Without N, prints everything still in the ring buffer klog_buf (its last
sizeof(klog_buf) bytes); with N, only the last N bytes. klog_written counts every
byte ever logged, so the ring's newest byte is at (klog_written - 1) % size."""

    name = "mosaic-log"

    def run(self, argv):
        if len(argv) > 1:
            raise gdb.GdbError("usage: mosaic-log [N]")
        want = None
        if argv:
            try:
                want = int(gdb.parse_and_eval(argv[0]))
            except gdb.error as e:
                raise gdb.GdbError(f"mosaic-log: N must be a number of bytes ({e})") from None
            if want < 0:
                raise gdb.GdbError("mosaic-log: N must not be negative")
        buf = read_global("klog_buf")
        size = buf.type.sizeof
        base = int(buf.address)
        written = int(read_global("klog_written"))
        data = b"".join(read_bytes(base + off, length) for off, length in ring_spans(written, size, want))
        text = data.decode("utf-8", "replace")
        gdb.write(text)
        if text and not text.endswith("\n"):
            gdb.write("\n")


@command
class MosaicBootargs(MosaicCommand):
    """Show the boot arguments: the device tree's line and every key the kernel declares, with its value.

Usage: mosaic-bootargs

The line is plat.bootargs (/chosen/bootargs). The keys are the struct bootarg
entries between __bootargs_start and __bootargs_end (BOOTARG_U64 and
BOOTARG_STR in kernel/bootargs.h); values are read from the variables they
set, so they are the parsed values once kmain has parsed the line."""

    name = "mosaic-bootargs"

    def run(self, argv):
        if argv:
            raise gdb.GdbError("usage: mosaic-bootargs")
        line = read_cstring(read_global("plat")["bootargs"])
        gdb.write(f"bootargs: {'(not read from the device tree yet)' if line is None else repr(line)}\n")

        entry_t = gdb.lookup_type("struct bootarg")
        start, end = symbol_address("__bootargs_start"), symbol_address("__bootargs_end")
        count = (end - start) // entry_t.sizeof
        types = enum_names("enum bootarg_type", "BOOTARG_TYPE_")
        u64_p = gdb.lookup_type("uint64_t").pointer()
        rows = []
        for i in range(count):
            ba = gdb.Value(start + i * entry_t.sizeof).cast(entry_t.pointer()).dereference()
            kind = types.get(int(ba["type"]), str(int(ba["type"])))
            if kind == "u64":
                v = int(ba["value"].cast(u64_p).dereference())
                value = str(v) if v < 1 << 32 else f"{v:#x}"
                allowed = f"{int(ba['min'])}..{int(ba['max'])}"
            elif kind == "str":
                value = repr(read_cstring(ba["value"]))
                allowed = ""
            else:
                value, allowed = "?", ""
            rows.append((read_cstring(ba["key"]) or "?", kind, value, allowed,
                         symbol_at(int(ba["value"])) or f"{int(ba['value']):#x}",
                         read_cstring(ba["help"]) or ""))
        gdb.write(f"{count} declared keys:\n")
        if not rows:
            return
        width = [max(len(r[i]) for r in rows) for i in range(5)]
        header = ("key", "type", "value", "allowed", "variable")
        width = [max(w, len(h)) for w, h in zip(width, header)]
        for r in [header] + rows:
            gdb.write("  " + "  ".join(c.ljust(w) for c, w in zip(r[:5], width)) +
                      (f"  {r[5]}" if r is not header else "  help") + "\n")


@command
class MosaicMailbox(MosaicCommand):
    """Show one core's NoC mailbox and message queues: slots in arrival order, unhandled messages,
posted receives and pending sends.

Usage: mosaic-mailbox [CORE]

CORE is a core id, or an expression (`mosaic-mailbox core` in noc_mailbox_release).
Without it, the core of the selected GDB thread (thread k is hart k-1; harts[].hartid
maps it to its core). Prints:
  the core's tile (x, y) and hart id (mesh_tiles[]), and guest time now, read from
    QEMU virt's mtime register like the kernel's timer_now_ns() (it stands still while
    GDB holds the machine);
  the mailbox noc_mailboxes[CORE] (drivers/noc/noc.h): depth (noc_params.depth), used
    slots, events, whether the owner sleeps, and the senders waiting for a credit;
  every used slot, oldest arrival (order) first: header fields, and whether the
    message is visible to the receiver yet (t_deliver_ns <= now), else how long until
    it is; free slots kept for a waiting sender are listed below;
  the core's endpoint (endpoints[CORE], kernel/msg/msg.c): the unhandled-message
    queue, the posted receives in post order, the pending sends in send order.
The endpoint is private to its core: if that core was stopped inside the message
code, a list may be half updated."""

    name = "mosaic-mailbox"

    def run(self, argv):
        cores = mesh_cores()
        if argv:
            expr = " ".join(argv)  # an expression may have spaces: mosaic-mailbox core + 1
            try:
                core = int(gdb.parse_and_eval(expr))
            except gdb.error as e:
                raise gdb.GdbError(f"mosaic-mailbox: not a core id: {expr} ({e})") from None
        else:
            core = cpu_of_selected_thread()
        if not 0 <= core < cores:
            raise gdb.GdbError(f"mosaic-mailbox: core {core} is not on the mesh (mesh.cores is {cores})")
        now = guest_time_ns()
        tile = read_global("mesh_tiles")[core]
        gdb.write(f"core {core}: tile ({int(tile['x'])}, {int(tile['y'])}), hart {int(tile['hartid'])}; "
                  + (f"guest time now {now} ns\n" if now is not None else
                     "guest time unknown (cannot read QEMU's mtime register)\n"))
        self.show_mailbox(core, now)
        self.show_endpoint(core)

    def show_mailbox(self, core, now):
        mb = read_global("noc_mailboxes")[core]
        depth = int(read_global("noc_params")["depth"])
        used = int(mb["used"])
        gdb.write(f"mailbox: depth {depth}, used {used}, events {int(mb['events'])}, "
                  f"sleeping {'yes' if int(mb['sleeping']) else 'no'}, "
                  f"credit waiters {self.credit_waiters(mb)}\n")
        if int(mb["slots"]) == 0:
            gdb.write("  no slots allocated yet (noc_init has not run for this core)\n")
            return
        slots = read_array(mb["slots"], depth)
        taken = sorted((i for i in range(depth) if bool(slots[i]["used"])), key=lambda i: int(slots[i]["order"]))
        rows = []
        for i in taken:
            h = slots[i]["h"]
            deliver = int(h["t_deliver_ns"])
            if now is None:
                visible = "?"
            elif deliver <= now:
                visible = "yes"
            else:
                visible = f"in {deliver - now} ns"
            if int(h["flags"]) & NOC_FLAG_XSEND:
                visible += " (xsend)"
            rows.append((int(slots[i]["order"]), i, int(h["src"]), int(h["dst"]), msg_type_name(int(h["type"])),
                         int(h["tag"]), int(h["len"]), int(h["seq"]), int(h["hops"]), int(h["t_send_ns"]),
                         deliver, visible))
        if rows:
            gdb.write("  used slots, oldest first:\n")
            write_table(("order", "slot", "src", "dst", "type", "tag", "len", "seq", "hops", "t_send_ns",
                         "t_deliver_ns", "visible"), rows, indent="    ", left=(4, 11))
        else:
            gdb.write("  no used slots\n")
        if len(taken) != used:
            gdb.write(f"  ({len(taken)} slots are marked used but mailbox.used is {used}: "
                      "the mailbox is in the middle of an update)\n")
        if depth and has_field(slots[0], "reserved_for"):
            for i in range(depth):
                w = int(slots[i]["reserved_for"])
                if not bool(slots[i]["used"]) and w >= 0:
                    gdb.write(f"  slot {i} is free and kept for core {w} (a credit it waited for)\n")

    @staticmethod
    def credit_waiters(mb):
        """The senders waiting for a credit of this mailbox, as text: the ring credit_queue, whose
        oldest waiter (at credit_head) gets the next freed slot."""
        if not has_field(mb, "credit_queue"):
            return "(not recorded by this kernel)"
        ring = mb["credit_queue"]
        size = ring.type.range()[1] + 1
        head, count = int(mb["credit_head"]), int(mb["credit_count"])
        waiters = [int(ring[(head + i) % size]) for i in range(min(count, size))]
        return f"(oldest first): {', '.join(map(str, waiters)) if waiters else 'none'}"

    @staticmethod
    def show_endpoint(core):
        ep = read_static("kernel/msg/msg.c", "endpoints")[core]
        unhandled = list(walk_list(ep["uh_head"]))
        count = int(ep["uh_count"])
        note = "" if count == len(unhandled) else f", uh_count says {count}: the list is being updated"
        gdb.write(f"unhandled messages: {len(unhandled)}{note}\n")
        if unhandled:
            write_table(("src", "tag", "type", "len", "seq", "t_deliver_ns"),
                        [(int(u["h"]["src"]), int(u["h"]["tag"]), msg_type_name(int(u["h"]["type"])),
                          int(u["h"]["len"]), int(u["h"]["seq"]), int(u["h"]["t_deliver_ns"])) for u in unhandled],
                        indent="    ", left=(2,))

        def any_or(v):
            return "any" if v == NOC_ANY else str(v)

        recvs = list(walk_list(ep["recv_head"]))
        gdb.write(f"posted receives: {len(recvs)}\n")
        if recvs:
            write_table(("src", "tag", "type", "buffer", "request"),
                        [(any_or(int(r["match"]["src"])), any_or(int(r["match"]["tag"])),
                          msg_type_name(int(r["match"]["type"])), f"{int(r['len'])} bytes",
                          f"{int(r.address):#x}") for r in recvs],
                        indent="    ", left=(2,))
        sends = list(walk_list(ep["send_head"]))
        gdb.write(f"pending sends: {len(sends)}\n")
        if sends:
            write_table(("peer", "tag", "type", "len", "request"),
                        [(int(r["peer"]), int(r["tag"]),
                          msg_type_name(int(r["type"])) + (" (xsend)" if int(r["xsend"]) else ""),
                          int(r["len"]), f"{int(r.address):#x}") for r in sends],
                        indent="    ", left=(2,))


@command
class MosaicMesh(MosaicCommand):
    """Draw the NoC mesh: the core id and hart id of every tile, and the domains.

Usage: mosaic-mesh

W x H tiles from mesh and mesh_tiles[] (drivers/noc/mesh.h); core c is at tile
(c % W, c / W). Each tile shows core/hart, then its domain, with * on the domain's
micro-kernel (layout, kernel/domain.h), like the shell's `mesh` command. The last
line lists the cores whose mailbox holds messages (mosaic-mailbox CORE shows them)."""

    name = "mosaic-mesh"

    def run(self, argv):
        if argv:
            raise gdb.GdbError("usage: mosaic-mesh")
        cores = mesh_cores()
        m = read_global("mesh")
        w, h = int(m["w"]), int(m["h"])
        tiles = read_global("mesh_tiles")
        tiles.fetch_lazy()
        layout = None
        try:
            layout = read_global("layout")
            if int(layout["ndomains"]) == 0:
                layout = None  # domain_init has not run yet
        except gdb.GdbError:
            pass  # a kernel without domains
        doms = ""
        if layout is not None:
            doms = f", {int(layout['ndomains'])} domains ({int(layout['dx'])}x{int(layout['dy'])})"
        gdb.write(f"mesh {w}x{h}, XY routing, {cores} cores{doms}; each tile: core/hart"
                  + (" domain, * = micro-kernel" if layout is not None else "") + "\n")
        cells = {}
        for c in range(cores):
            t = tiles[c]
            text = f"{c}/{int(t['hartid'])}"
            if layout is not None:
                d = int(layout["domain_of"][c])
                text += (" *" if int(layout["domains"][d]["master"]) == c else "  ") + str(d)
            cells[(int(t["x"]), int(t["y"]))] = text
        width = max(max(len(t) for t in cells.values()), len(f"x={w - 1}"))
        gdb.write("     " + " ".join(f"x={x}".ljust(width) for x in range(w)).rstrip() + "\n")
        for y in range(h):
            gdb.write(f"y={y:<3}" + " ".join(cells.get((x, y), "?").ljust(width) for x in range(w)).rstrip() + "\n")
        boxes = read_global("noc_mailboxes")
        busy = [f"{c} ({int(boxes[c]['used'])})" for c in range(cores) if int(boxes[c]["used"])]
        gdb.write("mailboxes holding messages: " + (", ".join(busy) if busy else "none") + "\n")


@command
class MosaicMk(MosaicCommand):
    """Print a micro-kernel's job allocation state: its wait queue and job table.

Usage: mosaic-mk [DOMAIN]

DOMAIN is a domain (micro-kernel) id; without it, every micro-kernel that has run.
Shows the free cores, the wait queue in the global order (job, home, attempt,
submission time, cores asked and committed here), the jobs submitted at this home
with their state, the jobs running on its cores, and the sequencer's queue. The
same as the shell's `mk`, from the structures in kernel/alloc/proto.h (mks[])."""

    name = "mosaic-mk"

    def run(self, argv):
        if len(argv) > 1:
            raise gdb.GdbError("usage: mosaic-mk [DOMAIN]")
        layout = read_global("layout")
        n = int(layout["ndomains"])
        if n == 0:
            gdb.write("no domains yet: domain_init has not run\n")
            return
        doms = range(n)
        if argv:
            d = int(gdb.parse_and_eval(argv[0]))
            if not 0 <= d < n:
                raise gdb.GdbError(f"mosaic-mk: no micro-kernel {d} (there are {n})")
            doms = [d]
        states = enum_names("enum home_state", "HJ_")
        mks = read_global("mks")
        for d in doms:
            m = mks[d]
            if not bool(m["ready"]):
                gdb.write(f"micro-kernel {d}: has not run yet\n")
                continue
            gdb.write(f"micro-kernel {d} (core {int(m['core'])}): {int(m['nfree'])} of "
                      f"{int(m['capacity'])} cores free, epoch {int(m['epoch'])}\n")
            for i in range(int(m["nwq"])):
                e = m["wq"][i]
                gdb.write(f"  wait {i}: job {int(e['job'])} home {int(e['home'])} attempt {int(e['attempt'])} "
                          f"t {int(e['t_submit'])} need {int(e['need'])} committed {int(e['committed'])}"
                          f"{' local' if bool(e['local']) else ''}\n")
            j = m["jobs"]
            while int(j) != 0:
                st = int(j["state"])
                gdb.write(f"  job {int(j['id'])}: {states.get(st, str(st)).lower()}, "
                          f"{int(j['spec']['ntasks'])} cores, got {int(j['got'])}, attempt {int(j['attempt'])}, "
                          f"cancels {int(j['cancels'])}\n")
                j = j["next"]
            p = m["parts"]
            while int(p) != 0:
                gdb.write(f"  running: job {int(p['job'])} (home {int(p['home'])}) on {int(p['count'])} cores, "
                          f"{int(p['done'])} ended\n")
                p = p["next"]
            if int(m["nsq"]) or int(m["seq_current"]):
                gdb.write(f"  sequencer: current job {int(m['seq_current'])}, {int(m['nsq'])} queued\n")
