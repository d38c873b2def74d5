import type { FinishRequest, FinishResult, JobStore } from '../../store/job-store.js';
import { StoreError } from '../../store/store-errors.js';

/** Finishes one store call carries at most: a batch's arguments stay far below a script's limits. */
export const MAX_FINISHES_PER_CALL = 64;

interface Waiting {
  request: FinishRequest;
  resolve: (result: FinishResult) => void;
  reject: (error: unknown) => void;
}

/**
 * The finishes of a slice's work loops, sent to the store as `finishMany` batches: a finish asked for while none is
 * in flight goes at once (no wait added to a lone loop); those asked for while one is in flight go together in the
 * next call, as soon as it returns. Many small sitemaps then cost one store round trip (one Lua call) per batch, not
 * per sitemap. A failed call rejects every finish it carried (each is safe to retry, as `finishWork` is).
 */
export class FinishBatch {
  private readonly waiting: Waiting[] = [];
  private sending = false;

  constructor(
    private readonly store: JobStore,
    private readonly jobId: string,
  ) {}

  /** Finishes one piece of work, as `store.finishWork` would, in the next batch. */
  finish(request: FinishRequest): Promise<FinishResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      if (!this.sending) void this.send();
    });
  }

  private async send(): Promise<void> {
    this.sending = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_FINISHES_PER_CALL);
      try {
        const results = await this.store.finishMany(
          this.jobId,
          batch.map((one) => one.request),
        );
        batch.forEach((one, i) => {
          const result = results[i];
          if (result === undefined) one.reject(new StoreError('corrupt', `finishMany answered ${results.length} results for ${batch.length} finishes`));
          else one.resolve(result);
        });
      } catch (error) {
        for (const one of batch) one.reject(error);
      }
    }
    this.sending = false;
  }
}
