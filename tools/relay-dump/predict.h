/* predict.h — relay-dump --predict MACHINE, beside the views of a plan
 * (dump.h): predict.c where SimGrid is, predict_none.c elsewhere. */
#ifndef RELAY_DUMP_PREDICT_H
#define RELAY_DUMP_PREDICT_H

#include "dump.h"

/* --predict MACHINE of a transform plan holding every section: the
 * predicted replay on r->out (predict.c), or, in a build without SimGrid,
 * CLI_FAILED saying so (predict_none.c). */
int dump_predict(const dump_request *r, const relay_plan *p, cli_error *e);

#endif
