#!/bin/bash
# make check-layers: the layers of src/ kept. Every `#include "NAME"` of src/**/*.[ch] is read
# and NAME mapped to the file it names (beside the includer, else by name anywhere in src/),
# and so to that file's folder: its layer. A file may include headers of its own layer and of
# the layers below it; an include of a higher layer fails, one line each:
#   FILE:LINE: includes NAME (layer L) from layer K
# A module is a file name without .c or .h (x.c and x.h are one module, in one folder); a
# module that includes, through others, a header of its own fails, one line per cycle:
#   cycle: a -> b -> a
# Headers that are not in src/ (system headers, the build's sbio_lua.h) are not read. Header
# names are unique across src/ (the Makefile puts every layer's folder on the quote path).
# Exit status 0 when the tree keeps the layers, 1 otherwise.
#   scripts/check-layers.sh            the check
#   scripts/check-layers.sh --stats    and the layers' modules, the graph's size and depth
set -u
cd "$(dirname "$0")/.." || exit 2

# The layers, lowest first: folders of src/ ("." is src/ itself, where main.c is).
#   base      the vocabulary, the declarations' plain data, pure computation (no system)
#   sys       the machine: block devices, control groups, I/O priorities, the page cache
#   fs        file sets and trees on disk: their manifests, fill, prepare and cleanup
#   probes    what a run measures beside its I/O
#   core      one job run: engines' interface, workloads, worker threads, the runner, results
#   engines   the I/O engines
#   report    a run's result as text, JSON and CSV
#   control   a command line or a script run as phases of jobs, across MPI ranks
#   analysis  what reads results: compare, diff, tables and charts
LAYERS="base sys fs probes core engines report control analysis ."

stats=0
if [ "${1:-}" = --stats ]; then
	stats=1
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--stats]" >&2
	exit 2
fi

mapfile -t files < <(find src -type f -name '*.[ch]' | LC_ALL=C sort)
[ "${#files[@]}" -gt 0 ] || {
	echo "check-layers: no sources under src/" >&2
	exit 2
}

# shellcheck disable=SC2016
exec awk -v layers="$LAYERS" -v stats="$stats" '
function dirof(p) { return p ~ /\// ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "." }
function baseof(p) { sub(/.*\//, "", p); return p }
function stemof(p) { p = baseof(p); sub(/\.[ch]$/, "", p); return p }
# src/x.c: "."; src/core/x.c and anything deeper in src/core/: "core".
function layerof(p) { sub(/^src\//, "", p); return p ~ /\// ? substr(p, 1, index(p, "/") - 1) : "." }
function layername(l) { return l == "." ? "src" : l }
# a/b/../c: a/c
function normal(p,    n, i, k, part, out) {
	n = split(p, part, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (part[i] == "." || part[i] == "")
			continue
		if (part[i] == ".." && k > 0 && out[k] != "..")
			k--
		else
			out[++k] = part[i]
	}
	p = ""
	for (i = 1; i <= k; i++)
		p = p (i > 1 ? "/" : "") out[i]
	return p
}
function fail(msg) { print msg; failures++ }
BEGIN {
	nl = split(layers, L, " ")
	for (i = 1; i <= nl; i++)
		rank[L[i]] = i
	for (i = 1; i < ARGC; i++) {
		f = ARGV[i]
		isfile[f] = 1
		b = baseof(f)
		if (b in byname)
			fail(f ": the name " b " is also " byname[b] "\x27s: header names are unique in src/")
		else
			byname[b] = f
		l = layerof(f)
		if (!(l in rank))
			fail(f ": src/" l " is not a layer (" layers ", in scripts/check-layers.sh)")
		m = stemof(f)
		if (!(m in modlayer)) {
			modlayer[m] = l
			mods[++nm] = m
		} else if (modlayer[m] != l) {
			fail(f ": module " m " is also in layer " layername(modlayer[m]) ": x.c and x.h share a folder")
		}
	}
}
match($0, /^[ \t]*#[ \t]*include[ \t]*"[^"]+"/) {
	name = substr($0, RSTART, RLENGTH)
	sub(/^[^"]*"/, "", name)
	sub(/"$/, "", name)
	t = normal(dirof(FILENAME) "/" name)
	if (!(t in isfile))
		t = name !~ /\// && (name in byname) ? byname[name] : ""
	if (t == "")
		next # not a source of src/: a system or generated header
	from = layerof(FILENAME)
	to = layerof(t)
	if ((from in rank) && (to in rank) && rank[to] > rank[from])
		fail(FILENAME ":" FNR ": includes " name " (layer " layername(to) ") from layer " layername(from))
	a = stemof(FILENAME)
	b = stemof(t)
	if (a != b && !((a, b) in adj)) {
		adj[a, b] = 1
		reach[a, b] = 1
		arrows++
	}
}
# The shortest cycle through the arrow a -> b (b reaches a), over arrows within one layer
# only when same is set; named once, begun at its first module in path order.
function cycle_through(a, b, same,    qh, qt, u, v, k, n, lo, path) {
	split("", prev)
	split("", queue)
	qh = 1
	qt = 0
	queue[++qt] = b
	prev[b] = a
	while (qh <= qt && !(a in prev)) {
		u = queue[qh++]
		for (k = 1; k <= nm && !(a in prev); k++) {
			v = mods[k]
			if (!((u, v) in adj) || (v in prev))
				continue
			if (same ? (v == a || (v, a) in reach_in) : (v == a || (v, a) in reach)) {
				prev[v] = u
				queue[++qt] = v
			}
		}
	}
	n = 0
	for (v = a; n == 0 || v != a; v = prev[v])
		cyc[++n] = v
	# cyc[n..1] is the cycle a -> b -> ... in order.
	lo = 1
	for (k = 2; k <= n; k++)
		if (idx[cyc[k]] < idx[cyc[lo]])
			lo = k
	path = ""
	for (k = 0; k < n; k++)
		path = path cyc[(lo - k - 1 + n) % n + 1] " -> "
	path = path cyc[lo]
	if (!(path in seen)) {
		seen[path] = 1
		fail("cycle: " path)
	}
}
END {
	# Which modules reach which, through any arrows (reach) and through arrows within one
	# layer (reach_in). nm is some sixty: the cubes are cheap.
	for (k = 1; k <= nm; k++)
		for (i = 1; i <= nm; i++) {
			a = mods[i]
			if ((a, mods[k]) in reach)
				for (j = 1; j <= nm; j++)
					if ((mods[k], mods[j]) in reach)
						reach[a, mods[j]] = 1
		}
	for (i = 1; i <= nm; i++)
		for (j = 1; j <= nm; j++)
			if ((mods[i], mods[j]) in adj && modlayer[mods[i]] == modlayer[mods[j]])
				reach_in[mods[i], mods[j]] = 1
	for (k = 1; k <= nm; k++)
		for (i = 1; i <= nm; i++) {
			a = mods[i]
			if ((a, mods[k]) in reach_in)
				for (j = 1; j <= nm; j++)
					if ((mods[k], mods[j]) in reach_in)
						reach_in[a, mods[j]] = 1
		}
	for (i = 1; i <= nm; i++)
		idx[mods[i]] = i
	# A cycle within a layer: the shortest through each of its arrows. A cycle across layers
	# climbs by an include of a higher layer, named above: the shortest through each such
	# include (not through every arrow of it, which one include upward can make dozens of).
	for (i = 1; i <= nm; i++)
		for (j = 1; j <= nm; j++) {
			a = mods[i]
			b = mods[j]
			if (!((a, b) in adj) || !((b, a) in reach))
				continue
			if (modlayer[a] == modlayer[b]) {
				if ((b, a) in reach_in)
					cycle_through(a, b, 1)
			} else if (rank[modlayer[b]] > rank[modlayer[a]]) {
				cycle_through(a, b, 0)
			}
		}
	if (stats) {
		# A module on level 1 includes nothing of src/; else one above the highest it
		# includes (the modules of a cycle share one level).
		for (i = 1; i <= nm; i++)
			lev[mods[i]] = 1
		do {
			changed = 0
			for (i = 1; i <= nm; i++)
				for (j = 1; j <= nm; j++) {
					a = mods[i]
					b = mods[j]
					if (!((a, b) in adj))
						continue
					want = lev[b] + (((b, a) in reach) ? 0 : 1)
					if (want > lev[a]) {
						lev[a] = want
						changed = 1
					}
				}
		} while (changed)
		levels = 0
		for (i = 1; i <= nm; i++)
			if (lev[mods[i]] > levels)
				levels = lev[mods[i]]
		for (k = 1; k <= nl; k++) {
			line = ""
			for (i = 1; i <= nm; i++)
				if (modlayer[mods[i]] == L[k])
					line = line " " mods[i]
			if (line != "")
				printf "# %s:%s\n", layername(L[k]), line
		}
		printf "# %d modules, %d arrows between them, %d levels\n", nm, arrows, levels
	}
	if (failures) {
		fflush()
		printf "check-layers: %d violation%s (layers, lowest first: %s)\n", failures,
			failures == 1 ? "" : "s", layers > "/dev/stderr"
		exit 1
	}
}' "${files[@]}"
