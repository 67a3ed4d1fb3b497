/* SPDX-License-Identifier: BSD-2-Clause */
/* The control socket of l3bondctl: an AF_UNIX stream socket in the loop.
 *
 * One request per connection, one line of at most CTL_LINE_MAX bytes:
 *
 *	status [totals | cpe NAME] | set KEY VALUE | reload
 *	| budget PATH reset | budget PATH set MB | help
 *
 * The reply is "ok" or "error: <why>" on its first line, then the body;
 * then the daemon closes.  The body of "status" is data, not a
 * presentation: the stats walk in the versioned format of facts.h, which
 * l3bondctl shows as a table, JSON or the Prometheus exposition and
 * l3bond-exporter serves over HTTP (show.h).  The daemon renders nothing
 * and serves no HTTP.  Two errors are about the connection rather
 * than the request, and l3bondctl tells them apart by their exact text:
 * CTL_E_PERM (the peer's credentials) and CTL_E_BUSY (CTL_CONN_MAX
 * clients already).
 *
 * Nothing here may hold up the packet path: every socket is non-blocking,
 * a request must arrive within CTL_TIMEOUT_S, a reply that the client does
 * not read goes out through a write watcher and is given up when no byte
 * moved for CTL_TIMEOUT_S.  Replies are capped at CTL_REPLY_MAX.
 *
 * Who may connect: the file is root:control_group 0660 (0600 without
 * that group), and SO_PEERCRED checks again on accept: uid 0, our euid, or
 * the group as the peer's primary or supplementary group.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "gateway/ctl.h"
#include "gateway/facts.h"
#include "gateway/gw.h"
#include "gateway/reload.h"
#include "gateway/stats.h"
#include "gateway/workers.h"

enum ctl_limits {
	CTL_CONN_MAX = 16,	 /* clients at once */
	CTL_LINE_MAX = 256,	 /* request line, newline included */
	CTL_REPLY_MAX = 16 << 20, /* reply, bytes: ~2,500 CPEs' status data */
	CTL_REPLY_KEEP = 256 << 10, /* a slot keeps a reply buffer this big */
	CTL_STDIO_BUF = 4096,	    /* the reply stream's buffer */
	CTL_TIMEOUT_S = 2,	 /* no progress for this long: closed */
	CTL_ACCEPT_BUDGET = 32,	 /* accepts per wake-up */
	CTL_BACKLOG = 32,
	CTL_GROUPS_MAX = 4096, /* supplementary groups looked at */
	CTL_PAUSE_S = 1,       /* accepting paused after EMFILE and the like */
};

#define CTL_E_PERM "error: permission denied\n"
#define CTL_E_BUSY "error: too many connections, try again\n"

/* A reply being made (a stream into out) or going out.  The buffer stays
 * with the slot when the connection closes, up to CTL_REPLY_KEEP bytes: a
 * poller asking for status every few ms allocates nothing, and the heap
 * does not fragment under the churn of a new 32-KiB buffer per reply. */
struct ctl_conn {
	struct gw_ctl *ctl;
	int fd; /* -1: free */
	ev_io io;
	ev_timer timer;
	char line[CTL_LINE_MAX + 1];
	size_t llen;
	bool replying; /* out holds the reply: reading is over */
	int err;       /* 0, or why the reply could not be made */
	char *out;     /* the reply */
	size_t olen;
	size_t cap; /* out's size, kept between connections */
	size_t off; /* bytes of out already written */
};

struct gw_ctl {
	struct gw *gw;
	int fd;
	ev_io io;
	ev_timer pause; /* accepting again after a failed accept */
	char path[CONF_PATH_MAX];
	bool have_group;
	gid_t gid;
	unsigned nconn;
	struct ctl_conn conn[CTL_CONN_MAX];
	/* one reply is made at a time, to its end: one stream buffer and
	 * one table of the status's descriptions serve them all */
	char stdio_buf[CTL_STDIO_BUF];
	struct facts_writer facts;
};

/* ---- requests --------------------------------------------------------- */

/* The runtime keys and their ranges come from the key table
 * (common/conf_keys.c, CONF_RUNTIME): what set takes is what it lists. */
static void do_help(FILE *out)
{
	const struct conf_key_info *k;
	char range[48];
	size_t i;

	fprintf(out,
		"ok\n"
		"requests (one per connection, one line):\n"
		"  status         counters and state as data (l3bondctl "
		"shows it as\n"
		"                 a table, JSON or metrics)\n"
		"  status totals  the same without the CPEs' sessions\n"
		"  status cpe NAME  ... with only CPE NAME's session\n"
		"  set KEY VALUE  change a tunable now, runtime only:\n"
		"                 a reload or a restart reads the file again\n"
		"                 KEY, its meaning and range:\n");
	for (i = 0; (k = conf_key(i)); i++) {
		if (k->group == CONF_TOP && k->apply == CONF_RUNTIME) {
			conf_key_range(k, range, sizeof(range));
			fprintf(out, "    %-18s %s%s%s\n", k->name, k->help,
				range[0] ? ", " : "", range);
		}
	}
	fprintf(out, "  reload         read the configuration file again (as "
		     "SIGHUP)\n"
		     "  budget PATH reset | budget PATH set MB\n"
		     "                 what PATH used of its data budget this "
		     "period (CPE)\n"
		     "  help           this text\n"
		     "reply: \"ok\" or \"error: <why>\" on the first line, "
		     "then the body\n");
}

/* The walk as status data (facts.h); false when out of memory. */
/* only: NULL every session, "" none, else a CPE's name (gw_stats_walk_only),
 * which must be one of the config's (a worker's config has them all). */
static bool do_status(struct gw *gw, FILE *out, const char *only)
{
	struct facts_writer *w = &gw->ctl->facts;
	unsigned i;

	for (i = 0; only && *only && i < gw->conf.ncpes; i++) {
		if (!strcmp(gw->conf.cpe[i].name, only)) {
			break;
		}
	}
	if (only && *only && i == gw->conf.ncpes) {
		fprintf(out, "error: status: no CPE named '%.*s'\n",
			CONF_NAME_MAX, only);
		return true;
	}
	fprintf(out, "ok\n");
	facts_begin(w, out, L3BOND_VERSION);
	gw_stats_walk_only(gw, only, facts_put, w);
	return facts_end(w) == 0;
}

static void do_set(struct gw *gw, FILE *out, const char *key,
		   const char *value)
{
	char err[CONF_ERR_MAX];
	/* the scalars only: conf_set changes no CPE, and gw_apply_conf
	 * copies the CPEs c shares with gw->conf before it frees them */
	struct conf c = gw->conf;
	int ret;

	ret = conf_set(&c, key, value, err, sizeof(err));
	if (!ret) {
		ret = gw_apply_conf(gw, &c, err, sizeof(err));
	}
	if (!ret && gw->wk) { /* the workers' too (key, value: words) */
		char req[CTL_LINE_MAX + 8];

		snprintf(req, sizeof(req), "set %s %s\n", key, value);
		ret = gw_workers_tell(gw, req, err, sizeof(err));
	}
	auth_key_wipe(&c.psk);
	if (ret) {
		fprintf(out, "error: %s\n", err);
		return;
	}
	gw_info(gw, "l3bondctl: set %s %s", key, value);
	fprintf(out,
		"ok\n%s set to %s (runtime only: a reload or a restart "
		"reads the file again)\n",
		key, value);
}

static void do_reload(struct gw *gw, FILE *out)
{
	char err[CONF_ERR_MAX];

	gw_info(gw, "l3bondctl: reloading %s", gw->conf_file);
	if (gw_reload(gw, err, sizeof(err))) {
		fprintf(out, "error: %s\n", err);
		return;
	}
	fprintf(out, "ok\nreloaded %s\n", gw->conf_file);
}

/* budget PATH reset | budget PATH set MB: what the path used this period,
 * the operator's figure (the carrier's). */
static void do_budget(struct gw *gw, FILE *out, char **argv, int argc)
{
	char err[128], *end;
	unsigned long long mb = 0;

	if (argc == 4) {
		errno = 0;
		mb = strtoull(argv[3], &end, 10);
		if (errno || end == argv[3] || *end || argv[3][0] == '-' ||
		    mb > UINT64_MAX / GW_VOLUME_MB) {
			fprintf(out, "error: budget: '%.32s' is no number of MB\n",
				argv[3]);
			return;
		}
	}
	if (gw_volume_set(gw, argv[1], mb * GW_VOLUME_MB, err, sizeof(err))) {
		fprintf(out, "error: budget: %s\n", err);
		return;
	}
	gw_info(gw, "l3bondctl: budget %s: %llu MB used", argv[1], mb);
	fprintf(out, "ok\npath %s: %llu MB used this period\n", argv[1], mb);
}

/* Bytes of a request that may be echoed back: printable ASCII. */
static void sanitize(char *s)
{
	for (; *s; s++) {
		if (!isprint((unsigned char)*s)) {
			*s = '?';
		}
	}
}

/* The reply to line, into out; false when out of memory. */
static bool handle(struct gw *gw, char *line, FILE *out)
{
	char *argv[4], *save = NULL, *t;
	int argc = 0;

	for (t = strtok_r(line, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		if (argc == 4) {
			break;
		}
		argv[argc++] = t;
	}
	if (!argc) {
		fprintf(out, "error: empty request (try help)\n");
	} else if (!strcmp(argv[0], "status") && argc == 1) {
		return do_status(gw, out, NULL);
	} else if (!strcmp(argv[0], "status") && argc == 2 &&
		   !strcmp(argv[1], "totals")) {
		return do_status(gw, out, "");
	} else if (!strcmp(argv[0], "status") && argc == 3 &&
		   !strcmp(argv[1], "cpe")) {
		sanitize(argv[2]);
		return do_status(gw, out, argv[2]);
	} else if (!strcmp(argv[0], "set") && argc == 3) {
		do_set(gw, out, argv[1], argv[2]);
	} else if (!strcmp(argv[0], "reload") && argc == 1) {
		do_reload(gw, out);
	} else if (!strcmp(argv[0], "budget") &&
		   ((argc == 3 && !strcmp(argv[2], "reset")) ||
		    (argc == 4 && !strcmp(argv[2], "set")))) {
		sanitize(argv[1]);
		do_budget(gw, out, argv, argc);
	} else if (!strcmp(argv[0], "help") && argc == 1) {
		do_help(out);
	} else if (!strcmp(argv[0], "status") || !strcmp(argv[0], "set") ||
		   !strcmp(argv[0], "reload") || !strcmp(argv[0], "help") ||
		   !strcmp(argv[0], "budget")) {
		fprintf(out, "error: %s: wrong arguments (try help)\n",
			argv[0]);
	} else {
		sanitize(argv[0]);
		fprintf(out, "error: unknown request '%.64s' (try help)\n",
			argv[0]);
	}
	return true;
}

/* Room in out for n more bytes: 0, -EFBIG past CTL_REPLY_MAX, -ENOMEM. */
static int out_room(struct ctl_conn *cn, size_t n)
{
	size_t cap = cn->cap ? cn->cap : CTL_STDIO_BUF;
	char *p;

	if (n <= cn->cap - cn->olen) {
		return 0;
	}
	if (n > CTL_REPLY_MAX - cn->olen) {
		return -EFBIG;
	}
	while (cap - cn->olen < n) {
		cap *= 2;
	}
	p = realloc(cn->out, cap);
	if (!p) {
		return -ENOMEM;
	}
	cn->out = p;
	cn->cap = cap;
	return 0;
}

/* The reply stream's write (fopencookie): appends to out.  Past the cap or
 * out of memory it fails, and the stream with it; cn->err says why. */
static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
	struct ctl_conn *cn = cookie;
	int err = cn->err ? cn->err : out_room(cn, n);

	if (err) {
		cn->err = err;
		errno = -err;
		return -1;
	}
	memcpy(cn->out + cn->olen, buf, n);
	cn->olen += n;
	return (ssize_t)n;
}

/* Reading is over: out starts empty. */
static void reply_begin(struct ctl_conn *cn)
{
	cn->replying = true;
	cn->olen = 0;
	cn->off = 0;
	cn->err = 0;
}

/* A one-line reply made here (errors about the connection and the
 * request's own failures), in place of anything out held. */
static void __attribute__((format(printf, 2, 3)))
set_reply(struct ctl_conn *cn, const char *fmt, ...)
{
	va_list ap;
	int n;

	reply_begin(cn);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || out_room(cn, (size_t)n + 1)) {
		return; /* nothing to say: the client sees the close */
	}
	va_start(ap, fmt);
	vsnprintf(cn->out, (size_t)n + 1, fmt, ap);
	va_end(ap);
	cn->olen = (size_t)n;
}

/* ---- connections ------------------------------------------------------ */

static void conn_close(struct ctl_conn *cn)
{
	struct gw_ctl *ctl = cn->ctl;
	struct ev_loop *loop = ctl->gw->loop;

	ev_io_stop(loop, &cn->io);
	ev_timer_stop(loop, &cn->timer);
	close(cn->fd);
	cn->fd = -1;
	if (cn->cap > CTL_REPLY_KEEP) {
		free(cn->out);
		cn->out = NULL;
		cn->cap = 0;
	}
	cn->olen = 0;
	cn->replying = false;
	ctl->nconn--;
}

/* Writes what the socket takes; true when the reply is out. */
static bool conn_flush(struct ctl_conn *cn)
{
	while (cn->off < cn->olen) {
		ssize_t n =
			send(cn->fd, cn->out + cn->off, cn->olen - cn->off,
			     MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			return false;
		}
		if (n <= 0) {
			return true; /* the client is gone: nothing to send */
		}
		cn->off += (size_t)n;
	}
	return true;
}

static void conn_on_write(struct ev_loop *loop, ev_io *w, int revents);

static void conn_reply(struct ctl_conn *cn)
{
	static const cookie_io_functions_t io = {.write = out_write};
	struct gw_ctl *ctl = cn->ctl;
	struct ev_loop *loop = ctl->gw->loop;
	bool made;
	FILE *f;

	cn->line[cn->llen] = '\0';
	reply_begin(cn);
	f = fopencookie(cn, "w", io);
	if (!f) {
		set_reply(cn, "error: %s\n", strerror(errno));
	} else {
		setvbuf(f, ctl->stdio_buf, _IOFBF, sizeof(ctl->stdio_buf));
		made = handle(ctl->gw, cn->line, f);
		made = fclose(f) == 0 && made;
		if (!made && cn->err == -EFBIG) {
			set_reply(cn,
				  "error: reply longer than %d bytes (the "
				  "status of many CPEs: ask for one, or "
				  "none: l3bondctl status --cpe NAME, "
				  "--totals)\n",
				  CTL_REPLY_MAX);
		} else if (!made) {
			set_reply(cn, "error: %s\n", strerror(ENOMEM));
		}
	}
	ev_io_stop(loop, &cn->io);
	if (conn_flush(cn)) {
		conn_close(cn);
		return;
	}
	ev_io_init(&cn->io, conn_on_write, cn->fd, EV_WRITE);
	ev_io_start(loop, &cn->io);
	ev_timer_again(loop, &cn->timer);
}

static void conn_on_write(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl_conn *cn = container_of(w, struct ctl_conn, io);

	(void)revents;
	if (conn_flush(cn)) {
		conn_close(cn);
		return;
	}
	ev_timer_again(loop, &cn->timer); /* it moved: more time */
}

static void conn_on_read(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl_conn *cn = container_of(w, struct ctl_conn, io);
	char *nl;
	ssize_t n;

	(void)revents;
	n = recv(cn->fd, cn->line + cn->llen, CTL_LINE_MAX - cn->llen,
		 MSG_DONTWAIT);
	if (n < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		return;
	}
	if (n < 0) {
		conn_close(cn);
		return;
	}
	if (n == 0) {
		/* the client shut its side: a last line without newline
		 * still counts, nothing at all is just a goodbye */
		if (cn->llen) {
			conn_reply(cn);
		} else {
			conn_close(cn);
		}
		return;
	}
	cn->llen += (size_t)n;
	nl = memchr(cn->line, '\n', cn->llen);
	if (nl) {
		cn->llen = (size_t)(nl - cn->line);
		if (cn->llen && cn->line[cn->llen - 1] == '\r') {
			cn->llen--;
		}
		conn_reply(cn);
	} else if (memchr(cn->line, '\0', cn->llen)) {
		cn->llen = 0;
		set_reply(cn, "error: request holds a NUL byte\n");
		ev_io_stop(loop, &cn->io);
		conn_flush(cn);
		conn_close(cn);
	} else if (cn->llen == CTL_LINE_MAX) {
		set_reply(cn, "error: request longer than %d bytes\n",
			CTL_LINE_MAX - 1);
		ev_io_stop(loop, &cn->io);
		conn_flush(cn);
		conn_close(cn);
	}
}

static void conn_on_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct ctl_conn *cn = container_of(w, struct ctl_conn, timer);

	(void)loop;
	(void)revents;
	if (!cn->replying) {
		/* still reading: tell it why, if it listens */
		set_reply(cn, "error: no request within %d s\n",
			CTL_TIMEOUT_S);
		conn_flush(cn);
	}
	conn_close(cn);
}

/* A one-line reply to a connection we do not keep. */
static void refuse(int fd, const char *msg)
{
	ssize_t n = send(fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL);

	(void)n; /* best effort: the client may be gone already */
	close(fd);
}

/* uid 0, our euid, or the control group as primary or supplementary. */
static bool peer_allowed(const struct gw_ctl *ctl, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	gid_t small[64], *g = small;
	bool ok = false;
	size_t i;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		return false;
	}
	if (cr.uid == 0 || cr.uid == geteuid()) {
		return true;
	}
	if (!ctl->have_group) {
		return false;
	}
	if (cr.gid == ctl->gid) {
		return true;
	}
	len = sizeof(small);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
		if (errno != ERANGE || len > CTL_GROUPS_MAX * sizeof(gid_t)) {
			return false;
		}
		g = malloc(len);
		if (!g ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
			free(g);
			return false;
		}
	}
	for (i = 0; i < len / sizeof(gid_t); i++) {
		if (g[i] == ctl->gid) {
			ok = true;
			break;
		}
	}
	if (g != small) {
		free(g);
	}
	return ok;
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
	struct gw_ctl *ctl = container_of(w, struct gw_ctl, io);
	struct ctl_conn *cn = NULL;
	unsigned i, n;
	int fd;

	(void)revents;
	for (n = 0; n < CTL_ACCEPT_BUDGET; n++) {
		fd = accept4(ctl->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED) {
				/* out of descriptors or memory: the socket
				 * stays readable, so a watcher left on would
				 * spin; try again later */
				gw_warn(ctl->gw,
					"control socket: accept: %s; paused "
					"for %d s",
					strerror(errno), CTL_PAUSE_S);
				ev_io_stop(loop, &ctl->io);
				ev_timer_set(&ctl->pause, CTL_PAUSE_S, 0.);
				ev_timer_start(loop, &ctl->pause);
			}
			return;
		}
		if (!peer_allowed(ctl, fd)) {
			refuse(fd, CTL_E_PERM);
			continue;
		}
		if (ctl->nconn == CTL_CONN_MAX) {
			refuse(fd, CTL_E_BUSY);
			continue;
		}
		for (i = 0; i < CTL_CONN_MAX; i++) {
			if (ctl->conn[i].fd < 0) {
				cn = &ctl->conn[i];
				break;
			}
		}
		/* (olen and replying: cleared by conn_close) */
		cn->fd = fd;
		cn->llen = 0;
		ctl->nconn++;
		ev_io_init(&cn->io, conn_on_read, fd, EV_READ);
		ev_io_start(loop, &cn->io);
		ev_timer_init(&cn->timer, conn_on_timeout, 0., CTL_TIMEOUT_S);
		ev_timer_again(loop, &cn->timer);
	}
}

static void on_pause_end(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct gw_ctl *ctl = container_of(w, struct gw_ctl, pause);

	(void)revents;
	ev_io_start(loop, &ctl->io);
}

/* ---- the listening socket --------------------------------------------- */

/* mkdir -p of path's parent directory, new ones 0755. */
static int make_parent(const char *path)
{
	char dir[CONF_PATH_MAX];
	char *p;

	snprintf(dir, sizeof(dir), "%s", path);
	p = strrchr(dir, '/');
	if (!p || p == dir) {
		return 0;
	}
	*p = '\0';
	for (p = dir + 1; *p; p++) {
		if (*p != '/') {
			continue;
		}
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		return -errno;
	}
	return 0;
}

/* A socket file already there: ours to replace only if nobody answers. */
static int clear_stale(struct gw *gw, const struct sockaddr_un *sa)
{
	const char *path = sa->sun_path;
	struct stat sb;
	int fd, ret;

	if (lstat(path, &sb) < 0) {
		return errno == ENOENT ? 0 : -errno;
	}
	if (!S_ISSOCK(sb.st_mode)) {
		gw_err(gw, "control socket %s: exists and is not a socket",
		       path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -errno;
	}
	ret = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	if (ret < 0 && errno == ECONNREFUSED) {
		close(fd);
		gw_info(gw, "control socket %s: removing a stale socket", path);
		if (unlink(path) < 0 && errno != ENOENT) {
			return -errno;
		}
		return 0;
	}
	ret = ret < 0 ? -errno : 0;
	close(fd);
	if (!ret || ret == -EAGAIN) {
		/* connected, or its backlog is full: someone listens */
		gw_err(gw, "another l3bondd listens on %s", path);
		return -EADDRINUSE;
	}
	gw_err(gw, "control socket %s: cannot check it: %s", path,
	       strerror(-ret));
	return ret;
}

int gw_ctl_open(struct gw *gw)
{
	const char *path = gw->conf.control_socket;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct gw_ctl *ctl;
	struct group *gr;
	mode_t old;
	unsigned i;
	int ret;

	if (!*path) {
		gw_info(gw, "no control socket (control_socket is \"\")");
		return 0;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		gw_err(gw, "control socket %s: path too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl) {
		return -ENOMEM;
	}
	ctl->gw = gw;
	snprintf(ctl->path, sizeof(ctl->path), "%s", path);
	for (i = 0; i < CTL_CONN_MAX; i++) {
		ctl->conn[i].fd = -1;
		ctl->conn[i].ctl = ctl;
	}
	ret = make_parent(path);
	if (ret) {
		gw_err(gw, "control socket %s: cannot create its directory: %s",
		       path, strerror(-ret));
		goto out_free;
	}
	ret = clear_stale(gw, &sa);
	if (ret) {
		goto out_free;
	}
	ctl->fd =
		socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ctl->fd < 0) {
		ret = -errno;
		goto out_free;
	}
	/* born 0600: no moment where others could connect */
	old = umask(0177);
	ret = bind(ctl->fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (ret < 0) {
		ret = -errno;
		gw_err(gw, "control socket %s: bind: %s", path, strerror(-ret));
		goto out_close;
	}
	gr = getgrnam(gw->conf.control_group);
	if (!gr) {
		gw_warn(gw,
			"control socket %s: group '%s' does not exist: only "
			"root may use it (mode 0600)",
			path, gw->conf.control_group);
	} else if (chown(path, (uid_t)-1, gr->gr_gid) < 0 ||
		   chmod(path, 0660) < 0) {
		gw_warn(gw,
			"control socket %s: cannot give it to group '%s': %s "
			"(mode 0600)",
			path, gw->conf.control_group, strerror(errno));
	} else {
		ctl->have_group = true;
		ctl->gid = gr->gr_gid;
	}
	if (listen(ctl->fd, CTL_BACKLOG) < 0) {
		ret = -errno;
		goto out_unlink;
	}
	ev_io_init(&ctl->io, on_accept, ctl->fd, EV_READ);
	ev_io_start(gw->loop, &ctl->io);
	ev_timer_init(&ctl->pause, on_pause_end, 0., 0.);
	gw->ctl = ctl;
	gw_info(gw, "control socket %s (group %s)", path,
		ctl->have_group ? gw->conf.control_group : "none: root only");
	return 0;

out_unlink:
	unlink(path);
out_close:
	close(ctl->fd);
out_free:
	free(ctl);
	return ret;
}

void gw_ctl_close(struct gw *gw)
{
	struct gw_ctl *ctl = gw->ctl;
	unsigned i;

	if (!ctl) {
		return;
	}
	for (i = 0; i < CTL_CONN_MAX; i++) {
		if (ctl->conn[i].fd >= 0) {
			conn_close(&ctl->conn[i]);
		}
		free(ctl->conn[i].out);
	}
	facts_writer_free(&ctl->facts);
	ev_io_stop(gw->loop, &ctl->io);
	ev_timer_stop(gw->loop, &ctl->pause);
	close(ctl->fd);
	unlink(ctl->path);
	free(ctl);
	gw->ctl = NULL;
}
