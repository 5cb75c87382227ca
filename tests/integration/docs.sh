#!/bin/bash
# The documentation stays true: every option `sbio help` lists as available is in the man
# page, every command in the README, in doc/options.md's table of commands and in the man page,
# every link of the README and doc/*.md leads to a file and heading that exist, and make
# install puts them in place.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MAN=$ROOT/doc/sbio.1
"$SBIO" help | sed "/^Accepted and ignored/,\$d" >"$TMP/help"
for opt in $(grep -E '^  --' "$TMP/help" | grep -v 'not implemented yet' | sed -E 's/^  (--[a-z0-9-]+).*/\1/'); do
	esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
	if grep -q -- "$esc" "$MAN"; then ok "man page documents $opt"; else notok "man page lacks $opt"; fi
done
for cmd in prepare run cleanup compare survey diff plot restore help version; do
	check "man page documents the $cmd command" grep -q "^\.B $cmd\|^\.B plot" "$MAN"
	check "README names the $cmd command" grep -q "\`$cmd" "$ROOT/README.md"
	check "doc/options.md's table of commands has $cmd" grep -q "^| \`$cmd[\` ]" "$ROOT/doc/options.md"
done
# A link's anchor is a heading's GitHub name: lower case, punctuation dropped, spaces as -
# (a line in a code block that starts with # is no heading).
anchors() {
	awk '/^ *```/ { code = !code; next } !code && /^#+ /' "$1" | sed -E 's/^#+ //' |
		tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}
for md in "$ROOT"/README.md "$ROOT"/doc/*.md; do
	name=${md#"$ROOT"/}
	for link in $(grep -oE '\]\([^)[:space:]]+\)' "$md" | sed -E 's/^\]\((.*)\)$/\1/' | sort -u); do
		case $link in http://* | https://* | mailto:*) continue ;; esac
		file=${link%%#*}
		target=$md
		[ -n "$file" ] && target=$(dirname "$md")/$file
		if [ ! -e "$target" ]; then
			notok "$name links to $link, which does not exist"
		elif [ "$file" != "$link" ] && ! anchors "$target" | grep -qxF -- "${link#*#}"; then
			notok "$name links to $link, a heading ${target#"$ROOT"/} does not have"
		else
			ok "$name's link to $link leads somewhere"
		fi
	done
done
if command -v groff >/dev/null; then
	check "man page renders without warnings" bash -c "groff -man -Tutf8 -ww '$MAN' 2>&1 >/dev/null | grep -q . && exit 1 || exit 0"
fi
# A make of its own (under make test-asan the parent's variables name another binary).
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$ROOT" install DESTDIR="$TMP/inst" PREFIX=/usr >/dev/null 2>&1
check "make install puts the binary under DESTDIR/PREFIX" test -x "$TMP/inst/usr/bin/sbio"
check "make install puts the man page under DESTDIR/PREFIX" test -f "$TMP/inst/usr/share/man/man1/sbio.1"
# The installed man page names the documents where make install put them.
refs=$(grep -o '[^ ]*[a-z]\.md' "$TMP/inst/usr/share/man/man1/sbio.1" | sort -u)
check "the installed man page names documents (doc/*.md)" test -n "$refs"
for f in $refs; do
	check "the installed man page's $f is installed" test -f "$TMP/inst$f"
done
for f in "$ROOT"/doc/*.md; do
	check "make install installs doc/${f##*/}" test -f "$TMP/inst/usr/share/doc/sbio/${f##*/}"
done
# doc/experiments.md holds what bench/experiments.sh wrote between its markers: a table per
# experiment (its heading, the table's header, at least one row).
EXPDOC=$ROOT/doc/experiments.md
check "doc/experiments.md exists" test -f "$EXPDOC"
for n in 1 2 3 4 5; do
	check "doc/experiments.md has experiment $n's table" awk -v n="$n" '
		/^<!-- experiments: begin -->$/ { on = 1 }
		/^<!-- experiments: end -->$/ { on = 0 }
		on && /^#/ { cur = index($0, "#### Experiment " n ":") == 1 }
		on && cur && /^\| cell \| original \| sbio \| sbio\/original \|/ { head = 1; next }
		on && cur && head && /^\| [^-]/ { rows++ }
		END { exit !rows }' "$EXPDOC"
done
