/*
 * The host's files: the channel by which the host hands the kernel named files at boot (a
 * scenario file, programs compiled outside the tree). The host packs them into one image
 * (scripts/mosaiclib.py: pack_files; scripts/mosaic-run --scenario, --program) that QEMU loads
 * as the initrd; files_load checks the image at boot and copies each file into pages of its own,
 * kept for the boot, then gives the initrd's pages back. The format (docs/files.md), all
 * integers little-endian:
 *   header:   "MOSAICFS", u32 version (FILES_VERSION), u32 count (1..FILES_MAX)
 *   count x:  char name[FILES_NAME_MAX] (NUL-terminated, NUL-padded; [A-Za-z0-9._+-], unique),
 *             u64 size, u64 reserved (0), then size bytes, then zeros up to a multiple of 8
 *   and nothing after the last file. A bad image is refused whole, with the reason (and the
 *   file) named; the boot goes on without it.
 */
#ifndef KERNEL_FILES_H
#define KERNEL_FILES_H

#include <stdint.h>

#define FILES_MAGIC "MOSAICFS"
#define FILES_VERSION 1
#define FILES_MAX 16
#define FILES_NAME_MAX 48 /* a name's field: at most 47 characters */

struct files_header {
	char magic[8];
	uint32_t version, count;
};

struct files_entry {
	char name[FILES_NAME_MAX];
	uint64_t size, reserved;
};

struct host_file {
	char name[FILES_NAME_MAX];
	const uint8_t *data; /* its own pages (8-byte aligned), read-only after the boot hart's load */
	uint64_t size;
};

/* At boot, on the boot hart before the others run: checks the initrd's image, keeps its files,
 * gives the initrd's pages back; prints what it found or why it refused the image. */
void files_load(void);
/* Why the image was refused at boot (NULL: it was not, or there was none). */
const char *files_refusal(void);
unsigned files_count(void);
const struct host_file *files_at(unsigned i);
/* The file of that name, or NULL. */
const struct host_file *files_find(const char *name);

#endif
