// SPDX-License-Identifier: GPL-2.0
/*
 * Print the host's TSC rate in kHz, measured against CLOCK_MONOTONIC_RAW
 * over 200 ms.  Under TCG a guest's TSC is the host's, and rig/boot.sh
 * passes this figure as tsc_early_khz=: a guest kernel calibrating its TSC
 * against the emulated PIT on a busy host may fail, and then keeps time in
 * 4 ms jiffies for the whole boot.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	struct timespec pause = { .tv_nsec = 200 * 1000 * 1000 };
	double t0, t1;
	uint64_t c0, c1;

	t0 = now_s();
	c0 = __rdtsc();
	nanosleep(&pause, NULL);
	t1 = now_s();
	c1 = __rdtsc();
	printf("%.0f\n", (c1 - c0) / (t1 - t0) / 1000);
	return 0;
}
