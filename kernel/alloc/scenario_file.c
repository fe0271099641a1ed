/*
 * The scenario file: a job list the host hands the kernel at boot as QEMU's initrd
 * (`scripts/mosaic-run --scenario FILE` adds `-initrd FILE`; QEMU writes where it put
 * it into /chosen, kernel/core/platform.c reads that). Its pages are reserved from the page
 * allocator's init (kernel/mm/page_alloc.c) until scenario_file_load copies the text into
 * pages of its own and gives the initrd's back, at boot, before the other harts run.
 * What the text says is checked when it is run (`scenario file`: the portable core's
 * scenario_gen.c, which refuses a bad file by its line).
 */
#include "kernel/alloc/alloc.h"
#include "portable/alloc/scenario_gen.h"
#include "kernel/console/console.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/platform.h"
#include "lib/string.h"

/* Written once by the boot hart before the other harts start, read-only afterwards. */
static const char *file_text; /* NULL: no file (or it was refused, file_refusal says why) */
static size_t file_len;
static const char *file_refusal;

void scenario_file_load(void)
{
	if (plat.initrd_error) {
		file_refusal = plat.initrd_error;
	} else if (page_initrd_clashes()) {
		file_refusal = "the initrd overlaps the kernel, the device tree or the firmware";
	} else if (plat.initrd.size > SCEN_FILE_MAX) {
		file_text = "", file_len = plat.initrd.size; /* the core refuses it by its size, reading nothing */
	} else if (plat.initrd.size) {
		size_t pages = (plat.initrd.size + PAGE_SIZE - 1) / PAGE_SIZE;
		char *copy = page_alloc(pages); /* kept for the boot: `scenario file` may run it again */
		if (copy) {
			memcpy(copy, (const void *)plat.initrd.base, plat.initrd.size);
			file_text = copy, file_len = plat.initrd.size;
		} else {
			file_refusal = "no memory to keep it";
		}
	}
	if (page_initrd_held())
		page_release_initrd();
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
