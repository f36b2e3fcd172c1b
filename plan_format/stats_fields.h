/* stats_fields.h — a plan header's `stats` map (stats_fields.c), read
 * alike for every kind. */
#ifndef RELAY_STATS_FIELDS_H
#define RELAY_STATS_FIELDS_H

#include <stdint.h>

#include "mp_reader.h"
#include "relay/status.h"

/* Its five values, in relay_plan_stats' order: each present, each >= 0;
 * unknown keys are skipped.  RELAY_ERR_FORMAT naming what is wrong. */
relay_status rl_read_stats(mp_reader *r, int64_t stats[5]);

#endif
