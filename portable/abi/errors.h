/*
 * Every error number of the kernel and its calls, declared once: the kernel's E* names and
 * kstrerror (kernel/core/errno.h), the user programs' MOSAIC_E* (user/mosaic.h). A call
 * returns the number negated. The numbers follow POSIX/Linux so they read familiar; each
 * use is documented where it is returned.
 *
 * No include guard: an includer defines KERROR(NAME, nr, text), includes this file and
 * undefines KERROR.
 */
KERROR(EPERM, 1, "not permitted")
KERROR(ENOENT, 2, "not found")
KERROR(ESRCH, 3, "no such task")
KERROR(EINTR, 4, "interrupted: the waiting task is being killed")
KERROR(ENXIO, 6, "no such core")
KERROR(E2BIG, 7, "argument list too long")
KERROR(ENOEXEC, 8, "not a loadable program")
KERROR(ECHILD, 10, "no job outstanding")
KERROR(EAGAIN, 11, "nothing ready, try again")
KERROR(ENOMEM, 12, "out of memory")
KERROR(EFAULT, 14, "bad address")
KERROR(EBUSY, 16, "busy: no credit, no free slot, or a team still runs")
KERROR(EINVAL, 22, "invalid argument")
KERROR(ENOSPC, 28, "no room left")
KERROR(ENOSYS, 38, "not implemented")
KERROR(EOVERFLOW, 75, "buffer too small for the message")
KERROR(EMSGSIZE, 90, "message too long")
KERROR(ENOTSUP, 95, "not supported here")
KERROR(ETIMEDOUT, 110, "timed out")
KERROR(ECANCELED, 125, "cancelled")
