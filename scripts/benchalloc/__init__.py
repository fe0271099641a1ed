"""benchalloc: the modules of scripts/bench-alloc, the thesis's job allocation experiments (Figs. 5.1-5.6).

Why a package: one script of 2,400 lines did everything; each module here has one job (docs/benchmarks.md lists
them). scripts/bench-alloc puts scripts/ on sys.path and imports them, as it does scripts/mosaiclib.py.
"""
