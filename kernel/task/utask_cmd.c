/* The shell's commands for user tasks (run, programs, kill) and running one on another core. */
#include "kernel/task/utask.h"
#include "kernel/task/utask_internal.h"
#include "kernel/core/hart.h"
#include "kernel/core/errno.h"
#include "kernel/console/console.h"
#include "lib/string.h"
#include "kernel/domain/domain.h"
#include "kernel/console/shell.h"
#include "kernel/time/vtime.h"
#include "lib/format.h"
#include "drivers/timer.h"
#include "kernel/task/uargs.h"

/* ---- the shell ---- */

/* A run's life: the shell waits for it in the foreground, or it was left to run in the
 * background (run ... &, Ctrl-Z), where its own core reports its end. */
enum run_state { RUN_IDLE, RUN_FOREGROUND, RUN_BACKGROUND, RUN_ENDED };

struct run_request {
	const char *name; /* the program table's own string: it outlives the command line */
	uint64_t arg, cpu_ms;
	struct uargs *args; /* its arguments and environment (NULL: none): the run's, freed at its end */
	volatile uint32_t state; /* enum run_state: the shell and the task's core race to change it */
	volatile uint32_t kill_wanted; /* Ctrl-C came: kill the task once it has started */
	struct utask_result res;
};

/* A background run outlives the command that started it: one request per core, free again
 * once the core's call has ended (hart_call refuses a core whose call still runs). */
static struct run_request runs[MOSAIC_MAX_HARTS];

static void report_end(const char *name, unsigned core, const struct utask_result *res)
{
	if (res->status == 0)
		kprintf("mosaic: task %s on core %u exited with %d\n", name, core, res->exit_code);
	else if (res->status == -EFAULT)
		kprintf("mosaic: task %s on core %u was killed\n", name, core);
	else
		kprintf("mosaic: task %s on core %u could not start: %s\n", name, core, kstrerror(res->status));
}

static void run_on_this_core(void *arg)
{
	struct run_request *r = arg;
	utask_run_args(r->name, 0, r->arg, r->args, r->cpu_ms, &r->res);
	uargs_free(r->args);
	r->args = 0;
	if (__atomic_exchange_n(&r->state, RUN_ENDED, __ATOMIC_ACQ_REL) == RUN_BACKGROUND)
		report_end(r->name, this_cpu(), &r->res); /* nobody waits for it: its own core says so */
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

/* Prints the pico-kernels as ranges ("0-6,8-9"): where a task can run. */
static void print_pico_kernels(void)
{
	const char *sep = "";
	for (unsigned c = 0; c < hart_count; c++) {
		if (is_master(c))
			continue;
		unsigned last = c;
		while (last + 1 < hart_count && !is_master(last + 1))
			last++;
		if (last == c)
			kprintf("%s%u", sep, c);
		else
			kprintf("%s%u-%u", sep, c, last);
		sep = ",";
		c = last;
	}
}

static bool key_or_kill_due(void *arg)
{
	const struct run_request *r = arg;
	return console_key_waiting(CONSOLE_CTRL_C) || console_key_waiting(CONSOLE_CTRL_Z) || r->kill_wanted == 1 ||
	       (shell_ahead_room() && console_input_waiting());
}

/* The shell waits for its foreground run on another core. The task owns the console as a Unix
 * shell's foreground job owns the terminal: what is typed meanwhile is echoed and waits for the
 * prompt, but Ctrl-C kills the task and Ctrl-Z leaves it in the background. Returns the
 * command's status, or -1 once the run went to the background. */
static int run_foreground(struct run_request *r, unsigned core)
{
	if (!shell_interactive_here()) { /* a boot script (cmd=): no keys to read */
		hart_call_wait(core);
		return 0;
	}
	while (!hart_call_wait_or(core, key_or_kill_due, r)) {
		shell_read_ahead(false);
		if (console_take_key(CONSOLE_CTRL_C)) {
			kprintf("^C\n");
			r->kill_wanted = 1;
		}
		/* a Ctrl-C that came before the task started waits until there is a task to kill */
		if (r->kill_wanted == 1 && utask_kill(core, 0) == 0)
			r->kill_wanted = 2;
		if (!console_take_key(CONSOLE_CTRL_Z))
			continue;
		uint32_t fg = RUN_FOREGROUND;
		if (__atomic_compare_exchange_n(&r->state, &fg, RUN_BACKGROUND, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			kprintf("^Z\nrun: task %s on core %u goes on in the background; its end will be reported\n", r->name,
				core);
			return -1;
		}
	}
	return 0;
}

SHELL_CMD(run, "run PROGRAM [ARGS...] [core C] [cpu MS] [env NAME=VALUE]... [-- ARGS...] [&]",
	  "run a user program on a pico-kernel ('programs' lists them) and wait for its end: Ctrl-C kills it, "
	  "Ctrl-Z puts it in the background; with &, start it there. ARGS: its argv[1..] (mosaic_main's "
	  "integer argument is argv[1] if a number, else 0); an argument spelt core, cpu, env or -- goes after "
	  "--. core: where (default: an idle pico-kernel other than the shell's own); cpu: its CPU-time limit in "
	  "ms; env: an entry of its environment (getenv). At most " XSTR(UARGS_MAX) " arguments and entries, "
	  XSTR(UARGS_BYTES) " bytes, within the shell's line (15 words, 255 characters)")
{
	bool background = argc > 2 && strcmp(argv[argc - 1], "&") == 0;
	if (background)
		argc--;
	if (argc < 2)
		return SHELL_USAGE;
	uint64_t core = hart_count, cpu_ms = 0;
	char *args[SHELL_MAX_ARGS], *env[SHELL_MAX_ARGS];
	unsigned nargs = 0, nenv = 0;
	bool chose_core = false, chose_cpu = false, rest = false;
	for (int i = 2; i < argc; i++) {
		if (!rest && !strcmp(argv[i], "--")) {
			rest = true;
			continue;
		}
		bool is_env = !rest && !strcmp(argv[i], "env");
		uint64_t *into = rest ? 0 : !strcmp(argv[i], "core") ? &core : !strcmp(argv[i], "cpu") ? &cpu_ms : 0;
		if (!into && !is_env) {
			args[nargs++] = argv[i];
			continue;
		}
		if (i + 1 >= argc || (into && !parse_u64(argv[i + 1], into)))
			return SHELL_USAGE;
		if (is_env)
			env[nenv++] = argv[i + 1];
		chose_core |= into == &core;
		chose_cpu |= into == &cpu_ms;
		i++;
	}
	if (chose_cpu && (cpu_ms == 0 || cpu_ms > 86400000)) {
		kprintf("run: cpu MS must be 1..86400000 (without it: the boot default task_cpu_ms)\n");
		return SHELL_USAGE;
	}
	const struct user_program *prog = user_program_find(argv[1]);
	if (!prog) {
		kprintf("run: no program '%s' (see 'programs')\n", argv[1]);
		return SHELL_USAGE;
	}
	unsigned me = this_cpu();
	if (chose_core && core >= hart_count) {
		kprintf("run: there is no core %lu: this machine has cores 0..%u\n", core, hart_count - 1);
		return 1;
	}
	if (chose_core && is_master((unsigned)core)) {
		kprintf("run: core %lu is the micro-kernel of domain %u, which runs no user task; pico-kernels: ", core,
			domain_of((unsigned)core));
		print_pico_kernels();
		kprintf("\n");
		return 1;
	}
	/* by default an idle pico-kernel other than the shell's: a task on the shell's own core holds
	 * the shell, which then only observes (shell_task_edge) */
	for (unsigned pass = 0; !chose_core && pass < 2 && core == hart_count; pass++)
		for (unsigned c = 0; c < hart_count && core == hart_count; c++)
			if (!is_master(c) && (pass ? c == me && !harts[c].utask : c != me && harts[c].state == HART_ONLINE))
				core = c;
	if (core >= hart_count) {
		bool any = false;
		for (unsigned c = 0; c < hart_count; c++)
			any |= !is_master(c);
		kprintf(any ? "run: every pico-kernel is busy ('tasks' and 'mk' show what runs); try again later\n"
			    : "run: every core is a micro-kernel (partial simulation, or one core per domain): no core "
			      "runs user tasks; boot with fewer domains=\n");
		return 1;
	}
	if (core == me && background) {
		kprintf("run: core %u is the shell's own: a task there runs in the foreground only (leave out 'core' "
			"to get another)\n", me);
		return 1;
	}
	const char *why;
	struct uargs *block = uargs_from_words(args, nargs, env, nenv, &why);
	if (!block && why) {
		kprintf("run: %s\n", why);
		return 1;
	}
	uint64_t arg = uargs_int(block, 0);
	struct run_request *r = &runs[core];
	if (core == me) { /* the task runs on the shell's stack: the shell serves the console from its traps */
		struct run_request here = {.name = prog->name, .arg = arg, .args = block, .cpu_ms = cpu_ms,
					   .state = RUN_FOREGROUND};
		run_on_this_core(&here);
		report_end(prog->name, me, &here.res);
		return here.res.status == 0 && here.res.exit_code == 0 ? 0 : 1;
	}
	if (harts[core].state != HART_ONLINE || r->state == RUN_BACKGROUND) {
		uargs_free(block);
		kprintf("run: core %lu is busy (a task or a call runs there; 'tasks' and 'mk' show what)\n", core);
		return 1;
	}
	*r = (struct run_request){.name = prog->name, .arg = arg, .args = block, .cpu_ms = cpu_ms,
				  .state = background ? RUN_BACKGROUND : RUN_FOREGROUND};
	if (!hart_call((unsigned)core, run_on_this_core, r)) {
		r->state = RUN_ENDED;
		uargs_free(block);
		r->args = 0;
		kprintf("run: core %lu is busy (a task or a call runs there; 'tasks' and 'mk' show what)\n", core);
		return 1;
	}
	if (background) {
		kprintf("run: task %s started on core %lu in the background; its end will be reported\n", prog->name, core);
		return 0;
	}
	if (run_foreground(r, (unsigned)core) < 0)
		return 0;
	report_end(prog->name, (unsigned)core, &r->res);
	return r->res.status == 0 && r->res.exit_code == 0 ? 0 : 1;
}

SHELL_CMD_NOWAIT(programs, "programs", "the user programs, built into the kernel or loaded from the host at boot (scripts/mosaic-run --program): what each does, what its argument means")
{
	if (argc != 1)
		return SHELL_USAGE;
	for (unsigned i = 0; i < utask_program_count(); i++) {
		const struct user_program *p = utask_program_at(i);
		const char *what = p->about, *arg = what + strlen(what) + 1;
		char line[200];
		kprintf("  %-10s ", p->name);
		shell_print_wrapped(what, 13, 13);
		snprintf(line, sizeof line, "arg: %s; %lu bytes", arg, (uint64_t)(p->end - p->start));
		kprintf("%13s", "");
		shell_print_wrapped(line, 13, 18);
	}
	return 0;
}

/* How long a kill waits for a task that a `run` is still loading, ms of machine time (loading
 * takes well under one). */
#define RUN_START_WAIT_MS 1000
#define RUN_START_POLL_US 1000 /* how often it looks: each look lets QEMU run the other harts */

static bool run_loading(uint64_t core)
{
	return (runs[core].state == RUN_FOREGROUND || runs[core].state == RUN_BACKGROUND) &&
	       harts[core].state == HART_BUSY && !__atomic_load_n(&harts[core].task_serial, __ATOMIC_ACQUIRE);
}

/* A run the shell just started may still be loading its task: a kill typed at once then waits
 * for it to start rather than find no task. It sleeps in WFI between looks, not in the core's
 * wait, for it may run from a task's trap on the shell's core (shell_task_edge), where waiting
 * would nest other work; a spin would hold the emulator's one thread on this hart, away from
 * the core that loads. */
static void await_run_start(uint64_t core)
{
	if (core >= hart_count || core == this_cpu())
		return;
	uint64_t until = timer_now() + timer_us_to_ticks(RUN_START_WAIT_MS * 1000);
	while (run_loading(core) && timer_now() < until) {
		uint64_t next = timer_now() + timer_us_to_ticks(RUN_START_POLL_US);
		WAIT_UNTIL(!run_loading(core), next < until ? next : until);
	}
}

/* When the kill was made: the shell core's clock at its first kill (each task ends no earlier,
 * docs/microkernel.md). */
static const char *kill_clock(char *buf, uint64_t at_ns)
{
	snprintf(buf, 40, "%lu us of %s time", at_ns / 1000, vtime_active ? "virtual" : "serial");
	return buf;
}

SHELL_CMD_NOWAIT(kill, "kill CORE | kill job J",
	  "kill the user task on CORE (every task time-sliced there), or every task of job J (its id as 'mk' and "
	  "'jobs' show it)")
{
	uint64_t v;
	char clock[40];
	if (argc == 2 && parse_u64(argv[1], &v)) {
		await_run_start(v);
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
