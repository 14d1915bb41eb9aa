// SPDX-License-Identifier: GPL-2.0
/* rig self-test: a guest program that never finishes must fail the run at the timeout. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("TAP version 13\n1..1\n");
	fflush(stdout);
	for (;;)
		pause();
}
