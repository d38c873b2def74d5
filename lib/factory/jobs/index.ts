// Resumable discovery jobs over a JobStore: create, run time-boxed slices, stop, read status and shards.
export { createJob, type CreateJobInput } from './create-job.js';
export { runSlice, type RunSliceOptions } from './run-slice.js';
export { getJobStatus, readJobShard, readJobShardEntries, retryStalledJob, stopJob } from './job-control.js';
export { jobStatusOf } from './job-status.js';
export { MAX_CLAIMS_WITHOUT_PROGRESS, stalledOf } from './stall-policy.js';
