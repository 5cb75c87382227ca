#include "job.h"

#include <string.h>

#include "mix.h"
#include "ioprio.h"
#include "vocab.h"

bool sbio_job_writes(const struct sbio_job *job)
{
    return job->mix || job->hook || sbio_mode_writes(job->mode);
}

bool sbio_job_sequential(const struct sbio_job *job)
{
    return !job->mix && !job->hook && sbio_mode_sequential(job->mode);
}

int sbio_job_fadvise(const struct sbio_job *job)
{
    if (job->fadvise != SBIO_FADV_AUTO)
        return job->fadvise;
    if (job->hook)
        return SBIO_FADV_NORMAL;
    if (job->mix)
        return job->mix->pattern == SBIO_PAT_SEQ ? SBIO_FADV_SEQUENTIAL : SBIO_FADV_RANDOM;
    return sbio_mode_sequential(job->mode) ? SBIO_FADV_SEQUENTIAL : SBIO_FADV_RANDOM;
}

uint64_t sbio_job_merged(const struct sbio_job *job)
{
    if (job->mix || job->hook)
        return (job->max_len + job->block_size - 1) / job->block_size;
    return job->merged_requests > 1 ? job->merged_requests : 1;
}

uint64_t sbio_job_req_bytes(const struct sbio_job *job)
{
    return job->block_size * sbio_job_merged(job);
}

/* O_DIRECT requests go to the device, and a device handed a whole batch at once returns it
 * whole and idles while the next is prepared: submitting each request as it is queued keeps
 * it busy (4 KiB random O_DIRECT reads at depth 32 on this machine's virtio disk: 80k IOPS
 * against 64k). Buffered requests are served from the page cache inside the submitting call,
 * where fewer calls is all that counts (the opposite: 870k against 620k). */
uint64_t sbio_job_iodepth_batch(const struct sbio_job *job)
{
    return sbio_iodepth_batch_of(job->iodepth_batch, job->iodepth,
                                 job->extra_flags & SBIO_XF_DIRECT);
}

void sbio_job_declare(struct sbio_job *job, const struct sbio_script_phase *p, unsigned k,
                      uint64_t events, const struct sbio_settings *set)
{
    const struct sbio_script_job *sj = &p->jobs[k], *cl = &set->job;
    uint64_t small = sj->block[0], big = sj->block[0];
    for (unsigned b = 1; b < sj->nblocks; b++) {
        small = sj->block[b] < small ? sj->block[b] : small;
        big = sj->block[b] > big ? sj->block[b] : big;
    }
    bool mode = sj->mode != SBIO_MODE_NONE;
    *job = (struct sbio_job){
        .threads = sj->threads,
        .engine = sj->engine,
        .iodepth = sj->iodepth,
        .iodepth_batch = cl->iodepth_batch,
        .extra_flags = sj->flags,
        .cpus = cl->cpus,
        .mode = sj->mode,
        .block_size = small,
        .merged_requests = mode ? cl->merged_requests : (big + small - 1) / small,
        .max_len = big,
        .seq_stream = sj->stream,
        .invalidate = sj->invalidate,
        .invalidate_pass = sj->invalidate_pass,
        .file_rr = sj->file_rr,
        .fadvise = sj->fadvise,
        .random_order = sj->random_order,
        .ioprio = sj->ioprio != SBIO_IOPRIO_NONE ? sj->ioprio : cl->ioprio,
        .group = sj->group,
        .nfrange = sj->nfrange,
        .frange_first = sj->frange_first,
        .frange_last = sj->frange_last,
        .fsync_freq = mode ? sj->fsync_freq : 0,
        .fsync_all = mode && cl->fsync_all,
        .fsync_end = sj->fsync_end,
        .fsync_mode = cl->fsync_mode,
        .fsync_scope = cl->fsync_scope,
        .rw_ratio = mode ? sj->rw_ratio : cl->rw_ratio,
        .rate = sj->rate,
        .think_us = sj->think_us,
        .time_s = p->time_s,
        .events = events,
        .events_rw = mode && set->events_rw,
        .warmup_s = cl->warmup_s,
        .warmup_auto = cl->warmup_auto,
        .warmup_max_s = cl->warmup_max_s,
        .warmup_tol_pct = cl->warmup_tol_pct,
        .verify = cl->verify,
        .verify_fatal = cl->verify_fatal,
    };
    memcpy(job->engine_opt, cl->engine_opt, sizeof(job->engine_opt));
    /* A job with no share of its phase's events idles for a second. */
    if (p->events && !events && !p->time_s)
        job->time_s = 1;
}

/* Job k's share of phase p's events, in proportion to its threads, exactly: its threads'
 * share of the cumulative count, floor to floor. */
uint64_t sbio_job_events(const struct sbio_script_phase *p, unsigned k, unsigned total_threads,
                         unsigned threads_before)
{
    return (uint64_t)((unsigned __int128)p->events * (threads_before + p->jobs[k].threads) /
                          total_threads -
                      (unsigned __int128)p->events * threads_before / total_threads);
}
