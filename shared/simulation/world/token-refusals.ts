import { keyIdOfToken } from '../../app/workflow-tokens.js';
import type { World } from './world.js';

/**
 * `valid-token-honoured`: a token a region handed out is never refused as `invalid_token` while the
 * key that signed it is in the ring: the worker or agent would end its work for nothing (a container
 * that cannot check it yet answers 503 `keys_refreshing`). Called with each such refusal a simulated
 * worker or agent hears; the simulated clients only ever send the tokens they were given.
 */
export function checkTokenRefusal(world: World, token: string, holder: string): void {
  const keyId = keyIdOfToken(token);
  if (keyId === undefined || !world.keyRing.holds(keyId)) return;
  world.refusedTokens.push({ holder, message: `${holder}'s token, signed with key ${keyId} (in the ring), was refused as invalid_token` });
}
