/* layout_spec.h — layouts from the command line of relay-plan.
 *
 *   bc:MxN:MBxNB:PRxPC[:grid=row|col][:elem=col|row][:src=R,C]
 *       a ScaLAPACK block-cyclic layout (relay_layout_block_cyclic, lld 0);
 *       defaults grid=row, elem=col, src=0,0.
 *   json:PATH
 *       a custom grid layout read from a JSON file of exactly this shape
 *       (offsets, lds and order optional; order "col" or "row"):
 *       {"nranks":4, "m":..., "n":..., "row_splits":[...], "col_splits":[...],
 *        "owners":[...], "order":"col", "offsets":[...], "lds":[...]}
 *
 * The grammar is documented for users in docs/cli.md. */
#ifndef RELAY_LAYOUT_SPEC_H
#define RELAY_LAYOUT_SPEC_H

#include "cli_util.h"
#include "relay/layout.h"

/* Builds the layout a spec describes.  On failure *out is untouched and e
 * says why: CLI_USAGE for a malformed spec, CLI_FAILED for a layout file
 * that cannot be read or is not a valid layout. */
int layout_spec_parse(const char *spec, relay_layout **out, cli_error *e);

#endif
