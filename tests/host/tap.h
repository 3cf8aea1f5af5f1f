/* TAP output for the host test programs: "ok N - what", diagnostics, plan. */
#ifndef EUSRV_TEST_TAP_H
#define EUSRV_TEST_TAP_H

#include <stdbool.h>

/* One test point; returns PASS.  On failure the source line is reported. */
#define ok(pass, ...)	tap_ok(!!(pass), __FILE__, __LINE__, __VA_ARGS__)

bool tap_ok(bool pass, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A "# ..." diagnostic line. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Give up: "Bail out!" and exit 1 (setup failed, nothing to test). */
void tap_bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Print the plan; returns the exit status (0 if every point passed). */
int tap_done(void);

#endif /* EUSRV_TEST_TAP_H */
