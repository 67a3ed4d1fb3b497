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

void gw_status_dump(struct gw *gw)
{
	char tmp[4096];
	int fd, err;

	if (!gw->status_file) {
		gw_info(gw, "status (SIGUSR1):");
		gw_status_write(gw, 2);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", gw->status_file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		return;
	}
	err = gw_status_write(gw, fd);
	close(fd);
	if (err || rename(tmp, gw->status_file) < 0) {
		unlink(tmp);
	}
}
