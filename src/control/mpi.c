/* Coordination and reduction across MPI ranks (see mpi.h). The pure parts (the worst status,
 * the merge of results) are built always and unit-tested without MPI; the rest is real only
 * with HAVE_MPI and otherwise acts for a single process. */
#include "mpi.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"
#include "util.h"

#ifdef HAVE_MPI
/* The MPI library's header: src/'s folders are on the quote path only (-iquote, Makefile), so
 * this is never src/control/mpi.h. */
#include <mpi.h>
#endif

_Static_assert(SBIO_MPI_HOST_LEN == sizeof(((struct sbio_run_result *)0)->rank_host[0]),
               "host name lengths of mpi.h and runner.h differ");

/* Severity of a status: usage error (nothing could start) over failure over interruption. */
static int mpi_severity(int rc)
{
    if (!rc)
        return 0;
    if (rc == -EINTR)
        return 1;
    return rc == -SBIO_EUSAGE ? 3 : 2;
}

int sbio_mpi_worst(const int *rc, unsigned n)
{
    int worst = -1;
    for (unsigned i = 0; i < n; i++)
        if (mpi_severity(rc[i]) > (worst < 0 ? 0 : mpi_severity(rc[worst])))
            worst = (int)i;
    return worst;
}

void sbio_mpi_merge(struct sbio_run_result *out, struct sbio_run_result *ranks,
                    char (*hosts)[SBIO_MPI_HOST_LEN], unsigned n, struct sbio_stats *per_thread)
{
    for (unsigned i = 0; i < n; i++) {
        struct sbio_run_result *r = &ranks[i];
        /* Pointers of another process mean nothing here. */
        r->per_thread = NULL;
        r->samples = NULL;
        r->nsamples = r->samples_cap = 0;
        r->ranks = NULL;
        r->rank_host = NULL;
        r->nranks = 0;
    }
    sbio_result_merge(out, ranks, n, SBIO_MERGE_RANKS, per_thread, hosts);
    out->nranks = n;
    out->ranks = ranks;
    out->rank_host = hosts;
}

#ifdef HAVE_MPI

#define MPI_TAG_STOP 4200 /* + the phase: a notice that a rank stopped */

static bool mpi_on(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    if (init)
        MPI_Finalized(&fin);
    return init && !fin;
}

/* Complete req without spinning: ranks that got here first must leave the CPU to the
 * workers of those still running on the same host. */
static void mpi_wait(MPI_Request *req)
{
    for (unsigned tries = 0;; tries++) {
        int done = 0;
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        if (tries >= 20) {
            struct timespec ts = {0, tries < 200 ? 100000 : 1000000};
            nanosleep(&ts, NULL);
        }
    }
}

int sbio_mpi_init(int *argc, char ***argv)
{
    /* Only under a launcher: started directly, sbio is exactly a build without MPI (no
     * singleton start-up, no MPI threads). */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_RANK") &&
        !getenv("PMI_SIZE"))
        return 0;
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        sbio_err("MPI_Init failed");
        return -EIO;
    }
    return 0;
}

void sbio_mpi_finalize(void)
{
    if (!mpi_on())
        return;
    /* mpirun kills every rank once one exits non-zero: nobody leaves before rank 0 has
     * printed and flushed its report. */
    fflush(stdout);
    fflush(stderr);
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    mpi_wait(&req);
    MPI_Finalize();
}

bool sbio_mpi_active(void)
{
    return mpi_on();
}

unsigned sbio_mpi_rank(void)
{
    int r = 0;
    if (mpi_on())
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return (unsigned)r;
}

unsigned sbio_mpi_size(void)
{
    int n = 1;
    if (mpi_on())
        MPI_Comm_size(MPI_COMM_WORLD, &n);
    return (unsigned)n;
}

const char *sbio_mpi_library(char *buf, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    if (MPI_Get_library_version(v, &n) != MPI_SUCCESS)
        snprintf(v, sizeof(v), "MPI");
    v[strcspn(v, ",\n")] = 0; /* "Open MPI v4.1.4, package: …" */
    snprintf(buf, len, "%s", v);
    return buf;
}

int sbio_mpi_hosts(char host[SBIO_MPI_HOST_LEN], bool *leader, unsigned *nhosts)
{
    memset(host, 0, SBIO_MPI_HOST_LEN);
    if (gethostname(host, SBIO_MPI_HOST_LEN - 1))
        snprintf(host, SBIO_MPI_HOST_LEN, "?");
    *leader = true;
    *nhosts = 1;
    if (!mpi_on())
        return 0;
    unsigned n = sbio_mpi_size(), me = sbio_mpi_rank();
    char(*all)[SBIO_MPI_HOST_LEN] = calloc(n, SBIO_MPI_HOST_LEN);
    if (!all) {
        sbio_err("MPI: no memory for %u host names", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allgather(host, SBIO_MPI_HOST_LEN, MPI_CHAR, all, SBIO_MPI_HOST_LEN, MPI_CHAR,
                  MPI_COMM_WORLD);
    *nhosts = 0;
    for (unsigned i = 0; i < n; i++) {
        bool first = true;
        for (unsigned j = 0; j < i && first; j++)
            first = strcmp(all[i], all[j]) != 0;
        *nhosts += first;
        if (i == me)
            *leader = first;
    }
    free(all);
    return 0;
}

/* Gather every rank's status; the worst one, the same on every rank. */
static int mpi_gather_status(int rc, int *all, unsigned *who)
{
    MPI_Request req;
    MPI_Iallgather(&rc, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &req);
    mpi_wait(&req);
    int worst = sbio_mpi_worst(all, sbio_mpi_size());
    if (who)
        *who = worst < 0 ? 0 : (unsigned)worst;
    return worst < 0 ? 0 : all[worst];
}

int sbio_mpi_agree(int rc, unsigned *who)
{
    if (!mpi_on()) {
        if (who)
            *who = 0;
        return rc;
    }
    int *all = calloc(sbio_mpi_size(), sizeof(int));
    if (!all) {
        sbio_err("MPI: out of memory");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int g = mpi_gather_status(rc, all, who);
    free(all);
    return g;
}

void sbio_mpi_bcast_u64(uint64_t *v)
{
    if (mpi_on())
        MPI_Bcast(v, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
}

/* A rank that fails (or is stopped by a signal) inside a phase sends a notice to every other
 * rank as it reaches the agree that ends the phase; the others, still in the phase, find it
 * with stopped(). Each agree drains exactly the notices of its phase — one from every other
 * rank whose status is not 0 — so none is left for a later phase; the tag carries the phase,
 * so a fast rank's notice for the next phase cannot be taken for this one's. */
struct sbio_mpi_watch {
    unsigned rank, size;
    int phase;
    bool armed;    /* recv is posted for this phase's notices */
    bool seen;     /* and has completed: someone stopped */
    int seen_from; /* its source */
    int recv_buf, one;
    MPI_Request recv;
    MPI_Request *sends; /* [size] */
    int *all;           /* [size] statuses */
};

static void watch_arm(struct sbio_mpi_watch *w)
{
    MPI_Irecv(&w->recv_buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_TAG_STOP + w->phase, MPI_COMM_WORLD,
              &w->recv);
    w->armed = true;
    w->seen = false;
}

/* Settle the posted receive: completed (a notice came), or cancelled. Returns the source of
 * the notice it got, or -1. */
static int watch_disarm(struct sbio_mpi_watch *w)
{
    if (!w->armed)
        return -1;
    w->armed = false;
    if (w->seen)
        return w->seen_from;
    MPI_Status st;
    int flag = 0;
    MPI_Test(&w->recv, &flag, &st);
    if (!flag) {
        MPI_Cancel(&w->recv);
        MPI_Wait(&w->recv, &st);
        MPI_Test_cancelled(&st, &flag);
        if (flag)
            return -1;
    }
    return st.MPI_SOURCE;
}

static bool watch_stopped(void *ctx)
{
    struct sbio_mpi_watch *w = ctx;
    if (!w->armed || w->seen)
        return w->seen;
    MPI_Status st;
    int flag = 0;
    MPI_Test(&w->recv, &flag, &st);
    if (flag) {
        w->seen = true;
        w->seen_from = st.MPI_SOURCE;
    }
    return w->seen;
}

static int watch_agree(void *ctx, int rc)
{
    struct sbio_mpi_watch *w = ctx;
    int tag = MPI_TAG_STOP + w->phase;
    unsigned nsend = 0;
    if (rc)
        for (unsigned p = 0; p < w->size; p++)
            if (p != w->rank)
                MPI_Isend(&w->one, 1, MPI_INT, (int)p, tag, MPI_COMM_WORLD, &w->sends[nsend++]);
    int g = mpi_gather_status(rc, w->all, NULL);
    int got = watch_disarm(w);
    for (unsigned p = 0; p < w->size; p++) {
        if (p == w->rank || !w->all[p])
            continue;
        if ((int)p == got) {
            got = -1;
            continue;
        }
        int tmp;
        MPI_Recv(&tmp, 1, MPI_INT, (int)p, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Waitall((int)nsend, w->sends, MPI_STATUSES_IGNORE);
    w->phase++;
    if (!g)
        watch_arm(w);
    return g;
}

struct sbio_mpi_watch *sbio_mpi_watch_new(struct sbio_runner_sync *sync)
{
    if (!mpi_on())
        return NULL;
    /* A rank without its watch would leave the others waiting: no memory ends the job. */
    struct sbio_mpi_watch *w = calloc(1, sizeof(*w));
    unsigned size = sbio_mpi_size();
    MPI_Request *sends = calloc(size, sizeof(MPI_Request));
    int *all = calloc(size, sizeof(int));
    if (!w || !sends || !all) {
        sbio_err("MPI: out of memory");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    w->rank = sbio_mpi_rank();
    w->size = size;
    w->one = 1;
    w->sends = sends;
    w->all = all;
    memset(sync, 0, sizeof(*sync));
    sync->ctx = w;
    sync->agree = watch_agree;
    sync->stopped = watch_stopped;
    return w;
}

void sbio_mpi_watch_free(struct sbio_mpi_watch *w)
{
    if (!w)
        return;
    watch_disarm(w);
    free(w->sends);
    free(w->all);
    free(w);
}

int sbio_mpi_reduce_result(struct sbio_run_result *res)
{
    if (!mpi_on())
        return 0;
    unsigned n = sbio_mpi_size(), me = sbio_mpi_rank();
    _Static_assert(sizeof(struct sbio_run_result) < INT_MAX, "result too large to gather");
    char host[SBIO_MPI_HOST_LEN] = "";
    if (gethostname(host, sizeof(host) - 1))
        snprintf(host, sizeof(host), "?");
    struct sbio_run_result *all = NULL;
    char(*hosts)[SBIO_MPI_HOST_LEN] = NULL;
    struct sbio_stats *threads = NULL;
    int *counts = NULL, *displs = NULL;
    /* Rank 0 decides whether it can hold everything; everyone learns it before sending. */
    uint64_t ok = 1;
    if (me == 0) {
        all = calloc(n, sizeof(*all));
        hosts = calloc(n, SBIO_MPI_HOST_LEN);
        counts = calloc(n, sizeof(int));
        displs = calloc(n, sizeof(int));
        ok = all && hosts && counts && displs;
    }
    sbio_mpi_bcast_u64(&ok);
    if (!ok)
        goto nomem;
    MPI_Gather(res, (int)sizeof(*res), MPI_BYTE, all, (int)sizeof(*res), MPI_BYTE, 0,
               MPI_COMM_WORLD);
    MPI_Gather(host, SBIO_MPI_HOST_LEN, MPI_CHAR, hosts, SBIO_MPI_HOST_LEN, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    /* Every thread's statistics, for the per-thread detail: histograms included, so that
     * the JSON's per-thread percentiles are exact too. */
    if (me == 0) {
        uint64_t bytes = 0;
        for (unsigned i = 0; i < n; i++) {
            uint64_t b = (uint64_t)all[i].threads * sizeof(struct sbio_stats);
            ok &= bytes + b <= INT_MAX;
            counts[i] = ok ? (int)b : 0;
            displs[i] = ok ? (int)bytes : 0;
            bytes += b;
        }
        if (!ok)
            sbio_err("MPI: %" PRIu64 " bytes of per-thread statistics are more than one "
                     "gather carries; use fewer threads or ranks",
                     bytes);
        threads = ok ? aligned_alloc(64, (bytes + 64) & ~(uint64_t)63) : NULL;
        ok = ok && threads;
    }
    sbio_mpi_bcast_u64(&ok);
    if (!ok)
        goto nomem;
    MPI_Gatherv(res->per_thread, (int)(res->threads * sizeof(struct sbio_stats)), MPI_BYTE, threads,
                counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (me == 0) {
        free(res->per_thread);
        sbio_mpi_merge(res, all, hosts, n, threads);
    }
    free(counts);
    free(displs);
    return 0;
nomem:
    if (me == 0)
        sbio_err("MPI: rank 0 has no memory to gather the results of %u ranks", n);
    free(all);
    free(hosts);
    free(threads);
    free(counts);
    free(displs);
    return -ENOMEM;
}

#else /* !HAVE_MPI: one process */

int sbio_mpi_init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return 0;
}

void sbio_mpi_finalize(void)
{
}

bool sbio_mpi_active(void)
{
    return false;
}

unsigned sbio_mpi_rank(void)
{
    return 0;
}

unsigned sbio_mpi_size(void)
{
    return 1;
}

const char *sbio_mpi_library(char *buf, size_t len)
{
    (void)buf, (void)len;
    return NULL;
}

int sbio_mpi_hosts(char host[SBIO_MPI_HOST_LEN], bool *leader, unsigned *nhosts)
{
    memset(host, 0, SBIO_MPI_HOST_LEN);
    if (gethostname(host, SBIO_MPI_HOST_LEN - 1))
        snprintf(host, SBIO_MPI_HOST_LEN, "?");
    *leader = true;
    *nhosts = 1;
    return 0;
}

int sbio_mpi_agree(int rc, unsigned *who)
{
    if (who)
        *who = 0;
    return rc;
}

void sbio_mpi_bcast_u64(uint64_t *v)
{
    (void)v;
}

struct sbio_mpi_watch *sbio_mpi_watch_new(struct sbio_runner_sync *sync)
{
    (void)sync;
    return NULL;
}

void sbio_mpi_watch_free(struct sbio_mpi_watch *w)
{
    (void)w;
}

int sbio_mpi_reduce_result(struct sbio_run_result *res)
{
    (void)res;
    return 0;
}

#endif
