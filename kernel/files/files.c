/* The host's files through the initrd (see files.h). Written by the boot hart before the other
 * harts start, read-only afterwards. */
#include "kernel/files/files.h"
#include "kernel/console/console.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/platform.h"
#include "lib/string.h"
#include "lib/format.h"

static struct host_file files[FILES_MAX];
static unsigned nfiles;
static const char *refusal;
static char why[160];

static uint64_t pages_of(uint64_t bytes) { return bytes ? (bytes + PAGE_SIZE - 1) / PAGE_SIZE : 1; }

static bool name_ok(const char *n)
{
	if (!n[0])
		return false;
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') || *n == '.' ||
		      *n == '_' || *n == '-' || *n == '+'))
			return false;
	return true;
}

/* Checks the image at img (size bytes) and fills files[] with where each file's bytes are in it;
 * NULL, or the reason it is refused (in why[]). */
static const char *check(const uint8_t *img, uint64_t size)
{
	struct files_header h;
	if (size < sizeof h.magic || memcmp(img, FILES_MAGIC, sizeof h.magic) != 0)
		return "not a Mosaic file image (no \"" FILES_MAGIC "\" at its start; scripts/mosaic-run packs one)";
	if (size < sizeof h)
		return "shorter than the image's header (16 bytes)";
	memcpy(&h, img, sizeof h);
	if (h.version != FILES_VERSION) {
		snprintf(why, sizeof why, "format version %u, this kernel reads version %u", h.version, FILES_VERSION);
		return why;
	}
	if (h.count == 0 || h.count > FILES_MAX) {
		snprintf(why, sizeof why, "%u files, at most %u (and at least 1)", h.count, FILES_MAX);
		return why;
	}
	uint64_t off = sizeof h;
	for (unsigned i = 0; i < h.count; i++) {
		struct files_entry e;
		if (size - off < sizeof e) {
			snprintf(why, sizeof why, "file %u of %u: its header runs past the image's end (%lu bytes): cut short?",
				 i + 1, h.count, size);
			return why;
		}
		memcpy(&e, img + off, sizeof e);
		off += sizeof e;
		if (strnlen(e.name, sizeof e.name) == sizeof e.name || !name_ok(e.name)) {
			snprintf(why, sizeof why, "file %u: its name is not 1..%u characters of A-Z a-z 0-9 . _ + -", i + 1,
				 FILES_NAME_MAX - 1);
			return why;
		}
		uint64_t room = size - off, padded = e.size + (-e.size & 7);
		if (e.size > room || padded > room) {
			snprintf(why, sizeof why, "file %u ('%s'): %lu bytes%s, only %lu left in the image: cut short?",
				 i + 1, e.name, e.size, e.size > room ? "" : " and its padding to a multiple of 8", room);
			return why;
		}
		if (e.reserved) {
			snprintf(why, sizeof why, "file %u ('%s'): its reserved field is not 0", i + 1, e.name);
			return why;
		}
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(files[k].name, e.name)) {
				snprintf(why, sizeof why, "file %u: the name '%s' is given twice", i + 1, e.name);
				return why;
			}
		memcpy(files[i].name, e.name, sizeof e.name);
		files[i].data = img + off;
		files[i].size = e.size;
		off += padded;
	}
	if (off != size) {
		snprintf(why, sizeof why, "%lu bytes after its last file", size - off);
		return why;
	}
	nfiles = h.count;
	return 0;
}

void files_load(void)
{
	uint64_t size = plat.initrd.size;
	if (plat.initrd_error)
		refusal = plat.initrd_error;
	else if (page_initrd_clashes())
		refusal = "the initrd overlaps the kernel, the device tree or the firmware";
	else if (size)
		refusal = check((const uint8_t *)plat.initrd.base, size);
	/* each file into pages of its own: the initrd's go back to the allocator below */
	unsigned copied = 0;
	for (; !refusal && copied < nfiles; copied++) {
		uint64_t n = files[copied].size;
		uint8_t *copy = page_alloc(pages_of(n));
		if (!copy) {
			snprintf(why, sizeof why, "no memory to keep file '%s' (%lu bytes)", files[copied].name, n);
			refusal = why;
			break;
		}
		memcpy(copy, files[copied].data, n);
		files[copied].data = copy;
	}
	if (refusal) {
		for (unsigned i = 0; i < copied; i++)
			page_free((void *)files[i].data, pages_of(files[i].size));
		nfiles = 0;
	}
	if (page_initrd_held())
		page_release_initrd();
	if (refusal) {
		kprintf("mosaic: host files refused: %s\n", refusal);
		return;
	}
	if (!size)
		return;
	kprintf("mosaic: host files: %u in %lu bytes (initrd at %p):", nfiles, size, (void *)plat.initrd.base);
	for (unsigned i = 0; i < nfiles; i++)
		kprintf(" %s (%lu bytes)", files[i].name, files[i].size);
	kprintf("\n");
}

const char *files_refusal(void) { return refusal; }
unsigned files_count(void) { return nfiles; }
const struct host_file *files_at(unsigned i) { return i < nfiles ? &files[i] : 0; }

const struct host_file *files_find(const char *name)
{
	for (unsigned i = 0; i < nfiles; i++)
		if (!strcmp(files[i].name, name))
			return &files[i];
	return 0;
}
