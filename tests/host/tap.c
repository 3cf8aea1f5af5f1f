/* TAP output for the host test programs (see tap.h). */
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n;
static int tap_failed;

bool tap_ok(bool pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!pass) {
		printf(" # failed at %s:%d", file, line);
		tap_failed++;
	}
	putchar('\n');
	fflush(stdout);
	return pass;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;

	fputs("Bail out! ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(1);
}

int tap_done(void)
{
	printf("1..%d\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}
