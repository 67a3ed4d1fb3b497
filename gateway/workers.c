/* SPDX-License-Identifier: BSD-2-Clause */
/* A concentrator's worker processes (workers = N > 1).
 *
 * The first process (the one systemd started) holds what is the box's:
 * the firewall rules (which steer each packet to its worker's queues:
 * rules.c), rp_filter, the control socket, the status file.  It runs no
 * packet path.  It starts N workers, each the same binary run again with
 * --worker K:FD (FD: a pipe it writes one byte to once it is up) and its
 * own control socket, the first one's path and ".K".  Worker K is a whole
 * daemon for the CPEs whose session id is K modulo N (gw_owns), on its own
 * pair of queues (conf_worker_queue): it shares nothing with the others
 * on the packet path, and a session never moves while it lives.
 *
 * The first process asks each worker for its status data (the control
 * socket's "status", facts.h) when its own status is asked for, and adds
 * the workers' up: the queues' own counters summed (their gauges: the
 * largest), every session's values as their worker gave them.  A reload
 * (SIGHUP, l3bondctl reload) and l3bondctl set are applied by the first
 * process (the rules) and then passed to each worker.  A worker that dies
 * is started again after GW_WORKER_RESTART_MS (its CPEs handshake again;
 * what l3bondctl set changed is lost for it, as for a daemon restarted);
 * SIGTERM stops the workers (each releases what it holds), then removes
 * the rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gateway/ctl_client.h"
#include "gateway/facts.h"
#include "gateway/gw.h"
#include "gateway/workers.h"

enum {
	GW_WORKER_READY_MS = 30000,  /* start to ready, at most */
	GW_WORKER_RESTART_MS = 1000, /* a dead worker started again after */
	GW_WORKER_STOP_MS = 5000,    /* SIGTERM to exit, then SIGKILL */
};

struct gw_worker {
	struct gw_workers *ws;
	unsigned k;
	pid_t pid; /* 0: not running */
	ev_child child;
	ev_timer restart;
	char path[CONF_PATH_MAX + 16]; /* its control socket */
};

struct gw_workers {
	struct gw *gw;
	const char *exe_argv0;
	pid_t parent; /* the first process */
	unsigned n;
	struct gw_worker w[];
};

static void walk(struct gw *gw, const char *only, gw_stat_fn *fn, void *arg);

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Worker w started: the binary again, with its index and its pipe's write
 * end; 0 once it wrote its byte (it is up), or -errno. */
static int spawn(struct gw_worker *w)
{
	struct gw *gw = w->ws->gw;
	char wopt[32];
	const char *argv[10];
	unsigned a = 0;
	int p[2], ret;
	long long deadline;
	pid_t pid;
	char b;

	if (pipe2(p, O_CLOEXEC) < 0) {
		return -errno;
	}
	snprintf(wopt, sizeof(wopt), "%u:%d", w->k, p[1]);
	argv[a++] = w->ws->exe_argv0;
	argv[a++] = "-c";
	argv[a++] = gw->conf_file;
	argv[a++] = "--control-socket";
	argv[a++] = w->path;
	argv[a++] = "--worker";
	argv[a++] = wopt;
	if (gw->verbose) {
		argv[a++] = "-v";
	}
	argv[a] = NULL;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(p[0]);
		close(p[1]);
		return ret;
	}
	if (!pid) {
		sigset_t none;

		/* the loop's blocked signals and ignored ones are inherited
		 * across exec: the worker starts clean */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* the first process killed (SIGKILL): the workers go too */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 ||
		    getppid() != w->ws->parent) {
			_exit(127);
		}
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		unsetenv("NOTIFY_SOCKET"); /* systemd hears the first only */
		fcntl(p[1], F_SETFD, 0);
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	w->pid = pid;
	deadline = now_ms() + GW_WORKER_READY_MS;
	ret = -ETIMEDOUT;
	for (;;) {
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0) {
			break;
		}
		if (poll(&pf, 1, (int)left) < 0) {
			if (errno == EINTR) {
				continue;
			}
			ret = -errno;
			break;
		}
		n = read(p[0], &b, 1);
		if (n == 1) {
			ret = 0;
		} else if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
			continue;
		} else {
			ret = -ECHILD; /* it exited before it was up */
		}
		break;
	}
	close(p[0]);
	if (ret) {
		gw_err(gw, "worker %u (pid %d) did not come up: %s", w->k,
		       (int)pid,
		       ret == -ECHILD ? "it exited (see its log above)"
				      : strerror(-ret));
		/* gone for good: not a zombie, not a pid to wait for */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		w->pid = 0;
	} else {
		gw_info(gw, "worker %u up: pid %d, queues %u/%u", w->k,
			(int)pid,
			conf_worker_queue(&gw->conf, gw->conf.ingress_queue,
					  w->k),
			conf_worker_queue(&gw->conf, gw->conf.egress_queue,
					  w->k));
	}
	return ret;
}

static void on_restart(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct gw_worker *w = container_of(t, struct gw_worker, restart);

	(void)revents;
	if (w->ws->gw->stopping || w->pid) {
		return;
	}
	w->ws->gw->worker_restarts++;
	if (spawn(w)) { /* reaped by spawn: tried again */
		ev_timer_set(t, GW_WORKER_RESTART_MS / 1000., 0.);
		ev_timer_start(loop, t);
		return;
	}
	w->ws->gw->workers_up++;
	ev_child_set(&w->child, w->pid, 0);
	ev_child_start(loop, &w->child);
}

static void on_child(struct ev_loop *loop, ev_child *c, int revents)
{
	struct gw_worker *w = container_of(c, struct gw_worker, child);
	struct gw *gw = w->ws->gw;
	int st = c->rstatus;

	(void)revents;
	ev_child_stop(loop, c);
	w->pid = 0;
	gw->workers_up--;
	if (gw->stopping) {
		return;
	}
	if (WIFSIGNALED(st)) {
		gw_err(gw, "worker %u (pid %d) killed by signal %d: started "
			   "again in %d ms, its CPEs handshake again",
		       w->k, c->rpid, WTERMSIG(st), GW_WORKER_RESTART_MS);
	} else {
		gw_err(gw, "worker %u (pid %d) exited with %d: started again "
			   "in %d ms, its CPEs handshake again",
		       w->k, c->rpid, WEXITSTATUS(st), GW_WORKER_RESTART_MS);
	}
	ev_timer_set(&w->restart, GW_WORKER_RESTART_MS / 1000., 0.);
	ev_timer_start(loop, &w->restart);
}

int gw_workers_start(struct gw *gw, const char *argv0)
{
	unsigned n = conf_workers(&gw->conf), k;
	struct gw_workers *ws;
	int ret;

	ws = calloc(1, sizeof(*ws) + n * sizeof(ws->w[0]));
	if (!ws) {
		return -ENOMEM;
	}
	ws->gw = gw;
	ws->n = n;
	ws->exe_argv0 = argv0;
	ws->parent = getpid();
	gw->wk = ws;
	gw->nworkers = n;
	gw->stats_from_workers = walk;
	for (k = 0; k < n; k++) {
		struct gw_worker *w = &ws->w[k];

		w->ws = ws;
		w->k = k;
		snprintf(w->path, sizeof(w->path), "%s.%u",
			 gw->conf.control_socket, k);
		ev_child_init(&w->child, on_child, 0, 0);
		ev_timer_init(&w->restart, on_restart, 0., 0.);
	}
	for (k = 0; k < n; k++) {
		ret = spawn(&ws->w[k]);
		if (ret) {
			return ret;
		}
		gw->workers_up++;
		ev_child_set(&ws->w[k].child, ws->w[k].pid, 0);
		ev_child_start(gw->loop, &ws->w[k].child);
	}
	return 0;
}

void gw_workers_stop(struct gw *gw)
{
	struct gw_workers *ws = gw->wk;
	long long deadline = now_ms() + GW_WORKER_STOP_MS;
	unsigned k, left;
	int st;

	if (!ws) {
		return;
	}
	for (k = 0; k < ws->n; k++) {
		ev_child_stop(gw->loop, &ws->w[k].child);
		ev_timer_stop(gw->loop, &ws->w[k].restart);
		if (ws->w[k].pid) {
			kill(ws->w[k].pid, SIGTERM);
		}
	}
	/* each releases what it holds before the rules go */
	do {
		for (k = 0, left = 0; k < ws->n; k++) {
			pid_t pid = ws->w[k].pid;

			if (pid && waitpid(pid, &st, WNOHANG) == 0) {
				left++;
			} else {
				ws->w[k].pid = 0;
			}
		}
		if (left) {
			usleep(10000);
		}
	} while (left && now_ms() < deadline);
	for (k = 0; k < ws->n; k++) {
		if (ws->w[k].pid) {
			gw_err(gw, "worker %u (pid %d) did not stop within %d "
				   "ms: killed",
			       k, (int)ws->w[k].pid, GW_WORKER_STOP_MS);
			kill(ws->w[k].pid, SIGKILL);
			waitpid(ws->w[k].pid, &st, 0);
			ws->w[k].pid = 0;
		}
	}
	free(ws);
	gw->wk = NULL;
	gw->stats_from_workers = NULL;
	gw->workers_up = 0;
}

int gw_worker_opt(struct gw *gw, const char *arg)
{
	unsigned k;
	int fd, n = 0;

	if (sscanf(arg, "%u:%d%n", &k, &fd, &n) != 2 || arg[n] ||
	    k >= CONF_WORKERS_MAX || fd < 0) {
		return -EINVAL;
	}
	gw->worker = k;
	gw->ready_fd = fd;
	return 0;
}

int gw_worker_check(struct gw *gw)
{
	if (gw->ready_fd < 0) {
		return 0;
	}
	gw->nworkers = conf_workers(&gw->conf);
	if (gw->worker >= gw->nworkers) {
		gw_err(gw, "worker %u of %u: the file's workers changed under "
			   "us",
		       gw->worker, gw->nworkers);
		return -EINVAL;
	}
	return 0;
}

void gw_worker_ready(struct gw *gw)
{
	if (gw->ready_fd < 0) {
		return;
	}
	if (write(gw->ready_fd, "1", 1) != 1) {
		gw_warn(gw, "worker %u: cannot tell the first process that it "
			    "is up: %s",
			gw->worker, strerror(errno));
	}
	close(gw->ready_fd);
	gw->ready_fd = -1;
}

/* ---- control: what the workers say, added up ---------------------------- */

/* Worker w's reply to req, its first line "ok": 0 with the body (after
 * that line) in *body, *text to be freed; else -errno, why in err. */
static int ask(struct gw_worker *w, const char *req, char **text,
	       char **body, size_t *blen, char *err, size_t errlen)
{
	size_t len;
	char *nl;
	int ret;

	*text = NULL;
	ret = ctl_exchange(w->path, req, text, &len, err, errlen);
	if (ret) {
		return ret;
	}
	nl = memchr(*text, '\n', len);
	if (!nl || nl - *text != 2 || memcmp(*text, "ok", 2)) {
		snprintf(err, errlen, "worker %u: %.*s", w->k,
			 nl ? (int)(nl - *text) : (int)len, *text);
		return -EPROTO;
	}
	*body = nl + 1;
	*blen = len - (size_t)(*body - *text);
	return 0;
}

int gw_workers_tell(struct gw *gw, const char *req, char *err, size_t len)
{
	struct gw_workers *ws = gw->wk;
	char *text, *body;
	size_t blen;
	unsigned k;
	int ret, first = 0;

	/* one that is down reads the file when it is started again */
	for (k = 0; ws && k < ws->n; k++) {
		if (!ws->w[k].pid) {
			continue;
		}
		ret = ask(&ws->w[k], req, &text, &body, &blen, err, len);
		free(text);
		if (ret && !first) {
			first = ret;
			gw_err(gw, "worker %u: %s", k, err);
		}
	}
	return first;
}

static bool is_global(const struct gw_stat *st)
{
	return st->scope != GW_SCOPE_DAEMON && st->global;
}

static bool same_value(const struct gw_stat *a, const struct gw_stat *b)
{
	return a->scope == b->scope && !strcmp(a->name, b->name) &&
	       !a->label_value == !b->label_value &&
	       (!a->label_value || !strcmp(a->label_value, b->label_value));
}

/* gw->stats_from_workers: the queues' own values added up, then every
 * session's (only: ctl.c checked it names a CPE of the config, which every
 * worker reads; the worker that does not own it gives no session). */
static void walk(struct gw *gw, const char *only, gw_stat_fn *fn, void *arg)
{
	struct gw_workers *ws = gw->wk;
	struct facts *f = calloc(ws->n, sizeof(*f));
	char err[CONF_ERR_MAX], req[CONF_NAME_MAX + 16];
	unsigned k, j, ref = ws->n;
	size_t i, m;

	if (!f) {
		return;
	}
	ctl_status_request(req, sizeof(req), only);
	for (k = 0; k < ws->n; k++) {
		char *text = NULL, *body, *copy;
		size_t blen;

		if (!ws->w[k].pid ||
		    ask(&ws->w[k], req, &text, &body, &blen, err,
			sizeof(err))) {
			free(text);
			continue;
		}
		copy = malloc(blen + 1);
		if (copy) {
			memcpy(copy, body, blen + 1);
		}
		free(text);
		if (!copy || facts_parse(&f[k], copy, blen, err, sizeof(err))) {
			gw_warn(gw, "worker %u: its status: %s", k, err);
			facts_free(&f[k]);
			memset(&f[k], 0, sizeof(f[k]));
			continue;
		}
		if (ref == ws->n) {
			ref = k;
		}
	}
	/* the queues' own values: counters summed, gauges the largest */
	for (i = 0; ref < ws->n && i < f[ref].n; i++) {
		struct gw_stat st = f[ref].v[i];

		if (!is_global(&st)) {
			continue;
		}
		for (k = ref + 1; k < ws->n; k++) {
			for (m = 0; m < f[k].n; m++) {
				const struct gw_stat *o = &f[k].v[m];

				if (!is_global(o) || !same_value(&st, o)) {
					continue;
				}
				if (st.type == GW_STAT_COUNTER) {
					st.u += o->u;
				} else if (st.is_float) {
					st.d = o->d > st.d ? o->d : st.d;
				} else if (st.type == GW_STAT_GAUGE) {
					st.u = o->u > st.u ? o->u : st.u;
				}
				break;
			}
		}
		fn(arg, &st);
	}
	/* every session's values, worker by worker */
	for (k = 0; k < ws->n; k++) {
		for (j = 0; j < f[k].n; j++) {
			if (f[k].v[j].scope != GW_SCOPE_DAEMON &&
			    !f[k].v[j].global) {
				fn(arg, &f[k].v[j]);
			}
		}
		facts_free(&f[k]);
	}
	free(f);
}
