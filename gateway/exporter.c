/* SPDX-License-Identifier: BSD-2-Clause */
/* l3bond-exporter: the daemon's metrics over HTTP for Prometheus.
 *
 *	l3bond-exporter [-s SOCKET] [-l ADDRESS] [-p PORT] [-c CONNECTIONS]
 *
 * The packet daemon serves no HTTP (ctl.c): on each scrape this program
 * asks its control socket for the status data (facts.h) and answers with
 * the Prometheus text exposition 0.0.4 (show.h), the same text as
 * `l3bondctl metrics`, plus its own l3bond_metrics_* counters.  HTTP is
 * libmicrohttpd's, a thread per connection, so a slow client or a slow
 * daemon holds up nobody else.
 *
 * GET or HEAD /metrics: the exposition (503 when the daemon cannot be
 * asked); GET /: a page pointing there; other paths 404; other methods
 * 405 with Allow.  Every reply closes its connection.  Limits: at most
 * -c connections (a new one beyond is closed at once, "busy"), a request
 * header of about half of EX_POOL bytes (431, a request line: 414, by
 * libmicrohttpd's memory pool), EX_TIMEOUT_S without progress closes a
 * connection ("timeout").  Malformed requests (400) and other HTTP
 * versions (505) are answered by libmicrohttpd, without our handler.
 * Unlike the listener that was in the daemon, nothing evicts idle
 * connections for a new one: they hold their slot until the timeout.  The listening socket is ours: "::" means IPv6 only, an
 * IPv4 listener is asked for as 0.0.0.0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "gateway/ctl_client.h"
#include "gateway/facts.h"
#include "gateway/show.h"

#define DEFAULT_SOCKET "/run/l3bond/l3bondd.sock"
#define DEFAULT_LISTEN "127.0.0.1"
#define CT_METRICS "text/plain; version=0.0.4; charset=utf-8"

enum {
	DEFAULT_PORT = 9470,
	DEFAULT_CONNECTIONS = 16,
	EX_TIMEOUT_S = 5,
	/* libmicrohttpd's pool per connection: the request header and its
	 * parsed fields fit in about half of it */
	EX_POOL = 16384,
	EX_BACKLOG = 32,
	EXIT_USAGE = 2,
};

/* The replies this program makes, counted by code.  What
 * libmicrohttpd refuses itself (400, 414, 431, 505) never reaches us: it
 * counts as a connection closed without our reply ("aborted"). */
static const unsigned codes[] = {200, 404, 405, 500, 503};
enum { NCODES = sizeof(codes) / sizeof(codes[0]) };

/* Connections closed without a reply of ours, by why: over the limit;
 * idle until the timeout; else gone or refused by libmicrohttpd first. */
enum drop { D_BUSY, D_TIMEOUT, D_ABORTED, D_MAX };
static const char *const drop_names[D_MAX] = {"busy", "timeout", "aborted"};

struct exporter {
	const char *socket;
	unsigned max_conns;
	struct MHD_Daemon *_Atomic d;
	atomic_ullong replies[NCODES];
	atomic_ullong drops[D_MAX];
	atomic_ullong skipped;
};

/* Per connection (libmicrohttpd's socket context). */
struct conn {
	struct timespec start;
	bool answered;
};

static void count_reply(struct exporter *x, unsigned code)
{
	unsigned i;

	for (i = 0; i < NCODES; i++) {
		if (codes[i] == code) {
			x->replies[i]++;
		}
	}
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code,
			     const char *ctype, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE) {
			free(body);
		}
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	}
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned code,
			    const char *msg)
{
	return reply(c, code, "text/plain; charset=utf-8", (char *)msg,
		     strlen(msg), MHD_RESPMEM_PERSISTENT);
}

/* Connections open now, as libmicrohttpd counts them (it frees the slot
 * of a closed one on its next wake-up). */
static unsigned open_conns(struct exporter *x)
{
	const union MHD_DaemonInfo *di = NULL;

	if (x->d) {
		di = MHD_get_daemon_info(x->d,
					 MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	}
	return di ? di->num_connections : 0;
}

/* This server's own counters, after the daemon's values. */
static void own_metrics(struct exporter *x, struct expo *e)
{
	char labels[64], value[32];
	unsigned i;

	for (i = 0; i < NCODES; i++) {
		snprintf(labels, sizeof(labels), "code=\"%u\"", codes[i]);
		snprintf(value, sizeof(value), "%llu",
			 (unsigned long long)x->replies[i]);
		expo_sample(e, "l3bond_metrics_requests_total",
			    "HTTP requests answered by the metrics listener, by "
			    "status code",
			    "counter", labels, value);
	}
	for (i = 0; i < D_MAX; i++) {
		snprintf(labels, sizeof(labels), "reason=\"%s\"",
			 drop_names[i]);
		snprintf(value, sizeof(value), "%llu",
			 (unsigned long long)x->drops[i]);
		expo_sample(e, "l3bond_metrics_dropped_connections_total",
			    "connections to the metrics listener closed without a "
			    "reply, by reason",
			    "counter", labels, value);
	}
	snprintf(value, sizeof(value), "%u", open_conns(x));
	expo_sample(e, "l3bond_metrics_connections",
		    "connections to the metrics listener open now", "gauge", "",
		    value);
	snprintf(value, sizeof(value), "%llu", (unsigned long long)x->skipped);
	expo_sample(e, "l3bond_metrics_skipped_samples_total",
		    "daemon values left out of the exposition: their name was "
		    "taken by a metric of another type",
		    "counter", "", value);
}

/* The daemon's status data as an exposition, into *out.  0, -ENOMEM, or
 * -EIO with why in err (the daemon unreachable or refusing). */
static int scrape(struct exporter *x, char **out, size_t *len, char *err,
		  size_t errlen)
{
	char *rep = NULL, *data;
	struct facts s;
	struct expo *e;
	size_t rlen, dlen;
	FILE *f;
	int ret;

	ret = ctl_exchange(x->socket, "status\n", &rep, &rlen, err, errlen);
	if (ret) {
		return -EIO;
	}
	if (strncmp(rep, "ok\n", 3)) {
		snprintf(err, errlen, "%s: %.200s", x->socket, rep);
		free(rep);
		return -EIO;
	}
	dlen = rlen - 3;
	memmove(rep, rep + 3, dlen + 1);
	data = rep;
	ret = facts_parse(&s, data, dlen, err, errlen);
	if (ret) {
		facts_free(&s);
		return ret == -ENOMEM ? ret : -EIO;
	}
	e = expo_new();
	if (!e) {
		facts_free(&s);
		return -ENOMEM;
	}
	expo_facts(e, &s);
	facts_free(&s);
	/* a scrape counts itself: the 200 is on its way */
	x->replies[0]++;
	own_metrics(x, e);
	x->replies[0]--;
	f = open_memstream(out, len);
	ret = f ? expo_write(e, f) : -ENOMEM;
	x->skipped += expo_skipped(e);
	expo_free(e);
	if (f && fclose(f) && !ret) {
		ret = -ENOMEM;
	}
	if (ret) {
		free(f ? *out : NULL);
		*out = NULL;
	}
	return ret;
}

static const char index_page[] =
	"<!DOCTYPE html>\n"
	"<html><head><title>l3bond-exporter</title></head><body>\n"
	"<h1>l3bond-exporter</h1>\n"
	"<p><a href=\"/metrics\">/metrics</a>: l3bondd's counters and state "
	"in the Prometheus text format</p>\n"
	"</body></html>\n";

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **req_cls)
{
	struct exporter *x = cls;
	const union MHD_ConnectionInfo *ci;
	char *body = NULL, err[320];
	size_t len = 0;
	int ret;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)req_cls;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci && ci->socket_context) {
		((struct conn *)ci->socket_context)->answered = true;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		count_reply(x, 405);
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			    "method not allowed\n");
	}
	if (!strcmp(url, "/")) {
		count_reply(x, 200);
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8",
			     (char *)index_page, sizeof(index_page) - 1,
			     MHD_RESPMEM_PERSISTENT);
	}
	if (strcmp(url, "/metrics")) {
		count_reply(x, 404);
		return text(c, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n");
	}
	ret = scrape(x, &body, &len, err, sizeof(err));
	if (ret == -ENOMEM) {
		count_reply(x, 500);
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
			    "out of memory\n");
	}
	if (ret) {
		/* the reason goes to the scraper and the log */
		fprintf(stderr, "l3bond-exporter: scrape: %s\n", err);
		count_reply(x, 503);
		body = NULL;
		if (asprintf(&body, "l3bondd unreachable: %s\n", err) < 0) {
			return text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				    "l3bondd unreachable\n");
		}
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE,
			     "text/plain; charset=utf-8", body, strlen(body),
			     MHD_RESPMEM_MUST_FREE);
	}
	count_reply(x, 200);
	return reply(c, MHD_HTTP_OK, CT_METRICS, body, len,
		     MHD_RESPMEM_MUST_FREE);
}

/* Connections beyond the limit are closed at once, and counted. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr,
				 socklen_t len)
{
	struct exporter *x = cls;

	(void)addr;
	(void)len;
	if (open_conns(x) >= x->max_conns) {
		x->drops[D_BUSY]++;
		return MHD_NO;
	}
	return MHD_YES;
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Opened and closed connections: why one closed without
 * a reply of ours (idle until the timeout, or gone before, or refused by
 * libmicrohttpd: it does not say which). */
static void on_connection(void *cls, struct MHD_Connection *c,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode what)
{
	struct exporter *x = cls;
	struct conn *cn = *socket_context;

	(void)c;
	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		cn = calloc(1, sizeof(*cn));
		if (cn) {
			clock_gettime(CLOCK_MONOTONIC, &cn->start);
		}
		*socket_context = cn;
		return;
	}
	if (!cn) {
		return;
	}
	if (!cn->answered) {
		x->drops[since(&cn->start) >= EX_TIMEOUT_S - 0.5 ? D_TIMEOUT
								  : D_ABORTED]++;
	}
	free(cn);
	*socket_context = NULL;
}

/* The listening socket: address literal and port, IPv6 only for an IPv6
 * address.  The fd, or -1 with the reason printed. */
static int listen_on(const char *addr, unsigned port, char *where,
		     size_t wlen)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	socklen_t slen;
	int fd, one = 1;

	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		slen = sizeof(*sin);
		snprintf(where, wlen, "%s:%u", addr, port);
	} else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		slen = sizeof(*sin6);
		snprintf(where, wlen, "[%s]:%u", addr, port);
	} else {
		fprintf(stderr,
			"l3bond-exporter: --listen: bad value '%s': not an "
			"IPv4 or IPv6 address\n",
			addr);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    /* a restart must not wait for the old connections' TIME_WAIT */
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&ss, slen) || listen(fd, EX_BACKLOG)) {
		fprintf(stderr, "l3bond-exporter: cannot listen on %s: %s\n",
			where, strerror(errno));
		if (fd >= 0) {
			close(fd);
		}
		return -1;
	}
	return fd;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: l3bond-exporter [OPTIONS]\n"
		"Serves l3bondd's counters and state in the Prometheus text "
		"format on\n"
		"GET /metrics, asking the daemon's control socket on each "
		"scrape.\n"
		"options:\n"
		"  -s, --socket SOCKET       the daemon's control socket "
		"(default\n"
		"                            $L3BOND_SOCKET, else " DEFAULT_SOCKET
		")\n"
		"  -l, --listen ADDRESS      IPv4 or IPv6 literal to listen on "
		"(default\n"
		"                            " DEFAULT_LISTEN
		"; \"::\" is IPv6 only)\n"
		"  -p, --port PORT           TCP port (default %d)\n"
		"  -c, --max-connections N   connections at once (default "
		"%d)\n"
		"  -h, --help                this text\n"
		"  -V, --version             print the version and exit\n"
		"The metrics have no authentication: keep the listener on the "
		"loopback\n"
		"or a management network.\n",
		DEFAULT_PORT, DEFAULT_CONNECTIONS);
}

static int number(const char *opt, const char *s, unsigned lo, unsigned hi,
		  unsigned *v)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || n < lo || n > hi) {
		fprintf(stderr,
			"l3bond-exporter: %s: bad value '%s': out of range "
			"%u..%u\n",
			opt, s, lo, hi);
		return -EINVAL;
	}
	*v = (unsigned)n;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},
		{"listen", required_argument, NULL, 'l'},
		{"port", required_argument, NULL, 'p'},
		{"max-connections", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	static struct exporter x = {.max_conns = DEFAULT_CONNECTIONS};
	const char *addr = DEFAULT_LISTEN;
	unsigned port = DEFAULT_PORT;
	struct MHD_Daemon *d;
	char where[96];
	sigset_t set;
	int opt, fd, sig;

	x.socket = getenv("L3BOND_SOCKET");
	if (!x.socket || !*x.socket) {
		x.socket = DEFAULT_SOCKET;
	}
	while ((opt = getopt_long(argc, argv, "s:l:p:c:hV", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 's':
			x.socket = optarg;
			break;
		case 'l':
			addr = optarg;
			break;
		case 'p':
			if (number("--port", optarg, 1, 65535, &port)) {
				return EXIT_USAGE;
			}
			break;
		case 'c':
			if (number("--max-connections", optarg, 1, 1024,
				   &x.max_conns)) {
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("l3bond-exporter %s\n", L3BOND_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "l3bond-exporter: unexpected '%s'\n",
			argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	fd = listen_on(addr, port, where, sizeof(where));
	if (fd < 0) {
		return 1;
	}
	/* the signals are waited for below, in this thread only */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			MHD_USE_ITC,
		0, on_accept, &x, on_request, &x, MHD_OPTION_LISTEN_SOCKET, fd,
		/* beyond ours (on_accept), as a backstop */
		MHD_OPTION_CONNECTION_LIMIT, x.max_conns + 1,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)EX_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)EX_POOL,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, &x,
		MHD_OPTION_END);
	x.d = d;
	if (!d) {
		fprintf(stderr, "l3bond-exporter: cannot start the HTTP server "
				"on %s\n",
			where);
		close(fd);
		return 1;
	}
	fprintf(stderr,
		"l3bond-exporter: listening on http://%s/metrics, asking %s\n",
		where, x.socket);
	sigdelset(&set, SIGPIPE);
	do {
		sig = 0;
	} while (sigwait(&set, &sig) || sig == 0);
	MHD_stop_daemon(d);
	close(fd);
	return 0;
}
