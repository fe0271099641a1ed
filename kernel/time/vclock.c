/* The guest side of the vclock plugin: the slot table, the hello marker, detection, the `vclock` command. */
#include "kernel/time/vclock.h"
#include "kernel/console/console.h"
#include "kernel/console/shell.h"
#include "kernel/core/hart.h"

struct vclock_table vclock_table __attribute__((aligned(4096)));
bool vclock_present;

/* Tells the plugin where the table is: the hello marker, then a jump over the table's
 * physical address (paging is off, so its link address is physical). Uncompressed, so
 * the layout is the fixed one the plugin reads (vclock/vclock_abi.h). */
static void vclock_hello(void)
{
	__asm__ volatile(".option push\n"
			 ".option norvc\n"
			 "slti zero, zero, %0\n"
			 "j 1f\n"
			 ".8byte vclock_table\n"
			 "1:\n"
			 ".option pop\n" ::"i"(VCLOCK_HINT_HELLO)
			 : "memory");
}

/* linker.ld: the text but the probes that fault on purpose, which it puts after the rest */
extern char __text_start[], __vclock_blocks_end[];

void vclock_init(void)
{
	vclock_table.nslots = VCLOCK_SLOTS;
	vclock_table.blocks_start = (uint64_t)__text_start; /* paging is off: link address is physical */
	vclock_table.blocks_end = (uint64_t)__vclock_blocks_end;
	for (unsigned i = 0; i < VCLOCK_SLOTS; i++)
		vclock_table.slot[i] = VCLOCK_SENTINEL;
	vclock_table.magic = VCLOCK_MAGIC;
	vclock_hello();
	vclock_present = vclock_instret() != VCLOCK_SENTINEL;
	if (vclock_present)
		kprintf("mosaic: vclock plugin present: exact per-hart instruction counts\n");
	else
		kprintf("mosaic: vclock plugin absent: no per-hart instruction counts (see docs/time.md)\n");
}

/* Runs on each hart the command asks: reads its own count into *arg. */
static void read_own(void *arg)
{
	*(uint64_t *)arg = vclock_instret();
}

SHELL_CMD_NOWAIT(vclock, "vclock", "whether the vclock plugin is loaded, and every hart's instruction count")
{
	static uint64_t counts[MOSAIC_MAX_HARTS];
	if (argc != 1)
		return SHELL_USAGE;
	kprintf("vclock: plugin %s\n", vclock_present ? "present" : "absent");
	if (!vclock_present)
		return 0;
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		if (cpu == this_cpu())
			read_own(&counts[cpu]);
		else if (!hart_call(cpu, read_own, &counts[cpu]))
			counts[cpu] = VCLOCK_SENTINEL;
		else
			hart_call_wait(cpu);
	}
	kprintf("vclock: cpu  hartid  instructions\n");
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		if (counts[cpu] == VCLOCK_SENTINEL)
			kprintf("vclock: %3u  %6u  (busy or offline)\n", cpu, harts[cpu].hartid);
		else
			kprintf("vclock: %3u  %6u  %lu\n", cpu, harts[cpu].hartid, counts[cpu]);
	}
	return 0;
}
