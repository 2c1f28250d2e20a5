import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalid } from '../core/errors.js';

/**
 * Keeps webhooks from being aimed at the network delayq runs in (SSRF): only public unicast addresses
 * pass unless configuration allows more. The check runs on the addresses DNS returned, inside the
 * socket's own lookup, so the connection goes to exactly the address that was vetted (a name that
 * resolves to a public address at check time and a private one at connect time cannot slip through).
 */
export class SsrfGuard {
  private readonly allowedNames: ReadonlySet<string>;
  private readonly allowedCidrs: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

  /** `allowedRanges`: ipaddr.js range names (`loopback`, `private`…) or CIDRs. Invalid entries throw E_VALIDATION. */
  constructor(allowedRanges: readonly string[] = [], field = 'sink.allowedRanges') {
    const names = new Set<string>();
    const cidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
    allowedRanges.forEach((entry, i) => {
      if (entry.includes('/')) {
        try {
          cidrs.push(ipaddr.parseCIDR(entry));
        } catch {
          throw invalid(`${field}[${i}]`, `"${entry}" is not a valid CIDR`);
        }
      } else if (RANGE_NAMES.has(entry)) {
        names.add(entry);
      } else {
        throw invalid(
          `${field}[${i}]`,
          `"${entry}" is neither a CIDR nor a range name (${[...RANGE_NAMES].join(', ')})`,
        );
      }
    });
    this.allowedNames = names;
    this.allowedCidrs = cidrs;
  }

  /** Why `address` is refused, or null when it may be contacted. */
  refusal(address: string): string | null {
    let ip: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      ip = ipaddr.process(address); // also unwraps IPv4-mapped IPv6 (::ffff:10.0.0.1 → 10.0.0.1)
    } catch {
      return `"${address}" is not an IP address`;
    }
    const range = ip.range();
    if (range === 'unicast') return null;
    if (this.allowedNames.has(range)) return null;
    if (this.allowedCidrs.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits))) return null;
    return `address ${ip.toString()} is in the ${range} range, which this sink does not allow (allowedRanges)`;
  }

  /** A `net` lookup that resolves like dns.lookup and refuses the connection if any address is not allowed. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      // Every address must pass: a name mixing public and private answers is refused outright.
      for (const { address } of addresses) {
        const why = this.refusal(address);
        if (why) return callback(new SsrfRefusedError(`${hostname}: ${why}`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new SsrfRefusedError(`${hostname}: DNS returned no address`), '', 0);
      return callback(null, first.address, first.family);
    });
  };

  /** Checks a URL's host when it is an IP literal (sockets skip the lookup for those). */
  refusalForHost(hostname: string): string | null {
    const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    return isIP(bare) ? this.refusal(bare) : null;
  }
}

export class SsrfRefusedError extends Error {
  readonly code = 'E_SSRF_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'SsrfRefusedError';
  }
}

/** ipaddr.js's range names for IPv4 and IPv6 (besides `unicast`, which always passes). */
const RANGE_NAMES = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'carrierGradeNat',
  'private',
  'reserved',
  'as112',
  'amt',
  'benchmarking',
  'uniqueLocal',
  'ipv4Mapped',
  'rfc6145',
  'rfc6052',
  '6to4',
  'teredo',
  'orchid2',
  'droneRemoteIdProtocolEntityTags',
  'as112v6',
  'deprecatedOrchid',
  'deprecatedSiteLocal',
  'segmentRouting',
  'discard',
]);
