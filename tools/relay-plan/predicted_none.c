/* predicted_none.c — relay-plan --schedule predicted in a build without
 * SimGrid (cmake/RelayPredict.cmake): refuses before planning, saying why;
 * predicted.c predicts where SimGrid is. */
#include "plan.h"

int predicted_machine(const char *machine, char *path, size_t size, cli_error *e)
{
    return cli_fail(e, CLI_FAILED, "--schedule predicted --machine %s: relay was built without SimGrid "
                                   "(install libsimgrid-dev and rebuild)", machine);
}

/* Never reached: predicted_machine refused first. */
relay_status predicted_tuning(const relay_plan *plan, const char *path, relay_tuning *t)
{
    return RELAY_ERR_UNSUPPORTED;
}
