/* The `share` shell command: several copies of a program time-sliced on one pico-kernel
 * (kernel/share.h), each reported with its exit and its speed on the core's clock. */
#include "kernel/share.h"
#include "kernel/shell.h"
#include "kernel/hart.h"
#include "kernel/domain.h"
#include "kernel/errno.h"
#include "kernel/console.h"
#include "lib/string.h"

/* The first online pico-kernel that is not the shell's own core (else the shell's). */
static unsigned first_pico(void)
{
	unsigned self = hart_count;
	for (unsigned c = 0; c < hart_count; c++) {
		if (is_master(c))
			continue;
		if (c != this_cpu() && harts[c].state == HART_ONLINE)
			return c;
		if (c == this_cpu())
			self = c;
	}
	return self;
}

SHELL_CMD(share, "share PROGRAM N [ARG] [core C] [cpu MS]",
	  "run N copies (1..8) of a program time-sliced on one pico-kernel; each with its speed (cpu / real time)")
{
	if (argc < 3)
		return SHELL_USAGE;
	uint64_t n, arg = 0, core = hart_count, cpu_ms = 0;
	if (!parse_u64(argv[2], &n))
		return SHELL_USAGE;
	if (n == 0 || n > SHARE_MAX) {
		kprintf("share: N must be 1..%u (the tasks one pico-kernel time-slices)\n", SHARE_MAX);
		return SHELL_USAGE_SHOWN;
	}
	int i = 3;
	if (argc > 3 && argv[3][0] >= '0' && argv[3][0] <= '9' && !parse_u64(argv[i++], &arg))
		return SHELL_USAGE;
	bool chose_core = false;
	for (; i < argc; i += 2) {
		uint64_t *into = !strcmp(argv[i], "core") ? &core : !strcmp(argv[i], "cpu") ? &cpu_ms : 0;
		if (!into) {
			kprintf("share: unknown word '%s'\n", argv[i]);
			return SHELL_USAGE;
		}
		if (i + 1 >= argc || !parse_u64(argv[i + 1], into))
			return SHELL_USAGE;
		chose_core |= into == &core;
	}
	if (cpu_ms > 86400000) {
		kprintf("share: cpu MS must be 0..86400000\n");
		return SHELL_USAGE_SHOWN;
	}
	if (!user_program_find(argv[1])) {
		kprintf("share: no program '%s' (see 'programs')\n", argv[1]);
		return SHELL_USAGE_SHOWN;
	}
	if (!chose_core)
		core = first_pico();
	if (core >= hart_count || is_master((unsigned)core)) {
		kprintf("share: core %lu is not a pico-kernel\n", core);
		return SHELL_USAGE_SHOWN;
	}
	struct share_task tasks[SHARE_MAX];
	memset(tasks, 0, sizeof tasks);
	for (unsigned k = 0; k < n; k++)
		tasks[k] = (struct share_task){.name = argv[1], .arg = arg, .cpu_ms = cpu_ms};
	int e = share_run_on((unsigned)core, tasks, (unsigned)n);
	if (e) {
		kprintf("share: cannot run on core %lu: %s\n", core, kstrerror(e));
		return 1;
	}
	int bad = 0;
	for (unsigned k = 0; k < n; k++) {
		struct share_task *t = &tasks[k];
		uint64_t permille = t->real_ns ? t->cpu_ns * 1000 / t->real_ns : 0;
		const char *how = t->res.status == 0 ? "exited" : t->res.status == -EFAULT ? "killed" : "not started";
		kprintf("share: core %lu task %u %s %d cpu_us %lu sys_us %lu real_us %lu speed %lu.%03lu slices %lu\n",
			core, k, how, t->res.status == 0 ? t->res.exit_code : t->res.status, t->cpu_ns / 1000,
			t->sys_ns / 1000, t->real_ns / 1000, permille / 1000, permille % 1000, t->slices);
		bad |= t->res.status != 0;
	}
	kprintf("share: %lu task%s on core %lu, slice %lu us\n", n, n == 1 ? "" : "s", core, share_slice_us);
	return bad;
}
