/*
 * Looking at the NoC: the shell's `noc` (a heat map of link load and per-core
 * counters; `mesh`, in kernel/domain/domain.c, draws the tiles), and the JSON dump of
 * every counter at power-off (boot argument noc_stats=1).
 */
#include "drivers/noc/noc.h"
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "kernel/core/bootargs.h"
#include "kernel/core/poweroff.h"
#include "kernel/core/hart.h"
#include "lib/string.h"

static uint64_t dump_at_poweroff;
BOOTARG_U64("noc_stats", dump_at_poweroff, 0, 1, "NoC: print all statistics as JSON at power-off");

static const char heat_chars[] = " .:-=+*#%@";

static char heat(uint64_t v, uint64_t max)
{
	if (v == 0 || max == 0)
		return heat_chars[0];
	unsigned i = 1 + (unsigned)(v * 8 / max);
	return heat_chars[i > 9 ? 9 : i];
}

/* Load of the two directed links between a tile and its east / south neighbour. */
static uint64_t pair_load(unsigned c, enum mesh_dir fwd, unsigned n, enum mesh_dir back)
{
	return noc_links[mesh_link(c, fwd)].busy_ns + noc_links[mesh_link(n, back)].busy_ns;
}

SHELL_CMD(noc, "noc [reset]", "NoC heat map of link busy time and per-core message counters")
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "reset") != 0))
		return SHELL_USAGE;
	if (argc == 2) {
		for (unsigned l = 0; l < MESH_MAX_LINKS; l++)
			noc_links[l].messages = noc_links[l].flits = noc_links[l].busy_ns = noc_links[l].wait_ns =
				noc_links[l].forgotten = 0; /* the bookings stay: they are the network's state */
		for (unsigned c = 0; c < MOSAIC_MAX_HARTS; c++)
			noc_core_stats[c] = (struct noc_core_stats){0};
		kprintf("noc: statistics reset\n");
		return 0;
	}
	uint64_t max = 0;
	for (unsigned c = 0; c < mesh.cores; c++) {
		unsigned x = mesh_tiles[c].x, y = mesh_tiles[c].y;
		if (x + 1 < mesh.w) {
			uint64_t v = pair_load(c, MESH_EAST, mesh_core_at(x + 1, y), MESH_WEST);
			max = v > max ? v : max;
		}
		if (y + 1 < mesh.h) {
			uint64_t v = pair_load(c, MESH_SOUTH, mesh_core_at(x, y + 1), MESH_NORTH);
			max = v > max ? v : max;
		}
	}
	kprintf("link busy time, both directions: '%s' = none .. '@' = %lu ns (busiest)\n", heat_chars, max);
	for (unsigned y = 0; y < mesh.h; y++) {
		kprintf("  ");
		for (unsigned x = 0; x < mesh.w; x++) {
			unsigned c = mesh_core_at(x, y);
			kprintf("[%3u]", c);
			if (x + 1 < mesh.w) {
				char h = heat(pair_load(c, MESH_EAST, mesh_core_at(x + 1, y), MESH_WEST), max);
				kprintf("%c%c%c", h, h, h);
			}
		}
		kprintf("\n");
		if (y + 1 == mesh.h)
			break;
		kprintf("  ");
		for (unsigned x = 0; x < mesh.w; x++) {
			unsigned c = mesh_core_at(x, y);
			kprintf("  %c     ", heat(pair_load(c, MESH_SOUTH, mesh_core_at(x, y + 1), MESH_NORTH), max));
		}
		kprintf("\n");
	}
	uint64_t sent = 0, bytes = 0, stalls = 0, forgotten = 0;
	for (unsigned c = 0; c < mesh.cores; c++) {
		sent += noc_core_stats[c].sent;
		bytes += noc_core_stats[c].bytes_sent;
		stalls += noc_core_stats[c].credit_stalls;
		for (unsigned d = 0; d < MESH_DIRS; d++)
			forgotten += noc_links[mesh_link(c, (enum mesh_dir)d)].forgotten;
	}
	kprintf("messages %lu, body bytes %lu, sends that found no credit %lu\n", sent, bytes, stalls);
	kprintf("link bookings forgotten while still reachable: %lu (each link keeps %u)\n", forgotten,
		NOC_LINK_BOOKINGS);
	const struct noc_timing *m = &noc_params.timing;
	kprintf("model: t_inject %lu ns, t_hop %lu ns, t_flit %lu ns, %lu bytes/flit, %lu-slot mailboxes\n",
		m->t_inject_ns, m->t_hop_ns, m->t_flit_ns, m->flit_bytes, noc_params.depth);
	return 0;
}

static void dump_json(int status)
{
	(void)status;
	if (!dump_at_poweroff)
		return;
	kprintf("noc-stats-json-begin\n{\"mesh\": {\"w\": %u, \"h\": %u},\n", mesh.w, mesh.h);
	kprintf("\"params\": {\"t_inject_ns\": %lu, \"t_hop_ns\": %lu, \"t_flit_ns\": %lu, \"flit_bytes\": %lu, "
		"\"depth\": %lu, \"link_bookings\": %u},\n\"links\": [",
		noc_params.timing.t_inject_ns, noc_params.timing.t_hop_ns, noc_params.timing.t_flit_ns,
		noc_params.timing.flit_bytes, noc_params.depth, NOC_LINK_BOOKINGS);
	bool first = true;
	for (unsigned c = 0; c < mesh.cores; c++)
		for (unsigned d = 0; d < MESH_DIRS; d++) {
			struct noc_link *l = &noc_links[mesh_link(c, (enum mesh_dir)d)];
			if (!l->messages)
				continue;
			kprintf("%s\n {\"from\": %u, \"to\": %u, \"dir\": \"%s\", \"messages\": %lu, \"flits\": %lu, "
				"\"busy_ns\": %lu, \"wait_ns\": %lu, \"forgotten\": %lu}",
				first ? "" : ",", c, mesh_link_target(mesh_link(c, (enum mesh_dir)d)),
				mesh_dir_name((enum mesh_dir)d), l->messages, l->flits, l->busy_ns, l->wait_ns, l->forgotten);
			first = false;
		}
	kprintf("],\n\"cores\": [");
	for (unsigned c = 0; c < mesh.cores; c++) {
		struct noc_core_stats *s = &noc_core_stats[c];
		kprintf("%s\n {\"core\": %u, \"hartid\": %u, \"x\": %u, \"y\": %u, \"sent\": %lu, \"received\": %lu, "
			"\"bytes_sent\": %lu, \"bytes_received\": %lu, \"credit_stalls\": %lu, \"xsend_violations\": %lu}",
			c ? "," : "", c, mesh_tiles[c].hartid, mesh_tiles[c].x, mesh_tiles[c].y, s->sent, s->received,
			s->bytes_sent, s->bytes_received, s->credit_stalls, s->xsend_violations);
	}
	kprintf("]}\nnoc-stats-json-end\n");
}
POWEROFF_HOOK(dump_json);
