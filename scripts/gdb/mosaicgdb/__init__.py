"""Mosaic's GDB extension; scripts/gdb/mosaic.py loads it (docs/debugging.md)."""
