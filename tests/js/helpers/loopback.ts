// Starts a test HTTP server on 127.0.0.1 at a free port; close() also drops kept-alive connections
// so a test never waits on a browser's or fetch's idle socket.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Loopback {
  origin: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(server: Server): Promise<Loopback> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
