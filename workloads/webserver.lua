-- webserver.lua — filebench's webserver personality: a web server serving small files and
-- logging. Each thread reads ten files whole (open, readwhole, close, ten times), then
-- appends a log record, over and over, every operation an event.
-- The original (filebench's workloads/webserver.f): nfiles=1000, meandirwidth=20,
-- filesize=cvar-gamma mean 16k, gamma (shape) 1.5, nthreads=100, iosize=1m,
-- meanappendsize=16k, prealloc=100, and a second fileset of one log file every thread
-- appends to; run 60. Its defaults here, except a run of 10 s. Differences: each file
-- belongs to one thread (doc/scripting.md, "Which file"), so each thread appends its log
-- record to a file of its own among the set's, not to one shared log; appends are exactly
-- --append bytes.
--   sbio prepare --script webserver --dir=D
--   sbio run --script webserver --dir=D
--
-- Output: after sbio's reports, report() prints filebench's per-operation breakdown and its
-- "IO Summary" line.
sbio.filebench_set { files = 1000, dirwidth = 20, filesize = "16k", threads = 100, prealloc = 1 }

local flow = {}
for _ = 1, 10 do
    for _, op in ipairs({ "open", "readwhole", "close" }) do flow[#flow + 1] = op end
end
flow[#flow + 1] = "append"
flow[#flow + 1] = "close"

phase "webserver" {
    time = options.time,
    job "filereader" { threads = options.threads, block = options.iosize, append = options.append,
                       flow = flow },
}

function report(result)
    sbio.filebench_summary(result.phases[1].jobs[1].result.result)
end
