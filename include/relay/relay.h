/* relay/relay.h — the umbrella header: everything a user of relay needs.
 *
 *   relay_layout_*   describe how matrices are cut and stored   (layout.h)
 *   relay_plan_*     plan a data movement once, save and load it (plan.h)
 *   relay_exec_*     replay a plan over fresh buffers under MPI  (exec.h)
 *   relay_bmmc_*     BMMC permutations                           (bmmc.h)
 *   relay_hsumma_*   SUMMA / HSUMMA matrix products              (hsumma.h)
 *   relay_nd_*       N-D arrays on process meshes, their plans   (nd.h)
 *   relay_index_*    index layouts: owners, ghosts, their plans  (index.h)
 *   relay_*predict*  predicted replay times on a machine model   (predict.h)
 *   relay_status     the one error convention                    (status.h) */
#ifndef RELAY_RELAY_H
#define RELAY_RELAY_H

#define RELAY_VERSION_MAJOR 0
#define RELAY_VERSION_MINOR 1
#define RELAY_VERSION_PATCH 0

#include "relay/status.h"
#include "relay/layout.h"
#include "relay/plan.h"
#include "relay/exec.h"
#include "relay/bmmc.h"
#include "relay/hsumma.h"
#include "relay/nd.h"
#include "relay/index.h"
#include "relay/scalapack.h"   /* declarations only: link relay::scalapack to use them */
#include "relay/predict.h"     /* declarations only: link relay::predict (built with SimGrid) */

#endif
