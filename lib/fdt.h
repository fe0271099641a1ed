/*
 * A small reader of flattened device trees (DTB, version 17), enough for the
 * kernel to learn everything the platform tells: harts, memory, devices, bootargs.
 * A node is named by the offset of its BEGIN_NODE token in the structure block.
 */
#ifndef LIB_FDT_H
#define LIB_FDT_H

#include <stdint.h>
#include <stdbool.h>

#define FDT_MAGIC 0xd00dfeed

bool fdt_check_header(const void *fdt);
uint32_t fdt_total_size(const void *fdt);

int fdt_root(const void *fdt);
/* The node at an absolute path such as "/cpus" or "/soc/serial@10000000"; a
 * component without a unit address matches "name@anything". -1 if absent. */
int fdt_path_offset(const void *fdt, const char *path);
int fdt_first_child(const void *fdt, int node);
int fdt_next_sibling(const void *fdt, int node);
/* Depth-first walk over every node after `node` (pass -1 to start at the root). */
int fdt_next_node(const void *fdt, int node);
int fdt_parent(const void *fdt, int node);
const char *fdt_node_name(const void *fdt, int node);

const void *fdt_getprop(const void *fdt, int node, const char *name, int *len);
/* A NUL-terminated string property, or NULL if missing or malformed. */
const char *fdt_getprop_string(const void *fdt, int node, const char *name);
bool fdt_getprop_u32(const void *fdt, int node, const char *name, uint32_t *out);
/* True if the "compatible" list of node contains compat. */
bool fdt_is_compatible(const void *fdt, int node, const char *compat);
/* The next node after `node` (-1: from the start) whose compatible list has compat. */
int fdt_find_compatible(const void *fdt, int node, const char *compat);
int fdt_find_phandle(const void *fdt, uint32_t phandle);

/* #address-cells / #size-cells that apply to the children of node (defaults 2 and 1). */
uint32_t fdt_address_cells(const void *fdt, int node);
uint32_t fdt_size_cells(const void *fdt, int node);
/* Entry i of node's "reg", decoded with its parent's cell counts. */
bool fdt_get_reg(const void *fdt, int node, int index, uint64_t *addr, uint64_t *size);

/* Reads a big-endian number of `cells` 32-bit cells. */
uint64_t fdt_read_cells(const void *p, uint32_t cells);
uint32_t fdt_be32(const void *p);

/* Entry i of the memory reservation block; false past the end. */
bool fdt_get_memreserve(const void *fdt, int index, uint64_t *addr, uint64_t *size);

#endif
