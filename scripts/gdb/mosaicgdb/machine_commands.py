"""The commands about the machine: its harts, the kernel log, the boot arguments, the NoC mesh."""
import gdb

from mosaicgdb.command import MosaicCommand, command
from mosaicgdb.kstate import (
    checked_in, enum_names, iter_harts, mesh_cores, read_bytes, read_cstring, read_global, ring_spans,
    selection_kept, symbol_address, symbol_at, thread_pc, threads_by_hartid)


@command
class MosaicHarts(MosaicCommand):
    """List the kernel's harts: cpu, hart id, state, check-in, interrupt counts, and where each one is.

Usage: mosaic-harts

One row per entry of harts[] below hart_count. Columns:
  cpu      Mosaic's dense core id; '*' marks the boot cpu (boot_cpu)
  hartid   the platform's hart id
  state    enum hart_state (kernel/core/hart.h)
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
BOOTARG_STR in kernel/core/bootargs.h); values are read from the variables they
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
class MosaicMesh(MosaicCommand):
    """Draw the NoC mesh: the core id and hart id of every tile, and the domains.

Usage: mosaic-mesh

W x H tiles from mesh and mesh_tiles[] (drivers/noc/mesh.h); core c is at tile
(c % W, c / W). Each tile shows core/hart, then its domain, with * on the domain's
micro-kernel (layout, kernel/domain/domain.h), like the shell's `mesh` command. The last
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
