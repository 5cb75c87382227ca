-- postmark.lua — PostMark's test: a pool of small files is created, then transactions run
-- on it, each a read or an append (of a file of the pool) and a create or a delete, and
-- the figure is transactions per second; then the pool is deleted.
-- The original: postmark with its defaults ("set number 500", "set transactions 500",
-- "set size 500 10000", "set read 512", "set write 512", "set bias read 5", "set bias
-- create 5", "set subdirectories 0"), which are the defaults here; --number,
-- --transactions, --min-size, --max-size, --read, --write, --bias-read, --bias-create play
-- them. Three phases as PostMark's three steps: "create" (the pool), "transactions" and
-- "delete" (what is left).
-- Differences: a transaction's two halves are drawn as two independent operations of one
-- mix (read or append with the read bias, create or delete with the create bias), so the
-- proportions are PostMark's and transactions = operations / 2; an append writes --write
-- bytes once (PostMark appends a random amount in --write chunks); with --buffering (its
-- default, "Using Unix buffered file I/O") sbio reads and writes in 4 KiB requests as
-- stdio's buffer does, else in --read and --write requests; files are f<slot> in one
-- folder (PostMark: random names). PostMark times in whole seconds: give it enough
-- transactions for tens of seconds before comparing rates.
--   sbio prepare --script postmark --dir=D     (an empty tree)
--   sbio run --script postmark --dir=D --number=2000 --transactions=10000
--
-- Output: after sbio's reports, report() prints PostMark's summary lines: total time,
-- transactions and transactions per second, files created, read, appended and deleted
-- (with per-second figures over the transaction phase), and data read and written.
option("number", 500, "files in the pool (set number)")
option("transactions", 500, "transactions (set transactions)")
option("min-size", 500, "smallest file, bytes (set size LOW HIGH)")
option("max-size", 10000, "largest file, bytes (set size LOW HIGH)")
option("read", 512, "read request size (set read)")
option("write", 512, "write request size (set write)")
option("bias-read", 5, "reads among read/append, 0..10 (set bias read)")
option("bias-create", 5, "creates among create/delete, 0..10 (set bias create)")
option("buffering", true, "stdio's buffered I/O: requests of its 4 KiB buffer (set buffering)")

local o = options
-- With buffering (PostMark's default) stdio turns its 512-byte reads and writes into system
-- calls of its 4096-byte buffer (strace -c of postmark: write and read calls of 4096 bytes).
local rd, wr = o.read, o.write
if o.buffering then rd, wr = 4096, 4096 end
fileset {
    files = o.number + o.transactions,
    dirwidth = math.max(2, o.number + o.transactions),
    size = { law = "uniform", min = o["min-size"], max = o["max-size"] },
    prealloc = 0,
}

phase "create" {
    time = 0, events = o.number,
    job "postmark" { block = wr, mix = { create = 1 } },
}
phase "transactions" {
    time = 0, events = 2 * o.transactions,
    job "postmark" {
        block = rd, append = o.write,
        mix = { readwhole = o["bias-read"], append = 10 - o["bias-read"],
                create = o["bias-create"], unlink = 10 - o["bias-create"] },
    },
}
-- Every file left: the thread's stream ends when it has none (doc/scripting.md, "Skipping").
phase "delete" {
    time = 0, events = o.number + o.transactions,
    job "postmark" { mix = { unlink = 1 } },
}

function report(result)
    local total, t = 0, nil
    for _, p in ipairs(result.phases) do
        local r = p.jobs[1].result.result
        total = total + r.elapsed_s
        if p.name == "transactions" then t = r end
    end
    local function ops(r, k) return r.op_types[k] and r.op_types[k].ops or 0 end
    print(string.format("Time:\n\t%.2f seconds total\n\t%.2f seconds of transactions (%.1f per second)",
        total, t.elapsed_s, ops(t, "readwhole") + ops(t, "append") == 0 and 0 or
        (ops(t, "readwhole") + ops(t, "append")) / t.elapsed_s))
    for _, k in ipairs({ "create", "readwhole", "append", "unlink" }) do
        print(string.format("\t%d files %s (%.1f per second)", ops(t, k),
            ({ create = "created", readwhole = "read", append = "appended", unlink = "deleted" })[k],
            ops(t, k) / t.elapsed_s))
    end
end
