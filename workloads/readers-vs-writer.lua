-- readers-vs-writer.lua — how long a small random read waits beside a bulk writer: N 4 KiB
-- random readers (O_DIRECT, one request at a time each) share the set with one streaming
-- writer of 1 MiB sequential O_DIRECT writes (libaio, 8 in flight), in one phase. The
-- answer is the readers' p99 latency (and p50, p95, IOPS) against the writer's MiB/s — the
-- question I/O schedulers are compared on (deadline's read expiry, bfq's and the old
-- anticipatory scheduler's idling for the reader): run it under each of them,
--   sbio prepare --script readers-vs-writer --dir=D
--   sbio compare --script readers-vs-writer --dir=D --schedulers=none,mq-deadline,kyber,bfq
-- and give either side an I/O priority (--reader-ioprio=rt:0, --writer-ioprio=idle; the
-- realtime class needs root) to see what the scheduler makes of it.
-- The experiment it reproduces ran such a reader and writer with fio for 5 s on a file on
-- ext4; as fio jobs on the set's file (doc/experiments.md gives both tools' figures under
-- each scheduler):
--   fio --filename=D/test_file.0 --size=1G --direct=1 --runtime=10 --time_based
--       --group_reporting --name=reader --rw=randread --bs=4k --ioengine=psync --numjobs=2
--       --name=writer --new_group --rw=write --bs=1M --ioengine=libaio --iodepth=8
-- About 10 s by default over a 1 GiB file; --time and --size for longer runs and a set
-- larger than the device's cache, --direct=off for buffered I/O (the readers then read
-- the page cache once it holds the set).
--
-- Output: after sbio's reports, report() prints one line from the phase's two jobs:
--   readers: N x 4 KiB random (ioprio P): IOPS, p50 / p95 / p99 in us | writer: 1 MiB
--   sequential (ioprio P): MiB/s
-- the readers' figures over all N threads (their latency histograms merged), P each job's
-- I/O priority as read back from its threads ("none": the process's, inherited).
option("size", "1G", "size of the set (one file)")
option("time", 10, "seconds")
option("readers", 2, "4 KiB random reader threads")
option("engine", "libaio", "the writer's engine")
option("iodepth", 8, "the writer's requests in flight")
option("reader-ioprio", "none", "the readers' I/O priority (rt:0..7, be:0..7, idle; none: inherited)")
option("writer-ioprio", "none", "the writer's I/O priority (rt:0..7, be:0..7, idle; none: inherited)")
option("direct", true, "O_DIRECT reads and writes; off: buffered")

fileset { files = 1, size = options.size }

local flags = options.direct and "direct" or ""
phase "readers-vs-writer" {
    time = options.time,
    job "readers" { threads = options.readers, block = "4k", flags = flags,
                    mix = { read = 1 }, pattern = "uniform", ioprio = options["reader-ioprio"] },
    job "writer" { engine = options.engine, iodepth = options.iodepth, block = "1M",
                   flags = flags, mix = { write = 1 }, pattern = "seq",
                   ioprio = options["writer-ioprio"] },
}

function report(result)
    local p = result.phases[1]
    if p.refused then
        print("readers-vs-writer: refused")
        return
    end
    local rd, wr = p.jobs[1].result.result, p.jobs[2].result.result
    local pct = rd.op_types.read.latency.percentiles_ns
    print(string.format("readers: %d x 4 KiB random (ioprio %s): %.0f IOPS, p50 %.0f us, " ..
                        "p95 %.0f us, p99 %.0f us | writer: 1 MiB sequential (ioprio %s): " ..
                        "%.1f MiB/s", #rd.threads, rd.ioprio, rd.op_types.read.ops_per_s,
                        pct["50"] / 1000, pct["95"] / 1000, pct["99"] / 1000, wr.ioprio,
                        wr.op_types.write.mib_per_s))
end
