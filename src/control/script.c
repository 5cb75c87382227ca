#include "script.h"

#include <errno.h>
#include <jansson.h>
#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <inttypes.h>

#include "engine.h"
#include "ioprio.h"
#include "mix.h"
#include "options.h"
#include "util.h"
#include "workload.h"
#include "sbio_lua.h" /* the prelude's bytecode: luajit -b lua/sbio.lua */

#ifndef SBIO_WORKLOADS_DIR
#define SBIO_WORKLOADS_DIR "/usr/local/share/sbio/workloads"
#endif

/* Not found under any of dirs: say where name.lua was looked for, into buf. */
static void script_not_found(const char *file, const char *const *dirs, size_t n, char *buf,
                             size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "looked for %s in", file);
    for (size_t i = 0, k = 0; i < n && at < len; i++) {
        if (!dirs[i])
            continue;
        at +=
            (size_t)snprintf(buf + at, len - at, "%s%s%s%s", k++ ? (i + 1 < n ? "," : " and") : "",
                             " ", strchr(dirs[i], '/') ? "" : "./", dirs[i]);
        if (i == 0 && at < len)
            at += (size_t)snprintf(buf + at, len - at, " ($SBIO_WORKLOADS)");
    }
    if (!dirs[0] && at < len)
        snprintf(buf + at, len - at, " (set $SBIO_WORKLOADS to look in another folder)");
}

const char *sbio_script_find(const char *name, char *buf, size_t len)
{
    return sbio_workload_find(name, ".lua", buf, len);
}

const char *sbio_workload_find(const char *name, const char *suffix, char *buf, size_t len)
{
    if (strchr(name, '/') || !access(name, R_OK)) {
        if (!access(name, R_OK)) {
            snprintf(buf, len, "%s", name);
            return buf;
        }
        snprintf(buf, len, "cannot read %s: %s", name, strerror(errno));
        return NULL;
    }
    const char *env = getenv("SBIO_WORKLOADS");
    const char *dirs[] = {env && *env ? env : NULL, SBIO_WORKLOADS_DIR, "workloads"};
    size_t sl = strlen(suffix);
    bool ext = strlen(name) > sl && !strcmp(name + strlen(name) - sl, suffix);
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        if (!dirs[i])
            continue;
        snprintf(buf, len, "%s/%s%s", dirs[i], name, ext ? "" : suffix);
        if (!access(buf, R_OK))
            return buf;
    }
    char file[256];
    snprintf(file, sizeof(file), "%.240s%s", name, ext ? "" : suffix);
    script_not_found(file, dirs, sizeof(dirs) / sizeof(dirs[0]), buf, len);
    return NULL;
}

/* The first line of a Lua error (a traceback follows it). */
static void script_err(lua_State *L, char *err, size_t errlen)
{
    const char *m = lua_tostring(L, -1);
    if (!m)
        m = "(error object is not a string)";
    size_t l = strcspn(m, "\n");
    snprintf(err, errlen, "%.*s", (int)(l < errlen ? l : errlen - 1), m);
}

static int traceback(lua_State *L)
{
    const char *m = lua_tostring(L, 1);
    luaL_traceback(L, L, m ? m : "(error object is not a string)", 1);
    return 1;
}

/* Every call into Lua goes through here: a protected call with a traceback. */
static int pcall(lua_State *L, int nargs, int nres, char *err, size_t errlen)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nres, base);
    lua_remove(L, base);
    if (rc) {
        script_err(L, err, errlen);
        lua_pop(L, 1);
        return -EINVAL;
    }
    return 0;
}

/* The layout of the per-event hook's context: this C struct and, through
 * __sbio_ctx_fields (script_open), the prelude's FFI sbio_ctx, from this one list. Every
 * field reads as a Lua number: a 64-bit integer field would read as 64-bit cdata, which
 * math.floor and string.format("%d") refuse, so offset and seq are doubles (whole numbers
 * exact up to 2^53, 8 PiB of offsets, more operations than a thread makes). */
#define SBIO_CTX_FIELDS                                                                            \
    int32_t op;                                                                                    \
    uint32_t file;                                                                                 \
    double offset;                                                                                 \
    uint32_t len;                                                                                  \
    uint32_t thread;                                                                               \
    double seq;
struct sbio_ctx_c {
    SBIO_CTX_FIELDS
};
#define SBIO_STR_(x) #x
#define SBIO_STR(x)  SBIO_STR_(x)

/* What the prelude takes from C, as the global __sbio_c: the names of the modes (the option
 * table's, options.c) and of this build's engines (the registry, engine.c), in id order, and
 * the defaults of the job and phase fields that are an option's counterpart: the option's. */
static void script_push_c(lua_State *L)
{
    struct sbio_script_job def;
    uint64_t def_time;
    sbio_options_default_job(&def, &def_time);
    lua_newtable(L);
    lua_newtable(L);
    for (int m = 0; m < SBIO_MODE_NONE; m++) {
        lua_pushstring(L, sbio_mode_name(m));
        lua_rawseti(L, -2, m + 1);
    }
    lua_setfield(L, -2, "modes");
    lua_newtable(L);
    for (int e = 0; e < sbio_engine_count(); e++) {
        lua_pushstring(L, sbio_engine_name(e));
        lua_rawseti(L, -2, e + 1);
    }
    lua_setfield(L, -2, "engines");
    lua_newtable(L);
    lua_pushstring(L, sbio_engine_name(def.engine));
    lua_setfield(L, -2, "engine");
    lua_pushboolean(L, def.fsync_end);
    lua_setfield(L, -2, "fsync_end");
    lua_pushboolean(L, def.invalidate);
    lua_setfield(L, -2, "invalidate");
    lua_pushstring(L, sbio_fadvise_name(def.fadvise));
    lua_setfield(L, -2, "fadvise");
    lua_pushstring(L, sbio_random_order_name(def.random_order));
    lua_setfield(L, -2, "random_order");
    const struct {
        const char *field;
        double value;
    } num[] = {
        {"threads", (double)def.threads},
        {"block", (double)def.block[0]},
        {"fsync_freq", (double)def.fsync_freq},
        {"rw_ratio", def.rw_ratio},
        {"time", (double)def_time},
    };
    for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
        lua_pushnumber(L, num[i].value);
        lua_setfield(L, -2, num[i].field);
    }
    lua_setfield(L, -2, "defaults");
    /* The fileset's counterparts, checked before the prelude builds its list of files. */
    uint64_t lo, files = 1000000, size = INT64_MAX;
    sbio_options_range("file-num", &lo, &files);
    lua_newtable(L);
    lua_pushnumber(L, (double)files);
    lua_setfield(L, -2, "files");
    /* 2^63 - 1024: the largest double below 2^63, what a JSON integer holds. */
    lua_pushnumber(L, (double)(size - 1023));
    lua_setfield(L, -2, "size");
    lua_setfield(L, -2, "caps");
    lua_setglobal(L, "__sbio_c");
}

/* What bounds one Lua state: its memory (the allocator's count), how long its declarations
 * may take and when it must stop (the count hook). It is the allocator's user data, so the
 * hook finds it with lua_getallocf. LuaJIT calls no hook from compiled traces: a script's
 * state runs interpreted (JIT off), so that every loop reaches the hook. */
#define SCRIPT_MEM_CAP    (256ULL << 20)
#define SCRIPT_MEM_SLACK  (16ULL << 20) /* room to unwind once stopped */
#define SCRIPT_HOOK_EVERY 10000         /* instructions between checks */
#define SCRIPT_LOAD_S     10            /* the declarations, report() */
#define SCRIPT_GRACE_NS   1000000000ULL /* a call still running this long after a stop */

enum script_abort { SCRIPT_RUNS, SCRIPT_STOPPED, SCRIPT_TOO_LONG, SCRIPT_TOO_BIG };

struct script_guard {
    lua_Alloc base;
    void *base_ud;
    size_t used, cap;
    const int *stop;      /* the run's stop flag, or NULL */
    uint64_t deadline_ns; /* 0: none */
    uint64_t stop_seen_ns;
    int abort; /* enum script_abort: once set, every instruction raises an error */
    bool raising;
    char where[192]; /* FILE:LINE the hook stopped */
};

static void *guard_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct script_guard *g = ud;
    size_t old = ptr ? osize : 0;
    if (nsize > old && g->used - old + nsize > g->cap + (g->abort ? SCRIPT_MEM_SLACK : 0)) {
        if (!g->abort)
            g->abort = SCRIPT_TOO_BIG;
        return NULL;
    }
    void *p = g->base(g->base_ud, ptr, osize, nsize);
    if (p || !nsize)
        g->used = g->used - old + nsize;
    return p;
}

static struct script_guard *guard_of(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

static int guard_check(struct script_guard *g)
{
    bool stop = sbio_stop_requested() || (g->stop && __atomic_load_n(g->stop, __ATOMIC_RELAXED));
    uint64_t now = sbio_now_ns();
    if (!stop)
        g->stop_seen_ns = 0;
    else if (!g->stop_seen_ns)
        g->stop_seen_ns = now;
    else if (now - g->stop_seen_ns > SCRIPT_GRACE_NS)
        return SCRIPT_STOPPED;
    return g->deadline_ns && now > g->deadline_ns ? SCRIPT_TOO_LONG : SCRIPT_RUNS;
}

/* Every SCRIPT_HOOK_EVERY instructions: a stop, the deadline, the memory cap end the script's
 * Lua where it is. From then on every instruction raises the error again, so that no pcall in
 * the script can catch it for good. */
static void guard_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    struct script_guard *g = guard_of(L);
    if (!g->abort && !(g->abort = guard_check(g)))
        return;
    if (!g->raising) {
        g->raising = true;
        lua_Debug d;
        if (lua_getstack(L, 0, &d) && lua_getinfo(L, "Sl", &d) && d.currentline > 0)
            snprintf(g->where, sizeof(g->where), "%s:%d", d.short_src, d.currentline);
        lua_sethook(L, guard_hook, LUA_MASKCOUNT, 1);
    }
    lua_pushliteral(L, "sbio: the script is stopped");
    lua_error(L);
}

/* Why the guard ended the script's Lua: true with one line in err, false (err untouched) when
 * it did not end it. */
static bool guard_said(const struct script_guard *g, const char *path, char *err, size_t len)
{
    const char *at = g->where[0] ? g->where : path;
    switch (g->abort) {
    case SCRIPT_TOO_BIG:
        snprintf(err, len, "%s: the script uses more than %llu MiB of memory, a script's limit", at,
                 SCRIPT_MEM_CAP >> 20);
        return true;
    case SCRIPT_TOO_LONG:
        snprintf(err, len,
                 "%s: still running after %d s, a script's limit for its declarations "
                 "and report() (an endless loop?)",
                 at, SCRIPT_LOAD_S);
        return true;
    case SCRIPT_STOPPED:
        snprintf(err, len,
                 "%s: still running %.0f s after sbio was asked to stop (%s); stopped there", at,
                 SCRIPT_GRACE_NS / 1e9, sbio_stop_requested() ? "a signal" : "the time limit");
        return true;
    default: return false;
    }
}

/* A new state with the standard libraries, guarded by a fresh guard, JIT off. NULL when out
 * of memory. */
static lua_State *guard_new(void)
{
    struct script_guard *g = calloc(1, sizeof(*g));
    lua_State *L = g ? luaL_newstate() : NULL;
    if (!L) {
        free(g);
        return NULL;
    }
    g->base = lua_getallocf(L, &g->base_ud);
    g->used = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
    g->cap = SCRIPT_MEM_CAP;
    lua_setallocf(L, guard_alloc, g);
    /* The jit library turns the compiler on as it opens: off after it. */
    luaL_openlibs(L);
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
    lua_sethook(L, guard_hook, LUA_MASKCOUNT, SCRIPT_HOOK_EVERY);
    return L;
}

static void script_close(lua_State *L)
{
    if (!L)
        return;
    struct script_guard *g = guard_of(L);
    lua_sethook(L, NULL, 0, 0);
    lua_close(L);
    free(g);
}

/* A protected call that says what the guard did when it ended the call (pcall, below). */
static int guarded_pcall(lua_State *L, const char *path, int nargs, int nres, char *err,
                         size_t errlen)
{
    int rc = pcall(L, nargs, nres, err, errlen);
    if (rc)
        guard_said(guard_of(L), path, err, errlen);
    return rc;
}

/* A Lua state with the prelude and the script run in it, the command line's values of the
 * script's options given to option(); the script in its environment (the prelude's sandbox,
 * or all of Lua but os.exit when trusted). The prelude's private table is the registry's
 * "sbio.P", the environment "sbio.env". NULL on error, the first line of it in err. */
static lua_State *script_open(const char *path, const char *const *names, const char *const *values,
                              int nover, bool trusted, char *err, size_t errlen)
{
    lua_State *L = guard_new();
    if (!L) {
        snprintf(err, errlen, "%s: cannot create a Lua state (out of memory)", path);
        return NULL;
    }
    struct script_guard *g = guard_of(L);
    g->deadline_ns = sbio_now_ns() + SCRIPT_LOAD_S * 1000000000ULL;
    lua_newtable(L);
    for (int i = 0; i < nover; i++) {
        lua_pushstring(L, values[i]);
        lua_setfield(L, -2, names[i]);
    }
    lua_setglobal(L, "__sbio_overrides");
    lua_pushstring(L, SBIO_STR(SBIO_CTX_FIELDS));
    lua_setglobal(L, "__sbio_ctx_fields");
    script_push_c(L);
    if (luaL_loadbuffer(L, (const char *)luaJIT_BC_sbio_prelude, luaJIT_BC_sbio_prelude_SIZE,
                        "=sbio.lua")) {
        script_err(L, err, errlen);
        goto fail;
    }
    if (pcall(L, 0, 1, err, errlen))
        goto fail;
    lua_getfield(L, -1, "environment");
    lua_pushboolean(L, trusted);
    if (pcall(L, 1, 1, err, errlen))
        goto fail;
    lua_setfield(L, LUA_REGISTRYINDEX, "sbio.env");
    lua_setfield(L, LUA_REGISTRYINDEX, "sbio.P");
    /* Text only: LuaJIT runs bytecode unverified. The chunk is named after its path, so
     * errors read "path:line: …". */
    if (luaL_loadfilex(L, path, "t")) {
        const char *m = lua_tostring(L, -1);
        if (m && strstr(m, "wrong mode"))
            snprintf(err, errlen,
                     "%s: a precompiled (bytecode) script; sbio runs Lua source only (LuaJIT "
                     "does not verify bytecode)",
                     path);
        else
            script_err(L, err, errlen);
        goto fail;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, "sbio.env");
    lua_setfenv(L, -2);
    if (guarded_pcall(L, path, 0, 0, err, errlen))
        goto fail;
    g->deadline_ns = 0;
    return L;
fail:
    script_close(L);
    return NULL;
}

/* Value k of the script's environment, raw (no metamethod of the script's runs), pushed. */
static void script_global(lua_State *L, const char *k)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "sbio.env");
    lua_pushstring(L, k);
    lua_rawget(L, -2);
    lua_remove(L, -2);
}

/* Field k of the table at idx as a number; 0 when it has none (the prelude sets every field
 * that has a default). */
static double field_num(lua_State *L, int idx, const char *k)
{
    lua_getfield(L, idx, k);
    double v = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : 0;
    lua_pop(L, 1);
    return v;
}

static void field_str(lua_State *L, int idx, const char *k, char *buf, size_t len)
{
    lua_getfield(L, idx, k);
    const char *s = lua_tostring(L, -1);
    snprintf(buf, len, "%s", s ? s : "");
    lua_pop(L, 1);
}

/* Read the job table at the top of the stack, made and checked by job() in the prelude. */
static bool field_bool(lua_State *L, int idx, const char *k)
{
    lua_getfield(L, idx, k);
    bool v = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

/* Field k of the table at t, a whole number within [min, max] (nil: 0, when 0 is within), into
 * *out: the command line's caps hold for a script's values too. 0, or -EINVAL with one line
 * in err: "FILE:LINE: WHO: FIELD VALUE is out of range; accepted: MIN to MAX (RANGE)". */
static int field_whole(lua_State *L, int t, const char *k, double min, double max, uint64_t *out,
                       const char *where, const char *range, char *err, size_t errlen)
{
    lua_getfield(L, t, k);
    double v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
    bool bad = lua_type(L, -1) == LUA_TSTRING ||
               (lua_type(L, -1) != LUA_TNUMBER && lua_type(L, -1) != LUA_TNIL);
    lua_pop(L, 1);
    if (bad || !(v >= min && v <= max) || v != floor(v)) {
        snprintf(err, errlen,
                 "%s: %s %.17g is out of range; accepted: a whole number from %.17g to %.17g%s%s%s",
                 where, k, v, min, max, range[0] ? " (" : "", range, range[0] ? ")" : "");
        return -EINVAL;
    }
    *out = (uint64_t)v;
    return 0;
}

/* The range of option name as doubles, what a script's numbers are: at most 2^53 (exact). */
static void option_range(const char *name, double *min, double *max)
{
    uint64_t lo = 0, hi = 1ULL << 53;
    sbio_options_range(name, &lo, &hi);
    *min = (double)lo;
    *max = hi > (1ULL << 53) ? 0x1p53 : (double)hi;
}

/* A job's numbers, within the caps of the options they stand for. 0 or -EINVAL (err said). */
static int read_job_counts(lua_State *L, int t, const char *path, struct sbio_script_job *j,
                           char *err, size_t errlen)
{
    static const struct {
        const char *field, *option;
    } f[] = {{"threads", "threads"},
             {"iodepth", "iodepth"},
             {"rate", "rate"},
             {"fsync_freq", "file-fsync-freq"},
             {"think", NULL}};
    char where[PATH_MAX + 96], range[64];
    snprintf(where, sizeof(where), "%s:%d: job %s", path, j->line, j->name);
    uint64_t v[5];
    for (size_t i = 0; i < 5; i++) {
        double lo = 0, hi = UINT32_MAX; /* think: microseconds, about 71 minutes at most */
        if (f[i].option)
            option_range(f[i].option, &lo, &hi);
        snprintf(range, sizeof(range), f[i].option ? "as --%s" : "microseconds", f[i].option);
        if (field_whole(L, t, f[i].field, lo, hi, &v[i], where, range, err, errlen))
            return -EINVAL;
    }
    j->threads = (unsigned)v[0];
    j->iodepth = (unsigned)v[1];
    j->rate = v[2];
    j->fsync_freq = v[3];
    j->think_us = v[4];
    j->rw_ratio = field_num(L, t, "rw_ratio");
    if (!isfinite(j->rw_ratio)) {
        snprintf(err, errlen, "%s: rw_ratio %g is out of range; accepted: a finite number > 0",
                 where, j->rw_ratio);
        return -EINVAL;
    }
    for (int i = 0; i < SBIO_MIX_NR; i++)
        if (!isfinite(j->weight[i]) || !isfinite(j->pa) || !isfinite(j->pb)) {
            snprintf(err, errlen, "%s: mix and pattern take finite numbers", where);
            return -EINVAL;
        }
    return 0;
}

/* A job's page-cache and priority fields: invalidate, fadvise, random_order, ioprio (the
 * prelude has checked the names; ioprio is parsed here). */
static int read_job_cache(lua_State *L, int t, struct sbio_script_job *j, char *err, size_t errlen)
{
    char buf[64];
    j->invalidate = field_bool(L, t, "invalidate");
    j->invalidate_pass = field_bool(L, t, "invalidate_pass");
    field_str(L, t, "file_service", buf, sizeof(buf));
    j->file_rr = !strcmp(buf, "roundrobin");
    field_str(L, t, "fadvise", buf, sizeof(buf));
    for (int h = SBIO_FADV_NONE; h <= SBIO_FADV_SEQUENTIAL; h++)
        if (!strcmp(buf, sbio_fadvise_name(h)))
            j->fadvise = h;
    field_str(L, t, "random_order", buf, sizeof(buf));
    j->random_order =
        !strcmp(buf, sbio_random_order_name(SBIO_ORDER_ONCE)) ? SBIO_ORDER_ONCE : SBIO_ORDER_DRAW;
    field_str(L, t, "ioprio", buf, sizeof(buf));
    const char *why = NULL;
    if (buf[0] && sbio_ioprio_parse(buf, &j->ioprio, &why)) {
        snprintf(err, errlen, "job %s: ioprio '%s' %s; accepted: %s", j->name, buf, why,
                 SBIO_IOPRIO_ACCEPTED);
        return -EINVAL;
    }
    return 0;
}

/* Field k of the table at idx as a whole number from 1 to 2^63 - 1, what the JSON's integers
 * hold (sizes: a number of bytes, or a string sbio_parse_size reads), into *out; 0 when it has
 * none. 0 or -EINVAL (err said). */
static int group_count(lua_State *L, int idx, const char *k, bool size, uint64_t *out,
                       const char *job, char *err, size_t errlen)
{
    lua_getfield(L, idx, k);
    int rc = 0, type = lua_type(L, -1); /* before lua_tostring turns a number into a string */
    double d = type == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
    const char *str = type == LUA_TNUMBER || type == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (type == LUA_TNIL)
        *out = 0;
    else if (type == LUA_TNUMBER && d >= 1 && d < 0x1p63 && d == (double)(uint64_t)d)
        *out = (uint64_t)d;
    else if (!(size && type == LUA_TSTRING && !sbio_parse_size(str, out) && *out &&
               *out <= INT64_MAX))
        rc = -EINVAL;
    if (rc)
        snprintf(err, errlen, "job %s: group %s '%s' is not valid; accepted: %s", job, k,
                 str ? str : lua_typename(L, type),
                 size ? "a size per second below 8 EiB, in bytes or with K/M/G/T (e.g. \"20M\")"
                 : !strcmp(k, "weight")
                     ? "1 to 1000 (cgroup v1 blkio.weight) or 1 to 10000 (cgroup v2 io.weight)"
                 : !strcmp(k, "bfq_weight") ? "1 to 1000"
                                            : "a whole number of requests per second from 1 "
                                              "to 2^63 - 1");
    lua_pop(L, 1);
    return rc;
}

/* A latency target with its unit ("500us", "5ms", "1s") in microseconds, below 2^63 (what the
 * JSON's integers hold). 0 or -EINVAL (nan and inf included). */
static int group_latency(const char *s, uint64_t *us)
{
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || !(v > 0))
        return -EINVAL;
    double mul = !strcmp(end, "us") ? 1 : !strcmp(end, "ms") ? 1e3 : !strcmp(end, "s") ? 1e6 : 0;
    double x = v * mul + 0.5;
    if (!(x < 0x1p63))
        return -EINVAL;
    *us = (uint64_t)x;
    return *us ? 0 : -EINVAL;
}

/* A job's group = {weight, bfq_weight, max = {rbps, wbps, riops, wiops, device}, latency}
 * (the prelude has checked the names). 0 or -EINVAL (err said). */
static int read_job_group(lua_State *L, int t, struct sbio_script_job *j, char *err, size_t errlen)
{
    struct sbio_cgroup_spec *g = &j->group;
    uint64_t w = 0, bw = 0;
    lua_getfield(L, t, "group");
    int gt = lua_gettop(L), rc = 0;
    if (lua_istable(L, gt)) {
        g->set = true;
        rc = group_count(L, gt, "weight", false, &w, j->name, err, errlen);
        rc = rc ? rc : group_count(L, gt, "bfq_weight", false, &bw, j->name, err, errlen);
        g->weight = w > 100000 ? 100000 : (unsigned)w; /* the range is the hierarchy's */
        g->bfq_weight = bw > 100000 ? 100000 : (unsigned)bw;
        lua_getfield(L, gt, "max");
        int mt = lua_gettop(L);
        if (!rc && lua_istable(L, mt)) {
            rc = group_count(L, mt, "rbps", true, &g->rbps, j->name, err, errlen);
            rc = rc ? rc : group_count(L, mt, "wbps", true, &g->wbps, j->name, err, errlen);
            rc = rc ? rc : group_count(L, mt, "riops", false, &g->riops, j->name, err, errlen);
            rc = rc ? rc : group_count(L, mt, "wiops", false, &g->wiops, j->name, err, errlen);
            field_str(L, mt, "device", g->max_dev, sizeof(g->max_dev));
        }
        lua_pop(L, 1);
        char lat[64] = "";
        field_str(L, gt, "latency", lat, sizeof(lat));
        if (!rc && lat[0] && group_latency(lat, &g->latency_us)) {
            snprintf(err, errlen,
                     "job %s: group latency '%s' is not valid; accepted: a time "
                     "with its unit, e.g. \"500us\", \"5ms\"",
                     j->name, lat);
            rc = -EINVAL;
        }
    }
    lua_pop(L, 1);
    return rc;
}

/* A job's list of sizes and weights (blocks, appends; the prelude has checked them): none
 * when the job has no such field; each size within --file-block-size's range. where: "FILE:LINE:
 * job NAME". 0 or -EINVAL (err said). */
static int read_job_sizes(lua_State *L, int t, const char *k, const char *where, uint64_t *size,
                          double *weight, unsigned *n, char *err, size_t errlen)
{
    const char *what = !strcmp(k, "blocks") ? "block" : "append";
    lua_getfield(L, t, k);
    size_t nb = lua_istable(L, -1) ? lua_objlen(L, -1) : 0;
    if (nb > SBIO_SCRIPT_MAX_BLOCKS) {
        snprintf(err, errlen, "%s: at most %d %s sizes", where, SBIO_SCRIPT_MAX_BLOCKS, what);
        lua_pop(L, 1);
        return -EINVAL;
    }
    double lo, hi;
    option_range("file-block-size", &lo, &hi);
    for (size_t i = 1; i <= nb; i++) {
        lua_rawgeti(L, -1, (int)i);
        double sz = field_num(L, lua_gettop(L), "size");
        weight[*n] = field_num(L, lua_gettop(L), "weight");
        lua_pop(L, 1);
        if (!(sz >= lo && sz <= hi) || !isfinite(weight[*n])) {
            char b[32];
            snprintf(err, errlen,
                     "%s: %s %.17g is out of range; accepted: %s sizes from %.0f B to %s (as "
                     "--file-block-size) with finite shares",
                     where, what, sz, what, lo, sbio_fmt_bytes(b, sizeof(b), (uint64_t)hi));
            lua_pop(L, 1);
            return -EINVAL;
        }
        size[(*n)++] = (uint64_t)sz;
    }
    lua_pop(L, 1);
    return 0;
}

/* A job's flow: its operations' names (checked by the prelude, at most
 * SBIO_SCRIPT_MAX_FLOW) as enum sbio_mix_op. */
static void read_job_flow(lua_State *L, int t, struct sbio_script_job *j)
{
    lua_getfield(L, t, "flow");
    size_t n = lua_istable(L, -1) ? lua_objlen(L, -1) : 0;
    for (size_t i = 1; i <= n && j->nflow < SBIO_SCRIPT_MAX_FLOW; i++) {
        lua_rawgeti(L, -1, (int)i);
        const char *name = lua_tostring(L, -1);
        for (int op = 0; name && op < SBIO_MIX_NR; op++)
            if (!strcmp(name, sbio_mix_op_name(op)))
                j->flow[j->nflow++] = (unsigned char)op;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* The job's files (the prelude has checked and merged them): ranges {first, last}. */
static void read_job_files(lua_State *L, int t, struct sbio_script_job *j)
{
    lua_getfield(L, t, "files");
    size_t n = lua_istable(L, -1) ? lua_objlen(L, -1) : 0;
    for (size_t i = 1; i <= n && j->nfrange < SBIO_SCRIPT_MAX_FRANGE; i++) {
        lua_rawgeti(L, -1, (int)i);
        j->frange_first[j->nfrange] = (uint64_t)field_num(L, lua_gettop(L), "first");
        j->frange_last[j->nfrange++] = (uint64_t)field_num(L, lua_gettop(L), "last");
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static int read_job(lua_State *L, const char *path, struct sbio_script_job *j, char *err,
                    size_t errlen)
{
    int t = lua_gettop(L);
    char buf[64];
    field_str(L, t, "name", j->name, sizeof(j->name));
    field_str(L, t, "engine", buf, sizeof(buf));
    j->engine = sbio_engine_id(buf);
    if (j->engine < 0) {
        snprintf(err, errlen, "job %s: engine '%s': accepted: %s", j->name, buf,
                 sbio_engine_list());
        return -EINVAL;
    }
    j->event = field_bool(L, t, "event");
    j->fsync_end = field_bool(L, t, "fsync_end");
    if (read_job_cache(L, t, j, err, errlen) || read_job_group(L, t, j, err, errlen)) {
        /* Their messages start at the job ("job j: …"): the script's file and line first. */
        char said[512];
        snprintf(said, sizeof(said), "%s", err);
        snprintf(err, errlen, "%s:%d: %s", path, (int)field_num(L, t, "line"), said);
        return -EINVAL;
    }
    field_str(L, t, "stream", buf, sizeof(buf));
    j->stream = !strcmp(buf, "per-thread") ? SBIO_SEQ_PER_THREAD : SBIO_SEQ_SHARED;
    field_str(L, t, "mode", buf, sizeof(buf));
    j->mode = SBIO_MODE_NONE;
    for (int i = 0; i < SBIO_MODE_NONE; i++)
        if (!strcmp(buf, sbio_mode_name(i)))
            j->mode = i;
    lua_getfield(L, t, "flags");
    for (size_t i = 1; i <= lua_objlen(L, -1); i++) {
        lua_rawgeti(L, -1, (int)i);
        const char *f = lua_tostring(L, -1);
        j->flags |= (unsigned)sbio_extra_flag(f);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getfield(L, t, "mix");
    for (int i = 0; i < SBIO_MIX_NR; i++)
        j->weight[i] = field_num(L, lua_gettop(L), sbio_mix_op_name(i));
    lua_pop(L, 1);
    j->line = (int)field_num(L, t, "line");
    char where[PATH_MAX + 96];
    snprintf(where, sizeof(where), "%s:%d: job %s", path, j->line, j->name);
    if (read_job_sizes(L, t, "blocks", where, j->block, j->block_weight, &j->nblocks, err,
                       errlen) ||
        read_job_sizes(L, t, "appends", where, j->append, j->append_weight, &j->nappend, err,
                       errlen))
        return -EINVAL;
    read_job_flow(L, t, j);
    read_job_files(L, t, j);
    lua_getfield(L, t, "pattern");
    field_str(L, lua_gettop(L), "kind", buf, sizeof(buf));
    for (int i = 0; i <= SBIO_PAT_HOT; i++)
        if (!strcmp(buf, sbio_pattern_name(i)))
            j->pattern = i;
    j->pa = field_num(L, lua_gettop(L), "a");
    j->pb = field_num(L, lua_gettop(L), "b");
    lua_pop(L, 1);
    return read_job_counts(L, t, path, j, err, errlen);
}

/* The script's options, in declaration order, from the prelude's table at S. */
static int read_options(lua_State *L, int S, struct sbio_script *s, char *err, size_t errlen)
{
    lua_getfield(L, S, "option_order");
    lua_getfield(L, S, "options");
    size_t no = lua_objlen(L, -2);
    if (no > SBIO_SCRIPT_MAX_OPTS) {
        snprintf(err, errlen, "%s: at most %d options", s->path, SBIO_SCRIPT_MAX_OPTS);
        return -EINVAL;
    }
    for (size_t i = 1; i <= no; i++) {
        struct sbio_script_opt *o = &s->opts[s->nopts++];
        lua_rawgeti(L, -2, (int)i);
        snprintf(o->name, sizeof(o->name), "%s", lua_tostring(L, -1));
        lua_gettable(L, -2);
        int ot = lua_gettop(L);
        char ty[16];
        field_str(L, ot, "type", ty, sizeof(ty));
        o->type = ty[0] == 'n' ? 'n' : ty[0] == 'b' ? 'b' : 's';
        field_str(L, ot, "help", o->help, sizeof(o->help));
        lua_getfield(L, ot, "default");
        if (lua_isboolean(L, -1))
            snprintf(o->def, sizeof(o->def), "%s", lua_toboolean(L, -1) ? "on" : "off");
        else
            snprintf(o->def, sizeof(o->def), "%s", lua_tostring(L, -1));
        lua_pop(L, 2);
    }
    lua_pop(L, 2);
    return 0;
}

/* A tree's declaration, from the prelude's table at the top of the stack (checked there). */
static void read_tree(lua_State *L, struct sbio_tree_decl *d)
{
    static const char *const laws[] = {"fixed", "uniform", "lognormal", "gamma"};
    int t = lua_gettop(L);
    char law[16];
    d->set = true;
    d->files = (uint64_t)field_num(L, t, "files");
    d->dirwidth = (uint64_t)field_num(L, t, "dirwidth");
    d->prealloc = field_num(L, t, "prealloc");
    d->line = (int)field_num(L, t, "line");
    lua_getfield(L, t, "size");
    int z = lua_gettop(L);
    field_str(L, z, "law", law, sizeof(law));
    for (int i = SBIO_SIZE_FIXED; i <= SBIO_SIZE_GAMMA; i++)
        if (!strcmp(law, laws[i]))
            d->size.law = i;
    d->size.a = (uint64_t)field_num(L, z, "a");
    d->size.b = (uint64_t)field_num(L, z, "b");
    d->size.p = field_num(L, z, "p");
    lua_pop(L, 1);
}

/* The file set's sizes, or its tree, from the prelude's table at S, when the script declares
 * one (the prelude has checked them). 0, -ENOMEM or -ERANGE. */
static int read_fileset(lua_State *L, int S, struct sbio_script *s)
{
    lua_getfield(L, S, "fileset");
    if (lua_istable(L, -1) && field_bool(L, lua_gettop(L), "tree")) {
        read_tree(L, &s->tree);
    } else if (lua_istable(L, -1)) {
        s->nfiles = (unsigned)lua_objlen(L, -1);
        s->file_size = calloc(s->nfiles ? s->nfiles : 1, sizeof(uint64_t));
        if (!s->file_size)
            return -ENOMEM;
        for (unsigned i = 0; i < s->nfiles; i++) {
            lua_rawgeti(L, -1, (int)i + 1);
            double v = lua_tonumber(L, -1);
            lua_pop(L, 1);
            if (!(v >= 0 && v < 0x1p63))
                return -ERANGE;
            s->file_size[i] = (uint64_t)v;
        }
    }
    lua_pop(L, 1);
    return 0;
}

/* The phase table at the top of the stack, and its jobs. */
static int read_phase(lua_State *L, const struct sbio_script *s, struct sbio_script_phase *p,
                      char *err, size_t errlen)
{
    int pt = lua_gettop(L);
    field_str(L, pt, "name", p->name, sizeof(p->name));
    char where[PATH_MAX + 96];
    snprintf(where, sizeof(where), "%s:%d: phase %s", s->path, (int)field_num(L, pt, "line"),
             p->name);
    double lo, hi;
    option_range("time", &lo, &hi);
    if (field_whole(L, pt, "time", lo, hi, &p->time_s, where, "as --time", err, errlen))
        return -EINVAL;
    option_range("events", &lo, &hi);
    if (field_whole(L, pt, "events", lo, hi, &p->events, where, "as --events", err, errlen))
        return -EINVAL;
    lua_getfield(L, pt, "drop_caches");
    p->drop_caches = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, pt, "jobs");
    size_t nj = lua_objlen(L, -1);
    if (nj > SBIO_SCRIPT_MAX_JOBS) {
        snprintf(err, errlen, "%s: phase %s: at most %d jobs", s->path, p->name,
                 SBIO_SCRIPT_MAX_JOBS);
        return -EINVAL;
    }
    for (size_t k = 1; k <= nj; k++) {
        lua_rawgeti(L, -1, (int)k);
        int rc = read_job(L, s->path, &p->jobs[p->njobs++], err, errlen);
        lua_pop(L, 1);
        if (rc)
            return rc;
    }
    lua_pop(L, 1);
    return 0;
}

/* event = true in a job of a script without an event(ctx) function: the first such job's
 * line. 0 or -EINVAL (err said). */
static int check_event_jobs(lua_State *L, const struct sbio_script *s, char *err, size_t errlen)
{
    if (s->has_event)
        return 0;
    for (unsigned pi = 0; pi < s->nphases; pi++)
        for (unsigned k = 0; k < s->phases[pi].njobs; k++) {
            const struct sbio_script_job *j = &s->phases[pi].jobs[k];
            if (!j->event)
                continue;
            script_global(L, "event");
            int type = lua_type(L, -1);
            lua_pop(L, 1);
            snprintf(err, errlen,
                     "%s:%d: job %s: event = true, but the script defines no event(ctx) "
                     "function%s%s",
                     s->path, j->line, j->name, type == LUA_TNIL ? "" : " (event is a ",
                     type == LUA_TNIL ? "" : lua_typename(L, type));
            if (type != LUA_TNIL)
                snprintf(err + strlen(err), errlen - strlen(err), ")");
            return -EINVAL;
        }
    return 0;
}

static int read_decl(lua_State *L, struct sbio_script *s, char *err, size_t errlen)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "sbio.P");
    lua_getfield(L, -1, "S");
    int S = lua_gettop(L);
    int rc = read_options(L, S, s, err, errlen);
    if (!rc)
        rc = read_fileset(L, S, s);
    if (rc == -ERANGE) {
        snprintf(err, errlen, "%s: a file size above 2^63 - 1 bytes", s->path);
        rc = -EINVAL;
    }
    if (rc)
        return rc;
    /* Phases and their jobs. */
    lua_getfield(L, S, "phases");
    size_t np = lua_objlen(L, -1);
    if (np > SBIO_SCRIPT_MAX_PHASES) {
        snprintf(err, errlen, "%s: at most %d phases", s->path, SBIO_SCRIPT_MAX_PHASES);
        return -EINVAL;
    }
    for (size_t i = 1; i <= np; i++) {
        lua_rawgeti(L, -1, (int)i);
        rc = read_phase(L, s, &s->phases[s->nphases++], err, errlen);
        lua_pop(L, 1);
        if (rc)
            return rc;
    }
    lua_pop(L, 3);
    script_global(L, "event");
    s->has_event = lua_isfunction(L, -1);
    script_global(L, "report");
    s->has_report = lua_isfunction(L, -1);
    lua_pop(L, 2);
    return check_event_jobs(L, s, err, errlen);
}

/* A C function run by lua_cpcall: what C does in a state after the script ran is protected
 * too (a memory error there is the script's, not a panic). */
struct script_call {
    struct sbio_script *s;
    char *err;
    size_t errlen;
    int rc;
};

static int read_decl_call(lua_State *L)
{
    struct script_call *c = lua_touserdata(L, 1);
    c->rc = read_decl(L, c->s, c->err, c->errlen);
    return 0;
}

int sbio_script_load(const char *path, const char *const *names, const char *const *values,
                     int nover, bool trusted, struct sbio_script *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->path, sizeof(out->path), "%s", path);
    out->trusted = trusted;
    lua_State *L = script_open(path, names, values, nover, trusted, err, errlen);
    if (!L)
        return -EINVAL;
    struct script_call c = {out, err, errlen, 0};
    int rc = lua_cpcall(L, read_decl_call, &c) ? -EINVAL : c.rc;
    if (rc && !c.rc && !guard_said(guard_of(L), path, err, errlen))
        script_err(L, err, errlen);
    if (!rc && !out->nphases) {
        snprintf(err, errlen, "%s: declares no phase; add phase \"name\" { job \"name\" { … } }",
                 path);
        rc = -EINVAL;
    }
    script_close(L);
    if (rc)
        sbio_script_free(out);
    return rc;
}

/* Whether phase name is one of sel's: a whole entry, or one name of its comma list. */
static bool phase_selected(const char *name, const char *const *sel, int nsel)
{
    size_t n = strlen(name);
    for (int i = 0; i < nsel; i++) {
        if (!strcmp(sel[i], name))
            return true;
        for (const char *p = sel[i]; *p;) {
            size_t len = strcspn(p, ",");
            if (len == n && !strncmp(p, name, n))
                return true;
            p += len + (p[len] == ',');
        }
    }
    return false;
}

/* The first name of sel that is no phase of s (written into bad), or false: all are. */
static bool phase_unknown(const struct sbio_script *s, const char *const *sel, int nsel, char *bad,
                          size_t badlen)
{
    for (int i = 0; i < nsel; i++) {
        bool whole = false;
        for (unsigned pi = 0; pi < s->nphases && !whole; pi++)
            whole = !strcmp(s->phases[pi].name, sel[i]);
        for (const char *p = sel[i]; !whole && *p;) {
            size_t len = strcspn(p, ",");
            bool known = false;
            for (unsigned pi = 0; pi < s->nphases && !known; pi++)
                known = strlen(s->phases[pi].name) == len && !strncmp(s->phases[pi].name, p, len);
            if (!known) {
                snprintf(bad, badlen, "%.*s", (int)len, p);
                return true;
            }
            p += len + (p[len] == ',');
        }
    }
    return false;
}

int sbio_script_select(struct sbio_script *s, const char *const *sel, int nsel, char *err,
                       size_t errlen)
{
    char bad[128];
    if (!nsel)
        return 0;
    if (phase_unknown(s, sel, nsel, bad, sizeof(bad))) {
        int n =
            snprintf(err, errlen, "--phase=%s: %s has no such phase; its phases: ", bad, s->path);
        for (unsigned pi = 0; pi < s->nphases && n >= 0 && (size_t)n < errlen; pi++)
            n += snprintf(err + n, errlen - (size_t)n, "%s\"%s\"", pi ? ", " : "",
                          s->phases[pi].name);
        return -EINVAL;
    }
    unsigned kept = 0;
    for (unsigned pi = 0; pi < s->nphases; pi++)
        if (phase_selected(s->phases[pi].name, sel, nsel)) {
            if (kept != pi)
                s->phases[kept] = s->phases[pi];
            kept++;
        }
    s->nphases = kept;
    return 0;
}

void sbio_script_free(struct sbio_script *s)
{
    free(s->file_size);
    s->file_size = NULL;
}

/* ---- the per-event hook ---- */

struct hook_state {
    uint64_t rng; /* the thread's generator, as the built-in modes and mixes draw from it */
    lua_State *L;
    struct script_guard *g;
    struct sbio_ctx_c *ctx;
    const struct sbio_script_hook *h;
    uint64_t seq;
    unsigned thread;
    bool said; /* the stop's line is printed once */
    int err;   /* set up in protected mode: 0, or -EINVAL (message in the state's stack) */
};

/* sbio.rand(n): a whole number in [0, n) from the thread's generator (the upvalue) — the draw
 * a uniform mix makes, so a script and its declarative twin issue the same operations. */
static int script_rand(lua_State *L)
{
    uint64_t *rng = lua_touserdata(L, lua_upvalueindex(1));
    double n = lua_type(L, 1) == LUA_TNUMBER ? lua_tonumber(L, 1) : 0;
    if (!(n >= 1 && n <= 9007199254740992.0))
        return luaL_error(L, "sbio.rand(n): n must be a number from 1 to 2^53");
    lua_pushnumber(L, (lua_Number)sbio_rand_below(rng, (uint64_t)n));
    return 1;
}

static void hook_destroy(void *p)
{
    struct hook_state *st = p;
    if (st)
        script_close(st->L);
    free(st);
}

/* The hook's set-up in a state where the script has run, by lua_cpcall: sbio.rand, sbio.files,
 * the ctx, and the stack every call uses: the traceback handler, event and ctx at 1, 2 and 3.
 * Through the prelude's private table: the script may have changed sbio's fields. */
static int hook_setup(lua_State *L)
{
    struct hook_state *st = lua_touserdata(L, 1);
    const struct sbio_script_hook *h = st->h;
    lua_settop(L, 0);
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushnumber(L, (double)(st->rng % 9007199254740991ULL));
    lua_call(L, 1, 0);
    lua_settop(L, 0);
    lua_getfield(L, LUA_REGISTRYINDEX, "sbio.P");
    lua_getfield(L, 1, "sbio");
    lua_pushliteral(L, "rand");
    lua_pushlightuserdata(L, &st->rng);
    lua_pushcclosure(L, script_rand, 1);
    lua_rawset(L, 2);
    /* The job's largest request, so that one event() can serve jobs of several block sizes. */
    lua_pushliteral(L, "block");
    lua_pushnumber(L, (double)h->max_len);
    lua_rawset(L, 2);
    lua_getfield(L, 1, "files");
    for (unsigned i = 0; i < h->nfiles; i++) {
        lua_pushnumber(L, (double)h->file_sizes[i]);
        lua_rawseti(L, 3, (int)i + 1);
    }
    lua_getfield(L, 1, "new_ctx");
    lua_call(L, 0, 1);
    st->ctx = (struct sbio_ctx_c *)lua_topointer(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "sbio.ctx");
    script_global(L, "event");
    if (!lua_isfunction(L, -1)) {
        lua_pushfstring(L, "%s: a job has event = true but the script defines no event(ctx)",
                        h->s->path);
        st->err = -EINVAL;
        return 1;
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "sbio.event");
    lua_pushcfunction(L, traceback);
    lua_setfield(L, LUA_REGISTRYINDEX, "sbio.traceback");
    return 0;
}

static void *hook_create(const void *arg, unsigned thread, uint64_t seed, const int *stop,
                         char *err, size_t len)
{
    const struct sbio_script_hook *h = arg;
    struct hook_state *st = calloc(1, sizeof(*st));
    if (!st) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    st->h = h;
    st->thread = thread;
    /* The thread's generator: --rand-seed and the thread id. */
    st->rng = seed;
    lua_State *L = st->L =
        script_open(h->s->path, h->names, h->values, h->nover, h->s->trusted, err, len);
    if (!L)
        goto fail;
    st->g = guard_of(L);
    st->g->stop = stop;
    int rc = lua_cpcall(L, hook_setup, st);
    if (rc || st->err) {
        if (!guard_said(guard_of(L), h->s->path, err, len)) {
            const char *m = lua_tostring(L, -1);
            snprintf(err, len, "%s", m ? m : "cannot set up event()");
        }
        goto fail;
    }
    lua_settop(L, 0);
    lua_getfield(L, LUA_REGISTRYINDEX, "sbio.traceback");
    lua_getfield(L, LUA_REGISTRYINDEX, "sbio.event");
    lua_getfield(L, LUA_REGISTRYINDEX, "sbio.ctx");
    return st;
fail:
    hook_destroy(st);
    return NULL;
}

/* --verify stamps and checks whole blocks: a request that starts or ends inside one would
 * stamp a header where none is read back, or read part of a block's checksum. 0 or -1
 * (message in err). */
static int hook_check_whole(const struct sbio_script_hook *h, unsigned file, uint64_t off,
                            uint32_t n, char *err, size_t len)
{
    uint64_t b = h->verify_block, end = off + n;
    if (!b || (off % b == 0 && (end % b == 0 || end == h->file_sizes[file])))
        return 0;
    char blk[32];
    snprintf(err, len,
             "%s: event(): ctx.offset %" PRIu64 " + ctx.len %u is not whole blocks of %s; "
             "--verify checks whole blocks",
             h->s->path, off, n, sbio_fmt_bytes(blk, sizeof(blk), b));
    return -1;
}

/* A read's or a write's place, from what event() set: a whole offset (a Lua number), the
 * request inside file c->file and at most the job's block, whole blocks under --verify.
 * 0 with *off, or -1 (message in err). */
static int hook_range(const struct sbio_script_hook *h, const struct sbio_ctx_c *c, uint64_t *off,
                      char *err, size_t len)
{
    uint64_t fsize = h->file_sizes[c->file];
    if (!(c->offset >= 0 && c->offset < 0x1p63 && c->offset == floor(c->offset))) {
        snprintf(err, len, "%s: event(): ctx.offset %.17g is not a whole number of bytes >= 0",
                 h->s->path, c->offset);
        return -1;
    }
    *off = (uint64_t)c->offset;
    if (!c->len || c->len > h->max_len || *off > fsize || c->len > fsize - *off) {
        char fsz[32], blk[32];
        snprintf(err, len,
                 "%s: event(): ctx.offset %" PRIu64 " + ctx.len %u is outside file %u (%s) or "
                 "longer than the job's block (%s)",
                 h->s->path, *off, c->len, c->file, sbio_fmt_bytes(fsz, sizeof(fsz), fsize),
                 sbio_fmt_bytes(blk, sizeof(blk), h->max_len));
        return -1;
    }
    return hook_check_whole(h, c->file, *off, c->len, err, len);
}

static int hook_next(void *p, struct sbio_io *io, char *err, size_t len)
{
    struct hook_state *st = p;
    lua_State *L = st->L;
    struct sbio_ctx_c *c = st->ctx;
    memset(c, 0, sizeof(*c));
    c->thread = st->thread;
    c->seq = (double)st->seq++;
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    /* The grace after a stop is this call's: a stop the hook saw during an earlier one (the
     * end of the warm-up) does not count against it. */
    st->g->stop_seen_ns = 0;
    if (lua_pcall(L, 1, 1, 1)) {
        const struct script_guard *g = st->g;
        /* Stopped by a signal: the run is interrupted, event() with it; stopped at the time
         * limit, or out of memory: the script's failure. */
        if (g->abort == SCRIPT_STOPPED && sbio_stop_requested()) {
            char why[PATH_MAX + 256];
            guard_said(g, st->h->s->path, why, sizeof(why));
            if (!st->said)
                fprintf(stderr, "sbio: event(): %s\n", why);
            st->said = true;
            lua_settop(L, 3);
            return 0;
        }
        if (!guard_said(g, st->h->s->path, err, len)) {
            /* The whole traceback for the user; its first line ends the run. */
            fprintf(stderr, "sbio: event(): %s\n", lua_tostring(L, -1));
            script_err(L, err, len);
        }
        lua_settop(L, 3);
        return -1;
    }
    int more = lua_toboolean(L, -1);
    lua_settop(L, 3);
    if (!more)
        return 0;
    const struct sbio_script_hook *h = st->h;
    if (c->op < 0 || c->op > 3) {
        snprintf(err, len, "%s: event(): ctx.op %d: accepted: sbio.READ, WRITE, FSYNC, FDATASYNC",
                 h->s->path, c->op);
        return -1;
    }
    if (c->file >= h->nfiles) {
        if (h->nfiles == 1)
            snprintf(err, len, "%s: event(): ctx.file %u: the set has one file, 0", h->s->path,
                     c->file);
        else
            snprintf(err, len, "%s: event(): ctx.file %u: the set has files 0 to %u", h->s->path,
                     c->file, h->nfiles - 1);
        return -1;
    }
    io->file = c->file;
    io->flags = c->op == 3 ? SBIO_IO_DATASYNC : 0;
    if (c->op >= 2) {
        io->op = SBIO_FSYNC;
        io->offset = 0;
        io->len = 0;
        return 1;
    }
    uint64_t off;
    if (hook_range(h, c, &off, err, len))
        return -1;
    io->op = c->op ? SBIO_WRITE : SBIO_READ;
    io->offset = off;
    io->len = c->len;
    return 1;
}

const struct sbio_hook_ops *sbio_script_hook_ops(struct sbio_script_hook *hook)
{
    static const struct sbio_hook_ops ops_template = {hook_create, hook_next, hook_destroy, NULL};
    struct sbio_hook_ops *ops = malloc(sizeof(*ops));
    if (!ops)
        return NULL;
    *ops = ops_template;
    ops->arg = hook;
    return ops;
}

/* ---- the report hook ---- */

/* Push a JSON value as plain Lua values (the only kind that crosses into a Lua state). */
static void push_json(lua_State *L, json_t *v, int depth)
{
    if (depth > 64) {
        lua_pushnil(L);
        return;
    }
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *x;
        lua_newtable(L);
        json_object_foreach(v, k, x)
        {
            push_json(L, x, depth + 1);
            lua_setfield(L, -2, k);
        }
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        json_t *x;
        lua_newtable(L);
        json_array_foreach(v, i, x)
        {
            push_json(L, x, depth + 1);
            lua_rawseti(L, -2, (int)i + 1);
        }
        break;
    }
    case JSON_STRING: lua_pushstring(L, json_string_value(v)); break;
    case JSON_INTEGER: lua_pushnumber(L, (double)json_integer_value(v)); break;
    case JSON_REAL: lua_pushnumber(L, json_real_value(v)); break;
    case JSON_TRUE: lua_pushboolean(L, 1); break;
    case JSON_FALSE: lua_pushboolean(L, 0); break;
    default: lua_pushnil(L); break;
    }
}

/* Lua's print, writing to the stream in its upvalue: report() prints where the text report
 * goes, so a machine-readable report on standard output stays whole. */
static int script_print(lua_State *L)
{
    FILE *out = lua_touserdata(L, lua_upvalueindex(1));
    int n = lua_gettop(L);
    lua_getglobal(L, "tostring");
    for (int i = 1; i <= n; i++) {
        lua_pushvalue(L, -1);
        lua_pushvalue(L, i);
        lua_call(L, 1, 1);
        const char *str = lua_tostring(L, -1);
        if (!str)
            return luaL_error(L, "'tostring' must return a string to 'print'");
        if (i > 1)
            fputc('\t', out);
        fputs(str, out);
        lua_pop(L, 1);
    }
    fputc('\n', out);
    return 0;
}

struct report_call {
    const struct sbio_script *s;
    json_t *doc;
    FILE *out;
    char *err;
    size_t len;
    int rc;
};

/* report(result) in protected mode: the result document pushed into the state is the
 * script's memory too. */
static int report_body(lua_State *L)
{
    struct report_call *c = lua_touserdata(L, 1);
    script_global(L, "report");
    if (!lua_isfunction(L, -1))
        return 0;
    lua_getfield(L, LUA_REGISTRYINDEX, "sbio.env");
    lua_pushliteral(L, "print");
    lua_pushlightuserdata(L, c->out);
    lua_pushcclosure(L, script_print, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    push_json(L, c->doc, 0);
    fflush(c->out);
    c->rc = guarded_pcall(L, c->s->path, 1, 0, c->err, c->len);
    fflush(c->out);
    return 0;
}

int sbio_script_report(const struct sbio_script *s, const char *const *names,
                       const char *const *values, int nover, json_t *doc, FILE *out, char *err,
                       size_t len)
{
    lua_State *L = script_open(s->path, names, values, nover, s->trusted, err, len);
    if (!L)
        return -EINVAL;
    struct script_guard *g = guard_of(L);
    g->deadline_ns = sbio_now_ns() + SCRIPT_LOAD_S * 1000000000ULL;
    struct report_call c = {s, doc, out, err, len, 0};
    if (lua_cpcall(L, report_body, &c)) {
        c.rc = -EINVAL;
        if (!guard_said(g, s->path, err, len))
            script_err(L, err, len);
    }
    script_close(L);
    return c.rc;
}
