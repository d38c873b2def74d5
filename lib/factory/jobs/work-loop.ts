import type { ClaimedWork, ClaimResult } from '../../store/job-store.js';
import { releaseWork } from './finish-work.js';
import { processDiscovery, processFallback } from './process-discovery.js';
import { processSitemap } from './process-sitemap.js';
import { claimRequest, haltSlice, shouldStop, type SliceContext } from './slice-context.js';

/**
 * Does one claimed piece of work in a read slot: discovery or one sitemap (which gives its slot back once read, before
 * its finish). Returns the next claim when its finish brought one.
 */
async function processWork(context: SliceContext, work: ClaimedWork): Promise<ClaimResult | null> {
  context.busy += 1;
  const held = context.leases.hold(work);
  let giveSlot: (() => void) | null = null;
  try {
    giveSlot = await context.readSlots.take();
    // The slice stopped while this work waited for a slot: it was not started, so it is handed back at once.
    if (giveSlot === null || shouldStop(context)) {
      await releaseWork(context, work);
      return null;
    }
    if (work.item.type === 'discover') await processDiscovery(context, held, work.item.rootUrl);
    else if (work.item.type === 'fallback') await processFallback(context, held, work.item);
    else await processSitemap(context, held, work.item.ref, giveSlot);
    return held.next;
  } finally {
    giveSlot?.();
    held.stop();
    context.busy -= 1;
    context.wakeup.notify();
  }
}

/**
 * One of a slice's work loops (workLoopsFor): claim, work, repeat, until the budget, the end of the job, a stall, or a
 * stretch with nothing claimable. Idle while siblings are busy (they may queue children); with no busy
 * sibling, work held by other workers may still come free, so it keeps asking for `idleWaitMs`.
 */
export async function workLoop(context: SliceContext): Promise<void> {
  let idleSince: number | null = null;
  let next: ClaimResult | null = null;
  while (!shouldStop(context)) {
    const claim = next ?? (await context.store.claim(context.jobId, claimRequest(context)));
    next = null;
    if (claim.type === 'claimed') {
      idleSince = null;
      next = await processWork(context, claim.work);
      continue;
    }
    // Only work the job is stalled on is left: this loop ends, siblings finish what they hold, the status says stalled.
    if (claim.type === 'stalled') return;
    if (claim.type !== 'wait') return haltSlice(context);
    idleSince ??= Date.now();
    if (context.busy === 0 && Date.now() - idleSince >= context.idleWaitMs) return;
    await context.wakeup.wait(context.idlePollMs, context.clock.claimSignal);
  }
  // Work claimed with the last finish but not started (the slice is stopping): free at once, not at lease expiry.
  if (next?.type === 'claimed') await releaseWork(context, next.work);
}
