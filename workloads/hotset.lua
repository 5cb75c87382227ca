-- hotset.lua — a cache-friendly read mix: 90% of the reads go to 10% of the blocks (the hot
-- set), sizes from 4 KiB to 64 KiB, with one writer refreshing blocks uniformly at a fixed
-- rate. Shows how the page cache and readahead serve a skewed workload.
-- About 10 s by default.
option("size", "512M", "size of the set")
option("hot-fraction", 0.1, "fraction of the blocks that take --hot-share of the reads")
option("hot-share", 0.9, "share of the reads that go to the hot blocks")
option("time", 10, "seconds")

fileset { files = 4, size = options.size }

phase "hot" {
    time = options.time,
    job "readers" { threads = 4, pattern = "hot:" .. options["hot-fraction"] .. ":" ..
                        options["hot-share"],
                    block = { ["4k"] = 50, ["16k"] = 30, ["64k"] = 20 }, mix = { read = 1 } },
    job "refresher" { threads = 1, rate = 200, block = "16k", mix = { write = 1 } },
}
