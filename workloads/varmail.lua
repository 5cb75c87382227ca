-- varmail.lua — filebench's varmail personality: a mail server's spool. Each thread deletes
-- a message, writes a new one (create, append, fsync), and reads two others whole, one of
-- them appended to and synced as a mail reader marking it would:
--   unlink · create, append, fsync, close · open, readwhole, append, fsync, close ·
--   open, readwhole, close
-- over and over, every operation an event. fsyncs of small files in one flat folder: what
-- journals and I/O schedulers differ most on.
-- The original (filebench's workloads/varmail.f): nfiles=1000, meandirwidth=1000000 (one
-- folder), filesize=cvar-gamma mean 16k, gamma (shape) 1.5, nthreads=16, iosize=1m,
-- meanappendsize=16k, prealloc=80, run 60. Its defaults here, except a run of 10 s; set
-- --time=60 for the original's length. Differences: appendfilerand appends a random size up
-- to meanappendsize, sbio appends exactly --append bytes; each file belongs to one thread
-- (doc/scripting.md, "Which file"), so two threads never race on a message.
--   sbio prepare --script varmail --dir=D
--   sbio compare --script varmail --dir=D --schedulers=none,mq-deadline,bfq
--
-- Output: after sbio's reports, report() prints filebench's per-operation breakdown (each
-- operation: count, ops/s, MiB/s, mean latency in ms, its range) and its "IO Summary" line.
sbio.filebench_set { files = 1000, dirwidth = 1000000, filesize = "16k", threads = 16, prealloc = 0.8 }

phase "varmail" {
    time = options.time,
    job "filereader" {
        threads = options.threads,
        block = options.iosize,
        append = options.append,
        flow = { "unlink",
                 "create", "append", "fsync", "close",
                 "open", "readwhole", "append", "fsync", "close",
                 "open", "readwhole", "close" },
    },
}

function report(result)
    sbio.filebench_summary(result.phases[1].jobs[1].result.result)
end
