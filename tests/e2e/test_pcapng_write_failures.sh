# The pcapng writer when writes fail (a file size limit, a full disk): the error
# names OUTDIR/merged.pcapng and the reason, and nothing is left in OUTDIR; an
# earlier merged.pcapng stays as it was.
. "$E2E_LIB"
msg="full/merged.pcapng: cannot write: File too large; nothing was written"

# At the close: 100 packets fit in the writer's buffer (1 MiB) ...
limited 1 1 "$TOOLS/tsync_pcapng" full 100
contains err.txt "$msg"
nothing_in full
# ... and in the middle of the packets: 5000 packets (about 11 MB) against 2 MiB.
limited 1 4096 "$TOOLS/tsync_pcapng" full 5000
contains err.txt "$msg"
nothing_in full
run 0 "$TOOLS/tsync_pcapng" keep 100
before=$(tree_sum keep)
limited 1 1 "$TOOLS/tsync_pcapng" keep 300
contains err.txt "keep/merged.pcapng: cannot write: File too large"
[ "$(tree_sum keep)" = "$before" ] || fail "the earlier merged.pcapng changed"
[ "$(ls -A keep)" = merged.pcapng ] || fail "keep: $(ls -A keep)"

# A real full disk, where mounting one is allowed (root in CI).
mkdir -p small
if mount -t tmpfs -o size=2m tmpfs small 2>/dev/null; then
    set +e
    "$TOOLS/tsync_pcapng" small/out 5000 >out.txt 2>err.txt
    rc=$?
    left=$(find small -mindepth 1)
    set -e
    umount small
    [ "$rc" -eq 1 ] || fail "full tmpfs: exit $rc, expected 1"
    contains err.txt "small/out/merged.pcapng: "
    contains err.txt "No space left on device"
    # OUTDIR, made by the run, goes with its failed output.
    [ -z "$left" ] || fail "full tmpfs: left $left"
else
    echo "tmpfs not mountable here: the full disk is tested with the file size limit only"
fi
echo ok
