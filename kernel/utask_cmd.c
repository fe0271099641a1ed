/* The shell's commands for user tasks (run, programs, kill) and running one on another core. */
#include "kernel/utask.h"
#include "kernel/utask_internal.h"
#include "kernel/hart.h"
#include "kernel/errno.h"
#include "kernel/console.h"
#include "lib/string.h"
#include "kernel/domain.h"
#include "kernel/shell.h"
#include "kernel/vtime.h"
#include "lib/format.h"

/* ---- the shell ---- */

struct run_request {
	const char *name;
	uint64_t arg, cpu_ms;
	struct utask_result res;
};

static void run_on_this_core(void *arg)
{
	struct run_request *r = arg;
	utask_run_entry(r->name, 0, r->arg, r->cpu_ms, &r->res);
}

int utask_run_on(unsigned core, const char *name, uint64_t arg, struct utask_result *res)
{
	return utask_run_limited_on(core, name, arg, 0, res);
}

/* Runs a program on a pico-kernel and reports how it ended; for the shell and tests. */
int utask_run_limited_on(unsigned core, const char *name, uint64_t arg, uint64_t cpu_ms, struct utask_result *res)
{
	if (core >= hart_count)
		return -ENXIO;
	if (is_master(core))
		return -EPERM; /* user tasks run on pico-kernels */
	struct run_request r = {.name = name, .arg = arg, .cpu_ms = cpu_ms};
	if (core == this_cpu())
		run_on_this_core(&r);
	else if (hart_call(core, run_on_this_core, &r))
		hart_call_wait(core);
	else
		return -EBUSY;
	*res = r.res;
	return 0;
}

SHELL_CMD(run, "run PROGRAM [ARG] [core C] [cpu MS]",
	  "run a user program on a pico-kernel (list them with 'programs'); cpu: its CPU-time limit in ms")
{
	if (argc < 2)
		return SHELL_USAGE;
	uint64_t arg = 0, core = hart_count, cpu_ms = 0;
	int i = 2;
	if (argc > 2 && argv[2][0] >= '0' && argv[2][0] <= '9' && !parse_u64(argv[i++], &arg))
		return SHELL_USAGE;
	bool chose_core = false, chose_cpu = false;
	for (; i < argc; i += 2) {
		uint64_t *into = !strcmp(argv[i], "core") ? &core : !strcmp(argv[i], "cpu") ? &cpu_ms : 0;
		if (!into || i + 1 >= argc || !parse_u64(argv[i + 1], into))
			return SHELL_USAGE;
		chose_core |= into == &core;
		chose_cpu |= into == &cpu_ms;
	}
	if (chose_cpu && (cpu_ms == 0 || cpu_ms > 86400000)) {
		kprintf("run: cpu MS must be 1..86400000 (without it: the boot default task_cpu_ms)\n");
		return SHELL_USAGE;
	}
	if (!user_program_find(argv[1])) {
		kprintf("run: no program '%s' (see 'programs')\n", argv[1]);
		return SHELL_USAGE;
	}
	if (!chose_core) /* the first idle pico-kernel */
		for (unsigned c = 0; c < hart_count && core == hart_count; c++)
			if (!is_master(c) && (c == this_cpu() || harts[c].state == HART_ONLINE))
				core = c;
	if (core >= hart_count) {
		kprintf("run: no idle pico-kernel (every core is a micro-kernel or busy; try fewer domains=)\n");
		return 1;
	}
	struct utask_result res;
	int e = utask_run_limited_on((unsigned)core, argv[1], arg, cpu_ms, &res);
	if (e) {
		kprintf("run: cannot run on core %lu: %s\n", core, kstrerror(e));
		return 1;
	}
	if (res.status == 0)
		kprintf("mosaic: task %s on core %lu exited with %d\n", argv[1], core, res.exit_code);
	else if (res.status == -EFAULT)
		kprintf("mosaic: task %s on core %lu was killed\n", argv[1], core);
	else
		kprintf("mosaic: task %s on core %lu could not start: %s\n", argv[1], core, kstrerror(res.status));
	return res.status == 0 && res.exit_code == 0 ? 0 : 1;
}

SHELL_CMD(programs, "programs", "list the user programs built into the kernel")
{
	if (argc != 1)
		return SHELL_USAGE;
	for (unsigned i = 0; i < user_program_count; i++)
		kprintf("  %-12s %lu bytes\n", user_programs[i].name,
			(uint64_t)(user_programs[i].end - user_programs[i].start));
	return 0;
}

/* When the kill was made: the shell core's clock at its first kill (each task ends no earlier,
 * docs/microkernel.md). */
static const char *kill_clock(char *buf, uint64_t at_ns)
{
	snprintf(buf, 40, "%lu us of %s time", at_ns / 1000, vtime_active ? "virtual" : "serial");
	return buf;
}

SHELL_CMD(kill, "kill CORE | kill job J",
	  "kill the user task on CORE (every task time-sliced there), or every task of job J (its id as 'mk' and "
	  "'jobs' show it)")
{
	uint64_t v;
	char clock[40];
	if (argc == 2 && parse_u64(argv[1], &v)) {
		unsigned core = v < hart_count ? (unsigned)v : hart_count;
		bool sliced = core < hart_count && __atomic_load_n(&harts[core].sliced_group, __ATOMIC_ACQUIRE);
		uint64_t at = 0;
		int e = utask_kill_at(core, 0, &at);
		if (e)
			kprintf("kill: %s\n", e == -ESRCH ? "no user task runs on that core" : "no such core");
		else if (sliced)
			kprintf("kill: the tasks time-sliced on core %lu are being killed (at %s)\n", v,
				kill_clock(clock, at));
		else
			kprintf("kill: the task on core %lu is being killed (at %s)\n", v, kill_clock(clock, at));
		return e ? 1 : 0;
	}
	if (argc != 3 || strcmp(argv[1], "job") != 0 || !parse_u64(argv[2], &v) || v >= MSG_SESSION_JOB)
		return SHELL_USAGE;
	uint32_t session = MSG_SESSION_JOB | (uint32_t)v;
	unsigned n = 0, sliced = 0;
	uint64_t first = UINT64_MAX;
	for (unsigned c = 0; c < hart_count; c++) {
		bool shared = __atomic_load_n(&harts[c].sliced_group, __ATOMIC_ACQUIRE);
		uint64_t at;
		if (utask_kill_at(c, session, &at) == 0) {
			n++;
			sliced += shared;
			first = at < first ? at : first;
		}
	}
	if (!n)
		kprintf("kill: no such job: no task of job %lu runs (see 'mk' and 'jobs')\n", v);
	else if (sliced)
		kprintf("kill: job %lu being killed (at %s): its tasks on %u core%s, %u time-sliced\n", v,
			kill_clock(clock, first), n, n == 1 ? "" : "s", sliced);
	else
		kprintf("kill: %u task%s of job %lu being killed (at %s)\n", n, n == 1 ? "" : "s", v,
			kill_clock(clock, first));
	return n ? 0 : 1;
}
