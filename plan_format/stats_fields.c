/* stats_fields.c — reading a plan header's `stats` map (stats_fields.h). */
#include "error.h"
#include "stats_fields.h"

static const char *const stat_keys[5] = {"bytes_total", "bytes_remote", "bytes_remote_identity", "messages", "pieces"};

static relay_status malformed(const mp_reader *r)
{
    return rl_fail(RELAY_ERR_FORMAT, "plan header's stats is malformed: %s", r->error ? r->error : "unexpected content");
}

relay_status rl_read_stats(mp_reader *r, int64_t stats[5])
{
    uint32_t pairs, seen = 0;
    if (!mp_read_map(r, &pairs)) return malformed(r);
    for (uint32_t i = 0; i < pairs; i++) {
        const char *key;
        uint32_t klen;
        if (!mp_read_str(r, &key, &klen)) return malformed(r);
        int k = mp_key_index(stat_keys, 5, key, klen);
        if (k < 0 ? !mp_skip(r) : !mp_read_ranged(r, &stats[k], 0, INT64_MAX))
            return rl_fail(RELAY_ERR_FORMAT, "plan stats field `%s` is malformed: %s", k < 0 ? "(unknown)" : stat_keys[k],
                           r->error ? r->error : "unexpected content");
        if (k >= 0) seen |= 1u << k;
    }
    return seen == 31 ? RELAY_OK : rl_fail(RELAY_ERR_FORMAT, "plan stats lack `%s`", stat_keys[__builtin_ctz(~seen)]);
}
