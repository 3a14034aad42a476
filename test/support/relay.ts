// A TCP relay to PostgreSQL that can go silent, as a network partition does: nothing more crosses it either
// way and no connection is closed (no FIN, no RST), so each side waits for a peer that never speaks again.
import net from 'node:net';

export interface Relay {
  /** The relay's loopback port: `url` with its host replaced by 127.0.0.1:<port> goes through it. */
  port: number;
  /** `url` through the relay. */
  url(url: string): string;
  /** Whether it has gone silent. */
  readonly silent: boolean;
  /** Goes silent now, for the connections open now and those opened until heal(). */
  cut(): void;
  /** Connections opened from now on go through; those cut stay silent. */
  heal(): void;
  /** Closes every connection it carried (both sides see them end) and stops. */
  close(): Promise<void>;
}

/** A relay to the PostgreSQL of `url`; with `trigger`, it cuts itself once a client message carrying it passed. */
export async function partitionableRelay(url: string, trigger?: string): Promise<Relay> {
  const target = new URL(url);
  const [host, port] = [target.hostname, Number(target.port || 5432)];
  const sockets = new Set<net.Socket>();
  let partition = { silent: false };
  // Half-open allowed: a side that ends its half gets no FIN back unless it crosses the relay.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ port, host, allowHalfOpen: true });
    const link = partition;
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
    }
    client.on('data', (chunk) => {
      if (link.silent) return;
      upstream.write(chunk);
      if (trigger && chunk.includes(trigger)) link.silent = true;
    });
    upstream.on('data', (chunk) => {
      if (!link.silent) client.write(chunk);
    });
    // Once silent, a side ending or closing is not passed on either.
    client.on('end', () => link.silent || upstream.end());
    upstream.on('end', () => link.silent || client.end());
    client.on('close', () => link.silent || upstream.destroy());
    upstream.on('close', () => link.silent || client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayPort = (server.address() as net.AddressInfo).port;
  return {
    port: relayPort,
    url(u) {
      const through = new URL(u);
      through.host = `127.0.0.1:${relayPort}`;
      return through.toString();
    },
    get silent() {
      return partition.silent;
    },
    cut() {
      partition.silent = true;
    },
    heal() {
      partition = { silent: false };
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
