/*
 * The programs a task can be: the built-in ones (the Makefile's table) and those from the host,
 * checked at boot from the host's files (kernel/files/files.h); and the ELF check the loader
 * applies to every program it loads (see utask.h).
 */
#include "kernel/task/utask.h"
#include "kernel/task/utask_internal.h"
#include "kernel/files/files.h"
#include "kernel/console/console.h"
#include "kernel/core/errno.h"
#include "portable/alloc/job.h"
#include "lib/string.h"
#include "lib/format.h"
#include <stdarg.h>

#define ELF_PHNUM_MAX 64
#define ET_EXEC 2

/* The programs from the host (utask_host_programs_load): written by the boot hart before the
 * other harts start, read-only afterwards. */
static struct user_program host_programs[FILES_MAX];
static unsigned host_program_count;
static char host_names[FILES_MAX][ALLOC_PROGRAM_MAX];
static char host_about[FILES_MAX][160];

unsigned utask_program_count(void) { return user_program_count + host_program_count; }

const struct user_program *utask_program_at(unsigned i)
{
	return i < user_program_count ? &user_programs[i]
	       : i - user_program_count < host_program_count ? &host_programs[i - user_program_count] : 0;
}

bool utask_program_from_host(const struct user_program *p)
{
	return p >= host_programs && p < host_programs + host_program_count;
}

const struct user_program *user_program_find(const char *name)
{
	for (unsigned i = 0; i < utask_program_count(); i++)
		if (strcmp(utask_program_at(i)->name, name) == 0)
			return utask_program_at(i);
	return 0;
}

/* Why an ELF file cannot be loaded, into why (cap bytes); 0 if it can. */
static int refuse(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return -ENOEXEC;
}

int utask_elf_check(const uint8_t *img, uint64_t size, char *why, size_t cap)
{
	const struct elf64_ehdr *eh = (const struct elf64_ehdr *)img;
	if (size < 4 || memcmp(img, "\177ELF", 4) != 0)
		return refuse(why, cap, "not an ELF file (no \\177ELF at its start)");
	if (size < sizeof *eh)
		return refuse(why, cap, "%lu bytes, shorter than an ELF header: cut short?", size);
	if (eh->ident[4] != 2 || eh->ident[5] != 1)
		return refuse(why, cap, "not a 64-bit little-endian ELF (class %u, data %u)", eh->ident[4], eh->ident[5]);
	if (eh->machine != EM_RISCV)
		return refuse(why, cap, "built for another machine (e_machine %u; RISC-V is %u)", eh->machine, EM_RISCV);
	if (eh->type != ET_EXEC)
		return refuse(why, cap, "not a static executable (e_type %u; link it with scripts/mosaic-cc)", eh->type);
	if (eh->phentsize != sizeof(struct elf64_phdr) || eh->phnum == 0 || eh->phnum > ELF_PHNUM_MAX || eh->phoff % 8)
		return refuse(why, cap, "bad program headers (%u of %u bytes at offset %lu)", eh->phnum, eh->phentsize,
			      eh->phoff);
	if (eh->phoff > size || (uint64_t)eh->phnum * sizeof(struct elf64_phdr) > size - eh->phoff)
		return refuse(why, cap, "its program headers run past the file's end (%lu bytes): cut short?", size);
	const struct elf64_phdr *ph = (const struct elf64_phdr *)(img + eh->phoff);
	bool entry_ok = false;
	unsigned loads = 0;
	for (unsigned i = 0; i < eh->phnum; i++) {
		const struct elf64_phdr *p = &ph[i];
		if (p->type == PT_TLS && (p->memsz > UTASK_TLS_BYTES || p->filesz > p->memsz || p->align > 16 ||
					   p->offset > size || p->filesz > size - p->offset))
			return refuse(why, cap, "thread-local data of %lu bytes (at most %u, aligned to at most 16)",
				      p->memsz, UTASK_TLS_BYTES);
		if (p->type != PT_LOAD || p->memsz == 0)
			continue;
		loads++;
		if (p->filesz > p->memsz)
			return refuse(why, cap, "segment %u: %lu bytes in the file, more than its %lu in memory", i,
				      p->filesz, p->memsz);
		if (p->offset > size || p->filesz > size - p->offset)
			return refuse(why, cap, "segment %u runs past the file's end (%lu bytes): cut short?", i, size);
		if (p->vaddr < USER_BASE || p->vaddr >= USER_LOAD_END || p->memsz > USER_LOAD_END - p->vaddr)
			return refuse(why, cap, "segment %u at %lx (%lu bytes) is outside the program's range %llx-%llx "
				      "(the heap and the stack lie above it; link it with user/user.ld)", i, p->vaddr,
				      p->memsz, USER_BASE, USER_LOAD_END);
		for (unsigned k = 0; k < i; k++)
			if (ph[k].type == PT_LOAD && ph[k].memsz && p->vaddr < ph[k].vaddr + ph[k].memsz &&
			    ph[k].vaddr < p->vaddr + p->memsz)
				return refuse(why, cap, "segments %u and %u overlap", k, i);
		entry_ok |= (p->flags & 1) && eh->entry >= p->vaddr && eh->entry < p->vaddr + p->memsz && !(eh->entry & 1);
	}
	if (!loads)
		return refuse(why, cap, "nothing to load (no PT_LOAD segment)");
	if (!entry_ok)
		return refuse(why, cap, "its entry point %lx is not in its code", eh->entry);
	return 0;
}

/* ---- programs from the host ---- */

/* A program's about text: what (truncated to fit), NUL, arg, NUL. */
static void set_about(char *out, size_t cap, const char *what, const char *arg, size_t arg_len)
{
	if (arg_len + 2 > cap)
		arg_len = 0;
	size_t w = strnlen(what, cap - arg_len - 2);
	memcpy(out, what, w);
	out[w] = 0;
	memcpy(out + w + 1, arg, arg_len);
	out[w + 1 + arg_len] = 0;
}

/* The program's MOSAIC_ABOUT (its section .mosaic.about: what it does, NUL, what its arguments
 * mean, NUL) into out, if it has one that fits; else out stays as it is. Every offset is checked:
 * the file is the host's. */
static void host_about_of(const uint8_t *img, uint64_t size, char *out, size_t cap, const char *file)
{
	const struct elf64_ehdr *eh = (const struct elf64_ehdr *)img;
	uint64_t n = eh->shnum, sz = sizeof(struct elf64_shdr);
	if (!n || eh->shentsize != sz || eh->shoff % 8 || eh->shoff > size || n * sz > size - eh->shoff ||
	    eh->shstrndx >= n)
		return;
	const struct elf64_shdr *sh = (const struct elf64_shdr *)(img + eh->shoff), *strs = &sh[eh->shstrndx];
	if (strs->offset > size || strs->size > size - strs->offset)
		return;
	static const char want[] = ".mosaic.about";
	for (uint64_t i = 0; i < n; i++) {
		if (sh[i].name >= strs->size || strs->size - sh[i].name < sizeof want ||
		    memcmp(img + strs->offset + sh[i].name, want, sizeof want) != 0)
			continue;
		if (sh[i].offset > size || sh[i].size > size - sh[i].offset || sh[i].size < 2)
			return;
		const char *t = (const char *)img + sh[i].offset;
		uint64_t l1 = strnlen(t, sh[i].size);
		if (l1 >= sh[i].size)
			return;
		uint64_t l2 = strnlen(t + l1 + 1, sh[i].size - l1 - 1);
		if (l1 + 1 + l2 >= sh[i].size)
			return;
		char what[120];
		snprintf(what, sizeof what, "%s (from the host: %s)", t, file);
		set_about(out, cap, what, t + l1 + 1, l2);
		return;
	}
}

void utask_host_programs_load(void)
{
	for (unsigned i = 0; i < files_count(); i++) {
		const struct host_file *f = files_at(i);
		size_t len = strlen(f->name);
		if (len < 5 || strcmp(f->name + len - 4, ".elf") != 0)
			continue;
		char why[256];
		char name[ALLOC_PROGRAM_MAX];
		if (len - 4 >= sizeof name) {
			kprintf("mosaic: program %s refused: its name '%.*s' is longer than %u characters\n", f->name,
				(int)(len - 4), f->name, ALLOC_PROGRAM_MAX - 1);
			continue;
		}
		memcpy(name, f->name, len - 4);
		name[len - 4] = 0;
		if (user_program_find(name)) {
			kprintf("mosaic: program %s refused: a program '%s' exists already (%s)\n", f->name, name,
				utask_program_from_host(user_program_find(name)) ? "from the host" : "built in");
			continue;
		}
		if (utask_elf_check(f->data, f->size, why, sizeof why)) {
			kprintf("mosaic: program %s refused: %s\n", f->name, why);
			continue;
		}
		unsigned k = host_program_count++;
		memcpy(host_names[k], name, sizeof name);
		char what[80];
		snprintf(what, sizeof what, "from the host: %s", f->name);
		set_about(host_about[k], sizeof host_about[k], what, "its argv[1..]", strlen("its argv[1..]"));
		host_about_of(f->data, f->size, host_about[k], sizeof host_about[k], f->name);
		host_programs[k] = (struct user_program){.name = host_names[k], .start = f->data, .end = f->data + f->size,
							 .about = host_about[k]};
		kprintf("mosaic: program %s from the host: '%s', %lu bytes; 'run %s' runs it\n", f->name, name, f->size,
			name);
	}
}
