-- oltp.lua — a database-like mix: 16 KiB random reads and writes on a zipf-skewed set of
-- blocks (a few pages are hot), each writer syncing its data with fdatasync every so often,
-- plus a log writer appending sequentially and syncing every write. Two jobs at once; each
-- is reported on its own and in total.
-- About 10 s by default; --size=8G --time=120 for a realistic run.
option("size", "256M", "size of the table files")
option("time", 10, "seconds")
option("theta", 1.1, "zipf skew of the table's pages (> 0, not 1)")
option("threads", 8, "table workers")

fileset { files = 8, size = options.size }

phase "oltp" {
    time = options.time,
    job "table" { threads = options.threads, block = "16k", pattern = "zipf:" .. options.theta,
                  mix = { read = 70, write = 30, fdatasync = 1 } },
    job "log" { threads = 1, block = "4k", pattern = "seq", mix = { write = 1, fdatasync = 1 } },
}
