/*
 * What the files of user tasks share and nothing else needs: the task record, the context
 * switch into U-mode, and the loader's helpers that the kernel-call side uses. utask.c loads
 * and runs tasks, utask_kcall.c checks and serves their kernel calls, utask_cmd.c has the
 * shell's commands.
 */
#ifndef KERNEL_UTASK_INTERNAL_H
#define KERNEL_UTASK_INTERNAL_H

#include "kernel/task/utask.h"
#include "kernel/msg/msg.h"
#include "kernel/msg/group.h"
#include "kernel/mm/shm.h"
#include "arch/riscv/trap.h"
#include "arch/riscv/mmu.h"
#include "arch/riscv/fpu.h"

#define UTASK_REQUESTS 16 /* non-blocking message requests a task may have open */
#define UTASK_GROUPS 4    /* groups a task may build */

struct utask {
	const char *name;
	struct msg_request reqs[UTASK_REQUESTS];
	bool req_open[UTASK_REQUESTS];
	struct msg_group *groups[UTASK_GROUPS];
	struct address_space as;
	uint64_t heap_start, brk, heap_limit;
	uint64_t heap_account; /* 1 + the core whose account its heap is charged to; 0: where it ends */
	uint64_t kctx[14];
	struct fpu_state fp; /* its FP registers while another task's are in the hart (utask_fpu_out) */
	struct utask_result *res;
	int job_group; /* 1 + the handle KC_JOB_GROUP gave out (0: none yet) */
	uint64_t cpu_ms;   /* its CPU-time limit (0: none) */
	bool over_limit;   /* the limit passed: it is being killed for that */
	bool ilet;         /* a team member in its owner's address space: as is borrowed, not owned */
	unsigned ilet_slots; /* the stacks of i-let slots 0..ilet_slots-1 are mapped */
	struct shm_mapping shm[SHM_PER_TASK]; /* the job's shared windows it mapped (kernel/mm/shm.h) */
	unsigned nshm;
};

/* The ELF file's structures the loader and the program checks read (kernel/task/programs.c). */
struct elf64_ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

struct elf64_shdr {
	uint32_t name, type;
	uint64_t flags, addr, offset, size;
	uint32_t link, info;
	uint64_t addralign, entsize;
};

#define PT_LOAD 1
#define PT_TLS 7
#define EM_RISCV 243
#define USER_LOAD_END (USER_BASE + USER_SPAN / 2) /* segments end here: the heap, then the stack, above */

long uctx_enter(struct trap_frame *frame, uint64_t *kctx);
void uctx_leave(uint64_t *kctx, long value) __attribute__((noreturn));

#define EXIT_MARK 0x100000000L /* uctx_enter's value for "exited", the code in the low bits */
#define KILL_MARK -1L

/* True if fn is an address in the code of program p (its executable segments, even). */
bool utask_entry_ok(const struct user_program *p, uint64_t fn);
/* Maps a fresh zeroed page at every page of [va, va + len) not mapped yet. */
int utask_map_range(struct utask *t, uint64_t va, uint64_t len, uint64_t flags);
/* The message session of the task on a core (0: none runs there). */
uint32_t utask_session_on(unsigned core);
/* Serves kernel call nr of the task running here, its arguments in a (kernel/task/utask_kcall.c). */
int64_t utask_kcall(struct utask *t, uint64_t nr, uint64_t *a);

#endif
