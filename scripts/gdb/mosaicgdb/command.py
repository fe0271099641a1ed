"""The base of Mosaic's GDB commands and the decorator that registers them."""
import gdb

COMMANDS = []  # every command made, in the order its module registered it


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
