-- priorities.lua — what the I/O priority classes buy a reader beside a bulk writer: three
-- 4 KiB random readers (O_DIRECT, one request at a time each), one in each class —
-- realtime (rt), best-effort (be) and idle — share the set with one streaming writer of
-- 1 MiB sequential O_DIRECT writes (libaio, 8 in flight), in one phase. Each reader's
-- IOPS and latency say how its class was served; run it under each scheduler (bfq and
-- mq-deadline honour the classes, none and kyber do not look at them):
--   sbio prepare --script priorities --dir=D
--   sbio compare --script priorities --dir=D --schedulers=none,mq-deadline,kyber,bfq
-- The rt reader needs root (CAP_SYS_ADMIN or CAP_SYS_NICE): without it sbio refuses the
-- script before anything runs, exit 2, with one line saying so.
-- The experiment it reproduces ran one reader at a time beside the writer with fio for 5 s,
-- the reader in one class and then another; here the three readers run at once. One
-- reader as fio jobs on the set's file (fio sets the class on the job's process):
--   fio --filename=D/test_file.0 --size=1G --direct=1 --runtime=10 --time_based
--       --name=reader --rw=randread --bs=4k --ioengine=psync --prioclass=1|2|3 --prio=LEVEL
--       --name=writer --rw=write --bs=1M --ioengine=libaio --iodepth=8
-- About 10 s by default over a 1 GiB file; --time and --size for longer runs and a set
-- larger than the device's cache, --rt-level and --be-level for the levels (0 is served
-- first), --writer-ioprio for the writer's (none: the process's, inherited).
--
-- Output: after sbio's reports, report() prints a table, one row per reader and one for
-- the writer: job, its I/O priority as read back from its thread, IOPS (ops/s for the
-- writer), p50 and p99 latency in us, MiB/s.
option("size", "1G", "size of the set (one file)")
option("time", 10, "seconds")
option("rt-level", 0, "the rt reader's level, 0..7 (the realtime class needs root)")
option("be-level", 4, "the be reader's level, 0..7")
option("engine", "libaio", "the writer's engine")
option("iodepth", 8, "the writer's requests in flight")
option("writer-ioprio", "none", "the writer's I/O priority (rt:0..7, be:0..7, idle; none: inherited)")
option("direct", true, "O_DIRECT reads and writes; off: buffered")

fileset { files = 1, size = options.size }

local flags = options.direct and "direct" or ""
local function reader(class)
    return job(class) { block = "4k", flags = flags, mix = { read = 1 }, pattern = "uniform",
                        ioprio = class == "idle" and "idle" or
                                 class .. ":" .. options[class .. "-level"] }
end
local writer = job "writer" { engine = options.engine, iodepth = options.iodepth,
                              block = "1M", flags = flags, mix = { write = 1 },
                              pattern = "seq", ioprio = options["writer-ioprio"] }
phase "priorities" { time = options.time, reader("rt"), reader("be"), reader("idle"), writer }

function report(result)
    local p = result.phases[1]
    if p.refused then return print("priorities: refused") end
    print(string.format("%-8s %-8s %10s %10s %10s %10s", "job", "ioprio", "IOPS", "p50 us",
                        "p99 us", "MiB/s"))
    for _, j in ipairs(p.jobs) do
        local r = j.result.result
        local o = j.name == "writer" and r.op_types.write or r.op_types.read
        local pct = o.latency.percentiles_ns
        print(string.format("%-8s %-8s %10.0f %10.0f %10.0f %10.1f", j.name, r.ioprio,
                            o.ops_per_s, pct["50"] / 1000, pct["99"] / 1000, o.mib_per_s))
    end
end
