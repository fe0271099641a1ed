"""bench-coll's modules: analysis (penalties, tuned against fixed, pipelining, goals) and plot."""
