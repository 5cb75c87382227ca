#!/bin/bash
# A file set in a folder others can write: a sbio.manifest another user planted, or files of
# another user's that a manifest names, never make sbio write, extend or remove anything. In a
# sticky world-writable folder (as /tmp) owned by nobody, with fs.protected_regular=0 (so that
# the kernel does not refuse root's O_CREAT on another user's file itself), root's sbio
# refuses with one line naming the owner, exit 2, and every file stays as it was (checksum,
# size, mtime). Planted links are never followed.
source "$(dirname "$0")/lib.sh"
if ! need_root; then
	skip "needs root (files of several users)"
	exit 0
fi
PR=/proc/sys/fs/protected_regular
OLD_PR=$(cat "$PR" 2>/dev/null)
restore_pr() {
	[ -z "$OLD_PR" ] || echo "$OLD_PR" >"$PR"
	t_cleanup
}
trap restore_pr EXIT
[ -z "$OLD_PR" ] || echo 0 >"$PR"

chmod 0755 "$TMP" # nobody goes through it to its folders
W=$TMP/shared
mkdir -m 1777 "$W"
chown nobody:nogroup "$W"
# Root's files in the shared folder, and what they are now.
echo "root's configuration" >"$W/app.conf"
head -c 65536 /dev/urandom >"$W/victim.db"
chmod 0644 "$W/app.conf" "$W/victim.db"
touch -d '2020-01-01 00:00:00' "$W/app.conf" "$W/victim.db"
state() { (cd "$W" && stat -c '%n %s %Y %U' app.conf victim.db && sha256sum app.conf victim.db); }
BEFORE=$(state)

# plant: a manifest of a complete 2-file set naming app.conf and victim.db, written by
# nobody (and owned by nobody).
plant() {
	rm -f "$W/sbio.manifest"
	setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c "cat >'$W/sbio.manifest'" <<EOF
format=1
state=complete
file_num=2
total_size=$((2 * 65536))
block_size=16384
fill=random
prealloc=write
seed=1
verify=0
file.0=app.conf 65536
file.1=victim.db 65536
EOF
}
# The sizes a run checks: make app.conf as long as the manifest says, so that only the
# ownership check stands between the manifest and the files.
truncate -s 65536 "$W/app.conf"
touch -d '2020-01-01 00:00:00' "$W/app.conf"
BEFORE=$(state)

plant
for c in "cleanup" "run --file-test-mode=rndwr --events=100" "run --file-test-mode=seqwr --events=100" \
	"prepare --file-num=2 --file-total-size=128K" "run --file-test-mode=rndrd --events=10"; do
	expect_exit 2 "a manifest nobody planted: $c refused" "$SBIO" $c --dir="$W"
	stderr_one_line "$c: one line"
	check "$c: the line names the manifest's owner" grep -q "sbio.manifest belongs to nobody" "$TMP/err"
	eq "$c: root's files untouched" "$(state)" "$BEFORE"
done
check "the planted manifest stays (nothing removed)" test -f "$W/sbio.manifest"

# A manifest of root's own naming a file another user owns: not trusted either.
rm -f "$W/sbio.manifest"
setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c "head -c 65536 /dev/zero >'$W/test_file.0'"
NB=$(sha256sum <"$W/test_file.0")
cat >"$W/sbio.manifest" <<EOF
format=1
state=complete
file_num=1
total_size=65536
block_size=16384
fill=random
prealloc=write
seed=1
verify=0
file.0=test_file.0 65536
EOF
for c in "cleanup" "run --file-test-mode=rndwr --events=100" "prepare --file-num=1 --file-total-size=64K"; do
	expect_exit 2 "root's manifest naming nobody's file: $c refused" "$SBIO" $c --dir="$W"
	check "$c: the line names the file and its owner" grep -q "test_file.0 belongs to nobody" "$TMP/err"
	eq "$c: nobody's file untouched" "$(sha256sum <"$W/test_file.0")" "$NB"
done

# nobody's own set in the shared folder works for nobody (its manifest and files are its own),
# and root's sbio refuses it without touching it.
rm -f "$W/sbio.manifest" "$W/test_file.0"
N=$W/nb
mkdir -m 0755 "$N"
chown nobody:nogroup "$N"
expect_exit 0 "nobody prepares a set of its own" as_nobody prepare --dir="$N" --file-num=2 --file-total-size=128K
expect_exit 0 "nobody runs rndwr on it" as_nobody run --dir="$N" --file-test-mode=rndwr --events=100
# A file of nobody's set it cannot write: rndwr says which and what to do, before starting.
chmod 0444 "$N/test_file.1"
RO=$(sha256sum <"$N/test_file.1")
expect_exit 2 "nobody's rndwr on a read-only file of its set: refused" as_nobody run --dir="$N" \
	--file-test-mode=rndwr --events=100
stderr_one_line "the read-only file: one line"
check "its line names the file, its mode and what to do" \
	grep -q "test_file.1 is not writable by you (mode 0444, owner nobody (uid [0-9]*)), and --file-test-mode=rndwr writes to the set: give its files write permission (chmod u+w" "$TMP/err"
eq "the read-only file untouched" "$(sha256sum <"$N/test_file.1")" "$RO"
expect_exit 0 "nobody's rndrd on it still runs" as_nobody run --dir="$N" --file-test-mode=rndrd --events=100
chmod 0644 "$N/test_file.1"
SUMS=$(cd "$N" && sha256sum sbio.manifest test_file.*)
expect_exit 2 "root's cleanup refuses nobody's set" "$SBIO" cleanup --dir="$N"
eq "nobody's set untouched" "$(cd "$N" && sha256sum sbio.manifest test_file.*)" "$SUMS"
expect_exit 0 "nobody cleans its own set up" as_nobody cleanup --dir="$N"

# Links planted where the set's files go are never followed, by prepare or by a seqwr run
# that makes its own set.
ln -s "$W/victim.db" "$W/test_file.0"
expect_exit 2 "prepare with a planted link as test_file.0: refused" "$SBIO" prepare --dir="$W" \
	--file-num=2 --file-total-size=128K
check "its line names the link" grep -q "test_file.0 is a symbolic link" "$TMP/err"
expect_exit 2 "seqwr with a planted link: refused" "$SBIO" run --dir="$W" --file-test-mode=seqwr \
	--file-num=2 --file-total-size=128K --events=10
ln -s /etc/passwd "$W/sbio.manifest"
expect_exit 2 "a manifest that is a link is never read through" "$SBIO" cleanup --dir="$W"
check "its line says it is a link" grep -q "sbio.manifest: open: Too many levels of symbolic links" "$TMP/err"
rm -f "$W/sbio.manifest" "$W/test_file.0"

# A temporary manifest planted by nobody (a file of its own, then a link to root's file) is
# never written through: prepare makes its own, and the manifest it leaves is root's.
for kind in file link; do
	if [ $kind = file ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c "echo planted >'$W/sbio.manifest.tmp'"
	else
		ln -s "$W/victim.db" "$W/sbio.manifest.tmp"
	fi
	expect_exit 0 "a planted sbio.manifest.tmp ($kind): prepare works" "$SBIO" prepare --dir="$W" \
		--file-num=2 --file-total-size=128K
	eq "planted sbio.manifest.tmp ($kind): the manifest is root's" "$(stat -c %U "$W/sbio.manifest")" root
	check "planted sbio.manifest.tmp ($kind): none left" test ! -e "$W/sbio.manifest.tmp"
	expect_exit 0 "planted sbio.manifest.tmp ($kind): cleanup" "$SBIO" cleanup --dir="$W"
done
eq "root's files untouched after everything" "$(state)" "$BEFORE"
