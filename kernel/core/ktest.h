/*
 * In-kernel tests. A test is a function registered with KTEST(suite, name) in a
 * section of its own; `ktest=all` (or the shell's `ktest`) runs every suite but
 * the standalone ones (KTEST_STANDALONE: those that end the run, such as panic),
 * which only run when named. Output: one line per test, then
 * "ktest: N passed, N failed".
 */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include <stdbool.h>
#include <stdint.h>

struct ktest_ctx {
	bool failed;
	const char *file;
	int line;
	char why[160];
};

struct ktest {
	const char *suite;
	const char *name;
	void (*fn)(struct ktest_ctx *kt);
	bool standalone;
};

#define KTEST_DEFINE(s, n, alone)                                                                       \
	static void ktest_##s##_##n(struct ktest_ctx *kt);                                               \
	static const struct ktest __ktest_##s##_##n __attribute__((used, section(".ktests"), aligned(8))) = { \
		.suite = #s, .name = #n, .fn = ktest_##s##_##n, .standalone = alone};                     \
	static void ktest_##s##_##n(struct ktest_ctx *kt __attribute__((unused)))

#define KTEST(suite, name) KTEST_DEFINE(suite, name, false)
#define KTEST_STANDALONE(suite, name) KTEST_DEFINE(suite, name, true)

void ktest_fail(struct ktest_ctx *kt, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define KT_ASSERT(cond)                                                      \
	do {                                                                 \
		if (!(cond)) {                                               \
			ktest_fail(kt, __FILE__, __LINE__, "%s", #cond);     \
			return;                                              \
		}                                                            \
	} while (0)

#define KT_ASSERT_EQ(a, b)                                                                               \
	do {                                                                                             \
		int64_t __a = (int64_t)(a), __b = (int64_t)(b);                                          \
		if (__a != __b) {                                                                        \
			ktest_fail(kt, __FILE__, __LINE__, "%s == %s (%ld != %ld)", #a, #b, __a, __b);    \
			return;                                                                          \
		}                                                                                        \
	} while (0)

/* Runs fn(arg) on every listed core at once (the caller's own core too, if listed) and waits
 * for all; false if a core could not take the call. For tests that need many harts. */
bool ktest_run_on(const uint16_t *cores, unsigned n, void (*fn)(void *), void *arg);
/* The same on every online core. */
bool ktest_run_on_all(void (*fn)(void *), void *arg);

/* Runs "all" or a comma-separated list of suites; returns failures, or -1 for an unknown suite. */
int ktest_run(const char *spec);
/* Prints the registered suites. */
void ktest_list(void);

#endif
