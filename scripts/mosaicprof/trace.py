"""Reading QEMU's execution trace for scripts/mosaic-prof: the kernel's symbols and source lines,
and a counter of the guest instructions each hart runs inside the profile windows."""
import bisect
import collections
import re
import subprocess

import mosaiclib

USER = "<user program>"


def user_range():
    """USER_BASE and USER_SPAN from arch/riscv/mmu.h, the one source of truth."""
    text = (mosaiclib.ROOT / "arch" / "riscv" / "mmu.h").read_text()
    base = int(re.search(r"#define USER_BASE (0x[0-9a-fA-F]+)", text).group(1), 16)
    m = re.search(r"#define USER_SPAN \((\d+)ULL << (\d+)\)", text)
    return base, int(m.group(1)) << int(m.group(2))


def source_lines(kernel, addrs):
    """Address -> "file:line" of the code there (the innermost inlined function's line), by addr2line."""
    addrs = sorted(addrs)
    r = subprocess.run(["riscv64-unknown-elf-addr2line", "-e", str(kernel)], input="".join(f"0x{a:x}\n" for a in addrs),
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"mosaic-prof: addr2line failed on {kernel}: {r.stderr.strip()}")
    root = str(mosaiclib.ROOT) + "/"
    out = {}
    for a, line in zip(addrs, r.stdout.splitlines()):
        line = line.split(" (discriminator")[0].replace(root, "")
        out[a] = line[2:] if line.startswith("./") else line
    return out


def line_text(where):
    """The source text of "file:line", stripped (empty if it cannot be read)."""
    path, _, num = where.rpartition(":")
    try:
        return (mosaiclib.ROOT / path).read_text().splitlines()[int(num) - 1].strip()
    except (OSError, ValueError, IndexError):
        return ""


def kernel_symbols(kernel):
    """Sorted (address, name) of the kernel's functions, and the text section's bounds."""
    r = subprocess.run(["riscv64-unknown-elf-nm", "-n", str(kernel)], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"mosaic-prof: cannot read the symbols of {kernel}: {r.stderr.strip()}")
    out = r.stdout
    funcs, marks = [], {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        addr, kind, name = int(parts[0], 16), parts[1], parts[2]
        if name in ("__text_start", "__text_end", "prof_begin", "prof_end"):
            marks[name] = addr
        if kind in "tTwW":
            funcs.append((addr, name))
    missing = [n for n in ("__text_start", "__text_end", "prof_begin", "prof_end") if n not in marks]
    if missing:
        raise SystemExit(f"mosaic-prof: {kernel} has no {', '.join(missing)}: rebuild it with 'make'")
    funcs.sort()
    return funcs, marks


CF_LAST_IO = 0x8000  # QEMU's cflags bit of a TB re-made to end at an I/O access (cpu_io_recompile)


class TraceCounter:
    """Reads QEMU's in_asm+exec log as it is written and counts instructions inside windows.

    Two corrections keep the count exact. A TB whose trace line is followed by "Stopped
    execution of TB chain before" did not run at all (the icount budget ran out first).
    A TB cut at an I/O access (under -icount an MMIO access must end its TB) ran only up to
    that access: its hart's next TB is the access alone, flagged CF_LAST_IO. Likewise a TB
    whose WFI halted its hart ran only up to the WFI: the hart goes on right after it.
    """

    def __init__(self, funcs, begin, end, watch=()):
        self.addrs = [a for a, _ in funcs]
        self.names = [n for _, n in funcs]
        self.begin, self.end = begin, end
        self.pending = {}        # pc -> (instruction addresses, index of a wfi or None) of the TB just made
        self.tb_pcs = {}         # host TB pointer -> (instruction addresses, index of a wfi or None)
        self.open = 0            # windows open now, over all harts
        self.windows = 0
        self.unbalanced = 0      # prof_end seen with no window open
        self.unsized = 0         # TBs whose size was not in the log (counted as 1)
        self.by_pc = collections.Counter()
        self.runs = collections.Counter()  # TB start pc -> times it ran inside a window (for --blocks)
        self.watch = sorted(watch)         # (lo, hi) address ranges counted per instruction (for --lines)
        self.by_insn = collections.Counter()  # instruction address -> times it ran, inside self.watch
        self.by_hart = collections.Counter()
        self.starts = set(self.addrs)
        self.entries = collections.Counter()  # (cpu, function address) -> times entered at its first instruction
        self.last = None         # the last TB traced: (cpu, ptr, pc, pcs, wfi, counted, opened, closed)
        self.last_by_hart = {}
        self.stopped_mismatch = 0  # "Stopped execution" lines that named another TB than the last one

    def _watched(self, pc):
        return any(lo <= pc < hi for lo, hi in self.watch)

    def _uncount(self, cpu, pc, n, pcs=None):
        """Takes back the last n instructions of the TB at pc (pcs: its instruction addresses)."""
        self.by_pc[cpu, pc] -= n
        self.by_hart[cpu] -= n
        if pcs and self.watch and self._watched(pc):
            for a in pcs[len(pcs) - n:]:
                self.by_insn[a] -= 1

    def _trace(self, line):
        colon = line.index(":")
        cpu = int(line[6:colon])
        ptr, fields = line[colon + 2:].split(" [", 1)
        parts = fields.split("/", 4)
        pc, cflags = int(parts[1], 16), int(parts[3][:8], 16)
        tb = self.pending.pop(pc, None)
        if tb is not None:
            self.tb_pcs[ptr] = tb
        else:
            tb = self.tb_pcs.get(ptr)
        pcs, wfi = tb if tb else (None, None)
        prev = self.last_by_hart.get(cpu)
        if prev and prev[5] and prev[3]:
            ppcs, pwfi = prev[3], prev[4]
            if cflags & CF_LAST_IO and pc in ppcs:
                # the previous TB stopped at this I/O access, which now runs as a TB of its own
                self._uncount(cpu, prev[2], len(ppcs) - ppcs.index(pc), ppcs)
            elif pwfi is not None and pwfi + 1 < len(ppcs) and pc == ppcs[pwfi + 1]:
                # the previous TB's WFI halted the hart, which now goes on after it
                self._uncount(cpu, prev[2], len(ppcs) - pwfi - 1, ppcs)
        opened = closed = False
        if pc == self.begin:
            self.open += 1
            self.windows += 1
            opened = True
        counted = self.open > 0
        if counted:
            if pcs is None:
                self.unsized += 1
            n = len(pcs) if pcs else 1
            self.by_pc[cpu, pc] += n
            self.by_hart[cpu] += n
            self.runs[pc] += 1
            if pcs and self.watch and self._watched(pc):
                for a in pcs:
                    self.by_insn[a] += 1
            if pc in self.starts:
                self.entries[cpu, pc] += 1
        if pc == self.end:
            if self.open:
                self.open -= 1
                closed = True
            else:
                self.unbalanced += 1
        self.last = (cpu, ptr, pc, pcs, wfi, counted, opened, closed)
        self.last_by_hart[cpu] = self.last

    def _stopped(self, line):
        """The last TB traced never ran: take back what its trace line did."""
        if not self.last or line.split("before ", 1)[1].split(" ", 1)[0] != self.last[1]:
            self.stopped_mismatch += 1
            return
        cpu, ptr, pc, pcs, wfi, counted, opened, closed = self.last
        if counted:
            self._uncount(cpu, pc, len(pcs) if pcs else 1, pcs)
            self.runs[pc] -= 1
            if pc in self.starts:
                self.entries[cpu, pc] -= 1
        if opened:
            self.open -= 1
            self.windows -= 1
        if closed:
            self.open += 1
        self.last = None
        self.last_by_hart[cpu] = None

    def feed(self, stream):
        block, wfi = None, None  # the TB being read from the in_asm log: addresses, index of a wfi
        for line in stream:
            c = line[:1]
            if c == "0" and line.startswith("0x"):
                if block is None:
                    block, wfi = [], None
                if wfi is None and " wfi " in line + " ":
                    wfi = len(block)
                block.append(int(line[:line.index(":")], 16))
                continue
            if block:
                self.pending[block[0]] = (block, wfi)
                block = None
            if c == "T" and line.startswith("Trace "):
                self._trace(line)
            elif c == "S" and line.startswith("Stopped execution"):
                self._stopped(line)

    def calls(self, hart=None):
        """Function name -> times entered at its first instruction (a call, or a jump to it)."""
        out = collections.Counter()
        for (cpu, pc), n in self.entries.items():
            if hart is None or cpu == hart:
                out[self.names[bisect.bisect_right(self.addrs, pc) - 1]] += n
        return out

    def blocks_of(self, name):
        """(start pc, instructions counted, runs) of each TB that starts in function `name`."""
        out = collections.Counter()
        for (_, pc), n in self.by_pc.items():
            i = bisect.bisect_right(self.addrs, pc) - 1
            if i >= 0 and self.names[i] == name:
                out[pc] += n
        return sorted((pc, n, self.runs[pc]) for pc, n in out.items() if n)

    def function_of(self, pc, user_lo, user_hi):
        """The name of the kernel function at pc, or USER inside the user programs' range."""
        if user_lo <= pc < user_hi:
            return USER
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.names[i] if i >= 0 else f"<0x{pc:x}>"

    def by_function(self, user_lo, user_hi, hart=None):
        out = collections.Counter()
        for (cpu, pc), n in self.by_pc.items():
            if hart is None or cpu == hart:
                out[self.function_of(pc, user_lo, user_hi)] += n
        return out
