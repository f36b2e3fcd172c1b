/* predicted.c — relay-plan transform --schedule predicted --machine NAME,
 * where relay was built with SimGrid: the machine found as relay-dump
 * --predict finds it, the plan's schedules predicted by relay_predict
 * (relay/predict.h).  predicted_none.c stands in elsewhere. */
#include "plan.h"
#include "machine_file.h"
#include "relay/predict.h"

int predicted_machine(const char *machine, char *path, size_t size, cli_error *e)
{
    return cli_machine_file("--machine", machine, path, size, e);
}

relay_status predicted_tuning(const relay_plan *plan, const char *path, relay_tuning *t)
{
    return relay_predict_tuning(plan, path, t);
}
