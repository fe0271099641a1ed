"""Reading Mosaic's kernel state from GDB through the debug information of build/mosaic.elf.

Globals, C strings, raw bytes, enum names, the per-hart table and the GDB thread (QEMU vCPU)
behind each hart, the guest's time, tables. Everything is read from the kernel's own symbols and
types, so the commands follow the C code when a structure changes; the few constants that exist
only as C macros (not in the debug information) are named here.
"""
import contextlib

import gdb

# Macros of the kernel that -g does not put in the debug information.
HART_CHECKIN_MAGIC = 0x4D4F534149430000  # kernel/core/hart.h: "MOSAIC\0\0"
STRING_CHUNK = 256  # bytes read at once when looking for a C string's NUL
NOC_FLAG_XSEND = 1  # drivers/noc/noc.h: sent without flow control
NOC_ANY = -1  # drivers/noc/noc.h: wildcard source or tag of a receive
# QEMU virt: the mtime register of the CLINT / ACLINT MTIMER (0x2000000 + 0xbff8), the `time` CSR's
# source. GDB cannot read the time CSR itself; the kernel does not record the address (it only uses the CSR).
VIRT_MTIME_ADDR = 0x0200BFF8
LIST_LIMIT = 100000  # most elements a linked-list walk follows: a cycle in corrupt memory ends there


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


def virtual_time_active():
    """Whether the kernel runs on per-core virtual clocks (vtime_active, set by vtime_start)."""
    try:
        return bool(read_global("vtime_active"))
    except (gdb.error, gdb.GdbError):
        return False


def core_clock_ns(core):
    """The clock a core's messages are timed on, as (ns, virtual): under virtual time (vtime_active) the
    core's own virtual clock, its instruction count (vclock_table, as the vclock plugin last published it)
    x vtime_ns_per_insn + vt[core].skip, as the kernel's vtime_of() computes it; else the machine's serial
    clock (guest_time_ns()); virtual says which. ns is None if it cannot be read."""
    if not virtual_time_active():
        return guest_time_ns(), False
    try:
        hartid = int(read_global("harts")[core]["hartid"])
        count = int(read_global("vclock_table")["slot"][hartid])
        skip = int(read_static("kernel/time/vtime.c", "vt")[core]["skip"])
        ns = (count * int(read_global("vtime_ns_per_insn")) + skip) % (1 << 64)
    except (gdb.error, gdb.GdbError):
        ns = None
    return ns, True


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
