-- io-controller.lua — what the block I/O controller does with groups: do groups get the
-- device's bandwidth in proportion to their weights, and what does running inside a group
-- cost? (the question of the "IO scheduler based IO controller" work that experiment 3's
-- fio matrix comes from). Two parts:
--   "weights": N readers (--readers, 4) side by side, each in a control group of its own
--     with its weight (--weights, "100,200,400,800"), 64 KiB O_DIRECT random reads (libaio,
--     16 in flight: a group gets its share only while it keeps the device busy). Each
--     group's MiB/s and share of the bytes against the share its weight asks for (its
--     weight over the weights' sum), and Jain's fairness index over bytes/s per asked share
--     (1: exactly as the weights ask).
--   "outside" / "inside": cells of experiment 3's matrix (workloads/fio-matrix.lua; by
--     default its sequential and random O_DIRECT reads at 32 KiB, --cells), each run alone
--     once outside any group and once inside a group of its own with the kernel's default
--     weight and no limits: the ratio inside / outside is the controller's own cost.
-- Groups need root and a kernel with the io (cgroup v2) or blkio (cgroup v1) controller;
-- sbio refuses the script before it starts otherwise (exit 2, one line). The weights are
-- bfq's (--weight-field=bfq_weight: blkio.bfq.weight on v1, io.bfq.weight on v2): they
-- act only on a device whose scheduler is bfq, so run it with --scheduler=bfq on the set's
-- device; under any other scheduler they do nothing, the readers share the device as it
-- splits it anyway, and report() says so. --weight-field=weight writes io.weight instead
-- (cgroup v2 only; the kernel's io.cost controller honours it where io.cost.qos enables it
-- for the device).
--   sbio prepare --script io-controller --dir=D
--   sbio run --script io-controller --dir=D --scheduler=bfq
--   sbio compare --script io-controller --dir=D --scheduler=bfq
--       --vary weights=100:100:100:100,100:200:400:800     (equal weights against the ladder)
-- The experiment's pair of weights as fio jobs (fio has no cgroup option on cgroup v1: each
-- job started inside a blkio group G made beforehand, its weight in G/blkio.bfq.weight), on
-- the set's ten files (doc/experiments.md gives both tools' figures):
--   sh -c 'echo $$ > /sys/fs/cgroup/blkio/G/tasks; exec fio --name=G --direct=1
--       --filename=D/test_file.0:D/test_file.1:...:D/test_file.9 --rw=randread --bs=64k
--       --ioengine=libaio --iodepth=16 --runtime=10 --time_based'
-- About 11 s by default (3 s of weights, 2 s per cell) over a 1 GiB set of ten files: --time
-- for the weights phase, --cell-time per cell (--cells= for none), --size for a set larger
-- than the device's cache.
--
-- Output: after sbio's reports, report() prints a table of the weights phase (group,
-- weight, MiB/s, share, asked share, share / asked) with Jain's index, a line saying so when
-- the run's scheduler is not bfq, and a table of the cells (MiB/s outside, inside, and
-- inside / outside).
option("size", "1G", "size of the set (ten files)")
option("time", 3, "seconds of the weights phase")
option("readers", 4, "readers of the weights phase, each in its own group")
option("weights", "100,200,400,800", "the readers' weights, one per reader, separated by commas or colons (100:800 for compare --vary)")
option("weight-field", "bfq_weight", "the group field the weights go to: bfq_weight or weight (io.weight, cgroup v2)")
option("threads", 1, "threads per reader")
option("engine", "libaio", "the readers' engine")
option("iodepth", 16, "requests in flight per reader thread")
option("cells", "read direct,randread direct",
       "experiment 3's cells to run outside and inside a group: MODE WAY, comma-separated " ..
       "(MODE read, randread, write, randwrite; WAY sync, mmap, libaio, direct; empty: none)")
option("cell-time", 2, "seconds per cell, outside and inside")
option("block", "32k", "the cells' request size")
option("depth", 16, "the libaio cells' queue depth")

fileset { files = 10, size = options.size }

local weights = {}
for w in tostring(options.weights):gmatch("[^,:]+") do
    local n = tonumber(w)
    if not n then error("--weights: '" .. w .. "' is not a number; accepted: weights " ..
                        "separated by commas or colons, e.g. 100,200,400,800", 0) end
    weights[#weights + 1] = n
end
if options.readers < 2 then
    error("--readers " .. options.readers .. " is not valid; accepted: 2 or more (the " ..
          "groups share the device)", 0)
end
if #weights ~= options.readers then
    error(string.format("--weights gives %d weight%s for %d reader%s; accepted: one weight " ..
                        "per reader", #weights, #weights == 1 and "" or "s", options.readers,
                        options.readers == 1 and "" or "s"), 0)
end
local field = options["weight-field"]
if field ~= "bfq_weight" and field ~= "weight" then
    error("--weight-field '" .. field .. "' is not valid; accepted: bfq_weight, weight", 0)
end

local readers = {}
for i, w in ipairs(weights) do
    readers[i] = job("reader" .. i) { threads = options.threads, engine = options.engine,
                                      iodepth = options.iodepth, block = "64k",
                                      flags = "direct", mix = { read = 1 },
                                      pattern = "uniform", group = { [field] = w } }
end
readers.time = options.time
phase "weights" (readers)

-- Experiment 3's cells as workloads/fio-matrix.lua declares them.
local ways = { sync = { engine = "sync" }, mmap = { engine = "mmap" },
               libaio = { engine = "libaio", iodepth = options.depth },
               direct = { engine = "sync", flags = "direct" } }
local modes = { read = "seqrd", randread = "rndrd", write = "seqrewr", randwrite = "rndwr" }
local function cell(m, w, group)
    local j = { mode = modes[m], block = options.block, fsync_freq = 0, fsync_end = false,
                invalidate = true, fadvise = "auto", group = group }
    if modes[m]:match("^rnd") then j.random_order = "once" end
    for k, v in pairs(ways[w]) do j[k] = v end
    return job(m) (j)
end
local cells = {}
for c in tostring(options.cells):gmatch("[^,]+") do
    local m, w = c:match("^%s*(%S+)%s+(%S+)%s*$")
    if not (m and modes[m] and ways[w]) then
        error("--cells: '" .. c .. "' is not a cell; accepted: MODE WAY (MODE read, " ..
              "randread, write, randwrite; WAY sync, mmap, libaio, direct), e.g. " ..
              "\"read direct,randread direct\"", 0)
    end
    cells[#cells + 1] = m .. " " .. w
    for _, where in ipairs({ "outside", "inside" }) do
        phase(where .. " " .. m .. " " .. w) {
            time = options["cell-time"], drop_caches = true,
            cell(m, w, where == "inside" and {} or nil)
        }
    end
end

local function weights_table(p)
    local s = p.shares
    local sched = p.jobs[1].result.environment.scheduler
    print(string.format("weights (%s, scheduler %s): each group's share of the bytes against " ..
                        "the share its weight asks for", field, sched or "none: no block device"))
    print(string.format("  %-10s %8s %10s %8s %8s %8s", "group", "weight", "MiB/s", "share",
                        "asked", "ratio"))
    for _, j in ipairs(s.jobs) do
        print(string.format("  %-10s %8d %10.1f %8.3f %8.3f %8.2f", j.name, j.weight,
                            j.mib_per_s, j.bytes_share, j.asked_share, j.ratio))
    end
    print(string.format("  Jain's fairness index: %.3f (over bytes/s per asked share, %d groups)",
                        s.jain_index, #s.jobs))
    if field == "bfq_weight" and sched ~= "bfq" then
        print(string.format("  the run's scheduler is %s, not bfq: bfq_weight does nothing " ..
                            "there, the groups share the device as it splits it unweighted " ..
                            "(run with --scheduler=bfq)", sched or "none"))
    end
end

local function cost_table(result)
    local mib = {}
    for _, p in ipairs(result.phases) do
        local where, c = p.name:match("^(%S+) (.+)$")
        if where == "outside" or where == "inside" then
            mib[c] = mib[c] or {}
            if not p.refused then
                local r = p.jobs[1].result.result
                local t = c:find("write") and r.op_types.write or r.op_types.read
                mib[c][where] = t.mib_per_s
            end
        end
    end
    if #cells == 0 then return end
    print("the controller's cost: each cell alone, outside any group and inside a group of " ..
          "its own (default weight, no limits)")
    print(string.format("  %-18s %14s %14s %15s", "cell", "outside MiB/s", "inside MiB/s",
                        "inside/outside"))
    for _, c in ipairs(cells) do
        local o, i = mib[c].outside, mib[c].inside
        print(string.format("  %-18s %14s %14s %15s", c, o and string.format("%.1f", o) or "refused",
                            i and string.format("%.1f", i) or "refused",
                            (o and i and o > 0) and string.format("%.2f", i / o) or "-"))
    end
end

function report(result)
    local p = result.phases[1]
    if p.refused or not p.shares then
        print("weights: refused")
    else
        weights_table(p)
    end
    cost_table(result)
end
