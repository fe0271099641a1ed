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
# handed to recipes through the environment, so quotes inside BOOTARGS survive
export BOOTARGS

CROSS    ?= riscv64-unknown-elf-
CC       := $(CROSS)gcc
NM       := $(CROSS)nm
OBJDUMP  := $(CROSS)objdump
GDB      ?= gdb-multiarch

# The hart limit has one source of truth: kernel/config.h.
MAX_HARTS := $(shell sed -n 's/^\#define MOSAIC_MAX_HARTS \([0-9]*\).*/\1/p' kernel/config.h)

BUILD    := build
KERNEL   := $(BUILD)/mosaic.elf

CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror \
	-march=rv64imac_zicsr_zifencei -mabi=lp64 -mcmodel=medany \
	-ffreestanding -fno-builtin-printf -fno-stack-protector -fno-pie \
	-fno-omit-frame-pointer -fno-optimize-sibling-calls -fno-toplevel-reorder \
	-I. -MMD -MP
LDFLAGS := -nostdlib -static -no-pie -Wl,-T,linker.ld -Wl,--no-warn-rwx-segments

KERNEL_DIRS := arch/riscv kernel kernel/msg kernel/dispatch kernel/bench drivers drivers/noc lib tests/ktest
SRCS := $(foreach d,$(KERNEL_DIRS),$(wildcard $(d)/*.c) $(wildcard $(d)/*.S))
OBJS := $(patsubst %,$(BUILD)/%.o,$(basename $(SRCS)))

RUN := python3 scripts/mosaic-run --kernel $(KERNEL) --harts $(HARTS) --accel $(ACCEL) --mem $(MEM) \
	$(if $(filter 1,$(ICOUNT)),--icount) $(if $(MESH),--mesh $(MESH))

.PHONY: all deps check-harts qemu qemu-gdb gdb run test bench-boot bench-noc clean help

all: deps $(KERNEL)

deps:
	@scripts/deps

check-harts:
	@if ! [ "$(HARTS)" -ge 1 ] 2>/dev/null || [ "$(HARTS)" -gt $(MAX_HARTS) ]; then \
		echo "error: HARTS=$(HARTS) is outside 1..$(MAX_HARTS): QEMU's bundled OpenSBI 1.1 keeps a $(MAX_HARTS)-bit hart mask and cannot start more harts" >&2; \
		exit 2; fi

# every object depends on the flags, which live here
$(OBJS): Makefile

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# Two links: the first without the kernel's symbol table, the second with it
# (it sits after all code, so no function moves; gen-ksyms --check proves it).
$(KERNEL): $(OBJS) linker.ld scripts/gen-ksyms
	@mkdir -p $(BUILD)
	scripts/gen-ksyms --empty > $(BUILD)/ksyms_empty.S
	$(CC) $(CFLAGS) -c $(BUILD)/ksyms_empty.S -o $(BUILD)/ksyms_empty.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $(BUILD)/mosaic.pass1.elf $(OBJS) $(BUILD)/ksyms_empty.o
	scripts/gen-ksyms --nm $(NM) $(BUILD)/mosaic.pass1.elf > $(BUILD)/ksyms_table.S
	$(CC) $(CFLAGS) -c $(BUILD)/ksyms_table.S -o $(BUILD)/ksyms_table.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(BUILD)/ksyms_table.o
	scripts/gen-ksyms --nm $(NM) --check $@ $(BUILD)/ksyms_table.S
	$(OBJDUMP) -d -S $@ > $(BUILD)/mosaic.asm
	$(NM) -n $@ > $(BUILD)/mosaic.sym
	@echo "built $@ (disassembly $(BUILD)/mosaic.asm, symbols $(BUILD)/mosaic.sym)"

qemu: check-harts all
	$(RUN) --interactive --bootargs "$$BOOTARGS"

qemu-gdb: check-harts all
	@echo "QEMU is halted with a GDB stub on port $(GDBPORT). In another terminal: make gdb GDBPORT=$(GDBPORT)"
	$(RUN) --interactive --gdb $(GDBPORT) --bootargs "$$BOOTARGS"

gdb:
	$(GDB) -q -x scripts/gdb/mosaic.gdb -ex "target remote :$(GDBPORT)" $(KERNEL)

run: check-harts all
	$(RUN) --timeout $(TIMEOUT) --log $(BUILD)/run.log --bootargs "$$BOOTARGS"

test: all
	python3 -m pytest tests $(PYTEST_ARGS)

bench-boot: all
	python3 scripts/bench-boot

bench-noc: all
	python3 scripts/bench-noc

clean:
	rm -rf $(BUILD)

help:
	@echo "Mosaic: a research microkernel for RISC-V manycores on QEMU virt"
	@echo
	@echo "Targets:"
	@echo "  make            build $(KERNEL) (+ mosaic.asm disassembly, mosaic.sym symbol table)"
	@echo "  make qemu       install missing dependencies, build, boot into the shell (quit: Ctrl-A X)"
	@echo "  make run        boot without interaction, do what BOOTARGS ask, power off (make shows 'Error N' for status N;"
	@echo "                  scripts/mosaic-run exits with N itself)"
	@echo "  make qemu-gdb   like qemu, halted, with a GDB stub on port GDBPORT"
	@echo "  make gdb        attach gdb-multiarch with scripts/gdb/mosaic.gdb (mosaic-harts, mosaic-log, ...)"
	@echo "  make test       build and run the whole test suite (pytest over scripts/mosaic-run)"
	@echo "  make bench-boot boot-time benchmark -> build/bench/boot.json"
	@echo "  make bench-noc  NoC latency, software overhead, collectives (-icount) -> build/bench/noc.json"
	@echo "  make deps       install (as root) or name the missing Debian packages"
	@echo "  make clean      remove build/"
	@echo
	@echo "Variables:"
	@echo "  HARTS=N         harts, 1..$(MAX_HARTS) (default 36: a 6x6 mesh)"
	@echo "  BOOTARGS='...'  kernel boot arguments, e.g. 'ktest=all' or 'cmd=harts;mem' (list: 'help bootargs' in the shell)"
	@echo "  ACCEL=single|multi  QEMU TCG threading (default single: faster on few host cores)"
	@echo "  ICOUNT=1        -icount: exact, repeatable instruction counts and guest time; harts run one at a time"
	@echo "                  (needs ACCEL=single: QEMU refuses -icount with multi-threaded TCG)"
	@echo "  MESH=WxH        NoC mesh geometry, W*H = HARTS (default: the most square, W >= H)"
	@echo "  MEM=256M        guest memory"
	@echo "  TIMEOUT=120     make run: seconds before QEMU is killed (status 124)"
	@echo "  GDBPORT=$(GDBPORT)   GDB stub port (default depends on your uid)"
	@echo "  PYTEST_ARGS=... extra pytest arguments for make test, e.g. '-k boot -x'"

-include $(OBJS:.o=.d)
