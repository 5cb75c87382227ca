/* Lua workload scripts (LuaJIT). The only module that includes lua.h.
 *
 * A script declares — options, a file set, phases of concurrent jobs, each job a mix of
 * operations with weights, block sizes and an access pattern — and C executes it: a
 * declarative script is read once into these plain structures and never called per op.
 * The prelude (lua/sbio.lua, compiled into the binary with luajit -b) checks every
 * declaration where it is made, so an error names the script's file and line. */
#ifndef SBIO_SCRIPT_H
#define SBIO_SCRIPT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "decl.h"

/* Find a script: a path as given, or a bare name ("oltp" or "oltp.lua") in the workloads
 * folder (SBIO_WORKLOADS, else the installed $(PREFIX)/share/sbio/workloads, else
 * ./workloads). Returns buf holding the script's path, or NULL when there is no such script;
 * buf then says why, to follow "no such script; ": where the name was looked for ("looked
 * for oltp.lua in /usr/local/share/sbio/workloads and ./workloads …"), or why the path
 * cannot be read. */
const char *sbio_script_find(const char *name, char *buf, size_t len);
/* The same for any file of the workloads folder: suffix (".lua", ".battery") is added to a
 * bare name that lacks it. */
const char *sbio_workload_find(const char *name, const char *suffix, char *buf, size_t len);

/* Load and run the script's declarations with the option overrides given (names without
 * dashes, values as typed on the command line). 0, or -EINVAL with one line in err:
 * "FILE:LINE: what is wrong" for errors in the script, what and why otherwise.
 *
 * Every Lua state of a script (this one, each event() thread's, report()'s) is bounded: it
 * runs interpreted, with a count hook that ends it 1 s after a stop (a signal, the run's stop
 * flag) and after 10 s of declarations or report(), and an allocator that refuses more than
 * 256 MiB. Its script runs in a sandbox (the prelude's: the declarations, sbio, options,
 * math, string, table, bit, coroutine, the base functions that reach nothing outside, os.time,
 * os.clock, os.date; no io, os.execute, ffi, debug, require, load of any chunk, string.dump,
 * getfenv/setfenv) unless trusted: then all of Lua but os.exit. Files of bytecode are refused
 * either way. out->trusted keeps the choice for the script's other states. */
int sbio_script_load(const char *path, const char *const *names, const char *const *values,
                     int nover, bool trusted, struct sbio_script *out, char *err, size_t errlen);

/* Keep only the phases sel names (--phase: each entry a phase's name or a comma list of
 * names), in the script's order; nsel 0 keeps all. A name that is no phase of s: -EINVAL,
 * err says which and lists the phases, s unchanged. */
int sbio_script_select(struct sbio_script *s, const char *const *sel, int nsel, char *err,
                       size_t errlen);

void sbio_script_free(struct sbio_script *s);

/* The script's report(result), when it has one: called with the run's whole result (the
 * sbio-script/1 document as plain Lua tables: result.phases[i].jobs[j].result.result.op_types
 * …), in a fresh Lua state; what it prints (Lua's print) goes to out, the text report's
 * stream. 0, or -EINVAL with the error's first line in err. */
int sbio_script_report(const struct sbio_script *s, const char *const *names,
                       const char *const *values, int nover, json_t *doc, FILE *out, char *err,
                       size_t len);

struct sbio_hook_ops;
/* The per-event hook of script s (its event(ctx)), for jobs declared with event = true: one
 * Lua state per worker thread, the script loaded in it with the same option values; every op
 * one protected call. file_sizes: the set's files (event() sees them as sbio.files; offsets
 * and lengths are checked against them and against max_len). The returned ops point into
 * hook; hook must outlive the run. */
struct sbio_script_hook {
    const struct sbio_script *s;
    const char *const *names, *const *values;
    int nover;
    unsigned nfiles;
    const uint64_t *file_sizes;
    uint64_t max_len;
    /* --verify checks whole blocks of this size: a read or write must start on one and end
     * on one or at the end of its file, else event() fails. 0: any offset and length. */
    uint64_t verify_block;
};
const struct sbio_hook_ops *sbio_script_hook_ops(struct sbio_script_hook *hook);

#endif
