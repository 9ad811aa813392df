import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "./support.js";

/** Linux's ephemeral range (`ip_local_port_range`), where outgoing connections take their local ports. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    return [Number(low), Number(high)];
  } catch {
    return [32_768, 60_999]; // Linux's default
  }
}

const listens = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

describe("freePort (test support)", () => {
  it("gives ports below the ephemeral range that a server can bind, and skips a taken one", async () => {
    const [low] = ephemeralRange();
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(Math.min(low, 32_768));
      expect(await listens(port)).toBe(true);
    }
    // A kernel-given port (what freePort used to return) lies in the range: the case it avoids.
    const kernel = createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => kernel.once("listening", resolve));
    const given = (kernel.address() as { port: number }).port;
    expect(given).toBeGreaterThanOrEqual(low);
    // While one of them is held by a server, freePort never returns it.
    const held = createServer().listen(ports[0], "127.0.0.1");
    await new Promise((resolve) => held.once("listening", resolve));
    for (let i = 0; i < 20; i++) expect(await freePort()).not.toBe(ports[0]);
    await new Promise((resolve) => held.close(resolve));
    await new Promise((resolve) => kernel.close(resolve));
  });
});
