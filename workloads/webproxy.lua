-- webproxy.lua — filebench's webproxy personality: a caching web proxy. Each thread evicts
-- an object (unlink), stores a new one (create, append, close), and serves five objects
-- whole (open, readwhole, close, five times), over and over, every operation an event, in
-- one flat folder.
-- The original (filebench's workloads/webproxy.f): nfiles=10000, meandirwidth=1000000,
-- filesize=cvar-gamma mean 16k, gamma (shape) 1.5, nthreads=100, iosize=1m,
-- meanappendsize=16k, prealloc=80, run 60. Its defaults here, except a run of 10 s.
-- Differences: appends are exactly --append bytes; each file belongs to one thread
-- (doc/scripting.md, "Which file").
--   sbio prepare --script webproxy --dir=D
--   sbio run --script webproxy --dir=D
--
-- Output: after sbio's reports, report() prints filebench's per-operation breakdown and its
-- "IO Summary" line.
sbio.filebench_set { files = 10000, dirwidth = 1000000, filesize = "16k", threads = 100, prealloc = 0.8 }

local flow = { "unlink", "create", "append", "close" }
for _ = 1, 5 do
    for _, op in ipairs({ "open", "readwhole", "close" }) do flow[#flow + 1] = op end
end

phase "webproxy" {
    time = options.time,
    job "proxycache" { threads = options.threads, block = options.iosize, append = options.append,
                       flow = flow },
}

function report(result)
    sbio.filebench_summary(result.phases[1].jobs[1].result.result)
end
