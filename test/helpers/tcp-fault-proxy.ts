import { createConnection, createServer, type Socket } from 'node:net';
import { once } from 'node:events';

/** What passes through: `up` is client -> server, `down` server -> client; `bytes` counts this connection's direction so far. */
export interface FaultEvent {
  direction: 'up' | 'down';
  connection: number;
  bytes: number;
  chunk: Buffer;
}

/** Decides per chunk: forward it, reset both sides without forwarding it, or forward it and then reset. */
export type FaultAction = 'pass' | 'reset' | 'forward-then-reset';

/** A TCP proxy in front of a server that can reset connections on demand or by a plan. */
export interface TcpFaultProxy {
  port: number;
  /** Replaces the plan; null forwards everything. */
  setPlan(plan: ((event: FaultEvent) => FaultAction) | null): void;
  /** Resets every open connection now. */
  resetAll(): void;
  /** Connections reset so far. */
  resets(): number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

type Plan = ((event: FaultEvent) => FaultAction) | null;

/** The proxy's connections and counters; each accepted client is bridged to its own upstream socket. */
class FaultBridge {
  plan: Plan = null;
  accepted = 0;
  resetCount = 0;
  readonly open = new Set<() => void>();

  constructor(private readonly target: { host: string; port: number }) {}

  /** Bridges one client to a fresh upstream connection, consulting the plan for every chunk. */
  bridge(client: Socket): void {
    const connection = ++this.accepted;
    const upstream = createConnection(this.target);
    const reset = () => {
      if (client.destroyed && upstream.destroyed) return;
      this.resetCount += 1;
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    };
    this.open.add(reset);
    this.pipe({ from: client, to: upstream, direction: 'up' }, connection, reset);
    this.pipe({ from: upstream, to: client, direction: 'down' }, connection, reset);
    const end = () => {
      this.open.delete(reset);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) socket.on('close', end).on('error', end);
  }

  private pipe(way: { from: Socket; to: Socket; direction: 'up' | 'down' }, connection: number, reset: () => void): void {
    let bytes = 0;
    way.from.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      const action = this.plan ? this.plan({ direction: way.direction, connection, bytes, chunk }) : 'pass';
      if (action !== 'reset') way.to.write(chunk);
      if (action !== 'pass') reset();
    });
  }

  resetAll(): void {
    for (const reset of [...this.open]) reset();
  }
}

/** Starts a proxy on a free port forwarding to `target`. */
export async function startTcpFaultProxy(target: { host: string; port: number }): Promise<TcpFaultProxy> {
  const bridge = new FaultBridge(target);
  const server = createServer((client) => bridge.bridge(client));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    setPlan: (next) => (bridge.plan = next),
    resetAll: () => bridge.resetAll(),
    resets: () => bridge.resetCount,
    connections: () => bridge.accepted,
    close: async () => {
      bridge.resetAll();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
