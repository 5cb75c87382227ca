/* Many client hosts, one workload, one report: coordination over MPI, as IOR does it.
 *
 * MPI only coordinates and reduces; the core (runner, workload, engines, reports) knows
 * nothing of it. Every rank runs the same command; the ranks meet at each phase boundary
 * (prepare, warm-up, run, end) in sbio_mpi_agree(), an all-gather of every rank's status,
 * never a plain barrier: a rank that failed still arrives, says so, and everyone learns it,
 * so no rank is ever left waiting for one that gave up. Inside a phase a rank that fails
 * tells the others with a point-to-point message, which their runners poll every 20 ms
 * (struct sbio_runner_sync); each agree drains exactly the messages of its phase.
 *
 * Each rank times itself with its own monotonic clock (clocks of different hosts are never
 * compared); rank 0 gathers every rank's result and merges it: counters summed, histograms
 * added bucket by bucket (exact), elapsed time the longest rank's, CPU and device counters
 * kept per rank.
 *
 * Built with MPI (make MPI=1, the default when mpicc is found) and launched by an MPI
 * launcher (mpirun), sbio_mpi_init() starts MPI. Otherwise — built without MPI, or run
 * directly — every function acts for one process: rank 0 of 1, host leader, agree returns
 * its argument, reduce leaves the result as it is. All functions but the pure ones are
 * called from the main thread only (MPI_THREAD_FUNNELED). */
#ifndef SBIO_MPI_H
#define SBIO_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runner.h"

#define SBIO_MPI_HOST_LEN SBIO_HOST_LEN

/* Start MPI when this build has it and an MPI launcher started the process (its
 * environment says so). 0, or -EIO after a message when MPI_Init failed. */
int sbio_mpi_init(int *argc, char ***argv);

/* Flush stdout and stderr, wait for every rank and stop MPI (a rank that exits early with a
 * non-zero status makes mpirun kill the others, report unprinted). No-op without MPI. */
void sbio_mpi_finalize(void);

/* True between sbio_mpi_init (when it started MPI) and sbio_mpi_finalize. */
bool sbio_mpi_active(void);
unsigned sbio_mpi_rank(void);
unsigned sbio_mpi_size(void);

/* "Open MPI v4.1.4" when this build has MPI, else NULL. Needs no sbio_mpi_init. */
const char *sbio_mpi_library(char *buf, size_t len);

/* Collective. This host's name, whether this rank is its leader (the lowest rank on a host
 * of that name: it alone changes the host's device settings and drops its caches), and how
 * many hosts there are. Single process: gethostname, true, 1. 0 or -EIO. */
int sbio_mpi_hosts(char host[SBIO_MPI_HOST_LEN], bool *leader, unsigned *nhosts);

/* Collective: every rank's status (0, -errno, -EINTR, -SBIO_EUSAGE) gathered; returns 0 when
 * all are 0, else the worst status (usage error over failure over interruption) of the lowest
 * rank that has it, the same on every rank; *who (may be NULL) gets that rank. While
 * waiting it sleeps instead of spinning on a CPU the other ranks' workers may need. */
int sbio_mpi_agree(int rc, unsigned *who);

/* Collective: v from rank 0 to every rank. */
void sbio_mpi_bcast_u64(uint64_t *v);

/* The runner's coordination for one run (see struct sbio_runner_sync): its agree() also
 * notifies the other ranks when this one failed and drains their notices; stopped() tests
 * for a notice. *sync is filled; NULL (and *sync untouched) when MPI is not active. */
struct sbio_mpi_watch;
struct sbio_mpi_watch *sbio_mpi_watch_new(struct sbio_runner_sync *sync);
void sbio_mpi_watch_free(struct sbio_mpi_watch *w);

/* Collective, after a run that every rank ran: rank 0's res becomes the merged result
 * (sbio_mpi_merge) with every rank's own result in res->ranks; the other ranks' res is left
 * as it was. 0 or -ENOMEM / -EIO, the same on every rank. */
int sbio_mpi_reduce_result(struct sbio_run_result *res);

/* Pure (no MPI): merge n ranks' results into out. ranks[i] are the ranks' own results whose
 * per_thread arrays are per_thread + first[i] (first[] computed here from ranks[i].threads);
 * hosts[i] their host names. out takes ownership of ranks, hosts and per_thread; its samples
 * are rank 0's (out->samples on entry, kept). The rules are sbio_result_merge's for
 * SBIO_MERGE_RANKS (result.h). */
void sbio_mpi_merge(struct sbio_run_result *out, struct sbio_run_result *ranks,
                    char (*hosts)[SBIO_MPI_HOST_LEN], unsigned n, struct sbio_stats *per_thread);

/* Pure: index of the worst status in rc[0..n) as sbio_mpi_agree ranks them, or -1 when all
 * are 0. */
int sbio_mpi_worst(const int *rc, unsigned n);

#endif
