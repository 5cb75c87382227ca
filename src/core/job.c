#include "job.h"

#include "mix.h"
#include "options.h"
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

uint64_t sbio_job_iodepth_batch(const struct sbio_job *job)
{
    return sbio_iodepth_batch_of(job->iodepth_batch, job->iodepth,
                                 job->extra_flags & SBIO_XF_DIRECT);
}

void sbio_job_from_config(struct sbio_job *job, const struct sbio_config *cfg)
{
    *job = (struct sbio_job){
        .threads = (unsigned)cfg->threads,
        .engine = cfg->ioengine,
        .iodepth = cfg->iodepth,
        .iodepth_batch = cfg->iodepth_batch,
        .uring_fixed = cfg->uring_fixed,
        .uring_sqpoll = cfg->uring_sqpoll,
        .extra_flags = cfg->extra_flags,
        .cpus = cfg->cpus,
        .mode = cfg->mode,
        .block_size = cfg->block_size,
        .block_what = "--file-block-size",
        .merged_requests = cfg->merged_requests,
        .seq_stream = cfg->seq_stream,
        .invalidate = cfg->invalidate,
        .fadvise = cfg->fadvise,
        .random_order = cfg->random_order,
        .ioprio = cfg->ioprio,
        .fsync_freq = cfg->fsync_freq,
        .fsync_all = cfg->fsync_all,
        .fsync_end = cfg->fsync_end,
        .fsync_mode = cfg->fsync_mode,
        .fsync_scope = cfg->fsync_scope,
        .rw_ratio = cfg->rw_ratio,
        .rate = cfg->rate,
        .time_s = cfg->time_s,
        .events = cfg->events,
        .warmup_s = cfg->warmup_s,
        .warmup_auto = cfg->warmup_auto,
        .warmup_max_s = cfg->warmup_max_s,
        .warmup_tol_pct = cfg->warmup_tol_pct,
        .seed = cfg->rand_seed,
        .verify = cfg->verify,
        .verify_fatal = cfg->verify_fatal,
    };
}
