-- postmark.lua — PostMark's test: a pool of small files is created, then transactions run
-- on it, each a read or an append (of a file of the pool) and a create or a delete, and
-- the figure is transactions per second; then what is left of the pool is deleted.
-- The original: postmark (Debian's 1.53, "v1.51" in its banner) with its defaults ("set
-- number 500", "set transactions 500", "set size 500 10000", "set read 512", "set write
-- 512", "set bias read 5", "set bias create 5", "set subdirectories 0", buffering on), which
-- are the defaults here; --number, --transactions, --min-size, --max-size, --read, --write,
-- --bias-read, --bias-create, --buffering play them.
--
-- As PostMark does:
-- - its table of files has 2 x --number slots (the tree's slots, one folder): the pool
--   fills --number of them ("create" phase); a create finding every slot taken does nothing;
-- - a file's size is --min-size plus a draw below --max-size - --min-size (the largest
--   size is never drawn unless both are equal), written whole at its create;
-- - each transaction is one half "read or append", drawn with the read bias out of 10, then
--   one half "create or delete", drawn with the create bias; a bias of -1 leaves its half
--   out; when the pool runs out (as many deleted as created), the transactions stop;
-- - reads and writes with --buffering (PostMark's default, "Using Unix buffered file I/O")
--   are system calls of stdio's 4096-byte buffer (strace of postmark), else --read and
--   --write requests; each file is opened and closed by the operation that reads or writes
--   it;
-- - then every file left is deleted ("delete" phase).
-- A bias of 0 or 10 (or -1) leaves its half no draw: with both biases so, each transaction
-- is one list of operations (a flow) and the phases run PostMark's exact sequence of calls
-- — reads, writes, unlinks and opens — whatever sbio's draws: with 10, a read (open, whole
-- file, close) or a create (open, whole file, close); with 0, an append or a delete. With
-- "set size S S" a file is full from its create, and PostMark's append to a full file does
-- nothing (no call): the append half is then empty. A create half of 10 fills the table in
-- --number transactions; the transactions after it ("transactions, table full") are their
-- read halves alone. A delete half of 0 empties the pool in --number transactions, where
-- PostMark stops ("out of files!", and prints no report).
-- Differences: with a bias between 1 and 9 the halves are drawn as independent operations
-- of one mix (read or append with the read bias, create or delete with the create bias), so
-- the proportions are PostMark's but not the exact counts, and transactions = operations /
-- 2; an append writes --write bytes in one pwrite, to any file (PostMark appends a random
-- amount up to the file's room below --max-size, 1547 bytes on average with its defaults,
-- in chunks of its write size or its buffer, and never to a full file); with --buffering
-- off and a file a whole number of --read or --write blocks, PostMark ends the file's reads
-- or writes with an empty call (read or write of 0 bytes), sbio does not; files are f<slot>
-- in one folder (PostMark: numbers in creation order). PostMark times in whole seconds:
-- give it enough transactions for tens of seconds before comparing rates.
--   sbio prepare --script postmark --dir=D     (an empty tree)
--   sbio run --script postmark --dir=D --number=2000 --transactions=10000
--
-- Output: after sbio's reports, report() prints PostMark's summary lines: total time,
-- transactions and transactions per second, files created, read, appended and deleted
-- (with per-second figures over the transaction phases).
option("number", 500, "files in the pool; the table holds twice as many (set number)")
option("transactions", 500, "transactions (set transactions)")
option("min-size", 500, "smallest file, bytes (set size LOW HIGH)")
option("max-size", 10000, "largest file, bytes (set size LOW HIGH)")
option("read", 512, "read request size (set read)")
option("write", 512, "write request size (set write)")
option("bias-read", 5, "reads among read/append, 0..10, -1: no read/append half (set bias read)")
option("bias-create", 5, "creates among create/delete, 0..10, -1: no create/delete half (set bias create)")
option("buffering", true, "stdio's buffered I/O: requests of its 4 KiB buffer (set buffering)")

local o = options
local n, t, lo, hi = o.number, o.transactions, o["min-size"], o["max-size"]
local br, bc = o["bias-read"], o["bias-create"]
for _, b in ipairs({ { "bias-read", br }, { "bias-create", bc } }) do
    if b[2] ~= math.floor(b[2]) or b[2] < -1 or b[2] > 10 then
        error(string.format("--%s=%s: a whole number from -1 to 10 (as PostMark's set %s)",
            b[1], tostring(b[2]), b[1]:gsub("-", " ")), 0)
    end
end
if hi < lo then hi = lo end -- PostMark's set size: a high bound below the low one is the low one
-- With buffering (PostMark's default) stdio turns its 512-byte reads and writes into system
-- calls of its 4096-byte buffer (strace of postmark: write and read calls of 4096 bytes).
local rd, wr = o.read, o.write
if o.buffering then rd, wr = 4096, 4096 end
fileset {
    files = 2 * n,
    dirwidth = math.max(2, 2 * n),
    size = hi == lo and lo or { law = "uniform", min = lo, max = hi - 1 },
    prealloc = 0,
}

phase "create" {
    time = 0, events = 2 * n, -- n files: a create and a close each
    job "postmark" { block = wr, flow = { "create", "close" } },
}

-- A half with no draw (bias -1, 0 or 10): its operations, in order ({} for none).
local function fixed_half(bias, always, never)
    if bias == 10 then return always end
    if bias == 0 then return never end
    return {}
end
local function transactions(name, count, flow)
    if count > 0 and #flow > 0 then
        phase(name) {
            time = 0, events = count * #flow,
            job "postmark" { block = rd, append = o.write, flow = flow },
        }
    end
end
local left = n -- the files left for the delete phase (at most)
local ntrans = t -- the transactions PostMark makes (fewer when the pool runs out)
local fixed = (br == -1 or br == 0 or br == 10) and (bc == -1 or bc == 0 or bc == 10)
if fixed then
    -- An append to a full file does nothing: with one size, every file is full.
    local rhalf = fixed_half(br, { "readwhole", "close" }, hi == lo and {} or { "append", "close" })
    local chalf = fixed_half(bc, { "create", "close" }, { "unlink" })
    local both = {}
    for _, op in ipairs(rhalf) do both[#both + 1] = op end
    for _, op in ipairs(chalf) do both[#both + 1] = op end
    if bc == -1 then
        transactions("transactions", t, rhalf)
    else -- a create fills one of the table's n free slots, a delete empties one of n files
        local k = math.min(t, n)
        transactions("transactions", k, both)
        if bc == 10 then
            transactions("transactions, table full", t - k, rhalf)
            left = n + k
        else
            left, ntrans = n - k, k
        end
    end
else
    local mix = {}
    if br ~= -1 then mix.readwhole, mix.append = br, 10 - br end
    if bc ~= -1 then mix.create, mix.unlink = bc, 10 - bc end
    local halves = (br ~= -1 and 1 or 0) + (bc ~= -1 and 1 or 0)
    phase "transactions" {
        time = 0, events = halves * t,
        job "postmark" { block = rd, append = o.write, mix = mix },
    }
    left = 2 * n
    if bc == 0 and t >= n then left = 0 end -- every transaction deletes: the pool runs out
end
-- Every file left: the thread's stream ends when it has none (doc/scripting.md, "Skipping").
if left > 0 then
    phase "delete" {
        time = 0, events = left,
        job "postmark" { mix = { unlink = 1 } },
    }
end

function report(result)
    local total, elapsed, ops = 0, 0, {}
    for _, p in ipairs(result.phases) do
        local r = p.jobs[1].result.result
        total = total + r.elapsed_s
        if p.name:sub(1, 12) == "transactions" then
            elapsed = elapsed + r.elapsed_s
            for k, v in pairs(r.op_types) do ops[k] = (ops[k] or 0) + v.ops end
        end
    end
    local function rate(x) return elapsed > 0 and x / elapsed or 0 end
    if not fixed then -- the mix's operations, two halves a transaction
        local halves = (br ~= -1 and 1 or 0) + (bc ~= -1 and 1 or 0)
        local sum = 0
        for _, k in ipairs({ "create", "readwhole", "append", "unlink" }) do sum = sum + (ops[k] or 0) end
        ntrans = halves > 0 and math.floor(sum / halves + 0.5) or 0
    end
    print(string.format("Time:\n\t%.2f seconds total\n\t%.2f seconds of transactions (%d, %.1f per second)",
        total, elapsed, ntrans, rate(ntrans)))
    for _, k in ipairs({ "create", "readwhole", "append", "unlink" }) do
        print(string.format("\t%d files %s (%.1f per second)", ops[k] or 0,
            ({ create = "created", readwhole = "read", append = "appended", unlink = "deleted" })[k],
            rate(ops[k] or 0)))
    end
end
