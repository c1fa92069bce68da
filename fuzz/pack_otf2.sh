#!/bin/sh
# pack_otf2.sh DIR OUT - packs the OTF2 archive in DIR (anchor, definitions, events)
# into one input of fuzz_otf2: each file as a line "@@tsync:NAME" then its bytes.
# The anchor is written first: the target opens the first NAME ending in .otf2.
set -e
dir=$1
out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
: > "$out"
cd "$dir"
for f in $(find . -type f -name '*.otf2' | sort) $(find . -type f ! -name '*.otf2' | sort); do
    printf '@@tsync:%s\n' "${f#./}" >> "$out"
    cat "$f" >> "$out"
done
