# Mosaic: build, boot, debug, test and benchmark. `make help` lists everything.

HARTS    ?= 36
MESH     ?=
BOOTARGS ?=
ACCEL    ?= single
ICOUNT   ?= 0
MEM      ?= 256M
TIMEOUT  ?= 120
GDBPORT  ?= $(shell echo $$((26000 + $$(id -u) % 5000)))
PYTEST_ARGS ?=
VTIME    ?= 1
SEEDS    ?= 20
SEED0    ?=
FUZZ_ARGS ?=
SCENARIO ?=
PROGRAMS ?=
# handed to recipes through the environment, so quotes inside BOOTARGS survive
export BOOTARGS
# read by scripts/mosaiclib.py: 0 boots without the vclock plugin
export VTIME

CROSS    ?= riscv64-unknown-elf-
CC       := $(CROSS)gcc
NM       := $(CROSS)nm
OBJDUMP  := $(CROSS)objdump
OBJCOPY  := $(CROSS)objcopy
READELF  := $(CROSS)readelf
GDB      ?= gdb-multiarch

# The hart limit has one source of truth: kernel/core/config.h.
MAX_HARTS := $(shell sed -n 's/^\#define MOSAIC_MAX_HARTS \([0-9]*\).*/\1/p' kernel/core/config.h)

# DEBUG=1: a kernel for GDB (-Og -fno-inline, text not packed into pages) in build/debug, beside the normal one;
# the host's tools (plugins, simulator, checker) and the run log stay in build/ either way
DEBUG    ?= 0
OUT      := build
BUILD    := $(if $(filter 1,$(DEBUG)),$(OUT)/debug,$(OUT))
KERNEL_OPT := $(if $(filter 1,$(DEBUG)),-Og -fno-inline,-O2)
KERNEL   := $(BUILD)/mosaic.elf

# The vclock QEMU plugin (per-hart instruction counts, docs/time.md), built for the host.
HOSTCC   ?= gcc
VCLOCK   := $(OUT)/vclock/vclock.so
VCLOCK_SRCS := vclock/vclock.c vclock/decode.c
VCLOCK_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden -I.
# The memwatch QEMU plugin (which hart stored into a range, docs/debugging.md), for the host.
MEMWATCH := $(OUT)/memwatch/memwatch.so

# ISA extensions the kernel is compiled for beyond rv64imac: QEMU 7.2's virt harts have them, and
# min/max without a branch (Zbb) made the virtual clock's bookkeeping 7 % cheaper in host time
# (docs/time.md). arch/riscv/entry.S probes each at boot: change both together.
KERNEL_ISA_EXTS := zba zbb zbs
CFLAGS := -std=c11 $(KERNEL_OPT) -g -Wall -Wextra -Werror \
	-march=rv64imac_zicsr_zifencei$(subst $(eval) ,,$(foreach e,$(KERNEL_ISA_EXTS),_$(e))) -mabi=lp64 -mcmodel=medany \
	-ffreestanding -fno-builtin-printf -fno-stack-protector -fno-pie \
	-fno-omit-frame-pointer -fno-optimize-sibling-calls -fno-toplevel-reorder \
	-ffunction-sections -I. -MMD -MP
# -ffunction-sections and -L$(BUILD): linker.ld INCLUDEs $(BUILD)/text_layout.ld, written by
# scripts/pack-text, which keeps every function within a page it fits in (docs/time.md,
# "Text packed into pages")
LDFLAGS := -nostdlib -static -no-pie -Wl,-L,$(BUILD) -Wl,-T,linker.ld -Wl,--no-warn-rwx-segments

# User programs: separate ELF files linked at USER_BASE against picolibc, embedded in the kernel.
# They have the FPU (rv64gc = imafd_zicsr_zifencei + c, the lp64d ABI: picolibc's rv64imafdc/lp64d
# multilib); the kernel saves and restores their FP state (docs/microkernel.md) and stays integer-only.
USER_PROGRAMS := hello kcalls fault badptr marker coll isort stencil ring compute invtest ploop breakeven hostile fuzz shmtest shmbench spmd jobspawn fpu args mpitest mpibench
USER_CFLAGS := --specs=picolibc.specs -std=c11 -O2 -g -Wall -Wextra -Werror \
	-march=rv64gc -mabi=lp64d -mcmodel=medany -fno-pie -Iuser
# user/include first: picolibc's headers with what Mosaic's runtime adds (the POSIX clocks)
USER_CFLAGS += -Iuser/include
# What scripts/mosaic-cc reads (make -s user-build-vars) to build a program outside the tree as
# the rule below builds the tree's own: the compiler, the flags, the link and the runtime's files,
# and the MPI library's (MPI_LIB, where the Makefile has one).
USER_LDFLAGS := -nostartfiles -static -T user/user.ld
USER_LINK_SRCS := user/crt0.S user/runtime.c
USER_ELFS := $(patsubst %,$(BUILD)/user/%.elf,$(USER_PROGRAMS))
USER_RUNTIME := user/crt0.S user/runtime.c user/mosaic.h user/job.h user/user.ld user/include/time.h \
	portable/abi/kcalls.h portable/abi/errors.h portable/abi/types.h

KERNEL_DIRS := arch/riscv kernel/core kernel/time kernel/mm kernel/console kernel/domain kernel/kcall kernel/task kernel/task/share kernel/msg kernel/dispatch kernel/alloc kernel/files kernel/bench portable/alloc portable/noc portable/mesh drivers drivers/noc lib tests/ktest
SRCS := $(foreach d,$(KERNEL_DIRS),$(wildcard $(d)/*.c) $(wildcard $(d)/*.S))
OBJS := $(patsubst %,$(BUILD)/%.o,$(basename $(SRCS))) $(BUILD)/user_programs.o

# Every boot runs on per-core virtual clocks (the kernel's default, vtime=1) unless VTIME=0, which
# boots without the vclock plugin and with vtime=0 (mosaic-run adds it; docs/time.md). For make
# qemu, qemu-gdb and run it is said outright; a vtime=0 in BOOTARGS still wins, since the last of a
# repeated boot argument counts
VTIME_BOOTARG := $(if $(filter 0,$(VTIME)),,vtime=1 )
RUN := python3 scripts/mosaic-run --kernel $(KERNEL) --harts $(HARTS) --accel $(ACCEL) --mem $(MEM) \
	$(if $(filter 1,$(ICOUNT)),--icount) $(if $(MESH),--mesh $(MESH)) $(if $(filter 0,$(VTIME)),--no-vclock) \
	$(if $(SCENARIO),--scenario $(SCENARIO)) $(foreach p,$(PROGRAMS),--program $(p))

# a recipe that fails (pack-text --check, gen-ksyms --check) leaves no target that make would take as built
.DELETE_ON_ERROR:

.PHONY: sim bench-sim all deps normal-kernel check-harts qemu qemu-gdb gdb run test fuzz sim-check sim-stress sim-mutants bench-boot bench-noc bench-kernel bench-alloc bench-invade bench-shm bench-coll bench-balance bench-vtime bench-mpi results reference prof clean help

all: deps $(KERNEL) $(VCLOCK) $(MEMWATCH)

$(VCLOCK): $(VCLOCK_SRCS) $(wildcard vclock/*.h) Makefile
	@mkdir -p $(dir $@)
	$(HOSTCC) $(VCLOCK_CFLAGS) -o $@ $(VCLOCK_SRCS)

$(MEMWATCH): memwatch/memwatch.c vclock/qemu_plugin_api.h Makefile
	@mkdir -p $(dir $@)
	$(HOSTCC) $(VCLOCK_CFLAGS) -o $@ memwatch/memwatch.c

deps:
	@scripts/deps

# the suite, the fuzzer, the benchmarks and the profiler boot build/mosaic.elf, the normal kernel
normal-kernel:
	@if [ "$(DEBUG)" = 1 ]; then echo "error: this target boots build/mosaic.elf, the normal kernel: run it without \
	DEBUG=1 (tests/test_debug_build.py boots the DEBUG=1 one)" >&2; exit 2; fi

check-harts:
	@if ! [ "$(HARTS)" -ge 1 ] 2>/dev/null || [ "$(HARTS)" -gt $(MAX_HARTS) ]; then \
		echo "error: HARTS=$(HARTS) is outside 1..$(MAX_HARTS): QEMU's bundled OpenSBI 1.1 keeps a $(MAX_HARTS)-bit hart mask and cannot start more harts" >&2; \
		exit 2; fi

$(BUILD)/user/%.elf: user/%.c $(USER_RUNTIME) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(USER_LDFLAGS) -o $@ $(USER_LINK_SRCS) $<

.PHONY: user-build-vars
user-build-vars:
	@echo 'CC=$(CC)'
	@echo 'USER_CFLAGS=$(USER_CFLAGS)'
	@echo 'USER_LDFLAGS=$(USER_LDFLAGS)'
	@echo 'USER_LINK_SRCS=$(USER_LINK_SRCS)'
	@echo 'USER_MPI_SRCS=$(MPI_LIB)'

# MPI programs link the MPI library (user/mpi*.c, docs/mpi.md)
MPI_LIB := user/mpi.c user/mpi_p2p.c user/mpi_coll.c user/mpi_op.c
MPI_PROGRAMS := mpitest mpibench
$(patsubst %,$(BUILD)/user/%.elf,$(MPI_PROGRAMS)): $(BUILD)/user/%.elf: user/%.c $(MPI_LIB) user/mpi.h user/mpi_impl.h $(USER_RUNTIME) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -nostartfiles -static -T user/user.ld -o $@ user/crt0.S user/runtime.c $(MPI_LIB) $<

# the fuzzer is one translation unit split into headers
$(BUILD)/user/fuzz.elf: $(wildcard user/fuzz_*.h)

# The table of embedded programs (kernel/task/utask.h: user_programs[]).
$(BUILD)/user_programs.S: $(USER_ELFS) Makefile
	@{ echo '/* generated by the Makefile: the user programs embedded in the kernel */'; \
	  for p in $(USER_PROGRAMS); do \
	    $(OBJCOPY) --dump-section .mosaic.about=$(BUILD)/user/$$p.about $(BUILD)/user/$$p.elf /dev/null || \
	      { echo "user/$$p.c has no MOSAIC_ABOUT (user/mosaic.h)" >&2; exit 1; }; \
	    printf '\t.section .rodata\n\t.balign 8\nprog_%s:\n\t.incbin "%s"\nprog_%s_end:\nname_%s:\n\t.asciz "%s"\nabout_%s:\n\t.incbin "%s"\n' \
	      $$p $(BUILD)/user/$$p.elf $$p $$p $$p $$p $(BUILD)/user/$$p.about; done; \
	  printf '\t.balign 8\n\t.globl user_programs, user_program_count\nuser_programs:\n'; \
	  for p in $(USER_PROGRAMS); do printf '\t.quad name_%s, prog_%s, prog_%s_end, about_%s\n' $$p $$p $$p $$p; done; \
	  printf 'user_program_count:\n\t.word %s\n' $(words $(USER_PROGRAMS)); } > $@

$(BUILD)/user_programs.o: $(BUILD)/user_programs.S
	$(CC) $(CFLAGS) -c $< -o $@

# every object depends on the flags, which live here
$(OBJS): Makefile
# nothing is compiled before scripts/deps has installed the compilers (make -j)
$(OBJS) $(USER_ELFS) $(VCLOCK) $(MEMWATCH): | deps

$(BUILD)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.S Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# Two links: the first without the kernel's symbol table, the second with it
# (it sits after all code, so no function moves; gen-ksyms --check proves it).
$(BUILD)/text_layout.ld: $(OBJS) scripts/pack-text
ifeq ($(DEBUG),1)
	echo '/* DEBUG=1: functions in link order, not packed into pages */' > $@
else
	scripts/pack-text --readelf $(READELF) $(OBJS) > $@.tmp
	mv $@.tmp $@
endif

$(KERNEL): $(OBJS) linker.ld scripts/gen-ksyms scripts/pack-text $(BUILD)/text_layout.ld
	@mkdir -p $(BUILD)
	scripts/gen-ksyms --empty > $(BUILD)/ksyms_empty.S
	$(CC) $(CFLAGS) -c $(BUILD)/ksyms_empty.S -o $(BUILD)/ksyms_empty.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $(BUILD)/mosaic.pass1.elf $(OBJS) $(BUILD)/ksyms_empty.o
	scripts/gen-ksyms --nm $(NM) $(BUILD)/mosaic.pass1.elf > $(BUILD)/ksyms_table.S
	$(CC) $(CFLAGS) -c $(BUILD)/ksyms_table.S -o $(BUILD)/ksyms_table.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(BUILD)/ksyms_table.o
	scripts/gen-ksyms --nm $(NM) --check $@ $(BUILD)/ksyms_table.S
	$(if $(filter 1,$(DEBUG)),,scripts/pack-text --nm $(NM) --check $@)
	$(OBJDUMP) -d -S $@ > $(BUILD)/mosaic.asm
	$(NM) -n $@ > $(BUILD)/mosaic.sym
	@echo "built $@ (disassembly $(BUILD)/mosaic.asm, symbols $(BUILD)/mosaic.sym)"

qemu: check-harts all
	$(RUN) --interactive --bootargs "$(VTIME_BOOTARG)$$BOOTARGS"

qemu-gdb: check-harts all
	@echo "QEMU is halted with a GDB stub on port $(GDBPORT). In another terminal: make gdb GDBPORT=$(GDBPORT)$(if $(filter 1,$(DEBUG)), DEBUG=1)"
	$(RUN) --interactive --gdb $(GDBPORT) --bootargs "$(VTIME_BOOTARG)$$BOOTARGS"

gdb:
	$(GDB) -q -x scripts/gdb/mosaic.gdb -ex "target remote :$(GDBPORT)" $(KERNEL)

run: check-harts all
	$(RUN) --timeout $(TIMEOUT) --log $(OUT)/run.log --bootargs "$(VTIME_BOOTARG)$$BOOTARGS"

test: normal-kernel all
	python3 -m pytest tests $(PYTEST_ARGS)

# SEEDS seeds of the kernel-call fuzzer from SEED0 on (default: a random first seed, printed)
fuzz: normal-kernel all
	python3 scripts/mosaic-fuzz --seeds $(SEEDS) $(if $(SEED0),--seed $(SEED0)) $(FUZZ_ARGS)

# The protocol checker (checker/, docs/checking.md): host programs over the portable core.
CHECK_DIR := $(OUT)/checker
HOST_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -I.
CORE_SRCS := $(wildcard portable/alloc/*.c) portable/noc/centre.c
CHECK_DEPS := $(CORE_SRCS) $(wildcard portable/alloc/*.h) portable/noc/centre.h $(wildcard checker/*.h) lib/bits.h Makefile
CHECK_COMMON := checker/env.c checker/invariants.c checker/arena.c checker/dump.c
CHECK_ARGS ?=
STRESS_ARGS ?=
MUTANT ?=
# make fuzz's SEEDS defaults to 20; sim-stress takes SEEDS only when it is given
STRESS_SEEDS := $(if $(filter command line environment,$(origin SEEDS)),$(SEEDS),100000)

$(CHECK_DIR)/sim-check: checker/check_main.c checker/configs.c checker/net_chan.c checker/serialize.c $(CHECK_COMMON) $(CHECK_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) -o $@ $(filter %.c,$^)

$(CHECK_DIR)/sim-stress: checker/stress_main.c checker/workload.c checker/net_timed.c $(CHECK_COMMON) $(CHECK_DEPS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) -o $@ $(filter %.c,$^)

# MUTANT=name runs a deliberately broken policy instead (checker/mutate.sh): it must fail
sim-check: $(CHECK_DIR)/sim-check
ifeq ($(MUTANT),)
	$(CHECK_DIR)/sim-check $(CHECK_ARGS)
else
	checker/mutate.sh $(MUTANT) $(CHECK_DIR)/mut-$(MUTANT) $(HOSTCC) $(HOST_CFLAGS)
	$(CHECK_DIR)/mut-$(MUTANT)/sim-check $(CHECK_ARGS)
endif

sim-stress: $(CHECK_DIR)/sim-stress
ifeq ($(MUTANT),)
	$(CHECK_DIR)/sim-stress --seeds $(STRESS_SEEDS) $(STRESS_ARGS)
else
	checker/mutate.sh $(MUTANT) $(CHECK_DIR)/mut-$(MUTANT) $(HOSTCC) $(HOST_CFLAGS)
	$(CHECK_DIR)/mut-$(MUTANT)/sim-stress --seeds $(STRESS_SEEDS) $(STRESS_ARGS)
endif

sim-mutants:
	for m in ac-no-release ac-no-cancel ab-early; do \
		checker/mutate.sh $$m $(CHECK_DIR)/mut-$$m $(HOSTCC) $(HOST_CFLAGS) || exit 1; done

bench-boot: normal-kernel all
	python3 scripts/bench-boot

bench-noc: normal-kernel all
	python3 scripts/bench-noc

bench-kernel: normal-kernel all
	python3 scripts/bench-kernel

bench-invade: normal-kernel all
	python3 scripts/bench-invade

bench-shm: normal-kernel all
	python3 scripts/bench-shm

bench-coll: normal-kernel all
	python3 scripts/bench-coll

bench-balance: normal-kernel all
	python3 scripts/bench-balance

bench-mpi: normal-kernel all
	python3 scripts/bench-mpi

bench-vtime: normal-kernel all
	python3 scripts/bench-vtime

bench-alloc: normal-kernel all
	python3 scripts/bench-alloc --clock serial
	python3 scripts/bench-alloc --clock virtual

# The protocol simulator (docs/simulation.md): the protocol core and the NoC timing model
# built for the host, with the simulator's own files.
SIM      := $(OUT)/sim/mosaic-sim
SIM_SRCS := $(wildcard sim/*.c) $(wildcard portable/alloc/*.c) portable/noc/timing.c portable/noc/centre.c portable/mesh/domains.c
SIM_HDRS := $(wildcard sim/*.h) $(wildcard portable/alloc/*.h) portable/noc/timing.h portable/noc/centre.h portable/mesh/domains.h lib/bits.h
SIM_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -I.

sim: $(SIM)

$(SIM): $(SIM_SRCS) $(SIM_HDRS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(SIM_CFLAGS) -o $@ $(SIM_SRCS)

# Figs. 5.1, 5.3, 5.6 on 16x16 .. 128x128 by the simulator (docs/scaling.md)
bench-sim: sim
	python3 scripts/bench-sim

# docs/results.md, the one page of measured figures, from whatever build/bench/*.json holds (no boot).
results:
	python3 scripts/results

# docs/reference.md, the shell commands, boot arguments and kernel calls, from the kernel's own tables.
reference: $(KERNEL)
	python3 scripts/reference

# CMD is one shell command; the profile goes to the terminal and build/prof/prof.json.
prof: normal-kernel check-harts all
	@test -n "$$CMD" || { echo "make prof: say what to profile, e.g. make prof CMD='bench_coll barrier 16' HARTS=16"; exit 2; }
	python3 scripts/mosaic-prof --harts $(HARTS) $(if $(MESH),--mesh $(MESH)) --json $(OUT)/prof/prof.json $(PROF_ARGS) "$$CMD"

clean:
	rm -rf $(OUT)

help:
	@echo "Mosaic: a research microkernel for RISC-V manycores on QEMU virt"
	@echo
	@echo "Targets:"
	@echo "  make            build $(KERNEL) (+ mosaic.asm disassembly, mosaic.sym symbol table) and the"
	@echo "                  vclock QEMU plugin $(VCLOCK) (per-hart instruction counts) and the"
	@echo "                  memwatch QEMU plugin $(MEMWATCH) (who stores into a range: mosaic-run --watch)"
	@echo "  make qemu       install missing dependencies, build, boot into the shell (quit: Ctrl-A X)"
	@echo "  make run        boot without interaction, do what BOOTARGS ask, power off (make shows 'Error N' for status N;"
	@echo "                  scripts/mosaic-run exits with N itself)"
	@echo "  make qemu-gdb   like qemu, halted, with a GDB stub on port GDBPORT"
	@echo "  make gdb        attach gdb-multiarch with scripts/gdb/mosaic.gdb (mosaic-harts, mosaic-log, ...)"
	@echo "  make test       build and run the whole test suite (pytest over scripts/mosaic-run)"
	@echo "  make fuzz       a kernel-call fuzz campaign: SEEDS seeds (default 20) from SEED0 (default random),"
	@echo "                  4 seeds per boot (2 with FUZZ_ARGS='--oversub C': each job's tasks time-sliced on C cores);"
	@echo "                  a failing seed prints its reproducer (scripts/mosaic-fuzz --help)"
	@echo "  make bench-boot boot-time benchmark -> build/bench/boot.json"
	@echo "  make bench-noc  NoC latency, software overhead, collectives on the virtual and serial clocks (-icount) -> build/bench/noc.json"
	@echo "  make bench-kernel kernel calls local vs forwarded, contention, dispatchers, on the virtual and serial"
	@echo "                  clocks (-icount, ~20 s) -> build/bench/kernel.json"
	@echo "  make bench-alloc  the thesis's job allocation figures 5.1-5.6 on the serial and the virtual clock (-icount,"
	@echo "                  about 12 minutes on 2 host cores) -> build/bench/alloc-serial.json, alloc.json,"
	@echo "                  CSV and PNG per figure; scripts/bench-alloc --quick|--only 5.3|--docs (docs/experiments.md)"
	@echo "  make bench-invade invade/retreat/infect costs and the break-even loop (OctoPOS, -icount, virtual and"
	@echo "                  serial clocks, ~20 s)"
	@echo "                  -> build/bench/invade.json"
	@echo "  make bench-shm   one exchange between two tasks of a job through messages and through a shared"
	@echo "                  window, 8 B..64 KiB (-icount, virtual and serial clocks) -> build/bench/shm.json, shm.png"
	@echo "  make bench-coll  every collective's algorithms, strict and loose, tuned against fixed, sequences"
	@echo "                  (128 harts, -icount, virtual clock, about 1.5 minutes here; --harts 64: 20 s)"
	@echo "                  -> build/bench/coll.json, coll.png"
	@echo "  make bench-balance share groups (spmd) and the stencil as an oversubscribed job, 12 tasks on 8 cores"
	@echo "                  and 20 on 16, pinned / round-robin / speed"
	@echo "                  balancing x spin / yield / sleep barriers (virtual clock, ~10 min)"
	@echo "                  -> build/bench/balance.json, balance.png; scripts/bench-balance --quick"
	@echo "  make bench-mpi   MPI point to point and collectives beside Mosaic's own calls, jobs of 2 .. 124 tasks"
	@echo "                  (128 harts, -icount, virtual clock) -> build/bench/mpi.json; scripts/bench-mpi --harts 72"
	@echo "  make bench-vtime the host time virtual time costs: ktest=all at 128 harts on the serial clock, with the"
	@echo "                  plugin only, conservative and lax, five boots each (about 3 minutes on 2 host cores; idle host) -> build/bench/vtime.json"
	@echo "                  (scripts/bench-vtime --icount: every way under -icount -> vtime-icount.json)"
	@echo "  make prof CMD='...'  guest instructions of one shell command by kernel function and hart (QEMU"
	@echo "                  exec trace, -icount) -> build/prof/prof.json; PROF_ARGS='--marked --per N --hart C'"
	@echo "                  (also --lines FUNC, --path FROM TO: scripts/mosaic-prof --help)"
	@echo "  make sim        build the deterministic protocol simulator $(SIM) for the host"
	@echo "                  ($(SIM) --help; docs/simulation.md)"
	@echo "  make sim-check  the exhaustive checker of the allocation protocol: every interleaving of 2-3"
	@echo "                  micro-kernels and 2-3 jobs, both policies (CHECK_ARGS='--config fig22'; docs/checking.md)"
	@echo "  make sim-stress random workloads on 2x2..16x16 meshes, invariants after every event: SEEDS seeds"
	@echo "                  (default 100000; STRESS_ARGS='--seed N --policy ab ...'); MUTANT=name: a broken policy"
	@echo "  make bench-sim  the thesis's Figs. 5.1, 5.3, 5.6 by the simulator on 16x16..128x128, 15 runs per point"
	@echo "                  -> build/bench/sim.json, CSV, PNG (docs/scaling.md); scripts/bench-sim --quick|--only 5.3"
	@echo "  make results    docs/results.md from build/bench/*.json: every run's date and revision, its goals"
	@echo "                  MET or MISSED with their numbers and clock, the benchmarks without a run (no boot)"
	@echo "  make reference  docs/reference.md: shell commands, boot arguments, kernel calls and errors from the kernel's tables"
	@echo "  make deps       install (as root) or name the missing Debian packages"
	@echo "  make clean      remove build/ (build/debug/ too)"
	@echo
	@echo "Variables:"
	@echo "  HARTS=N         harts, 1..$(MAX_HARTS) (default 36: a 6x6 mesh)"
	@echo "  BOOTARGS='...'  kernel boot arguments, e.g. 'ktest=all' or 'cmd=harts;mem' (list: 'help bootargs' in the shell)"
	@echo "  ACCEL=single|multi  QEMU TCG threading (default single: faster on few host cores)"
	@echo "  ICOUNT=1        -icount: exact, repeatable instruction counts and guest time; harts run one at a time"
	@echo "                  (needs ACCEL=single: QEMU refuses -icount with multi-threaded TCG)"
	@echo "  MESH=WxH        NoC mesh geometry, W*H = HARTS (default: the most square, W >= H)"
	@echo "  DEBUG=1         a kernel for GDB: -Og -fno-inline, functions not packed into pages, in build/debug/mosaic.elf;"
	@echo "                  give DEBUG=1 to qemu, qemu-gdb, gdb and run alike (docs/debugging.md)"
	@echo "  MEM=256M        guest memory"
	@echo "  SCENARIO=FILE   qemu, qemu-gdb, run: a job list written on the host (one job per line), loaded as the"
	@echo "                  initrd and run at boot (mosaic-run --scenario FILE; docs/allocation.md, \"Scenario files\")"
	@echo "  PROGRAMS='a.elf b.elf'  qemu, qemu-gdb, run: programs compiled outside the tree (scripts/mosaic-cc), loaded"
	@echo "                  from the host at boot as programs a and b (mosaic-run --program; docs/files.md)"
	@echo "  VTIME=1         1: every boot (qemu, run, test, mosaic-run) on per-core virtual clocks;"
	@echo "                  0: the machine's serial clock, without the vclock plugin (docs/time.md);"
	@echo "                  benchmarks run the clocks they name; vtime_sync=1 in BOOTARGS: lax"
	@echo "  TIMEOUT=120     make run: seconds before QEMU is killed (status 124)"
	@echo "  GDBPORT=$(GDBPORT)   GDB stub port (default depends on your uid)"
	@echo "  PYTEST_ARGS=... extra pytest arguments for make test, e.g. '-k boot -x'"
	@echo "  SEEDS=20 SEED0=N FUZZ_ARGS='--tasks 6 --calls 5000 --keep-going'  make fuzz's campaign"

-include $(OBJS:.o=.d)
