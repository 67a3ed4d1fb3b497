/* SPDX-License-Identifier: BSD-2-Clause */
/* The control socket of l3bondctl (ctl.c): requests in, the stats walk
 * out as data (facts.h). */
#ifndef L3BOND_GW_CTL_H
#define L3BOND_GW_CTL_H

struct gw;

/* The control socket (gw->conf.control_socket, or --control-socket) in
 * the loop; nothing when the path is "".  0 or -errno. */
int gw_ctl_open(struct gw *gw);
void gw_ctl_close(struct gw *gw);

#endif
