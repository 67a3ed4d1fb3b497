/* SPDX-License-Identifier: BSD-2-Clause */
/* Readiness notification to systemd: the sd_notify protocol by hand.
 *
 * A service of Type=notify finds $NOTIFY_SOCKET in its environment: the
 * address of an AF_UNIX datagram socket, a path or, with a leading '@', a
 * name in the abstract namespace.  Each state change is one datagram of
 * "KEY=VALUE" lines.  Without the variable (not started by systemd, or
 * by procd) this does nothing.  No libsystemd: the daemon must also build
 * for routers that have none, and the protocol is this small.
 *
 * Never blocks (MSG_DONTWAIT: a stuck manager must not stall the packet
 * path) and never logs: the caller decides what a failure means, and the
 * daemon runs on whether systemd heard it or not.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gateway/notify.h"

enum {
	NOTIFY_MSG_MAX = 256,
};

/* Is line one of the lines of state? */
static bool has_line(const char *state, const char *line)
{
	size_t len = strlen(line);
	const char *p = state;

	while ((p = strstr(p, line))) {
		if ((p == state || p[-1] == '\n') &&
		    (p[len] == '\0' || p[len] == '\n')) {
			return true;
		}
		p += len;
	}
	return false;
}

int gw_notify(const char *state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *path = getenv("NOTIFY_SOCKET");
	char msg[NOTIFY_MSG_MAX];
	const char *out = state;
	struct timespec ts;
	socklen_t salen;
	size_t len, plen;
	ssize_t n;
	int fd, ret = 0;

	if (!state || !*state) {
		return -EINVAL;
	}
	if (!path || !*path) {
		return 0;
	}
	/* newer managers also offer vsock:...; we only speak AF_UNIX */
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen < 2 ||
	    plen >= sizeof(sa.sun_path)) {
		return -EAFNOSUPPORT;
	}
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@') {
		/* abstract: exactly plen bytes of name, no NUL at the end */
		sa.sun_path[0] = '\0';
		salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				    plen);
	} else {
		salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				    plen + 1);
	}

	len = strlen(state);
	/* systemd >= 253 wants the time of the reload request with
	 * RELOADING=1, to tell this reload from an earlier one; older
	 * versions ignore the unknown key */
	if (has_line(state, "RELOADING=1")) {
		if (clock_gettime(CLOCK_MONOTONIC, &ts)) {
			return -errno;
		}
		n = snprintf(msg, sizeof(msg), "%s\nMONOTONIC_USEC=%llu", state,
			     (unsigned long long)ts.tv_sec * 1000000ULL +
				     (unsigned long long)ts.tv_nsec / 1000);
		if (n < 0 || (size_t)n >= sizeof(msg)) {
			return -EMSGSIZE;
		}
		out = msg;
		len = (size_t)n;
	}

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -errno;
	}
	n = sendto(fd, out, len, MSG_DONTWAIT | MSG_NOSIGNAL,
		   (const struct sockaddr *)&sa, salen);
	if (n < 0) {
		ret = -errno;
	} else if ((size_t)n != len) {
		ret = -EMSGSIZE; /* a datagram goes whole or not at all */
	}
	close(fd);
	return ret;
}
