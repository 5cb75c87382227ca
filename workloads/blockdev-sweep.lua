-- blockdev-sweep.lua — experiment 5 (blockdev-perftest): sequential reads of the whole set
-- at block sizes from 64 MiB down to 16 KiB, three runs each, the page cache dropped before
-- each run (as root; otherwise said and skipped), then one table: average MB/s, standard
-- deviation and IOPS per block size. Repeat it under several read_ahead_kb and
-- max_sectors_kb settings with sbio run --queue read_ahead_kb=… (or compare the built-in
-- seqrd: see the README). About 10 s by default; --size=4G for a real device.
-- No fsync_end: blockdev-perftest only reads (dd to /dev/null), and a read job has no end
-- fsync.
option("size", "256M", "size of the set (one file)")
option("runs", 3, "runs per block size")
option("sizes", "64M,16M,4M,1M,256K,64K,16K", "block sizes, largest first")

fileset { files = 1, size = options.size }

local total = sbio.size(options.size)
for bs in options.sizes:gmatch("[^,]+") do
    local b = sbio.size(bs)
    for r = 1, options.runs do
        phase(bs .. " run " .. r) {
            drop_caches = true, time = 0, events = math.max(1, math.floor(total / b)),
            job "seqrd" { mode = "seqrd", block = bs, fsync_freq = 0 },
        }
    end
end

-- One row per block size: mean and standard deviation of the runs' MB/s (10^6 bytes), IOPS.
function report(result)
    local rows, order = {}, {}
    for _, p in ipairs(result.phases) do
        local bs = p.name:match("^(%S+)")
        if not rows[bs] then rows[bs] = {}; order[#order + 1] = bs end
        if not p.refused then
            local r = p.jobs[1].result.result
            local rd = r.op_types.read
            table.insert(rows[bs], {mb = rd.bytes / 1e6 / r.elapsed_s, iops = rd.ops_per_s})
        end
    end
    print(string.format("%8s %5s %12s %10s %12s", "block", "runs", "MB/s (avg)", "stddev", "IOPS"))
    for _, bs in ipairs(order) do
        local t, n, s, s2, io = rows[bs], #rows[bs], 0, 0, 0
        for _, x in ipairs(t) do s = s + x.mb; io = io + x.iops end
        local m = n > 0 and s / n or 0
        for _, x in ipairs(t) do s2 = s2 + (x.mb - m) ^ 2 end
        local sd = n > 1 and math.sqrt(s2 / (n - 1)) or 0
        print(string.format("%8s %5d %12.1f %10.1f %12.1f", bs, n, m, sd, n > 0 and io / n or 0))
    end
end
