/* scenario.h (internal) - the parameters as scenario.json writes them. */
#ifndef TSYNC_SIM_SCENARIO_H
#define TSYNC_SIM_SCENARIO_H

#include <jansson.h>

#include "tracesync/sim.h"

/* The "parameters" object of scenario.json: every parameter by its key, grouped
 * (clock, net, app, offsets). NULL when out of memory. */
json_t *tsync__sim_params_json(const tsync_sim_opts *o);

#endif
