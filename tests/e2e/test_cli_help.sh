# Every subcommand has --help with an example; unknown commands and options exit 2.
. "$E2E_LIB"
run 0 "$TRACESYNC" --help
contains out.txt "Commands:"
for cmd in $(sed -n 's/^  \([a-z]*\) .*/\1/p' out.txt); do
    run 0 "$TRACESYNC" "$cmd" --help
    contains out.txt "usage: tracesync $cmd"
    contains out.txt "Example:"
    contains out.txt "tracesync $cmd "
    ! grep -q '{estimator\|{formats}' out.txt || fail "$cmd --help: a list left unfilled"
done
# The estimators and formats in the help come from the registries.
run 0 "$TRACESYNC" help sync
contains out.txt "[--estimator hull|regression|none]"
contains out.txt "--estimator NAME       hull, regression or none (default hull):"
contains out.txt "hull: mean of the extreme separating lines; bounds"
contains out.txt "Reads INPUT (an OTF2 anchor file, a CSV of messages or packet captures (pcap, pcapng))"
run 0 "$TRACESYNC" help estimate
contains out.txt "regression: least squares over exchanges (seed 003)"
run 0 "$TRACESYNC" --version
contains out.txt "tracesync "
run 2 "$TRACESYNC" nosuchcommand
contains err.txt "unknown command 'nosuchcommand'"
run 2 "$TRACESYNC"
run 2 "$TRACESYNC" check --bogus x.otf2
contains err.txt "tracesync check --help"
run 2 "$TRACESYNC" check
contains err.txt "no input given"
