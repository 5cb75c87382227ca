-- sysbench-rndrw.lua — experiment 1: the post's
--   sysbench --test=fileio --num-threads=16 --file-total-size=2G --file-test-mode=rndrw run
-- under sysbench 0.4, whose default --max-requests=10000 (no time limit) made it a fixed
-- amount of work: 10000 random 16 KiB requests (reads and writes at 1.5 reads per write) over
-- 128 files, every file fsynced after every 100 requests and once at the end. The poster read
-- "Time spent for test" (0.4.12 prints it as "total time") and the CPU figures of the shell's
-- `time` around the run ("0.04s user 5.24s system 1% cpu 4:51.62 total").
--
-- The post ran buffered (0.4's default) on a machine of 256 MB of RAM, whose page cache could
-- hold little of the 2 GiB set. By default every read and write here is O_DIRECT (sysbench's
-- --file-extra-flags=direct): each request reaches the device whatever the RAM. --direct=off
-- runs buffered, as the post did; with sbio's --memory-limit=256M the run is in a memory
-- control group of that machine's RAM, which bounds the page cache it can fill (root and a
-- kernel memory controller needed; doc/compare.md). Buffered, the set's pages are dropped
-- before the run (the job's invalidate), so the run starts with none of the set cached and
-- what it caches is charged to its group. Buffered without --memory-limit, the page cache is
-- this machine's, and a set smaller than it is read from memory after the first touch.
-- Under sysbench 1.0 the same command line runs 10 s instead (--time=10), and its --events
-- counts fsyncs too; here --events counts requests, reads + writes, as 0.4's --max-requests
-- did (sbio runs the 0.4 command line itself with --max-requests=10000 counted the same way,
-- but each thread makes its own fsync rounds; doc/sysbench.md):
--   sbio prepare --script sysbench-rndrw --dir=D
--   sbio run     --script sysbench-rndrw --dir=D            # 2 GiB, 10000 requests, O_DIRECT
--   sbio run     --script sysbench-rndrw --dir=D --direct=off --memory-limit=256M  # the post's
--   sbio compare --script sysbench-rndrw --dir=D --schedulers=none,mq-deadline,bfq --repeat=3 \
--        --metrics=time,reads,writes,fsyncs
-- The default is the post's scale (2 GiB, 10000 requests); --events=N makes N requests, and
-- the time grows with them; --size changes the set. Measured on ext4 on this machine's virtio
-- disk (2 CPUs, shared with other work: the spread is the machine's), 3 runs each: the
-- default 1.06-1.74 s total time, --size=256M 0.64-1.43 s, --events=40000 4.06-6.03 s.
--
-- How the requests are made (event(), below), against sysbench 0.4:
--   thread t of T does requests floor(N(t+1)/T) - floor(Nt/T) of the N: a read when
--   (reads + 1) / (writes + 1) < 1.5, else a write, at a uniformly drawn 16 KiB block of the
--   set; 0.4 drew them from one shared counter, the mix is the same.
--   0.4 fsynced all 128 files after every 100 requests of the whole test (rounds k = 1 ..
--   floor((N-1)/100)) and each file once at the end; here round k is thread (k-1) mod T's,
--   made when its own count reaches 100k/T, and the end round is shared (thread t fsyncs the
--   files f with f mod T = t): the same 12800 fsyncs for N = 10000 (the post's "12800 Other").
--   sbio counts these fsyncs as events and periodic fsyncs in its own report; report() below
--   counts as 0.4 did.
--
-- Output: after sbio's report, report() prints how the files were opened (O_DIRECT, or
-- buffered and the memory group's limit as the kernel holds it, result.memory_group), then
-- sysbench 0.4's lines from the result:
--   Operations performed: R Read, W Write, O Other   reads, writes, fsyncs (op_types.*.ops)
--   Read / Written / Total transferred (Mb/sec)      bytes / 2^20 (0.4's Mb), over total time
--   Requests/sec executed                            (reads + writes) / total time
--   total time                                       the phase's elapsed_s: first request to
--                                                    the last end fsync ("Time spent for test")
--   total number of events                           reads + writes (= --events)
--   total time taken by event execution              the sum of the reads' and writes' latency
--   per-request statistics                           min, avg, max, 95th percentile of the reads
--                                                    and writes (their histograms merged)
-- and the CPU line in the post's format, over the measured phase rather than the process:
--   Us user Ss system P% cpu M:SS.ss total   user_s, system_s, (user + system) / elapsed_s
--                                            in whole % of one CPU (rounded down), elapsed_s
option("size", "2G", "size of the set (sysbench's --file-total-size)")
option("events", 10000, "requests, reads + writes (sysbench 0.4's --max-requests)")
option("threads", 16, "worker threads (sysbench's --num-threads)")
option("direct", true, "O_DIRECT reads and writes; off: buffered, as the post (with --memory-limit=256M)")

local FILES, BLOCK, FREQ, RATIO = 128, 16384, 100, 1.5
local N, T = options.events, options.threads
if N < 1 or N ~= math.floor(N) then
    error("--events=" .. N .. ": the number of requests, a whole number >= 1")
end

fileset { files = FILES, size = options.size }

phase "rndrw" {
    time = 0,
    -- Buffered, the set's pages are dropped first: what prepare left in the page cache is
    -- outside the memory group and would not count against its limit.
    job "sysbench" { threads = T, block = "16k", flags = options.direct and "direct" or "",
                     invalidate = not options.direct, event = true },
}

-- Each thread's Lua state has its own copy of these.
local quota, done, reads, writes
local round_next, rounds, fsync_file, fsync_last, ending

local function start(t)
    quota = math.floor(N * (t + 1) / T) - math.floor(N * t / T)
    done, reads, writes = 0, 0, 0
    round_next, rounds = t + 1, math.floor((N - 1) / FREQ)
    fsync_file, ending = nil, false
end

-- Start fsyncing files first, first + step, … up to the last file.
local function sweep(first, step)
    fsync_file, fsync_last = first, step
end

function event(ctx)
    if not quota then start(ctx.thread) end
    if fsync_file then
        ctx.op, ctx.file, ctx.offset, ctx.len = sbio.FSYNC, fsync_file, 0, 0
        fsync_file = fsync_file + fsync_last
        if fsync_file >= FILES then fsync_file = nil end
        return true
    end
    -- The thread's periodic round k is due once its count reaches 100k/T (at its end at the
    -- latest); then its end round.
    if round_next <= rounds and (done >= math.floor(FREQ * round_next / T) or done >= quota) then
        round_next = round_next + T
        sweep(0, 1)
        return event(ctx)
    end
    if done >= quota then
        if ending or ctx.thread >= FILES then return false end
        ending = true
        sweep(ctx.thread, T)
        return event(ctx)
    end
    local per = math.floor(sbio.files[1] / BLOCK)
    local blk = sbio.rand(per * FILES)
    if (reads + 1) / (writes + 1) < RATIO then
        ctx.op, reads = sbio.READ, reads + 1
    else
        ctx.op, writes = sbio.WRITE, writes + 1
    end
    ctx.file, ctx.offset, ctx.len = math.floor(blk / per), (blk % per) * BLOCK, BLOCK
    done = done + 1
    return true
end

-- The reads' and writes' latency histograms merged: count, sum, min, max and the 95th
-- percentile (nearest rank, at the bucket's middle, as sbio reports its own).
local function requests_latency(r)
    local rd, wr = r.op_types.read.latency, r.op_types.write.latency
    local buckets = {}
    for _, l in ipairs({ rd, wr }) do
        for _, b in ipairs(l.histogram or {}) do buckets[#buckets + 1] = b end
    end
    table.sort(buckets, function(a, b) return a[1] < b[1] end)
    local n = rd.count + wr.count
    local rank, seen, p95 = math.ceil(0.95 * n), 0, 0
    for _, b in ipairs(buckets) do
        seen = seen + b[3]
        if seen >= rank then p95 = (b[1] + b[2]) / 2; break end
    end
    local min = math.min(rd.count > 0 and rd.min_ns or math.huge, wr.count > 0 and wr.min_ns or math.huge)
    return { n = n, sum = rd.sum_ns + wr.sum_ns, max = math.max(rd.max_ns, wr.max_ns),
             min = n > 0 and min or 0, p95 = p95 }
end


function report(result)
    local p = result.phases[1]
    if p.refused then print("rndrw: refused"); return end
    local r = p.jobs[1].result.result
    local o = r.op_types
    local mg = r.memory_group
    if options.direct then
        print("File I/O: O_DIRECT")
    elseif mg then
        print(string.format("File I/O: buffered, memory group limit %d MiB", math.floor(mg.limit_bytes / 1048576)))
    else
        print("File I/O: buffered, no memory limit (the page cache is this machine's)")
    end
    local t = r.elapsed_s
    local rq = o.read.ops + o.write.ops
    local mb = 1048576
    print(string.format("Operations performed:  %d Read, %d Write, %d Other = %d Total",
                        o.read.ops, o.write.ops, o.fsync.ops, rq + o.fsync.ops))
    print(string.format("Read %.5gMb  Written %.5gMb  Total transferred %.5gMb  (%.5gMb/sec)",
                        o.read.bytes / mb, o.write.bytes / mb, (o.read.bytes + o.write.bytes) / mb,
                        t > 0 and (o.read.bytes + o.write.bytes) / mb / t or 0))
    print(string.format("%10.2f Requests/sec executed\n", t > 0 and rq / t or 0))
    local l = requests_latency(r)
    print("Test execution summary:")
    print(string.format("    %-37s%.4fs", "total time:", t))
    print(string.format("    %-37s%d", "total number of events:", rq))
    print(string.format("    %-37s%.4f", "total time taken by event execution:", l.sum / 1e9))
    print("    per-request statistics:")
    print(string.format("         %-32s%10.2fms", "min:", l.min / 1e6))
    print(string.format("         %-32s%10.2fms", "avg:", (l.n > 0 and l.sum / l.n or 0) / 1e6))
    print(string.format("         %-32s%10.2fms", "max:", l.max / 1e6))
    print(string.format("         %-32s%10.2fms\n", "approx.  95 percentile:", l.p95 / 1e6))
    local c = r.cpu
    print(string.format("%.2fs user %.2fs system %d%% cpu %d:%05.2f total",
                        c.user_s, c.system_s, t > 0 and math.floor(100 * (c.user_s + c.system_s) / t) or 0,
                        math.floor(t / 60), t % 60))
end
