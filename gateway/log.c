/* SPDX-License-Identifier: BSD-2-Clause */
/* Logging: one line per message on stderr, "l3bondd[pid]: level: text",
 * filtered by the configured level.  stderr is what systemd's journal and
 * procd collect; the packet path only logs at debug level, through
 * gw_ratelimit_ok(). */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "gateway/gw.h"
#include "gateway/log.h"

enum {
	RL_WINDOW_US = 1000000,
	RL_BURST = 10,
};

uint64_t gw_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

void gw_log(const struct gw *gw, enum conf_log_level lv, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (lv > gw->log_level) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one write per line: lines of concurrent daemons do not mix */
	fprintf(stderr, "l3bondd[%d]: %s: %s\n", (int)getpid(),
		conf_log_level_name(lv), line);
}

bool gw_ratelimit_ok(struct gw_ratelimit *rl, uint64_t now_us)
{
	if (now_us - rl->window_us >= RL_WINDOW_US) {
		rl->window_us = now_us;
		rl->n = 0;
	}
	return rl->n++ < RL_BURST;
}
