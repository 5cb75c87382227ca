-- bonnie-direct.lua — experiment 4 (bonnie with O_DIRECT): write, rewrite and read at request
-- sizes 4k, 6k, 16k, 18k, 64k and 66k (unaligned sizes on purpose), one phase per cell,
-- then one table of bandwidth and %CPU per cell. A cell the device refuses (an O_DIRECT size
-- that is not a multiple of its alignment) says why and the others still run; sbio then
-- exits 2.
-- About 10 s by default; --size=1G for the experiment.
--
-- What it reproduces, per request size SIZE that bonnie++ accepts (a power of two, 256 bytes
-- to 1 MiB: 4k, 16k, 64k here; 6k, 18k and 66k have no bonnie++ counterpart):
--   bonnie++ -D -d DIR -s SIZE_MiB:SIZE -n 0 -f -x 1 -r RAM_MiB -u root
-- with -f skipping the per-character tests and -n 0 the file-creation tests, leaving bonnie++'s
-- three block tests, one process on one file:
--   write    Sequential Output "Block": write(2) of each chunk in order  (seqwr)
--   rewrite  Sequential Output "Rewrite": per chunk, read(2) it, increment one byte (byte k
--            of chunk k, modulo the chunk size), lseek(2) back one chunk, write(2) it  (a mix
--            of read-modify-writes, rmw = 1, pattern "seq", one thread: one event per chunk,
--            its latency all three calls; the sync engine makes bonnie++'s calls, read at the
--            file position, lseek(fd, -CHUNK, SEEK_CUR), write, on a descriptor opened O_RDWR
--            as bonnie++ reopens it; bonnie++'s one lseek to 0 before its loop is not made, a
--            new descriptor being there already)
--   read     Sequential Input "Block": read(2) of each chunk in order  (seqrd)
-- fsync_end = true in all three: bonnie++ closes the file inside each test's timed part and
-- its close (CFileOp::Close) always calls fsync first, with or without -b, so its write and
-- rewrite figures include one fsync of the file.
-- bonnie++ 2.00a's -D opens the file O_DIRECT only where it creates it, for the block write:
-- its rewrite and read open it again without O_DIRECT (strace -e openat shows O_RDWR alone),
-- so they go through the page cache. Here every cell is O_DIRECT by default: the rewrite cell
-- is bonnie++'s rewrite loop at the device, one request at a time. --direct=off: every cell
-- buffered; --direct-write-only: the write cell alone O_DIRECT, as bonnie++ 2.00a -D does.
-- Under strace -f -c (64 MiB, 8k chunks, bonnie++ -s 64:8k) bonnie++'s rewrite makes 8192
-- read, 8193 lseek, 8192 write, 1 fsync; this script's rewrite cell with --direct-write-only
-- 8192 read, 8192 lseek, 8192 write, 1 fsync, in the same order with the same sizes, and on
-- a loop device both rewrites read the file once from it (1 GiB file, 32k chunks). Their
-- speeds do not follow the calls: on a loop device over tmpfs, rounds of the same 1 GiB cell
-- one after the other gave this rewrite 0.31 to 6.3 times bonnie++'s K/sec, either side
-- ahead, with the same calls and bytes each time (not explained); under strace, whose cost
-- evens the calls out, 0.98.
-- The default O_DIRECT rewrite measures the device's speed one chunk at a time, which
-- bonnie++ -D's buffered rewrite never does.
--
-- The table against bonnie++'s output: MiB/s × 1024 is bonnie++'s K/sec (its K is KiB); %CPU
-- is bonnie++'s %CP, user + system CPU time over the test's elapsed time, in percent of one
-- CPU: here the cell's one worker thread's CPU time (result.cpu.user_pct + system_pct), from
-- its start to its end fsync, over the cell's elapsed time, so never above 100; bonnie++'s is
-- its process's (getrusage), of which the test's loop is all but a few system calls. The rewrite row's
-- MiB/s counts each chunk once (op_types.rmw.mib_per_s), as bonnie++'s K/sec does, though each
-- is read and written.
option("size", "64M", "file size")
option("sizes", "4k,6k,16k,18k,64k,66k", "request sizes")
option("direct", true, "O_DIRECT (off: buffered, for comparison)")
option("direct-write-only", false, "O_DIRECT for the write cell only, as bonnie++ 2.00a -D")

fileset { files = 1, size = options.size }

local flags = options.direct and "direct" or ""
local function cell_job(cell, bs)
    local flags = (cell == "write" or not options["direct-write-only"]) and flags or ""
    if cell == "rewrite" then
        return job(cell) { mix = {rmw = 1}, pattern = "seq", threads = 1, iodepth = 1,
                           block = bs, flags = flags, fsync_end = true }
    end
    return job(cell) { mode = cell == "write" and "seqwr" or "seqrd", threads = 1, block = bs,
                       flags = flags, fsync_freq = 0, fsync_end = true }
end

for bs in options.sizes:gmatch("[^,]+") do
    local n = math.floor(sbio.size(options.size) / sbio.size(bs))
    for _, cell in ipairs({"write", "rewrite", "read"}) do
        phase(cell .. " " .. bs) { time = 0, events = n, cell_job(cell, bs) }
    end
end

local OP = {write = "write", rewrite = "rmw", read = "read"}

function report(result)
    print(string.format("%8s %-8s %12s %8s %12s", "size", "cell", "MiB/s", "%CPU", "K/sec"))
    for _, p in ipairs(result.phases) do
        local cell, bs = p.name:match("^(%S+) (%S+)$")
        if p.refused then
            print(string.format("%8s %-8s %12s %8s %12s", bs, cell, "refused", "-", "-"))
        else
            local r = p.jobs[1].result.result
            local t = r.op_types[OP[cell]]
            print(string.format("%8s %-8s %12.1f %8.1f %12.0f", bs, cell, t.mib_per_s,
                                r.cpu.user_pct + r.cpu.system_pct, t.mib_per_s * 1024))
        end
    end
end
