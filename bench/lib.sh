# Shell functions shared by the benchmark scripts (bench/run,
# bench/docker-run); sourced by bash, never run.  They read two globals:
# $out, the file of recorded result lines, and $repeat, how many times a
# timed measurement runs.

# value TAG KEY: a key=value field of a recorded line ("" when absent).
value() {
    awk -v tag="$1" -v key="$2" '$1 == tag { for (i = 2; i <= NF; i++) { split($i, kv, "=");
        if (kv[1] == key) { print kv[2]; exit } } }' "$out"
}
# ratio A B: A / B with two decimals, "-" when either is missing or B is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }

# record TAG COMMAND...: run a measurement $repeat times, keep the result
# line of the fastest run (highest rate) under TAG.
record() {
    local tag=$1; shift
    local i
    for (( i = 0; i < repeat; i++ )); do keep_best "$tag" "$@"; done
    flush_best
}
# group "TAG COMMAND ARGS..." ...: like record for several measurements that
# are compared with each other, run in turns (A B C A B C ...) so that a
# slow spell of the shared machine hits all of them alike.  Words are split
# on spaces (no argument holds one); @R@ in an argument becomes the repeat
# number (creates use it to make new ids every turn).  The entries are kept
# in their own array: splitting them must not replace the list the later
# turns walk (with `set --` the second turn ran the last entry's words).
group() {
    local i entry
    local -a entries=("$@") words
    for (( i = 0; i < repeat; i++ )); do
        for entry in "${entries[@]}"; do
            # shellcheck disable=SC2206
            words=(${entry//@R@/$i})
            [ ${#words[@]} -gt 0 ] || continue
            keep_best "${words[@]}"
        done
    done
    flush_best
}
declare -A best_line=() best_rate=()
best_order=()
keep_best() {   # TAG COMMAND...: run once, remember the line if fastest so far
    local tag=$1 line rate
    shift
    line=$("$@" | tail -n 1) || { echo "${0##*/}: failed: $*" >&2; exit 1; }
    rate=$(echo "$line" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^rate=/) print substr($i, 6) }')
    if [ -z "${best_rate[$tag]+set}" ]; then
        best_order+=("$tag")
        best_rate[$tag]=-1
    fi
    if awk -v a="$rate" -v b="${best_rate[$tag]}" 'BEGIN { exit !(a + 0 > b + 0) }'; then
        best_line[$tag]=$line best_rate[$tag]=$rate
    fi
}
flush_best() {  # append the kept lines to $out, in first-run order
    local tag
    for tag in "${best_order[@]}"; do echo "$tag ${best_line[$tag]}" >> "$out"; done
    best_line=() best_rate=() best_order=()
}

# start_emulator EMU KEY DIR [OPTION...]: start the provisioner emulator EMU
# with API key KEY and the options on an ephemeral loopback port (its first line names the URL; a fifo in
# DIR carries it); sets emu_pid (the caller's cleanup stops it) and emu_url.
start_emulator() {
    local line emu=$1 key=$2 dir=$3
    shift 3
    mkfifo "$dir/emu.out"
    "$emu" --api-key "$key" "$@" > "$dir/emu.out" 2> "$dir/emu.err" &
    emu_pid=$!
    exec 3< "$dir/emu.out"
    if ! read -r -t 10 line <&3; then
        echo "${0##*/}: the emulator did not start:" >&2; cat "$dir/emu.err" >&2; exit 1
    fi
    cat <&3 > /dev/null &   # keep draining its stdout
    exec 3<&-
    emu_url=${line##* }
    case $emu_url in
        http://127.0.0.1:*) ;;
        *) echo "${0##*/}: unexpected emulator line: $line" >&2; exit 1 ;;
    esac
}
