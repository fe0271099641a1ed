/*
 * A canonical serialisation of the checked system's state, and its hash: what
 * the protocol's future depends on (wait queues, closed requests, jobs, parts,
 * propagation records, messages in flight, armed timers), written field by field
 * so that padding, pointers and the observers' timestamps never count, and sets
 * (closed requests, origins, timers) written sorted. Two states with the same
 * serialisation behave the same from there on: the exhaustive checker visits one.
 */
#ifndef CHECKER_SERIALIZE_H
#define CHECKER_SERIALIZE_H

#include "checker/env.h"

/* 128-bit hash of the whole system (micro-kernels, channels, timers, jobs' progress). */
void ser_system(uint64_t out[2]);
/* 64-bit hash of one micro-kernel's own state. */
uint64_t ser_mk_hash(const struct mk *m);

#endif
