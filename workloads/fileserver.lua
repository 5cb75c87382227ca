-- fileserver.lua — filebench's fileserver personality: a file server's clients. Each thread
-- writes a new file whole, appends to another, reads a third whole, deletes one and stats
-- one:
--   create, close · open, append, close · open, readwhole, close · unlink · stat
-- over and over, every operation an event, on a tree of folders 20 wide.
-- The original (filebench's workloads/fileserver.f): nfiles=10000, meandirwidth=20,
-- filesize=cvar-gamma mean 128k, gamma (shape) 1.5, nthreads=50, iosize=1m,
-- meanappendsize=16k, prealloc=80, run 60. Its defaults here, except a run of 10 s; set
-- --time=60 for the original's length. Differences: filebench's createfile makes an empty
-- file and its writewholefile fills it; sbio's create does both, one event (so the
-- breakdown has one line for the two); appends are exactly --append bytes (filebench:
-- random up to meanappendsize); each file belongs to one thread (doc/scripting.md, "Which
-- file").
--   sbio prepare --script fileserver --dir=D
--   sbio run --script fileserver --dir=D
--
-- Output: after sbio's reports, report() prints filebench's per-operation breakdown and its
-- "IO Summary" line.
sbio.filebench_set { files = 10000, dirwidth = 20, filesize = "128k", threads = 50, prealloc = 0.8 }

phase "fileserver" {
    time = options.time,
    job "filereader" {
        threads = options.threads,
        block = options.iosize,
        append = options.append,
        flow = { "create", "close",
                 "open", "append", "close",
                 "open", "readwhole", "close",
                 "unlink", "stat" },
    },
}

function report(result)
    sbio.filebench_summary(result.phases[1].jobs[1].result.result)
end
