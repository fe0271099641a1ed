"""One hart's stretches from entering one kernel function to its next entry of another (--path);
an entry of the first on the way starts the stretch anew.

A machine-wide profile mixes what every hart does; a latency has a path instead: on the virtual
clock the software of one step of a message chain is what its hart runs from the end of a wait
(`vtime_wait_end_active`) to the time stamp of its next send (`vtime_stamp_active`). This counts,
for each hart, every such stretch inside the profile windows and the functions its instructions
belong to, with the same corrections as the whole count (a TB cut at an I/O access or a WFI counts
to where it stopped, a TB that never ran not at all)."""
import collections

from mosaicprof.trace import TraceCounter


class PathCounter(TraceCounter):
    """A TraceCounter that also follows the stretches from `start` to `stop` (function addresses)."""

    def __init__(self, funcs, begin, end, start, stop, watch=()):
        super().__init__(funcs, begin, end, watch)
        self.start, self.stop = start, stop
        self.open_path = {}                              # cpu -> Counter of the stretch being run (pc -> n)
        self.paths = collections.Counter()               # cpu -> stretches completed
        self.path_pcs = collections.defaultdict(collections.Counter)  # cpu -> pc -> instructions
        self.undo = {}                                   # cpu -> how to take back the last TB's path event

    def _trace(self, line):
        super()._trace(line)
        cpu, _, pc, pcs, _, counted, _, _ = self.last
        undo = None
        if pc == self.stop and cpu in self.open_path:
            done = self.open_path.pop(cpu)
            self.path_pcs[cpu].update(done)
            self.paths[cpu] += 1
            undo = ("closed", done)
        if pc == self.start and counted:
            undo = ("opened", self.open_path.get(cpu), undo)
            self.open_path[cpu] = collections.Counter()
        if cpu in self.open_path and counted:
            self.open_path[cpu][pc] += len(pcs) if pcs else 1
        self.undo[cpu] = undo

    def _uncount(self, cpu, pc, n, pcs=None):
        super()._uncount(cpu, pc, n, pcs)
        if cpu in self.open_path:  # the hart's previous TB, still inside the stretch
            self.open_path[cpu][pc] -= n

    def _stopped(self, line):
        last = self.last
        super()._stopped(line)
        if not last:
            return
        cpu, pc, pcs = last[0], last[2], last[3]
        if cpu in self.open_path:
            self.open_path[cpu][pc] -= len(pcs) if pcs else 1
        undo = self.undo.pop(cpu, None)
        if undo and undo[0] == "opened":
            self.open_path.pop(cpu, None)
            if undo[1] is not None:
                self.open_path[cpu] = undo[1]
            undo = undo[2]
        if undo and undo[0] == "closed":
            self.path_pcs[cpu].subtract(undo[1])
            self.paths[cpu] -= 1
            self.open_path[cpu] = undo[1]

    def stretches(self, name_of):
        """cpu -> (stretches, Counter of function name -> instructions over all of them)."""
        out = {}
        for cpu, n in sorted(self.paths.items()):
            if n <= 0:
                continue
            funcs = collections.Counter()
            for pc, k in self.path_pcs[cpu].items():
                if k:
                    funcs[name_of(pc)] += k
            out[cpu] = (n, funcs)
        return out
