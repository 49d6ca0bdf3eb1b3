/* The in-container side of live processes (see docker_proc_script.h).
 * The text is POSIX sh plus the busybox and coreutils behaviour the
 * header names; docs/docker.md "Processes (ABI 1.4)" is its user's guide. */
#include <config.h>

#include "plugin/docker/docker_proc_script.h"

#include <pthread.h>
#include <string.h>

/*
 * Layout of a process's directory DIR = ROOT/ID:
 *   start, argc, argv (NUL-terminated words), pg (its process group)
 *   pty, tty       with a terminal: pty (empty) and tty, the terminal's
 *                  path, written by the helper ROOT/.pty (sbx-docker-pty),
 *                  which also writes pg (its command's pid) and copies the
 *                  terminal to o.f (e.f gets only the helper's complaints).
 *                  Without one the helper only puts back SIGINT and
 *                  SIGQUIT, which the keeper's background subshell ignores
 *                  for good, writes pg (its pid) and execs the command;
 *                  the start answers once pg is there either way.
 *   o.f, e.f       FIFOs the process writes its stdout and stderr into
 *   o.N, e.N       the kept output as segments, N = 10^18 + the offset of
 *                  the segment's first byte (fixed width: a glob lists
 *                  them in order; the leading 1 keeps $((N)) decimal)
 *   o.t, e.t       "K TOTAL": K a counter bumped after each read of the
 *                  FIFO (a waiting reader looks at it without starting a
 *                  program), TOTAL the stream's bytes whose order line is
 *                  written (dd's count, or the segment's size where dd
 *                  prints none, as busybox's): a reader serves no byte
 *                  past it, so that no byte is seen before its order is
 *                  kept (a program that writes the other stream after
 *                  seeing it would otherwise be ordered before it); "0 0"
 *                  before the first read, "end" once the copier ended
 *   i.f, i.h       the stdin FIFO and the pid of the process holding its
 *                  write end open (killed to close stdin); i.closed
 *   nap            a FIFO nobody writes: `read -t` on it is a sleep that
 *                  starts no program
 *   order, last    the order of the streams: a copier that reads after
 *                  the other stream wrote appends "X TOTAL" (X its stream,
 *                  TOTAL what the other stream has then: those bytes came
 *                  first), at most 65536 lines each; `last` the latest X
 *   status         "end CODE SECONDS TIMEDOUT" once the process and its
 *                  output are done
 * The copier (copy) moves each read of a FIFO into the newest segment with
 * one dd (one read: output is visible as soon as it is written), starts
 * a new segment past a quarter of the buffer and removes the segments
 * wholly older than the newest buffer bytes; a reader (span, emit)
 * answers the bytes of [max(cursor, end - buffer), end) it asked for,
 * header first, then the runs of the streams in their order (at most
 * 256: an answer stops at the 256th), stdout bytes on stdout and stderr
 * bytes on stderr (the
 * read's own complaints, such as a segment removed under it, go to
 * /dev/null: its stderr is the process's bytes only).
 * A write refused (unknown process, stdin closed) still reads the bytes
 * sent on its stdin: the engine would otherwise close the connection
 * while the backend sends them, and the refusal would come back as a
 * transport error.
 */
static const char *const script_lines[] = {
    "R=" DOCKER_PROC_ROOT "; Z=1000000000000000000\n",
    "op=$1; shift\n",
    "nap() { read -t 0.01 x <> \"$1\"; }\n",
    "info() {\n",
    "    read t0 < \"$1/start\"; read ac < \"$1/argc\"; st=\n",
    "    [ -s \"$1/status\" ] && read st < \"$1/status\"\n",
    "    k=P; [ -e \"$1/pty\" ] && k=T\n",
    "    printf '%s %s %s %s %s\\n' $k \"${1##*/}\" \"$t0\" \"$ac\" \"${st:-run}\"\n",
    "    cat \"$1/argv\"\n",
    "}\n",
    "copy() {\n",
    "    p=$d/$1; cs=$Z; old=; k=0; rec=0; T=0\n",
    "    : > \"$p.$cs\"; echo \"0 0\" > \"$p.t\"\n",
    "    while :; do\n",
    "        dd bs=$bs count=1 2>\"$p.dd\" >>\"$p.$cs\"\n",
    "        { read l; read x; read nb x; } < \"$p.dd\"\n",
    "        case $l in 0+0*) break ;; esac\n",
    "        lw=; read lw 2>/dev/null < \"$d/last\"\n",
    "        if [ \"$lw\" != \"$1\" ] && [ $rec -lt 65536 ]; then\n",
    "            span $2; echo \"$1 $E\" >> \"$d/order\"; echo \"$1\" > \"$d/last\"; rec=$((rec + 1))\n",
    "        fi\n",
    "        case $nb in\n",
    "        '' | *[!0-9]*) T=$((cs - Z + $(wc -c < \"$p.$cs\"))) ;;\n",
    "        *) T=$((T + nb)) ;;\n",
    "        esac\n",
    "        k=$((k + 1)); echo \"$k $T\" > \"$p.t\"\n",
    "        [ $((k % every)) -eq 0 ] || continue\n",
    "        sz=$(wc -c < \"$p.$cs\")\n",
    "        [ \"$sz\" -ge \"$seg\" ] || continue\n",
    "        old=\"$old$cs \"; cs=$((cs + sz)); : > \"$p.$cs\"\n",
    "        while [ -n \"$old\" ]; do\n",
    "            f=${old%% *}; r=${old#* }; nx=${r%% *}\n",
    "            [ $((${nx:-$cs} - Z)) -le $((cs - Z - buf)) ] || break\n",
    "            rm -f \"$p.$f\"; old=$r\n",
    "        done\n",
    "    done\n",
    "    rm -f \"$p.dd\"; echo end > \"$p.t\"\n",
    "}\n",
    "span() {\n",
    "    fs=; f1=; fl=\n",
    "    for f in \"$d/$1\".1[0-9]*; do\n",
    "        [ -e \"$f\" ] || continue; fl=${f##*.}; f1=${f1:-$fl}; fs=\"$fs$fl \"\n",
    "    done\n",
    "    E=0; L=0; [ -n \"$fl\" ] || return 0\n",
    "    E=$((fl - Z + $(wc -c < \"$d/$1.$fl\"))); L=$((f1 - Z)); ct=\n",
    "    read x ct < \"$d/$1.t\" 2>/dev/null\n",
    "    case $ct in '' | *[!0-9]*) ;; *) [ $E -le $ct ] || E=$ct ;; esac\n",
    "    [ $((E - buf)) -le $L ] || L=$((E - buf))\n",
    "}\n",
    "emit() {\n",
    "    c=\n",
    "    for s in $4; do [ $((s - Z)) -le $2 ] && c=$s; done\n",
    "    for s in $4; do\n",
    "        [ \"$s\" -lt \"${c:-$Z}\" ] && continue\n",
    "        s=$((s - Z)); [ $s -lt $3 ] || break\n",
    "        a=$2; [ $s -le $a ] || a=$s\n",
    "        dd if=\"$d/$1.$((s + Z))\" bs=65536 iflag=skip_bytes,count_bytes skip=$((a - s)) \\\n",
    "            count=$(($3 - a)) 2>/dev/null || break\n",
    "    done\n",
    "}\n",
    "clip() {\n",
    "    if [ $1 = o ]; then lo=$ao hi=$bo; else lo=$ae hi=$be; fi\n",
    "    a=$2; [ $a -ge $lo ] || a=$lo; b=$3; [ $b -le $hi ] || b=$hi\n",
    "    [ $b -gt $a ] && [ $n -lt 256 ] || return 0\n",
    "    rs=\"$rs $1 $((b - a))\"; n=$((n + 1)); eval \"c$1=$b\"\n",
    "}\n",
    "runs() {\n",
    "    po=0 pe=0 cur= rs= n=0 co=$ao ce=$ae\n",
    "    [ -s \"$d/order\" ] && while read s off; do\n",
    "        case $off in '' | *[!0-9]*) continue ;; esac\n",
    "        if [ \"$s\" = o ]; then clip e $pe $off; [ $off -lt $pe ] || pe=$off\n",
    "        else clip o $po $off; [ $off -lt $po ] || po=$off; fi\n",
    "        cur=$s\n",
    "    done < \"$d/order\"\n",
    "    if [ \"$cur\" = e ]; then clip e $pe $be; clip o $po $bo; else clip o $po $bo; clip e $pe $be; fi\n",
    "    bo=$co be=$ce\n",
    "}\n",
    "drain() { [ \"$op\" != write ] || [ \"$1\" != 1 ] || cat > /dev/null; }\n",
    "gone() { drain \"$1\"; echo \"sbx-$op none\"; exit 0; }\n",
    "[ \"$op\" = start ] || [ \"$op\" = list ] || { d=$R/$1; [ -d \"$d\" ] && [ -e \"$d/argc\" ] || gone \"$2\"; }\n",
    "case $op in\n",
    "start)\n",
    "    id=$1 t0=$2 buf=$3 sin=$4 tmo=$5 max=$6 ne=$7 pty=$8; shift 8\n",
    "    for t in mkfifo dd wc setsid rm cat sleep date; do\n",
    "        command -v $t >/dev/null 2>&1 || { echo \"sbx-start missing $t\"; exit 0; }\n",
    "    done\n",
    "    [ -x $R/.pty ] || { echo \"sbx-start nohelper\"; exit 0; }\n",
    "    mkdir -p $R && { [ -p $R/.nap ] || mkfifo $R/.nap 2>/dev/null; }\n",
    "    i=0\n",
    "    while ! mkdir $R/.lock 2>/dev/null && [ $i -lt 500 ]; do i=$((i + 1)); nap $R/.nap; done\n",
    "    run=0; ended=; n=0\n",
    "    for p in $R/p*; do\n",
    "        [ -d \"$p\" ] || continue\n",
    "        if [ -s \"$p/status\" ]; then ended=\"$ended$p \"; n=$((n + 1)); else run=$((run + 1)); fi\n",
    "    done\n",
    "    if [ $run -ge \"$max\" ]; then rmdir $R/.lock; echo \"sbx-start limit $run\"; exit 0; fi\n",
    "    for p in $ended; do [ $n -ge \"$max\" ] || break; rm -rf \"$p\"; n=$((n - 1)); done\n",
    "    d=$R/$id\n",
    "    mkdir \"$d\" || { rmdir $R/.lock; echo \"sbx-start failed\"; exit 0; }\n",
    "    mkfifo \"$d/o.f\" \"$d/e.f\" \"$d/nap\" || { rmdir $R/.lock; echo \"sbx-start failed\"; exit 0; }\n",
    "    [ \"$sin\" = 1 ] && mkfifo \"$d/i.f\"\n",
    "    echo \"$t0\" > \"$d/start\"; [ \"$pty\" = - ] || : > \"$d/pty\"\n",
    "    echo \"$buf\" > \"$d/buf\"\n",
    "    i=0; for a; do i=$((i + 1)); [ $i -gt \"$ne\" ] && printf '%s\\000' \"$a\"; done > \"$d/argv\"\n",
    "    echo $(($# - ne)) > \"$d/argc\"\n",
    "    rmdir $R/.lock\n",
    "    bs=65536 every=$((buf / 65536)); [ $every -ge 1 ] || every=1; [ $every -le 16 ] || every=16\n",
    "    seg=$((buf / 4)); [ $seg -ge 4096 ] || seg=4096\n",
    "    (\n",
    "        copy o e < \"$d/o.f\" &\n",
    "        copy e o < \"$d/e.f\" &\n",
    "        in=/dev/null\n",
    "        if [ \"$sin\" = 1 ]; then sleep 999999999 <> \"$d/i.f\" & echo $! > \"$d/i.h\"; in=$d/i.f; fi\n",
    "        (\n",
    "            while [ \"$ne\" -gt 0 ]; do export \"$1\"; shift; ne=$((ne - 1)); done\n",
    "            if [ \"$pty\" = - ]; then set -- $R/.pty plain \"$d\" \"$@\"\n",
    "            else set -- $R/.pty run \"$d\" ${pty%,*} ${pty#*,} $sin \"$@\"; fi\n",
    "            exec setsid \"$@\"\n",
    "        ) < \"$in\" > \"$d/o.f\" 2> \"$d/e.f\" &\n",
    "        hp=$!; pg=$hp; tp=\n",
    "        i=0; while [ ! -s \"$d/pg\" ] && [ $i -lt 1000 ] && kill -0 $hp 2>/dev/null; do\n",
    "            nap \"$d/nap\"; i=$((i + 1)); done\n",
    "        read pg < \"$d/pg\" 2>/dev/null || pg=$hp\n",
    "        if [ \"$tmo\" -gt 0 ]; then\n",
    "            ms=$((tmo % 1000 + 1000))\n",
    "            ( read -t $((tmo / 1000)).${ms#1} x <> \"$d/nap\"\n",
    "              : > \"$d/timedout\"; kill -KILL -$pg ) &\n",
    "            tp=$!\n",
    "        fi\n",
    "        wait $hp; c=$?\n",
    "        [ -z \"$tp\" ] || kill $tp 2>/dev/null\n",
    "        : > \"$d/i.closed\"; [ -e \"$d/i.h\" ] && read h < \"$d/i.h\" && kill $h 2>/dev/null\n",
    "        wait\n",
    "        t=0; [ -e \"$d/timedout\" ] && t=1\n",
    "        echo \"end $c $(date +%s) $t\" > \"$d/status\"\n",
    "    ) < /dev/null > /dev/null 2>&1 &\n",
    "    i=0; while [ ! -s \"$d/pg\" ] && [ ! -s \"$d/status\" ] && [ $i -lt 1000 ]; do\n",
    "        nap \"$d/nap\"; i=$((i + 1)); done\n",
    "    echo \"sbx-start ok\" ;;\n",
    "read)\n",
    "    exec 3>&2 2>/dev/null\n",
    "    co=$2 ce=$3 max=$4 w=$5 i=0 tk=x; read buf < \"$d/buf\"\n",
    "    while :; do\n",
    "        st=; [ -s \"$d/status\" ] && read st < \"$d/status\"\n",
    "        span o; Eo=$E Lo=$L so=$fs; span e; Ee=$E Le=$L se=$fs\n",
    "        [ \"$co\" -le $Eo ] && [ \"$ce\" -le $Ee ] || { echo \"sbx-read past $Eo $Ee\"; exit 0; }\n",
    "        [ -z \"$st\" ] && [ $Eo -eq \"$co\" ] && [ $Ee -eq \"$ce\" ] && [ $i -lt \"$w\" ] || break\n",
    "        while [ $i -lt \"$w\" ] && [ ! -s \"$d/status\" ]; do\n",
    "            nap \"$d/nap\"; i=$((i + 1)); a=; b=\n",
    "            read a < \"$d/o.t\" 2>/dev/null; read b < \"$d/e.t\" 2>/dev/null\n",
    "            [ \"$tk\" = x ] && tk=\"$a.$b\"\n",
    "            [ \"$tk\" = \"$a.$b\" ] || break\n",
    "        done\n",
    "        tk=x\n",
    "    done\n",
    "    ao=$co; [ $Lo -le $ao ] || ao=$Lo; bo=$Eo; [ $((bo - ao)) -le \"$max\" ] || bo=$((ao + max))\n",
    "    ae=$ce; [ $Le -le $ae ] || ae=$Le; be=$Ee; r=$((max - (bo - ao)))\n",
    "    [ $((be - ae)) -le $r ] || be=$((ae + r))\n",
    "    runs\n",
    "    echo \"sbx-read $ao $bo $ae $be $Eo $Ee ${st:-run}\"\n",
    "    echo \"sbx-runs$rs\"\n",
    "    emit o $ao $bo \"$so\"; emit e $ae $be \"$se\" >&3 ;;\n",
    "write)\n",
    "    [ -p \"$d/i.f\" ] && [ ! -e \"$d/i.closed\" ] || { drain \"$2\"; echo \"sbx-write closed\"; exit 0; }\n",
    "    [ \"$2\" = 1 ] && { cat 1<> \"$d/i.f\" || { echo \"sbx-write failed\"; exit 0; }; }\n",
    "    if [ \"$3\" = 1 ]; then : > \"$d/i.closed\"; read h < \"$d/i.h\" && kill $h; fi\n",
    "    echo \"sbx-write ok\" ;;\n",
    "resize)\n",
    "    [ -e \"$d/pty\" ] || { echo \"sbx-resize notty\"; exit 0; }\n",
    "    [ -s \"$d/status\" ] || $R/.pty resize \"$d\" $2 $3 2>/dev/null || [ -s \"$d/status\" ] ||\n",
    "        { echo \"sbx-resize failed\"; exit 0; }\n",
    "    echo \"sbx-resize ok\" ;;\n",
    "signal)\n",
    "    [ -s \"$d/status\" ] || { read pg < \"$d/pg\" && kill -$2 -$pg 2>/dev/null; }\n",
    "    echo \"sbx-signal ok\" ;;\n",
    "wait)\n",
    "    i=0; while [ $i -lt \"$2\" ] && [ ! -s \"$d/status\" ]; do nap \"$d/nap\"; i=$((i + 1)); done\n",
    "    info \"$d\" ;;\n",
    "list)\n",
    "    for p in $R/p*; do [ -e \"$p/argc\" ] && info \"$p\"; done; : ;;\n",
    "forget)\n",
    "    [ -s \"$d/status\" ] || { echo \"sbx-forget running\"; exit 0; }\n",
    "    rm -rf \"$d\"; echo \"sbx-forget ok\" ;;\n",
    "esac\n",
};

/* The lines joined: ISO C bounds a string literal to 4095 bytes, and the
 * script is longer. */
static char script_text[16384];
static pthread_once_t script_once = PTHREAD_ONCE_INIT;

static void join_script(void)
{
    size_t at = 0;
    for (size_t i = 0; i < sizeof script_lines / sizeof *script_lines; i++) {
        size_t n = strlen(script_lines[i]);
        memcpy(script_text + at, script_lines[i], n);
        at += n;
    }
    script_text[at] = '\0';
}

const char *docker_proc_script(void)
{
    pthread_once(&script_once, join_script);
    return script_text;
}
