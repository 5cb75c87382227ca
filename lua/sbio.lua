-- sbio.lua: the prelude every workload script runs in (compiled into the sbio binary).
-- A script declares; C executes. Declarations are checked here, where the error can name
-- the script's file and line (error(msg, level) points at the caller).

-- Calls a prelude helper makes on its caller's behalf (sbio.filebench_set): each adds a
-- level, so that messages and recorded lines name the script's line, not the prelude's.
local behalf = 0

-- The declarations, read by C once the script has run (returned to C below, never handed to
-- the script, so that only what the checks below built reaches C).
local S = {options = {}, option_order = {}, fileset = nil, phases = {}, hooks = {}}

-- What C hands over (src/control/script.c fills __sbio_c before this file runs): the names of the
-- modes and of this build's engines, in C's order, and the defaults of the fields below that
-- are an option's counterpart (job: engine, threads, block, fsync_freq, fsync_end, rw_ratio,
-- invalidate, fadvise, random_order; phase: time), taken from sbio's option table.
local C = __sbio_c
local D = C.defaults
local CAP = C.caps -- the command line's ranges of the options the fileset's fields stand for
local function set_of(list)
    local set = {}
    for _, v in ipairs(list) do set[v] = true end
    return set
end

local SIZE_UNITS = {[""] = 1, k = 1024, m = 1024 ^ 2, g = 1024 ^ 3, t = 1024 ^ 4}

-- "16k", "4KiB", "1G", 4096 -> bytes; nil, why on error.
local function size(v)
    if type(v) == "number" then
        if v ~= math.floor(v) or v <= 0 or v > CAP.size then
            return nil, "a size must be a positive whole number of bytes, at most " ..
                        string.format("%.0f", CAP.size)
        end
        return v
    end
    if type(v) ~= "string" then
        return nil, "a size is a number or a string like \"16k\""
    end
    local n, u = v:lower():match("^(%d+)([kmgt]?)i?b?$")
    if not n then
        return nil, "'" .. v .. "' is not a size (bytes, or K/M/G/T, e.g. 16k, 2G)"
    end
    n = tonumber(n) * SIZE_UNITS[u]
    if n <= 0 then
        return nil, "a size must be positive"
    end
    if n > CAP.size then
        return nil, "'" .. v .. "' is above " .. string.format("%.0f", CAP.size) ..
                    " bytes (8 EiB)"
    end
    return n
end
sbio = {size = size}
-- A table the script hands over, read raw (rawget, no metamethod runs): what is checked is
-- what C reads.
local function raw(t)
    if type(t) ~= "table" then return t end
    local c = {}
    for k, v in next, t do c[k] = v end
    return c
end

-- The per-event hook's context: C reads the operation event(ctx) fills in (FFI cdata, not a
-- table, so a call builds nothing). op: 0 read, 1 write, 2 fsync, 3 fdatasync. Its fields
-- (op, file, offset, len, thread, seq) come from C's own struct (src/control/script.c), so the two
-- layouts cannot drift apart.
local ffi = require("ffi")
ffi.cdef("typedef struct sbio_ctx { " .. __sbio_ctx_fields .. " } sbio_ctx;")
sbio.READ, sbio.WRITE, sbio.FSYNC, sbio.FDATASYNC = 0, 1, 2, 3
local files = {} -- sizes of the set's files, in bytes (C fills them for event hooks)
sbio.files = files
local function new_ctx() return ffi.new("sbio_ctx") end
sbio.new_ctx = new_ctx
-- Random numbers from the thread's generator, seeded from --rand-seed and the thread id, so
-- a scripted run can be repeated: sbio.rand(n) is a whole number in [0, n).
function sbio.rand(n) return math.floor(math.random() * n) end

-- filebench's personalities (workloads/varmail.lua, fileserver, webserver, webproxy): the
-- options they share, with a personality's defaults d (files, dirwidth, filesize, threads),
-- and their file set: files of gamma sizes of shape 1.5 (filebench's cvar-gamma, written as
-- cvar 1/sqrt(1.5)) around --filesize, d.prealloc of them made by prepare.
function sbio.filebench_set(d)
    behalf = behalf + 1
    option("files", d.files, "files (filebench's nfiles)")
    option("dirwidth", d.dirwidth, "entries per folder (meandirwidth)")
    option("filesize", d.filesize, "mean file size (gamma, shape 1.5: filebench's cvar-gamma)")
    option("threads", d.threads, "threads (nthreads)")
    option("iosize", "1m", "request size of whole-file reads and writes (iosize)")
    option("append", "16k", "bytes per append (meanappendsize)")
    option("time", 10, "seconds (filebench's run: 60)")
    fileset {
        files = options.files,
        dirwidth = options.dirwidth,
        size = { law = "gamma", mean = options.filesize, cvar = 1 / math.sqrt(1.5) },
        prealloc = d.prealloc,
    }
    behalf = behalf - 1
end

-- The operation types of a run document's op_types, in sbio's order (io.h).
sbio.OP_TYPES = {"read", "write", "fsync", "rmw", "create", "append", "readwhole",
                 "writewhole", "open", "close", "stat", "unlink", "rename", "mkdir", "readdir"}

-- filebench's end of run, from a run document r (a job's or a phase total's result.result):
-- a line per operation type counted (ops, ops/s, MiB/s, mean latency in ms and its range),
-- then its "IO Summary" line (all operations; reads and writes per second, the reads
-- counting readwhole's and the writes create's, append's and writewhole's).
function sbio.filebench_summary(r)
    local all, rd, wr, bytes = 0, 0, 0, 0
    local reads = {read = true, readwhole = true, rmw = true}
    local writes = {write = true, create = true, append = true, writewhole = true, rmw = true}
    for _, k in ipairs(sbio.OP_TYPES) do
        local o = r.op_types[k]
        if o and o.ops > 0 then
            local l = o.latency
            print(string.format("%-12s %12dops %10.0fops/s %8.1fmb/s %10.3fms/op [%.3fms - %.3fms]",
                k, o.ops, o.ops_per_s, o.mib_per_s, l.mean_ns / 1e6, l.min_ns / 1e6, l.max_ns / 1e6))
            all = all + o.ops
            bytes = bytes + o.bytes
            if reads[k] then rd = rd + o.ops end
            if writes[k] then wr = wr + o.ops end
        end
    end
    local s = r.elapsed_s > 0 and r.elapsed_s or 1
    local lat = r.latency_all
    print(string.format("IO Summary: %d ops %.3f ops/s %.0f/%.0f rd/wr %.1fmb/s %.3fms/op", all,
        all / s, rd / s, wr / s, bytes / 1048576 / s, lat and lat.mean_ns / 1e6 or 0))
end

local function fail(msg, level)
    error(msg, (level or 2) + 1 + behalf)
end

-- A phase's or a job's name is printed in reports, tables and charts: a line of text, no
-- control character (an escape sequence would act on the reader's terminal), at most 63 bytes
local function check_name(kind, name)
    if name == "" or #name > 63 or name:find("%c") then
        fail(kind .. " names are 1 to 63 bytes of text without control characters", 3)
    end
end

-- Only the fields a declaration knows: a typo is an error, never silently ignored.
local function check_fields(kind, t, allowed, level)
    if type(t) ~= "table" then
        fail(kind .. " takes a table: " .. kind .. " { ... }", level + 2)
    end
    for k in pairs(t) do
        if not allowed[k] then
            local names = {}
            for a in pairs(allowed) do names[#names + 1] = a end
            table.sort(names)
            fail(kind .. ": unknown field '" .. tostring(k) .. "'; accepted: " ..
                 table.concat(names, ", "), level + 2)
        end
    end
end

-- Script options: typed by their default; the command line overrides them (C fills
-- __sbio_overrides before the script runs).
local overrides = rawget(_G, "__sbio_overrides") or {}
options = {}
function option(name, default, help)
    if type(name) ~= "string" or not name:match("^[a-z][a-z0-9-]*$") then
        fail("option: the name must be lowercase letters, digits and dashes")
    end
    local ty = type(default)
    if ty ~= "number" and ty ~= "string" and ty ~= "boolean" then
        fail("option " .. name .. ": the default must be a number, a string or a boolean")
    end
    if S.options[name] then
        fail("option " .. name .. " is declared twice")
    end
    if help ~= nil and type(help) ~= "string" then
        fail("option " .. name .. ": the help is a string")
    end
    S.options[name] = {default = default, help = help or "", type = ty}
    S.option_order[#S.option_order + 1] = name
    local v = default
    local o = overrides[name]
    if o ~= nil then
        if ty == "number" then
            v = tonumber(o) or size(o)
            if not v then fail("--" .. name .. ": '" .. o .. "' is not a number") end
        elseif ty == "boolean" then
            local b = ({on = true, ["true"] = true, yes = true, ["1"] = true,
                        off = false, ["false"] = false, no = false, ["0"] = false})[o]
            if b == nil then fail("--" .. name .. ": '" .. o .. "' is not on/off") end
            v = b
        else
            v = o
        end
    end
    options[name] = v
    return v
end

-- A tree's size: a size (every file that size) or a law table; {law, a, b, p} as C reads it
-- (decl.h, struct sbio_size_dist), or nil, why.
local LAW_FIELDS = {uniform = {"min", "max"}, lognormal = {"mean", "sigma"},
                    gamma = {"mean", "cvar"}}
local function size_law(v)
    v = raw(v)
    if type(v) ~= "table" then
        local n, why = size(v)
        if not n then return nil, why end
        return {law = "fixed", a = n, b = n, p = 0}
    end
    local names = LAW_FIELDS[v.law]
    if not names then
        return nil, "law '" .. tostring(v.law) .. "': accepted: uniform (min, max), " ..
                    "lognormal (mean, sigma), gamma (mean, cvar), or a size for a fixed one"
    end
    for k in pairs(v) do
        if k ~= "law" and k ~= names[1] and k ~= names[2] then
            return nil, v.law .. ": unknown field '" .. tostring(k) .. "'; accepted: law, " ..
                        names[1] .. ", " .. names[2]
        end
    end
    local a, why = size(v[names[1]])
    if not a then return nil, v.law .. ": " .. names[1] .. ": " .. why end
    if v.law == "uniform" then
        local b, bwhy = size(v.max)
        if not b then return nil, "uniform: max: " .. bwhy end
        if a > b then return nil, "uniform: min is above max" end
        return {law = "uniform", a = a, b = b, p = 0}
    end
    local p = v[names[2]]
    if type(p) ~= "number" or not (p > 0) or p == math.huge then
        return nil, v.law .. ": " .. names[2] .. " must be a finite number > 0"
    end
    return {law = v.law, a = a, b = a, p = p}
end

local MAX_TREE_FILES = 100000000

-- fileset { files = N, dirwidth = W, size = …, prealloc = F }: a tree of N slots (tree.h).
-- level: fail's, pointing at the script's line (as the line recorded for C's messages).
local function fileset_tree(t, level)
    local n, w, f = t.files or 1, t.dirwidth, t.prealloc
    if t.sizes then fail("fileset: a tree (dirwidth) takes size, not sizes", level) end
    if type(n) ~= "number" or n < 1 or n > MAX_TREE_FILES or n ~= math.floor(n) then
        fail("fileset: files must be a whole number from 1 to " .. MAX_TREE_FILES, level)
    end
    if type(w) ~= "number" or w < 2 or w > MAX_TREE_FILES or w ~= math.floor(w) then
        fail("fileset: dirwidth (files per folder) must be a whole number from 2 to " ..
             MAX_TREE_FILES, level)
    end
    if f == nil then f = 1 end
    if type(f) ~= "number" or not (f >= 0 and f <= 1) then
        fail("fileset: prealloc (the share of files prepare makes) must be a number from 0 to 1",
             level)
    end
    local law, why = size_law(t.size or "16k")
    if not law then fail("fileset: size: " .. why, level) end
    return {tree = true, files = n, dirwidth = w, prealloc = f, size = law,
            line = debug.getinfo(level + behalf, "l").currentline}
end

function fileset(t)
    t = raw(t)
    check_fields("fileset", t, {files = true, size = true, sizes = true, dirwidth = true,
                                prealloc = true}, 1)
    if S.fileset then fail("fileset is declared twice") end
    if t.dirwidth ~= nil then
        S.fileset = fileset_tree(t, 3)
        return
    end
    if t.prealloc ~= nil then fail("fileset: prealloc goes with a tree (dirwidth = ...)") end
    local fs = {}
    if t.sizes then
        if t.files ~= nil or t.size ~= nil then
            fail("fileset: sizes gives each file's size, files and size a number of files of " ..
                 "one size: give sizes, or files and size, not both")
        end
        if type(t.sizes) ~= "table" or #t.sizes == 0 then
            fail("fileset: sizes is a list of file sizes, e.g. sizes = {\"1G\", \"256M\"}")
        end
        local list = raw(t.sizes)
        if #list > CAP.files then
            fail("fileset: sizes lists " .. #list .. " files; accepted: 1 to " .. CAP.files ..
                 " (as --file-num)")
        end
        for i, v in ipairs(list) do
            local n, why = size(v)
            if not n then fail("fileset: sizes[" .. i .. "]: " .. why) end
            fs[i] = n
        end
    else
        local n = t.files or 1
        if type(n) ~= "number" or n < 1 or n ~= math.floor(n) or n > CAP.files then
            fail("fileset: files " .. tostring(n) .. ": accepted: a whole number from 1 to " ..
                 CAP.files .. " (as --file-num)")
        end
        local total, why = size(t.size or "1G")
        if not total then fail("fileset: size: " .. why) end
        for i = 1, n do fs[i] = math.floor(total / n) end
    end
    S.fileset = fs
end

-- A mix's operations, in C's order (src/base/decl.h): sbio's own, then the file-system operations
-- of a tree job (a fileset with dirwidth). A flow lists the same names, rmw aside.
local OP_NAMES = {"read", "write", "fsync", "fdatasync", "rmw", "create", "append", "readwhole",
                  "writewhole", "open", "close", "stat", "unlink", "rename", "mkdir", "readdir"}
local OPS = set_of(OP_NAMES)
local FLOW_MAX = 64
local ENGINES = set_of(C.engines)
local FLAGS = {direct = true, sync = true, dsync = true}

-- "uniform", "seq" (or "sequential"), "zipf:1.1", "pareto:0.2", "gaussian:0.05", "hot:0.1:0.9"
local function pattern(p)
    if p == "uniform" or p == "seq" or p == "sequential" then
        return {kind = p == "uniform" and "uniform" or "seq"}
    end
    local kind, a, b
    if type(p) == "string" then kind, a, b = p:match("^(%a+):([%d.]+):?([%d.]*)$") end
    a, b = tonumber(a), tonumber(b)
    if kind == "zipf" and a and a > 0 and a ~= 1 then return {kind = kind, a = a} end
    if kind == "pareto" and a and a > 0 and a < 1 then return {kind = kind, a = a} end
    if kind == "gaussian" and a and a > 0 then return {kind = kind, a = a} end
    if kind == "hot" and a and b and a > 0 and a < 1 and b > 0 and b < 1 then
        return {kind = kind, a = a, b = b}
    end
    local what = type(p) == "string" and "'" .. p .. "'" or "(a " .. type(p) .. ")"
    return nil, "pattern " .. what .. ": accepted: uniform, seq (or sequential), " ..
                "zipf:THETA (> 0, not 1), pareto:H (0..1), gaussian:SIGMA (fraction of the set), " ..
                "hot:FRACTION:SHARE (e.g. hot:0.1:0.9)"
end

local JOB_FIELDS = {threads = true, engine = true, iodepth = true, flags = true, mix = true,
                    block = true, pattern = true, rate = true, think = true, name = true,
                    mode = true, fsync_freq = true, fsync_end = true, rw_ratio = true,
                    event = true, stream = true, invalidate = true, fadvise = true,
                    random_order = true, ioprio = true, group = true, flow = true, file_service = true,
                    append = true, files = true}
local GROUP_FIELDS = {weight = true, bfq_weight = true, max = true, latency = true}
local MAX_FIELDS = {rbps = true, wbps = true, riops = true, wiops = true, device = true}
local FADVISE = {none = true, auto = true, normal = true, random = true, sequential = true}
-- A job is either a mix (mix, block, pattern) or one of sysbench's modes with its exact
-- semantics (mode = "rndrw", fsync_freq, fsync_end, rw_ratio, block). A mix syncs where its
-- fsync and fdatasync weights say, and at the end only with fsync_end = true.
local MODES = set_of(C.modes)
-- The tables job() made: phase() takes no other, so C finds every field job() sets.
local made = setmetatable({}, {__mode = "k"})
local JOB_HANDLE = {__metatable = "job",
                    __index = function(h, k)
                        local v = made[h][k]
                        if type(v) ~= "table" then return v end
                    end,
                    __newindex = function() error("a job is read-only once declared", 2) end}

-- block = "16k", or a distribution {["4k"] = 50, ["64k"] = 50} (append alike): a list of
-- {size, weight}, smallest first.
local function size_list(name, field, v)
    local list = {}
    if type(v) == "table" then
        for s, w in pairs(v) do
            local n, why = size(s)
            if not n then fail("job " .. name .. ": " .. field .. ": " .. why, 3) end
            if type(w) ~= "number" or w <= 0 then
                fail("job " .. name .. ": " .. field .. " " .. s ..
                     ": the share must be a number > 0", 3)
            end
            list[#list + 1] = {size = n, weight = w}
        end
        table.sort(list, function(x, y) return x.size < y.size end)
    else
        local n, why = size(v)
        if not n then fail("job " .. name .. ": " .. field .. ": " .. why, 3) end
        list[1] = {size = n, weight = 1}
    end
    if #list == 0 then fail("job " .. name .. ": " .. field .. ": no sizes", 3) end
    return list
end

-- flow = {"create", "append", "fsync", "close", ...}: operations in order, over and over.
local function flow_list(name, f)
    local accepted = table.concat(OP_NAMES, ", "):gsub("rmw, ", "")
    if type(f) ~= "table" or #f == 0 then
        fail("job " .. name .. ": flow is a list of operations, e.g. flow = {\"open\", " ..
             "\"readwhole\", \"close\"}; accepted: " .. accepted, 3)
    end
    if #f > FLOW_MAX then
        fail("job " .. name .. ": flow has " .. #f .. " operations; at most " .. FLOW_MAX, 3)
    end
    for k in pairs(f) do
        if type(k) ~= "number" or k < 1 or k > #f or k ~= math.floor(k) then
            fail("job " .. name .. ": flow is a list, not a table with keys", 3)
        end
    end
    for i, op in ipairs(f) do
        if not OPS[op] or op == "rmw" then
            fail("job " .. name .. ": flow[" .. i .. "]: unknown operation '" .. tostring(op) ..
                 "'; accepted: " .. accepted, 3)
        end
    end
    return f
end

-- files = "0-7,9" or {0, 1, 2}: the set's files (numbered from 0, as ctx.file) a job works on,
-- as a list of ranges {first, last}, sorted and merged; C checks them against the set.
local FILE_RANGES_MAX = 16
local function file_ranges(name, v)
    local function bad(why)
        fail("job " .. name .. ": files " .. why .. "; accepted: the set's files numbered from " ..
             "0, a string of indexes and ranges (files = \"0-7,9\") or a list (files = {0, 1, 2})", 4)
    end
    local r = {}
    local function add(a, b) -- nil, or why not
        if a > 4294967294 or b > 4294967294 then return "index " .. b .. " is too large" end
        if b < a then return "range " .. a .. "-" .. b .. " ends before it starts" end
        r[#r + 1] = {a, b}
    end
    if type(v) == "string" then
        for part in (v .. ","):gmatch("([^,]*),") do
            local a, b = part:match("^%s*(%d+)%s*%-%s*(%d+)%s*$")
            a = a or part:match("^%s*(%d+)%s*$")
            if not a then bad("'" .. v .. "': '" .. part .. "' is not an index or a range") end
            local why = add(tonumber(a), tonumber(b or a))
            if why then bad(why) end
        end
    elseif type(v) == "table" then
        for k in pairs(v) do
            if type(k) ~= "number" or k < 1 or k > #v or k ~= math.floor(k) then
                bad("is a list, not a table with keys")
            end
        end
        if #v == 0 then bad("is an empty list") end
        for _, x in ipairs(v) do
            if type(x) ~= "number" or x < 0 or x ~= math.floor(x) then
                bad("{...}: " .. tostring(x) .. " is not a file's index (a whole number >= 0)")
            end
            local why = add(x, x)
            if why then bad(why) end
        end
    else
        bad("(a " .. type(v) .. ")")
    end
    table.sort(r, function(x, y) return x[1] < y[1] end)
    local m = {}
    for _, x in ipairs(r) do
        local last = m[#m]
        if last and x[1] <= last.last + 1 then
            last.last = math.max(last.last, x[2])
        else
            m[#m + 1] = {first = x[1], last = x[2]}
        end
    end
    if #m > FILE_RANGES_MAX then
        bad("makes " .. #m .. " separate ranges, at most " .. FILE_RANGES_MAX)
    end
    return m
end

function job(name)
    if type(name) ~= "string" then fail("job: give it a name: job \"readers\" { ... }") end
    check_name("job", name)
    return function(t)
        t = raw(t)
        check_fields("job " .. name, t, JOB_FIELDS, 1)
        local j = {name = name, threads = t.threads or D.threads, engine = t.engine or D.engine,
                   iodepth = t.iodepth or 1, rate = t.rate or 0, think = t.think or 0,
                   line = debug.getinfo(2, "l").currentline,
                   src = debug.getinfo(2, "S").short_src}
        if type(j.threads) ~= "number" or j.threads < 1 or j.threads ~= math.floor(j.threads) then
            fail("job " .. name .. ": threads must be a whole number >= 1")
        end
        if not ENGINES[j.engine] then
            fail("job " .. name .. ": engine '" .. tostring(j.engine) .. "': accepted: " ..
                 table.concat(C.engines, ", "))
        end
        if type(j.iodepth) ~= "number" or j.iodepth < 1 then
            fail("job " .. name .. ": iodepth must be >= 1")
        end
        if type(j.rate) ~= "number" or j.rate < 0 then
            fail("job " .. name .. ": rate is operations per second, >= 0")
        end
        if type(j.think) ~= "number" or j.think < 0 then
            fail("job " .. name .. ": think is microseconds between operations, >= 0")
        end
        j.flags = {}
        for f in tostring(t.flags or ""):gmatch("[^,]+") do
            if not FLAGS[f] then
                fail("job " .. name .. ": flag '" .. f .. "': accepted: direct, sync, dsync")
            end
            j.flags[#j.flags + 1] = f
        end
        if t.mode ~= nil then
            if not MODES[t.mode] then
                fail("job " .. name .. ": mode '" .. tostring(t.mode) .. "': accepted: " ..
                     table.concat(C.modes, ", "))
            end
            if t.mix or t.pattern or t.flow then
                fail("job " .. name .. ": a job has a mode or a mix (or flow) and pattern, " ..
                     "not both")
            end
            j.mode = t.mode
        elseif t.fsync_freq or t.rw_ratio then
            fail("job " .. name .. ": fsync_freq and rw_ratio go with mode = ...")
        end
        if t.fsync_end ~= nil and type(t.fsync_end) ~= "boolean" then
            fail("job " .. name .. ": fsync_end '" .. tostring(t.fsync_end) ..
                 "': accepted: true, false")
        end
        if t.stream ~= nil and t.stream ~= "shared" and t.stream ~= "per-thread" then
            fail("job " .. name .. ": stream '" .. tostring(t.stream) ..
                 "': accepted: shared, per-thread")
        end
        if t.stream and not (t.mode and t.mode:match("^seq")) then
            fail("job " .. name .. ": stream goes with a sequential mode (seqwr, seqrewr, seqrd)")
        end
        j.stream = t.stream or "shared"
        j.invalidate, j.fadvise = D.invalidate, t.fadvise or D.fadvise
        j.invalidate_pass = false
        if t.invalidate ~= nil then
            local v = t.invalidate
            if v ~= true and v ~= false and v ~= "once" and v ~= "pass" then
                fail("job " .. name .. ": invalidate '" .. tostring(t.invalidate) ..
                     "': accepted: true or \"once\", \"pass\", false")
            end
            j.invalidate = v ~= false
            j.invalidate_pass = v == "pass"
        end
        if j.invalidate_pass and (t.event or t.mix or t.flow or
                                  (t.mode and t.mode:match("^rnd") and
                                   (t.random_order or D.random_order) ~= "once")) then
            fail("job " .. name .. ": invalidate = \"pass\" goes with a sequential mode " ..
                 "(seqwr, seqrewr, seqrd) or a random one with random_order = \"once\"")
        end
        j.file_service = t.file_service or "set"
        if j.file_service ~= "set" and j.file_service ~= "roundrobin" then
            fail("job " .. name .. ": file_service '" .. tostring(t.file_service) ..
                 "': accepted: set, roundrobin")
        end
        if j.file_service == "roundrobin" and t.mode ~= "seqrd" and t.mode ~= "seqrewr" then
            fail("job " .. name .. ": file_service = \"roundrobin\" goes with mode seqrd or seqrewr")
        end
        if not FADVISE[j.fadvise] then
            fail("job " .. name .. ": fadvise '" .. tostring(j.fadvise) ..
                 "': accepted: none, auto, normal, random, sequential")
        end
        j.random_order = t.random_order or D.random_order
        if j.random_order ~= "draw" and j.random_order ~= "once" then
            fail("job " .. name .. ": random_order '" .. tostring(j.random_order) ..
                 "': accepted: draw, once")
        end
        if t.random_order == "once" and ((t.mode and not t.mode:match("^rnd")) or t.event or
                                          (t.pattern and t.pattern ~= "uniform")) then
            fail("job " .. name .. ": random_order = \"once\" goes with a random mode (rndrd, " ..
                 "rndwr, rndrw) or a mix's uniform pattern")
        end
        -- The class and level are read in C (src/sys/ioprio.c), as --ioprio's are.
        if t.ioprio ~= nil and type(t.ioprio) ~= "string" then
            fail("job " .. name .. ": ioprio '" .. tostring(t.ioprio) ..
                 "' is not a string; accepted: \"rt:0\" to \"rt:7\", \"be:0\" to \"be:7\", " ..
                 "\"idle\", \"none\"")
        end
        j.ioprio = t.ioprio
        -- The group's values are read in C (src/control/script.c), sizes as the command line's are.
        if t.group ~= nil then
            local g = raw(t.group)
            check_fields("job " .. name .. ": group", g, GROUP_FIELDS, 1)
            if g.max ~= nil then
                g.max = raw(g.max)
                check_fields("job " .. name .. ": group max", g.max, MAX_FIELDS, 1)
            end
            j.group = g
        end
        j.fsync_freq = t.fsync_freq or D.fsync_freq
        -- The end fsync is the job's: the command line's --file-fsync-end does not reach it.
        if t.fsync_end ~= nil then
            j.fsync_end = t.fsync_end
        else
            j.fsync_end = t.mode ~= nil and D.fsync_end
        end
        j.rw_ratio = t.rw_ratio or D.rw_ratio
        if type(j.fsync_freq) ~= "number" or j.fsync_freq < 0 then
            fail("job " .. name .. ": fsync_freq must be a number >= 0")
        end
        if type(j.rw_ratio) ~= "number" or j.rw_ratio <= 0 then
            fail("job " .. name .. ": rw_ratio must be a number > 0")
        end
        if t.event ~= nil then
            if t.event ~= true then fail("job " .. name .. ": event = true, or leave it out") end
            if t.mode or t.mix or t.pattern or t.flow then
                fail("job " .. name .. ": an event job takes its operations from event(ctx), " ..
                     "not from mode, mix or pattern")
            end
            if t.fsync_end ~= nil then
                fail("job " .. name .. ": fsync_end goes with mode = ... or a mix")
            end
            j.event = true
        end
        if t.mix and t.flow then
            fail("job " .. name .. ": a job has a mix (weights) or a flow (an order), not both")
        end
        if t.flow then j.flow = flow_list(name, raw(t.flow)) end
        local mix = raw(t.mix) or (t.flow and {}) or {read = 1}
        if type(mix) ~= "table" then
            fail("job " .. name .. ": mix is a table of weights, e.g. mix = {read = 3, write = 1}")
        end
        j.mix, j.weight = {}, t.flow and 1 or 0
        for op, w in pairs(mix) do
            if not OPS[op] then
                fail("job " .. name .. ": mix: unknown operation '" .. tostring(op) ..
                     "'; accepted: " .. table.concat(OP_NAMES, ", "))
            end
            if type(w) ~= "number" or w < 0 then
                fail("job " .. name .. ": mix: the weight of " .. op .. " must be a number >= 0")
            end
            j.mix[op] = w
            j.weight = j.weight + w
        end
        if j.weight <= 0 then fail("job " .. name .. ": mix: all weights are zero") end
        j.blocks = size_list(name, "block", raw(t.block) or D.block)
        -- A tree job's append size: a size or a distribution, the block's by default.
        if t.append ~= nil then j.appends = size_list(name, "append", raw(t.append)) end
        if t.files ~= nil then
            if t.event or t.mode == "seqwr" then
                fail("job " .. name .. ": files goes with a mix or a mode other than seqwr (" ..
                     (t.event and "an event job chooses its files itself" or
                      "seqwr writes the whole set") .. ")")
            end
            j.files = file_ranges(name, raw(t.files))
        end
        local pat, why = pattern(t.pattern or "uniform")
        if not pat then fail("job " .. name .. ": " .. why) end
        j.pattern = pat
        -- The script gets a handle; phase() takes the job as checked here, whatever the
        -- script does with the handle afterwards.
        local handle = setmetatable({}, JOB_HANDLE)
        made[handle] = j
        return handle
    end
end

local PHASE_FIELDS = {time = true, events = true, drop_caches = true, jobs = true}

function phase(name)
    if type(name) ~= "string" then fail("phase: give it a name: phase \"read\" { ... }") end
    check_name("phase", name)
    return function(t)
        if type(t) ~= "table" then fail("phase " .. name .. " takes a table") end
        t = raw(t)
        local p = {name = name, jobs = {}, time = t.time or D.time, events = t.events or 0,
                   drop_caches = t.drop_caches or false,
                   line = debug.getinfo(2, "l").currentline}
        local seen = {}
        for k, v in pairs(t) do
            if type(k) == "number" then
                local j = made[v]
                if not j then
                    fail("phase " .. name .. ": list jobs made with job \"name\" { ... }")
                end
                p.jobs[#p.jobs + 1] = j
            elseif not PHASE_FIELDS[k] then
                fail("phase " .. name .. ": unknown field '" .. tostring(k) ..
                     "'; accepted: drop_caches, events, time, and the jobs")
            end
        end
        if #p.jobs == 0 then fail("phase " .. name .. ": no jobs") end
        for _, j in ipairs(p.jobs) do
            local other = seen[j.name]
            if other == j then
                fail("phase " .. name .. ": job " .. j.name .. " (line " .. j.line ..
                     ") is listed twice")
            elseif other then
                local a, b = math.min(other.line, j.line), math.max(other.line, j.line)
                fail("phase " .. name .. ": two jobs named " .. j.name .. " (lines " .. a ..
                     " and " .. b .. "); the jobs of a phase need names of their own")
            end
            seen[j.name] = j
            if j.mode == "seqwr" and #p.jobs > 1 then
                -- about the job: at its line, not the phase's
                error(j.src .. ":" .. j.line .. ": phase " .. name .. ": job " .. j.name ..
                      " is a seqwr job, which empties the files the other jobs use: give it " ..
                      "a phase of its own", 0)
            end
        end
        if type(p.time) ~= "number" or p.time < 0 then fail("phase " .. name .. ": time >= 0") end
        if type(p.events) ~= "number" or p.events < 0 then
            fail("phase " .. name .. ": events >= 0")
        end
        if type(p.drop_caches) ~= "boolean" then
            fail("phase " .. name .. ": drop_caches '" .. tostring(p.drop_caches) ..
                 "': accepted: true, false")
        end
        S.phases[#S.phases + 1] = p
    end
end

-- The script's environment. A script is a program handed around like data: by default it
-- runs with what a workload needs and nothing else — the declarations above, sbio, options,
-- math, string (without dump), table, bit, coroutine, the base functions that touch nothing
-- outside the script, os.time, os.clock and os.date — and no file, process, FFI, debug,
-- module or bytecode access. A trusted script (--script-trusted) sees all of Lua but
-- os.exit, which would end sbio before it restores the settings it changed.
local SAFE_BASE = {"assert", "error", "ipairs", "next", "pairs", "pcall", "print", "select",
                   "tonumber", "tostring", "type", "unpack", "xpcall", "rawequal", "rawget",
                   "rawset", "setmetatable", "getmetatable", "_VERSION"}
local API = {"option", "fileset", "job", "phase", "sbio", "options"}

local function no_exit()
    error("os.exit is not available to a script: it would end sbio before it restores the " ..
          "settings it changed; return false from event() to end a job, or call error()", 2)
end
os.exit = no_exit

-- Lua's pattern matching runs in C, where no hook reaches: ("a?"):rep(28) .. ("a"):rep(28)
-- against 28 a's backtracks for most of a minute. In the sandbox a match whose worst case
-- exceeds about 1e8 steps is refused before it starts: each quantified item (*, +, -) may
-- try every place of the subject, each ? two, an unanchored pattern every start.
local MATCH_BUDGET = math.log(1e8)
local function match_cost(s, p)
    local n, len, i, cost = math.log(#s + 2), #p, 1, 0
    if p:byte(1) == 94 then i = 2 else cost = n end -- "^"
    while i <= len do
        local c = p:byte(i)
        if c == 37 then -- "%": an escape, %bxy, %f[set]
            local e = p:byte(i + 1)
            i = i + (e == 98 and 4 or 2)
            if e == 102 then c = 91 end
        end
        if c == 91 then -- "[set]"
            i = i + 1
            if p:byte(i) == 94 then i = i + 1 end
            if p:byte(i) == 93 then i = i + 1 end
            while i <= len and p:byte(i) ~= 93 do
                i = i + (p:byte(i) == 37 and 2 or 1)
            end
            i = i + 1
        elseif c ~= 37 then
            i = i + 1
        end
        local q = p:byte(i)
        if q == 42 or q == 43 or q == 45 then -- * + -
            cost, i = cost + n, i + 1
        elseif q == 63 then -- ?
            cost, i = cost + 0.6931, i + 1
        end
    end
    return cost
end
local function bounded(name, f)
    return function(s, p, ...)
        if type(p) == "string" and (type(s) == "string" or type(s) == "number") and
           match_cost(tostring(s), p) > MATCH_BUDGET then
            error("string." .. name .. ": the pattern '" .. p:sub(1, 40) .. "' over " .. #tostring(s) ..
                  " bytes could take too long (its backtracking runs where sbio cannot stop " ..
                  "it); match a shorter string or a simpler pattern", 2)
        end
        return f(s, p, ...)
    end
end

local function environment(trusted)
    -- Strings share one metatable whose __index is the string library: guard it, and take
    -- dump (bytecode out of any function) from the library itself.
    getmetatable("").__metatable = false
    if trusted then
        return setmetatable({}, {__index = _G})
    end
    string.dump = nil
    -- The library itself: method calls ("s:find(p)") reach it through the strings' metatable.
    for _, name in ipairs({"find", "match", "gmatch", "gsub"}) do
        string[name] = bounded(name, string[name])
    end
    local env = {}
    for _, k in ipairs(SAFE_BASE) do env[k] = _G[k] end
    for _, k in ipairs(API) do env[k] = _G[k] end
    for _, lib in ipairs({"math", "string", "table", "bit", "coroutine"}) do
        env[lib] = raw(_G[lib])
    end
    env.os = {time = os.time, clock = os.clock, date = os.date}
    env._G = env
    return env
end

-- What C keeps to itself: the declarations, the environment builder, and what the event hook
-- needs whatever the script did to the sbio table.
return {S = S, environment = environment, sbio = sbio, files = files, new_ctx = new_ctx}
