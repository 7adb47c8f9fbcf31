/** What the service prints once it listens: the URLs it answers on, in one banner for a single process and a cluster. */
import type { AddressInfo, Server } from 'node:net';

/** The URL a listening server answers on (a wildcard address shown as localhost). */
export function listeningUrl(server: Server): string {
  const { address, port, family } = server.address() as AddressInfo;
  const host = address === '0.0.0.0' || address === '::' ? 'localhost' : family === 'IPv6' ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

export interface BannerFacts {
  /** the public listener's URL */
  base: string;
  backend: string;
  /** the admin listener's URL, null when admin.enabled is false */
  adminUrl: string | null;
  /** paths of example requests (the demo ledger's) */
  examples: readonly string[];
  /** worker processes, null for a single process */
  workers: number | null;
}

/** The banner's lines, each ending in a newline. */
export function startupBanner({ base, backend, adminUrl, examples, workers }: BannerFacts): string {
  const admin = adminUrl
    ? `  Admin listener: ${adminUrl} (POST ${adminUrl}/change-log-level, HTTP Basic auth)`
    : '  Admin listener: disabled (admin.enabled)';
  return [
    `Ledger Query Service listening on ${base} (${workers === null ? backend : `${backend}, ${workers} worker processes`})`,
    `  API description: ${base}/api/v1/docs`,
    admin,
    ...examples.map((u) => `  ${base}${u}`),
    '',
  ].join('\n');
}
