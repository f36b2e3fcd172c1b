/* words.h — relay's enums and byte counts in words: what the tools'
 * options read and every output prints (relay-dump, relay-run, the
 * Python binding's arguments and dicts), so that all spell them alike. */
#ifndef RELAY_WORDS_H
#define RELAY_WORDS_H

#include <stdint.h>

/* Indexed by the enum value and ended by NULL, so that a keyword option
 * (options.h) reads them and the outputs print them alike. */
extern const char *const cli_type_words[];     /* relay_type: s d c z */
extern const char *const cli_type_names[];     /* relay_type for people: float ... complex double */
extern const char *const cli_op_words[];       /* relay_op: N T C */
extern const char *const cli_relabel_words[];  /* relay_relabel: none greedy optimal */
extern const char *const cli_schedule_words[]; /* relay_schedule: auto p2p rounds alltoallv neighbor */
extern const char *const cli_order_words[];    /* relay_order: col row */
extern const char *const cli_kind_words[];     /* relay_plan_kind: transform bmmc hsumma nd index */
extern const char *const cli_bcast_words[];    /* relay_bcast_model: vdg binomial */
extern const char *const cli_replicas_words[]; /* relay_replicas: auto direct forward */

/* "1536 B", "1.5 KiB", "2.0 MiB" ...: a byte count for people. */
typedef struct {
    char text[32];
} cli_bytes_text;
cli_bytes_text cli_bytes(int64_t bytes);

#endif
