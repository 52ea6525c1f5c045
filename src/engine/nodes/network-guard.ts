// The address policy of restApiCall, for the nodes that open their own connections (dbClient,
// mqttClient, sendEmail, net, ws): a host is resolved once, every address it resolves to is checked,
// and the node connects to a checked address, so DNS rebinding cannot slip past. Private, loopback
// and link-local addresses are refused unless engine.rest_allow_private_network or
// engine.rest_allowed_hosts allow them.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '../../core/errors.ts';
import { isPublicAddress } from '../../tools/network-address.ts';
import type { NetworkPolicy, NodeServices } from '../types.ts';

export function policyOf(services: NodeServices): NetworkPolicy {
  return services.network ?? {};
}

/** The address to connect to for `host:port`, after the policy's checks; throws AppError('forbidden'). */
export async function guardedAddress(
  policy: NetworkPolicy,
  host: string,
  port: number | string,
): Promise<string> {
  const bare = host.replace(/^\[|\]$/gu, '');
  const allowed = new Set((policy.allowedHosts ?? []).map((name) => name.toLowerCase()));
  const named = bare.toLowerCase();
  const hostAllowed =
    allowed.has(named) ||
    allowed.has(`${named}:${port}`) ||
    allowed.has(`[${named}]`) ||
    allowed.has(`[${named}]:${port}`);
  const addresses =
    isIP(bare) !== 0 ? [bare] : (await lookup(bare, { all: true })).map((entry) => entry.address);
  const first = addresses[0];
  if (first === undefined) throw new AppError('upstream', `${host} has no address`);
  if (hostAllowed || policy.allowPrivateNetwork === true) return first;
  for (const address of addresses) {
    if (!isPublicAddress(address)) {
      const target = address === bare ? address : `${host} (${address})`;
      throw new AppError(
        'forbidden',
        `refusing to connect to ${target}: private, loopback and link-local addresses are not allowed`,
      );
    }
  }
  return first;
}
