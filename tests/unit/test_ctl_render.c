/* SPDX-License-Identifier: BSD-2-Clause */
/* Unit tests of what the daemon says and what its clients show, without
 * a socket or a loop: the stats walk (gateway/stats.c), its status-file
 * lines (gateway/status.c), the status data of the control socket
 * written and parsed back (gateway/facts.c), and the presentations made
 * from the parsed snapshot (gateway/show.c: table, JSON, Prometheus
 * exposition).  The daemon's state is faked; nothing here calls libev.
 * The socket itself, its requests, permissions and limits are tested as
 * root by tests/netns/test_ctl.sh, the exposition over HTTP by
 * tests/netns/test_metrics.sh.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "gateway/facts.h"
#include "gateway/gw.h"
#include "gateway/session.h"
#include "gateway/show.h"
#include "gateway/stats.h"

/* ---- a daemon's state, without the daemon ------------------------------- */

static struct gw g;
static struct gw_sess fs, *sess_list[1] = {&fs};

static void fake_gw(void)
{
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};

	memset(&g, 0, sizeof(g));
	memset(&fs, 0, sizeof(fs));
	conf_defaults(&g.conf);
	g.conf.role = ROLE_CPE;
	g.conf.session_id = 4242;
	g.conf.probe_interval_ms = 100;
	g.conf.dead_after_ms = 500;
	g.conf.npaths = 2;
	strcpy(g.conf.path[0].name, "dsl");
	strcpy(g.conf.path[1].name, "lte");
	g.conf.path[1].cls = PATH_MOBILE;
	g.log_level = CONF_LOG_ERROR; /* quiet */
	g.npaths = 2;
	g.start_us = gw_now_us();
	g.nsess = 1;
	g.sess = sess_list;
	fs.gw = &g;
	fs.id = 4242;
	fs.sec.have_keys = true;
	fs.sec.st.handshakes = 2;
	fs.sec.tx_pn = 77;
	assert_int_equal(ing_sched_init(&fs.sched, &g.conf.sched, 2, cls), 0);
	fs.egr.reseq.p = g.conf.reseq;
	fs.egr.reseq.p.t_lto_us = 12000; /* adapted below t_lto_ms */
	fs.ist.bonded = 1343;
	g.egr.st.wire[WIRE_E_SHORT] = 3;
	fs.est.auth[GW_AUTH_BAD_TAG] = 5;
	fs.est.ctrl[WIRE_REPORT] = 224;
	g.egr.kst.queue_dropped = 7;
	fs.link[0].alive = true;
	fs.link[0].have_peer = true;
	fs.link[0].peer.sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:10.12.0.1", &fs.link[0].peer.sin6_addr);
	fs.link[0].peer.sin6_port = htons(7040);
	fs.link[0].st.tx_pkts = 1343;
	fs.link[0].st.tx_bytes = 1924528;
	fs.link[0].rtt_us = 26552;
	fs.link[0].rtt.srtt_us = 26000;
	fs.link[0].rtt.rttvar_us = 800;
	fs.link[0].rtt.samples = 9;
	fs.link[1].rtt.srtt_us = 5; /* no sample: must read 0 */
	fs.egr.loss.p[1].lost = 12;
	fs.egr.loss.p[1].rx = 1000;
	fs.sched.path[0].rep_lost = 4;
}

static char *status_text(void)
{
	static char text[16384];
	FILE *f = tmpfile();
	size_t n;

	assert_non_null(f);
	assert_int_equal(gw_status_write(&g, fileno(f)), 0);
	rewind(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)); p++) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n') {
			return true;
		}
	}
	return false;
}

/* Every key the status file had before the walk, with the format each
 * value had: scripts read these. */
static const char *const old_lines[] = {
	"role=cpe",
	"session=4242",
	"session_state=up",
	"handshakes=2",
	"tx_pn=77",
	"encrypt=0",
	"k=0.5",
	"t_dwd_ms=250",
	"t_report_ms=50",
	"w_fixed=50",
	"w_mobile_max=45",
	"queue_target_ms=5", /* dwd_hold_ms=3 before wire v3 */
	"t_lto_ms=100",
	"early_release=1",
	"w_mobile=0",
	"gseq=0",
	"ing.pkts=0",
	"ing.bonded=1343",
	"ing.no_path=0",
	"ing.unfit=0",
	"ing.verdict_errors=0",
	"ing.reports=0",
	"ing.stale_reports=0",
	"ing.awi=0",
	"ing.iwi=0",
	"ing.dwd=0",
	"ing.dwd_held=0",
	"ing.kernel_dropped=0",
	"ing.kernel_user_dropped=0",
	"egr.pkts=0",
	"egr.released=0",
	"egr.in_order=0",
	"egr.buffered=0",
	"egr.late=0",
	"egr.dup=0",
	"egr.hole_timeout=0",
	"egr.hole_early=0",
	"egr.hole_overflow=0",
	"egr.hole_path_down=0",
	"egr.hole_flush=0",
	"egr.depth=0",
	"egr.outer_bad=0",
	"egr.session=0",
	"egr.path=0",
	"egr.oversize=0",
	"egr.inner_family=0",
	"egr.no_slot=0",
	"egr.verdict_errors=0",
	"egr.peer_restarts=0",
	"egr.no_kernel_time=0",
	"egr.wire.short=3",
	"egr.wire.bad_version=0",
	"egr.wire.bad_type=0",
	"egr.wire.bad_path=0",
	"egr.wire.inner_short=0",
	"egr.wire.inner_bad_version=0",
	"egr.wire.inner_bad_length=0",
	"egr.wire.bad_body_length=0",
	"egr.wire.bad_report=0",
	"egr.wire.control_with_seq=0",
	"egr.ctrl.report=224",
	"egr.ctrl.probe=0",
	"egr.ctrl.probe_ack=0",
	"egr.ctrl.hello=0",
	"egr.ctrl.hello_ack=0",
	"egr.kernel_dropped=7",
	"egr.kernel_user_dropped=0",
	"path.dsl.up=1",
	"path.dsl.peer=10.12.0.1:7040",
	"path.dsl.weight=50",
	"path.dsl.sent=0",
	"path.dsl.tx_pkts=1343",
	"path.dsl.tx_bytes=1924528",
	"path.dsl.tx_errors=0",
	"path.dsl.tx_errno=0",
	"path.dsl.ctrl_tx=0",
	"path.dsl.rx_pkts=0",
	"path.dsl.rx_bytes=0",
	"path.dsl.data_rx=0",
	"path.dsl.data_lost=0",
	"path.dsl.rtt_us=26552",
	"path.dsl.up_events=0",
	"path.dsl.down_events=0",
	"path.lte.up=0",
	"path.lte.peer=-:0",
	"path.lte.weight=0",
	"path.lte.sent=0",
	"path.lte.tx_pkts=0",
	"path.lte.tx_bytes=0",
	"path.lte.tx_errors=0",
	"path.lte.tx_errno=0",
	"path.lte.ctrl_tx=0",
	"path.lte.rx_pkts=0",
	"path.lte.rx_bytes=0",
	"path.lte.data_rx=1000",
	"path.lte.data_lost=12",
	"path.lte.rtt_us=0",
	"path.lte.up_events=0",
	"path.lte.down_events=0",
};

static const char *const new_lines[] = {
	"probe_interval_ms=100",  "dead_after_ms=500",
	"t_lto_eff_us=12000",	  "t_lto_ms=100",
	"log_level=error",	  "egr.capacity=4096",
	"egr.overflow=0",	  "path.dsl.class=fixed",
	"path.lte.class=mobile",  "path.dsl.srtt_us=26000",
	"path.dsl.rttvar_us=800", "path.dsl.rtt_samples=9",
	"path.lte.srtt_us=0",	  "path.dsl.out_lost=4",
	"path.lte.out_lost=0",	  "path.dsl.ctrl_errors=0",
	"path.dsl.data_jumps=0",  "path.dsl.data_behind=0",
};

static void test_status_keeps_every_key(void **state)
{
	const char *text;
	size_t i;

	(void)state;
	fake_gw();
	text = status_text();
	for (i = 0; i < sizeof(old_lines) / sizeof(old_lines[0]); i++) {
		if (!has_line(text, old_lines[i])) {
			fail_msg("missing line '%s' in:\n%s", old_lines[i],
				 text);
		}
	}
	for (i = 0; i < sizeof(new_lines) / sizeof(new_lines[0]); i++) {
		if (!has_line(text, new_lines[i])) {
			fail_msg("missing line '%s' in:\n%s", new_lines[i],
				 text);
		}
	}
	assert_non_null(strstr(text, "\nuptime_ms="));
}

/* Every key once, every name a Prometheus name, every value with help. */
static void check_unique(void *arg, const struct gw_stat *st)
{
	static char seen[768][96];
	static size_t n;
	char key[96];
	const char *c;
	size_t i;

	if (!arg) {
		n = 0;
		return;
	}
	gw_stat_key(st, key, sizeof(key));
	for (i = 0; i < n; i++) {
		if (!strcmp(seen[i], key)) {
			fail_msg("key %s twice", key);
		}
	}
	assert_true(n < 768);
	strcpy(seen[n++], key);
	for (c = st->name; *c; c++) {
		assert_true((*c >= 'a' && *c <= 'z') ||
			    (*c >= '0' && *c <= '9') || *c == '_');
	}
	assert_non_null(st->help);
	assert_true(strlen(st->help) > 5);
	assert_true(st->type != GW_STAT_TEXT || st->text);
	/* the queues' own values have no session; every other one is of
	 * one of the two, and a named CPE's keys carry its name */
	assert_true(!st->global || st->scope == GW_SCOPE_INGRESS ||
		    st->scope == GW_SCOPE_EGRESS);
	assert_true(st->scope == GW_SCOPE_DAEMON || st->global ||
		    st->session == 4242 || st->session == 77);
	assert_true(st->scope == GW_SCOPE_DAEMON || st->global ||
		    (st->session == 77) == !strncmp(key, "cpe.bob.", 8));
	assert_true((st->scope == GW_SCOPE_PATH) == (st->path != NULL));
	(*(int *)arg)++;
}

/* The fake daemon with a concentrator's second CPE, named bob (session
 * 77), after its first: until g.sess and g.nsess are put back. */
static void add_bob(void)
{
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	static struct gw_sess bob, *two[2];

	memset(&bob, 0, sizeof(bob));
	bob.gw = &g;
	bob.id = 77;
	strcpy(bob.name, "bob");
	assert_int_equal(ing_sched_init(&bob.sched, &g.conf.sched, 2, cls), 0);
	two[0] = &fs;
	two[1] = &bob;
	g.sess = two;
	g.nsess = 2;
}

static void test_walk_keys_unique(void **state)
{
	int n = 0, one;

	(void)state;
	fake_gw();
	check_unique(NULL, NULL);
	gw_stats_walk(&g, check_unique, &n);
	assert_true(n > 100);
	one = n;

	/* a concentrator's second CPE, named: its keys are its own */
	add_bob();
	n = 0;
	check_unique(NULL, NULL);
	gw_stats_walk(&g, check_unique, &n);
	assert_true(n > one + 80);
	g.sess = sess_list;
	g.nsess = 1;
}

/* values of a walk: [0] the queues' own, [1] session 4242's, [2] 77's */
static void count_by_session(void *arg, const struct gw_stat *st)
{
	int *n = arg;

	if (st->scope == GW_SCOPE_DAEMON) {
		return;
	}
	n[st->global ? 0 : st->session == 77 ? 2 : 1]++;
}

/* gw_stats_walk_only: one CPE's session by name, or none (the totals) */
static void test_walk_only(void **state)
{
	int all[3] = {0}, one[3] = {0}, none[3] = {0}, nobody[3] = {0};

	(void)state;
	fake_gw();
	add_bob();
	gw_stats_walk_only(&g, NULL, count_by_session, all);
	gw_stats_walk_only(&g, "bob", count_by_session, one);
	gw_stats_walk_only(&g, "", count_by_session, none);
	gw_stats_walk_only(&g, "nobody", count_by_session, nobody);
	assert_true(all[0] > 10 && all[1] > 80 && all[2] == all[1]);
	/* bob's alone, and the queues' values all the same */
	assert_int_equal(one[0], all[0]);
	assert_int_equal(one[1], 0);
	assert_int_equal(one[2], all[2]);
	assert_int_equal(none[0], all[0]);
	assert_int_equal(none[1] + none[2], 0);
	assert_int_equal(nobody[0], all[0]);
	assert_int_equal(nobody[1] + nobody[2], 0);
	g.sess = sess_list;
	g.nsess = 1;
}

static void test_stat_key(void **state)
{
	struct gw_stat st = {.scope = GW_SCOPE_EGRESS,
			     .name = "wire",
			     .label = "reason",
			     .label_value = "short"};
	volatile size_t five = 5;
	char buf[64];

	(void)state;
	assert_string_equal(gw_stat_key(&st, buf, sizeof(buf)),
			    "egr.wire.short");
	st = (struct gw_stat){
		.scope = GW_SCOPE_PATH, .name = "tx_bytes", .path = "dsl"};
	assert_string_equal(gw_stat_key(&st, buf, sizeof(buf)),
			    "path.dsl.tx_bytes");
	st = (struct gw_stat){.scope = GW_SCOPE_SESSION, .name = "w_mobile"};
	assert_string_equal(gw_stat_key(&st, buf, sizeof(buf)), "w_mobile");
	st = (struct gw_stat){.scope = GW_SCOPE_INGRESS, .name = "bonded"};
	assert_string_equal(gw_stat_key(&st, buf, sizeof(buf)), "ing.bonded");
	/* cut short, still terminated (volatile: GCC would warn of the
	 * truncation this checks) */
	assert_string_equal(gw_stat_key(&st, buf, five), "ing.");
}

/* ---- the status data ------------------------------------------------------ */

/* The walk of g as the daemon sends it (without its "ok" line), by w. */
static char *facts_reply(struct facts_writer *w, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	assert_non_null(f);
	facts_begin(w, f, "9.8.7");
	gw_stats_walk(&g, facts_put, w);
	assert_int_equal(facts_end(w), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* ... by a writer of its own */
static char *facts_text(size_t *len)
{
	struct facts_writer w = {0};
	char *text = facts_reply(&w, len);

	facts_writer_free(&w);
	return text;
}

/* The daemon keeps one writer for every reply (gateway/ctl.c): what one
 * reply described, the next describes again, with the table's memory
 * kept, not grown. */
static void test_facts_writer_again(void **state)
{
	struct facts_writer w = {0};
	char *a, *b;
	size_t alen, blen, cap;

	(void)state;
	fake_gw();
	a = facts_reply(&w, &alen);
	cap = w.cap;
	assert_true(cap > 0);
	b = facts_reply(&w, &blen);
	assert_int_equal(blen, alen);
	assert_memory_equal(a, b, alen);
	assert_int_equal(w.cap, cap);
	facts_writer_free(&w);
	assert_null(w.d);
	assert_int_equal(w.cap, 0);
	free(a);
	free(b);
}

/* ... parsed back, as a client has it */
static void snapshot(struct facts *s)
{
	char err[160] = "";
	size_t len;
	char *text = facts_text(&len);
	int ret = facts_parse(s, text, len, err, sizeof(err));

	if (ret) {
		fail_msg("facts_parse: %d %s", ret, err);
	}
}

/* The walk copied, to compare with what comes back. */
struct copy {
	struct gw_stat st[1024];
	char text[1024][64];
	size_t n;
};

static void copy_stat(void *arg, const struct gw_stat *st)
{
	struct copy *c = arg;

	assert_true(c->n < 1024);
	c->st[c->n] = *st;
	if (st->type == GW_STAT_TEXT) {
		snprintf(c->text[c->n], 64, "%s", st->text);
	}
	c->n++;
}

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Every value comes back as the walk gave it: scope, type, name, help,
 * session or none, CPE, path, label, the value itself (floats exact). */
static void test_facts_round_trip(void **state)
{
	static struct copy c;
	struct facts s;
	size_t i;

	(void)state;
	fake_gw();
	strcpy(fs.name, "bob");
	fs.sched.w_mobile = 1.0 / 3;
	c.n = 0;
	gw_stats_walk(&g, copy_stat, &c);
	snapshot(&s);
	assert_string_equal(s.version, "9.8.7");
	assert_int_equal(s.n, c.n);
	for (i = 0; i < c.n; i++) {
		const struct gw_stat *a = &c.st[i], *b = &s.v[i];
		bool has_session = a->scope != GW_SCOPE_DAEMON && !a->global;

		assert_int_equal(a->scope, b->scope);
		assert_int_equal(a->type, b->type);
		assert_int_equal(a->is_float, b->is_float);
		assert_string_equal(a->name, b->name);
		assert_string_equal(a->help, b->help);
		assert_int_equal(a->global, b->global);
		assert_int_equal(has_session ? a->session : 0, b->session);
		assert_true(same_str(has_session ? a->cpe : "", b->cpe));
		assert_true(same_str(a->scope == GW_SCOPE_PATH ? a->path : "",
				     b->path));
		assert_true(same_str(a->label, b->label));
		assert_true(same_str(a->label_value, b->label_value));
		if (a->type == GW_STAT_TEXT) {
			assert_string_equal(c.text[i], b->text);
		} else if (a->is_float) {
			assert_true(a->d == b->d);
		} else if (!strcmp(a->name, "uptime_ms")) {
			/* the daemon's clock: snapshot() walks again, later
			 * (an ASan run under load crossed a millisecond) */
			assert_true(b->u >= a->u && b->u - a->u < 1000);
		} else {
			assert_true(a->u == b->u);
		}
	}
	facts_free(&s);
	fs.name[0] = '\0';
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;
	const char *p;

	for (p = text; (p = strstr(p, what)); p++) {
		n++;
	}
	return n;
}

/* A name is described once, however many sessions and paths have it;
 * fields that hold a tab, a line end or a backslash stay one field. */
static void test_facts_format(void **state)
{
	struct gw_stat st = {.scope = GW_SCOPE_PATH,
			     .type = GW_STAT_TEXT,
			     .name = "peer",
			     .help = "tab\there",
			     .session = 7,
			     .cpe = "c\\d",
			     .path = "a\tb\nc",
			     .text = "x\x01y\x7f"};
	struct facts_writer w = {0};
	struct facts s;
	char *text = NULL, err[160];
	size_t len;
	FILE *f;

	(void)state;
	fake_gw();
	text = facts_text(&len);
	assert_true(!strncmp(text, "l3bond-status 1\t9.8.7\n", 22));
	assert_int_equal(count(text, "\nd\tpath\ttx_bytes\t"), 1);
	assert_int_equal(count(text, "\nv\tpath\ttx_bytes\t"), 2);
	assert_int_equal(count(text, "\nv\tpath\ttx_bytes\t4242\t\tdsl\t\t\t"
				     "1924528\n"),
			 1);
	/* the queues' own values: no session */
	assert_int_equal(count(text, "\nv\tegress\twire\t\t\t\treason\tshort\t"
				     "3\n"),
			 1);
	free(text);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	facts_begin(&w, f, "1");
	facts_put(&w, &st);
	assert_int_equal(facts_end(&w), 0);
	facts_writer_free(&w);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, "\tc\\\\d\ta\\x09b\\x0ac\t"));
	assert_int_equal(count(text, "\n"), 3);
	assert_int_equal(facts_parse(&s, text, len, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.v[0].path, "a\tb\nc");
	assert_string_equal(s.v[0].cpe, "c\\d");
	assert_string_equal(s.v[0].text, "x\x01y\x7f");
	assert_string_equal(s.v[0].help, "tab\there");
	assert_int_equal(s.v[0].session, 7);
	facts_free(&s);
}

/* What a client refuses, and says why. */
static void test_facts_bad(void **state)
{
	static const struct {
		const char *text;
		const char *err;
	} cases[] = {
		{"", "line 1: empty"},
		{"l3bond-status 2\tx\n", "line 1: not 'l3bond-status 1'"},
		{"role=cpe\n", "line 1: not 'l3bond-status 1'"},
		{"l3bond-status 1\tx\nv\tdaemon\trole\t\t\t\t\t\tcpe\n",
		 "line 2: 'role' not described"},
		{"l3bond-status 1\tx\nd\tdaemon\trole\ttext\n",
		 "line 2: a description needs 5 fields"},
		{"l3bond-status 1\tx\nd\tdaemon\trole\tstring\th\n",
		 "line 2: unknown type 'string'"},
		{"l3bond-status 1\tx\nd\tingress\tbonded\tcounter\th\n"
		 "v\tingress\tbonded\t1\t\t\t\t\t12x\n",
		 "line 3: bad integer '12x'"},
		{"l3bond-status 1\tx\nd\tsession\tk\tfloat\th\n"
		 "v\tsession\tk\t1\t\t\t\t\t\n",
		 "line 3: bad number ''"},
		{"l3bond-status 1\tx\nd\tsession\tk\tfloat\th\n"
		 "v\tsession\tk\t\t\t\t\t\t1\n",
		 "line 3: no session"},
		{"l3bond-status 1\tx\nd\tpath\tup\tgauge\th\n"
		 "v\tpath\tup\t1\t\t\t\t\t1\n",
		 "line 3: a path value without path"},
		{"l3bond-status 1\tx\nd\tpath\tup\tgauge\th\n"
		 "v\tpath\tup\t1\t\tp\\q\t\t\t1\n",
		 "line 3: bad escape in field 5"},
		{"l3bond-status 1\tx\nd\tpath\tup\tgauge\th\n"
		 "v\tpath\tup\t1\t\tp\t\t1\n",
		 "line 3: a value needs 9 fields"},
		{"l3bond-status 1\tx\nd\tnowhere\tup\tgauge\th\n",
		 "line 2: a description needs 5 fields"},
		{"l3bond-status 1\tx", "line 1: no line end"},
	};
	char err[160];
	struct facts s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = strdup(cases[i].text);

		assert_non_null(text);
		err[0] = '\0';
		assert_int_equal(facts_parse(&s, text, strlen(text), err,
					     sizeof(err)),
				 -EPROTO);
		if (!strstr(err, cases[i].err)) {
			fail_msg("case %zu: '%s', want '%s'", i, err,
				 cases[i].err);
		}
		facts_free(&s);
	}
	/* lines of an unknown kind are skipped: room for later additions */
	{
		char *text = strdup("l3bond-status 1\tx\nz\tnew\n");

		assert_int_equal(facts_parse(&s, text, strlen(text), err,
					     sizeof(err)),
				 0);
		assert_int_equal(s.n, 0);
		facts_free(&s);
	}
}

/* ---- presentations -------------------------------------------------------- */

/* What a show_* function writes for s, NUL-terminated (free it). */
static char *shown(int (*fn)(FILE *, const struct facts *),
		   const struct facts *s)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, s), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_table(void **state)
{
	struct facts s;
	char *r;

	(void)state;
	fake_gw();
	snapshot(&s);
	r = shown(show_table, &s);
	assert_true(!strncmp(r, "role      cpe\nversion   9.8.7\nuptime ", 37));
	assert_non_null(
		strstr(r, "\ndsl   fixed   up     10.12.0.1:7040  26.0/0.8 "));
	/* lte: no round trip yet; in: 12 lost, 1000 received */
	assert_non_null(
		strstr(r, "\nlte   mobile  down   -:0             -          "
			  "     12/1000 "));
	assert_non_null(strstr(r, "\nwire      short 3\n"));
	assert_non_null(strstr(r, "\nauth      bad_tag 5\n"));
	assert_non_null(strstr(r, "\nsession   4242  up  handshakes 2  "
				  "authenticated\n"));
	assert_non_null(strstr(r, "egress 7 (user 0)"));
	assert_non_null(
		strstr(r, "\nholes     timeout 0  early 0  overflow 0"));
	assert_non_null(strstr(r, "\ntunables  k 0.5  t_dwd_ms 250  "));
	/* the table's names are the walk's: a renamed key shows */
	assert_non_null(strstr(r, "  queue_target_ms 5  "));
	assert_non_null(strstr(r, "  qwi 0  "));
	free(r);
	facts_free(&s);
}

static void test_json(void **state)
{
	struct json_object *doc, *o;
	struct facts s;
	char *r;

	(void)state;
	fake_gw();
	snapshot(&s);
	r = shown(show_json, &s);
	assert_true(!strncmp(r,
			     "{\"version\":\"9.8.7\",\"role\":\"cpe\","
			     "\"uptime_ms\":",
			     44));
	assert_non_null(strstr(r,
			       "\"sessions\":[{\"session\":4242,"
			       "\"session_state\":\"up\",\"handshakes\":2,"));
	assert_non_null(strstr(r, "\"auth\":{\"no_session\":0,"
				  "\"bad_tag\":5,"));
	assert_non_null(strstr(r, "\"wire\":{\"short\":3,"));
	assert_non_null(strstr(r, "\"paths\":[{\"name\":\"dsl\",\"class\":"
				  "\"fixed\",\"up\":1,"));
	assert_non_null(strstr(r, "\"k\":0.5,"));
	assert_non_null(strstr(r, "}]}]}\n"));
	/* and it is JSON */
	doc = json_tokener_parse(r);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "egress", &o));
	assert_true(json_object_object_get_ex(o, "wire", &o));
	assert_true(json_object_object_get_ex(o, "short", &o));
	assert_int_equal(json_object_get_int(o), 3);
	json_object_put(doc);
	free(r);
	facts_free(&s);
}

/* gw_stats put into a snapshot through the status data */
static void snap_of(struct facts *s, const struct gw_stat *st, size_t n)
{
	struct facts_writer w = {0};
	char *text = NULL, err[160] = "";
	size_t len, i;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	facts_begin(&w, f, "1");
	for (i = 0; i < n; i++) {
		facts_put(&w, &st[i]);
	}
	assert_int_equal(facts_end(&w), 0);
	facts_writer_free(&w);
	assert_int_equal(fclose(f), 0);
	if (facts_parse(s, text, len, err, sizeof(err))) {
		fail_msg("%s", err);
	}
}

#define C(sc, ses, p, n, l, lv, v)                                             \
	{.scope = (sc),                                                        \
	 .type = GW_STAT_COUNTER,                                              \
	 .name = (n),                                                          \
	 .help = "h",                                                          \
	 .session = (ses),                                                     \
	 .global = !(ses) && ((sc) == GW_SCOPE_INGRESS ||                      \
			      (sc) == GW_SCOPE_EGRESS),                         \
	 .path = (p),                                                          \
	 .label = (l),                                                         \
	 .label_value = (lv),                                                  \
	 .u = (v)}

/* Two sessions, labelled groups in the egress and in a path, a path name
 * that needs escaping, a session without ingress or egress, a float that
 * is not a number. */
static void test_json_nesting(void **state)
{
	const struct gw_stat st[] = {
		{.scope = GW_SCOPE_DAEMON,
		 .type = GW_STAT_TEXT,
		 .name = "role",
		 .help = "h",
		 .text = "cpe"},
		C(GW_SCOPE_SESSION, 1, NULL, "session", NULL, NULL, 1),
		{.scope = GW_SCOPE_SESSION,
		 .type = GW_STAT_GAUGE,
		 .name = "k",
		 .help = "h",
		 .session = 1,
		 .is_float = true,
		 .d = 0.5},
		{.scope = GW_SCOPE_SESSION,
		 .type = GW_STAT_GAUGE,
		 .name = "w",
		 .help = "h",
		 .session = 1,
		 .is_float = true,
		 .d = NAN},
		C(GW_SCOPE_INGRESS, 1, NULL, "pkts", NULL, NULL, 1),
		C(GW_SCOPE_EGRESS, 1, NULL, "wire", "reason", "short", 2),
		C(GW_SCOPE_EGRESS, 1, NULL, "wire", "reason", "bad", 0),
		C(GW_SCOPE_EGRESS, 1, NULL, "ctrl", "type", "hello", 5),
		C(GW_SCOPE_EGRESS, 1, NULL, "depth", NULL, NULL, 4),
		C(GW_SCOPE_PATH, 1, "a\"b", "up", NULL, NULL, 1),
		C(GW_SCOPE_PATH, 1, "a\"b", "x", "r", "1", 1),
		C(GW_SCOPE_PATH, 1, "lte", "x", "r", "1", 0),
		C(GW_SCOPE_PATH, 1, "lte", "up", NULL, NULL, 0),
		C(GW_SCOPE_SESSION, 2, NULL, "session", NULL, NULL, 2),
		C(GW_SCOPE_PATH, 2, "dsl", "up", NULL, NULL, 1),
	};
	struct facts s;
	char *r;

	(void)state;
	snap_of(&s, st, sizeof(st) / sizeof(st[0]));
	r = shown(show_json, &s);
	assert_string_equal(
		r,
		"{\"version\":\"1\",\"role\":\"cpe\",\"sessions\":[{"
		"\"session\":1,\"k\":0.5,"
		"\"w\":null,\"ingress\":{\"pkts\":1},\"egress\":{\"wire\":"
		"{\"short\":2,\"bad\":0},\"ctrl\":{\"hello\":5},\"depth\":4},"
		"\"paths\":[{\"name\":\"a\\\"b\",\"up\":1,\"x\":{\"1\":1}},"
		"{\"name\":\"lte\",\"x\":{\"1\":0},\"up\":0}]},"
		"{\"session\":2,\"paths\":[{\"name\":\"dsl\",\"up\":1}]}]}\n");
	free(r);
	facts_free(&s);
}

/* Text with quotes, backslashes and control bytes is valid JSON that
 * reads back as it was. */
static void test_json_escape(void **state)
{
	const char *odd = "a\"b\\c\n\x01\x7f\xc3\xa9/";
	const struct gw_stat st[] = {
		{.scope = GW_SCOPE_DAEMON,
		 .type = GW_STAT_TEXT,
		 .name = "role",
		 .help = "h",
		 .text = odd},
	};
	struct json_object *doc, *o;
	struct facts s;
	char *r;

	(void)state;
	snap_of(&s, st, 1);
	r = shown(show_json, &s);
	assert_null(strchr(r, '\x01'));
	assert_non_null(strstr(r, "/\"}")); /* slashes as they are */
	doc = json_tokener_parse(r);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "role", &o));
	assert_string_equal(json_object_get_string(o), odd);
	json_object_put(doc);
	free(r);
	facts_free(&s);
}

static char *exposition(const struct facts *s, uint64_t *skipped)
{
	struct expo *e = expo_new();
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(e);
	assert_non_null(f);
	expo_facts(e, s);
	assert_int_equal(expo_write(e, f), 0);
	assert_int_equal(fclose(f), 0);
	if (skipped) {
		*skipped = expo_skipped(e);
	}
	expo_free(e);
	return text;
}

/* The exposition's families: HELP then TYPE, once, each family's samples
 * together right after them.  Returns the number of families. */
static size_t check_families(const char *text)
{
	char seen[512][96], cur[96] = "", name[96];
	size_t n = 0, i;
	const char *line;

	for (line = text; *line; line = strchr(line, '\n') + 1) {
		if (!strncmp(line, "# HELP ", 7)) {
			sscanf(line + 7, "%95s", name);
			for (i = 0; i < n; i++) {
				if (!strcmp(seen[i], name)) {
					fail_msg("family %s twice", name);
				}
			}
			assert_true(n < 512);
			strcpy(seen[n++], name);
			strcpy(cur, name);
			line = strchr(line, '\n') + 1;
			assert_true(!strncmp(line, "# TYPE ", 7));
			assert_true(!strncmp(line + 7, name, strlen(name)));
			continue;
		}
		/* a sample of the current family */
		i = strcspn(line, "{ ");
		if (i != strlen(cur) || strncmp(line, cur, i)) {
			fail_msg("sample outside its family %s: %.80s", cur,
				 line);
		}
	}
	return n;
}

static void test_exposition(void **state)
{
	uint64_t skipped = 1;
	struct facts s;
	char *r;

	(void)state;
	fake_gw();
	snapshot(&s);
	r = exposition(&s, &skipped);
	assert_int_equal(skipped, 0);
	assert_true(!strncmp(r, "# HELP l3bond_build_info the l3bondd build: "
				"its version in the label\n"
				"# TYPE l3bond_build_info gauge\n"
				"l3bond_build_info{version=\"9.8.7\"} 1\n",
			     118));
	assert_true(has_line(r, "l3bond_role_info{role=\"cpe\"} 1"));
	assert_true(has_line(r, "# TYPE l3bond_role_info gauge"));
	assert_true(has_line(
		r, "l3bond_path_up{session=\"4242\",path=\"dsl\"} 1"));
	assert_true(has_line(r, "l3bond_path_tx_bytes_total{session=\"4242\","
				"path=\"dsl\"} 1924528"));
	assert_true(has_line(r, "# TYPE l3bond_path_tx_bytes_total counter"));
	assert_true(has_line(r, "# HELP l3bond_path_tx_bytes_total DATA sent, "
				"bytes of UDP payload"));
	assert_true(has_line(r, "l3bond_egress_wire_total{reason=\"short\"} 3"));
	assert_true(has_line(r, "l3bond_egress_auth_total{session=\"4242\","
				"reason=\"bad_tag\"} 5"));
	assert_true(has_line(r, "l3bond_k{session=\"4242\"} 0.5"));
	assert_true(has_line(r, "l3bond_w_fixed{session=\"4242\"} 50"));
	assert_true(has_line(r, "l3bond_path_peer_info{session=\"4242\","
				"path=\"dsl\",peer=\"10.12.0.1:7040\"} 1"));
	assert_true(has_line(r, "l3bond_egress_kernel_dropped_total 7"));
	assert_true(check_families(r) > 100);
	free(r);
	facts_free(&s);
}

/* A named CPE's label, escaping in labels and HELP, shortest floats, a
 * name clash between types skipped and counted. */
static void test_exposition_edges(void **state)
{
	const struct gw_stat st[] = {
		{.scope = GW_SCOPE_SESSION,
		 .type = GW_STAT_GAUGE,
		 .name = "x",
		 .help = "back\\slash",
		 .session = 3,
		 .cpe = "bob",
		 .is_float = true,
		 .d = 0.1},
		{.scope = GW_SCOPE_PATH,
		 .type = GW_STAT_TEXT,
		 .name = "peer",
		 .help = "h",
		 .session = 3,
		 .path = "a\"b\\c",
		 .text = "l\nf"},
		/* l3bond_y_total as a counter, then a gauge of that name */
		C(GW_SCOPE_SESSION, 3, NULL, "y", NULL, NULL, 1),
		{.scope = GW_SCOPE_SESSION,
		 .type = GW_STAT_GAUGE,
		 .name = "y_total",
		 .help = "h",
		 .session = 3,
		 .u = 2},
		/* a label that cannot be a label name */
		C(GW_SCOPE_EGRESS, 3, NULL, "z", "9bad", "v", 4),
	};
	uint64_t skipped = 0;
	struct facts s;
	char *r;

	(void)state;
	snap_of(&s, st, sizeof(st) / sizeof(st[0]));
	r = exposition(&s, &skipped);
	assert_true(has_line(r, "l3bond_x{session=\"3\",cpe=\"bob\"} 0.1"));
	assert_true(has_line(r, "# HELP l3bond_x back\\\\slash"));
	assert_true(has_line(r, "l3bond_path_peer_info{session=\"3\","
				"path=\"a\\\"b\\\\c\",peer=\"l\\nf\"} 1"));
	assert_true(has_line(r, "l3bond_y_total{session=\"3\"} 1"));
	assert_int_equal(skipped, 1);
	assert_true(has_line(r, "l3bond_egress_z_total{session=\"3\","
				"label=\"v\"} 4"));
	check_families(r);
	free(r);
	facts_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_keeps_every_key),
		cmocka_unit_test(test_walk_keys_unique),
		cmocka_unit_test(test_walk_only),
		cmocka_unit_test(test_stat_key),
		cmocka_unit_test(test_facts_round_trip),
		cmocka_unit_test(test_facts_format),
		cmocka_unit_test(test_facts_writer_again),
		cmocka_unit_test(test_facts_bad),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_nesting),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_exposition),
		cmocka_unit_test(test_exposition_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
