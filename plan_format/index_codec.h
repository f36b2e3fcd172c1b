/* index_codec.h — reading index plans, format 4.x (index_codec.c), from
 * the bytes codec_read.c finds behind a preamble of major 4. */
#ifndef RELAY_INDEX_CODEC_H
#define RELAY_INDEX_CODEC_H

#include "index_plan.h"

/* Makes bytes [off, off + len) of the file available at *out (valid until
 * the next read), or refuses ("plan is truncated: the <what> ..."). */
typedef relay_status rl_read_bytes(void *source, uint64_t off, uint64_t len, const unsigned char **out, const char *what);

typedef struct {
    rl_read_bytes *read;
    void *source;
    uint64_t size;            /* of the file */
    uint64_t header_at, header_bytes, header_hash;
    int minor;
} rl_index_file;

/* The plan, with rank's section (every section for rank -1). */
relay_status rl_index_decode(const rl_index_file *f, int rank, relay_plan **out);
/* Its rank count, from the header's first pass. */
relay_status rl_index_peek_nranks(const rl_index_file *f, int *nranks);

#endif
