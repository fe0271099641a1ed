/* Texts of the kernel's error numbers, for reports and the shell. */
#include "kernel/core/errno.h"

const char *kstrerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
#define KERROR(NAME, nr, text) \
	case NAME:             \
		return text;
#include "portable/abi/errors.h"
#undef KERROR
	default:
		return "unknown error";
	}
}
