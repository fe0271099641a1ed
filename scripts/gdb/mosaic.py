"""GDB commands for Mosaic, loaded by scripts/gdb/mosaic.gdb (`make gdb`).

The file has three parts:

  * helpers that read kernel state through the debug information of
    build/mosaic.elf: globals, C strings, raw bytes, enum names, the per-hart
    table and the GDB thread (QEMU vCPU) behind each hart;
  * a frame unwinder that lets `bt` cross trap_vector into the interrupted code;
  * the commands, each a MosaicCommand subclass whose docstring is its `help`.

A new command (a hart's NoC mailbox, a wait queue, ...) is one more subclass
at the end, registered with @command, built from the helpers.
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


def threads_by_hartid():
    """{hart id: GDB thread}: QEMU shows the vCPU with cpu index k (= hart id on virt) as thread k+1."""
    inferior = gdb.selected_inferior()
    if inferior.pid == 0:
        return {}  # not connected
    return {thread.ptid[1] - 1: thread for thread in inferior.threads()}


def thread_of_hartid(hartid):
    """The GDB thread of one hart, or None."""
    return threads_by_hartid().get(hartid)


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
