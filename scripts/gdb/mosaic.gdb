# GDB setup for Mosaic, loaded by `make gdb`:
#   gdb-multiarch -q -x scripts/gdb/mosaic.gdb -ex "target remote :PORT" build/mosaic.elf
# It works from any directory (e.g. -x /path/to/mosaic/scripts/gdb/mosaic.gdb)
# and loads build/mosaic.elf itself when no program was given.
# Commands it adds (help <name> for each): mosaic-harts, mosaic-log, mosaic-bootargs,
# mosaic-mailbox, mosaic-mesh, mosaic-mk.
# See docs/debugging.md.

set architecture riscv:rv64
set pagination off
set confirm off
set width 0
set print pretty on
set print symbol on
# QEMU's gdbstub can be slow to answer with many harts on a busy host.
set remotetimeout 30

python
import os

def _mosaic_script_dir():
    """Directory of this file: GDB does not tell a sourced script its own path, so find it."""
    # 1. the -x / --command / -ex "source ..." argument that named this file
    try:
        with open("/proc/self/cmdline", "rb") as f:
            argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        argv = []
    for arg in argv:
        for word in arg.replace("=", " ").split():
            if os.path.basename(word) == "mosaic.gdb" and os.path.isfile(word):
                return os.path.dirname(os.path.abspath(word))
    # 2. next to the kernel ELF: <root>/build/mosaic.elf -> <root>/scripts/gdb
    elf = gdb.current_progspace().filename
    if elf:
        guess = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(elf))), "scripts", "gdb")
        if os.path.isfile(os.path.join(guess, "mosaic.py")):
            return guess
    # 3. started from the repository root
    guess = os.path.join(os.getcwd(), "scripts", "gdb")
    if os.path.isfile(os.path.join(guess, "mosaic.py")):
        return guess
    return None

_mosaic_dir = _mosaic_script_dir()
if _mosaic_dir is None:
    gdb.write("mosaic.gdb: cannot find scripts/gdb/mosaic.py; "
              "load it with: source /path/to/mosaic/scripts/gdb/mosaic.py\n", gdb.STDERR)
else:
    _mosaic_elf = os.path.join(os.path.dirname(os.path.dirname(_mosaic_dir)), "build", "mosaic.elf")
    if gdb.current_progspace().filename is None:
        if os.path.isfile(_mosaic_elf):
            gdb.execute("file " + _mosaic_elf)
        else:
            gdb.write(f"mosaic.gdb: no program given and no {_mosaic_elf}: run make first\n", gdb.STDERR)
    gdb.execute("source " + os.path.join(_mosaic_dir, "mosaic.py"))
end
