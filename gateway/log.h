/* SPDX-License-Identifier: BSD-2-Clause */
/* Leveled logging to stderr, and the rate limit of messages on the packet
 * path (log.c). */
#ifndef L3BOND_GW_LOG_H
#define L3BOND_GW_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"

struct gw;

/* A token bucket for debug messages on the packet path. */
struct gw_ratelimit {
	uint64_t window_us;
	unsigned n;
};

void gw_log(const struct gw *gw, enum conf_log_level lv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define gw_err(gw, ...)	 gw_log(gw, CONF_LOG_ERROR, __VA_ARGS__)
#define gw_warn(gw, ...) gw_log(gw, CONF_LOG_WARNING, __VA_ARGS__)
#define gw_info(gw, ...) gw_log(gw, CONF_LOG_INFO, __VA_ARGS__)
#define gw_dbg(gw, ...)	 gw_log(gw, CONF_LOG_DEBUG, __VA_ARGS__)
/* true if a message may go out now (at most 10 a second) */
bool gw_ratelimit_ok(struct gw_ratelimit *rl, uint64_t now_us);
uint64_t gw_now_us(void);

/* A session's messages start with its label ("cpe NAME: "; "" for the
 * one CPE of a plain config). */
#define gw_slog(s, lv, fmt, ...)                                               \
	gw_log((s)->gw, lv, "%s" fmt, (s)->label, ##__VA_ARGS__)
#define gw_serr(s, ...)	 gw_slog(s, CONF_LOG_ERROR, __VA_ARGS__)
#define gw_swarn(s, ...) gw_slog(s, CONF_LOG_WARNING, __VA_ARGS__)
#define gw_sinfo(s, ...) gw_slog(s, CONF_LOG_INFO, __VA_ARGS__)
#define gw_sdbg(s, ...)	 gw_slog(s, CONF_LOG_DEBUG, __VA_ARGS__)

/* Touches every page of len bytes at p, so that the memory counts now
 * and not when the traffic first reaches it (a zeroing memset after malloc
 * may become a calloc, whose pages stay untouched). */
static inline void gw_commit_mem(void *p, size_t len)
{
	volatile uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i += 4096) {
		b[i] = 0;
	}
}

#endif
