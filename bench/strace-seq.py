#!/usr/bin/env python3
# bench/strace-seq.py TRACE PATTERN: from `strace -f -qq -o TRACE CMD`, per process or thread
# the system calls on the files whose path contains PATTERN, in order, a run of one call
# collapsed ("pwrite64 x32"), then the totals per call (doc/experiments.md, experiment 2).
import re, sys, collections
pat = sys.argv[2]
fds, seqs, tot = {}, collections.OrderedDict(), collections.Counter()
unf = {}
def emit(tid, c):
    s = seqs.setdefault(tid, [])
    if s and s[-1][0] == c: s[-1][1] += 1
    else: s.append([c, 1])
    tot[c.split()[0]] += 1
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) +(.*)", line.rstrip())
    if not m: continue
    tid, rest = m.groups()
    if rest.endswith("<unfinished ...>"): unf[tid] = rest[:-len("<unfinished ...>")]; continue
    r = re.match(r"<\.\.\. \w+ resumed>(.*)", rest)
    if r: rest = unf.pop(tid, "") + r.group(1)
    c = re.match(r"(\w+)\((.*)\) += (-?\d+)", rest)
    if not c: continue
    name, args, ret = c.groups()
    if name in ("openat", "open", "creat", "dup", "dup2", "socket", "pipe2", "eventfd2", "memfd_create"):
        if pat not in args or name not in ("openat", "open", "creat"):
            fds.pop((tid, ret), None); continue
        if int(ret) >= 0: fds[(tid, ret)] = 1
        flags = re.search(r"(O_[A-Z_|]+)", args)
        emit(tid, "open " + (flags.group(1) if flags else "")); continue
    if name in ("unlink", "unlinkat", "newfstatat", "truncate") and pat in args:
        emit(tid, name); continue
    a0 = args.split(",")[0]
    if (tid, a0) in fds:
        emit(tid, name)
        if name == "close": fds.pop((tid, a0), None)
for tid, s in seqs.items():
    print(tid + ": " + ", ".join("%s x%d" % (c, n) if n > 1 else c for c, n in s))
print("totals: " + ", ".join("%s %d" % kv for kv in sorted(tot.items())))
