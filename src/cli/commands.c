/* commands.c - the table of tracesync subcommands: it drives dispatch, --help and
 * the test that every command documents an example. */
#include "cli/cli.h"

const struct cli_command cli_commands[] = {
    { "check", cmd_check, "check INPUT... [--json] [--latency intra=T,inter=T] [--domains node|location]",
      "report clock condition violations; exit 1 if any",
      "Counts point-to-point messages and the logical messages of collective operations\n"
      "(Becker et al. 2009, section 4.1), messages received before they were sent\n"
      "(reversed), clock condition violations (receive earlier than send plus the\n"
      "minimum latency), their displacement, the worst location pairs and unmatched\n"
      "messages.\n"
      "\n"
      "Options:\n"
      "  --json                 print the report as JSON\n"
      "  --latency SPEC         minimum latencies, e.g. intra=1us,inter=4us (units ns, us,\n"
      "                         ms, s); default intra=0.3us,inter=1us\n"
      "  --domains RULE         clock domains: node (default: locations of a node share\n"
      "                         a clock) or location (every location its own clock)\n"
      "  -q, --quiet            no warnings or progress on stderr\n"
      "\n"
      "Exit status: 0 consistent, 1 violations found, 2 usage or input error.\n"
      "\n"
      "Example:\n"
      "  tracesync check run/traces.otf2 --latency intra=0.5us,inter=2us --json\n" },
    { "apply", cmd_apply, "apply MAPS.json INPUT -o OUTDIR",
      "apply time maps given as JSON and write the corrected trace",
      "Maps local timestamps to the reference clock with the maps in MAPS.json (per\n"
      "clock domain or location: a constant offset, offset and drift, or a list of\n"
      "[local, global] points joined linearly; see docs/maps.md) and writes every\n"
      "definition and event of INPUT, only timestamps changed, to OUTDIR. A map that\n"
      "would reorder a location's events is rejected.\n"
      "\n"
      "Options:\n"
      "  -o, --output OUTDIR    directory for the corrected archive (same file name)\n"
      "  -q, --quiet            no warnings or progress on stderr\n"
      "\n"
      "Example:\n"
      "  tracesync apply maps.json run/traces.otf2 -o corrected/\n" },
};

const size_t cli_command_count = sizeof(cli_commands) / sizeof(cli_commands[0]);
