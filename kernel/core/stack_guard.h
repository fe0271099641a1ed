/*
 * A guard word at the lowest address of every kernel stack (the harts' stacks and the
 * kernel threads'). Kernel stacks are pages from one pool with no unmapped gap between
 * them, so an overflow silently rewrites the neighbouring stack and the neighbour is the
 * one that crashes; checking the word on every trap and after every kernel thread names
 * the stack that overflowed instead (docs/debugging.md).
 */
#ifndef MOSAIC_KERNEL_STACK_GUARD_H
#define MOSAIC_KERNEL_STACK_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#define STACK_GUARD_WORD 0x21216b6361747347ULL /* "Gstack!!" */

static inline void stack_guard_set(void *base) { *(volatile uint64_t *)base = STACK_GUARD_WORD; }

static inline bool stack_guard_intact(const void *base)
{
	return *(const volatile uint64_t *)base == STACK_GUARD_WORD;
}

#endif
