/* json.c — the keys that every `relay-dump --json` object carries
 * (docs/cli.md), written alike for every plan kind (see dump.h). */
#include <stdio.h>

#include "dump.h"

json_writer dump_json_open(const relay_plan *p, const char *kind, FILE *out)
{
    char version[32], fingerprint[24];
    snprintf(version, sizeof version, "%d.%d", p->format_major, p->format_minor);
    snprintf(fingerprint, sizeof fingerprint, "%016llx", (unsigned long long)p->fingerprint);
    json_writer w = json_start(out);
    json_begin_object(&w, NULL);
    json_string(&w, "format_version", version);
    json_string(&w, "kind", kind);
    json_int(&w, "ranks", p->nranks);
    json_string(&w, "fingerprint", fingerprint);
    return w;
}

void dump_json_ops(json_writer *w, const relay_plan *p)
{
    int count = relay_plan_count(p);
    if (count != 1) json_begin_array(w, "op");
    for (int k = 0; k < count; k++)
        json_string(w, count == 1 ? "op" : NULL, cli_op_words[p->nd ? p->nd->pairs[k].op : p->pairs[k].op]);
    if (count != 1) json_end_array(w);
}

int64_t dump_listed(const dump_request *r, int64_t n) { return r->limit > 0 && r->limit < n ? r->limit : n; }

void dump_json_sigma(json_writer *w, const dump_request *r, const relay_plan *p, const int *sigma)
{
    int64_t listed = dump_listed(r, p->nranks);
    json_begin_array(w, "sigma");
    for (int64_t k = 0; k < listed; k++) json_int(w, NULL, sigma ? sigma[k] : k);
    json_end_array(w);
    json_int(w, "sigma_left_out", p->nranks - listed);
}

void dump_json_no_relabel(json_writer *w, const dump_request *r, const relay_plan *p, const char *type,
                          const char *schedule, int64_t rounds)
{
    json_string(w, "type", type);
    json_string(w, "op", "N");
    json_string(w, "relabel", "none");
    dump_json_sigma(w, r, p, NULL);
    json_string(w, "schedule", schedule);
    json_int(w, "rounds", rounds);
}

void dump_json_volumes(json_writer *w, int64_t total, int64_t remote, int64_t remote_identity, int64_t messages,
                       int64_t pieces)
{
    json_int(w, "bytes_total", total);
    json_int(w, "bytes_remote", remote);
    json_int(w, "bytes_remote_identity", remote_identity);
    json_int(w, "messages", messages);
    json_int(w, "pieces", pieces);
}

void dump_json_rank(json_writer *w, int rank, int64_t send_bytes, int64_t recv_bytes, int64_t send_msgs,
                    int64_t recv_msgs, int64_t local_bytes)
{
    json_begin_object(w, NULL);
    json_int(w, "rank", rank);
    json_int(w, "send_bytes", send_bytes);
    json_int(w, "recv_bytes", recv_bytes);
    json_int(w, "send_msgs", send_msgs);
    json_int(w, "recv_msgs", recv_msgs);
    json_int(w, "local_bytes", local_bytes);
    json_end_object(w);
}
