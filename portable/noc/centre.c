#include "portable/noc/centre.h"

static unsigned absdiff(unsigned a, unsigned b) { return a > b ? a - b : b - a; }

unsigned noc_centre(const struct noc_point *p, unsigned n, unsigned width, unsigned height, uint32_t *scratch)
{
	uint32_t *per_column = scratch, *per_row = per_column + width;
	uint32_t *column_sum = per_row + height, *row_sum = column_sum + width;
	for (unsigned i = 0; i < width + height; i++)
		scratch[i] = 0;
	int s_min = INT32_MAX, s_max = INT32_MIN, d_min = INT32_MAX, d_max = INT32_MIN;
	for (unsigned i = 0; i < n; i++) {
		int x = p[i].x, y = p[i].y;
		per_column[x]++;
		per_row[y]++;
		s_min = x + y < s_min ? x + y : s_min;
		s_max = x + y > s_max ? x + y : s_max;
		d_min = x - y < d_min ? x - y : d_min;
		d_max = x - y > d_max ? x - y : d_max;
	}
	/* the sum of the column (row) distances from each column (row) to every point */
	for (unsigned x = 0; x < width; x++) {
		column_sum[x] = 0;
		for (unsigned c = 0; c < width; c++)
			column_sum[x] += per_column[c] * absdiff(x, c);
	}
	for (unsigned y = 0; y < height; y++) {
		row_sum[y] = 0;
		for (unsigned r = 0; r < height; r++)
			row_sum[y] += per_row[r] * absdiff(y, r);
	}
	unsigned best = 0;
	uint64_t best_ecc = UINT64_MAX, best_sum = UINT64_MAX;
	for (unsigned i = 0; i < n; i++) {
		int x = p[i].x, y = p[i].y, s = x + y, d = x - y;
		int e = s - s_min;
		e = s_max - s > e ? s_max - s : e;
		e = d - d_min > e ? d - d_min : e;
		e = d_max - d > e ? d_max - d : e;
		uint64_t ecc = (uint64_t)e, sum = (uint64_t)column_sum[x] + row_sum[y];
		if (ecc < best_ecc || (ecc == best_ecc && sum < best_sum) ||
		    (ecc == best_ecc && sum == best_sum && p[i].id < p[best].id)) {
			best = i;
			best_ecc = ecc;
			best_sum = sum;
		}
	}
	return best;
}
