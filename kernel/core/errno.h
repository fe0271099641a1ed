/*
 * Error numbers of the kernel and its calls (returned negated). The numbers
 * follow POSIX/Linux so they read familiar; each use is documented where returned.
 */
#ifndef KERNEL_ERRNO_H
#define KERNEL_ERRNO_H

#define EPERM 1
#define ENOENT 2
#define ESRCH 3      /* no such task */
#define EINTR 4      /* the waiting task is being killed */
#define ENXIO 6      /* no such core / destination */
#define E2BIG 7
#define ENOEXEC 8    /* not a program Mosaic can load */
#define ECHILD 10    /* job_wait: the task has no job outstanding */
#define EAGAIN 11    /* nothing to receive right now */
#define ENOMEM 12
#define EFAULT 14
#define EBUSY 16     /* the destination mailbox has no free slot (no credit); a claim's team still runs */
#define EINVAL 22
#define ENOSPC 28    /* shared windows: as many alive as the kernel keeps, or a task maps */
#define ENOSYS 38
#define EOVERFLOW 75 /* receive buffer smaller than the matched message; the message is kept */
#define EMSGSIZE 90  /* message body above the maximum */
#define ENOTSUP 95   /* claims: not in partial simulation, not from a micro-kernel */
#define ETIMEDOUT 110
#define ECANCELED 125 /* a task was cancelled */

const char *kstrerror(int err);

#endif
