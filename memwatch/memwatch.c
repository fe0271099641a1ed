/*
 * memwatch: a QEMU 7.2 TCG plugin that reports which hart, at which pc, stored into a
 * range of guest memory. It is a debugging tool for the corruption a debugger cannot
 * catch on Mosaic: a GDB watchpoint attached with -S changes where QEMU ends its
 * translation blocks, so under -icount the harts interleave differently and a rare
 * corruption moves or vanishes. A plugin's memory callbacks leave the blocks as they
 * are, so a boot under -icount repeats exactly with memwatch loaded (docs/debugging.md).
 *
 * Arguments (QEMU's -plugin FILE,arg=value,...):
 *   lo=ADDR,hi=ADDR   the watched range [lo, hi) (kernel addresses are physical)
 *   except=HART       do not report this hart's own stores (e.g. the owner of a stack)
 *   max=N             report at most N stores (default 1000); the rest are counted
 * Only kernel code is watched: user tasks live at USER_BASE and above and cannot store
 * into kernel memory.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vclock/qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

#define USER_BASE 0x1000000000ULL /* arch/riscv/mmu.h: user code starts here */

static uint64_t lo, hi;
static long except = -1;
static unsigned long long max_reports = 1000, seen;

/* A store of 2^shift bytes at vaddr by hart vcpu, from the instruction at pc (the userdata). */
static void on_store(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	uint64_t size = 1ULL << qemu_plugin_mem_size_shift(info);
	if (vaddr >= hi || vaddr + size <= lo || (long)vcpu == except)
		return;
	if (++seen <= max_reports)
		fprintf(stderr, "memwatch: hart %u pc %#" PRIx64 " stored %" PRIu64 " bytes at %#" PRIx64 "\n", vcpu,
			(uint64_t)(uintptr_t)udata, size, vaddr);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	for (size_t i = 0, n = qemu_plugin_tb_n_insns(tb); i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		if (pc < USER_BASE)
			qemu_plugin_register_vcpu_mem_cb(insn, on_store, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W,
							 (void *)(uintptr_t)pc);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id, (void)udata;
	fprintf(stderr, "memwatch: %llu stores into [%#" PRIx64 ", %#" PRIx64 ")%s, %llu reported\n", seen, lo, hi,
		except >= 0 ? " by other harts" : "", seen < max_reports ? seen : max_reports);
}

/* Parses "name=value" into *out if argument a is that name; 1 parsed, 0 not this name, -1 bad value. */
static int parse_u64(const char *a, const char *name, unsigned long long *out)
{
	size_t len = strlen(name);
	if (strncmp(a, name, len) != 0 || a[len] != '=')
		return 0;
	char *end;
	*out = strtoull(a + len + 1, &end, 0);
	return (a[len + 1] && !*end) ? 1 : -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	unsigned long long vlo = 0, vhi = 0, vexcept = 0;
	int have_lo = 0, have_hi = 0;
	(void)info;
	for (int i = 0; i < argc; i++) {
		int r, known = 0;
		if ((r = parse_u64(argv[i], "lo", &vlo)) != 0)
			known = r, have_lo = r > 0;
		else if ((r = parse_u64(argv[i], "hi", &vhi)) != 0)
			known = r, have_hi = r > 0;
		else if ((r = parse_u64(argv[i], "except", &vexcept)) != 0)
			known = r, except = r > 0 ? (long)vexcept : -1;
		else if ((r = parse_u64(argv[i], "max", &max_reports)) != 0)
			known = r;
		if (known <= 0) {
			fprintf(stderr, "memwatch: bad argument '%s' (takes lo=ADDR, hi=ADDR, except=HART, max=N)\n",
				argv[i]);
			return -1;
		}
	}
	if (!have_lo || !have_hi || vlo >= vhi) {
		fprintf(stderr, "memwatch: needs lo=ADDR and hi=ADDR with lo < hi\n");
		return -1;
	}
	lo = vlo, hi = vhi;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
