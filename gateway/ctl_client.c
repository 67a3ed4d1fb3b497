/* SPDX-License-Identifier: BSD-2-Clause */
/* The client's side of the control socket (ctl_client.h). */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gateway/ctl_client.h"

/* The daemon's errors about the connection, not the request (ctl.c). */
static const char *const conn_errors[] = {
	"permission denied",
	"too many connections, try again",
};

int ctl_conn_error(const char *why)
{
	size_t i;

	for (i = 0; i < sizeof(conn_errors) / sizeof(conn_errors[0]); i++) {
		if (!strcmp(why, conn_errors[i])) {
			return 1;
		}
	}
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for events on fd until the deadline; 0, or -ETIMEDOUT, -errno. */
static int wait_fd(int fd, short events, long long deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	long long left;
	int n;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0) {
			return -ETIMEDOUT;
		}
		n = poll(&pfd, 1, (int)left);
		if (n > 0) {
			return 0;
		}
		if (n == 0) {
			return -ETIMEDOUT;
		}
		if (errno != EINTR) {
			return -errno;
		}
	}
}

static int fail(char *err, size_t len, int ret, const char *what,
		const char *path)
{
	snprintf(err, len, "%s %s: %s", what, path, strerror(-ret));
	return ret;
}

int ctl_exchange(const char *path, const char *req, char **out,
		 size_t *outlen, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	long long deadline = now_ms() + CTL_CLIENT_TIMEOUT_MS;
	size_t len = 0, cap = 8192, off = 0, rlen = strlen(req);
	char *buf = NULL;
	ssize_t n;
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		return fail(err, errlen, -ENAMETOOLONG, "socket path", path);
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return fail(err, errlen, -errno, "socket for", path);
	}
	/* A listener whose backlog is full says EAGAIN: it may drain soon. */
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == EINTR) {
			continue;
		}
		if (errno != EAGAIN || now_ms() >= deadline) {
			ret = fail(err, errlen,
				   errno == EAGAIN ? -ETIMEDOUT : -errno,
				   "cannot connect to", path);
			goto out;
		}
		usleep(10000);
	}
	/* The daemon may close at once (refused): a failed send is not the
	 * end, its reply may be waiting. */
	while (off < rlen) {
		n = send(fd, req + off, rlen - off, MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			ret = wait_fd(fd, POLLOUT, deadline);
			if (ret) {
				fail(err, errlen, ret, "no reply from", path);
				goto out;
			}
			continue;
		}
		break;
	}
	buf = malloc(cap);
	if (!buf) {
		ret = fail(err, errlen, -ENOMEM, "reading from", path);
		goto out;
	}
	for (;;) {
		if (len + 1 == cap) {
			char *p;

			if (cap >= CTL_CLIENT_REPLY_MAX) {
				snprintf(err, errlen,
					 "%s: reply longer than %d bytes", path,
					 CTL_CLIENT_REPLY_MAX);
				ret = -EMSGSIZE;
				goto out;
			}
			p = realloc(buf, cap * 2);
			if (!p) {
				ret = fail(err, errlen, -ENOMEM, "reading from",
					   path);
				goto out;
			}
			buf = p;
			cap *= 2;
		}
		n = recv(fd, buf + len, cap - 1 - len, 0);
		if (n > 0) {
			len += (size_t)n;
			continue;
		}
		if (n == 0) {
			break;
		}
		if (errno == EINTR) {
			continue;
		}
		if (errno == EAGAIN) {
			ret = wait_fd(fd, POLLIN, deadline);
			if (ret == -ETIMEDOUT) {
				snprintf(err, errlen,
					 "no reply from %s within %d s", path,
					 CTL_CLIENT_TIMEOUT_MS / 1000);
				goto out;
			}
			if (ret) {
				fail(err, errlen, ret, "reading from", path);
				goto out;
			}
			continue;
		}
		/* a daemon that closed with our request unread resets the
		 * connection after its reply: that reply still counts */
		if (errno == ECONNRESET && memchr(buf, '\n', len)) {
			break;
		}
		ret = fail(err, errlen, -errno, "reading from", path);
		goto out;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

int ctl_status_request(char *buf, size_t len, const char *only)
{
	if (!only) {
		return snprintf(buf, len, "status\n");
	}
	if (!*only) {
		return snprintf(buf, len, "status totals\n");
	}
	return snprintf(buf, len, "status cpe %s\n", only);
}
