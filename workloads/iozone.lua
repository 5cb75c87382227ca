-- iozone.lua — experiment 2: `iozone -t N -s S -r R -i 0 -i 1 -c` (throughput mode: N child
-- processes, each on its own file of S bytes, in records of R; -i 0 is write then rewrite, -i 1
-- read then re-read; -c times the close), one phase per test, every phase reported on its own.
-- --threads=N is -t N (a thread per child), --size=S is -s S (each child's file), --record=R
-- is -r R (128k by default). A few seconds by default; --size=2G for the experiment's size.
-- fsync_end = false: the experiment ran iozone -c (the close is timed, nothing is fsynced),
-- so no phase ends with an fsync.
--
-- Output: after sbio's reports, report() prints per phase the block iozone -t prints, from
-- the phase's per-thread figures (a thread is iozone's child; kB = 1024 bytes):
--   Children see throughput for N initial writers | rewriters | readers | re-readers
--       the sum of the children's own kB/s (a thread's bytes / its own duration_s)
--   Parent sees throughput       all the children's kB / the phase's elapsed_s (first
--                                child's start to the last one's end)
--   Min / Max / Avg throughput per process   over the children's own kB/s
--   Min xfer                     the smallest child's kB
--
-- The write phase writes into emptied files: before it, sbio truncates each file to 0
-- (outside the measured time), where iozone writes a file it has just created. Measured on
-- ext4 (page cache, 24 GiB RAM), the truncation is not what made this phase slower than fio:
-- fio --rw=write --bs=128k --size=256M --end_fsync=0 wrote a fresh file at 1954-3084 MiB/s
-- and the same file cached, then truncated just before, at 2226-3282 MiB/s. The old gap
-- (0.2-0.6x fio) was the end-of-phase fsync: with it, this phase ran 327-390 MiB/s (256M
-- and 2G); with fsync_end = false, 2124-2278 MiB/s at 256M and 603-753 MiB/s at 2G, where
-- fio's fresh file ran 2393-2977 and 381-759. What is left at 256M (0.74-0.90x fio over 5
-- interleaved runs) is the same in a plain sbio run --file-test-mode=seqwr: it is not this
-- workload's; the phase makes the same pwrite calls as fio (strace -c: one per record, no
-- fsync) and spends 93% of its time in the kernel.
option("size", "256M", "file size")
option("threads", 1, "processes (iozone -t)")
option("record", "128k", "record size")

-- iozone's -s is each child's file: the set is N files of --size each.
local file = sbio.size(options.size)
if not file or file <= 0 then
    error(string.format("--size=%s: expected each file's size, a number with k, M or G",
                        tostring(options.size)), 0)
end
fileset { files = options.threads, size = file * options.threads }

-- One pass over every file per phase, as iozone does: events = records in the set.
local records = math.floor(file / sbio.size(options.record)) * options.threads

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
