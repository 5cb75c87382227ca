#include "decl_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cgroup.h"
#include "engine.h"
#include "ioprio.h"
#include "job.h"
#include "mix.h"
#include "sysblock.h"
#include "tree.h"
#include "util.h"

/* Why job k of phase p cannot be verified beside other threads (of its phase, or of other
 * ranks on the same set), or NULL. Random modes and mixes draw from their threads' own
 * blocks (block % threads == thread, workload.c), sequential modes walk per-thread slices:
 * one rule or the other for all of a phase's jobs. */
static const char *check_verify_clash(const struct sbio_script_phase *p, unsigned k, char *why,
                                      size_t len)
{
    const struct sbio_script_job *j = &p->jobs[k];
    if (j->event)
        return "event(ctx) chooses its offsets itself, which may be blocks other threads read "
               "or write; under --verify an event job must be its phase's only thread";
    uint64_t small = j->block[0], big = j->block[0];
    for (unsigned b = 1; b < j->nblocks && j->mode == SBIO_MODE_NONE; b++) {
        small = j->block[b] < small ? j->block[b] : small;
        big = j->block[b] > big ? j->block[b] : big;
    }
    if (big > small) {
        char a[32], c[32];
        snprintf(why, len,
                 "requests of %s to %s would cover other threads' blocks (each thread owns "
                 "blocks of %s); under --verify a mix of several sizes must be its phase's "
                 "only thread",
                 sbio_fmt_bytes(a, sizeof(a), small), sbio_fmt_bytes(c, sizeof(c), big), a);
        return why;
    }
    for (unsigned o = 0; o < p->njobs; o++) {
        const struct sbio_script_job *q = &p->jobs[o];
        uint64_t qs = q->block[0];
        for (unsigned b = 1; b < q->nblocks && q->mode == SBIO_MODE_NONE; b++)
            qs = q->block[b] < qs ? q->block[b] : qs;
        if (!q->event && qs != small) { /* block i of one is not block i of the other */
            char a[32], c[32];
            snprintf(why, len,
                     "its blocks of %s and job \"%s\"'s of %s overlap; under --verify a "
                     "phase's jobs have one block size",
                     sbio_fmt_bytes(a, sizeof(a), small), q->name,
                     sbio_fmt_bytes(c, sizeof(c), qs));
            return why;
        }
    }
    bool seq = sbio_mode_sequential(j->mode);
    for (unsigned o = 0; o < p->njobs; o++)
        if (!p->jobs[o].event && sbio_mode_sequential(p->jobs[o].mode) != seq) {
            snprintf(why, len,
                     "it %s while job \"%s\" %s, so their blocks overlap; under --verify a "
                     "phase's jobs are all sequential modes or none",
                     seq ? "walks per-thread slices of the set"
                         : "draws blocks spread over the set",
                     p->jobs[o].name,
                     seq ? "draws blocks spread over it" : "walks per-thread slices of it");
            return why;
        }
    return NULL;
}

/* --verify needs each block read and written by one thread of a phase (verify.h): a phase's
 * jobs partition the set's blocks among all its threads (session_place numbers them across
 * the jobs, and across the ranks that share the set: sharing of them); a phase of one thread
 * verifies any job. 0 or -SBIO_EUSAGE (message printed). */
static int check_verify(const struct sbio_script *s, unsigned sharing)
{
    for (unsigned pi = 0; pi < s->nphases; pi++) {
        const struct sbio_script_phase *p = &s->phases[pi];
        unsigned threads = 0;
        for (unsigned k = 0; k < p->njobs; k++)
            threads += p->jobs[k].threads;
        for (unsigned k = 0; k < p->njobs && threads * sharing > 1; k++) {
            char buf[320];
            const char *why = check_verify_clash(p, k, buf, sizeof(buf));
            if (why) {
                sbio_err("%s:%d: --verify: phase \"%s\", job \"%s\": %s", s->path, p->jobs[k].line,
                         p->name, p->jobs[k].name, why);
                return -SBIO_EUSAGE;
            }
        }
    }
    return 0;
}

/* Every job's group checked against the set's devices t before anything is made (cgroup.h).
 * 0 or -SBIO_EUSAGE (message printed). */
static int check_groups(const struct sbio_target *t, const struct sbio_script *s)
{
    int rc = 0;
    for (unsigned pi = 0; pi < s->nphases && !rc; pi++)
        for (unsigned k = 0; k < s->phases[pi].njobs && !rc; k++) {
            const struct sbio_script_job *j = &s->phases[pi].jobs[k];
            char who[PATH_MAX + 96];
            snprintf(who, sizeof(who), "%s:%d: job %s", s->path, j->line, j->name);
            rc = sbio_cgroup_spec_check(&j->group, who, t);
        }
    return rc;
}

/* Every job's I/O priority (its own, else the command line's) tried before the header: the
 * realtime class without the privilege is refused then, not phase by phase. 0 or
 * -SBIO_EUSAGE (message printed). */
static int check_ioprio(const struct sbio_settings *set, const struct sbio_script *s)
{
    int rc = 0;
    for (unsigned pi = 0; pi < s->nphases && !rc; pi++)
        for (unsigned k = 0; k < s->phases[pi].njobs && !rc; k++) {
            int prio = s->phases[pi].jobs[k].ioprio;
            rc = sbio_ioprio_check(prio != SBIO_IOPRIO_NONE ? prio : set->job.ioprio);
        }
    return rc;
}

/* Under n MPI ranks every rank runs a share of each job's events and rate (a share of 0
 * would be no limit: refused), and a set the ranks share cannot take a seqwr job (it
 * empties the files every rank writes). 0 or -SBIO_EUSAGE (message printed). */
static int check_ranks(const struct sbio_settings *set, const struct sbio_script *s, unsigned n)
{
    for (unsigned pi = 0; pi < s->nphases && n > 1; pi++) {
        const struct sbio_script_phase *p = &s->phases[pi];
        unsigned total = 0, before = 0;
        for (unsigned k = 0; k < p->njobs; k++)
            total += p->jobs[k].threads;
        for (unsigned k = 0; k < p->njobs; before += p->jobs[k++].threads) {
            const struct sbio_script_job *j = &p->jobs[k];
            uint64_t ev = sbio_job_events(p, k, total, before);
            if ((ev && ev < n) || (j->rate && j->rate < n)) {
                bool events = ev && ev < n;
                sbio_err("%s:%d: phase \"%s\", job \"%s\": %s %" PRIu64 "%s over %u ranks leaves "
                         "some ranks none; accepted: at least %u (one per rank)",
                         s->path, j->line, p->name, j->name,
                         events ? "its share of the phase's events," : "a rate of",
                         events ? ev : j->rate, events ? "" : " ops/s", n, n);
                return -SBIO_EUSAGE;
            }
            if (j->mode == SBIO_MODE_SEQWR && !set->file_per_rank) {
                sbio_err("%s:%d: phase \"%s\", job \"%s\": seqwr on a set shared by %u ranks "
                         "empties the files every rank writes; accepted: --file-per-rank, or "
                         "seqrewr",
                         s->path, j->line, p->name, j->name, n);
                return -SBIO_EUSAGE;
            }
        }
    }
    return 0;
}

/* Whether job j does op (enum sbio_mix_op): a weight above 0, or a place in its flow. */
static bool job_does(const struct sbio_script_job *j, int op)
{
    for (unsigned i = 0; i < j->nflow; i++)
        if (j->flow[i] == op)
            return true;
    return !j->nflow && j->weight[op] > 0;
}

/* Whether a job of phases 0 .. pi does op: what they did is on disk when phase pi runs. */
static bool phases_do(const struct sbio_script *s, unsigned pi, int op)
{
    for (unsigned p = 0; p <= pi; p++)
        for (unsigned k = 0; k < s->phases[p].njobs; k++)
            if (job_does(&s->phases[p].jobs[k], op))
                return true;
    return false;
}

/* Job j's appends on a flat set: each writes at its file's end, so not through a mapping of
 * the file's size (mmap), nor with O_DIRECT (the ends are not aligned), nor under --verify
 * (it checks the set's blocks, which appends are not). 0 or -SBIO_EUSAGE (message printed). */
static int check_flat_append(const struct sbio_settings *set, const struct sbio_script *s,
                             const struct sbio_script_job *j)
{
    const char *why = j->engine == sbio_engine_id("mmap") ? "the mmap engine maps each file at "
                                                            "its size and cannot write past it"
                      : (j->flags & SBIO_XF_DIRECT)       ? "flags direct: the files' ends are "
                                                            "not aligned for O_DIRECT"
                      : set->verify ? "--verify checks the set's blocks, which appends are not"
                                    : NULL;
    if (!why)
        return 0;
    sbio_err("%s:%d: job %s: append on a flat set writes past the end of its files: %s", s->path,
             j->line, j->name, why);
    return -SBIO_EUSAGE;
}

/* Job j's files (files = "0-7,9") against the set's count n: every index below n, and no
 * --verify (its threads own blocks over the whole set). 0 or -SBIO_EUSAGE (message printed). */
static int check_flat_files(const struct sbio_settings *set, const struct sbio_script *s,
                            const struct sbio_script_job *j, uint64_t n)
{
    if (!j->nfrange)
        return 0;
    uint64_t last = j->frange_last[j->nfrange - 1];
    if (last >= n) {
        sbio_err("%s:%d: job %s: files: file %" PRIu64 " is not in the set, which has %" PRIu64
                 " file%s; accepted: indexes 0 to %" PRIu64,
                 s->path, j->line, j->name, last, n, n == 1 ? "" : "s", n - 1);
        return -SBIO_EUSAGE;
    }
    if (set->verify) {
        sbio_err("%s:%d: job %s: files: --verify has each thread own blocks over the whole set; "
                 "run without --verify, or without files",
                 s->path, j->line, j->name);
        return -SBIO_EUSAGE;
    }
    return 0;
}

/* Job j of a script without a tree: none of a tree's operations but append (at the end of
 * a file of the set), no flow; its files among the set's. 0 or -SBIO_EUSAGE (message
 * printed). */
static int check_flat_job(const struct sbio_settings *set, const struct sbio_script *s,
                          const struct sbio_script_job *j)
{
    const char *what = j->nflow ? "flow" : NULL;
    for (int op = SBIO_MIX_FS_FIRST; op < SBIO_MIX_NR && !what; op++)
        what = op != SBIO_MIX_APPEND && job_does(j, op) ? sbio_mix_op_name(op) : NULL;
    if (what) {
        sbio_err("%s:%d: job %s: %s needs a file tree; declare one with fileset { files = N, "
                 "dirwidth = W, size = ... }",
                 s->path, j->line, j->name, what);
        return -SBIO_EUSAGE;
    }
    if (job_does(j, SBIO_MIX_APPEND) && check_flat_append(set, s, j))
        return -SBIO_EUSAGE;
    return check_flat_files(set, s, j, s->nfiles ? s->nfiles : set->file_num);
}

/* The operations that make a file the thread's current one (fsop.h): create and open; in
 * a mix the writes, in a flow every operation on a file's content. */
static const int make_current[] = {SBIO_MIX_CREATE,     SBIO_MIX_OPEN,  SBIO_MIX_APPEND,
                                   SBIO_MIX_WRITEWHOLE, SBIO_MIX_WRITE, SBIO_MIX_READWHOLE,
                                   SBIO_MIX_READ};
#define MAKE_CURRENT_MIX 5 /* the first five make it in a mix too */

/* close, fsync and fdatasync act on the thread's current file: a job without an operation
 * that makes one can never serve them. what is set to why ("" when it can). */
static void job_check_current(const struct sbio_script_job *j, char *what, size_t len)
{
    int needs = job_does(j, SBIO_MIX_CLOSE)       ? SBIO_MIX_CLOSE
                : job_does(j, SBIO_MIX_FSYNC)     ? SBIO_MIX_FSYNC
                : job_does(j, SBIO_MIX_FDATASYNC) ? SBIO_MIX_FDATASYNC
                                                  : -1;
    size_t n = j->nflow ? sizeof(make_current) / sizeof(make_current[0]) : MAKE_CURRENT_MIX;
    for (size_t i = 0; i < n && needs >= 0; i++)
        if (job_does(j, make_current[i]))
            return;
    if (needs >= 0)
        snprintf(what, len,
                 "%s needs the thread's current file, which only create, open, append, "
                 "write and writewhole make (in a flow read and readwhole too); add one",
                 sbio_mix_op_name(needs));
}

/* Job j of a tree script: a mix or flow of operations on the tree, by system calls. 0 or
 * -SBIO_EUSAGE (message printed). */
static int check_tree_job(const struct sbio_script *s, const struct sbio_script_job *j)
{
    char what[192] = "";
    if (j->mode != SBIO_MODE_NONE || j->event)
        snprintf(what, sizeof(what), "%s%s%s: a tree's jobs take a mix or a flow",
                 j->event ? "event = true" : "mode = \"", j->event ? "" : sbio_mode_name(j->mode),
                 j->event ? "" : "\"");
    else if (job_does(j, SBIO_MIX_RMW))
        snprintf(what, sizeof(what),
                 "rmw works on a flat fileset; accepted in a tree job: read, "
                 "write and the file-system operations");
    else if (!sbio_engine_has(j->engine, SBIO_ENG_PSYNC))
        snprintf(what, sizeof(what),
                 "engine '%s': a tree's operations are system calls; "
                 "accepted: sync",
                 sbio_engine_name(j->engine));
    else if (j->flags & SBIO_XF_DIRECT)
        snprintf(what, sizeof(what),
                 "flags \"direct\": O_DIRECT fails at the tails of files "
                 "of any size; accepted: sync, dsync");
    else
        job_check_current(j, what, sizeof(what));
    if (!what[0])
        return 0;
    sbio_err("%s:%d: job %s: %s", s->path, j->line, j->name, what);
    return -SBIO_EUSAGE;
}

/* The operations that act on an existing file of the thread's own. */
static const int need_file[] = {SBIO_MIX_READ,      SBIO_MIX_WRITE,      SBIO_MIX_APPEND,
                                SBIO_MIX_READWHOLE, SBIO_MIX_WRITEWHOLE, SBIO_MIX_OPEN,
                                SBIO_MIX_STAT,      SBIO_MIX_UNLINK,     SBIO_MIX_RENAME};
#define NEED_FILE (sizeof(need_file) / sizeof(need_file[0]))

/* Whether job j of phase pi, or a job of an earlier phase, does op: a job's threads own
 * their own slots (fsop.h), so another job of the same phase never frees or fills them;
 * an earlier phase's jobs, numbered otherwise, may have. */
static bool job_served(const struct sbio_script *s, unsigned pi, const struct sbio_script_job *j,
                       int op)
{
    return job_does(j, op) || (pi > 0 && phases_do(s, pi - 1, op));
}

/* Job j of phase pi asks for an operation it can never be served: a free slot when prepare
 * fills every one and neither the job nor an earlier phase unlinks, a file when prepare
 * makes none and neither creates. 0 or -SBIO_EUSAGE (message printed). */
static int check_serve(const struct sbio_script *s, unsigned pi, const struct sbio_script_job *j)
{
    const struct sbio_tree_decl *t = &s->tree;
    uint64_t made = sbio_tree_decl_made(t);
    const char *p = s->phases[pi].name;
    int op = job_does(j, SBIO_MIX_CREATE) ? SBIO_MIX_CREATE : SBIO_MIX_RENAME;
    if (made >= t->files && job_does(j, op) && !job_served(s, pi, j, SBIO_MIX_UNLINK)) {
        sbio_err("%s:%d: job %s: %s needs a free slot, but the fileset (line %d) has prealloc "
                 "= 1 and neither the job nor one of a phase before \"%s\" unlinks (the "
                 "phase's other jobs own other slots); lower prealloc or add unlink",
                 s->path, j->line, j->name, sbio_mix_op_name(op), t->line, p);
        return -SBIO_EUSAGE;
    }
    for (size_t i = 0; i < NEED_FILE && !made; i++)
        if (job_does(j, need_file[i]) && !job_served(s, pi, j, SBIO_MIX_CREATE)) {
            sbio_err("%s:%d: job %s: %s needs a file, but the fileset (line %d) has prealloc "
                     "= 0 and neither the job nor one of a phase before \"%s\" creates (the "
                     "phase's other jobs own other slots); raise prealloc or add create",
                     s->path, j->line, j->name, sbio_mix_op_name(need_file[i]), t->line, p);
            return -SBIO_EUSAGE;
        }
    return 0;
}

/* The first operation of job j that needs a slot of the thread's own (any but mkdir and
 * readdir), and of those the first that needs a file (*file; -1 when none), or -1. */
static int job_slot_op(const struct sbio_script_job *j, int *file)
{
    *file = -1;
    for (size_t i = 0; i < NEED_FILE && *file < 0; i++)
        *file = job_does(j, need_file[i]) ? need_file[i] : -1;
    for (int op = 0; op < SBIO_MIX_NR; op++)
        if (op != SBIO_MIX_MKDIR && op != SBIO_MIX_READDIR && job_does(j, op))
            return op;
    return -1;
}

/* Phase pi's jobs that create or rename, when neither they nor an earlier phase unlinks (nor
 * renames: an earlier phase's threads own other slots): the free slots then are at most
 * those prepare leaves, [made, files), and a thread that owns none of them (more threads than
 * free slots) never creates. width: the phase's threads per rank, sharing: the ranks sharing
 * the tree. 0 or -SBIO_EUSAGE (message printed). */
static int check_free(const struct sbio_script *s, unsigned pi, unsigned sharing, uint64_t width)
{
    const struct sbio_script_phase *p = &s->phases[pi];
    uint64_t files = s->tree.files, all = width * sharing;
    uint64_t made = sbio_tree_decl_made(&s->tree);
    uint64_t free = files - made;
    if (free >= all || (pi > 0 && phases_do(s, pi - 1, SBIO_MIX_RENAME)))
        return 0; /* every thread owns a free slot, or one may be freed */
    for (unsigned k = 0, before = 0; k < p->njobs; before += p->jobs[k++].threads) {
        const struct sbio_script_job *j = &p->jobs[k];
        int op = job_does(j, SBIO_MIX_CREATE) ? SBIO_MIX_CREATE : SBIO_MIX_RENAME;
        if (!job_does(j, op) || job_served(s, pi, j, SBIO_MIX_UNLINK))
            continue;
        /* Thread t owns a free slot when some s in [made, files) has s mod all = t. */
        for (uint64_t r = 0; r < sharing; r++)
            for (uint64_t t = r * width + before; t < r * width + before + j->threads; t++) {
                if ((t + all - made % all) % all < free)
                    continue;
                sbio_err("%s:%d: job %s: %s: thread %" PRIu64 " of the %" PRIu64
                         " of phase \"%s\"%s owns none of the tree's %" PRIu64
                         " free slots (%" PRIu64 " to %" PRIu64 "; thread t owns the slots s "
                         "with s mod %" PRIu64 " = t), and neither the job nor a phase before "
                         "frees one; use fewer threads, lower prealloc or add unlink (fileset, "
                         "line %d)",
                         s->path, j->line, j->name, sbio_mix_op_name(op), t, all, p->name,
                         sharing > 1 ? " over its ranks" : "", free, made, files - 1, all,
                         s->tree.line);
                return -SBIO_EUSAGE;
            }
    }
    return 0;
}

/* Phase pi's threads on the tree: thread t of T (every job's, numbered job after job, rank
 * after rank sharing the tree) owns the slots s with s % T == t (fsop.h). A job whose last
 * thread's number is the tree's slots or more has threads that own none; one whose last
 * thread's number is prepare's files or more, threads that own none of them, and so never a
 * file unless the job or an earlier phase creates. 0 or -SBIO_EUSAGE (message printed). */
static int check_slots(const struct sbio_script *s, unsigned pi, unsigned sharing)
{
    const struct sbio_script_phase *p = &s->phases[pi];
    uint64_t width = 0, before = 0, files = s->tree.files;
    uint64_t made = sbio_tree_decl_made(&s->tree);
    for (unsigned k = 0; k < p->njobs; k++)
        width += p->jobs[k].threads;
    for (unsigned k = 0; k < p->njobs; k++) {
        const struct sbio_script_job *j = &p->jobs[k];
        uint64_t last = (sharing - 1) * width + before + j->threads - 1;
        before += j->threads;
        int file, op = job_slot_op(j, &file);
        bool unmade = file >= 0 && last >= made && !job_served(s, pi, j, SBIO_MIX_CREATE);
        if (op < 0 || (last < files && !unmade))
            continue;
        char why[96];
        snprintf(why, sizeof(why),
                 last < files ? "files prepare makes (%" PRIu64 ")" : "slots (%" PRIu64 ")",
                 last < files ? made : files);
        sbio_err("%s:%d: job %s: %s: thread %" PRIu64 " of the %" PRIu64 " of phase \"%s\"%s "
                 "owns none of the tree's %s (thread t owns the slots s with s mod %" PRIu64
                 " = t); use fewer threads, or more files or prealloc (fileset, line %d)",
                 s->path, j->line, j->name, sbio_mix_op_name(last < files ? file : op), last,
                 width * sharing, p->name, sharing > 1 ? " over its ranks" : "", why,
                 width * sharing, s->tree.line);
        return -SBIO_EUSAGE;
    }
    return check_free(s, pi, sharing, width);
}

/* Every job's operations against the script's file set (a tree, or a flat set); --verify
 * (set) has nothing to check on a tree. 0 or -SBIO_EUSAGE (message printed). */
static int check_ops(const struct sbio_settings *set, const struct sbio_script *s, unsigned sharing)
{
    int rc = 0;
    if (set->verify && s->tree.set) {
        sbio_err("--verify: %s declares a file tree (line %d), whose files carry no "
                 "verification stamps; run it without --verify",
                 s->path, s->tree.line);
        return -SBIO_EUSAGE;
    }
    for (unsigned pi = 0; pi < s->nphases && !rc; pi++)
        for (unsigned k = 0; k < s->phases[pi].njobs && !rc; k++) {
            const struct sbio_script_job *j = &s->phases[pi].jobs[k];
            if (!s->tree.set)
                rc = check_flat_job(set, s, j);
            else if (j->nfrange) {
                sbio_err("%s:%d: job %s: files picks files of a flat set; on a file tree each "
                         "thread works on its own slots",
                         s->path, j->line, j->name);
                rc = -SBIO_EUSAGE;
            } else if (!(rc = check_tree_job(s, j)))
                rc = check_serve(s, pi, j);
        }
    for (unsigned pi = 0; pi < s->nphases && !rc && s->tree.set; pi++)
        rc = check_slots(s, pi, sharing);
    return rc;
}

int sbio_decl_check(const struct sbio_settings *set, const struct sbio_script *s, unsigned nranks)
{
    /* The ranks sharing the set (1 alone) number their threads as one phase's. */
    unsigned sharing = set->file_per_rank ? 1 : nranks;
    if (check_ops(set, s, sharing))
        return -SBIO_EUSAGE;
    if ((set->verify && check_verify(s, sharing)) || check_ranks(set, s, nranks))
        return -SBIO_EUSAGE;
    return 0;
}

int sbio_decl_check_system(const struct sbio_settings *set, const struct sbio_script *s,
                           const struct sbio_target *t)
{
    return check_ioprio(set, s) || check_groups(t, s) ? -SBIO_EUSAGE : 0;
}
