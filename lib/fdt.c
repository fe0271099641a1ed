/*
 * Flattened device tree reader. It walks the structure block token by token;
 * nothing is copied or cached, so it works on the DTB wherever the firmware left it.
 */
#include "lib/fdt.h"
#include "lib/string.h"

#define TOK_BEGIN_NODE 1
#define TOK_END_NODE 2
#define TOK_PROP 3
#define TOK_NOP 4
#define TOK_END 9

struct fdt_header {
	uint32_t magic, totalsize, off_dt_struct, off_dt_strings, off_mem_rsvmap, version,
		last_comp_version, boot_cpuid_phys, size_dt_strings, size_dt_struct;
};

uint32_t fdt_be32(const void *p)
{
	const uint8_t *b = p;
	return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

uint64_t fdt_read_cells(const void *p, uint32_t cells)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < cells; i++)
		v = (v << 32) | fdt_be32((const uint8_t *)p + 4 * i);
	return v;
}

#define HDR(fdt, field) fdt_be32((const uint8_t *)(fdt) + __builtin_offsetof(struct fdt_header, field))

bool fdt_check_header(const void *fdt)
{
	return fdt && HDR(fdt, magic) == FDT_MAGIC && HDR(fdt, version) >= 16;
}

uint32_t fdt_total_size(const void *fdt) { return HDR(fdt, totalsize); }

static const uint8_t *struct_base(const void *fdt) { return (const uint8_t *)fdt + HDR(fdt, off_dt_struct); }
static const char *strings_base(const void *fdt) { return (const char *)fdt + HDR(fdt, off_dt_strings); }
static uint32_t token_at(const void *fdt, int off) { return fdt_be32(struct_base(fdt) + off); }
static int align4(int x) { return (x + 3) & ~3; }

/* Offset of the token after the one at off. */
static int skip_token(const void *fdt, int off)
{
	const uint8_t *s = struct_base(fdt);
	switch (token_at(fdt, off)) {
	case TOK_BEGIN_NODE:
		return align4(off + 4 + (int)strlen((const char *)s + off + 4) + 1);
	case TOK_PROP:
		return align4(off + 12 + (int)fdt_be32(s + off + 4));
	case TOK_END_NODE:
	case TOK_NOP:
		return off + 4;
	default:
		return -1;
	}
}

int fdt_root(const void *fdt)
{
	int off = 0;
	while (token_at(fdt, off) == TOK_NOP)
		off += 4;
	return token_at(fdt, off) == TOK_BEGIN_NODE ? off : -1;
}

const char *fdt_node_name(const void *fdt, int node)
{
	return (const char *)struct_base(fdt) + node + 4;
}

/* First token after the node's name and properties. */
static int after_props(const void *fdt, int node)
{
	int off = skip_token(fdt, node);
	while (off >= 0) {
		uint32_t t = token_at(fdt, off);
		if (t != TOK_PROP && t != TOK_NOP)
			break;
		off = skip_token(fdt, off);
	}
	return off;
}

int fdt_first_child(const void *fdt, int node)
{
	int off = after_props(fdt, node);
	return (off >= 0 && token_at(fdt, off) == TOK_BEGIN_NODE) ? off : -1;
}

/* Offset just past the END_NODE that closes node. */
static int end_of_subtree(const void *fdt, int node)
{
	int depth = 0, off = node;
	while (off >= 0) {
		uint32_t t = token_at(fdt, off);
		if (t == TOK_BEGIN_NODE)
			depth++;
		else if (t == TOK_END_NODE && --depth == 0)
			return off + 4;
		else if (t == TOK_END)
			return -1;
		off = skip_token(fdt, off);
	}
	return -1;
}

int fdt_next_sibling(const void *fdt, int node)
{
	int off = end_of_subtree(fdt, node);
	while (off >= 0 && token_at(fdt, off) == TOK_NOP)
		off += 4;
	return (off >= 0 && token_at(fdt, off) == TOK_BEGIN_NODE) ? off : -1;
}

int fdt_next_node(const void *fdt, int node)
{
	int off = node < 0 ? 0 : skip_token(fdt, node);
	while (off >= 0) {
		uint32_t t = token_at(fdt, off);
		if (t == TOK_BEGIN_NODE)
			return off;
		if (t == TOK_END)
			return -1;
		off = skip_token(fdt, off);
	}
	return -1;
}

int fdt_parent(const void *fdt, int node)
{
	int stack[32];
	int depth = 0;
	for (int off = 0; off >= 0 && off <= node;) {
		uint32_t t = token_at(fdt, off);
		if (t == TOK_BEGIN_NODE) {
			if (off == node)
				return depth ? stack[depth - 1] : -1;
			if (depth == 32)
				return -1;
			stack[depth++] = off;
		} else if (t == TOK_END_NODE) {
			if (depth)
				depth--;
		} else if (t == TOK_END) {
			break;
		}
		off = skip_token(fdt, off);
	}
	return -1;
}

static bool name_matches(const char *node_name, const char *want, size_t want_len)
{
	if (strncmp(node_name, want, want_len) != 0)
		return false;
	if (node_name[want_len] == 0)
		return true;
	/* "serial" matches "serial@10000000"; "serial@1" must match exactly */
	for (size_t i = 0; i < want_len; i++)
		if (want[i] == '@')
			return false;
	return node_name[want_len] == '@';
}

int fdt_path_offset(const void *fdt, const char *path)
{
	int node = fdt_root(fdt);
	if (node < 0 || path[0] != '/')
		return -1;
	const char *p = path + 1;
	while (*p) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len) {
			int child = fdt_first_child(fdt, node);
			while (child >= 0 && !name_matches(fdt_node_name(fdt, child), p, len))
				child = fdt_next_sibling(fdt, child);
			if (child < 0)
				return -1;
			node = child;
		}
		p += len;
		if (*p == '/')
			p++;
	}
	return node;
}

const void *fdt_getprop(const void *fdt, int node, const char *name, int *len)
{
	const uint8_t *s = struct_base(fdt);
	if (node < 0)
		return 0;
	for (int off = skip_token(fdt, node); off >= 0; off = skip_token(fdt, off)) {
		uint32_t t = token_at(fdt, off);
		if (t == TOK_NOP)
			continue;
		if (t != TOK_PROP)
			break;
		if (strcmp(strings_base(fdt) + fdt_be32(s + off + 8), name) == 0) {
			if (len)
				*len = (int)fdt_be32(s + off + 4);
			return s + off + 12;
		}
	}
	return 0;
}

const char *fdt_getprop_string(const void *fdt, int node, const char *name)
{
	int len;
	const char *v = fdt_getprop(fdt, node, name, &len);
	if (!v || len <= 0 || v[len - 1] != 0)
		return 0;
	return v;
}

bool fdt_getprop_u32(const void *fdt, int node, const char *name, uint32_t *out)
{
	int len;
	const void *v = fdt_getprop(fdt, node, name, &len);
	if (!v || len != 4)
		return false;
	*out = fdt_be32(v);
	return true;
}

bool fdt_is_compatible(const void *fdt, int node, const char *compat)
{
	int len;
	const char *v = fdt_getprop(fdt, node, "compatible", &len);
	if (!v)
		return false;
	for (int i = 0; i < len;) {
		if (strcmp(v + i, compat) == 0)
			return true;
		i += (int)strnlen(v + i, (size_t)(len - i)) + 1;
	}
	return false;
}

int fdt_find_compatible(const void *fdt, int node, const char *compat)
{
	for (node = fdt_next_node(fdt, node); node >= 0; node = fdt_next_node(fdt, node))
		if (fdt_is_compatible(fdt, node, compat))
			return node;
	return -1;
}

int fdt_find_phandle(const void *fdt, uint32_t phandle)
{
	for (int node = fdt_next_node(fdt, -1); node >= 0; node = fdt_next_node(fdt, node)) {
		uint32_t ph;
		if (fdt_getprop_u32(fdt, node, "phandle", &ph) && ph == phandle)
			return node;
	}
	return -1;
}

uint32_t fdt_address_cells(const void *fdt, int node)
{
	uint32_t v;
	return fdt_getprop_u32(fdt, node, "#address-cells", &v) ? v : 2;
}

uint32_t fdt_size_cells(const void *fdt, int node)
{
	uint32_t v;
	return fdt_getprop_u32(fdt, node, "#size-cells", &v) ? v : 1;
}

bool fdt_get_reg(const void *fdt, int node, int index, uint64_t *addr, uint64_t *size)
{
	int parent = fdt_parent(fdt, node);
	if (parent < 0)
		return false;
	uint32_t ac = fdt_address_cells(fdt, parent), sc = fdt_size_cells(fdt, parent);
	int len;
	const uint8_t *reg = fdt_getprop(fdt, node, "reg", &len);
	int entry = (int)(4 * (ac + sc));
	if (!reg || entry == 0 || (index + 1) * entry > len)
		return false;
	reg += index * entry;
	*addr = fdt_read_cells(reg, ac);
	*size = sc ? fdt_read_cells(reg + 4 * ac, sc) : 0;
	return true;
}

bool fdt_get_memreserve(const void *fdt, int index, uint64_t *addr, uint64_t *size)
{
	const uint8_t *p = (const uint8_t *)fdt + HDR(fdt, off_mem_rsvmap) + 16 * index;
	*addr = fdt_read_cells(p, 2);
	*size = fdt_read_cells(p + 8, 2);
	return *addr || *size;
}
