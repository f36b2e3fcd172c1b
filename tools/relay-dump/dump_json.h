/* dump_json.h — the SPEC section 4 keys that every `relay-dump --json`
 * object carries, written alike for every plan kind (dump_json.c). */
#ifndef RELAY_DUMP_JSON_H
#define RELAY_DUMP_JSON_H

#include "json_out.h"
#include "plan_internal.h"

/* Starts the object: format_version, kind, ranks and fingerprint. */
json_writer dump_json_open(const relay_plan *p, const char *kind);
/* For kinds without relabeling (BMMC, HSUMMA): type, op N, relabel none,
 * the identity sigma, schedule and rounds. */
void dump_json_no_relabel(json_writer *w, const relay_plan *p, const char *type, const char *schedule, int64_t rounds);
/* One per_rank entry: rank, send_bytes, recv_bytes, send_msgs, recv_msgs,
 * local_bytes. */
void dump_json_rank(json_writer *w, int rank, int64_t send_bytes, int64_t recv_bytes, int64_t send_msgs,
                    int64_t recv_msgs, int64_t local_bytes);
/* bytes_total, bytes_remote, bytes_remote_identity, messages, pieces. */
void dump_json_volumes(json_writer *w, int64_t total, int64_t remote, int64_t remote_identity, int64_t messages,
                       int64_t pieces);

#endif
