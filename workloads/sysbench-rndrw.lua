-- sysbench-rndrw.lua — experiment 1 of sbio's design: sysbench fileio rndrw, 16 threads,
-- read/write ratio 1.5, sysbench's fsync cadence (every file fsynced after every 100
-- requests of a thread), sysbench's 128 files. Run it under each scheduler with
--   sbio compare --schedulers=none,mq-deadline,kyber,bfq --repeat=2 --script sysbench-rndrw
-- Reports: reads/s, writes/s, fsyncs/s, total time, latency — sysbench's figures.
-- About 10 s by default; --scale=1 gives the experiment's 2 GiB and 60 s.
-- fsync_end = true: sysbench's --file-fsync-end defaults to on (every file fsynced at the end).
option("scale", 0.0625, "fraction of the experiment's size (2 GiB) and duration (60 s)")
option("threads", 16, "worker threads")

fileset { files = 128, size = math.max(1, math.floor(2048 * options.scale)) .. "M" }

phase "rndrw" {
    time = math.max(2, math.floor(60 * options.scale * 2.7)),
    job "sysbench" { mode = "rndrw", threads = options.threads, block = "16k",
                     rw_ratio = 1.5, fsync_freq = 100, fsync_end = true },
}
