/* The ktest runner: finds registered tests by suite and prints one line per test. */
#include "kernel/core/ktest.h"
#include "kernel/time/vtime.h"
#include "kernel/core/smp.h"
#include "kernel/time/vclock.h"
#include "kernel/console/console.h"
#include "kernel/console/shell.h"
#include "kernel/core/hart.h"
#include "kernel/domain/background.h"
#include "drivers/timer.h"
#include "lib/string.h"
#include "lib/format.h"
#include <stdarg.h>

extern const struct ktest __ktests_start[], __ktests_end[];

void ktest_fail(struct ktest_ctx *kt, const char *file, int line, const char *fmt, ...)
{
	kt->failed = true;
	kt->file = file;
	kt->line = line;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(kt->why, sizeof kt->why, fmt, ap);
	va_end(ap);
}

static bool suite_known(const char *name, size_t len)
{
	for (const struct ktest *t = __ktests_start; t < __ktests_end; t++)
		if (strlen(t->suite) == len && strncmp(t->suite, name, len) == 0)
			return true;
	return false;
}

static bool selected(const struct ktest *t, const char *spec)
{
	if (strcmp(spec, "all") == 0)
		return !t->standalone;
	size_t n = strlen(t->suite);
	for (const char *p = spec; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && strncmp(p, t->suite, n) == 0)
			return true;
		p += len + (end ? 1 : 0);
	}
	return false;
}

bool ktest_run_on(const uint16_t *cores, unsigned n, void (*fn)(void *), void *arg)
{
	bool ok = true, self = false;
	unsigned me = this_cpu();
	for (unsigned i = 0; i < n; i++) {
		if (cores[i] == me)
			self = true;
		else if (!hart_call(cores[i], fn, arg))
			ok = false;
	}
	if (self)
		fn(arg);
	for (unsigned i = 0; i < n; i++)
		if (cores[i] != me)
			hart_call_wait(cores[i]);
	return ok;
}

bool ktest_run_on_all(void (*fn)(void *), void *arg)
{
	uint16_t cores[MOSAIC_MAX_HARTS];
	for (unsigned i = 0; i < hart_count; i++)
		cores[i] = (uint16_t)i;
	return ktest_run_on(cores, hart_count, fn, arg);
}


/* Thousands of guest instructions all harts have executed so far, as far as each last read its
 * own count (vclock plugin; 0 without it). What a test costs the emulator: under virtual time
 * the clocks hide the waits' instructions, this does not. */
static uint64_t all_harts_kinsns(void)
{
	if (!vclock_present)
		return 0;
	(void)vclock_instret(); /* its own slot: under one host thread the plugin publishes a running hart's count only when it reads it */
	uint64_t sum = 0;
	for (unsigned c = 0; c < hart_count; c++)
		if (harts[c].hartid < VCLOCK_SLOTS)
			sum += vclock_table.slot[harts[c].hartid];
	return sum / 1000;
}

static bool others_idle(void *arg)
{
	(void)arg;
	for (unsigned c = 0; c < hart_count; c++)
		if (c != this_cpu() && __atomic_load_n(&harts[c].state, __ATOMIC_ACQUIRE) == HART_BUSY)
			return false;
	return true;
}

/*
 * The suites take cores with hart_call and expect them idle: with a user task or a job on one
 * they failed with -EBUSY and then hung, a test's started callers waiting for a core that never
 * came. So none runs unless every other core is idle; a core still ending its last task gets
 * KTEST_IDLE_WAIT_MS of machine time. Returns false, with what is busy said, if one stays busy.
 */
#define KTEST_IDLE_WAIT_MS 200
static bool machine_idle(void)
{
	if (core_wait_until(others_idle, 0, timer_now() + timer_us_to_ticks(KTEST_IDLE_WAIT_MS * 1000)))
		return true;
	char busy[MOSAIC_MAX_HARTS * 4 + 1];
	size_t len = 0;
	for (unsigned c = 0; c < hart_count; c++)
		if (c != this_cpu() && __atomic_load_n(&harts[c].state, __ATOMIC_ACQUIRE) == HART_BUSY)
			len += (size_t)snprintf(busy + len, sizeof busy - len, " %u", c);
	busy[len] = 0;
	kprintf("ktest: cannot run: busy core(s)%s (a user task or job runs there: see 'tasks' and 'mk', end it "
		"with 'kill' or wait for it)\n", busy); /* one line, whole, whatever else prints */
	return false;
}

int ktest_run(const char *spec)
{
	if (strcmp(spec, "all") != 0) {
		for (const char *p = spec; *p;) {
			const char *end = strchr(p, ',');
			size_t len = end ? (size_t)(end - p) : strlen(p);
			if (!suite_known(p, len)) {
				kprintf("ktest: unknown suite '%.*s' (try 'ktest list')\n", (int)len, p);
				return -1;
			}
			p += len + (end ? 1 : 0);
		}
	}
	if (!machine_idle()) {
		kprintf("ktest: 0 passed, 1 failed (none run)\n");
		return 1;
	}
	int passed = 0, failed = 0;
	uint64_t k0 = all_harts_kinsns();
	for (const struct ktest *t = __ktests_start; t < __ktests_end; t++) {
		if (!selected(t, spec))
			continue;
		struct ktest_ctx kt = {.failed = false};
		uint64_t t0 = timer_now(), i0 = all_harts_kinsns();
		t->fn(&kt);
		uint64_t us = timer_ticks_to_us(timer_now() - t0), kinsns = all_harts_kinsns() - i0;
		if (kt.failed) {
			failed++;
			kprintf("ktest: FAIL %s.%s (%lu us, %lu k insns): %s:%d: %s\n", t->suite, t->name, us, kinsns,
				kt.file, kt.line, kt.why);
		} else {
			passed++;
			kprintf("ktest: PASS %s.%s (%lu us, %lu k insns)\n", t->suite, t->name, us, kinsns);
		}
	}
	kprintf("ktest: %d passed, %d failed\n", passed, failed);
	if (vclock_present)
		kprintf("ktest: %lu k guest instructions on all harts\n", all_harts_kinsns() - k0);
	smp_print_wakeups();
	vtime_totals();
	return failed;
}

void ktest_list(void)
{
	const char *last = "";
	for (const struct ktest *t = __ktests_start; t < __ktests_end; t++) {
		if (strcmp(t->suite, last) != 0)
			kprintf("%s%s%s", *last ? "\n" : "", t->suite, t->standalone ? " (standalone, not in 'all'):" : ":");
		kprintf(" %s", t->name);
		last = t->suite;
	}
	kprintf("\n");
}

SHELL_CMD(ktest, "ktest [all | list | suite[,suite]]", "run in-kernel test suites (default: all)")
{
	if (argc > 2)
		return SHELL_USAGE;
	if (argc == 2 && strcmp(argv[1], "list") == 0) {
		ktest_list();
		return 0;
	}
	int r = ktest_run(argc == 2 ? argv[1] : "all");
	return r < 0 ? SHELL_USAGE : r > 0 ? 1 : 0;
}
