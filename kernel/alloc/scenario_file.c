/*
 * The scenario file: a job list the host hands the kernel at boot as the file "scenario" of the
 * host's files (kernel/files/files.h: `scripts/mosaic-run --scenario FILE` packs it into the
 * initrd's image), which files_load has already checked and kept in pages of its own.
 * What the text says is checked when it is run (`scenario file`: the portable core's
 * scenario_gen.c, which refuses a bad file by its line).
 */
#include "kernel/alloc/alloc.h"
#include "kernel/files/files.h"
#include "portable/alloc/scenario_gen.h"
#include "kernel/console/console.h"
#include "kernel/core/platform.h"

#define SCENARIO_FILE_NAME "scenario"

/* Written once by the boot hart before the other harts start, read-only afterwards. */
static const char *file_text; /* NULL: no file (or it was refused, file_refusal says why) */
static size_t file_len;
static const char *file_refusal;

void scenario_file_load(void)
{
	const struct host_file *f = files_find(SCENARIO_FILE_NAME);
	if (files_refusal())
		file_refusal = "the host's file image was refused (above)";
	else if (f && f->size > SCEN_FILE_MAX)
		file_text = "", file_len = f->size; /* the core refuses it by its size, reading nothing */
	else if (f)
		file_text = (const char *)f->data, file_len = f->size;
	if (file_refusal)
		kprintf("mosaic: scenario file refused: %s\n", file_refusal);
	else if (file_len > SCEN_FILE_MAX)
		kprintf("mosaic: scenario file refused: %lu bytes, more than %u\n", (uint64_t)file_len, SCEN_FILE_MAX);
	else if (file_text)
		kprintf("mosaic: scenario file: %lu bytes (initrd at %p), read; 'scenario file' runs it\n",
			(uint64_t)file_len, (void *)plat.initrd.base);
}

const char *scenario_file_get(const char **text, size_t *len)
{
	*text = file_text;
	*len = file_len;
	return file_refusal;
}
