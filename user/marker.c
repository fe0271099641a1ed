/* marker: keeps a value in a global while another task with the same addresses does too. */
#include <stdio.h>
#include "mosaic.h"

static volatile long mine;

MOSAIC_ABOUT("keeps a value in a global while another task with the same addresses does too", "the value");

int mosaic_main(long value)
{
	mine = value;
	mosaic_sleep_us(20000); /* the other task writes its own value meanwhile */
	if (mine != value) {
		printf("marker: my value %ld became %ld\n", value, mine);
		return 1;
	}
	return 0;
}
