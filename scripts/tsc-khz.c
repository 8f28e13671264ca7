// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: the host's TSC rate in kHz, measured against CLOCK_MONOTONIC_RAW
 * over 200 ms. scripts/vm-run gives it to a TCG guest, whose RDTSC reads the
 * host's TSC but which cannot calibrate it (no HPET without ACPI; the PIT
 * loop fails under TCG) and falls back to counting timer ticks.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
int main(void)
{
	struct timespec a, b;
	unsigned long long t0, t1;

	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	t0 = __rdtsc();
	do
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec < 200000000LL);
	t1 = __rdtsc();
	printf("%llu\n", (t1 - t0) * 1000000ULL /
	       ((b.tv_sec - a.tv_sec) * 1000000000ULL + b.tv_nsec - a.tv_nsec));
	return 0;
}
