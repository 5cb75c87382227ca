-- fsmark.lua — fs_mark's default test: each thread creates --files files of --size bytes,
-- each written in --iosize writes and fsynced before it is closed (fs_mark -S 1, its
-- default), and the figure is files created per second. Then the files are removed, outside
-- the measured phase, as fs_mark removes them after each iteration unless -k.
-- The original: fs_mark -d DIR -n FILES -s SIZE -t THREADS [-w IOSIZE] [-L LOOPS]; its
-- defaults -n 1000 -s 51200 -t 1 -w 16384 -L 1 are the defaults here, and --files, --size,
-- --threads, --iosize and --loops play -n, -s, -t, -w and -L (each loop one measured
-- phase "create N", followed by an unmeasured-for-files/s phase "remove N").
-- Differences: fs_mark names its files with a time stamp and 24 random characters and
-- makes each with O_CREAT | O_TRUNC; sbio's are f<slot> in one folder, made with O_CREAT |
-- O_EXCL; fs_mark's "App overhead" column is not reproduced, nor its FSUse% column.
--   sbio run --script fsmark --dir=D --files=1000 --size=4096 --threads=2
-- needs no prepare, as fs_mark needs none: the tree is empty (every slot free), and run makes
-- it in a folder that has none.
--
-- Output: after sbio's reports, report() prints fs_mark's table: one line per loop with the
-- files made so far (Count), Size and Files/sec (the loop's creates over its phase's time).
option("files", 1000, "files per thread per loop (fs_mark -n)")
option("size", 51200, "bytes per file (fs_mark -s)")
option("threads", 1, "threads (fs_mark -t)")
option("iosize", 16384, "bytes per write (fs_mark -w)")
option("loops", 1, "iterations (fs_mark -L)")

local slots = options.files * options.threads
fileset { files = slots, dirwidth = math.max(2, slots), size = options.size, prealloc = 0 }

for loop = 1, options.loops do
    phase("create " .. loop) {
        time = 0,
        events = 3 * slots, -- create, fsync, close per file
        job "fs_mark" { threads = options.threads, block = options.iosize,
                        flow = { "create", "fsync", "close" } },
    }
    phase("remove " .. loop) {
        time = 0,
        events = slots,
        job "remove" { threads = options.threads, mix = { unlink = 1 } },
    }
end

function report(result)
    print(string.format("%13s %12s %12s", "Count", "Size", "Files/sec"))
    local count = 0
    for _, p in ipairs(result.phases) do
        if p.name:match("^create") then
            local r = p.jobs[1].result.result
            local made = r.op_types.create and r.op_types.create.ops or 0
            count = count + made
            print(string.format("%13d %12d %12.1f", count, options.size, made / r.elapsed_s))
        end
    end
end
