-- iozone.lua — experiment 2: iozone -i0 -i1 on one file with 128 KiB records: initial
-- write, rewrite, read and re-read, one phase each, every phase reported on its own with
-- per-thread (iozone's "children see") min/max/avg throughput in the per-thread table.
-- A few seconds by default; --size=2G for the experiment's size.
-- fsync_end = false: the experiment ran iozone -c (the close is timed, nothing is fsynced),
-- so no phase ends with an fsync.
option("size", "256M", "file size")
option("threads", 1, "processes (iozone -t)")
option("record", "128k", "record size")

fileset { files = options.threads, size = options.size }

-- One pass over every file per phase, as iozone does: events = records in the set.
local records = math.floor(sbio.size(options.size) / sbio.size(options.record))

local function seq(name, mode)
    return phase(name) {
        time = 0, events = records,
        -- Each thread (iozone's child) streams through its own slice: its own file.
        job(name) { mode = mode, threads = options.threads, block = options.record,
                    fsync_freq = 0, fsync_end = false, stream = "per-thread" },
    }
end
seq("write", "seqwr")
seq("rewrite", "seqrewr")
seq("read", "seqrd")
seq("re-read", "seqrd")

-- iozone's name for the children of each phase.
local who = { write = "initial writers", rewrite = "rewriters", read = "readers",
              ["re-read"] = "re-readers" }

-- One phase's block as iozone -t prints it: a child's throughput is its own bytes over
-- its own time; the children's figure is their sum, the parent's all bytes over the phase.
local function children(p)
    local r = p.jobs[1].result.result
    local sum, total, min, max, xfer = 0, 0, math.huge, 0, math.huge
    for _, t in ipairs(r.threads) do
        local kb = (t.bytes_read + t.bytes_written) / 1024
        local tp = t.duration_s > 0 and kb / t.duration_s or 0
        sum, total = sum + tp, total + kb
        min, max, xfer = math.min(min, tp), math.max(max, tp), math.min(xfer, kb)
    end
    local n = #r.threads
    local line = "\t%-47s = %10.2f kB%s"
    print(string.format(line, string.format("Children see throughput for %2d %s", n,
                                            who[p.name]), sum, "/sec"))
    print(string.format(line, string.format("Parent sees throughput for %2d %s", n,
                                            who[p.name]), total / r.elapsed_s, "/sec"))
    print(string.format(line, "Min throughput per process", min, "/sec"))
    print(string.format(line, "Max throughput per process", max, "/sec"))
    print(string.format(line, "Avg throughput per process", sum / n, "/sec"))
    print(string.format(line, "Min xfer", xfer, "") .. "\n")
end

function report(result)
    for _, p in ipairs(result.phases) do
        if p.refused then
            print(string.format("\t%s: refused", p.name))
        else
            children(p)
        end
    end
end
