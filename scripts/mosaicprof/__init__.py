"""scripts/mosaic-prof's modules: trace.py reads the execution trace, path.py follows one hart's stretches."""
