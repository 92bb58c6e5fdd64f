/**
 * Waits for a condition, as long as it takes: the test's own timeout is the only budget, so a
 * loaded machine makes a test slower, never red. Use it instead of a fixed sleep or a poll with a
 * short budget.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * @param condition checked now and then every `everyMs`
 * @example await until(() => chain.authorizationUsed(asset, payer, nonce));
 */
const until = async (condition: () => boolean | Promise<boolean>, everyMs = 50): Promise<void> => {
  while (!(await condition())) await sleep(everyMs);
};

export { until };
