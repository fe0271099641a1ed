"""GDB commands for Mosaic, loaded by scripts/gdb/mosaic.gdb (`make gdb`).

The extension lives in the package next to this file, scripts/gdb/mosaicgdb/:

  * kstate.py            helpers that read kernel state through the debug information of
                         build/mosaic.elf: globals, C strings, raw bytes, enum names, the
                         per-hart table and the GDB thread (QEMU vCPU) behind each hart;
  * trap_unwinder.py     a frame unwinder that lets `bt` cross trap_vector into the
                         interrupted code;
  * command.py           MosaicCommand, the base of the commands, and @command;
  * machine_commands.py  mosaic-harts, mosaic-log, mosaic-bootargs, mosaic-mesh;
  * protocol_commands.py mosaic-mailbox, mosaic-mk.

A new command is one more MosaicCommand subclass, registered with @command and built from the
helpers; its docstring is its `help`. Sourcing this file again (after editing the package)
reloads every module and registers the commands anew.
"""
import importlib
import os
import sys

import gdb
import gdb.unwinder

# GDB 13 (Debian 12's) sets __file__ for a sourced script; mosaic.gdb also leaves the directory it found
_file = globals().get("__file__")
_here = os.path.dirname(os.path.abspath(_file)) if _file else globals().get("_mosaic_dir")
if not _here:
    raise gdb.GdbError("mosaic.py: cannot tell which directory it is in; load it through scripts/gdb/mosaic.gdb")
if _here not in sys.path:
    sys.path.insert(0, _here)

# in dependency order, so that a reload hands every module the others' new code
_MODULES = ("mosaicgdb.kstate", "mosaicgdb.trap_unwinder", "mosaicgdb.command", "mosaicgdb.machine_commands",
            "mosaicgdb.protocol_commands")
for _name in _MODULES:
    if _name in sys.modules:
        importlib.reload(sys.modules[_name])
    else:
        importlib.import_module(_name)

TRAP_UNWINDER = sys.modules["mosaicgdb.trap_unwinder"].TrapFrameUnwinder()
TRAP_UNWINDER.locate()
gdb.unwinder.register_unwinder(None, TRAP_UNWINDER, replace=True)


def _on_new_objfile(event):
    TRAP_UNWINDER.locate()  # the ELF was (re)loaded: trap_vector may have moved


_previous_hook = globals().get("_mosaic_objfile_hook")
if _previous_hook is not None:  # this file was sourced again: keep one hook
    gdb.events.new_objfile.disconnect(_previous_hook)
_mosaic_objfile_hook = _on_new_objfile
gdb.events.new_objfile.connect(_mosaic_objfile_hook)
