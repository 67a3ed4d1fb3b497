/* SPDX-License-Identifier: BSD-2-Clause */
/* gw_notify() (gateway/notify.c) against real AF_UNIX datagram sockets:
 * what arrives, at a path and at an abstract name; MONOTONIC_USEC with
 * RELOADING=1 and only then; every malformed $NOTIFY_SOCKET with its
 * error; and that a receiver whose queue is full makes it fail at once
 * (-EAGAIN) instead of blocking.  No root needed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "gateway/notify.h"

struct rx {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char env[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
};

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* A receiver at a fresh path (abstract: a fresh name); $NOTIFY_SOCKET
 * names it. */
static void rx_open(struct rx *r, bool abstract)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	socklen_t len;

	r->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(r->fd >= 0);
	if (abstract) {
		snprintf(r->env, sizeof(r->env), "@l3b-test-notify-%d",
			 (int)getpid());
		memcpy(sa.sun_path + 1, r->env + 1, strlen(r->env) - 1);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				  strlen(r->env));
		r->path[0] = '\0';
	} else {
		snprintf(r->path, sizeof(r->path), "/tmp/l3b-test-notify-%d",
			 (int)getpid());
		unlink(r->path);
		strcpy(sa.sun_path, r->path);
		strcpy(r->env, r->path);
		len = sizeof(sa);
	}
	assert_int_equal(bind(r->fd, (struct sockaddr *)&sa, len), 0);
	assert_int_equal(setenv("NOTIFY_SOCKET", r->env, 1), 0);
}

static void rx_close(struct rx *r)
{
	close(r->fd);
	if (r->path[0]) {
		unlink(r->path);
	}
	unsetenv("NOTIFY_SOCKET");
}

/* The next datagram, or "" when none is waiting. */
static void rx_get(struct rx *r, char *buf, size_t len)
{
	ssize_t n = recv(r->fd, buf, len - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
}

static void test_unset_sends_nothing(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(gw_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "", 1);
	assert_int_equal(gw_notify("READY=1"), 0);
	unsetenv("NOTIFY_SOCKET");
}

static void test_path_and_abstract(void **state)
{
	static const char *const states[] = {"READY=1", "STOPPING=1",
					     "STATUS=x\nREADY=1"};
	char buf[512];
	struct rx r;
	unsigned i;
	int abstract;

	(void)state;
	for (abstract = 0; abstract <= 1; abstract++) {
		rx_open(&r, abstract);
		for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
			assert_int_equal(gw_notify(states[i]), 0);
			rx_get(&r, buf, sizeof(buf));
			assert_string_equal(buf, states[i]);
		}
		rx_get(&r, buf, sizeof(buf));
		assert_string_equal(buf, ""); /* one datagram each */
		rx_close(&r);
	}
}

/* RELOADING=1 carries the monotonic time of the call, in µs; only a line
 * that is exactly RELOADING=1 does. */
static void test_reloading_monotonic(void **state)
{
	char buf[512], *end;
	const char *v;
	uint64_t t0, t1, t;
	struct rx r;

	(void)state;
	rx_open(&r, false);
	t0 = mono_us();
	assert_int_equal(gw_notify("RELOADING=1"), 0);
	t1 = mono_us();
	rx_get(&r, buf, sizeof(buf));
	assert_true(!strncmp(buf, "RELOADING=1\nMONOTONIC_USEC=", 27));
	v = buf + 27;
	t = strtoull(v, &end, 10);
	assert_true(end != v && *end == '\0');
	assert_true(t >= t0 && t <= t1);

	assert_int_equal(gw_notify("STATUS=reload\nRELOADING=1"), 0);
	rx_get(&r, buf, sizeof(buf));
	assert_non_null(
		strstr(buf, "STATUS=reload\nRELOADING=1\nMONOTONIC_USEC="));

	assert_int_equal(gw_notify("XRELOADING=1"), 0);
	rx_get(&r, buf, sizeof(buf));
	assert_string_equal(buf, "XRELOADING=1");
	assert_int_equal(gw_notify("RELOADING=10"), 0);
	rx_get(&r, buf, sizeof(buf));
	assert_string_equal(buf, "RELOADING=10");
	rx_close(&r);
}

static void test_bad_input(void **state)
{
	char longp[200];

	(void)state;
	setenv("NOTIFY_SOCKET", "/tmp", 1);
	assert_int_equal(gw_notify(""), -EINVAL);
	assert_int_equal(gw_notify(NULL), -EINVAL);

	setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
	assert_int_equal(gw_notify("READY=1"), -EAFNOSUPPORT);
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	assert_int_equal(gw_notify("READY=1"), -EAFNOSUPPORT);
	setenv("NOTIFY_SOCKET", "@", 1);
	assert_int_equal(gw_notify("READY=1"), -EAFNOSUPPORT);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	setenv("NOTIFY_SOCKET", longp, 1);
	assert_int_equal(gw_notify("READY=1"), -EAFNOSUPPORT);

	/* nobody there */
	setenv("NOTIFY_SOCKET", "/nonexistent/l3b-notify", 1);
	assert_int_equal(gw_notify("READY=1"), -ENOENT);
	setenv("NOTIFY_SOCKET", "@l3b-test-notify-nobody", 1);
	assert_int_equal(gw_notify("READY=1"), -ECONNREFUSED);
	unsetenv("NOTIFY_SOCKET");
}

/* A manager that does not read must not stall the daemon. */
static void test_full_receiver_does_not_block(void **state)
{
	char buf[512];
	uint64_t t0;
	struct rx r;
	int i, ret = 0;

	(void)state;
	rx_open(&r, false);
	/* a datagram socket's queue is bounded by the receiver's
	 * max_dgram_qlen (default 10) and its buffer */
	t0 = mono_us();
	for (i = 0; i < 100000 && !ret; i++) {
		ret = gw_notify("READY=1");
	}
	assert_int_equal(ret, -EAGAIN);
	assert_true(mono_us() - t0 < 5000000);
	rx_get(&r, buf, sizeof(buf));
	assert_string_equal(buf, "READY=1");
	rx_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unset_sends_nothing),
		cmocka_unit_test(test_path_and_abstract),
		cmocka_unit_test(test_reloading_monotonic),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_full_receiver_does_not_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
