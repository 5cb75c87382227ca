-- bonnie-direct.lua — experiment 4 (bonnie with O_DIRECT): write, rewrite, read and random
-- seeks at request sizes 4k, 6k, 16k, 18k, 64k and 66k (unaligned sizes on purpose), one phase
-- per cell, then one table of bandwidth and %CPU per cell. A cell the device refuses (an
-- O_DIRECT size that is not a multiple of its alignment) says why and the others still run;
-- sbio then exits 2.
-- About 10 s by default on a quiet disk; the seeks cells add about 8 s (40.8 s against 32.3 s
-- with --seeks=0 on this machine's busy disk). --size=1G for the experiment.
--
-- What it reproduces, per request size SIZE that bonnie++ accepts (a power of two, 256 bytes
-- to 1 MiB: 4k, 16k, 64k here; 6k, 18k and 66k have no bonnie++ counterpart):
--   bonnie++ -D -d DIR -s SIZE_MiB:SIZE:SEEKS:PROCS -n 0 -f -x 1 -r RAM_MiB -z SEED -u root
-- with -f skipping the per-character tests and -n 0 the file-creation tests, leaving bonnie++'s
-- three block tests, one process on one file, and its random-seeks test, which it always runs:
--   write    Sequential Output "Block": write(2) of each chunk in order  (seqwr)
--   rewrite  Sequential Output "Rewrite": per chunk, read(2) it, increment one byte (byte k
--            of chunk k, modulo the chunk size), lseek(2) back one chunk, write(2) it  (a mix
--            of read-modify-writes, rmw = 1, pattern "seq", one thread: one event per chunk,
--            its latency all three calls; the sync engine makes bonnie++'s calls, read at the
--            file position, lseek(fd, -CHUNK, SEEK_CUR), write, on a descriptor opened O_RDWR
--            as bonnie++ reopens it; bonnie++'s one lseek to 0 before its loop is not made, a
--            new descriptor being there already)
--   read     Sequential Input "Block": read(2) of each chunk in order  (seqrd)
--   seeks    Random Seeks: --seeks tickets (bonnie++'s SEEKS, 8192 by default) shared by
--            --seek-procs processes (PROCS, 5 by default), each with the file open on its own
--            descriptor; per ticket T, the chunk T modulo the file's chunks is read, and when T
--            is a multiple of 10 (bonnie++'s UpdateSeek) one byte of it is changed and the chunk
--            written back in place; each process fsyncs the file as it closes it, and so does
--            bonnie++'s parent, which holds it open while it hands the tickets out. The tickets
--            are glibc's rand() after srand(--seed), as bonnie++ -z SEED draws them (without
--            -z bonnie++ seeds from its pid and the time): the same chunks, the same updates.
--            Here an event() job of --seek-procs threads: thread t takes tickets t, t + P, …
--            (bonnie++'s processes take them from a pipe, whichever is free), a pread(2) per
--            ticket and a pwrite(2) per update (bonnie++: lseek(2) then read(2), lseek(2) then
--            write(2)), an fsync at its end, thread 0 one more first for the parent. The
--            update's byte is not bonnie++'s (the write's content is sbio's own).
-- fsync_end = true in the three block cells: bonnie++ closes the file inside each test's timed
-- part and its close (CFileOp::Close) always calls fsync first, with or without -b, so its
-- write and rewrite figures include one fsync of the file. Two of bonnie++'s fsyncs have no
-- counterpart here: its block read's close fsyncs the file it only read (sbio's read cell
-- fsyncs nothing), and before the block write it creates the file, fsyncs and closes it empty,
-- unlinks it and creates it again, where the write cell starts on its prepared file cut to 0
-- bytes (ftruncate). With -b bonnie++ also fsyncs after each update of the seek test; not
-- made here.
-- bonnie++ 2.00a's -D opens the file O_DIRECT only where it creates it, for the block write:
-- its rewrite, read and seek processes open it again without O_DIRECT (strace -e openat shows
-- O_RDWR alone), so they go through the page cache. Here every cell is O_DIRECT by default:
-- the rewrite cell is bonnie++'s rewrite loop at the device, one request at a time, and the
-- seeks reach the device. --direct=off: every cell buffered; --direct-write-only: the write
-- cell alone O_DIRECT, as bonnie++ 2.00a -D does.
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
-- is read and written. The seeks row's last column is bonnie++'s "Random Seeks" /sec: the
-- tickets over the cell's elapsed time (bonnie++: first process's start to the last one's
-- end); its MiB/s is the reads' and updates' bytes together, and its %CPU all the seek
-- threads' CPU time over that time (so up to 100 per process, as bonnie++ adds its seek
-- processes' CPU).
option("size", "64M", "file size")
option("sizes", "4k,6k,16k,18k,64k,66k", "request sizes")
option("direct", true, "O_DIRECT (off: buffered, for comparison)")
option("direct-write-only", false, "O_DIRECT for the write cell only, as bonnie++ 2.00a -D")
option("seeks", 8192, "random seeks per request size (bonnie++'s -s SIZE:CHUNK:SEEKS)")
option("seek-procs", 5, "seek processes (bonnie++'s -s SIZE:CHUNK:SEEKS:PROCS)")
option("seed", 1, "the seeks' tickets: glibc's rand() after srand(SEED), as bonnie++ -z SEED")

local SEEKS, PROCS, SEED = options.seeks, options["seek-procs"], options.seed
local function whole(v, low, what)
    if type(v) ~= "number" or v ~= math.floor(v) or v < low or v > 2147483647 then
        error(what .. ": a whole number from " .. low .. " to 2147483647", 0)
    end
end
whole(SEEKS, 0, "--seeks=" .. tostring(SEEKS))
whole(PROCS, 1, "--seek-procs=" .. tostring(PROCS))
if type(SEED) ~= "number" or SEED ~= math.floor(SEED) or SEED < 0 or SEED > 4294967295 then
    error("--seed=" .. tostring(SEED) .. ": a whole number from 0 to 4294967295", 0)
end

fileset { files = 1, size = options.size }

local flags = options.direct and "direct" or ""
local function cell_job(cell, bs)
    local flags = (cell == "write" or not options["direct-write-only"]) and flags or ""
    if cell == "rewrite" then
        return job(cell) { mix = {rmw = 1}, pattern = "seq", threads = 1, iodepth = 1,
                           block = bs, flags = flags, fsync_end = true }
    elseif cell == "seeks" then
        return job(cell) { threads = PROCS, block = bs, flags = flags, event = true }
    end
    return job(cell) { mode = cell == "write" and "seqwr" or "seqrd", threads = 1, block = bs,
                       flags = flags, fsync_freq = 0, fsync_end = true }
end

for bs in options.sizes:gmatch("[^,]+") do
    local n = math.floor(sbio.size(options.size) / sbio.size(bs))
    for _, cell in ipairs({"write", "rewrite", "read"}) do
        phase(cell .. " " .. bs) { time = 0, events = n, cell_job(cell, bs) }
    end
    phase("seeks " .. bs) { time = 0, cell_job("seeks", bs) }
end

-- glibc's rand() after srand(seed): its additive feedback generator (TYPE_3: r[i] = r[i-3] +
-- r[i-31] mod 2^32, seeded by 16807 * r[i-1] mod 2^31 - 1, the first 310 outputs dropped),
-- count numbers of 31 bits. bonnie++ -z SEED draws its seek tickets from it.
local function glibc_rand(seed, count)
    local M = 4294967296
    local r, out = {}, {}
    if seed == 0 then seed = 1 end
    r[0] = seed
    local word = seed >= 2147483648 and seed - M or seed -- an int32_t, as glibc holds it
    for i = 1, 30 do
        local hi = word >= 0 and math.floor(word / 127773) or -math.floor(-word / 127773)
        word = 16807 * (word - hi * 127773) - 2836 * hi
        if word < 0 then word = word + 2147483647 end
        r[i] = word
    end
    for i = 31, 33 do r[i] = r[i - 31] end
    for i = 34, 343 + count do
        r[i] = (r[i - 31] + r[i - 3]) % M
        if i >= 344 then out[i - 343] = math.floor(r[i] / 2) end
    end
    return out
end

-- The seeks phase's operations, per thread (each thread's Lua state has its own copy).
-- Thread t of the P takes tickets t + 1, t + 1 + P, …; thread 0 first fsyncs once for
-- bonnie++'s parent, which holds the file open while it hands the tickets out and closes it
-- (fsync, close) once they are all sent.
local tickets, chunks, nxt, write_at, ending

function event(ctx)
    local bs = sbio.block
    if not tickets then
        tickets, chunks = glibc_rand(SEED, SEEKS), math.floor(sbio.files[1] / bs)
        nxt, ending = ctx.thread + 1, false
        if ctx.thread == 0 then
            ctx.op, ctx.file, ctx.offset, ctx.len = sbio.FSYNC, 0, 0, 0
            return true
        end
    end
    ctx.file, ctx.len = 0, bs
    if write_at then
        ctx.op, ctx.offset, write_at = sbio.WRITE, write_at, nil
        return true
    end
    local t = tickets[nxt]
    if not t then
        if ending then return false end
        ending = true
        ctx.op, ctx.offset, ctx.len = sbio.FSYNC, 0, 0
        return true
    end
    nxt = nxt + PROCS
    ctx.op, ctx.offset = sbio.READ, (t % chunks) * bs
    if t % 10 == 0 then write_at = ctx.offset end
    return true
end

local OP = {write = "write", rewrite = "rmw", read = "read"}

function report(result)
    print(string.format("%8s %-8s %12s %8s %12s", "size", "cell", "MiB/s", "%CPU", "K/sec"))
    for _, p in ipairs(result.phases) do
        local cell, bs = p.name:match("^(%S+) (%S+)$")
        if p.refused then
            print(string.format("%8s %-8s %12s %8s %12s", bs, cell, "refused", "-", "-"))
        elseif cell == "seeks" then
            -- bonnie++'s "Random Seeks": seeks per second (the last column), %CPU of all the
            -- seek threads; MiB/s of the reads and the updates' writes together.
            local r = p.jobs[1].result.result
            local rd, wr, s = r.op_types.read, r.op_types.write, r.elapsed_s
            print(string.format("%8s %-8s %12.1f %8.1f %10.0f/s", bs, cell,
                                s > 0 and (rd.bytes + wr.bytes) / 1048576 / s or 0,
                                r.cpu.user_pct + r.cpu.system_pct, s > 0 and SEEKS / s or 0))
        else
            local r = p.jobs[1].result.result
            local t = r.op_types[OP[cell]]
            print(string.format("%8s %-8s %12.1f %8.1f %12.0f", bs, cell, t.mib_per_s,
                                r.cpu.user_pct + r.cpu.system_pct, t.mib_per_s * 1024))
        end
    end
end
