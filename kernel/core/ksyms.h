/*
 * The kernel's own symbol table, so backtraces name functions without a debugger.
 * scripts/gen-ksyms builds it from the linked kernel (see the Makefile's second link).
 */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stdint.h>

/* Name of the function holding addr and the offset into it, or NULL. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);
/* Address of a function by name, or 0. */

#endif
