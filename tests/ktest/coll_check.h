/*
 * The collectives' full check, shared by the noc suite (the default how) and the coll
 * suite (every algorithm in both modes): every collective on groups of 1 to 128 cores
 * and on a scattered group, each member checking its own results.
 */
#ifndef TESTS_KTEST_COLL_CHECK_H
#define TESTS_KTEST_COLL_CHECK_H

#include "kernel/core/ktest.h"

#define COLL_CHECK_DEFAULT (-1) /* strict, tuned */
#define COLL_CHECK_VARIANTS 8   /* variant v: mode v & 1, the (v >> 1)-th algorithm of each collective, or auto */

void coll_check_sizes(struct ktest_ctx *kt, int variant);
void coll_check_scattered(struct ktest_ctx *kt, int variant);

#endif
