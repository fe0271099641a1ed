/* Names of the kernel's error numbers, for reports and the shell. */
#include "kernel/core/errno.h"

const char *kstrerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0: return "success";
	case EPERM: return "not permitted";
	case ENOENT: return "not found";
	case ENXIO: return "no such core";
	case E2BIG: return "argument list too long";
	case ENOEXEC: return "not a loadable program";
	case ECHILD: return "no job outstanding";
	case EAGAIN: return "nothing ready, try again";
	case ENOMEM: return "out of memory";
	case EFAULT: return "bad address";
	case EBUSY: return "destination mailbox full (no credit)";
	case EINVAL: return "invalid argument";
	case ENOSPC: return "no room left";
	case ENOSYS: return "not implemented";
	case EOVERFLOW: return "buffer too small for the message";
	case EMSGSIZE: return "message too long";
	case ENOTSUP: return "not supported here";
	case ETIMEDOUT: return "timed out";
	case ECANCELED: return "cancelled";
	default: return "unknown error";
	}
}
