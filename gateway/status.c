/* Counters as "key=value" lines, for tests and operators until l3bondctl
 * exists: written to --status-file every GW_KSTATS_MS (atomically, by
 * rename) and on SIGUSR1; without a status file SIGUSR1 logs them. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gateway/gw.h"

int gw_status_write(struct gw *gw, int fd)
{
	const struct ing_sched *s = &gw->ing.sched;
	const struct egr_reseq_stats *rs = &gw->egr.egr.reseq.st;
	const struct gw_egr_stats *es = &gw->egr.st;
	const struct gw_ing_stats *is = &gw->ing.st;
	unsigned i;
	FILE *f;

	f = fdopen(dup(fd), "w");
	if (!f) {
		return -errno;
	}
	fprintf(f, "role=%s\nsession=%u\nepoch=%08x\npeer_epoch=%08x\n",
		conf_role_name(gw->conf.role), gw->conf.session_id, gw->epoch,
		gw->peer_epoch);
	fprintf(f, "uptime_ms=%llu\n",
		(unsigned long long)((gw_now_us() - gw->start_us) / 1000));
	fprintf(f,
		"k=%g\nt_dwd_ms=%u\nt_report_ms=%u\nw_fixed=%g\n"
		"w_mobile_max=%g\ndwd_hold_ms=%u\nt_lto_ms=%u\n"
		"early_release=%d\n",
		s->p.k, s->p.t_dwd_ms, s->p.t_report_ms, s->p.w_fixed,
		s->p.w_mobile_max, s->p.dwd_hold_us / 1000,
		gw->egr.egr.reseq.p.t_lto_us / 1000,
		gw->egr.egr.reseq.p.early_release);
	fprintf(f, "w_mobile=%g\ngseq=%u\n", s->w_mobile, s->gseq);
	fprintf(f,
		"ing.pkts=%llu\ning.bonded=%llu\ning.no_path=%llu\n"
		"ing.unfit=%llu\ning.verdict_errors=%llu\n",
		(unsigned long long)is->pkts, (unsigned long long)is->bonded,
		(unsigned long long)is->no_path, (unsigned long long)is->unfit,
		(unsigned long long)is->verdict_errors);
	fprintf(f,
		"ing.reports=%llu\ning.stale_reports=%llu\ning.awi=%llu\n"
		"ing.iwi=%llu\ning.dwd=%llu\ning.dwd_held=%llu\n",
		(unsigned long long)s->st.reports,
		(unsigned long long)s->st.stale_reports,
		(unsigned long long)s->st.awi, (unsigned long long)s->st.iwi,
		(unsigned long long)s->st.dwd,
		(unsigned long long)s->st.dwd_held);
	fprintf(f, "ing.kernel_dropped=%u\ning.kernel_user_dropped=%u\n",
		gw->ing.kst.queue_dropped, gw->ing.kst.user_dropped);
	fprintf(f,
		"egr.pkts=%llu\negr.released=%llu\negr.in_order=%llu\n"
		"egr.buffered=%llu\negr.late=%llu\negr.dup=%llu\n"
		"egr.hole_timeout=%llu\negr.hole_early=%llu\n"
		"egr.hole_overflow=%llu\negr.hole_path_down=%llu\n"
		"egr.hole_flush=%llu\negr.depth=%u\n",
		(unsigned long long)es->pkts, (unsigned long long)es->released,
		(unsigned long long)rs->in_order,
		(unsigned long long)rs->buffered, (unsigned long long)es->late,
		(unsigned long long)es->dup,
		(unsigned long long)rs->hole_timeout,
		(unsigned long long)rs->hole_early,
		(unsigned long long)rs->hole_overflow,
		(unsigned long long)rs->hole_path_down,
		(unsigned long long)rs->hole_flush,
		egr_reseq_depth(&gw->egr.egr.reseq));
	fprintf(f,
		"egr.outer_bad=%llu\negr.session=%llu\negr.path=%llu\n"
		"egr.oversize=%llu\negr.inner_family=%llu\n"
		"egr.no_slot=%llu\n"
		"egr.verdict_errors=%llu\negr.peer_restarts=%llu\n"
		"egr.no_kernel_time=%llu\n",
		(unsigned long long)es->outer_bad,
		(unsigned long long)es->session, (unsigned long long)es->path,
		(unsigned long long)es->oversize,
		(unsigned long long)es->inner_family,
		(unsigned long long)es->no_slot,
		(unsigned long long)es->verdict_errors,
		(unsigned long long)es->peer_restarts,
		(unsigned long long)es->no_kernel_time);
	for (i = 1; i < WIRE_DROP_MAX; i++) {
		fprintf(f, "egr.wire.%s=%llu\n",
			wire_drop_name((enum wire_drop)i),
			(unsigned long long)es->wire[i]);
	}
	for (i = WIRE_REPORT; i <= WIRE_TYPE_MAX; i++) {
		fprintf(f, "egr.ctrl.%s=%llu\n", wire_type_name((uint8_t)i),
			(unsigned long long)es->ctrl[i]);
	}
	fprintf(f, "egr.kernel_dropped=%u\negr.kernel_user_dropped=%u\n",
		gw->egr.kst.queue_dropped, gw->egr.kst.user_dropped);
	for (i = 0; i < gw->npaths; i++) {
		const struct gw_path *p = &gw->path[i];
		const struct egr_loss_path *lp = &gw->egr.egr.loss.p[i];
		const char *n = gw->conf.path[i].name;

		fprintf(f, "path.%s.up=%d\npath.%s.peer=%s:%u\n", n, p->alive,
			n, p->have_peer ? inet_ntoa(p->peer.sin_addr) : "-",
			ntohs(p->peer.sin_port));
		fprintf(f, "path.%s.weight=%g\npath.%s.sent=%llu\n", n,
			ing_sched_weight(s, i), n,
			(unsigned long long)s->path[i].sent);
		fprintf(f,
			"path.%s.tx_pkts=%llu\npath.%s.tx_bytes=%llu\n"
			"path.%s.tx_errors=%llu\npath.%s.tx_errno=%d\n"
			"path.%s.ctrl_tx=%llu\n",
			n, (unsigned long long)p->st.tx_pkts, n,
			(unsigned long long)p->st.tx_bytes, n,
			(unsigned long long)p->st.tx_errors, n, p->st.tx_errno,
			n, (unsigned long long)p->st.ctrl_tx);
		fprintf(f, "path.%s.rx_pkts=%llu\npath.%s.rx_bytes=%llu\n", n,
			(unsigned long long)p->st.rx_pkts, n,
			(unsigned long long)p->st.rx_bytes);
		fprintf(f, "path.%s.data_rx=%u\npath.%s.data_lost=%u\n", n,
			lp->rx, n, lp->lost);
		fprintf(f,
			"path.%s.rtt_us=%u\npath.%s.up_events=%llu\n"
			"path.%s.down_events=%llu\n",
			n, p->rtt_us, n, (unsigned long long)p->st.up_events, n,
			(unsigned long long)p->st.down_events);
	}
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
