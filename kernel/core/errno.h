/*
 * Error numbers of the kernel and its calls (returned negated), from their one declaration in
 * portable/abi/errors.h, which user programs read too.
 */
#ifndef KERNEL_ERRNO_H
#define KERNEL_ERRNO_H

enum kernel_errno {
#define KERROR(NAME, nr, text) NAME = nr,
#include "portable/abi/errors.h"
#undef KERROR
};

/* The error's text ("unknown error" for a number not declared); err may be negated. */
const char *kstrerror(int err);

#endif
