import { lastRoundState, loadCampaign } from "./load.js";
import { openCampaignRound } from "./open-round.js";
import type { CampaignContext, CurrentCampaign, Serial } from "./types.js";

/**
 * A queue per campaign id: roll-overs of one campaign run one at a time in this
 * process (a task runs after the previous one settles, whether it failed or not).
 * O(1) per task; one map entry per campaign ever queued.
 */
export function serialQueue(): Serial {
  const locks = new Map<string, Promise<unknown>>();
  return <T>(id: string, task: () => Promise<T>): Promise<T> => {
    const run = (locks.get(id) ?? Promise.resolve()).then(task, task);
    locks.set(
      id,
      run.catch(() => undefined),
    );
    return run;
  };
}

/**
 * The campaign after the schedule's roll-over (if due), with its latest round's
 * state (routes that show every round ask `roundStates` themselves): a roll-over is
 * due with `roundEveryMs` when there is no round, the latest is closed, or it
 * opened at least `roundEveryMs` ago; then the latest is closed (if open) and the
 * next opened. Runs in the campaign's `serial` queue. A client's `current` costs
 * one round listing and one or two state queries, not one per round.
 */
export function rollOver(context: CampaignContext, serial: Serial, id: string): Promise<CurrentCampaign> {
  const { storage } = context;
  return serial(id, async () => {
    let campaign = await loadCampaign(storage, id);
    let last = await lastRoundState(storage, campaign);
    const every = campaign.roundEveryMs;
    if (every !== undefined) {
      const latest = campaign.rounds.at(-1);
      const now = context.now().getTime();
      const due = !latest || last!.closedAt !== null || Date.parse(latest.createdAt) + every <= now;
      if (due) {
        if (latest && last!.closedAt === null) await storage.closeRound(latest, context.now());
        await openCampaignRound(context, campaign);
        campaign = await loadCampaign(storage, id);
        last = await lastRoundState(storage, campaign);
      }
    }
    return { campaign, last };
  });
}
