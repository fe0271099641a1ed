/* hello: the smallest user program: prints where it runs. */
#include <stdio.h>
#include "mosaic.h"

MOSAIC_ABOUT("the smallest user program: prints where it runs", "printed back (default 0)");

int mosaic_main(long arg)
{
	printf("hello from a user task on core %ld (domain %ld), argument %ld\n", mosaic_core_id(), mosaic_domain_id(),
	       arg);
	fflush(stdout);
	return 0;
}
