/*
 * kmain: the boot hart's path from OpenSBI to the shell, top to bottom.
 * Device tree -> console -> per-hart data -> traps -> boot arguments -> pages
 * (and the host's scenario file, the initrd) -> other harts -> what the boot arguments ask (ktest, cmd) -> shell or poweroff.
 */
#include "kernel/core/config.h"
#include "kernel/core/platform.h"
#include "kernel/core/hart.h"
#include "kernel/console/console.h"
#include "kernel/core/bootargs.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/stack_guard.h"
#include "kernel/core/smp.h"
#include "kernel/core/ktest.h"
#include "kernel/console/shell.h"
#include "kernel/core/panic.h"
#include "kernel/core/poweroff.h"
#include "arch/riscv/trap.h"
#include "arch/riscv/csr.h"
#include "drivers/uart.h"
#include "drivers/timer.h"
#include "drivers/poweroff.h"
#include "drivers/noc/noc.h"
#include "kernel/domain/domain.h"
#include "kernel/domain/background.h"
#include "kernel/domain/noc_sampler.h"
#include "kernel/alloc/alloc.h"
#include "kernel/files/files.h"
#include "kernel/task/utask.h"
#include "kernel/time/vclock.h"
#include "kernel/time/vtime.h"


extern char boot_stack[], boot_stack_top[];

static char ktest_spec[BOOTARG_STR_MAX];
BOOTARG_STR("ktest", ktest_spec, "run in-kernel test suites at boot: all, or suite[,suite]");
static char boot_cmds[BOOTARG_STR_MAX];
BOOTARG_STR("cmd", boot_cmds, "shell commands to run at boot, separated by ';'");
static uint64_t shell_enabled = 1;
BOOTARG_U64("shell", shell_enabled, 0, 1, "1: end in the interactive shell; 0: power off with the run's status");
static uint64_t boot_timeout_ms = BOOT_TIMEOUT_MS_DEFAULT;
BOOTARG_U64("boot_timeout_ms", boot_timeout_ms, 1, 600000, "how long the boot hart waits for the others");

static int bootarg_errors;
static void report_bootarg_error(const char *msg)
{
	kprintf("%s\n", msg);
	bootarg_errors++;
}

static void early_fail(const char *why) __attribute__((noreturn));
static void early_fail(const char *why)
{
	/* the console may not exist yet: all we can do is exit with a status */
	if (plat.uart_base)
		kprintf("mosaic: cannot boot: %s\n", why);
	machine_exit(EXIT_PANIC);
}

static void init_hart_table(uint64_t boot_hartid)
{
	hart_count = plat.dt_harts < MOSAIC_MAX_HARTS ? plat.dt_harts : MOSAIC_MAX_HARTS;
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		harts[cpu].cpu = cpu;
		harts[cpu].hartid = plat.hartids[cpu];
	}
	int cpu = platform_cpu_of_hartid((uint32_t)boot_hartid);
	if (cpu < 0)
		early_fail("the boot hart is not among the device tree's first harts");
	boot_cpu = (unsigned)cpu;
	struct hart *me = &harts[boot_cpu];
	me->kstack_base = boot_stack;
	stack_guard_set(boot_stack);
	me->kstack_top = (uint64_t)boot_stack_top;
	__asm__ volatile("mv tp, %0" ::"r"(me));
}

/* Runs what the boot arguments ask for and returns the run's exit status. */
static int run_boot_actions(unsigned online)
{
	int status = EXIT_OK;
	if (bootarg_errors)
		status = EXIT_USAGE;
	if (status == EXIT_OK && ktest_spec[0]) {
		int r = ktest_run(ktest_spec);
		status = r < 0 ? EXIT_USAGE : r > 0 ? EXIT_TEST_FAILED : EXIT_OK;
	}
	if (status == EXIT_OK) {
		int r = alloc_boot_scenario();
		status = r == SHELL_USAGE ? EXIT_USAGE : r ? EXIT_TEST_FAILED : EXIT_OK;
	}
	if (status == EXIT_OK && boot_cmds[0]) {
		int r = shell_run_script(boot_cmds);
		status = r == SHELL_USAGE ? EXIT_USAGE : r ? EXIT_TEST_FAILED : EXIT_OK;
	}
	if (status == EXIT_OK && online != hart_count)
		status = EXIT_HART_MISSING;
	return status;
}

void kmain(uint64_t hartid, const void *fdt)
{
	boot_entry_time = read_time();
	const char *err = platform_init(fdt);
	if (plat.uart_base)
		uart_init(plat.uart_base, plat.uart_reg_shift);
	if (err)
		early_fail(err);
	init_hart_table(hartid);
	trap_init_hart();
	timer_init_hart();
	kprintf("\nmosaic: booting on hart %lu (cpu %u) of %u, %lu MiB at %p, timebase %lu Hz, timer %s\n", hartid,
		boot_cpu, plat.dt_harts, plat.memory.size >> 20, (void *)plat.memory.base, plat.timebase_hz,
		timer_uses_sstc() ? "sstc" : "sbi");
	kprintf("mosaic: bootargs \"%s\"\n", plat.bootargs);
	vclock_init();
	bootargs_parse_kernel(plat.bootargs, report_bootarg_error);
	page_alloc_init();
	files_load(); /* the host's files are kept; the initrd's pages are the allocator's from here on */
	scenario_file_load();
	utask_host_programs_load();
	irq_enable();

	harts[boot_cpu].online_time = boot_entry_time;
	harts[boot_cpu].checkin = HART_CHECKIN_MAGIC | hartid;
	harts[boot_cpu].state = HART_ONLINE;
	unsigned online = smp_bring_up(boot_timeout_ms);
	kprintf("mosaic: %u/%u harts online\n", online, plat.dt_harts);
	kprintf("mosaic: bring-up took %lu us of guest time\n", timer_ticks_to_us(bringup_done_time - boot_entry_time));
	const char *noc_err = noc_init();
	if (noc_err)
		report_bootarg_error(noc_err);
	const char *dom_err = domain_init();
	if (dom_err)
		report_bootarg_error(dom_err);
	const char *alloc_err = alloc_init();
	if (alloc_err)
		report_bootarg_error(alloc_err);
	vtime_start(); /* with vtime=1: from here on every core keeps its own clock */
	background_enabled = true; /* masters now serve their domains */
	ipi_broadcast(IPI_WAKE);   /* idle harts re-enter their wait with the NoC in place */
	noc_sampler_start();
	alloc_watchdog_start();
	kprintf("mosaic: NoC %ux%u mesh, %lu-slot mailboxes, IPIs by %s; %u domains%s\n", mesh.w, mesh.h,
		noc_params.depth, ipi_method(), layout.ndomains, layout.partial ? " (partial simulation)" : "");

	console_enable_input_irq();
	int status = run_boot_actions(online);
	if (!shell_enabled) {
		kprintf("mosaic: done, status %d\n", status);
		kernel_poweroff(status);
	}
	shell_loop();
}
