"""The trap-frame unwinder: lets GDB's `bt` cross trap_vector into the code a trap interrupted."""
import gdb
import gdb.unwinder

from mosaicgdb.kstate import symbol_address


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
