/* predict_none.c — relay-dump --predict in a build without SimGrid
 * (cmake/RelayPredict.cmake): refuses, saying why; predict.c predicts
 * where SimGrid is. */
#include "predict.h"

int dump_predict(const dump_request *r, const relay_plan *p, cli_error *e)
{
    return cli_fail(e, CLI_FAILED, "--predict %s: relay was built without SimGrid (install libsimgrid-dev and rebuild)",
                    r->predict);
}
