/*
 * Timestamped log lines for the board model (to a file or stderr), and a
 * small rate limiter for messages a misbehaving node could trigger in bulk.
 */
#ifndef EUSRV_MODEL_LOG_H
#define EUSRV_MODEL_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum log_level {
	LOG_ERR,
	LOG_WARN,
	LOG_INFO,
	LOG_DEBUG,
};

/* Log to PATH (appended) instead of stderr (errors go to both); -errno. */
int log_open(const char *path);
void log_close(void);
/* Lines above LEVEL are dropped (default LOG_INFO). */
void log_set_level(enum log_level level);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

/*
 * At most LOG_RATELIMIT_BURST messages per LOG_RATELIMIT_WINDOW_MS; the
 * number suppressed is logged just before the next message let through.
 */
#define LOG_RATELIMIT_BURST	10U
#define LOG_RATELIMIT_WINDOW_MS	1000U

struct log_ratelimit {
	uint64_t window_start_ms;
	unsigned int printed;
	unsigned int suppressed;
};

/* True if a message may be printed at NOW_MS. */
bool log_ratelimit_ok(struct log_ratelimit *rl, uint64_t now_ms);

#endif /* EUSRV_MODEL_LOG_H */
