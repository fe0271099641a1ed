/* The exhaustive checker's configurations (configs.h). */
#include "checker/configs.h"

const struct check_config check_configs[] = {
	{"fig22", "Fig. 2.2: 2 domains of 8 cores; 12 cores at mk 0 and 16 at mk 1, submitted at once",
	 2, 1, 8, 2, {{0, 12, 1000}, {1, 16, 1000}}},
	{"fig22-late", "Fig. 2.2 with the younger job at the lower home: the order is not the homes' order",
	 2, 1, 8, 2, {{0, 12, 2000}, {1, 16, 1000}}},
	{"three", "3 domains of 4 cores in a row; 6, 8 and 10 cores at mk 0, 1, 2 at once (a three-way Fig. 2.2)",
	 3, 1, 4, 3, {{0, 6, 1000}, {1, 8, 1000}, {2, 10, 1000}}},
	{"local", "2 domains of 4 cores; a local job of 3 at mk 1 between global jobs of 6 (mk 0) and 5 (mk 1)",
	 2, 1, 4, 3, {{0, 6, 1000}, {1, 3, 1500}, {1, 5, 2000}}},
	{"same-home", "2 domains of 4 cores; two global jobs of mk 0 (7, then 5) and one of mk 1 (6) between them",
	 2, 1, 4, 3, {{0, 7, 1000}, {1, 6, 1500}, {0, 5, 2000}}},
	{"three-line", "3 domains of 2 cores in a row; the ends ask 4 and 5, the middle a local 2",
	 3, 1, 2, 3, {{0, 4, 1000}, {2, 5, 1000}, {1, 2, 1000}}},
};
const unsigned check_nconfigs = sizeof check_configs / sizeof check_configs[0];
