/* The `share` shell command: a share group (kernel/share.h) of N copies of a program on
 * C pico-kernels, with a wait mode and a placement; one line per task (its exit and its
 * speed on the cores' clocks) and a summary, also as a JSON line for scripts/bench-balance. */
#include "kernel/share.h"
#include "kernel/shell.h"
#include "kernel/hart.h"
#include "kernel/domain.h"
#include "kernel/errno.h"
#include "kernel/console.h"
#include "kernel/kheap.h"
#include "kernel/vtime.h"
#include "lib/string.h"

static int word_index(const char *w, const char *const *names, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(w, names[i]))
			return (int)i;
	return -1;
}

/* speed of a task in permille: CPU time / real time */
static uint64_t speed_of(const struct share_task *t) { return t->real_ns ? t->cpu_ns * 1000 / t->real_ns : 0; }

static void report(const struct share_group *g, bool quiet)
{
	uint64_t lo = UINT64_MAX, hi = 0, sum = 0, moves = 0;
	int bad = 0;
	for (unsigned k = 0; k < g->ntasks; k++) {
		const struct share_task *t = &g->tasks[k];
		uint64_t sp = speed_of(t);
		lo = sp < lo ? sp : lo;
		hi = sp > hi ? sp : hi;
		sum += sp;
		moves += t->migrations;
		bad |= t->res.status != 0;
		if (quiet)
			continue;
		const char *how = t->res.status == 0 ? "exited" : t->res.status == -EFAULT ? "killed" : "not started";
		kprintf("share: rank %u core %u->%u %s %d cpu_us %lu sys_us %lu real_us %lu speed %lu.%03lu slices %lu "
			"moves %lu\n",
			t->rank, t->first_core, t->last_core, how, t->res.status == 0 ? t->res.exit_code : t->res.status,
			t->cpu_ns / 1000, t->sys_ns / 1000, t->real_ns / 1000, sp / 1000, sp % 1000, t->slices,
			t->migrations);
	}
	kprintf("share: %u tasks on %u cores, wait %s, place %s, slice %lu us: run_us %lu, speed min %lu.%03lu "
		"max %lu.%03lu, %u migrations, %u barriers%s\n",
		g->ntasks, g->ncores, share_wait_names[g->wait], share_place_names[g->place], share_slice_us,
		g->run_ns / 1000, lo / 1000, lo % 1000, hi / 1000, hi % 1000, g->migrations, g->barriers,
		bad ? ", FAILED" : "");
	kprintf("SHAREJSON {\"program\":\"%s\",\"arg\":%lu,\"ntasks\":%u,\"ncores\":%u,\"wait\":\"%s\",\"place\":\"%s\","
		"\"slice_us\":%lu,\"balance_us\":%lu,\"clock\":\"%s\",\"run_ns\":%lu,\"speed_min\":%lu,\"speed_max\":%lu,"
		"\"speed_mean\":%lu,\"migrations\":%u,\"task_moves\":%lu,\"barriers\":%u,\"ok\":%s}\n",
		g->name, g->arg, g->ntasks, g->ncores, share_wait_names[g->wait], share_place_names[g->place],
		share_slice_us, share_balance_us, vtime_active ? "virtual" : "serial", g->run_ns, lo, hi,
		sum / g->ntasks, g->migrations, moves, g->barriers, bad ? "false" : "true");
}

SHELL_CMD(share, "share PROGRAM N [ARG] [cores C | core K] [wait spin|yield|sleep] [place pinned|rr|speed] [cpu MS] [quiet]",
	  "run N copies (ranks) of a program time-sliced on C pico-kernels (default 1), with a barrier wait mode "
	  "and a placement; each task's speed is cpu / real time")
{
	if (argc < 3)
		return SHELL_USAGE;
	uint64_t n, arg = 0, ncores = 1, core = hart_count, cpu_ms = 0;
	if (!parse_u64(argv[2], &n))
		return SHELL_USAGE;
	if (n == 0 || n > SHARE_TASKS_MAX) {
		kprintf("share: N must be 1..%u\n", SHARE_TASKS_MAX);
		return SHELL_USAGE_SHOWN;
	}
	int i = 3, wait = SHARE_WAIT_SPIN, place = SHARE_PLACE_PINNED;
	if (argc > 3 && argv[3][0] >= '0' && argv[3][0] <= '9' && !parse_u64(argv[i++], &arg))
		return SHELL_USAGE;
	bool quiet = false, chose_core = false, chose_cores = false;
	for (; i < argc; i += 2) {
		if (!strcmp(argv[i], "quiet")) {
			quiet = true;
			i--;
			continue;
		}
		if (i + 1 >= argc) {
			kprintf("share: '%s' needs a value\n", argv[i]);
			return SHELL_USAGE;
		}
		if (!strcmp(argv[i], "wait") || !strcmp(argv[i], "place")) {
			bool w = argv[i][0] == 'w';
			int v = w ? word_index(argv[i + 1], share_wait_names, SHARE_WAITS)
				  : word_index(argv[i + 1], share_place_names, SHARE_PLACES);
			if (v < 0) {
				kprintf("share: unknown %s '%s' (%s)\n", argv[i], argv[i + 1],
					w ? "spin, yield or sleep" : "pinned, rr or speed");
				return SHELL_USAGE_SHOWN;
			}
			*(w ? &wait : &place) = v;
			continue;
		}
		uint64_t *into = !strcmp(argv[i], "core") ? &core : !strcmp(argv[i], "cores") ? &ncores
							     : !strcmp(argv[i], "cpu")     ? &cpu_ms
											   : 0;
		if (!into) {
			kprintf("share: unknown word '%s'\n", argv[i]);
			return SHELL_USAGE;
		}
		if (!parse_u64(argv[i + 1], into))
			return SHELL_USAGE;
		chose_core |= into == &core;
		chose_cores |= into == &ncores;
	}
	if (chose_core && chose_cores) {
		kprintf("share: give either core K or cores C\n");
		return SHELL_USAGE_SHOWN;
	}
	if (ncores == 0 || ncores > n || ncores > SHARE_CORES_MAX || n > ncores * SHARE_MAX) {
		kprintf("share: C must be 1..%u, at most N, and N at most %u per core\n", SHARE_CORES_MAX, SHARE_MAX);
		return SHELL_USAGE_SHOWN;
	}
	if (cpu_ms > 86400000) {
		kprintf("share: cpu MS must be 0..86400000\n");
		return SHELL_USAGE_SHOWN;
	}
	if (!user_program_find(argv[1])) {
		kprintf("share: no program '%s' (see 'programs')\n", argv[1]);
		return SHELL_USAGE_SHOWN;
	}
	struct share_group *g = kmalloc(sizeof *g);
	if (!g) {
		kprintf("share: out of memory\n");
		return 1;
	}
	memset(g, 0, sizeof *g);
	*g = (struct share_group){.name = argv[1], .arg = arg, .cpu_ms = cpu_ms, .ntasks = (unsigned)n,
				  .ncores = (unsigned)ncores, .wait = (enum share_wait)wait,
				  .place = (enum share_place)place};
	if (chose_core) {
		if (core >= hart_count || is_master((unsigned)core) || core == this_cpu()) {
			kprintf("share: core %lu is not a pico-kernel other than the shell's\n", core);
			kfree(g);
			return SHELL_USAGE_SHOWN;
		}
		g->cores[0] = (uint16_t)core;
	} else if (share_idle_picos(g->cores, g->ncores) < g->ncores) {
		kprintf("share: fewer than %lu idle pico-kernels besides the shell's core\n", ncores);
		kfree(g);
		return SHELL_USAGE_SHOWN;
	}
	int e = share_group_run(g);
	if (e) {
		kprintf("share: cannot run: %s\n", kstrerror(e));
		kfree(g);
		return 1;
	}
	report(g, quiet);
	int status = 0;
	for (unsigned k = 0; k < g->ntasks; k++)
		status |= g->tasks[k].res.status != 0;
	kfree(g);
	return status;
}
