/* SPDX-License-Identifier: BSD-2-Clause */
/* A client's side of the control socket (ctl.c): one request, the whole
 * reply.  Shared by l3bondctl and l3bond-exporter; plain libc, blocking
 * with a deadline, no event loop. */
#ifndef L3BOND_CTL_CLIENT_H
#define L3BOND_CTL_CLIENT_H

#include <stddef.h>

enum {
	CTL_CLIENT_TIMEOUT_MS = 5000,
	/* the daemon caps its replies at 16 MiB (ctl.c CTL_REPLY_MAX) */
	CTL_CLIENT_REPLY_MAX = (16 << 20) + 4096,
};

/* Sends req (a line with its newline) to the socket at path and reads the
 * reply until the daemon closes, within CTL_CLIENT_TIMEOUT_MS.  0 with
 * *out (malloc'd, NUL-terminated, *outlen bytes without the NUL); or
 * -errno with why in err ("cannot connect to PATH: ..."). */
int ctl_exchange(const char *path, const char *req, char **out,
		 size_t *outlen, char *err, size_t errlen);

/* The status request for only (gw_stats_walk_only: NULL every CPE, ""
 * none, else a CPE's name), with its newline, into buf: the length it
 * takes (>= len: cut short), as snprintf. */
int ctl_status_request(char *buf, size_t len, const char *only);

/* The daemon's errors about the connection rather than the request
 * ("permission denied", "too many connections, try again"): true if the
 * text after "error: " is one of them. */
int ctl_conn_error(const char *why);

#endif
