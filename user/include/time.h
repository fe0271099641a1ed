/*
 * picolibc's <time.h>, with the POSIX clocks it declares only for hosted targets: clock_gettime
 * and clock_getres on CLOCK_REALTIME and CLOCK_MONOTONIC, both the core's clock (virtual or
 * serial, docs/time.md) from the task's start of the machine (user/runtime.c). Programs built by
 * the Makefile and by scripts/mosaic-cc find it first (-Iuser/include).
 */
#include_next <time.h>

#ifndef MOSAIC_TIME_H
#define MOSAIC_TIME_H

#ifndef CLOCK_REALTIME
#define CLOCK_REALTIME ((clockid_t)1)
#endif
#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC ((clockid_t)4)
#endif
int clock_gettime(clockid_t clock_id, struct timespec *tp);
int clock_getres(clockid_t clock_id, struct timespec *res);

#endif
