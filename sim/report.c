/* SPDX-License-Identifier: BSD-2-Clause */
/* Output: the per-interval CSV header and the run summary.
 *
 * The summary is meant to be read by people and by scripts: one "key value"
 * line each, keys stable, explanations after the numbers in parentheses.
 * All rates count the bytes a packet is accounted for on the links.
 */
#include <stdio.h>

#include "common/conf.h"
#include "sim/sim.h"

void sim_csv_header(FILE *f, const struct sim_cfg *c)
{
	unsigned i;

	fprintf(f, "t_s,offered_mbit");
	for (i = 0; i < c->npaths; i++) {
		fprintf(f, ",%s_mbit", c->path[i].name);
	}
	fprintf(f, ",inorder_mbit,lost_pkts,w_mobile,reorder_delay_ms_p50,"
		   "reorder_delay_ms_p99,reorder_delay_ms_mean\n");
}

double sim_loss_pct(const struct sim_result *r)
{
	if (r->sent == 0) {
		return 0;
	}
	return 100.0 * (double)(r->sent - r->released) / (double)r->sent;
}

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

/* --cut and --failover: what the cut cost, and how the failover
 * worked. */
static void print_cut(FILE *f, const struct sim_cfg *c,
		      const struct sim_result *r)
{
	const struct egr_reseq_stats *rs = &r->reseq;
	const struct sim_cut_result *k = &r->cut;

	if (c->cut.on) {
		fprintf(f,
			"cut                    %s at %.3f s for %.0f ms: "
			"outage_ms %.0f lost_pkts %llu of %llu (sent from 1 s "
			"before to 2 s after)\n",
			c->path[c->cut.path].name, c->cut.t_us / 1e6,
			c->cut.dur_us / 1000.0, k->outage_ms, ull(k->lost),
			ull(k->emitted));
		fprintf(f, "cut_detected_ms        ");
		if (k->detected) {
			fprintf(f, "%.1f\n", k->detect_ms);
		} else {
			fprintf(f, "never\n");
		}
		fprintf(f, "cut_back_ms            ");
		if (k->back) {
			fprintf(f, "%.1f (heal to the path's first delivery)\n",
				k->back_ms);
		} else {
			fprintf(f, "never\n");
		}
	}
	if (!c->failover) {
		return;
	}
	fprintf(f,
		"failover               resent %llu filled %llu dup %llu "
		"late %llu; weight frozen %llu reports, loss forgiven %llu\n",
		ull(r->sched.resent), ull(rs->resent_filled),
		ull(rs->resent_dup), ull(rs->resent_late),
		ull(r->sched.frozen), ull(r->sched.forgiven));
	for (unsigned i = 0; i < c->npaths; i++) {
		const struct ing_detect_stats *d = &r->detect[i];
		const struct ing_inflight_stats *q = &r->inflight[i];

		fprintf(f,
			"detector               %s suspect %llu (data %llu "
			"probe %llu) recovered %llu down %llu flaps %llu "
			"holddown %llu; inflight taken %llu untaken %llu "
			"overflow %llu\n",
			c->path[i].name, ull(d->suspect), ull(d->by_data),
			ull(d->by_probe), ull(d->recovered), ull(d->down),
			ull(d->flaps), ull(d->holddown), ull(q->taken),
			ull(q->untaken), ull(q->overflow));
	}
}

void sim_print_summary(FILE *f, const struct sim_cfg *c,
		       const struct sim_result *r)
{
	const struct egr_reseq_stats *rs = &r->reseq;
	uint64_t random = 0, down = 0;
	unsigned i;

	fprintf(f,
		"profile                %s (%.2f s), %u-byte packets, "
		"seed %llu\n",
		c->profile.name, c->profile.end_us / 1e6, c->pkt_size,
		ull(c->seed));
	fprintf(f,
		"accounting             %u bytes per packet on the links "
		"(%u inner + %u tunnel overhead%s); every Mbit/s counts "
		"these bytes\n",
		sim_pkt_bytes(c), c->pkt_size, c->overhead ? WIRE_OVERHEAD : 0,
		c->overhead ? "" : ", --overhead 0");
	fprintf(f,
		"params                 k %g t_dwd_ms %u t_report_ms %u "
		"w_fixed %g w_mobile_max %g t_lto_ms %g early_release %d "
		"capacity %u queue_target_ms %g\n",
		c->sched.k, c->sched.t_dwd_ms, c->sched.t_report_ms,
		c->sched.w_fixed, c->sched.w_mobile_max,
		c->reseq.t_lto_us / 1000.0, c->reseq.early_release,
		c->reseq.capacity, c->sched.queue_target_us / 1000.0);
	for (i = 0; i < c->npaths; i++) {
		const struct sim_link_cfg *p = &c->path[i];

		fprintf(f,
			"path                   %s %s %.3f Mbit/s delay %.1f "
			"ms jitter %.1f ms (%s) buffer %.1f ms loss %g\n",
			p->name, conf_class_name(p->cls),
			p->rate_bps / 1e6, p->delay_us / 1000.0,
			p->jitter_us / 1000.0,
			p->jitter_period_us ? "wandering" : "per packet",
			p->buffer_us / 1000.0, p->loss);
	}
	fprintf(f,
		"reports                every %u ms, sent %llu lost %llu "
		"applied %llu stale %llu\n",
		c->sched.t_report_ms, ull(r->reports_sent),
		ull(r->reports_lost), ull(r->sched.reports),
		ull(r->sched.stale_reports));
	fprintf(f, "sent_pkts              %llu\n", ull(r->sent));
	fprintf(f, "released_in_order_pkts %llu\n", ull(r->released));
	fprintf(f,
		"released_late_pkts     %llu (out of order, within t_lto of "
		"their hole's timeout; counted lost below)\n",
		ull(r->released_late));
	fprintf(f,
		"loss_pct               %.3f ((sent - released in order) "
		"/ sent)\n",
		sim_loss_pct(r));
	fprintf(f, "loss_split            ");
	for (i = 0; i < c->npaths; i++) {
		fprintf(f, " %s.queue %llu", c->path[i].name,
			ull(r->link[i].queue_drops));
		random += r->link[i].random_loss;
		down += r->link[i].down_drops;
	}
	fprintf(f,
		" random %llu down %llu no_path %llu aqm %llu egress_late %llu "
		"egress_dup %llu\n",
		ull(random), ull(down), ull(r->no_path), ull(r->aqm_drops),
		ull(r->late), ull(r->dup));
	fprintf(f,
		"holes_given_up         timeout %llu early %llu overflow "
		"%llu path_down %llu flush %llu\n",
		ull(rs->hole_timeout), ull(rs->hole_early),
		ull(rs->hole_overflow), ull(rs->hole_path_down),
		ull(rs->hole_flush));
	if (r->util_intervals > 0) {
		fprintf(f, "fixed_util_pct         %.2f",
			100.0 * r->util_fixed);
	} else {
		fprintf(f, "fixed_util_pct         n/a");
	}
	fprintf(f,
		" (fixed-path bits delivered at the egress / fixed capacity "
		"bits, summed over the %u of %u 100-ms intervals where "
		"offered >= fixed capacity)\n",
		r->util_intervals, r->intervals);
	fprintf(f,
		"mobile_share_pct       %.2f (bytes sent on mobile paths "
		"/ all bytes sent)\n",
		r->bytes_sent ? 100.0 * (double)r->bytes_mobile /
					(double)r->bytes_sent
			      : 0.0);
	fprintf(f,
		"reorder_delay_ms       p50 %.1f p99 %.1f mean %.2f max "
		"%.1f (egress arrival to in-order release)\n",
		r->reorder_p50_ms, r->reorder_p99_ms, r->reorder_mean_ms,
		r->reorder_max_ms);
	fprintf(f, "w_mobile_final         %.3f\n", r->w_mobile);
	fprintf(f, "weight_updates         awi %llu iwi %llu dwd %llu\n",
		ull(r->sched.awi), ull(r->sched.iwi), ull(r->sched.dwd));
	fprintf(f,
		"pace                   rate_learned %llu rate_probed %llu "
		"paced %llu overflow %llu\n",
		ull(r->sched.rate_learned), ull(r->sched.rate_probed),
		ull(r->sched.paced), ull(r->sched.overflow));
	for (i = 0; i < c->npaths; i++) {
		const struct sim_link_stats *s = &r->link[i];

		fprintf(f,
			"path_stats             %s sent %llu delivered %llu "
			"queue_drops %llu random_loss %llu down_drops %llu "
			"qdelay_ms mean %.2f max %.2f\n",
			c->path[i].name, ull(r->path_sent[i]),
			ull(s->delivered), ull(s->queue_drops),
			ull(s->random_loss), ull(s->down_drops),
			s->enqueued ? s->qdelay_sum_us / 1000.0 /
					      (double)s->enqueued
				    : 0.0,
			s->qdelay_max_us / 1000.0);
	}
	fprintf(f,
		"reseq                  in_order %llu buffered %llu "
		"released %llu late %llu dup %llu overflow %llu\n",
		ull(rs->in_order), ull(rs->buffered), ull(rs->released),
		ull(rs->late), ull(rs->dup), ull(rs->overflow));
	fprintf(f,
		"checks                 order_errors %llu bad_verdicts %llu "
		"stranded %llu\n",
		ull(r->order_errors), ull(r->bad_verdicts), ull(r->stranded));
	fprintf(f,
		"memory                 packet records peak %u, events "
		"peak %u\n",
		r->pool_peak, r->heap_peak);
	print_cut(f, c, r);
	fprintf(f, "simulated_s            %.3f\n", r->end_us / 1e6);
}
