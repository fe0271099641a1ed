/*
 * The checked system's allocator (arena.h): a bump region with power-of-two size
 * classes and their free lists. The free lists and the bump pointer live in the
 * region's first bytes, so a snapshot of the used bytes is a complete state.
 * penv_alloc/penv_free of the protocol core land here.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS under -std=c11 */
#include "checker/arena.h"
#include "portable/alloc/proto_env.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_BYTES (1ULL << 31) /* reserved, touched only as used */
#define CLASSES 26               /* 16 B .. 512 MiB */

struct arena_head {
	size_t bump;
	void *free[CLASSES];
};

struct chunk {
	uint32_t cls;
	uint32_t magic;
	uint64_t pad;
	/* the object follows, 16-byte aligned */
};
#define MAGIC 0xa11ce5edu

static uint8_t *base;

static struct arena_head *head(void) { return (struct arena_head *)base; }

void arena_reset(void)
{
	if (!base) {
		base = mmap(0, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (base == MAP_FAILED) {
			perror("checker: mmap");
			exit(3);
		}
	}
	memset(head(), 0, sizeof(struct arena_head));
	head()->bump = (sizeof(struct arena_head) + 15) & ~(size_t)15;
}

void *arena_alloc(size_t bytes)
{
	unsigned cls = 0;
	while (((size_t)16 << cls) < bytes + sizeof(struct chunk))
		cls++;
	if (cls >= CLASSES) {
		fprintf(stderr, "checker: an allocation of %zu bytes is too large\n", bytes);
		exit(3);
	}
	size_t size = (size_t)16 << cls;
	struct chunk *c = head()->free[cls];
	if (c) {
		head()->free[cls] = *(void **)(c + 1);
	} else {
		if (head()->bump + size > ARENA_BYTES) {
			fprintf(stderr, "checker: the state region (%llu bytes) is full\n", ARENA_BYTES);
			exit(3);
		}
		c = (struct chunk *)(base + head()->bump);
		head()->bump += size;
	}
	c->cls = cls;
	c->magic = MAGIC;
	memset(c + 1, 0, size - sizeof *c);
	return c + 1;
}

void arena_free(void *p)
{
	if (!p)
		return;
	struct chunk *c = (struct chunk *)p - 1;
	if (c->magic != MAGIC) {
		fprintf(stderr, "checker: free of a pointer the region did not give out\n");
		abort();
	}
	c->magic = 0;
	*(void **)p = head()->free[c->cls];
	head()->free[c->cls] = c;
}

void *arena_grow(void *v, unsigned n, unsigned *cap, size_t size, unsigned first)
{
	if (n < *cap)
		return v;
	unsigned c = *cap ? *cap * 2 : first;
	void *w = arena_alloc(c * size);
	if (v)
		memcpy(w, v, n * size);
	arena_free(v);
	*cap = c;
	return w;
}

size_t arena_used(void) { return head()->bump; }
void arena_save(void *buf) { memcpy(buf, base, head()->bump); }
void arena_restore(const void *buf, size_t used) { memcpy(base, buf, used); }
void *arena_root(void) { return base + ((sizeof(struct arena_head) + 15) & ~(size_t)15) + sizeof(struct chunk); }

/* The protocol core's allocator (proto_env.h). */
void *penv_alloc(size_t bytes) { return arena_alloc(bytes); }
void penv_free(void *p) { arena_free(p); }
