-- bonnie-direct.lua — experiment 4 (bonnie with O_DIRECT): write, rewrite and read at request
-- sizes 4k, 6k, 16k, 18k, 64k and 66k (unaligned sizes on purpose), one phase per cell,
-- then one table of bandwidth and %CPU per cell. A cell the device refuses (an O_DIRECT size
-- that is not a multiple of its alignment) says why and the others still run.
-- About 10 s by default; --size=1G for the experiment.
-- fsync_end = true: bonnie++ closes the file inside each test's timed part and its close
-- (CFileOp::Close) always calls fsync first, with or without -b, so its write and rewrite
-- figures include one fsync of the file.
option("size", "64M", "file size")
option("sizes", "4k,6k,16k,18k,64k,66k", "request sizes")
option("direct", true, "O_DIRECT (off: buffered, for comparison)")

fileset { files = 1, size = options.size }

local flags = options.direct and "direct" or ""
local cells = {{"write", "seqwr"}, {"rewrite", "seqrewr"}, {"read", "seqrd"}}
local records = {}
for bs in options.sizes:gmatch("[^,]+") do
    local n = math.floor(sbio.size(options.size) / sbio.size(bs))
    for _, c in ipairs(cells) do
        phase(c[1] .. " " .. bs) {
            time = 0, events = n,
            job(c[1]) { mode = c[2], block = bs, flags = flags, fsync_freq = 0,
                        fsync_end = true },
        }
    end
end

function report(result)
    print(string.format("%8s %-8s %12s %8s", "size", "cell", "MiB/s", "%CPU"))
    for _, p in ipairs(result.phases) do
        local cell, bs = p.name:match("^(%S+) (%S+)$")
        if p.refused then
            print(string.format("%8s %-8s %12s %8s", bs, cell, "refused", "-"))
        else
            local r = p.jobs[1].result.result
            local t = r.op_types[cell == "read" and "read" or "write"]
            print(string.format("%8s %-8s %12.1f %8.1f", bs, cell, t.mib_per_s,
                                r.cpu.user_pct + r.cpu.system_pct))
        end
    end
end
