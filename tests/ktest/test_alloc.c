/*
 * ktest suite "alloc": the job allocation protocol under the policy of the boot
 * arguments (run it with policy=ac and policy=ab), in whichever mode the boot
 * chose (real tasks on the default layout, or partial_sim=N). Every run checks
 * the invariants (alloc_check) and fails on any violation.
 */
#include "kernel/core/ktest.h"
#include "kernel/alloc/proto.h"
#include "kernel/domain/domain.h"
#include "kernel/core/errno.h"
#include "kernel/core/hart.h"
#include "drivers/timer.h"
#include "lib/string.h"
#include "lib/format.h"
#include "kernel/console/shell.h"

int alloc_scenario(const char *spec, unsigned reps, bool json, bool table, uint64_t timeout_s);
extern uint64_t alloc_violations;

static int scenario(const char *a, const char *b, const char *c, const char *d)
{
	char spec[96];
	snprintf(spec, sizeof spec, "%s%s%s%s%s%s%s", a, b ? " " : "", b ? b : "", c ? " " : "", c ? c : "",
		 d ? " " : "", d ? d : "");
	return alloc_scenario(spec, 1, false, false, 120);
}

/* Thesis Fig. 2.2: two domains submit jobs of 12 and 16 cores at once; both must complete. */
KTEST_STANDALONE(alloc, fig22_deadlock_resolved)
{
	KT_ASSERT(layout.ndomains >= 2 && alloc_machine_cores() >= 16);
	uint64_t v0 = alloc_violations;
	KT_ASSERT_EQ(scenario("fig22", 0, 0, 0), 0);
	KT_ASSERT_EQ(alloc_violations, v0);
}

/* A job its home domain can hold is allocated there without a protocol message. */
KTEST_STANDALONE(alloc, local_job_sends_no_message)
{
	struct job_spec s = {.home = 0, .ntasks = 1, .duration_us = layout.partial ? 100 : 0};
	strlcpy(s.program, layout.partial ? ALLOC_SIM_PROGRAM : "compute", sizeof s.program);
	KT_ASSERT(alloc_domain_cores(0) >= 1);
	KT_ASSERT_EQ(alloc_submit(&s, 0), 0);
	static struct job_report r; /* a few KiB: not on the stack */
	KT_ASSERT_EQ(alloc_collect(&r, true, 60000000), 0);
	KT_ASSERT_EQ(r.status, JOB_OK);
	KT_ASSERT(!r.global);
	/* the only messages are its own share's end reports inside the domain */
	KT_ASSERT_EQ(r.attempts, 1);
	KT_ASSERT_EQ(r.cancels, 0);
	KT_ASSERT(r.t_submit_ns <= r.t_alloc_ns && r.t_alloc_ns <= r.t_start_ns && r.t_start_ns <= r.t_end_ns);
}

/* Bad input gets a clear error and disturbs nothing: a good job still runs afterwards. */
KTEST_STANDALONE(alloc, bad_input_refused)
{
	struct job_spec s = {.home = 0, .ntasks = 0, .duration_us = layout.partial ? 100 : 0};
	strlcpy(s.program, layout.partial ? ALLOC_SIM_PROGRAM : "compute", sizeof s.program);
	const char *why = 0;
	KT_ASSERT_EQ(alloc_submit(&s, &why), -EINVAL);
	KT_ASSERT(why && strstr(why, "at least one core"));
	s.ntasks = alloc_machine_cores() + 1;
	KT_ASSERT_EQ(alloc_submit(&s, &why), -E2BIG);
	KT_ASSERT(strstr(why, "more than the machine has"));
	s.ntasks = 1;
	s.home = (uint16_t)layout.ndomains;
	KT_ASSERT_EQ(alloc_submit(&s, &why), -EINVAL);
	s.home = 0;
	if (layout.partial) {
		s.duration_us = 0;
		KT_ASSERT_EQ(alloc_submit(&s, &why), -EINVAL);
		s.duration_us = 100;
	} else {
		strlcpy(s.program, "no-such-prog", sizeof s.program);
		KT_ASSERT_EQ(alloc_submit(&s, &why), -ENOENT);
		KT_ASSERT(strstr(why, "no program"));
		strlcpy(s.program, "compute", sizeof s.program);
	}
	KT_ASSERT_EQ(alloc_outstanding(), 0);
	KT_ASSERT_EQ(scenario("0 0 0 xx", 0, 0, 0), 2);     /* malformed scenario */
	KT_ASSERT_EQ(scenario("corners", 0, 0, 0), 2);      /* missing argument */
	KT_ASSERT_EQ(alloc_submit(&s, &why), 0);
	static struct job_report r; /* a few KiB: not on the stack */
	KT_ASSERT_EQ(alloc_collect(&r, true, 60000000), 0);
	KT_ASSERT_EQ(r.status, JOB_OK);
}

/* Every scheme's propagation reaches every micro-kernel exactly once (the echo counts them). */
KTEST_STANDALONE(alloc, propagation_reaches_everyone)
{
	enum alloc_scheme saved = alloc_cfg.scheme;
	char w[8], h[8];
	snprintf(w, sizeof w, "%u", layout.dx);
	snprintf(h, sizeof h, "%u", layout.dy);
	char line[64];
	snprintf(line, sizeof line, "propbench %s %s reps 1", w, h);
	for (unsigned s = 0; s < ALLOC_SCHEMES; s++) {
		alloc_cfg.scheme = (enum alloc_scheme)s;
		int st = shell_exec(line);
		alloc_cfg.scheme = saved;
		KT_ASSERT_EQ(st, 0);
	}
}

/* Randomised stress: seeds of concurrent submissions from random micro-kernels, sizes from one
 * core to the whole machine, under every scheme; every job must end, no invariant may break. */
KTEST_STANDALONE(alloc, random_stress_all_schemes)
{
	enum alloc_scheme saved = alloc_cfg.scheme;
	uint64_t v0 = alloc_violations;
	for (unsigned s = 0; s < ALLOC_SCHEMES; s++)
		for (unsigned k = 0; k < 4; k++) {
			char seed[8];
			snprintf(seed, sizeof seed, "%u", 1 + s * 4 + k); /* 16 seeds, each scheme 4 of them */
			alloc_cfg.scheme = (enum alloc_scheme)s;
			int st = scenario("random", seed, layout.partial ? "24" : "10", layout.partial ? "800" : 0);
			alloc_cfg.scheme = saved;
			KT_ASSERT_EQ(st, 0);
		}
	KT_ASSERT_EQ(alloc_violations, v0);
}


/* A grid link fails in the middle of a run under the adaptive scheme: the jobs still end, and
 * the trees formed afterwards do not use the link. */
KTEST_STANDALONE(alloc, link_failure_under_adaptive)
{
	KT_ASSERT(layout.ndomains >= 2);
	enum alloc_scheme saved = alloc_cfg.scheme;
	alloc_cfg.scheme = ALLOC_SCHEME_ADAPTIVE;
	uint64_t v0 = alloc_violations;
	/* half the jobs, then the failure, then the rest: submissions overlap the failure */
	struct job_spec s = {.duration_us = layout.partial ? 500 : 0};
	strlcpy(s.program, layout.partial ? ALLOC_SIM_PROGRAM : "compute", sizeof s.program);
	unsigned n = 0;
	for (unsigned i = 0; i < 8; i++) {
		if (i == 4)
			KT_ASSERT_EQ(shell_exec("linkfail 0 1"), 0);
		s.home = (uint16_t)(i * 7 % layout.ndomains);
		s.ntasks = 1 + (i * 5) % alloc_machine_cores();
		if (i % 3 == 0)
			s.ntasks = alloc_machine_cores();
		KT_ASSERT_EQ(alloc_submit(&s, 0), 0);
		n++;
	}
	for (unsigned i = 0; i < n; i++) {
		static struct job_report r; /* a few KiB: not on the stack */
		KT_ASSERT_EQ(alloc_collect(&r, true, 60000000), 0);
		KT_ASSERT_EQ(r.status, JOB_OK);
	}
	/* every tree formed after the failure (at the new epoch) avoids the link 0-1 */
	char line[40];
	snprintf(line, sizeof line, "propbench %u %u reps 1", layout.dx, layout.dy);
	KT_ASSERT_EQ(shell_exec(line), 0);
	alloc_cfg.scheme = saved;
	const struct tree *t0 = &origin_get(&mks[0], 0)->tree;
	KT_ASSERT(t0->ready && t0->epoch == mks[0].epoch && t0->epoch > 0);
	bool east = grid_y(&alloc_world, 1) == grid_y(&alloc_world, 0);
	KT_ASSERT(!(t0->children & (east ? PROP_E : PROP_S)));
	KT_ASSERT(mks[0].dead && mks[1].dead);
	KT_ASSERT_EQ(alloc_violations, v0);
}
