/* SPDX-License-Identifier: BSD-2-Clause */
/* Traffic classes: which class an inner packet belongs to.
 *
 * A class is a match over the inner packet's IP family, DSCP, protocol,
 * ports and addresses (the config's traffic_classes, common/conf.h); the
 * first class whose match the packet meets is its class, none: the default
 * class.  Within a match, every field given must hold (and), and a field
 * holds when the packet's value is any of its list (or); a field not given
 * (family 0, dscp 0, an empty list) holds for every packet.
 *
 * What a field needs of the packet, and what a packet that lacks it
 * matches: a field needs the bytes that hold it.  A packet of another
 * version than 4 or 6 has no field at all; a truncated header has those
 * of its fields that are within len.  The protocol is the upper layer's:
 * IPv4's protocol field (even when the IHL is bad), IPv6's next header
 * after at most CLS_EXT_MAX hop-by-hop, routing, destination options and
 * fragment headers (AH and ESP are protocols, as on IPv4), none when they
 * run past len or there are more.  Ports need TCP, UDP, UDP-Lite, SCTP or
 * DCCP, the first 4 bytes of that header within len, and the packet not a
 * fragment past offset 0 (its first fragment has them); IPv4's also a
 * valid IHL (>= 20).  A field the packet lacks holds for no list.
 *
 * Pure: no allocation, no I/O, no clock, no state; nothing is read outside
 * [pkt, pkt + len).
 */
#ifndef L3BOND_CLASSIFY_H
#define L3BOND_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/params.h" /* struct cls_match and its limits */

/* The index of the first of the n matches m[] the packet pkt of len bytes
 * meets, or -1 (the default class). */
int cls_classify(const struct cls_match *m, unsigned n, const uint8_t *pkt,
		 size_t len);

/* The protocol's header starts with ports (TCP, UDP, UDP-Lite, SCTP,
 * DCCP): the protocols a match's port lists hold in (also for the capture
 * rules that leave bypass classes out, gateway/rules.c). */
bool cls_proto_has_ports(uint8_t proto);

#endif
