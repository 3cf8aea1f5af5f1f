/*
 * Timestamped log lines ("2024-05-01T12:00:00.123 eusrv-board-model[pid]
 * level: text") to a file or stderr (errors to stderr too), and the rate
 * limiter for node-triggered messages.
 */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static FILE *log_file;
static enum log_level log_level = LOG_INFO;

static const char *const level_names[] = {
	[LOG_ERR] = "error",
	[LOG_WARN] = "warning",
	[LOG_INFO] = "info",
	[LOG_DEBUG] = "debug",
};

int log_open(const char *path)
{
	FILE *f = fopen(path, "ae");

	if (!f)
		return -errno;
	/* Line buffered, so that a crash or a kill leaves whole lines. */
	setvbuf(f, NULL, _IOLBF, 0);
	log_close();
	log_file = f;
	return 0;
}

void log_close(void)
{
	if (log_file)
		fclose(log_file);
	log_file = NULL;
}

void log_set_level(enum log_level level)
{
	log_level = level;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	FILE *out = log_file ? log_file : stderr;
	struct timespec ts;
	struct tm tm;
	char stamp[32];
	va_list ap;
	int saved_errno = errno;

	if (level > log_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(out, "%s.%03ld eusrv-board-model[%d] %s: ", stamp,
		ts.tv_nsec / 1000000, (int)getpid(), level_names[level]);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
	/* Errors also reach whoever started the model. */
	if (level == LOG_ERR && out != stderr) {
		fprintf(stderr, "eusrv-board-model: ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	errno = saved_errno;
}

bool log_ratelimit_ok(struct log_ratelimit *rl, uint64_t now_ms)
{
	if (now_ms - rl->window_start_ms >= LOG_RATELIMIT_WINDOW_MS ||
	    now_ms < rl->window_start_ms) {
		rl->window_start_ms = now_ms;
		rl->printed = 0;
	}
	if (rl->printed >= LOG_RATELIMIT_BURST) {
		rl->suppressed++;
		return false;
	}
	rl->printed++;
	if (rl->suppressed)
		log_msg(LOG_INFO, "(%u messages like the next one suppressed)",
			rl->suppressed);
	rl->suppressed = 0;
	return true;
}
