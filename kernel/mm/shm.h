/*
 * Shared-memory windows between the tasks of one job (the seed's "process shared
 * memory", docs/microkernel.md): a window is named, belongs to a job, and is made by
 * the first of the job's tasks that opens it; the others map the same pages. A task of
 * another job opening the same name gets a window of its own job. A window lives while
 * a task has it mapped, and its pages go back when the last such task ends.
 */
#ifndef KERNEL_SHM_H
#define KERNEL_SHM_H

#include <stdint.h>
#include <stdbool.h>

#define SHM_NAME_MAX 32                /* bytes of a name, its terminating NUL included */
#define SHM_MAX_BYTES (256 * 1024)     /* of one window */
#define SHM_WINDOWS 32                 /* windows alive at once, over all jobs */
#define SHM_PER_TASK 4                 /* windows one task may have mapped */

/* A window's pages: physically contiguous, zeroed when it is made. */
struct shm_mapping {
	uint64_t pa, va;
	uint32_t pages;
};

/*
 * Takes a reference on job `job`'s window `name` of `bytes` bytes, making it if it does not
 * exist yet, and gives its pages. 0; -EINVAL if it exists with another size; -ENOSPC if
 * SHM_WINDOWS are alive; -ENOMEM without pages. Names and sizes are the caller's to check.
 */
int shm_attach(uint32_t job, const char *name, uint64_t bytes, uint64_t *pa, uint32_t *pages);
/* Drops a reference taken by shm_attach; the last one frees the window. */
void shm_detach(uint64_t pa);

#endif
