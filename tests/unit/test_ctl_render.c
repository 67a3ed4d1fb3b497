/* Unit tests of what the daemon shows without a socket: the stats walk
 * (gateway/stats.c), its status-file lines (gateway/status.c), and the
 * control socket's request parsing and renderings (gateway/ctl.c: table,
 * JSON, reply cap).  The .c files are included to reach their static
 * helpers; libev's watcher calls are stubbed (no loop runs here), and so
 * are gw_apply_conf and gw_reload (main.c).  The socket itself, its
 * permissions and its limits are tested as root by
 * tests/netns/test_ctl.sh.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* libev's watcher macros, as in gateway/CMakeLists.txt */
#pragma GCC diagnostic ignored "-Wstrict-aliasing"

#include "gateway/ctl.c"
#include "gateway/log.c"
#include "gateway/outer.c"
#include "gateway/stats.c"
#include "gateway/status.c"

/* ---- stubs -------------------------------------------------------------- */

void ev_io_start(struct ev_loop *loop, ev_io *w)
{
	(void)loop;
	(void)w;
}

void ev_io_stop(struct ev_loop *loop, ev_io *w)
{
	(void)loop;
	(void)w;
}

void ev_timer_start(struct ev_loop *loop, ev_timer *w)
{
	(void)loop;
	(void)w;
}

void ev_timer_stop(struct ev_loop *loop, ev_timer *w)
{
	(void)loop;
	(void)w;
}

void ev_timer_again(struct ev_loop *loop, ev_timer *w)
{
	(void)loop;
	(void)w;
}

static struct conf applied;
static int applied_n;

int gw_apply_conf(struct gw *gw, const struct conf *c, char *err, size_t len)
{
	(void)gw;
	(void)err;
	(void)len;
	applied = *c;
	applied_n++;
	return 0;
}

int gw_reload(struct gw *gw, char *err, size_t len)
{
	(void)gw;
	snprintf(err, len,
		 "/etc/l3bond/x.conf:3: k: bad value '11': out of "
		 "range");
	return -EINVAL;
}

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
	fs.link[0].srtt_us = 26000;
	fs.link[0].rttvar_us = 800;
	fs.link[0].rtt_samples = 9;
	fs.link[1].srtt_us = 5; /* no sample: must read 0 */
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
	"t_lto_ms=50",
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
	"t_lto_eff_us=12000",	  "t_lto_ms=50",
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

static void test_walk_keys_unique(void **state)
{
	enum path_class cls[2] = {PATH_FIXED, PATH_MOBILE};
	static struct gw_sess bob, *two[2];
	int n = 0, one;

	(void)state;
	fake_gw();
	check_unique(NULL, NULL);
	gw_stats_walk(&g, check_unique, &n);
	assert_true(n > 100);
	one = n;

	/* a concentrator's second CPE, named: its keys are its own */
	memset(&bob, 0, sizeof(bob));
	bob.gw = &g;
	bob.id = 77;
	strcpy(bob.name, "bob");
	assert_int_equal(ing_sched_init(&bob.sched, &g.conf.sched, 2, cls), 0);
	two[0] = &fs;
	two[1] = &bob;
	g.sess = two;
	g.nsess = 2;
	n = 0;
	check_unique(NULL, NULL);
	gw_stats_walk(&g, check_unique, &n);
	assert_true(n > one + 80);
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

/* ---- JSON --------------------------------------------------------------- */

static void test_json_escape(void **state)
{
	struct ctl_buf b = {0};

	(void)state;
	json_str(&b, "a\"b\\c\n\x01\x7f\xc3\xa9");
	buf_add(&b, "", 1);
	assert_string_equal(b.p,
			    "\"a\\\"b\\\\c\\u000a\\u0001\\u007f\xc3\xa9\"");
	buf_free(&b);
}

static void add(struct snap *s, enum gw_stat_scope scope, uint32_t ses,
		const char *path, const char *name, const char *label,
		const char *lv, uint64_t u)
{
	struct gw_stat st = {.scope = scope,
			     .type = GW_STAT_COUNTER,
			     .name = name,
			     .help = "h",
			     .session = ses,
			     .path = path,
			     .label = label,
			     .label_value = lv,
			     .u = u};

	snap_add(s, &st);
}

/* Two sessions, labelled groups in the egress and in a path, a path name
 * that needs escaping, a session without ingress or egress. */
static void test_json_nesting(void **state)
{
	struct gw_stat role = {.scope = GW_SCOPE_DAEMON,
			       .type = GW_STAT_TEXT,
			       .name = "role",
			       .help = "h",
			       .text = "cpe"};
	struct gw_stat k = {.scope = GW_SCOPE_SESSION,
			    .type = GW_STAT_GAUGE,
			    .name = "k",
			    .help = "h",
			    .session = 1,
			    .is_float = true,
			    .d = 0.5};
	struct gw_stat nan_ = k;
	struct snap s = {0};
	struct ctl_buf b = {0};

	(void)state;
	nan_.name = "w";
	nan_.d = NAN;
	snap_add(&s, &role);
	add(&s, GW_SCOPE_SESSION, 1, NULL, "session", NULL, NULL, 1);
	snap_add(&s, &k);
	snap_add(&s, &nan_);
	add(&s, GW_SCOPE_INGRESS, 1, NULL, "pkts", NULL, NULL, 1);
	add(&s, GW_SCOPE_EGRESS, 1, NULL, "wire", "reason", "short", 2);
	add(&s, GW_SCOPE_EGRESS, 1, NULL, "wire", "reason", "bad", 0);
	add(&s, GW_SCOPE_EGRESS, 1, NULL, "ctrl", "type", "hello", 5);
	add(&s, GW_SCOPE_EGRESS, 1, NULL, "depth", NULL, NULL, 4);
	add(&s, GW_SCOPE_PATH, 1, "a\"b", "up", NULL, NULL, 1);
	add(&s, GW_SCOPE_PATH, 1, "a\"b", "x", "r", "1", 1);
	add(&s, GW_SCOPE_PATH, 1, "lte", "x", "r", "1", 0);
	add(&s, GW_SCOPE_PATH, 1, "lte", "up", NULL, NULL, 0);
	add(&s, GW_SCOPE_SESSION, 2, NULL, "session", NULL, NULL, 2);
	add(&s, GW_SCOPE_PATH, 2, "dsl", "up", NULL, NULL, 1);
	assert_false(s.nomem);
	render_json(&b, &s);
	buf_add(&b, "", 1);
	assert_string_equal(
		b.p,
		"{\"role\":\"cpe\",\"sessions\":[{\"session\":1,\"k\":0.5,"
		"\"w\":null,\"ingress\":{\"pkts\":1},\"egress\":{\"wire\":"
		"{\"short\":2,\"bad\":0},\"ctrl\":{\"hello\":5},\"depth\":4},"
		"\"paths\":[{\"name\":\"a\\\"b\",\"up\":1,\"x\":{\"1\":1}},"
		"{\"name\":\"lte\",\"x\":{\"1\":0},\"up\":0}]},"
		"{\"session\":2,\"paths\":[{\"name\":\"dsl\",\"up\":1}]}]}\n");
	buf_free(&b);
	free(s.e);
}

/* ---- requests ----------------------------------------------------------- */

static char reply[CTL_REPLY_MAX + 1];

static const char *req(const char *line)
{
	struct ctl_buf b = {0};
	char l[CTL_LINE_MAX + 1];

	snprintf(l, sizeof(l), "%s", line);
	handle(&g, l, &b);
	assert_false(b.over);
	assert_true(b.len <= CTL_REPLY_MAX);
	memcpy(reply, b.p, b.len);
	reply[b.len] = '\0';
	buf_free(&b);
	return reply;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void test_requests(void **state)
{
	const char *r;

	(void)state;
	fake_gw();
	r = req("status");
	assert_true(starts(r, "ok\nrole      cpe\n"));
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

	r = req("status json");
	assert_true(starts(r, "ok\n{\"role\":\"cpe\",\"uptime_ms\":"));
	assert_non_null(strstr(r,
			       "\"sessions\":[{\"session\":4242,"
			       "\"session_state\":\"up\",\"handshakes\":2,"));
	assert_non_null(strstr(r, "\"auth\":{\"no_session\":0,"
				  "\"bad_tag\":5,"));
	assert_non_null(strstr(r, "\"wire\":{\"short\":3,"));
	assert_non_null(strstr(r, "\"paths\":[{\"name\":\"dsl\",\"class\":"
				  "\"fixed\",\"up\":1,"));
	assert_non_null(strstr(r, "}]}]}\n"));

	applied_n = 0;
	r = req("set k 0.7");
	assert_true(starts(r, "ok\nk set to 0.7 (runtime only"));
	assert_int_equal(applied_n, 1);
	assert_true(applied.sched.k == 0.7);
	r = req("set  k   -1");
	assert_true(starts(r, "error: k: bad value '-1'"));
	assert_int_equal(applied_n, 1);
	r = req("set t_dwd_ms 275");
	assert_true(starts(r, "error: t_dwd_ms: bad value '275'"));
	r = req("set port 1");
	assert_true(starts(r, "error: port: not a runtime setting"));
	r = req("set k");
	assert_string_equal(r, "error: set: wrong arguments (try help)\n");
	r = req("set k 1 2");
	assert_string_equal(r, "error: set: wrong arguments (try help)\n");
	assert_int_equal(applied_n, 1);

	r = req("reload");
	assert_string_equal(r, "error: /etc/l3bond/x.conf:3: k: bad value "
			       "'11': out of range\n");
	r = req("");
	assert_string_equal(r, "error: empty request (try help)\n");
	r = req("status yaml");
	assert_string_equal(r, "error: status: wrong arguments (try help)\n");
	r = req("fr\x01ob\x1b[2J");
	assert_string_equal(r,
			    "error: unknown request 'fr?ob?[2J' (try help)\n");
	r = req("help");
	assert_true(starts(r, "ok\nrequests"));
	assert_non_null(
		strstr(r, "a reload or a restart reads the file again"));
}

static void test_reply_cap(void **state)
{
	static char big[600 << 10];
	struct ctl_buf b = {0};

	(void)state;
	memset(big, 'x', sizeof(big));
	buf_add(&b, big, sizeof(big));
	assert_false(b.over);
	buf_add(&b, big, sizeof(big));
	assert_true(b.over);
	assert_int_equal(b.len, sizeof(big));
	bprintf(&b, "more");
	assert_int_equal(b.len, sizeof(big));
	buf_free(&b);
	/* a formatted piece longer than bprintf's stack buffer */
	big[sizeof(big) - 1] = '\0';
	bprintf(&b, "%s", big + sizeof(big) - 2001);
	assert_int_equal(b.len, 2000);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_keeps_every_key),
		cmocka_unit_test(test_walk_keys_unique),
		cmocka_unit_test(test_stat_key),
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_json_nesting),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_reply_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
