/* SPDX-License-Identifier: BSD-2-Clause */
/* The stats walk (stats.h) as "key=value" lines, one per value: written
 * to --status-file every GW_KSTATS_MS (atomically, by rename) and on
 * SIGUSR1; without a status file SIGUSR1 logs them.  Tests and scripts
 * read these keys: a key, once there, keeps its name and its format
 * (integers in decimal, weights and tunables as %g, text as it is). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gateway/gw.h"
#include "gateway/stats.h"

static void put_line(void *arg, const struct gw_stat *st)
{
	FILE *f = arg;
	char key[128];

	gw_stat_key(st, key, sizeof(key));
	if (st->type == GW_STAT_TEXT) {
		fprintf(f, "%s=%s\n", key, st->text ? st->text : "");
	} else if (st->is_float) {
		fprintf(f, "%s=%g\n", key, st->d);
	} else {
		fprintf(f, "%s=%llu\n", key, (unsigned long long)st->u);
	}
}

int gw_status_write(struct gw *gw, int fd)
{
	int dfd = dup(fd);
	FILE *f;

	if (dfd < 0) {
		return -errno;
	}
	f = fdopen(dfd, "w");
	if (!f) {
		close(dfd);
		return -errno;
	}
	gw_stats_walk(gw, put_line, f);
	if (fclose(f) != 0) {
		return -errno;
	}
	return 0;
}

/* The file is written from the packets' own thread: a write that blocks
 * holds every packet as long (on a disk the machine shares, 60-500 ms
 * under load, and the peers found the paths suspect).  Said at most once
 * every GW_STATUS_SLOW_WARN_S. */
enum {
	GW_STATUS_SLOW_US = 50000,
	GW_STATUS_SLOW_WARN_S = 60,
};

static void slow_write(struct gw *gw, uint64_t t0_us)
{
	uint64_t now = gw_now_us(), took_us = now - t0_us;

	if (took_us < GW_STATUS_SLOW_US ||
	    (gw->status_warned_us &&
	     now - gw->status_warned_us <
		     (uint64_t)GW_STATUS_SLOW_WARN_S * 1000000)) {
		return;
	}
	gw->status_warned_us = now;
	gw_warn(gw,
		"status file %s: writing it took %llu ms (every packet "
		"waited as long): on a disk, move it to a tmpfs (/run)",
		gw->status_file, (unsigned long long)(took_us / 1000));
}

void gw_status_dump(struct gw *gw)
{
	uint64_t t0 = gw_now_us();
	char tmp[4096];
	int fd, err;

	if (!gw->status_file) {
		gw_info(gw, "status (SIGUSR1):");
		gw_status_write(gw, 2);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", gw->status_file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		err = gw_status_write(gw, fd);
		close(fd);
		if (err || rename(tmp, gw->status_file) < 0) {
			unlink(tmp);
		}
	}
	slow_write(gw, t0);
}
