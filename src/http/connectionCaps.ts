/**
 * Caps on the public listener's open connections, in all and per client address, so that one
 * client holding many idle connections cannot take every file descriptor and shut others out.
 * A connection beyond a cap is closed as soon as it is accepted, with nothing read or written:
 * answering it 503 would mean reading its request (keeping the socket, the very resource capped,
 * up to the request timeout), or writing before the client has sent anything, which the close,
 * resetting a connection with an unread request, may destroy before the client reads it. A
 * closed connection costs nothing and tells a load balancer or client to try again elsewhere.
 *
 * Refusals are logged in bounded volume: the first after a quiet interval at once, then one line
 * per interval with the counts while they go on.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export type ConnectionRefusal = 'total' | 'address';

export interface ConnectionLimits {
  /** open connections in all (0: no cap) */
  maxConnections: number;
  /** open connections from one client address (0: no cap) */
  maxConnectionsPerAddress: number;
}

export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

/** distinct addresses counted per interval, at most */
const MAX_DISTINCT = 10_000;

/** Logs refused connections: the first of a busy interval at once, the rest as one line per interval. */
export class ConnectionRefusalLog {
  private counts: Record<ConnectionRefusal, number> = { total: 0, address: 0 };
  private addresses = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly logger: WarnLogger,
    private readonly limits: ConnectionLimits,
    readonly intervalMs = 10_000,
  ) {}

  record(reason: ConnectionRefusal, clientAddress: string, open: number): void {
    if (this.timer === null) {
      this.logger.warn({ reason, clientAddress, open, ...this.limits }, 'connection refused: at the connection cap');
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      this.timer.unref();
      return;
    }
    this.counts[reason]++;
    if (this.addresses.has(clientAddress) || this.addresses.size < MAX_DISTINCT) {
      this.addresses.set(clientAddress, (this.addresses.get(clientAddress) ?? 0) + 1);
    }
  }

  private flush(): void {
    const { total, address } = this.counts;
    if (total + address === 0) {
      this.timer = null;
      return;
    }
    let busiest = '';
    let most = 0;
    for (const [clientAddress, n] of this.addresses) {
      if (n > most) [busiest, most] = [clientAddress, n];
    }
    this.logger.warn(
      {
        intervalMs: this.intervalMs,
        refused: total + address,
        atTotalCap: total,
        atAddressCap: address,
        clientAddresses: this.addresses.size,
        busiestAddress: busiest,
        busiestAddressRefused: most,
        ...this.limits,
      },
      'connections refused: at the connection cap',
    );
    this.counts = { total: 0, address: 0 };
    this.addresses = new Map();
    this.timer = setTimeout(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** Counts open connections in all and per address, and closes those beyond the caps as they are accepted. */
export class ConnectionCaps {
  private open = 0;
  private readonly perAddress = new Map<string, number>();

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly onRefused: (reason: ConnectionRefusal, clientAddress: string, open: number) => void,
  ) {}

  get openConnections(): number {
    return this.open;
  }

  /** Listens for `server`'s connections (after Node's own listener, which sets up the HTTP parser). */
  install(server: Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket));
  }

  admit(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    const fromAddress = this.perAddress.get(address) ?? 0;
    const { maxConnections, maxConnectionsPerAddress } = this.limits;
    const refusal: ConnectionRefusal | null =
      maxConnections > 0 && this.open >= maxConnections
        ? 'total'
        : maxConnectionsPerAddress > 0 && fromAddress >= maxConnectionsPerAddress
          ? 'address'
          : null;
    if (refusal) {
      socket.destroy();
      this.onRefused(refusal, address, this.open);
      return;
    }
    this.open++;
    this.perAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      this.open--;
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left === 0) this.perAddress.delete(address);
      else this.perAddress.set(address, left);
    });
  }
}
