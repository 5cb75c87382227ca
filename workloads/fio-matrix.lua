-- fio-matrix.lua — experiment 3: sequential read, random read, sequential write, random
-- write, each by read/write calls (sync), by mmap, by libaio, and with O_DIRECT, at 32 KiB
-- over ten files; one phase per cell, then one table of MiB/s per cell — the shape to put
-- two kernels side by side (run it on each, then sbio diff the JSON results).
-- About 10 s by default; --size=10G --time=30 for the experiment.
--
-- Each cell reproduces this fio job (SIZE/10 per file, fio's defaults written out):
--   fio --name=CELL --directory=DIR --nrfiles=10 --filesize=SIZE/10 --bs=32k
--       --rw=read|randread|write|randwrite --ioengine=psync|mmap|libaio [--iodepth=16]
--       [--direct=1] --time_based --runtime=TIME --invalidate=1 --fadvise_hint=1 --end_fsync=0
--       --file_service_type=roundrobin
-- and does what fio does by default, with the job fields that ask for it:
--   invalidate = "pass"      fio's invalidate=1 in a time-based job: every file is written back
--                            and its pages dropped before the cell (POSIX_FADV_DONTNEED, no
--                            root needed; the report says how much of the set stayed resident),
--                            and each file's pages dropped again each time the cell starts a
--                            new pass over it, as fio does when it reopens a file or wraps
--                            around it (the report counts them: "Page cache at each new pass");
--                            so a set smaller than a cell's traffic is read from the device on
--                            every pass, and a write cell's dirty pages are sent to the device
--                            at each pass, as fio's;
--   file_service = "roundrobin"  fio's file_service_type=roundrobin: a sequential cell sends
--                            one request to each file in turn, each file read or written from
--                            its start on (ten streams at once), not the files one after another;
--   drop_caches = true       the phase drops the whole page cache too when sbio runs as root
--                            (fio does not); otherwise the phase says it was not dropped;
--   fadvise = "auto"         fio's fadvise_hint=1: POSIX_FADV_RANDOM or _SEQUENTIAL on every
--                            descriptor, and MADV_RANDOM or _SEQUENTIAL on the mmap cells'
--                            mappings (without it a random mmap read faults in a readahead
--                            window, not a page);
--   random_order = "once"    fio's random map: a random cell visits every block once before
--                            any twice, a new order each pass.
-- fsync_end = false: fio's end_fsync defaults to 0, so a write cell ends without an fsync.
-- What differs: in a random cell fio takes the files in turn and a block of each from that
-- file's own random map, where sbio draws the block over the ten files as one set; either way
-- every block once per pass, and every file's pages dropped at each new pass (fio: as each
-- file's map wraps; sbio: when the set's order wraps). A random cell with O_DIRECT drops
-- nothing after its start, as fio. fio gives its access hint again at each reopen (one
-- fadvise64 more per file per pass of a sequential cell) and drops a file's pages as it opens
-- it inside the measured time; sbio hints once per descriptor and drops before the cell.
-- The table: each cell is the MiB/s of its direction (MiB = 2^20 bytes), fio's "bw=" on the
-- cell's READ: or WRITE: line ("bw=123MiB/s"); each phase's report has the latencies and the
-- device figures (fio's "clat" and "Disk stats").
option("size", "320M", "total size of the ten files")
option("time", 1, "seconds per cell")
option("block", "32k", "request size")
option("depth", 16, "libaio queue depth")
option("events", 0, "requests per cell, 0: --time alone (fio's number_ios)")

fileset { files = 10, size = options.size }

local ways = {
    {"sync", {engine = "sync"}},
    {"mmap", {engine = "mmap"}},
    {"libaio", {engine = "libaio", iodepth = options.depth}},
    {"direct", {engine = "sync", flags = "direct"}},
}
local modes = {{"read", "seqrd"}, {"randread", "rndrd"}, {"write", "seqrewr"}, {"randwrite", "rndwr"}}
for _, m in ipairs(modes) do
    for _, w in ipairs(ways) do
        local j = {mode = m[2], block = options.block, fsync_freq = 0, fsync_end = false,
                   invalidate = "pass", fadvise = "auto"}
        if m[2]:match("^rnd") then j.random_order = "once" else j.file_service = "roundrobin" end
        for k, v in pairs(w[2]) do j[k] = v end
        phase(m[1] .. " " .. w[1]) {
            time = options.time, events = options.events, drop_caches = true, job(m[1]) (j)
        }
    end
end

function report(result)
    local cols = {"sync", "mmap", "libaio", "direct"}
    local cell = {}
    for _, p in ipairs(result.phases) do
        local m, w = p.name:match("^(%S+) (%S+)$")
        cell[m] = cell[m] or {}
        if p.refused then
            cell[m][w] = "refused"
        else
            local r = p.jobs[1].result.result
            local t = m:find("write") and r.op_types.write or r.op_types.read
            cell[m][w] = string.format("%.1f", t.mib_per_s)
        end
    end
    print(string.format("%-10s %10s %10s %10s %10s   (MiB/s)", "", unpack(cols)))
    for _, m in ipairs(modes) do
        local row = {}
        for i, w in ipairs(cols) do row[i] = cell[m[1]] and cell[m[1]][w] or "-" end
        print(string.format("%-10s %10s %10s %10s %10s", m[1], unpack(row)))
    end
end
