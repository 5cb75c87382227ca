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
