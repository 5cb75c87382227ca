-- blockdev-sweep.lua — experiment 5: SCST's scripts/blockdev-perftest read test, as the seed
-- ran it (`blockdev-perftest -a -r DEV`, repeated under several read_ahead_kb and
-- max_sectors_kb settings). Its read test is a dd loop: for each block size B, from 64 MiB
-- down to 16 KiB, and each of its -i runs, `sync; echo 3 > /proc/sys/vm/drop_caches` then
-- `dd if=DEV of=/dev/null bs=B count=SIZE/B` (with -d: `iflag=direct`), timed by dd's own
-- "copied, T s". Here: the same loop over the set's one file, a phase per block size and run,
-- the page cache dropped before each (as root; otherwise said, as the original warns).
-- --size=SIZE is its -s (bytes read per run), --runs its -i, --sizes its block sizes, and
-- --direct=on its -d (dd iflag=direct; off, the default, is the seed's -a, buffered). Repeat
-- it under other queue settings with sbio run --queue read_ahead_kb=…
--
-- The table is blockdev-perftest's read half, column for column: block size in bytes, each
-- run's seconds (dd's T: here the phase's measured time), the average MB/s and its standard
-- deviation over the runs, and IOPS. As there, MB is 2^20 bytes (MiB), each run's MB/s is the
-- set's size over the run's seconds, the standard deviation is the population one (over n,
-- not n-1), and IOPS is the average MB/s over the block size in MiB. A run that was refused
-- prints "refused" in its seconds column and is left out of the figures. About 10 s by
-- default; --size=1G is the original's I/O size.
-- No fsync_end: blockdev-perftest only reads, and a read job has no end fsync.
option("size", "256M", "size of the set (one file): bytes read by each run")
option("runs", 3, "runs per block size (blockdev-perftest -i)")
option("sizes", "64M,16M,4M,1M,256K,64K,16K", "block sizes, largest first")
option("direct", false, "O_DIRECT reads (blockdev-perftest -d); off: buffered (-a)")

fileset { files = 1, size = options.size }

local total = sbio.size(options.size)
local flags = options.direct and "direct" or ""
for bs in options.sizes:gmatch("[^,]+") do
    local b = sbio.size(bs)
    for r = 1, options.runs do
        phase(bs .. " run " .. r) {
            drop_caches = true, time = 0, events = math.max(1, math.floor(total / b)),
            job "seqrd" { mode = "seqrd", block = bs, flags = flags, fsync_freq = 0 },
        }
    end
end

local MIB = 1024 * 1024

-- The runs of each block size in the order they ran: {bytes, secs} per run, or refused.
local function runs_by_size(result)
    local rows, order = {}, {}
    for _, p in ipairs(result.phases) do
        local bs = p.name:match("^(%S+)")
        if not rows[bs] then
            rows[bs] = {block = sbio.size(bs)}
            order[#order + 1] = bs
        end
        if p.refused then
            table.insert(rows[bs], {refused = true})
        else
            local r = p.jobs[1].result.result
            table.insert(rows[bs], {bytes = r.op_types.read.bytes, secs = r.elapsed_s})
        end
    end
    return rows, order
end

-- Average and population standard deviation of the runs' MiB/s, as blockdev-perftest's
-- awk computes them (sum of squares over n minus the squared mean).
local function mean_sd(row)
    local n, s, s2 = 0, 0, 0
    for _, x in ipairs(row) do
        if not x.refused and x.secs > 0 then
            local mb = x.bytes / MIB / x.secs
            n, s, s2 = n + 1, s + mb, s2 + mb * mb
        end
    end
    if n == 0 then return 0, 0 end
    local m = s / n
    local d = s2 / n - m * m
    return m, d > 0 and math.sqrt(d) or 0
end

function report(result)
    local rows, order = runs_by_size(result)
    local n = options.runs
    print(options.direct and "O_DIRECT reads (blockdev-perftest -d)" or
          "buffered reads (blockdev-perftest -a)")
    local h1, h2 = string.format("%9s ", "blocksize"), string.format("%9s ", "(bytes)")
    for _ = 1, n do
        h1, h2 = h1 .. string.format("%8s ", "R"), h2 .. string.format("%8s ", "(s)")
    end
    print(h1 .. string.format("%8s %8s %8s", "R(avg,", "R(std,", "R"))
    print(h2 .. string.format("%8s %8s %8s", "MiB/s)", "MiB/s)", "(IOPS)"))
    for _, bs in ipairs(order) do
        local row = rows[bs]
        local line = string.format("%9d ", row.block)
        for _, x in ipairs(row) do
            line = line .. (x.refused and string.format("%8s ", "refused") or
                            string.format("%8.3f ", x.secs))
        end
        local m, sd = mean_sd(row)
        print(line .. string.format("%8.3f %8.3f %8.3f", m, sd, m / (row.block / MIB)))
    end
end
