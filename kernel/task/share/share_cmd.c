/* The `share` shell command: a share group (kernel/task/share/share.h) of N copies of a program on
 * C pico-kernels, with a wait mode and a placement; one line per task (its exit and its
 * speed on the cores' clocks) and a summary, also as a JSON line for scripts/bench-balance. */
#include "kernel/task/share/share.h"
#include "kernel/console/shell.h"
#include "kernel/core/hart.h"
#include "kernel/domain/domain.h"
#include "kernel/core/errno.h"
#include "kernel/console/console.h"
#include "kernel/mm/kheap.h"
#include "kernel/time/vtime.h"
#include "lib/string.h"

/* The group runs in the foreground: Ctrl-C kills every task of it, as it kills a foreground run. */
static bool ctrl_c_typed(struct share_group *g, bool take)
{
	(void)g;
	if (!take)
		return console_key_waiting(CONSOLE_CTRL_C);
	if (!console_take_key(CONSOLE_CTRL_C))
		return false;
	kprintf("^C\nshare: killing every task of the group\n");
	return true;
}

SHELL_CMD(share, "share PROGRAM N [ARG] [cores C | core K] [wait spin|yield|sleep] [place pinned|rr|speed] [cpu MS] [quiet]",
	  "run N copies (ranks) of a program time-sliced on C pico-kernels (default 1), with a barrier wait mode "
	  "and a placement, and wait for their end (Ctrl-C kills them all); each task's speed is cpu / real time")
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
			int v = w ? share_wait_parse(argv[i + 1])
				  : share_place_parse(argv[i + 1]);
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
	if (shell_interactive_here())
		g->interrupted = ctrl_c_typed;
	int e = share_group_run(g);
	if (e) {
		kprintf("share: cannot run: %s\n", kstrerror(e));
		kfree(g);
		return 1;
	}
	share_report(g, "share", quiet);
	int status = 0;
	for (unsigned k = 0; k < g->ntasks; k++)
		status |= g->tasks[k].res.status != 0;
	kfree(g);
	return status;
}
