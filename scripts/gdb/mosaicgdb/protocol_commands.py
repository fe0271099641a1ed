"""The commands about messages and the allocation protocol: a core's mailboxes, a micro-kernel's state."""
import gdb

from mosaicgdb.command import MosaicCommand, command
from mosaicgdb.kstate import (
    NOC_ANY, NOC_FLAG_XSEND, core_clock_ns, cpu_of_selected_thread, enum_names, guest_time_ns, has_field, mesh_cores,
    msg_type_name, read_array, read_global, read_static, virtual_time_active, walk_list, write_table)


@command
class MosaicMailbox(MosaicCommand):
    """Show one core's NoC mailbox and message queues: slots in arrival order, unhandled messages,
posted receives and pending sends.

Usage: mosaic-mailbox [CORE]

CORE is a core id, or an expression (`mosaic-mailbox core` in noc_mailbox_release).
Without it, the core of the selected GDB thread (thread k is hart k-1; harts[].hartid
maps it to its core). Prints:
  the core's tile (x, y) and hart id (mesh_tiles[]); the machine's clock now, read from
    QEMU virt's mtime register like the kernel's timer_now_ns() (it stands still while
    GDB holds the machine); under virtual time (vtime=1) also the core's own virtual
    clock (its instruction count as the vclock plugin last published it, and its skip);
  which clock the times below are on: a message's t_send_ns is its sender's clock and
    t_deliver_ns is compared with the receiver's, the core's virtual clock under vtime=1
    and the machine's clock under vtime=0;
  the mailbox noc_mailboxes[CORE] (drivers/noc/noc.h): depth (noc_params.depth), used
    slots, events, whether the owner sleeps, and the senders waiting for a credit;
  every used slot, oldest arrival (order) first: header fields, and whether the
    message is visible to the receiver yet (t_deliver_ns <= the core's clock), else how
    long until it is; free slots kept for a waiting sender are listed below;
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
        machine = guest_time_ns()
        own, virtual = core_clock_ns(core)
        tile = read_global("mesh_tiles")[core]
        gdb.write(f"core {core}: tile ({int(tile['x'])}, {int(tile['y'])}), hart {int(tile['hartid'])}; "
                  + (f"machine clock (mtime) now {machine} ns" if machine is not None else
                     "machine clock unknown (cannot read QEMU's mtime register)")
                  + ((f"; its virtual clock {own} ns" if own is not None else "; its virtual clock unknown")
                     if virtual else "") + "\n")
        gdb.write(f"times: t_send_ns on the sender's virtual clock; t_deliver_ns and visible against core {core}'s "
                  "own virtual clock (vtime=1)\n" if virtual else
                  "times: t_send_ns, t_deliver_ns and visible on the machine's serial clock (vtime=0)\n")
        self.show_mailbox(core, own)
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
class MosaicMk(MosaicCommand):
    """Print a micro-kernel's job allocation state: its wait queue and job table.

Usage: mosaic-mk [DOMAIN]

DOMAIN is a domain (micro-kernel) id; without it, every micro-kernel that has run.
Shows the free cores, the wait queue in the global order (job, home, attempt,
submission time, cores asked and committed here), the jobs submitted at this home
with their state, the jobs running on its cores, and the sequencer's queue. The
same as the shell's `mk`, from the structures in kernel/alloc/proto.h (mks[]), after
a times: line naming the clock of the submission times (the cores' virtual clocks
under vtime=1, the machine's serial clock under vtime=0)."""

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
        gdb.write("times: a request's t (its submission, ns) on the cores' virtual clocks (vtime=1)\n"
                  if virtual_time_active() else
                  "times: a request's t (its submission, ns) on the machine's serial clock (vtime=0)\n")
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
