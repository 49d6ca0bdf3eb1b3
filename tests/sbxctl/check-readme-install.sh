#!/bin/sh
# The README's first command must install the dependencies on a fresh
# machine: in a root shell, which has no sudo, .ci/install-deps runs
# directly; as any other user it runs through sudo.  The install step (the
# command up to the "&&" after its last mention of .ci/install-deps) runs
# here with stand-ins for id, sudo and the installer on a PATH of their own.
srcdir=${SBX_TEST_SRCDIR:-.}
readme="$srcdir/README.md"
status=0

fail() {
    echo "FAIL: $*"
    status=1
}

command=$(grep -m 1 '^    [^ ]' "$readme" | sed 's/^    //')
[ -n "$command" ] || { echo "FAIL: no command block in $readme"; exit 1; }
case $command in
    sudo\ *) fail "the first command starts with sudo: $command" ;;
esac
case $command in
    *.ci/install-deps*) ;;
    *) echo "FAIL: the first command does not run .ci/install-deps: $command"; exit 1 ;;
esac
# Cut after the last .ci/install-deps, at the first "&&" that follows it.
head=${command%.ci/install-deps*}
tail=${command#"$head"}
rest=${tail#*&&}
install_step=${command%"&&$rest"}
[ "$install_step" != "$command" ] || install_step=$command

work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-readme-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/.ci" "$work/bin"
log="$work/log"
cat > "$work/.ci/install-deps" <<STUB
#!/bin/sh
echo "install-deps as \$(id -u)" >> "$log"
STUB
cat > "$work/sudo" <<STUB
#!/bin/sh
echo sudo >> "$log"
SBX_FAKE_UID=0 exec "\$@"
STUB
cat > "$work/bin/id" <<'STUB'
#!/bin/sh
echo "$SBX_FAKE_UID"
STUB
chmod +x "$work/.ci/install-deps" "$work/sudo" "$work/bin/id"

# run UID WITH_SUDO: the install step as user UID, sudo on PATH or not.
run() {
    : > "$log"
    path="$work/bin"
    if [ "$2" = yes ]; then
        mkdir -p "$work/sudo-bin" && cp "$work/sudo" "$work/sudo-bin/sudo"
        path="$path:$work/sudo-bin"
    fi
    (cd "$work" && SBX_FAKE_UID=$1 PATH=$path /bin/sh -c "$install_step") 2>> "$log"
}

run 0 no
if [ "$(cat "$log")" = "install-deps as 0" ]; then
    echo "ok: as root without sudo, .ci/install-deps runs directly"
else
    fail "as root without sudo: $(tr '\n' ' ' < "$log")"
fi
run 1000 yes
if [ "$(tr '\n' ' ' < "$log")" = "sudo install-deps as 0 " ]; then
    echo "ok: as another user, .ci/install-deps runs through sudo"
else
    fail "as user 1000 with sudo: $(tr '\n' ' ' < "$log")"
fi
exit $status
