/*
 * The `coll` shell command: the collectives' algorithms, their tuned table, and tuning it
 * (kernel/msg/coll_tune.c). Tuning changes what every later collective picks, so it only runs
 * on an idle machine: no user task on any core and no job of the shell's in the system. While
 * it runs the shell is busy, and with no task alive nothing else can start one.
 */
#include "kernel/msg/coll_tune.h"
#include "kernel/core/hart.h"
#include "kernel/core/errno.h"
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "kernel/alloc/alloc.h"
#include "drivers/timer.h"
#include "lib/string.h"

const char *coll_tune_refusal(void)
{
	for (unsigned c = 0; c < hart_count; c++)
		if (__atomic_load_n(&harts[c].utask, __ATOMIC_ACQUIRE))
			return "a user task runs (tuning needs every core idle: the table may not change under a collective)";
	if (alloc_outstanding())
		return "a job is in the system ('jobs wait' first: its tasks must not see the table change)";
	return 0;
}


static void print_table(bool json)
{
	bool tuned = coll_table_tuned();
	if (!json)
		kprintf("coll: %s; rows: collective and group size (up to), columns: block bytes (up to)\n",
			tuned ? "tuned table" : "not tuned yet (every entry is the default; 'coll tune' measures)");
	if (!json) {
		kprintf("%-10s %5s", "coll", "n<=");
		for (unsigned s = 0; s < COLL_SIZE_CLASSES; s++)
			kprintf(" %16u", coll_size_of_class(s));
		kprintf("\n");
	}
	for (unsigned k = 0; k < COLL_KINDS; k++)
		for (unsigned c = 1; c < COLL_GROUP_CLASSES && (1u << (c - 1)) < hart_count; c++) {
			if (!json)
				kprintf("%-10s %5u", msg_coll_name((enum msg_coll)k), 1u << c);
			for (unsigned s = 0; s < (k == COLL_BARRIER ? 1u : COLL_SIZE_CLASSES); s++) {
				uint64_t ns;
				unsigned a = coll_table_entry((enum msg_coll)k, c, s, &ns);
				enum msg_algo eff = (enum msg_algo)msg_coll_pick((enum msg_coll)k, MSG_LOOSE, 1u << c, coll_size_of_class(s));
				if (json)
					kprintf("coll: {\"kind\": \"table\", \"coll\": \"%s\", \"n_max\": %u, \"bytes_max\": %u, "
						"\"algo\": \"%s\", \"measured\": %s, \"ns\": %lu}\n",
						msg_coll_name((enum msg_coll)k), 1u << c, k == COLL_BARRIER ? 0 : coll_size_of_class(s),
						msg_algo_name(eff), a ? "true" : "false", a ? ns : 0);
				else if (a)
					kprintf(" %9s %6lu", msg_algo_name(eff), ns);
				else
					kprintf(" %9s(%s)", "", msg_algo_name(eff));
			}
			if (!json)
				kprintf("\n");
		}
}

SHELL_CMD(coll, "coll tune [reps: 1..15, default 3] [verbose] | coll table [json] | coll algos",
	  "collectives: measure every algorithm and keep the fastest per group and message size for this boot "
	  "(tune), show the choices with the winners' ns (table; '(x)': not measured, x is used), list the algorithms")
{
	if (argc >= 2 && strcmp(argv[1], "algos") == 0 && argc == 2) {
		for (unsigned k = 0; k < COLL_KINDS; k++) {
			kprintf("%-10s", msg_coll_name((enum msg_coll)k));
			for (unsigned a = 1; a < MSG_ALGO_COUNT; a++)
				if (msg_coll_algos((enum msg_coll)k) & (1u << a))
					kprintf(" %s", msg_algo_name((enum msg_algo)a));
			kprintf("   (untuned: %s)\n", msg_algo_name(coll_untuned((enum msg_coll)k)));
		}
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "table") == 0 && argc <= 3) {
		if (argc == 3 && strcmp(argv[2], "json") != 0)
			return SHELL_USAGE;
		print_table(argc == 3);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "tune") == 0 && argc <= 4) {
		uint64_t reps = 3;
		bool verbose = false;
		for (int i = 2; i < argc; i++) {
			if (strcmp(argv[i], "verbose") == 0)
				verbose = true;
			else if (!parse_u64(argv[i], &reps) || reps < 1 || reps > COLL_MEASURE_MAX_REPS)
				return SHELL_USAGE;
		}
		const char *why = coll_tune_refusal();
		if (why) {
			kprintf("coll: tune refused: %s; the table is as it was\n", why);
			return 1;
		}
		uint64_t t0 = timer_now();
		int e = coll_tune((unsigned)reps, verbose);
		if (e) {
			kprintf("coll: tune failed: %s%s; the table is as it was\n", kstrerror(e),
				e == -EBUSY ? " (a core is busy: tuning needs every core idle)" : "");
			return 1;
		}
		kprintf("coll: tuned on %u cores in %lu ms of this core's clock\n", hart_count,
			timer_ticks_to_ns(timer_now() - t0) / 1000000);
		print_table(false);
		return 0;
	}
	return SHELL_USAGE;
}
