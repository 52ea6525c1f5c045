import { isIPv4, isIPv6 } from 'node:net';

// IPv4 ranges that do not lead to the public internet (RFC 6890 and friends): this network,
// private, carrier-grade NAT, loopback, link-local (cloud metadata), IETF protocol assignments,
// documentation, benchmarking, multicast, reserved and broadcast.
const NON_PUBLIC_IPV4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/**
 * True only for a unicast address on the public internet. Everything else (loopback, private,
 * link-local, unspecified, multicast, documentation) is refused, including IPv4 addresses wrapped
 * in IPv6 (IPv4-mapped, IPv4-compatible, NAT64, 6to4).
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/gu, '').replace(/%.*$/u, '');
  if (isIPv4(bare)) return isPublicIPv4(ipv4ToNumber(bare));
  if (isIPv6(bare)) return isPublicIPv6(parseIPv6(bare));
  return false;
}

function isPublicIPv4(value: number): boolean {
  if (value === 0xffffffff) return false;
  return NON_PUBLIC_IPV4.every(([network, bits]) => {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return (value & mask) >>> 0 !== (ipv4ToNumber(network) & mask) >>> 0;
  });
}

function isPublicIPv6(bytes: number[]): boolean {
  const word = (index: number): number => ((bytes[index * 2] ?? 0) << 8) | (bytes[index * 2 + 1] ?? 0);
  const embeddedIPv4 = (offset: number): number =>
    (((bytes[offset] ?? 0) << 24) |
      ((bytes[offset + 1] ?? 0) << 16) |
      ((bytes[offset + 2] ?? 0) << 8) |
      (bytes[offset + 3] ?? 0)) >>>
    0;
  const firstFiveZero = [0, 1, 2, 3, 4].every((index) => word(index) === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible; also covers :: and ::1).
  if (firstFiveZero && (word(5) === 0xffff || word(5) === 0)) return isPublicIPv4(embeddedIPv4(12));
  // 64:ff9b::a.b.c.d, the NAT64 well-known prefix.
  if (word(0) === 0x64 && word(1) === 0xff9b && [2, 3, 4, 5].every((index) => word(index) === 0)) {
    return isPublicIPv4(embeddedIPv4(12));
  }
  // 2002:a.b.c.d::/48, 6to4.
  if (word(0) === 0x2002) return isPublicIPv4(embeddedIPv4(2));
  const first = word(0);
  if ((first & 0xfe00) === 0xfc00) return false; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return false; // fe80::/10 link-local
  if ((first & 0xffc0) === 0xfec0) return false; // fec0::/10 site-local (deprecated)
  if ((first & 0xff00) === 0xff00) return false; // ff00::/8 multicast
  if (first === 0x2001 && word(1) === 0x0db8) return false; // 2001:db8::/32 documentation
  if (first === 0x0100 && [1, 2, 3].every((index) => word(index) === 0)) return false; // 100::/64 discard
  return true;
}

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((value, part) => ((value << 8) | Number(part)) >>> 0, 0);
}

/** The 16 bytes of a valid IPv6 address, with `::` expanded and a dotted IPv4 tail converted. */
function parseIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/u.exec(text);
  if (dotted) {
    const value = ipv4ToNumber(dotted[1] as string);
    text = `${text.slice(0, dotted.index)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const leftWords = left === '' ? [] : left.split(':');
  const rightWords = right === undefined || right === '' ? [] : right.split(':');
  const missing = 8 - leftWords.length - rightWords.length;
  const words = [...leftWords, ...Array<string>(Math.max(0, missing)).fill('0'), ...rightWords];
  return words.flatMap((word) => {
    const value = Number.parseInt(word, 16);
    return [value >> 8, value & 0xff];
  });
}
