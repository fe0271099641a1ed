/*
 * The registry of shared windows (shm.h). It is shared by every core, so it is the
 * exception the architecture documents: one lock, held to look up, make or drop an
 * entry (making one allocates its pages under it), never while pages are mapped
 * into a task.
 */
#include "kernel/mm/shm.h"
#include "kernel/core/spinlock.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/errno.h"
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "lib/string.h"

struct shm_window {
	uint32_t job;          /* 0: the entry is free */
	uint32_t pages;
	uint32_t refs;
	uint64_t pa;
	char name[SHM_NAME_MAX];
};

static struct shm_window windows[SHM_WINDOWS];
static struct spinlock shm_lock = SPINLOCK_INIT("shm");

int shm_attach(uint32_t job, const char *name, uint64_t bytes, uint64_t *pa, uint32_t *pages)
{
	uint32_t want = (uint32_t)((bytes + PAGE_SIZE - 1) / PAGE_SIZE);
	uint64_t s = spin_lock(&shm_lock);
	struct shm_window *free_entry = 0;
	for (unsigned i = 0; i < SHM_WINDOWS; i++) {
		struct shm_window *w = &windows[i];
		if (!w->job) {
			free_entry = free_entry ? free_entry : w;
			continue;
		}
		if (w->job == job && strcmp(w->name, name) == 0) {
			int e = w->pages == want ? 0 : -EINVAL;
			if (!e) {
				w->refs++;
				*pa = w->pa;
				*pages = w->pages;
			}
			spin_unlock(&shm_lock, s);
			return e;
		}
	}
	/* the pages are found under the lock (page_alloc's own lock nests inside it; it never takes
	 * this one), so a second task opening the name meanwhile waits and then sees the window */
	void *mem = free_entry ? page_alloc(want) : 0; /* zeroed */
	if (!mem) {
		spin_unlock(&shm_lock, s);
		return free_entry ? -ENOMEM : -ENOSPC;
	}
	*free_entry = (struct shm_window){.job = job, .pages = want, .refs = 1, .pa = (uint64_t)mem};
	strlcpy(free_entry->name, name, sizeof free_entry->name);
	*pa = free_entry->pa;
	*pages = want;
	spin_unlock(&shm_lock, s);
	return 0;
}

void shm_detach(uint64_t pa)
{
	void *mem = 0;
	uint32_t pages = 0;
	uint64_t s = spin_lock(&shm_lock);
	for (unsigned i = 0; i < SHM_WINDOWS; i++) {
		struct shm_window *w = &windows[i];
		if (w->job && w->pa == pa) {
			if (!--w->refs) {
				mem = (void *)w->pa;
				pages = w->pages;
				w->job = 0;
			}
			break;
		}
	}
	spin_unlock(&shm_lock, s);
	if (mem)
		page_free(mem, pages);
}

SHELL_CMD(shm, "shm", "the shared-memory windows of jobs: job, name, size, tasks mapping it")
{
	(void)argc;
	(void)argv;
	unsigned n = 0;
	uint64_t s = spin_lock(&shm_lock);
	struct shm_window copy[SHM_WINDOWS];
	memcpy(copy, windows, sizeof copy);
	spin_unlock(&shm_lock, s);
	for (unsigned i = 0; i < SHM_WINDOWS; i++)
		if (copy[i].job) {
			if (!n++)
				kprintf("  job  name                              bytes  tasks\n");
			kprintf("%5u  %-32s %6lu  %5u\n", copy[i].job, copy[i].name, (uint64_t)copy[i].pages * PAGE_SIZE,
				copy[i].refs);
		}
	if (!n)
		kprintf("no shared windows\n");
	return 0;
}
